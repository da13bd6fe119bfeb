/* The BPF program of lib/probes/uprobe_multi.bpf.c, built by the Makefile into
 * $(BUILD)/lib/uprobe_multi.bpf.o, carried inside the one executable. */
	.section .rodata
	.balign 8
	.globl ot_umulti_obj
ot_umulti_obj:
	.incbin "uprobe_multi.bpf.o"
	.globl ot_umulti_obj_end
ot_umulti_obj_end:
	.section .note.GNU-stack,"",@progbits
