/* lib/process/exitinfo: how a process that is not ours ended, on real
 * processes (a grandchild, its parent a child of the test that reaps it
 * only when told): its zombie's /proc stat before, its pidfd after. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/process/exitinfo.h"

/* Linux 6.15 or later: a pidfd keeps the exit status once reaped. */
static int kernel_keeps_exit(void)
{
	struct utsname u;
	int major = 0, minor = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return 0;
	return major > 6 || (major == 6 && minor >= 15);
}

/*
 * A grandchild that dies by how ("exit3": exit(3), "usr1": SIGUSR1) when
 * told, its parent reaping it when told; checked before and after.
 */
static void grandchild(const char *how, int want)
{
	int go[2], reap[2], tell[2], pidfd, st = -1, cst;
	const char *why = NULL;
	pid_t c, g = 0;
	char b = 0;
	struct pollfd pfd;
	enum ot_exit_from from;

	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(reap), 0);
	assert_int_equal(pipe(tell), 0);
	c = fork();
	assert_true(c >= 0);
	if (!c) {
		g = fork();
		if (!g) {
			if (read(go[0], &b, 1) != 1)
				_exit(98);
			if (!strcmp(how, "usr1"))
				raise(SIGUSR1);
			_exit(3);
		}
		if (write(tell[1], &g, sizeof(g)) != sizeof(g) || read(reap[0], &b, 1) != 1)
			_exit(97);
		waitpid(g, NULL, 0);
		_exit(0);
	}
	assert_int_equal(read(tell[0], &g, sizeof(g)), sizeof(g));
	pidfd = pidfd_open(g, 0);
	assert_true(pidfd >= 0);
	assert_int_equal(write(go[1], "x", 1), 1);
	pfd.fd = pidfd;
	pfd.events = POLLIN;
	assert_int_equal(poll(&pfd, 1, 10000), 1);
	/* A zombie its parent has not reaped: /proc says it. */
	from = ot_exit_learn(g, pidfd, &st, &why);
	assert_int_equal(from, OT_EXIT_PROCFS);
	assert_int_equal(st, want);
	assert_string_equal(ot_exit_from_name(from), "procfs");
	/* Reaped: the pidfd says it from Linux 6.15, else it is unknown. */
	assert_int_equal(write(reap[1], "x", 1), 1);
	assert_int_equal(waitpid(c, &cst, 0), c);
	assert_int_equal(cst, 0);
	st = -1;
	from = ot_exit_learn(g, pidfd, &st, &why);
	if (kernel_keeps_exit()) {
		assert_int_equal(from, OT_EXIT_PIDFD);
		assert_int_equal(st, want);
	} else {
		assert_int_equal(from, OT_EXIT_UNKNOWN);
		assert_non_null(strstr(why, "reaped by its parent"));
	}
	close(pidfd);
	close(go[0]);
	close(go[1]);
	close(reap[0]);
	close(reap[1]);
	close(tell[0]);
	close(tell[1]);
}

static void test_exit_status(void **state)
{
	(void)state;
	grandchild("exit3", 3 << 8);
}

static void test_killed(void **state)
{
	(void)state;
	grandchild("usr1", SIGUSR1);
}

/* The names the JSON report gives them. */
static void test_names(void **state)
{
	(void)state;
	assert_null(ot_exit_from_name(OT_EXIT_UNKNOWN));
	assert_string_equal(ot_exit_from_name(OT_EXIT_PTRACE), "ptrace");
	assert_string_equal(ot_exit_from_name(OT_EXIT_KERNEL), "kernel");
	assert_string_equal(ot_exit_from_name(OT_EXIT_PIDFD), "pidfd");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_status),
		cmocka_unit_test(test_killed),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
