/*
 * A program that forbids itself mmap, mprotect and munmap (a seccomp
 * filter killing the process) midway, for tests/e2e/inject-seccomp.sh:
 * prints "ready PID"; on its first input line installs the filter, calls
 * work() COUNT times and prints "filtered"; on its second calls it COUNT
 * times again and prints the sum of what work returned, then exits 0.
 * Untraced it prints the same.  Usage: seccomp COUNT
 */
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

long work(long i);

__attribute__((noipa)) long work(long i)
{
	return i * 3 + 1;
}

static int forbid_maps(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_munmap, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mprotect, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mmap, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(*f), .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
}

int main(int argc, char **argv)
{
	char line[64];
	long i, n = argc > 1 ? strtol(argv[1], NULL, 10) : 0, sum = 0;

	if (n <= 0) {
		fprintf(stderr, "usage: seccomp COUNT\n");
		return 2;
	}
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	if (forbid_maps()) {
		perror("seccomp");
		return 1;
	}
	for (i = 0; i < n; i++)
		sum += work(i);
	printf("filtered\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	for (i = 0; i < n; i++)
		sum += work(i);
	printf("sum %ld\n", sum);
	return 0;
}
