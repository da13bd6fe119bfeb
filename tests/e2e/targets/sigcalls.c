/*
 * Calls from signal handlers that may land while the interrupted code is
 * inside a tracer's runtime: work() N times in a loop while a timer
 * signal arrives every 200 us, its handler calling hwork().  Prints how
 * many calls each made, so that a tracer's counts can be checked whatever
 * the timing.  Usage: sigcalls N [alt]
 *
 * alt: the loop runs on a thread of its own and the timer ticks at 1 kHz,
 * its handler on an alternate signal stack (sigaltstack) mapped before
 * that thread's stack, so above it: a handler whose stack pointer is
 * above the interrupted code's, which a runtime must not take for code
 * a longjmp returned to.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>

long work(long x);
long hwork(long x);

static volatile long sink;
static volatile sig_atomic_t handled;
static long calls;
static void *altstack;

#define ALT_SIZE (256 * 1024)

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

static void loop(void)
{
	long i;

	for (i = 0; i < calls; i++)
		work(i);
}

/* The alt mode's thread: its handler runs on the alternate stack. */
static void *alt_thread(void *arg)
{
	stack_t ss = { .ss_sp = altstack, .ss_size = ALT_SIZE, .ss_flags = 0 };
	sigset_t set;

	(void)arg;
	if (sigaltstack(&ss, NULL)) {
		perror("sigaltstack");
		exit(1);
	}
	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	loop();
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	return NULL;
}

/* The loop on a thread that alone takes SIGALRM, on its alternate stack. */
static void run_alt(struct sigaction *sa)
{
	struct itimerval it = { { 0, 1000 }, { 0, 1000 } };
	sigset_t set;
	pthread_t th;

	altstack = mmap(NULL, ALT_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (altstack == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	sa->sa_flags |= SA_ONSTACK;
	sigaction(SIGALRM, sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);	/* the thread inherits it, then unblocks */
	setitimer(ITIMER_REAL, &it, NULL);
	if (pthread_create(&th, NULL, alt_thread, NULL)) {
		fprintf(stderr, "pthread_create failed\n");
		exit(1);
	}
	pthread_join(th, NULL);
}

int main(int argc, char **argv)
{
	struct itimerval it = { { 0, 200 }, { 0, 200 } }, off;
	struct sigaction sa;

	calls = argc > 1 ? atol(argv[1]) : 1000000;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	if (argc > 2 && !strcmp(argv[2], "alt")) {
		run_alt(&sa);
	} else {
		sigaction(SIGALRM, &sa, NULL);
		setitimer(ITIMER_REAL, &it, NULL);
		loop();
	}
	memset(&off, 0, sizeof(off));
	setitimer(ITIMER_REAL, &off, NULL);
	printf("work %ld hwork %ld\n", calls, (long)handled);
	return 0;
}
