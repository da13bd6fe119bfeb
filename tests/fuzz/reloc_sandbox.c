/*
 * reloc_sandbox.c - running the relocator fuzzer's code at the addresses
 * it was laid out for, in the (forked) worker's own address space.
 *
 * rd_enter loads every general register from a table and irets into the
 * code (one instruction sets rip, rsp and the flags, trap flag included,
 * and serialises after the code was written).  The code leaves only by a
 * signal: an exit is an ud2 at a known address, a fault is a fault, a
 * single step that reaches the limit is "did not finish", and a timer
 * tick seen three times in the window ends a run that spins (the driver
 * then reruns it single-stepped, so no verdict depends on the timer).
 * The handler, on its own stack, copies the registers from the signal
 * frame and sends the thread back to rd_resume with the host's stack.
 *
 * What the code can do to this process is limited by the generator (no
 * system call, no fs/gs, memory only in the window's data and stack) and
 * by a seccomp filter that answers any system call made from the window
 * with SIGSYS, so that bytes the CPU decodes otherwise than capstone
 * still cannot reach the kernel.
 */
#include "reloc_diff.h"

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/time.h>
#include <ucontext.h>

/* What rd_enter reads: its layout is the assembly's. */
struct ctl {
	uint64_t host_rsp;
	uint64_t gpr[15];	/* rax rcx rdx rbx rbp rsi rdi r8..r15, popped in that order */
	uint64_t iret[5];	/* rip cs rflags rsp ss */
};

void rd_enter(struct ctl *c);
extern const char rd_resume[];

__asm__(".text\n"
	".globl rd_enter\n"
	".hidden rd_enter\n"
	".type rd_enter,@function\n"
	"rd_enter:\n"
	"	push %rbx\n	push %rbp\n	push %r12\n	push %r13\n	push %r14\n	push %r15\n"
	"	mov %rsp,(%rdi)\n"
	"	lea 8(%rdi),%rsp\n"
	"	pop %rax\n	pop %rcx\n	pop %rdx\n	pop %rbx\n	pop %rbp\n	pop %rsi\n"
	"	pop %rdi\n	pop %r8\n	pop %r9\n	pop %r10\n	pop %r11\n	pop %r12\n"
	"	pop %r13\n	pop %r14\n	pop %r15\n"
	"	iretq\n"
	".globl rd_resume\n"
	".hidden rd_resume\n"
	"rd_resume:\n"
	"	pop %r15\n	pop %r14\n	pop %r13\n	pop %r12\n	pop %rbp\n	pop %rbx\n"
	"	ret\n"
	".size rd_enter, .-rd_enter\n");

static struct ctl ctl;
static struct rd_outcome *result;
static volatile sig_atomic_t running, ticks;
static volatile uint64_t steps, step_limit;
static uint64_t *trace;
static size_t trace_cap;

static int in_window(uint64_t a)
{
	return (a >> 33) == (RD_WINDOW >> 33);
}

/* The run is over: its registers into *result, the thread back home. */
static void finish(ucontext_t *uc, int kind, int sig, const siginfo_t *si)
{
	static const int reg[16] = { REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP,
				     REG_RSI, REG_RDI, REG_R8,	REG_R9,	 REG_R10, REG_R11,
				     REG_R12, REG_R13, REG_R14, REG_R15 };
	greg_t *g = uc->uc_mcontext.gregs;
	struct rd_outcome *o = result;
	int i;

	o->kind = kind;
	o->sig = sig;
	o->code = si ? si->si_code : 0;
	o->addr = si ? (uint64_t)(uintptr_t)si->si_addr : 0;
	o->rip = (uint64_t)g[REG_RIP];
	o->steps = steps;
	for (i = 0; i < 16; i++)
		o->regs.gpr[i] = (uint64_t)g[reg[i]];
	o->regs.flags = (uint64_t)g[REG_EFL];
	g[REG_RIP] = (greg_t)(uintptr_t)rd_resume;
	g[REG_RSP] = (greg_t)ctl.host_rsp;
	g[REG_EFL] = 0x202;	/* no trap flag, no direction flag for the host */
	running = 0;
}

static void on_signal(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;

	if (!running) {
		/* Not the sandbox's: the fuzzer's own fault kills it (the
		 * parent reports the sequence), a late tick is nothing. */
		if (sig != SIGALRM)
			signal(sig, SIG_DFL);
		return;
	}
	if (sig == SIGALRM) {
		/* Single-stepped, the step limit ends the run, not time. */
		if (!step_limit && in_window((uint64_t)uc->uc_mcontext.gregs[REG_RIP]) &&
		    ++ticks >= 3)
			finish(uc, RK_TIMEOUT, sig, NULL);
		return;
	}
	if (sig == SIGTRAP && si->si_code == TRAP_TRACE) {
		if (steps < trace_cap)
			trace[steps] = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
		if (++steps >= step_limit)
			finish(uc, RK_UNFINISHED, sig, si);
		return;
	}
	finish(uc, RK_FAULT, sig, si);
}

void rd_sandbox_run(const struct rd_regs *regs, uint64_t rip, uint64_t limit,
		    const uint64_t *exits, struct rd_outcome *o)
{
	static const int order[15] = { 0, 1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };
	uint16_t cs, ss;
	int i;

	memset(o, 0, sizeof(*o));
	__asm__("mov %%cs,%0; mov %%ss,%1" : "=r"(cs), "=r"(ss));
	for (i = 0; i < 15; i++)
		ctl.gpr[i] = regs->gpr[order[i]];
	ctl.iret[0] = rip;
	ctl.iret[1] = cs;
	ctl.iret[2] = (regs->flags & ~0x100ull) | 0x202 | (limit ? 0x100 : 0);
	ctl.iret[3] = regs->gpr[4];
	ctl.iret[4] = ss;
	result = o;
	steps = 0;
	step_limit = limit;
	ticks = 0;
	running = 1;
	rd_enter(&ctl);
	if (o->kind == RK_FAULT && o->sig == SIGILL)
		for (i = 0; i < RD_NEXITS; i++)
			if (o->rip == exits[i]) {
				o->kind = RK_EXIT;
				o->exit = i;
				break;
			}
}

void rd_sandbox_trace(uint64_t *buf, size_t cap)
{
	trace = buf;
	trace_cap = buf ? cap : 0;
}

static uint8_t *map_at(uint64_t addr, size_t len, int prot)
{
	void *p = mmap((void *)(uintptr_t)addr, len, prot,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if (p != (void *)(uintptr_t)addr) {	/* a kernel that ignores NOREPLACE */
		munmap(p, len);
		errno = EEXIST;
		return NULL;
	}
	return p;
}

/* Every system call made from the window gets SIGSYS instead. */
static int no_syscalls_from_window(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, instruction_pointer) + 4),
		BPF_STMT(BPF_ALU | BPF_AND | BPF_K, ~1u),	/* the window is 8 GiB */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)(RD_WINDOW >> 32), 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(*f), f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
		return -errno;
	return 0;
}

static int handlers(void)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS, SIGALRM };
	static uint8_t altstack[1 << 16];
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) };
	struct itimerval tick = { { 0, 100 }, { 0, 100 } };
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
	sigfillset(&sa.sa_mask);
	if (sigaltstack(&ss, NULL))
		return -errno;
	for (i = 0; i < sizeof(sigs) / sizeof(*sigs); i++)
		if (sigaction(sigs[i], &sa, NULL))
			return -errno;
	if (setitimer(ITIMER_REAL, &tick, NULL))
		return -errno;
	return 0;
}

int rd_sandbox_init(struct rd_space *sp)
{
	const int rwx = PROT_READ | PROT_WRITE | PROT_EXEC, rw = PROT_READ | PROT_WRITE;
	int i, err;

	sp->fn = map_at(RD_FN, RD_FN_SPAN, rwx);
	sp->stubs = map_at(RD_STUBS, 4096, rwx);
	sp->far_code = map_at(RD_FAR_CODE, 4096, rwx);
	sp->data = map_at(RD_DATA, RD_DATA_LEN, rw);
	sp->far_data = map_at(RD_FAR_DATA, 4096, rw);
	sp->stack = map_at(RD_STACK, RD_STACK_LEN, rw);
	if (!sp->fn || !sp->stubs || !sp->far_code || !sp->data || !sp->far_data || !sp->stack)
		return -errno;
	for (i = 0; i < RD_NTRAMP; i++) {
		sp->tramp[i] = map_at(rd_tramp_page[i], 4096, rwx);
		if (!sp->tramp[i])
			return -errno;
		memset(sp->tramp[i], 0xcc, 4096);	/* int3: running off the end shows */
	}
	memset(sp->fn, 0xcc, RD_FN_SPAN);
	memset(sp->stubs, 0xcc, 4096);
	memset(sp->far_code, 0xcc, 4096);
	err = handlers();
	return err ? err : no_syscalls_from_window();
}
