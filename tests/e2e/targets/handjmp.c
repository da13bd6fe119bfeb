/*
 * A signal handler that leaves by a longjmp, from wherever it interrupts
 * the program - inside a tracer's runtime too: work() N times in a loop
 * while a timer signal arrives every 100 us, its handler jumping back to
 * the loop, which goes on with the next call.  Every call either returned
 * or was left by a jump, so a tracer sees between N - jumps and N
 * returns.  Prints "calls N jumps J".  Usage: handjmp N
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

long work(long x);

static volatile long sink;
static sigjmp_buf env;
static volatile sig_atomic_t armed;

__attribute__((noinline)) long work(long x)
{
	sink += x;
	return sink;
}

static void on_alarm(int sig)
{
	(void)sig;
	if (armed)
		siglongjmp(env, 1);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	struct itimerval it = { { 0, 100 }, { 0, 100 } }, off;
	static volatile long next, jumps;
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	if (sigsetjmp(env, 1))
		jumps++;
	armed = 1;
	setitimer(ITIMER_REAL, &it, NULL);
	while (next < n) {
		long i = next++;

		work(i);
	}
	armed = 0;
	memset(&off, 0, sizeof(off));
	setitimer(ITIMER_REAL, &off, NULL);
	printf("calls %ld jumps %ld\n", n, (long)jumps);
	return 0;
}
