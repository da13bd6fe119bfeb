/* The BPF program of lib/probes/exitwatch.bpf.c, built by the Makefile into
 * $(BUILD)/lib/probes/exitwatch.bpf.o, carried inside the one executable. */
	.section .rodata
	.balign 8
	.globl ot_exitwatch_obj
ot_exitwatch_obj:
	.incbin "exitwatch.bpf.o"
	.globl ot_exitwatch_obj_end
ot_exitwatch_obj_end:
	.section .note.GNU-stack,"",@progbits
