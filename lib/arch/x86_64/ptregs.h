/*
 * ptregs.h - x86-64's registers as ptrace gives them (struct
 * user_regs_struct), for what holds a process (lib/process/tracee.c) and
 * inject: the program counter, a system call made or interrupted, the
 * trap flag, and the registers inject's gadget reloads.
 *
 * Contract: static inlines, pure, any caller.  Every machine provides it
 * (tracee.c is built everywhere); struct ot_tracee_saved and the system
 * call helpers only matter where OT_ARCH_INJECT.
 */
#ifndef OT_PTREGS_H
#define OT_PTREGS_H

#include <stdint.h>
#include <sys/syscall.h>
#include <sys/user.h>

/* The instruction that makes a system call (syscall), and its length:
 * the program counter after one, stopped in it, is past it. */
#define OT_PTREGS_SYSCALL_INSN	{ 0x0f, 0x05 }
#define OT_PTREGS_SYSCALL_LEN	2

/* The kernel's codes for a system call it restarts (include/linux/errno.h). */
#define OT_ERESTARTSYS		512
#define OT_ERESTARTNOINTR	513
#define OT_ERESTARTNOHAND	514
#define OT_ERESTART_RESTARTBLOCK 516

/* The registers the code after inject's gadget reloads (the runtime's
 * ot_inj_rt_saved, in lib/arch/x86_64/inject_rt.S), in this order. */
struct ot_tracee_saved {
	uint64_t rax, rbx, rcx, rdx, rsi, rdi, rbp, r8, r9, r10, r11, r12, r13, r14, r15;
	uint64_t rflags, rip;
};

static inline uint64_t ot_ptregs_pc(const struct user_regs_struct *r)
{
	return r->rip;
}

static inline void ot_ptregs_set_pc(struct user_regs_struct *r, uint64_t pc)
{
	r->rip = pc;
}

/* The thread pointer (fs's base): glibc's struct pthread. */
static inline uint64_t ot_ptregs_tp(const struct user_regs_struct *r)
{
	return r->fs_base;
}

/* A function's first integer argument, at its entry (rdi). */
static inline uint64_t ot_ptregs_arg1(const struct user_regs_struct *r)
{
	return r->rdi;
}

/* Was the thread stopped inside a system call (one the kernel may restart)? */
static inline int ot_ptregs_in_syscall(const struct user_regs_struct *r)
{
	return (long long)r->orig_rax >= 0;
}

/* r set to make system call nr with args at its next syscall
 * instruction, as a call of its own (not one to restart). */
static inline void ot_ptregs_set_syscall(struct user_regs_struct *r, long nr, const long args[6])
{
	r->rax = (unsigned long long)nr;
	r->rdi = (unsigned long long)args[0];
	r->rsi = (unsigned long long)args[1];
	r->rdx = (unsigned long long)args[2];
	r->r10 = (unsigned long long)args[3];
	r->r8 = (unsigned long long)args[4];
	r->r9 = (unsigned long long)args[5];
	r->orig_rax = (unsigned long long)-1;
}

/* A system call's return value, after it. */
static inline long ot_ptregs_syscall_ret(const struct user_regs_struct *r)
{
	return (long)r->rax;
}

/* r, stopped inside a system call the kernel would restart, set as the
 * kernel would restart it (the call again, the PC back on its insn). */
static inline void ot_ptregs_restart(struct user_regs_struct *r)
{
	long long err = (long long)r->rax;

	if ((long long)r->orig_rax >= 0 &&
	    (err == -OT_ERESTARTSYS || err == -OT_ERESTARTNOINTR || err == -OT_ERESTARTNOHAND ||
	     err == -OT_ERESTART_RESTARTBLOCK)) {
		r->rax = err == -OT_ERESTART_RESTARTBLOCK ? SYS_restart_syscall : r->orig_rax;
		r->rip -= OT_PTREGS_SYSCALL_LEN;
		r->orig_rax = (unsigned long long)-1;
	}
}

/* r as the gadget reloads it (the trap flag cleared). */
static inline struct ot_tracee_saved ot_ptregs_saved(const struct user_regs_struct *r)
{
	struct ot_tracee_saved s = {
		.rax = r->rax, .rbx = r->rbx, .rcx = r->rcx, .rdx = r->rdx, .rsi = r->rsi,
		.rdi = r->rdi, .rbp = r->rbp, .r8 = r->r8, .r9 = r->r9, .r10 = r->r10,
		.r11 = r->r11, .r12 = r->r12, .r13 = r->r13, .r14 = r->r14, .r15 = r->r15,
		.rflags = r->eflags & ~0x100ull, .rip = r->rip,
	};
	return s;
}

/* The trap flag (X86_EFLAGS_TF) cleared: 1 if it was set. */
static inline int ot_ptregs_clear_step(struct user_regs_struct *r)
{
	if (!(r->eflags & 0x100))
		return 0;
	r->eflags &= ~0x100ull;
	return 1;
}

#endif
