/*
 * The relocator's differential fuzzer (tests/fuzz/reloc_*.c), a short
 * run: a fixed seed's random functions relocated as --backend inject
 * patches them and run side by side with the originals, every refusal
 * held against relocate.h; and the sandbox it runs them in, on code whose
 * outcome is known (exits, faults, steps and their trace).  `make fuzz-reloc FUZZ_RELOC_N=10000000` is the long
 * run; a failure here prints the command that reproduces it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/fuzz/reloc_diff.h"

#define SEED	1
#define COUNT	10000

#if defined(__x86_64__)
/* Run code at RD_FN from RD_FN + entry, rcx = rcx and the other registers
 * zero; the one exit is at RD_FN + exit_at. */
static void run_at(struct rd_space *sp, const char *code, size_t len, size_t entry,
		   uint64_t rcx, size_t exit_at, uint64_t limit, struct rd_outcome *o)
{
	uint64_t exits[RD_NEXITS] = { RD_FN + exit_at };
	struct rd_regs regs;

	memset(&regs, 0, sizeof(regs));
	regs.gpr[1] = rcx;
	regs.gpr[4] = RD_STACK_TOP;
	regs.flags = 0x202;
	memcpy(sp->fn, code, len);
	rd_sandbox_run(&regs, RD_FN + entry, limit, exits, o);
}

static void run_code(struct rd_space *sp, const char *code, size_t len, size_t exit_at,
		     uint64_t limit, struct rd_outcome *o)
{
	run_at(sp, code, len, 0, 0, exit_at, limit, o);
}

/* In a child (the sandbox takes signals and maps fixed addresses): 0, or
 * the line that went wrong. */
static int sandbox_checks(void)
{
	static uint64_t trace[8];
	struct rd_space sp;
	struct rd_outcome o;

	if (rd_sandbox_init(&sp))
		return __LINE__;
	/* inc %rax; stc; ud2: an exit, with the registers and flags it left */
	run_code(&sp, "\x48\xff\xc0\xf9\x0f\x0b", 6, 4, 0, &o);
	if (o.kind != RK_EXIT || o.exit != 0 || o.regs.gpr[0] != 1 || !(o.regs.flags & 1))
		return __LINE__;
	/* mov $10,%ecx; 1: dec %ecx; jnz 1b; ud2: 21 single steps */
	run_code(&sp, "\xb9\x0a\x00\x00\x00\xff\xc9\x75\xfc\x0f\x0b", 11, 9, 100, &o);
	if (o.kind != RK_EXIT || o.steps != 21 || o.regs.gpr[1] != 0)
		return __LINE__;
	/* jmp .: stopped by the timer, or after exactly the step limit */
	run_code(&sp, "\xeb\xfe", 2, 2, 0, &o);
	if (o.kind != RK_TIMEOUT || o.rip != RD_FN)
		return __LINE__;
	run_code(&sp, "\xeb\xfe", 2, 2, 50, &o);
	if (o.kind != RK_UNFINISHED || o.steps != 50)
		return __LINE__;
	/* mov (%rax),%rax from 0: the fault, where and why */
	run_code(&sp, "\x48\x8b\x00", 3, 3, 0, &o);
	if (o.kind != RK_FAULT || o.sig != SIGSEGV || o.addr != 0 || o.rip != RD_FN)
		return __LINE__;
	/* getpid from the sandbox: refused by the seccomp filter */
	run_code(&sp, "\xb8\x27\x00\x00\x00\x0f\x05", 7, 7, 0, &o);
	if (o.kind != RK_FAULT || o.sig != SIGSYS)
		return __LINE__;
	/* mov $0xb0f,%eax (its bytes 1-2 are an ud2); jmp *%rcx: traced,
	 * the steps stop after the mov, then at the jump's target */
	rd_sandbox_trace(trace, 8);
	run_at(&sp, "\xb8\x0f\x0b\x00\x00\xff\xe1", 7, 0, RD_FN + 1, 1, 100, &o);
	rd_sandbox_trace(NULL, 0);
	if (o.kind != RK_EXIT || o.steps != 2 || trace[0] != RD_FN + 5 || trace[1] != RD_FN + 1)
		return __LINE__;
	return 0;
}

static void test_sandbox(void **state)
{
	int status;
	pid_t pid;

	(void)state;
	fflush(stdout);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid)
		_exit(sandbox_checks());
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		fail_msg("the sandbox check at tests/unit/test_relocate_diff.c:%d failed (status %#x)",
			 WIFEXITED(status) ? WEXITSTATUS(status) : 0, status);
}

static void test_short_run(void **state)
{
	static const int seen[] = { RR_SHORT, RR_PUSHF, RR_LOOP, RR_CALL_RSP, RR_FAR_BRANCH,
				    RR_CALL_FORM, RR_FAR_RIP, RR_BRANCH_FORM, RR_CALL_MID,
				    RR_INTO_PATCH };
	struct rd_stats st;
	long failures;
	size_t i;

	(void)state;
	failures = rd_run(SEED, 0, COUNT, 1, 0, stderr, &st);
	print_message("reloc-diff: %llu sequences of seed %d: %llu moved and run side by side "
		      "(%llu exits, %llu faults, %llu neither finished), %llu refused\n",
		      (unsigned long long)st.sequences, SEED, (unsigned long long)st.relocated,
		      (unsigned long long)st.exits, (unsigned long long)st.faults,
		      (unsigned long long)st.unfinished,
		      (unsigned long long)(st.sequences - st.relocated - st.failures));
	assert_int_equal(failures, 0);
	assert_int_equal(st.sequences, COUNT);
	/* What the run is for, all there (the seed fixes the sequences). */
	assert_true(st.moved_call && st.moved_rip && st.moved_branch && st.moved_out && st.endbr);
	assert_true(st.to_entry && st.to_tail);
	assert_true(st.exits && st.faults && st.unfinished);
	for (i = 0; i < sizeof(seen) / sizeof(*seen); i++)
		assert_true(st.refused[seen[i]] > 0);
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
#if defined(__x86_64__)
		cmocka_unit_test(test_sandbox),
		cmocka_unit_test(test_short_run),
#endif
	};

	return cmocka_run_group_tests_name("relocate_diff", tests, NULL, NULL);
}
