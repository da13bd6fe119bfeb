/*
 * A program that ends as it is told, in the middle of traced calls, for
 * the tests of how a capture says its target ended: step() is called
 * N times, then, inside the last of them, fault() ends the process by
 * HOW: segv (a NULL store, SIGSEGV), abort (SIGABRT), sys (a system call
 * its seccomp filter forbids, SIGSYS), exit3 (exit(3)), or return (0).
 * With "wait" it prints "ready PID" and waits for a line on its standard
 * input first, so that a tracer can attach.  Usage: ends HOW N [wait]
 */
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

long step(long i, const char *how);
void fault(const char *how);

static volatile long sink;

/* getppid is then fatal (SIGSYS, as a sandboxed program dies), the rest
 * allowed.  x86-64 only, as orbit-trace. */
static void forbid_getppid(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_getppid, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		perror("ends: seccomp");
		exit(99);
	}
}

__attribute__((noinline)) void fault(const char *how)
{
	fflush(stdout);
	if (!strcmp(how, "segv"))
		*(volatile long *)(sink & 0) = 1;
	else if (!strcmp(how, "abort"))
		abort();
	else if (!strcmp(how, "sys"))
		syscall(__NR_getppid);
	else if (!strcmp(how, "exit3"))
		exit(3);
}

__attribute__((noinline)) long step(long i, const char *how)
{
	sink += i;
	if (how)
		fault(how);
	return sink;
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 10, i;
	const char *how = argc > 1 ? argv[1] : "return";
	char line[16];

	if (argc > 3 && !strcmp(argv[3], "wait")) {
		printf("ready %d\n", (int)getpid());
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			return 98;
	}
	if (!strcmp(how, "sys"))
		forbid_getppid();
	for (i = 1; i < n; i++)
		step(i, NULL);
	printf("%ld steps\n", n);
	step(n, how);
	return 0;
}
