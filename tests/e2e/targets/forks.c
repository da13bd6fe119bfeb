/*
 * Children made from inside traced functions: spawn() forks, and the child
 * returns through spawn's frame (whose return address a tracer may have
 * moved), calls leaf() and exits with a status the parent checks; run()
 * starts a command with system() (posix_spawn: a child sharing the
 * parent's memory until it execs).  Prints what it saw.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int leaf(int i);
pid_t spawn(int i);
int run(void);

static volatile int sink;

__attribute__((noinline)) int leaf(int i)
{
	sink += i;
	return i & 0x7f;
}

__attribute__((noinline)) pid_t spawn(int i)
{
	pid_t pid = fork();

	sink += i;
	return pid;
}

__attribute__((noinline)) int run(void)
{
	return system("exit 7");
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20, i, good = 0, shell = 0;

	for (i = 0; i < n; i++) {
		pid_t pid = spawn(i);
		int status;

		if (pid == 0)
			_exit(leaf(i));
		if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		    WEXITSTATUS(status) == (i & 0x7f))
			good++;
		if (i % 5 == 0) {
			status = run();
			shell += WIFEXITED(status) && WEXITSTATUS(status) == 7;
		}
	}
	printf("{\"spawn\": %d, \"children_ok\": %d, \"shells_ok\": %d}\n", n, good, shell);
	return good == n ? 0 : 1;
}
