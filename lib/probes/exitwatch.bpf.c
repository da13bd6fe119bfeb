/*
 * exitwatch.bpf.c - how one process ends, as the kernel's exit sees it:
 * built with clang -target bpf, embedded in orbit-trace
 * (lib/probes/exitwatch_obj.S) and loaded by libbpf (lib/probes/exitwatch.c).
 * On sched_process_exit, in each exiting thread of the watched process,
 * once the last has gone (signal->live, decremented before the tracepoint,
 * is 0): the wait status its parent gets, as the kernel's wait_task_zombie
 * makes it - the group's exit code in a group exit (exit_group, a fatal
 * signal, the last thread's exit since Linux 5.19), else its first
 * thread's own.  Every exit_code is set before the tracepoint fires.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

/* Written by user space before attaching (tgid), read through a mapping
 * (BPF_F_MMAPABLE): exit is 1 << 32 | the wait status, in one store. */
struct ot_exitw {
	__u32 tgid;
	__u32 pad;
	__u64 exit;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct ot_exitw);
} ot_exitw SEC(".maps");

/* The fields read, relocated by libbpf against the kernel's BTF (CO-RE). */
struct signal_struct___ot {
	struct { int counter; } live;
	unsigned int flags;
	int group_exit_code;
} __attribute__((preserve_access_index));

struct task_struct___ot {
	int exit_code;
	struct signal_struct___ot *signal;
	struct task_struct___ot *group_leader;
} __attribute__((preserve_access_index));

/* include/linux/sched/signal.h: a group exit is in progress. */
#define OT_SIGNAL_GROUP_EXIT 0x00000004

SEC("raw_tp/sched_process_exit")
int ot_exit_watch(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct___ot *t = (void *)bpf_get_current_task();
	__u64 id = bpf_get_current_pid_tgid();
	__u32 zero = 0;
	struct ot_exitw *w;
	int status;

	(void)ctx;
	w = bpf_map_lookup_elem(&ot_exitw, &zero);
	if (!w || w->tgid != (__u32)(id >> 32) || BPF_CORE_READ(t, signal, live.counter))
		return 0;
	if (BPF_CORE_READ(t, signal, flags) & OT_SIGNAL_GROUP_EXIT)
		status = BPF_CORE_READ(t, signal, group_exit_code);
	else
		status = BPF_CORE_READ(t, group_leader, exit_code);
	w->exit = 1ull << 32 | (__u32)status;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
