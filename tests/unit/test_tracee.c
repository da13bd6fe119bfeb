/*
 * Holding a live process with ptrace (lib/process/tracee), on a real one: the
 * stress program with its worker threads started and waiting.  Every
 * thread is stopped, memory is mapped in it within reach of its code and
 * written, and after detaching it does its work and exits as it would
 * have, its own output intact.  A process another tracer holds is
 * refused with the reason.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/process/tracee.h"

#define STRESS OT_EXPECTED_DIR "/../../stress/orbit-stress"

/* Start the stress program waiting for SIGUSR1; its stdout on *out. */
static pid_t start(FILE **out)
{
	int fd[2];
	char line[256];
	pid_t pid;

	assert_int_equal(pipe(fd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		dup2(fd[1], 1);
		close(fd[0]);
		execl(STRESS, STRESS, "--stress-threads", "2", "--stress-hz", "0",
		      "--stress-calls", "300", "--wait-go", (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	*out = fdopen(fd[0], "r");
	assert_non_null(fgets(line, sizeof(line), *out));
	assert_int_equal(strncmp(line, "ready ", 6), 0);
	return pid;
}

/* The start of the first executable mapping of path in pid. */
static uint64_t text_of(pid_t pid, const char *name)
{
	char maps[64], line[512];
	unsigned long lo = 0;
	FILE *f;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	f = fopen(maps, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, " r-xp ") && strstr(line, name) && sscanf(line, "%lx-", &lo) == 1)
			break;
	fclose(f);
	assert_true(lo != 0);
	return lo;
}

/* The permissions of the mapping that starts at addr in pid, or "". */
static void perms_at(pid_t pid, uint64_t addr, char perms[5])
{
	char maps[64], line[512];
	unsigned long lo;
	FILE *f;

	perms[0] = 0;
	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	f = fopen(maps, "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%*x %4s", &lo, perms) == 2 && lo == addr)
			break;
		else
			perms[0] = 0;
	if (f)
		fclose(f);
}

static void test_stop_map_detach(void **state)
{
	struct ot_tracee t;
	const char *why;
	char perms[5], line[4096] = "", buf[16];
	FILE *out;
	uint64_t text, got;
	pid_t pid = start(&out);
	int status;
	long r;

	(void)state;
	assert_int_equal(ot_tracee_attach(pid, &t, &why), 0);
	assert_int_equal(t.n, 3);	/* main and the two workers */
	text = text_of(pid, "orbit-stress");
	got = ot_tracee_mmap_near(&t, text, 65536, PROT_READ | PROT_WRITE | PROT_EXEC, &why);
	assert_true(got != 0);
	assert_true(got - text + (1ull << 31) < (1ull << 32) - 65536);	/* in rel32 reach */
	perms_at(pid, got, perms);
	assert_string_equal(perms, "rwxp");
	/* A system call's own result comes back: getpid in the target. */
	{
		long none[6] = { 0 };

		r = ot_tracee_syscall(&t, 39 /* SYS_getpid */, none);
		assert_int_equal(r, pid);
	}
	{
		char path[64];
		FILE *mem;

		snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
		mem = fopen(path, "r+");
		assert_non_null(mem);
		assert_int_equal(fseek(mem, (long)got, SEEK_SET), 0);
		assert_int_equal(fwrite("orbit", 1, 5, mem), 5);
		fflush(mem);
		assert_int_equal(fseek(mem, (long)got, SEEK_SET), 0);
		assert_int_equal(fread(buf, 1, 5, mem), 5);
		assert_memory_equal(buf, "orbit", 5);
		fclose(mem);
	}
	ot_tracee_detach(&t);
	ot_tracee_detach(&t);	/* safe to repeat */
	/* It runs on as if nothing happened: its work, its output, exit 0. */
	kill(pid, SIGUSR1);
	while (fgets(buf, sizeof(buf), out))
		if (strlen(line) + strlen(buf) < sizeof(line))
			strcat(line, buf);
	fclose(out);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_non_null(strstr(line, "\"expected\": {\"outer\": 600, \"middle\": 1200, \"inner\": 3600}"));
}

#if defined(__x86_64__)
/* The child's work: a loop that saves and restores its flags. */
extern const char ot_test_flags_loop[], ot_test_flags_loop_jmp[];
__asm__(".text\n"
	"ot_test_flags_loop:\n"
	"	pushfq\n"
	"	popfq\n"
	"ot_test_flags_loop_jmp:\n"
	"	jmp ot_test_flags_loop\n");

/*
 * A thread taken out of code that saves and restores its flags (as the
 * inject runtime does) and let go runs on: no trap flag of ours is left
 * in them (single steps, pushed and popped back, would have made it its
 * own and killed it with SIGTRAP), and it leaves a range it loops in
 * part of the time.
 */
static void test_step_through_popf(void **state)
{
	uint64_t lo = (uint64_t)ot_test_flags_loop, hi = (uint64_t)ot_test_flags_loop_jmp;
	struct user_regs_struct r;
	struct ot_tracee t;
	const char *why;
	int status;
	pid_t pid;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		((void (*)(void))(uintptr_t)lo)();
		_exit(0);
	}
	usleep(20000);
	assert_int_equal(ot_tracee_attach(pid, &t, &why), 0);
	/* Stopped on the jmp: taken off it first. */
	assert_int_equal(ot_tracee_regs(&t, 0, &r), 0);
	if (r.rip == hi) {
		uint64_t jmp_end = hi + 2;

		assert_int_equal(ot_tracee_step_out(&t, 0, &hi, &jmp_end, 1, 400), 0);
	}
	/* Out of pushf and popf: on the jmp. */
	assert_int_equal(ot_tracee_step_out(&t, 0, &lo, &hi, 1, 400), 0);
	assert_int_equal(ot_tracee_regs(&t, 0, &r), 0);
	assert_false(r.eflags & 0x100);
	ot_tracee_detach(&t);
	usleep(100000);
	if (waitpid(pid, &status, WNOHANG) == pid)
		fail_msg("the child ended: status 0x%x", status);	/* still looping */
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}
#endif

static void test_already_traced(void **state)
{
	struct ot_tracee t, other;
	const char *why;
	FILE *out;
	pid_t pid = start(&out);
	int status;

	(void)state;
	/* Our own seize first, from a child: then the process has a tracer. */
	assert_int_equal(ot_tracee_attach(pid, &other, &why), 0);
	{
		pid_t helper = fork();

		if (!helper) {
			int ret = ot_tracee_attach(pid, &t, &why);

			_exit(ret == -EPERM && why &&
			      strstr(why, "another tracer holds it") ? 0 : 1);
		}
		assert_int_equal(waitpid(helper, &status, 0), helper);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	ot_tracee_detach(&other);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	fclose(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stop_map_detach),
#if defined(__x86_64__)
		cmocka_unit_test(test_step_through_popf),
#endif
		cmocka_unit_test(test_already_traced),
	};

	return cmocka_run_group_tests_name("tracee", tests, NULL, NULL);
}
