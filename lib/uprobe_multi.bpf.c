/*
 * uprobe_multi.bpf.c - the BPF program of the batched backend.
 *
 * Built with clang -target bpf, embedded in orbit-trace and loaded by
 * libbpf (lib/uprobe_multi.c).  Every hit writes one PERF_SAMPLE_RAW
 * record into the CPU's perf ring: the kernel adds {pid, tid} and the
 * time (PERF_SAMPLE_TID | TIME, CLOCK_MONOTONIC, the same clock as the
 * perf backend), the program adds the probe id (the link's per-offset
 * cookie), the user stack pointer and the register the cookie names
 * (an argument or the return value, for -f 'NAME(argN)' / 'NAME%ret').  lib/ring decodes it into the same
 * struct ot_record as a uprobe PMU sample, so draining, merging and
 * pairing do not know which backend armed the probes.
 */
#include <linux/bpf.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(int));
	__uint(value_size, sizeof(int));
} ot_rings SEC(".maps");

/*
 * Written by user space through libbpf's mmap of .bss: bit 0 lets entry
 * probes record, bit 1 return probes.  Switching returns on before entries
 * and entries off before returns costs no IPI, unlike a perf ioctl per CPU.
 */
volatile __u32 ot_enabled;

/* Debian 12's libbpf (1.1) stops at PT_REGS_PARM5. */
#ifndef PT_REGS_PARM6
#if defined(__TARGET_ARCH_x86)
#define PT_REGS_PARM6(x) (((const struct pt_regs *)(x))->r9)
#elif defined(__TARGET_ARCH_arm64)
#define PT_REGS_PARM6(x) (((const struct user_pt_regs *)(x))->regs[5])
#endif
#endif

struct ot_bpf_sample {
	__u64 id;
	__u64 sp;
	__u64 value;	/* what the cookie's top byte asks for (OT_VALUE_*), else 0 */
};

static __always_inline int emit(struct pt_regs *ctx, __u32 bit)
{
	struct ot_bpf_sample s;

	if (!(ot_enabled & bit))
		return 0;
	s.id = bpf_get_attach_cookie(ctx);
	s.sp = PT_REGS_SP(ctx);
	/*
	 * lib/probes.h: 1..6 an integer argument, 15 the return value.  Every
	 * register is read at its fixed offset first: a switch of loads lets
	 * clang sink them into one load through ctx + offset, which the
	 * verifier refuses (a modified context pointer); the empty asm keeps
	 * them where they are.
	 */
	__u64 r1 = PT_REGS_PARM1(ctx), r2 = PT_REGS_PARM2(ctx), r3 = PT_REGS_PARM3(ctx);
	__u64 r4 = PT_REGS_PARM4(ctx), r5 = PT_REGS_PARM5(ctx), r6 = PT_REGS_PARM6(ctx);
	__u64 rc = PT_REGS_RC(ctx);

	asm volatile("" : "+r"(r1), "+r"(r2), "+r"(r3), "+r"(r4), "+r"(r5), "+r"(r6), "+r"(rc));
	switch (s.id >> 56) {
	case 1: s.value = r1; break;
	case 2: s.value = r2; break;
	case 3: s.value = r3; break;
	case 4: s.value = r4; break;
	case 5: s.value = r5; break;
	case 6: s.value = r6; break;
	case 15: s.value = rc; break;
	default: s.value = 0; break;
	}
	/* A full ring fails the write; the kernel counts it and reports it
	 * as PERF_RECORD_LOST, which lib/drain turns into loss epochs. */
	bpf_perf_event_output(ctx, &ot_rings, BPF_F_CURRENT_CPU, &s, sizeof(s));
	return 0;
}

SEC("kprobe")
int ot_entry(struct pt_regs *ctx)
{
	return emit(ctx, 1);
}

SEC("kprobe")
int ot_return(struct pt_regs *ctx)
{
	return emit(ctx, 2);
}

char LICENSE[] SEC("license") = "GPL";
