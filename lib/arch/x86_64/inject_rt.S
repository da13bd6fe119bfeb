/*
 * inject_rt.S - the runtime --backend inject copies into a traced process
 * (x86-64).  Position-independent: lib/inject/inject.c copies the bytes between
 * ot_inj_rt_start and ot_inj_rt_end into the target's first code region
 * and fills the constants at the start; the layout of what the code
 * touches is lib/inject/inject_layout.h.
 *
 * Why assembly: the runtime runs between a function's entry and its first
 * instruction, and between its return and its caller, so it must keep
 * every register the caller or callee may rely on (all but the flags at a
 * return; compilers may keep values in call-clobbered registers across a
 * call whose callee they know), touch no vector state, make no system
 * call on its way (a thread's first hit asks for its pid, once) and take
 * no lock.  Compiled C promises none of that.
 *
 * Signals: a handler that interrupts the runtime and calls a traced
 * function finds its thread's slot busy and is not recorded (counted);
 * every other step is one instruction or guarded by that flag.  A
 * handler that leaves by a longjmp abandons the runtime call it
 * interrupted, its flag still set: the next call above that one's stack
 * pointer, not on the signal stack, resets it (counted) and records on.
 *
 * vfork children (vfork, posix_spawn) run on their parent's thread
 * pointer in this memory: while the tracer says one runs (H_VFORKS),
 * a hit of its thread pointer is the child's, recorded nowhere.
 */
#include "inject_layout.h"

#if defined(__x86_64__)

/*
 * Registers saved and restored as one list, so that the pops mirror the
 * pushes by construction: SAVE pushes its list in order, RESTORE pops
 * the same list in reverse, NSAVED counts it (to check the offsets
 * inject_layout.h derives from it).
 */
.macro SAVE regs:vararg
	.irp r, \regs
	push	%\r
	.endr
.endm
.macro RESTORE first, rest:vararg
	.ifnb \rest
	RESTORE \rest
	.endif
	pop	%\first
.endm
.macro NSAVED sym, regs:vararg
	.set	\sym, 0
	.irp r, \regs
	.set	\sym, \sym + 1
	.endr
.endm

/* What the vDSO's clock_gettime may clobber, and rbx kept by rt_now. */
#define RT_NOW_SAVED	rcx, rdx, rsi, rdi, r8, r9, r10, r11, rbx
/* What the entry touches besides r9 and rax (saved before, with the flags). */
#define RT_ENTRY_SAVED	rcx, rdx, rsi, rdi, r8, r10, r11
/* What the return touches, rax and rdx the callee's return value: its
 * caller expects every register but the flags as the callee left them. */
#define RT_RET_SAVED	rax, rcx, rdx, rsi, rdi, r8, r9, r10, r11
/* What the unwinder hook's answer touches besides rax, its result. */
#define RT_FDE_SAVED	rcx, rdx, rdi, r11

/* A return's entry, copied to its stack by pushing the quadwords at
 * E_FUNC then E_TAIL1 (lib/inject/inject_layout.h): where each field lands. */
	.set	.LRET_TAIL1, 0
	.set	.LRET_TAIL2, OT_INJ_E_TAIL2 - OT_INJ_E_TAIL1
	.set	.LRET_FUNC, 8
	.set	.LRET_TAIL0, 8 + OT_INJ_E_TAIL0 - OT_INJ_E_FUNC

	NSAVED	.Lrt_entry_nsaved, RT_ENTRY_SAVED
	.if	.Lrt_entry_nsaved != OT_INJ_RT_ENTRY_NSAVED
	.error	"OT_INJ_RT_ENTRY_NSAVED is not the length of RT_ENTRY_SAVED"
	.endif
	NSAVED	.Lrt_ret_nsaved, RT_RET_SAVED
	.if	.Lrt_ret_nsaved != OT_INJ_RT_RET_NSAVED
	.error	"OT_INJ_RT_RET_NSAVED is not the length of RT_RET_SAVED"
	.endif

	.section .rodata.ot_inj_rt, "a"
	.balign 64
	.globl	ot_inj_rt_start
	.hidden	ot_inj_rt_start
ot_inj_rt_start:
/* Constants, filled by lib/inject/inject.c in its copy (read RIP-relative). */
	.globl	ot_inj_rt_priv, ot_inj_rt_shared, ot_inj_rt_areas, ot_inj_rt_vdso
	.globl	ot_inj_rt_ring_mask, ot_inj_rt_area_bytes, ot_inj_rt_tid_off
	.globl	ot_inj_rt_nareas, ot_inj_rt_clock, ot_inj_rt_fsbase, ot_inj_rt_quarter
	.hidden	ot_inj_rt_priv, ot_inj_rt_shared, ot_inj_rt_areas, ot_inj_rt_vdso
	.hidden	ot_inj_rt_ring_mask, ot_inj_rt_area_bytes, ot_inj_rt_tid_off
	.hidden	ot_inj_rt_nareas, ot_inj_rt_clock, ot_inj_rt_fsbase, ot_inj_rt_quarter
ot_inj_rt_priv:		.quad 0	/* the private region */
ot_inj_rt_shared:	.quad 0	/* the shared region's header */
ot_inj_rt_areas:	.quad 0	/* its first ring area */
ot_inj_rt_vdso:		.quad 0	/* __vdso_clock_gettime, for OT_INJ_CLOCK_VDSO */
ot_inj_rt_ring_mask:	.quad 0	/* records per ring - 1 */
ot_inj_rt_area_bytes:	.quad 0	/* bytes per ring area */
ot_inj_rt_quarter:	.quad 0	/* records per quarter ring - 1 */
ot_inj_rt_tid_off:	.long 0	/* glibc's struct pthread: offset of tid */
ot_inj_rt_nareas:	.long 0
ot_inj_rt_clock:	.long 0	/* OT_INJ_CLOCK_* */
ot_inj_rt_fsbase:	.long 0	/* 1: rdfsbase works (HWCAP2_FSGSBASE) */

	.balign 16
/* For system calls the tracer makes in the process: no code of its own
 * needs changing for them.  The tracer stops the thread before and after
 * the call (PTRACE_SYSCALL) and puts its registers back itself; what
 * follows the syscall runs only if it died in between (SIGKILL): the
 * thread's own registers, saved by the tracer in ot_inj_rt_saved, are
 * reloaded and it goes on where it was, as if never stopped - no trap,
 * no signal (lib/process/tracee.c, ot_tracee_syscall). */
	.globl	ot_inj_rt_syscall
	.hidden	ot_inj_rt_syscall
ot_inj_rt_syscall:
	syscall
	lea	-128(%rsp), %rsp	/* below the red zone, which may be in use */
	pushq	ot_inj_rt_saved+120(%rip)
	popfq
	lea	128(%rsp), %rsp		/* lea: the flags stay as popped */
	mov	ot_inj_rt_saved+0(%rip), %rax
	mov	ot_inj_rt_saved+8(%rip), %rbx
	mov	ot_inj_rt_saved+16(%rip), %rcx
	mov	ot_inj_rt_saved+24(%rip), %rdx
	mov	ot_inj_rt_saved+32(%rip), %rsi
	mov	ot_inj_rt_saved+40(%rip), %rdi
	mov	ot_inj_rt_saved+48(%rip), %rbp
	mov	ot_inj_rt_saved+56(%rip), %r8
	mov	ot_inj_rt_saved+64(%rip), %r9
	mov	ot_inj_rt_saved+72(%rip), %r10
	mov	ot_inj_rt_saved+80(%rip), %r11
	mov	ot_inj_rt_saved+88(%rip), %r12
	mov	ot_inj_rt_saved+96(%rip), %r13
	mov	ot_inj_rt_saved+104(%rip), %r14
	mov	ot_inj_rt_saved+112(%rip), %r15
	jmp	*ot_inj_rt_saved+128(%rip)

/* The thread's registers while it runs a system call of the tracer's, in
 * struct ot_tracee_saved's order (lib/process/tracee.h): rax, rbx, rcx,
 * rdx, rsi, rdi, rbp, r8-r15, rflags, rip. */
	.balign 8
	.globl	ot_inj_rt_saved
	.hidden	ot_inj_rt_saved
ot_inj_rt_saved:
	.zero	136

/* rax = now: TSC ticks, or CLOCK_MONOTONIC ns from the vDSO.  Keeps every
 * other register (the vDSO's code clobbers the call-clobbered ones). */
rt_now:
	cmpl	$0, ot_inj_rt_clock(%rip)
	jne	1f
	push	%rdx
	rdtsc
	shl	$32, %rdx
	or	%rdx, %rax
	pop	%rdx
	ret
1:	SAVE	RT_NOW_SAVED
	mov	%rsp, %rbx
	and	$-16, %rsp
	sub	$16, %rsp
	mov	$1, %edi			/* CLOCK_MONOTONIC */
	mov	%rsp, %rsi
	call	*ot_inj_rt_vdso(%rip)
	imul	$1000000000, (%rsp), %rax
	add	8(%rsp), %rax
	mov	%rbx, %rsp
	RESTORE	RT_NOW_SAVED
	ret

/* r11 = this thread's slot, claimed on its first hit, or 0 (no thread
 * pointer, or every slot taken).  Clobbers rax, rcx, rdx, rdi. */
rt_slot:
	cmpl	$0, ot_inj_rt_fsbase(%rip)
	je	1f
	rdfsbase %rax
	jmp	2f
1:	mov	%fs:0, %rax			/* the TCB's pointer to itself */
2:	test	%rax, %rax
	jz	.Lslot_none
	mov	%rax, %rdi
	movabs	$0x9e3779b97f4a7c15, %rcx
	imul	%rcx, %rdi
	shr	$(64 - OT_INJ_SLOT_BITS), %rdi	/* its home slot */
	mov	$OT_INJ_NSLOTS, %edx		/* slots left to try */
.Lslot_probe:
	mov	%rdi, %r11
	shl	$OT_INJ_SLOT_SHIFT, %r11
	add	ot_inj_rt_priv(%rip), %r11
	cmp	OT_INJ_PS_KEY(%r11), %rax
	je	.Lslot_found
	cmpq	$0, OT_INJ_PS_KEY(%r11)
	je	.Lslot_claim
.Lslot_next:
	inc	%rdi
	and	$(OT_INJ_NSLOTS - 1), %rdi
	dec	%edx
	jnz	.Lslot_probe
.Lslot_none:
	xor	%r11d, %r11d
.Lslot_found:
	ret
.Lslot_claim:
	mov	%rax, %rcx
	xor	%eax, %eax
	lock cmpxchg %rcx, OT_INJ_PS_KEY(%r11)
	je	1f
	cmp	%rcx, %rax			/* a signal handler of ours took it for us */
	je	1f
	mov	%rcx, %rax			/* another thread's: probe on */
	jmp	.Lslot_next
1:	mov	%rcx, %rax
	ret

/* rdi = the ring area of this thread (by its id), claimed on first use, or
 * 0.  In: r11 slot, r8 shared header.  Clobbers rax, rcx, rdx, r10. */
rt_area:
	mov	ot_inj_rt_tid_off(%rip), %ecx
	mov	%fs:(%rcx), %eax		/* glibc keeps the id in its TCB */
	mov	OT_INJ_PS_AREA(%r11), %rdi
	cmp	OT_INJ_PS_TID(%r11), %eax
	jne	.Larea_claim			/* a new thread here, or a forked child */
	test	%rdi, %rdi
	jz	.Larea_claim			/* none yet: the tracer may have freed one */
	ret
.Larea_claim:
	mov	%eax, %r10d
	mov	%eax, OT_INJ_PS_TID(%r11)
	imul	$0x9e3779b1, %eax, %eax
	mov	ot_inj_rt_nareas(%rip), %ecx
	mul	%ecx				/* edx: the first area to try */
	push	%rsi
	mov	ot_inj_rt_nareas(%rip), %ecx
.Larea_try:
	mov	%rdx, %rdi
	imul	ot_inj_rt_area_bytes(%rip), %rdi
	add	ot_inj_rt_areas(%rip), %rdi
	cmpl	$0, OT_INJ_A_STATE(%rdi)
	jne	.Larea_next
	xor	%eax, %eax
	mov	$1, %esi
	lock cmpxchg %esi, OT_INJ_A_STATE(%rdi)
	je	.Larea_got
.Larea_next:
	inc	%edx
	cmp	ot_inj_rt_nareas(%rip), %edx
	jb	1f
	xor	%edx, %edx
1:	dec	%ecx
	jnz	.Larea_try
	pop	%rsi
	movq	$0, OT_INJ_PS_AREA(%r11)
	lock incq OT_INJ_H_NO_AREA(%r8)
	xor	%edi, %edi
	ret
.Larea_got:
	pop	%rsi
	/* Once per thread: which process it is (a forked child writes to
	 * these rings too), so the tracer can tell. */
	push	%rcx
	push	%r11
	mov	$39, %eax			/* SYS_getpid */
	syscall
	pop	%r11
	pop	%rcx
	mov	%eax, OT_INJ_A_PID(%rdi)
	mov	%r10d, OT_INJ_A_TID(%rdi)	/* last: the tracer reads the area once it has one */
	mov	%rdi, OT_INJ_PS_AREA(%r11)
	ret

/* Append the record {r9 time, r10 word} to ring area rdi (r8 the shared
 * header); a full ring
 * drops it and counts (A_LOST, which the tracer reads whatever follows),
 * and the next record that fits is preceded by a marker carrying that
 * count: where in the stream the hole is.  Clobbers rax, rcx, rdx. */
rt_emit:
	cmpq	$0, OT_INJ_A_PENDING(%rdi)
	jne	.Lemit_marker
.Lemit_one:
	mov	OT_INJ_A_HEAD(%rdi), %rcx
	mov	%rcx, %rax
	sub	OT_INJ_A_TAIL(%rdi), %rax
	cmp	ot_inj_rt_ring_mask(%rip), %rax
	ja	.Lemit_full
	mov	ot_inj_rt_ring_mask(%rip), %rdx
	and	%rcx, %rdx
	shl	$OT_INJ_REC_SHIFT, %rdx
	mov	%r9, OT_INJ_A_RING(%rdi,%rdx)
	mov	%r10, OT_INJ_A_RING+8(%rdi,%rdx)
	inc	%rcx
	mov	%rcx, OT_INJ_A_HEAD(%rdi)	/* x86 keeps stores in order: a release */
	test	ot_inj_rt_quarter(%rip), %rcx
	jz	.Lemit_quarter			/* a quarter ring written since the last */
	ret
.Lemit_quarter:
	/* A quarter full: wake the tracer's drain, once until it drained. */
	sub	OT_INJ_A_TAIL(%rdi), %rcx
	cmp	ot_inj_rt_quarter(%rip), %rcx
	jbe	1f
	cmpl	$0, OT_INJ_H_DOORBELL(%r8)
	jne	1f
	xor	%eax, %eax
	mov	$1, %ecx
	lock cmpxchg %ecx, OT_INJ_H_DOORBELL(%r8)
	jne	1f
	push	%rdi
	push	%rsi
	push	%r11
	lea	OT_INJ_H_DOORBELL(%r8), %rdi
	mov	$1, %esi			/* FUTEX_WAKE (shared: another process waits) */
	mov	$1, %edx
	mov	$202, %eax			/* SYS_futex */
	syscall
	pop	%r11
	pop	%rsi
	pop	%rdi
1:	ret
.Lemit_full:
	incq	OT_INJ_A_PENDING(%rdi)
	incq	OT_INJ_A_LOST(%rdi)
	ret
.Lemit_marker:
	mov	OT_INJ_A_HEAD(%rdi), %rcx
	mov	%rcx, %rax
	sub	OT_INJ_A_TAIL(%rdi), %rax
	inc	%rax				/* room for the marker and the record */
	cmp	ot_inj_rt_ring_mask(%rip), %rax
	ja	.Lemit_full
	mov	ot_inj_rt_ring_mask(%rip), %rdx
	and	%rcx, %rdx
	shl	$OT_INJ_REC_SHIFT, %rdx
	mov	%r9, OT_INJ_A_RING(%rdi,%rdx)
	mov	OT_INJ_A_LOST(%rdi), %rax
	shl	$OT_INJ_W_SP_SHIFT, %rax
	or	$(OT_INJ_K_LOST << OT_INJ_W_KIND_SHIFT), %rax
	mov	%rax, OT_INJ_A_RING+8(%rdi,%rdx)
	inc	%rcx
	mov	%rcx, OT_INJ_A_HEAD(%rdi)
	movq	$0, OT_INJ_A_PENDING(%rdi)
	jmp	.Lemit_one

/* rax = the entry of return slot rsi in slot r11's table, or the empty
 * one where it would go (linear probing from slot >> 3).  Clobbers rcx, rdx. */
rt_probe:
	mov	OT_INJ_PS_TABLE(%r11), %rdx
	mov	%rsi, %rcx
	shr	$OT_INJ_KEY_SHIFT, %rcx
	and	$OT_INJ_TABLE_MASK, %rcx
1:	mov	%rcx, %rax
	shl	$OT_INJ_ENT_SHIFT, %rax
	add	%rdx, %rax
	cmp	OT_INJ_E_KEY(%rax), %rsi
	je	2f
	cmpq	$0, OT_INJ_E_KEY(%rax)
	je	2f
	inc	%rcx
	and	$OT_INJ_TABLE_MASK, %rcx
	jmp	1b
2:	ret

/* rax = the table entry of return slot rsi, or 0.  In: r11 slot.
 * Clobbers rcx, rdx. */
rt_lookup:
	call	rt_probe
	cmp	OT_INJ_E_KEY(%rax), %rsi
	je	1f
	xor	%eax, %eax
1:	ret

/* Record that return slot rsi held r10 for function r9: rax = the entry,
 * or 0 when the table is full.  An entry already there is a frame that
 * ended without returning (longjmp, exception): a call just wrote the slot.
 * In: r11 slot.  Clobbers rcx, rdx. */
rt_insert:
	call	rt_probe
	cmp	OT_INJ_E_KEY(%rax), %rsi
	je	1f
	cmpq	$OT_INJ_TABLE_MAX, OT_INJ_PS_COUNT(%r11)
	jae	2f
	incq	OT_INJ_PS_COUNT(%r11)
1:	mov	%r10, OT_INJ_E_RET(%rax)
	mov	%r9d, OT_INJ_E_FUNC(%rax)
	movl	$0, OT_INJ_E_TAIL0(%rax)
	movq	$0, OT_INJ_E_TAIL1(%rax)
	mov	%rsi, OT_INJ_E_KEY(%rax)	/* last: an unwinder sees it whole */
	ret
2:	xor	%eax, %eax
	ret

/* Remove entry rax from slot r11's table (linear probing: later entries
 * of its run move back into the hole).  Clobbers rax, rcx, rdx, rdi, r10. */
rt_delete:
	push	%r8
	mov	OT_INJ_PS_TABLE(%r11), %rdx
	sub	%rdx, %rax
	shr	$OT_INJ_ENT_SHIFT, %rax		/* i: the hole */
	mov	%rax, %rcx			/* j */
.Ldel_next:
	inc	%rcx
	and	$OT_INJ_TABLE_MASK, %rcx
	mov	%rcx, %rdi
	shl	$OT_INJ_ENT_SHIFT, %rdi
	add	%rdx, %rdi			/* &e[j] */
	mov	OT_INJ_E_KEY(%rdi), %r10
	test	%r10, %r10
	jz	.Ldel_end
	shr	$OT_INJ_KEY_SHIFT, %r10
	and	$OT_INJ_TABLE_MASK, %r10	/* k: e[j]'s home */
	cmp	%rax, %rcx
	jb	.Ldel_wrapped
	cmp	%rax, %r10			/* i < j: e[j] stays if i < k <= j */
	jbe	.Ldel_move
	cmp	%rcx, %r10
	jbe	.Ldel_next
	jmp	.Ldel_move
.Ldel_wrapped:
	cmp	%rax, %r10			/* j < i: it stays if k > i or k <= j */
	ja	.Ldel_next
	cmp	%rcx, %r10
	jbe	.Ldel_next
.Ldel_move:
	mov	%rax, %r10
	shl	$OT_INJ_ENT_SHIFT, %r10
	add	%rdx, %r10			/* &e[i] */
	mov	8(%rdi), %r8
	mov	%r8, 8(%r10)
	mov	16(%rdi), %r8
	mov	%r8, 16(%r10)
	mov	24(%rdi), %r8
	mov	%r8, 24(%r10)
	mov	0(%rdi), %r8
	mov	%r8, 0(%r10)
	mov	%rcx, %rax			/* the hole moves to j */
	jmp	.Ldel_next
.Ldel_end:
	shl	$OT_INJ_ENT_SHIFT, %rax
	movq	$0, OT_INJ_E_KEY(%rdx,%rax)
	decq	OT_INJ_PS_COUNT(%r11)
	pop	%r8
	ret

/*
 * A traced function's entry.  Its trampoline pushed rax, put the
 * function's number in eax and called here: [rsp+16] is the return
 * address the function was called with, at the stack slot S = rsp+16.
 * Unless a handler of ours is running on this thread, the entry is
 * recorded and, unless S already returns to us (a traced function jumped
 * here: a tail call), S is made to return to ot_inj_rt_ret.
 */
/*
 * The frame of an entry and of a USDT site's hit.  The arithmetic flags,
 * cheaper than pushf/popf: SF ZF AF PF CF by lahf, OF by seto (the
 * trampoline saved rax; the number moves to r9 first).  The runtime
 * touches no other flag.  Not recording (before enabling, while
 * disabling, or for good once orbit-trace died: its mutex's owner bits
 * cleared by the kernel): back at once (.Lent_off), the cost a few
 * instructions.  Then the registers saved, rax the shared header.
 */
.macro RT_OPEN
	push	%r9
	mov	%eax, %r9d
	lahf
	seto	%al
	push	%rax
	mov	ot_inj_rt_shared(%rip), %rax
	cmpl	$0, OT_INJ_H_ENABLED(%rax)
	je	.Lent_off
	testl	$OT_INJ_OWNER_TID, OT_INJ_H_OWNER(%rax)
	jz	.Lent_off
	SAVE	RT_ENTRY_SAVED
	cmpl	$0, OT_INJ_H_VFORKS(%rax)
	je	1f
	call	rt_vfork_child
	test	%edx, %edx
	jnz	.Lent_child
1:
.endm

	.balign 16
	.globl	ot_inj_rt_entry
	.hidden	ot_inj_rt_entry
ot_inj_rt_entry:
	endbr64
	RT_OPEN
	lea	OT_INJ_RT_ENTRY_S(%rsp), %rsi	/* S */
	mov	%rax, %r8
	call	rt_slot
	test	%r11, %r11
	jz	.Lent_noslot
.Lent_again:
	cmpl	$0, OT_INJ_PS_BUSY(%r11)
	jne	.Lent_busy
	movl	$1, OT_INJ_PS_BUSY(%r11)
	mov	%rsp, OT_INJ_PS_BUSY_SP(%r11)
	cmpl	$0, OT_INJ_H_STEAL(%r8)
	jne	.Lent_wait
	test	$OT_INJ_F_EXITS, %r9d
	jnz	.Lent_record			/* its returns are seen where they are */
	mov	(%rsi), %r10			/* the return address */
	lea	ot_inj_rt_ret(%rip), %rax
	cmp	%rax, %r10
	je	.Lent_tail
	call	rt_insert
	test	%rax, %rax
	jz	.Lent_full
	lea	ot_inj_rt_ret(%rip), %rcx
	mov	%rcx, (%rsi)			/* after the entry is in the table */
.Lent_record:
	xor	%r10d, %r10d			/* kind OT_INJ_K_ENTRY */
.Lent_kind:
	push	%r10
	call	rt_area
	pop	%r10
	test	%rdi, %rdi
	jz	.Lent_done
.Lent_emit:
	mov	%rsi, %rax
	shl	$OT_INJ_W_SP_SHIFT, %rax
	or	%rax, %r10
	mov	%r9d, %eax
	and	$OT_INJ_W_FUNC_MASK, %eax
	or	%rax, %r10
	test	$(OT_INJ_F_NVALS_MASK << OT_INJ_F_NVALS_SHIFT), %r9d
	jnz	.Lent_values
	call	rt_now
	mov	%rax, %r9
	call	rt_emit
.Lent_done:
	movl	$0, OT_INJ_PS_BUSY(%r11)
.Lent_out:
	RESTORE	RT_ENTRY_SAVED
.Lent_off:
	pop	%rax
	add	$0x7f, %al			/* OF back: set iff seto saw it */
	sahf					/* the others */
	pop	%r9
	ret
.Lent_tail:
	/* Entered by a jump from a traced function, whose return already
	 * comes here: this one returns with it. */
	call	rt_lookup
	mov	$(OT_INJ_K_TAIL << OT_INJ_W_KIND_SHIFT), %r10d
	test	%rax, %rax
	jz	.Lent_noret
	lea	1(%r9), %ecx
	cmpl	$0, OT_INJ_E_TAIL0(%rax)
	jne	1f
	mov	%ecx, OT_INJ_E_TAIL0(%rax)
	jmp	.Lent_kind
1:	cmpl	$0, OT_INJ_E_TAIL1(%rax)
	jne	2f
	mov	%ecx, OT_INJ_E_TAIL1(%rax)
	jmp	.Lent_kind
2:	cmpl	$0, OT_INJ_E_TAIL2(%rax)
	jne	.Lent_noret
	mov	%ecx, OT_INJ_E_TAIL2(%rax)
	jmp	.Lent_kind
.Lent_noret:
	/* The call is recorded; its return will not be (table full, or a
	 * fourth tail call in one frame): counted, and unclosed in the report.
	 * r10: its kind (entry or tail entry). */
	push	%r10
	call	rt_area
	pop	%r10
	test	%rdi, %rdi
	jz	.Lent_done
	incq	OT_INJ_A_NORET(%rdi)
	jmp	.Lent_emit
.Lent_full:
	xor	%r10d, %r10d			/* kind OT_INJ_K_ENTRY */
	jmp	.Lent_noret
.Lent_values:
	call	rt_entry_values
	jmp	.Lent_done
.Lent_busy:
	/* Left by a longjmp rather than interrupted: reset, and again. */
	call	rt_unbusy
	test	%eax, %eax
	jnz	.Lent_again
.Lent_handler:
	/* Counted in the thread's ring area, or (none yet: it is being
	 * claimed) in the header. */
	mov	OT_INJ_PS_AREA(%r11), %rax
	cmp	$1, %rax
	jbe	1f
	incq	OT_INJ_A_REENTERED(%rax)
	jmp	.Lent_out
1:	lock incq OT_INJ_H_REENTERED(%r8)
	jmp	.Lent_out
.Lent_noslot:
	lock incq OT_INJ_H_NO_SLOT(%r8)
	jmp	.Lent_out
.Lent_child:
	/* A vfork child's hit (rax the shared header): another process's. */
	lock incq OT_INJ_H_VFORK_HITS(%rax)
	jmp	.Lent_out
.Lent_wait:
	/* A thread takes a return address from the tables: wait, out. */
	movl	$0, OT_INJ_PS_BUSY(%r11)
	call	rt_wait_steal
	jmp	.Lent_again

/*
 * A USDT probe's site: its trampoline moved the stack pointer past the
 * red zone, pushed rax, then the value it read (when the number in eax
 * says one), and called here.  The hit is recorded as an entry of its
 * number (which the tracer knows is a point), its value before it; no
 * return is hijacked.  The frame is the entry's, so their ways out are
 * shared.
 */
	.balign 16
	.globl	ot_inj_rt_point
	.hidden	ot_inj_rt_point
ot_inj_rt_point:
	endbr64
	RT_OPEN
	mov	%rax, %r8
	call	rt_slot
	test	%r11, %r11
	jz	.Lent_noslot
	cmpl	$0, OT_INJ_PS_BUSY(%r11)
	je	3f
	call	rt_unbusy
	test	%eax, %eax
	jz	.Lent_handler
3:	movl	$1, OT_INJ_PS_BUSY(%r11)
	mov	%rsp, OT_INJ_PS_BUSY_SP(%r11)
	call	rt_area
	test	%rdi, %rdi
	jz	.Lent_done
	/* The word: the site's stack pointer, kind entry, the number. */
	mov	%r9d, %eax
	shr	$OT_INJ_F_NVALS_SHIFT, %eax
	and	$OT_INJ_F_NVALS_MASK, %eax
	lea	OT_INJ_RT_POINT_V + OT_INJ_PT_RED + 8(%rsp,%rax,8), %r10
	shl	$OT_INJ_W_SP_SHIFT, %r10
	mov	%r9d, %ecx
	and	$OT_INJ_W_FUNC_MASK, %ecx
	or	%rcx, %r10
	test	%eax, %eax
	jz	1f
	push	%r10
	push	%r9
	mov	OT_INJ_RT_POINT_V + 16(%rsp), %r9	/* the value, before its record */
	mov	$(OT_INJ_K_LOST << OT_INJ_W_KIND_SHIFT | 1), %r10d
	call	rt_emit
	pop	%rax
	test	$OT_INJ_F_STR, %eax
	jz	2f
	mov	OT_INJ_RT_POINT_V + 8(%rsp), %rax
	call	rt_str
2:	pop	%r10
1:	call	rt_now
	mov	%rax, %r9
	call	rt_emit
	jmp	.Lent_done

/*
 * A return instruction's site, where the function's returns are seen
 * instead of at a moved return address (OT_INJ_F_EXITS): the trampoline
 * moved the stack pointer past the red zone, pushed rax and called here
 * with the number in eax (OT_INJ_X_TAIL: a tail callee's instruction).
 * The return is recorded at the stack pointer the `ret` will pop from,
 * the value rax holds before it when asked.  The frame is the entry's.
 */
	.balign 16
	.globl	ot_inj_rt_exit
	.hidden	ot_inj_rt_exit
ot_inj_rt_exit:
	endbr64
	RT_OPEN
	mov	%rax, %r8
	call	rt_slot
	test	%r11, %r11
	jz	.Lent_noslot
	cmpl	$0, OT_INJ_PS_BUSY(%r11)
	je	1f
	call	rt_unbusy
	test	%eax, %eax
	jz	.Lent_handler
1:	movl	$1, OT_INJ_PS_BUSY(%r11)
	mov	%rsp, OT_INJ_PS_BUSY_SP(%r11)
	call	rt_area
	test	%rdi, %rdi
	jz	.Lent_done
	lea	OT_INJ_RT_POINT_V + OT_INJ_PT_RED + 8(%rsp), %rsi	/* the ret's slot */
	test	$OT_INJ_F_RET, %r9d
	jz	2f
	push	%r9
	mov	OT_INJ_RT_POINT_V + 8(%rsp), %r9	/* the rax the trampoline saved */
	mov	$(OT_INJ_K_LOST << OT_INJ_W_KIND_SHIFT | OT_INJ_V_RET), %r10d
	call	rt_emit
	pop	%r9
2:	mov	%rsi, %r10
	shl	$OT_INJ_W_SP_SHIFT, %r10
	mov	%r9d, %eax
	and	$OT_INJ_W_FUNC_MASK, %eax
	or	%rax, %r10
	or	$(OT_INJ_K_RETURN << OT_INJ_W_KIND_SHIFT), %r10
	test	$OT_INJ_X_TAIL, %r9d
	jz	3f
	or	$(OT_INJ_K_TAIL << OT_INJ_W_KIND_SHIFT), %r10	/* K_RETURN | K_TAIL == K_TAIL */
3:	call	rt_now
	mov	%rax, %r9
	call	rt_emit
	jmp	.Lent_done

/*
 * The string at rax as OT_INJ_V_STR records (inject_layout.h), read with
 * process_vm_readv from this very process: an address it cannot read
 * makes the call fail, where a load would fault.  In: rdi area, r8
 * shared.  Clobbers rax, rcx, rdx, r9, r10.
 */
rt_str:
	push	%rsi
	push	%rdi
	push	%r8
	push	%r11
	sub	$(32 + OT_INJ_STR_MAX), %rsp	/* two iovecs, then the bytes */
	xor	%ecx, %ecx
1:	movq	$0, 32(%rsp,%rcx)
	add	$8, %ecx
	cmp	$OT_INJ_STR_MAX, %ecx
	jb	1b
	lea	32(%rsp), %rcx
	mov	%rcx, 0(%rsp)			/* local: the bytes */
	movq	$OT_INJ_STR_MAX, 8(%rsp)
	mov	%rax, 16(%rsp)			/* remote: the string */
	movq	$OT_INJ_STR_MAX, 24(%rsp)
	mov	OT_INJ_A_PID(%rdi), %edi
	mov	%rsp, %rsi
	mov	$1, %edx
	lea	16(%rsp), %r10
	mov	$1, %r8d
	xor	%r9d, %r9d
	mov	$310, %eax			/* SYS_process_vm_readv */
	syscall
	mov	32 + OT_INJ_STR_MAX + 16(%rsp), %rdi
	mov	32 + OT_INJ_STR_MAX + 8(%rsp), %r8
	test	%rax, %rax
	jle	.Lstr_bad
	/* Records up to the NUL's: (its place + 8) / 8, 8 at most. */
	xor	%ecx, %ecx
2:	cmp	%rax, %rcx
	jae	3f
	cmpb	$0, 32(%rsp,%rcx)
	je	3f
	inc	%rcx
	jmp	2b
3:	add	$8, %rcx
	shr	$3, %rcx
	cmp	$(OT_INJ_STR_MAX / 8), %rcx
	jbe	4f
	mov	$(OT_INJ_STR_MAX / 8), %ecx
4:	shl	$3, %rcx
	push	%rcx				/* the bytes to write */
	xor	%ecx, %ecx
5:	mov	40(%rsp,%rcx), %r9
	mov	$(OT_INJ_K_LOST << OT_INJ_W_KIND_SHIFT | OT_INJ_V_STR), %r10d
	push	%rcx
	call	rt_emit
	pop	%rcx
	add	$8, %ecx
	cmp	(%rsp), %rcx
	jb	5b
	add	$8, %rsp
	jmp	6f
.Lstr_bad:
	mov	16(%rsp), %r9
	mov	$(OT_INJ_K_LOST << OT_INJ_W_KIND_SHIFT | OT_INJ_V_STR_BAD), %r10d
	call	rt_emit
6:	add	$(32 + OT_INJ_STR_MAX), %rsp
	pop	%r11
	pop	%r8
	pop	%rdi
	pop	%rsi
	ret

/*
 * Where hijacked frames return.  rsp is S + 8: the slot is reused for the
 * real return address, found in the thread's table, and `ret` goes there.
 * The returns recorded are the tail callees' (innermost first), then the
 * function's own.  An unwinder asks for the byte before a return address,
 * so ot_inj_rt_ret_lo starts the range lib/inject/inject.c's FDE covers.
 */
	.balign 16
	.globl	ot_inj_rt_ret_lo, ot_inj_rt_ret, ot_inj_rt_ret_end
	.hidden	ot_inj_rt_ret_lo, ot_inj_rt_ret, ot_inj_rt_ret_end
ot_inj_rt_ret_lo:
	int3
ot_inj_rt_ret:
	sub	$8, %rsp
	SAVE	RT_RET_SAVED
	lea	OT_INJ_RT_RET_S(%rsp), %rsi	/* S */
	call	rt_now
	mov	%rax, %r9			/* the return's time, before the work */
	mov	ot_inj_rt_shared(%rip), %r8
	call	rt_slot
	test	%r11, %r11
	jz	.Lret_lost
	push	OT_INJ_PS_BUSY_SP(%r11)
	mov	OT_INJ_PS_BUSY(%r11), %eax
	push	%rax
	movl	$1, OT_INJ_PS_BUSY(%r11)
	mov	%rsp, OT_INJ_PS_BUSY_SP(%r11)
	/* Nested in a runtime call of this thread (a signal handler's), a
	 * stealer waits for us anyway; else we wait while one works. */
	test	%eax, %eax
	jnz	.Lret_look
	cmpl	$0, OT_INJ_H_STEAL(%r8)
	jne	.Lret_wait
.Lret_look:
	call	rt_lookup
	test	%rax, %rax
	jz	.Lret_steal
	mov	OT_INJ_E_RET(%rax), %rcx
	mov	%rcx, (%rsi)
	push	OT_INJ_E_FUNC(%rax)		/* func | tail0 << 32 */
	push	OT_INJ_E_TAIL1(%rax)		/* tail1 | tail2 << 32 */
	call	rt_delete
.Lret_record:
	testl	$OT_INJ_OWNER_TID, OT_INJ_H_OWNER(%r8)
	jz	.Lret_done			/* orbit-trace died: no one reads the rings */
	call	rt_area
	test	%rdi, %rdi
	jz	.Lret_done
	cmpq	$0, .LRET_TAIL1(%rsp)		/* and tail2 */
	jne	1f
	cmpl	$0, .LRET_TAIL0(%rsp)
	je	2f
1:	mov	.LRET_TAIL2(%rsp), %eax
	call	rt_ret_rec
	mov	.LRET_TAIL1(%rsp), %eax
	call	rt_ret_rec
	mov	.LRET_TAIL0(%rsp), %eax
	call	rt_ret_rec
2:	mov	.LRET_FUNC(%rsp), %eax
	inc	%eax
	call	rt_ret_rec
.Lret_done:
	add	$16, %rsp
	pop	%rax
	pop	%rcx
	mov	%rcx, OT_INJ_PS_BUSY_SP(%r11)
	mov	%eax, OT_INJ_PS_BUSY(%r11)
	RESTORE	RT_RET_SAVED
	/*
	 * Not `ret`: the return stack predictor would pair it with a call
	 * long gone and mispredict every return after it.  The signal frame
	 * of a handler arriving between the two skips the 128 bytes below
	 * rsp, so the slot survives.
	 */
	lea	8(%rsp), %rsp
	jmp	*-8(%rsp)
.Lret_wait:
	/* Another thread takes a return address from a table: wait, out. */
	movl	$0, OT_INJ_PS_BUSY(%r11)
	call	rt_wait_steal
	movl	$1, OT_INJ_PS_BUSY(%r11)
	cmpl	$0, OT_INJ_H_STEAL(%r8)
	jne	.Lret_wait
	jmp	.Lret_look
.Lret_steal:
	/* Not in this thread's table: the frame was made on another thread
	 * and its stack moved here (a fiber resumed elsewhere). */
	call	rt_steal
	test	%rax, %rax
	jz	.Lret_lost
	push	%rcx
	push	%rdx
	jmp	.Lret_record
.Lret_lost:
	/* No entry for a frame that returns here, in any thread's table:
	 * nothing to return to.  The runtime never gets here. */
	ud2
ot_inj_rt_ret_end:

/*
 * Slot r11 is busy: rax 1 if the runtime call that made it so was left
 * by a signal handler's longjmp (its frame is gone: the caller's stack
 * pointer is at or above the one that call had, and this is not a
 * handler on the signal stack), then the flag reset and counted; rax 0
 * when a handler interrupted that call and runs inside it.  In: r8
 * shared.  Clobbers rax, rcx, rdx, rdi.
 */
rt_unbusy:
	lea	8(%rsp), %rax			/* the caller's stack pointer */
	cmp	OT_INJ_PS_BUSY_SP(%r11), %rax
	jb	.Lunbusy_no			/* below it: a handler inside that call */
	push	%rsi
	push	%r11
	sub	$24, %rsp			/* a stack_t */
	movl	$0, 8(%rsp)
	xor	%edi, %edi
	mov	%rsp, %rsi
	mov	$131, %eax			/* SYS_sigaltstack: are we on it? */
	syscall
	mov	8(%rsp), %ecx			/* ss_flags */
	add	$24, %rsp
	pop	%r11
	pop	%rsi
	test	%rax, %rax
	jnz	.Lunbusy_no			/* cannot tell: leave it */
	test	$1, %ecx			/* SS_ONSTACK: a handler there */
	jnz	.Lunbusy_no
	mov	OT_INJ_PS_AREA(%r11), %rax
	cmp	$1, %rax
	jbe	1f
	incq	OT_INJ_A_RESET(%rax)
	jmp	2f
1:	lock incq OT_INJ_H_RESET(%r8)
2:	movl	$0, OT_INJ_PS_BUSY(%r11)
	mov	$1, %eax
	ret
.Lunbusy_no:
	xor	%eax, %eax
	ret

/* rdx 1 when this thread is a vfork child: its thread pointer is one the
 * tracer set at H_VFORK_TP (rax the shared header, kept).  Clobbers rcx,
 * rdx, rdi. */
rt_vfork_child:
	cmpl	$0, ot_inj_rt_fsbase(%rip)
	je	1f
	rdfsbase %rdi
	jmp	2f
1:	mov	%fs:0, %rdi
2:	xor	%edx, %edx
	test	%rdi, %rdi
	jz	4f
	xor	%ecx, %ecx
3:	cmp	OT_INJ_H_VFORK_TP(%rax,%rcx,8), %rdi
	je	5f
	inc	%ecx
	cmp	$OT_INJ_VFORK_MAX, %ecx
	jb	3b
4:	ret
5:	mov	$1, %edx
	ret

/* Spin (yielding now and then) until no thread is stealing.  In: r8
 * shared.  Clobbers rax, rcx. */
rt_wait_steal:
	xor	%ecx, %ecx
1:	pause
	cmpl	$0, OT_INJ_H_STEAL(%r8)
	je	2f
	inc	%ecx
	test	$0xff, %cl
	jnz	1b
	push	%rcx
	push	%r11
	mov	$24, %eax			/* SYS_sched_yield */
	syscall
	pop	%r11
	pop	%rcx
	jmp	1b
2:	ret

/* A full barrier on every CPU running a thread of the process, so that a
 * thread that set its busy flag either shows it now or sees the steal
 * flag next (membarrier, private expedited: registered on first use).
 * Clobbers rax, rcx, rdx, rdi. */
rt_membarrier:
	push	%rsi
	push	%r11
	mov	$8, %edi			/* MEMBARRIER_CMD_PRIVATE_EXPEDITED */
	call	1f
	cmp	$-1, %rax			/* -EPERM: not registered yet */
	jne	2f
	mov	$16, %edi			/* ..._REGISTER_PRIVATE_EXPEDITED */
	call	1f
	mov	$8, %edi
	call	1f
2:	test	%rax, %rax
	jz	3f
	mov	$1, %edi			/* MEMBARRIER_CMD_GLOBAL, older kernels */
	call	1f
3:	pop	%r11
	pop	%rsi
	ret
1:	mov	$324, %eax			/* SYS_membarrier */
	xor	%esi, %esi
	xor	%edx, %edx
	syscall
	ret

/*
 * Take the entry of return slot rsi from whichever thread's table holds
 * it, every other thread kept out of its table meanwhile: the steal flag
 * set (one stealer at a time), a barrier, each thread's busy flag seen
 * clear.  Returns rax 1 with the return address written to (rsi), rcx =
 * func | tail0 << 32 and rdx = tail1 | tail2 << 32; or rax 0.
 * In: r8 shared, r11 our slot (busy).  Clobbers rcx, rdx, rdi, r10.
 */
rt_steal:
	push	%r12
	push	%r13
	mov	%r11, %r12
1:	xor	%eax, %eax
	mov	$1, %ecx
	lock cmpxchg %ecx, OT_INJ_H_STEAL(%r8)
	je	2f
	movl	$0, OT_INJ_PS_BUSY(%r12)	/* another stealer may wait for us */
	call	rt_wait_steal
	movl	$1, OT_INJ_PS_BUSY(%r12)
	jmp	1b
2:	call	rt_membarrier
	mov	ot_inj_rt_priv(%rip), %r13
.Lsteal_slot:
	cmp	%r13, %r12
	je	.Lsteal_next
	cmpq	$0, OT_INJ_PS_KEY(%r13)
	je	.Lsteal_next
	call	rt_wait_idle
	test	%eax, %eax
	jz	.Lsteal_next			/* its thread is gone */
	mov	%r13, %r11
	call	rt_lookup
	test	%rax, %rax
	jnz	.Lsteal_found
.Lsteal_next:
	add	$OT_INJ_SLOT_SIZE, %r13
	mov	ot_inj_rt_priv(%rip), %rax
	add	$(OT_INJ_NSLOTS * OT_INJ_SLOT_SIZE), %rax
	cmp	%rax, %r13
	jb	.Lsteal_slot
	xor	%eax, %eax
	jmp	.Lsteal_out
.Lsteal_found:
	mov	OT_INJ_E_RET(%rax), %rcx
	mov	%rcx, (%rsi)
	push	OT_INJ_E_FUNC(%rax)
	push	OT_INJ_E_TAIL1(%rax)
	call	rt_delete			/* from its table, r11 */
	pop	%rdx
	pop	%rcx
	mov	$1, %eax
.Lsteal_out:
	movl	$0, OT_INJ_H_STEAL(%r8)
	mov	%r12, %r11
	pop	%r13
	pop	%r12
	ret

/* Wait until slot r13's thread is out of the runtime: eax 1, or 0 if that
 * thread no longer exists (it died in it, or this is a forked child and
 * it was its parent's).  Clobbers rax, rcx, rdx, rdi. */
rt_wait_idle:
	xor	%ecx, %ecx
1:	cmpl	$0, OT_INJ_PS_BUSY(%r13)
	je	3f
	pause
	inc	%ecx
	cmp	$100000, %ecx
	jb	1b
	push	%rsi
	push	%r11
	mov	$39, %eax			/* SYS_getpid */
	syscall
	mov	%eax, %edi
	mov	OT_INJ_PS_TID(%r13), %esi
	xor	%edx, %edx
	mov	$234, %eax			/* SYS_tgkill, signal 0: alive? */
	syscall
	pop	%r11
	pop	%rsi
	test	%rax, %rax
	jnz	2f
	xor	%ecx, %ecx
	jmp	1b
2:	xor	%eax, %eax
	ret
3:	mov	$1, %eax
	ret

/* A return record for function eax - 1 (its number with its value bits)
 * at slot rsi (eax 0: none), after the caller's rax when it records it
 * (saved by ot_inj_rt_ret just below S).  In: rdi area, r9 time.
 * Clobbers rax, rcx, rdx, r10. */
rt_ret_rec:
	test	%eax, %eax
	jz	1f
	dec	%eax
	test	$OT_INJ_F_RET, %eax
	jnz	2f
3:	and	$OT_INJ_W_FUNC_MASK, %eax
	mov	%rsi, %r10
	shl	$OT_INJ_W_SP_SHIFT, %r10
	or	$(OT_INJ_K_RETURN << OT_INJ_W_KIND_SHIFT), %r10
	or	%rax, %r10
	jmp	rt_emit
1:	ret
2:	push	%rax
	push	%r9
	mov	-8(%rsi), %r9			/* the return value */
	mov	$(OT_INJ_K_LOST << OT_INJ_W_KIND_SHIFT | OT_INJ_V_RET), %r10d
	call	rt_emit
	pop	%r9
	pop	%rax
	jmp	3b

/* Where rt_entry saved each argument register, from S: rdi, rsi, rdx,
 * rcx, r8 in RT_ENTRY_SAVED's order below the flags, r9 first of all. */
rt_arg_at:
	.byte	-64, -56, -48, -40, -72, -24

/*
 * An entry that records values: its first value (a string's bytes after
 * it with OT_INJ_F_STR), the entry record (r10 its word, without the
 * time), then the others, each value the argument register the function
 * was entered with.  In: r9 its number with its
 * value bits, rsi S, rdi area, r8 shared.  Clobbers rax, rcx, rdx, r9, r10.
 */
rt_entry_values:
	push	%r10				/* 16(%rsp): the entry's word */
	push	%r9				/* 8(%rsp): the value bits */
	xor	%ecx, %ecx
	push	%rcx				/* 0(%rsp): j, the value */
	call	rt_entry_value
	testl	$OT_INJ_F_STR, 8(%rsp)
	jz	3f
	mov	%r9, %rax			/* a string's address: its bytes */
	call	rt_str
3:	call	rt_now
	mov	%rax, %r9
	mov	16(%rsp), %r10
	call	rt_emit
1:	incl	(%rsp)
	mov	8(%rsp), %eax
	shr	$OT_INJ_F_NVALS_SHIFT, %eax
	and	$OT_INJ_F_NVALS_MASK, %eax
	cmp	(%rsp), %eax
	jbe	2f
	call	rt_entry_value
	jmp	1b
2:	add	$24, %rsp
	ret

/* Value j of rt_entry_values's frame (its caller's 0(%rsp), 8(%rsp)
 * there) as a record.  Clobbers rax, rcx, rdx, r9, r10. */
rt_entry_value:
	mov	8(%rsp), %ecx			/* j */
	lea	(%rcx,%rcx,2), %ecx
	add	$OT_INJ_F_REG_SHIFT, %ecx
	mov	16(%rsp), %eax
	shr	%cl, %eax
	and	$7, %eax
	lea	rt_arg_at(%rip), %rdx
	movsbq	(%rdx,%rax), %rax
	mov	(%rsi,%rax), %r9
	mov	8(%rsp), %r10d
	inc	%r10d
	or	$(OT_INJ_K_LOST << OT_INJ_W_KIND_SHIFT), %r10d
	jmp	rt_emit

/*
 * libgcc's _Unwind_Find_FDE(pc, bases), entered from its patched entry:
 * the hook's trampoline pushed rax and put in it where the original goes
 * on.  For the byte before ot_inj_rt_ret the answer is this thread's FDE,
 * which finds the real return address in its table; so exceptions,
 * pthread_exit and backtrace() unwind through hijacked frames.
 */
	.globl	ot_inj_rt_find_fde
	.hidden	ot_inj_rt_find_fde
ot_inj_rt_find_fde:
	push	%rcx
	lea	ot_inj_rt_ret_lo(%rip), %rcx
	cmp	%rcx, %rdi
	jb	.Lfde_theirs
	lea	ot_inj_rt_ret_end(%rip), %rcx
	cmp	%rcx, %rdi
	jae	.Lfde_theirs
	pop	%rcx
	add	$8, %rsp			/* the trampoline's rax: the result is ours */
	SAVE	RT_FDE_SAVED
	call	rt_slot
	xor	%eax, %eax
	test	%r11, %r11
	jz	1f
	mov	OT_INJ_PS_FDE(%r11), %rax
	movq	$0, (%rsi)			/* tbase */
	movq	$0, 8(%rsi)			/* dbase */
	lea	ot_inj_rt_ret_lo(%rip), %rcx
	mov	%rcx, 16(%rsi)			/* func */
1:	RESTORE	RT_FDE_SAVED
	ret
.Lfde_theirs:
	pop	%rcx
	xchg	%rax, (%rsp)			/* rax back, the original's address on top */
	ret

	.balign 16
	.globl	ot_inj_rt_end
	.hidden	ot_inj_rt_end
ot_inj_rt_end:

#endif
	.section .note.GNU-stack, "", @progbits
