/*
 * A pre-forking server of ours: the parent prints "ready PID" and forks a
 * worker at each SIGUSR1 (from inside spawn_worker(), a function a tracer
 * may patch); a worker prints "worker PID", then at each SIGUSR1 calls
 * handle() N times and prints "worker PID calls N", and exits at
 * SIGTERM.  SIGTERM to the parent ends the workers too.
 * Usage: prefork N
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int handle(int i);
int step(int i);
pid_t spawn_worker(long n);

static volatile int sink;

__attribute__((noinline)) int step(int i)
{
	sink ^= i;
	return sink;
}

/* It starts with a one-byte push (its registers kept across step's
 * calls): a uprobe there over an inject patch resumes inside the jmp. */
__attribute__((noinline)) int handle(int i)
{
	int k, s = 0;

	for (k = 0; k < 4; k++)
		s += step(i + k);
	sink += s;
	return sink;
}

static void serve(long n)
{
	sigset_t set;
	int sig;
	long i;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	printf("worker %d\n", (int)getpid());
	fflush(stdout);
	while (!sigwait(&set, &sig) && sig == SIGUSR1) {
		for (i = 0; i < n; i++)
			handle((int)i);
		printf("worker %d calls %ld\n", (int)getpid(), n);
		fflush(stdout);
	}
	_exit(0);
}

__attribute__((noinline)) pid_t spawn_worker(long n)
{
	pid_t pid = fork();

	if (!pid)
		serve(n);
	return pid;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	pid_t kids[64];
	int nkids = 0, sig, k, status, bad = 0;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (!sigwait(&set, &sig) && sig == SIGUSR1)
		if (nkids < 64)
			kids[nkids++] = spawn_worker(n);
	for (k = 0; k < nkids; k++) {
		kill(kids[k], SIGTERM);
		bad += waitpid(kids[k], &status, 0) != kids[k] || !WIFEXITED(status) ||
		       WEXITSTATUS(status);
	}
	printf("workers %d, %d ended badly\n", nkids, bad);
	return bad != 0;
}
