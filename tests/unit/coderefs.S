/*
 * coderefs.S - code whose every reference test_coderefs.c knows: each
 * scenario is a USDT-like site (a nop, then a 5-byte movl, then the
 * instruction one reference lands on), and one reference of one kind to
 * that last instruction, from where the compiler would put it.  Linked
 * four ways (Makefile): PIE with RELA (coderefs-pie), PIE with DT_RELR
 * (coderefs-relr), non-PIE with -DNOPIE (coderefs-nopie, an absolute
 * mov $label) and PIE with -DBAD_LSDA (an LSDA no personality can read).
 * Never run.  Immediates avoid the bytes of branch opcodes and of
 * RIP-relative ModRMs, so that no byte of one scenario reaches another.
 */
#define FILL movl $0x11223344, %eax

	.text
	.globl _start
	.type _start, @function
start_site:
	nop
	FILL
_start:				/* the ELF entry point */
	ret
start_end:
	.size _start, start_end - _start

/* A PIC switch: its table's int32 entries relative to the table. */
	.type jt_func, @function
jt_func:
	.cfi_startproc
	lea jt_table(%rip), %rdx
	movslq (%rdx,%rdi,4), %rax
	add %rdx, %rax
	jmp *%rax
jt_site:
	nop
	FILL
jt_case:
	ret
jt_case1:
	ret
	.cfi_endproc
jt_end:
	.size jt_func, jt_end - jt_func

/* Another, whose table follows jt_table's, and a lea into its middle:
 * the table goes on past that lea's target (its entries still land in
 * its function), so the reference to jt2_c stays relative to jt2_table. */
	.type jt2_func, @function
jt2_func:
	.cfi_startproc
	lea jt2_table(%rip), %rdx
	movslq (%rdx,%rdi,4), %rax
	add %rdx, %rax
	jmp *%rax
jt2_a:
	ret
jt2_b:
	ret
jt2_site:
	nop
	FILL
jt2_c:
	ret
	FILL
	lea jt2_table + 8(%rip), %rcx
	.cfi_endproc
jt2_end:
	.size jt2_func, jt2_end - jt2_func

/* A third, whose table follows jt2_table's: read on from jt2_table, its
 * first entry would land 12 bytes early, at jt3_site + 2.  Tables end
 * where the next begins, since that entry lands in another function. */
	.type jt3_func, @function
jt3_func:
	.cfi_startproc
	lea jt3_table(%rip), %rdx
	movslq (%rdx,%rdi,4), %rax
	add %rdx, %rax
	jmp *%rax
jt3_site:
	nop
	FILL
	FILL
	nop
	nop
	nop
jt3_case:
	ret
	.cfi_endproc
jt3_end:
	.size jt3_func, jt3_end - jt3_func

/* A non-PIC-style table of 8-byte label addresses (computed goto):
 * with RELA each is a relocation's addend, with RELR the slot's value. */
	.type abs_func, @function
abs_func:
	lea abs_table(%rip), %rdx
	jmp *(%rdx,%rdi,8)
abs_site:
	nop
	FILL
abs_case:
	ret
abs_end:
	.size abs_func, abs_end - abs_func

/* A hot part that a .cold part elsewhere jumps back into with a rel32. */
	.type cold_func, @function
cold_func:
	test %edi, %edi
	jne cold_func.cold
cold_site:
	nop
	FILL
cold_back:
	ret
cold_end:
	.size cold_func, cold_end - cold_func

/* lea label(%rip): computed goto in PIC code. */
	.type lea_func, @function
lea_func:
lea_insn:
	lea lea_label(%rip), %rax
	jmp *%rax
lea_site:
	nop
	FILL
lea_label:
	ret
lea_end:
	.size lea_func, lea_end - lea_func

/* A jmp rel8 from just past the function's symbol; int3 padding around
 * it, so that no other byte within rel8 reach looks like a branch. */
	.skip 160, 0xcc
	.type near_func, @function
near_func:
near_site:
	nop
	FILL
near_in:
	ret
near_end:
	.size near_func, near_end - near_func
	.type near_next, @function
near_next:
	.byte 0xeb, near_in - (. + 1)	/* jmp near_in, rel8 */
	ret
near_next_end:
	.size near_next, near_next_end - near_next
	.skip 160, 0xcc

/* A label exported in .dynsym: another file may call it. */
	.type dyn_func, @function
dyn_func:
dyn_site:
	nop
	FILL
	.globl dyn_in
dyn_in:
	ret
dyn_end:
	.size dyn_func, dyn_end - dyn_func

#ifdef NOPIE
/* mov $label, %eax: an absolute 4-byte address in code. */
	.type abs32_func, @function
abs32_func:
	movl $abs32_in, %eax
	jmp *%rax
abs32_site:
	nop
	FILL
abs32_in:
	ret
abs32_end:
	.size abs32_func, abs32_end - abs32_func
#endif

/* C++ exceptions, gcc's way: LPStart omitted (the function's start),
 * a type table, uleb128 call sites; the landing pad after the site. */
	.type eh_func, @function
eh_func:
	.cfi_startproc
	.cfi_personality 0x9b, eh_personality_ref
	.cfi_lsda 0x1b, eh_lsda
	push %rbx
	.cfi_def_cfa_offset 16
eh_call:
	call eh_personality
eh_call_end:
eh_site:
	nop
	FILL
eh_pad:
	pop %rbx
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
eh_end:
	.size eh_func, eh_end - eh_func

/* clang's older way: udata4 call sites; and LPStart given (pcrel sdata4). */
	.type eh2_func, @function
eh2_func:
	.cfi_startproc
	.cfi_lsda 0x1b, eh2_lsda
	push %rbx
	.cfi_def_cfa_offset 16
eh2_call:
	call eh_personality
eh2_call_end:
eh2_site:
	nop
	FILL
eh2_pad:
	pop %rbx
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
eh2_end:
	.size eh2_func, eh2_end - eh2_func

#ifdef BAD_LSDA
/* An LSDA whose call sites have an encoding no personality knows. */
	.type bad_func, @function
bad_func:
	.cfi_startproc
	.cfi_lsda 0x1b, bad_lsda
	ret
	.cfi_endproc
	.size bad_func, . - bad_func
#endif

	.type eh_personality, @function
eh_personality:
	ret
	.size eh_personality, . - eh_personality

	.section .text.unlikely,"ax",@progbits
	.type cold_func.cold, @function
cold_func.cold:
	FILL
cold_jmp:
	jmp cold_back
	.size cold_func.cold, . - cold_func.cold

	.section .rodata,"a",@progbits
	.p2align 2
jt_table:
	.long jt_case - jt_table
	.long jt_case1 - jt_table
jt2_table:
	.long jt2_a - jt2_table
	.long jt2_b - jt2_table
	.long jt2_c - jt2_table
jt3_table:
	.long jt3_case - jt3_table

	.section .data.rel.ro,"aw",@progbits
	.p2align 3
abs_table:
	.quad abs_case
eh_personality_ref:
	.quad eh_personality

	.section .gcc_except_table,"a",@progbits
	.p2align 2
eh_lsda:
	.byte 0xff			/* LPStart: omitted */
	.byte 0x9b			/* TType: indirect pcrel sdata4 */
	.uleb128 eh_ttype - eh_ttref
eh_ttref:
	.byte 0x01			/* call sites: uleb128 */
	.uleb128 eh_cs_end - eh_cs
eh_cs:
	.uleb128 eh_call - eh_func	/* start */
	.uleb128 eh_call_end - eh_call	/* length */
	.uleb128 eh_pad - eh_func	/* landing pad */
	.uleb128 1			/* action */
eh_cs_end:
	.byte 1, 0			/* catch type 1, no next action */
	.p2align 2
	.long 0				/* type 1: catch (...) */
eh_ttype:

eh2_lsda:
	.byte 0x1b			/* LPStart: pcrel sdata4, not the start */
	.long eh2_call - .
	.byte 0xff			/* TType: none */
	.byte 0x03			/* call sites: udata4 */
	.uleb128 eh2_cs_end - eh2_cs
eh2_cs:
	.long 0				/* a call site without a pad */
	.long eh2_call - eh2_func
	.long 0
	.uleb128 0
eh2_cs1:
	.long eh2_call - eh2_func
	.long eh2_call_end - eh2_call
	.long eh2_pad - eh2_call	/* from LPStart */
	.uleb128 0			/* cleanup */
eh2_cs_end:

#ifdef BAD_LSDA
bad_lsda:
	.byte 0xff, 0xff
	.byte 0x0d			/* call sites: 0x0d, no such format */
	.uleb128 4
	.long 0
#endif

	.section .note.GNU-stack,"",@progbits
