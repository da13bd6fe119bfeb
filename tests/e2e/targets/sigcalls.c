/*
 * Calls from signal handlers that may land while the interrupted code is
 * inside a tracer's runtime: work() N times in a loop while a timer
 * signal arrives every 200 us, its handler calling hwork().  Prints how
 * many calls each made, so that a tracer's counts can be checked whatever
 * the timing.  Usage: sigcalls N
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

long work(long x);
long hwork(long x);

static volatile long sink;
static volatile sig_atomic_t handled;

__attribute__((noinline)) long work(long x)
{
	sink += x;
	return sink;
}

__attribute__((noinline)) long hwork(long x)
{
	sink ^= x;
	return sink;
}

static void on_alarm(int sig)
{
	(void)sig;
	hwork(handled);
	handled++;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000, i;
	struct itimerval it = { { 0, 200 }, { 0, 200 } }, off;
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	for (i = 0; i < n; i++)
		work(i);
	memset(&off, 0, sizeof(off));
	setitimer(ITIMER_REAL, &off, NULL);
	printf("work %ld hwork %ld\n", n, (long)handled);
	return 0;
}
