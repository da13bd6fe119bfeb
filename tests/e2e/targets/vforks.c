/*
 * Children that share the parent's memory until they exec: each round
 * the parent calls parent_only(), then a vfork() child calls
 * child_only() and execs true(1), then posix_spawn() runs true(1) (glibc
 * makes that child with clone(CLONE_VM | CLONE_VFORK)).  A tracer that
 * counts the children's calls as the parent's sees child_only() and
 * execve() called by a process that never calls them.  Prints what it
 * saw.  Usage: vforks N
 */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int parent_only(int i);
int child_only(int i);

static volatile int sink;

__attribute__((noinline)) int parent_only(int i)
{
	sink += i;
	return sink;
}

__attribute__((noinline)) int child_only(int i)
{
	sink -= i;
	return sink;
}

/* 1 if child pid exited with status 0. */
static int reaped(pid_t pid)
{
	int status;

	return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       !WEXITSTATUS(status);
}

static char *args[] = { (char *)"true", NULL };

/* A vfork child that calls child_only(i), then execs true(1). */
static __attribute__((noinline)) pid_t vfork_one(int i)
{
	pid_t pid = vfork();

	if (!pid) {
		child_only(i);
		execv("/bin/true", args);
		_exit(127);
	}
	return pid;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100, i, vforks = 0, spawns = 0;

	for (i = 0; i < n; i++) {
		pid_t pid;

		parent_only(i);
		vforks += reaped(vfork_one(i));
		if (!posix_spawn(&pid, "/bin/true", NULL, NULL, args, environ))
			spawns += reaped(pid);
	}
	printf("parent_only %d vforks_ok %d spawns_ok %d\n", n, vforks, spawns);
	return vforks == n && spawns == n ? 0 : 1;
}
