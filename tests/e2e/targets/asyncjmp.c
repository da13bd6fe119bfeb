/*
 * A signal handler that longjmps out of traced calls: spin() runs a
 * while, calling tick(), and a timer signal every 500 us jumps out of
 * whatever it interrupts (siglongjmp) back to the loop, which calls spin()
 * again from the same place - at the same stack pointer as the call it
 * left.  Prints N on stdout (the same whatever the timing), and on stderr
 * how many spin() calls returned and how many were left by the jump.
 * Usage: asyncjmp [N] (calls of spin)
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

long spin(long i);
long tick(long x);

static sigjmp_buf back;
static volatile sig_atomic_t armed;
static volatile long sink, returned, left;

__attribute__((noinline)) long tick(long x)
{
	sink += x;
	return sink;
}

__attribute__((noinline)) long spin(long i)
{
	long k;

	for (k = 0; k < 200; k++) {
		sink ^= k * i;	/* time spent in spin itself, not only in tick */
		if (k % 50 == 0)
			tick(k);
	}
	return sink;
}

static void on_alarm(int sig)
{
	(void)sig;
	if (armed)
		siglongjmp(back, 1);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000;
	volatile long i;
	struct itimerval it = { { 0, 500 }, { 0, 500 } }, off;
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	for (i = 0; i < n; i++) {
		if (sigsetjmp(back, 1)) {
			armed = 0;
			left++;
			continue;
		}
		armed = 1;
		spin(i);
		armed = 0;
		returned++;
	}
	memset(&off, 0, sizeof(off));
	setitimer(ITIMER_REAL, &off, NULL);
	printf("spin %ld\n", n);
	fprintf(stderr, "returned %ld left %ld\n", returned, left);
	return 0;
}
