/*
 * uprobe_multi.bpf.c - the BPF program of the batched backend.
 *
 * Built with clang -target bpf, embedded in orbit-trace and loaded by
 * libbpf (lib/uprobe_multi.c).  Every hit writes one PERF_SAMPLE_RAW
 * record into the CPU's perf ring: the kernel adds {pid, tid} and the
 * time (PERF_SAMPLE_TID | TIME, CLOCK_MONOTONIC, the same clock as the
 * perf backend), the program adds the probe id (the link's per-offset
 * cookie) and the user stack pointer.  lib/ring decodes it into the same
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

struct ot_bpf_sample {
	__u64 id;
	__u64 sp;
};

static __always_inline int emit(struct pt_regs *ctx, __u32 bit)
{
	struct ot_bpf_sample s;

	if (!(ot_enabled & bit))
		return 0;
	s.id = bpf_get_attach_cookie(ctx);
	s.sp = PT_REGS_SP(ctx);
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
