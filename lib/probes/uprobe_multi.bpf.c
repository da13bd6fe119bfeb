/*
 * uprobe_multi.bpf.c - the BPF program of the batched backend.
 *
 * Built with clang -target bpf, embedded in orbit-trace and loaded by
 * libbpf (lib/probes/backend_multi.c).  Every hit writes one PERF_SAMPLE_RAW
 * record into the CPU's perf ring: the kernel adds {pid, tid} and the
 * time (PERF_SAMPLE_TID | TIME, CLOCK_MONOTONIC, the same clock as the
 * perf backend), the program adds the probe id (the link's per-offset
 * cookie), the user stack pointer and the register the cookie names
 * (an argument or the return value, for -f 'NAME(argN)' / 'NAME%ret').  lib/rings/ring decodes it into the same
 * struct ot_record as a uprobe PMU sample, so draining, merging and
 * pairing do not know which backend armed the probes.
 */
#include <linux/bpf.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(int));
	__uint(value_size, sizeof(int));
} ot_rings SEC(".maps");

/*
 * Written by user space through libbpf's mmap of .bss: bit 0 lets entry
 * probes record, bit 1 return probes, bit 2 (--follow, -p PID,PID...)
 * only the processes in ot_followed, bit 3 (-a) the name of each process
 * that calls into ot_comms, bit 4 (--cgroup) only the processes in the
 * cgroup of ot_cgroup or below it, bit 5 (a caller whose real uid is not
 * 0) only the processes ot_owner's user could ptrace.  Switching returns on before entries
 * and entries off before returns costs no IPI, unlike a perf ioctl per
 * CPU.
 */
volatile __u32 ot_enabled;

/* --cgroup: the cgroup v2 directory, by its fd, put in by user space. */
struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} ot_cgroup SEC(".maps");

/*
 * --follow, -p PID,PID...: the processes traced, by tgid.  User space puts
 * the targets in; ot_fork (--follow) adds each process a followed one
 * forks, before it runs (the
 * tracepoint fires in the parent, ahead of the child's first wake-up), so
 * a child's first call is seen; ot_exec renames it, ot_exit marks it
 * exited once its last thread has gone.  User space reads and deletes the
 * exited.  Its size is set before loading.
 */
struct ot_followed_proc {
	__u32 state;		/* OT_FOLLOW_* */
	__u32 ppid;
	char comm[16];
};

#define OT_FOLLOW_LIVE 1
#define OT_FOLLOW_EXITED 2

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, struct ot_followed_proc);
} ot_followed SEC(".maps");

/*
 * -a: each process's name (comm) at its latest traced call, by tgid, so
 * that one gone before user space asks /proc is still named; the least
 * recently written go first when it is full.  Its size is set before
 * loading (1 without -a).
 */
struct ot_comm {
	union {
		char comm[16];
		__u64 w[2];
	};
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct ot_comm);
} ot_comms SEC(".maps");

/*
 * A capability install used by a user: [0] its uid, [1] its gid.  A hit
 * in a process any of whose uids or gids differs (another user's; a
 * setuid or setgid program, su or passwd, even run by that user), or that
 * is not dumpable, records nothing: no register, no byte of its memory is
 * read - what ptrace (__ptrace_may_access) would refuse that user.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32[2]);
} ot_owner SEC(".maps");

/* [0]: the children that could not be followed (ot_followed was full). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} ot_follow_stats SEC(".maps");

/*
 * The process whose links filter on its pid (every capture but --follow's
 * and -a's).  User space fills it before the links exist, and reads it
 * through a mapping (BPF_F_MMAPABLE): a drain costs no system call.
 *
 * Why: a link keeps the task that led the process when it was made
 * (bpf_uprobe_multi_link_attach: get_pid_task(PIDTYPE_TGID)), and plants
 * breakpoints in an mm only while that task's ->mm is it
 * (uprobe_multi_link_filter).  An exec from another thread ends that task
 * (de_thread) and the exec'ing one takes the process's pid: the new
 * program's mm gets no breakpoint from the old links, ever.  ot_exec_watch
 * sees such an exec (old_pid != pid) before the new program's first
 * instruction, counts it, and - where user space may - stops the process
 * there (stop_sig, SIGSTOP) until its links are made again for the new
 * leader and it is continued.
 */
struct ot_watch {
	__u32 tgid;		/* 0: none */
	__u32 stop_sig;		/* SIGSTOP to hold the process, 0 not to */
	__u32 cont_sig;		/* SIGCONT: one blocked would stay pending, so no hold */
	__u32 why;		/* the latest exec not held: OT_UNHELD_* */
	__u64 events;		/* such execs, + (those stopped) << 32: one atomic add */
};

#define OT_UNHELD_NOT_ASKED 1
#define OT_UNHELD_TRACED 2
#define OT_UNHELD_CONT_BLOCKED 3
#define OT_UNHELD_SIGNAL 4

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct ot_watch);
} ot_watch SEC(".maps");

/* The fields read, relocated by libbpf against the kernel's BTF (CO-RE). */
struct signal_struct___ot {
	struct { int counter; } live;
} __attribute__((preserve_access_index));

struct sigset___ot {
	unsigned long sig[1];
} __attribute__((preserve_access_index));

struct kid___ot {
	unsigned int val;
};

struct cred___ot {
	struct kid___ot uid, gid, suid, sgid, euid, egid, fsuid, fsgid;
} __attribute__((preserve_access_index));

/* mm->flags: a word before Linux 6.18, a bitmap (mm_flags_t) since. */
struct mm_struct___old {
	unsigned long flags;
} __attribute__((preserve_access_index));

struct mm_struct___new {
	struct {
		unsigned long __mm_flags[1];
	} flags;
} __attribute__((preserve_access_index));

struct task_struct___ot {
	int pid, tgid;
	unsigned int ptrace;
	struct sigset___ot blocked;
	struct signal_struct___ot *signal;
	const struct cred___ot *cred;
	void *mm;
} __attribute__((preserve_access_index));

/* The low two bits of mm->flags: SUID_DUMP_USER (1) is dumpable. */
#define OT_MMF_DUMPABLE_MASK 3ul
#define OT_SUID_DUMP_USER 1ul

/* Debian 12's libbpf (1.1) stops at PT_REGS_PARM5. */
#ifndef PT_REGS_PARM6
#if defined(__TARGET_ARCH_x86)
#define PT_REGS_PARM6(x) (((const struct pt_regs *)(x))->r9)
#elif defined(__TARGET_ARCH_arm64)
#define PT_REGS_PARM6(x) (((const struct user_pt_regs *)(x))->regs[5])
#endif
#endif

/*
 * A USDT argument's operand (lib/symbols/usdt's struct ot_usdt_arg, in the
 * form this program reads): registers by their offset in struct pt_regs,
 * -1 none.  Filled by user space before the links exist, indexed by the
 * cookie's bits 32-47.
 */
struct ot_usdt_spec {
	__u8 kind;		/* 1 register, 2 memory, 3 constant, 4 sym(%rip),
				 * 5 memory at scale past the pointer at off(reg),
				 * 6 a Go string: pointer in reg, length in idx */
	__u8 size;		/* bytes: 1, 2, 4, 8 */
	__u8 is_signed;
	__u8 shift;		/* bits right first (%ah) */
	__s16 reg_off, idx_off;
	__u32 scale;
	__s64 off;		/* displacement, constant; for 4, from the site */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct ot_usdt_spec);
} ot_usdt_specs SEC(".maps");

/* pt_regs at an offset user space chose: not a constant, so not a load
 * the verifier allows through the context pointer. */
static __always_inline __u64 reg_at(struct pt_regs *ctx, __s16 off)
{
	__u64 v = 0;

	if (off >= 0 && off <= 160)
		bpf_probe_read_kernel(&v, sizeof(v), (void *)ctx + off);
	return v;
}

/*
 * The argument as the note declares it: read (8 bytes from memory, as
 * libbpf's usdt.bpf.h does), then cut to its size and sign-extended when
 * signed.  Memory the process has not touched reads as 0.
 */
static __always_inline __u64 usdt_value(struct pt_regs *ctx, __u32 idx, __u64 *len)
{
	struct ot_usdt_spec *sp = bpf_map_lookup_elem(&ot_usdt_specs, &idx);
	__u64 v = 0, addr;
	__u32 bits;

	if (!sp)
		return 0;
	switch (sp->kind) {
	case 1:
		v = reg_at(ctx, sp->reg_off) >> (sp->shift & 8);
		break;
	case 6:
		/* A Go string: its bytes end at its length, not at a NUL. */
		v = reg_at(ctx, sp->reg_off);
		*len = reg_at(ctx, sp->idx_off);
		break;
	case 2:
		addr = reg_at(ctx, sp->reg_off) + sp->off;
		if (sp->idx_off >= 0)
			addr += reg_at(ctx, sp->idx_off) * sp->scale;
		bpf_probe_read_user(&v, sizeof(v), (void *)addr);
		break;
	case 3:
		v = (__u64)sp->off;
		break;
	case 5:
		/* A DWARF parameter's member through a pointer kept in memory. */
		addr = reg_at(ctx, sp->reg_off) + sp->off;
		bpf_probe_read_user(&addr, sizeof(addr), (void *)addr);
		bpf_probe_read_user(&v, sizeof(v), (void *)(addr + sp->scale));
		break;
	case 4:
		/* The uprobe's ip is its site's address in the process. */
		addr = PT_REGS_IP(ctx) + sp->off;
		bpf_probe_read_user(&v, sizeof(v), (void *)addr);
		break;
	}
	bits = (sp->size & 15) * 8;
	if (bits && bits < 64) {
		v <<= 64 - bits;
		v = sp->is_signed ? (__u64)((__s64)v >> (64 - bits)) : v >> (64 - bits);
	}
	return v;
}

struct ot_bpf_sample {
	__u64 id;
	__u64 sp;
	__u64 value;	/* what the cookie's top byte asks for (OT_VALUE_*); not
			 * written when it asks none (and the probe is no Go one) */
	__u64 key;	/* a Go function's probe (the cookie's bit 49): the
			 * goroutine, 0 when R14 holds none; not written for others */
};

/* The cookie's bit for a Go function's probe (lib/probes/probes.h). */
#define OT_COOKIE_GO (1ull << 49)
/*
 * A goroutine's SP is recorded as its distance below the top of its
 * stack, from OT_GO_VSP_TOP down (lib/symbols/gobin.h): Go copies a stack
 * that must grow (or shrink) to a new place, its frames at the same
 * distance from the new top, so an entry and its return still agree.
 */
#define OT_GO_VSP_TOP (1ull << 62)
/* The largest goroutine stack (runtime.maxstacksize on 64-bit: 1 GB). */
#define OT_GO_STACK_MAX (1ull << 30)

/*
 * A Go function's hit: R14 holds the running goroutine, g, whose first
 * two words are its stack's bounds [lo, hi).  The hit is keyed by g, its
 * SP made a distance from hi, when the SP is within them; else (R14 is no
 * g here: assembly, or C) it stays the thread's, as any other's.
 */
static __always_inline void go_key(struct pt_regs *ctx, struct ot_bpf_sample *s)
{
	__u64 stk[2] = { 0, 0 };
	__u64 g = 0;

#if defined(__TARGET_ARCH_x86)
	g = ctx->r14;
#endif
	s->key = 0;
	if (!g || bpf_probe_read_user(stk, sizeof(stk), (void *)g))
		return;
	if (stk[0] >= stk[1] || stk[1] - stk[0] > OT_GO_STACK_MAX || s->sp < stk[0] ||
	    s->sp > stk[1])
		return;
	s->key = g;
	s->sp = OT_GO_VSP_TOP - (stk[1] - s->sp);
}

/*
 * A USDT argument read as a string (the cookie's bit 48): the sample (its
 * key 0 but for a Go function's), the value being the string's address,
 * then what bpf_probe_read_user_str gave (its length with the NUL, or < 0: not readable now, a page the
 * process has not touched - user space reads it afterwards), the site's
 * address and up to 64 bytes.  Only such probes write the longer record.
 */
#define OT_STR_MAX 64
struct ot_bpf_str_sample {
	struct ot_bpf_sample s;
	__s32 len;
	__u32 cap;	/* a Go string's: its bytes to read with the NUL (its length
			 * + 1, at most OT_STR_MAX); 0 for a C string, up to a NUL */
	__u64 ip;	/* the site's address: where the file is, to read it there */
	char str[OT_STR_MAX];
};

/*
 * Strings the program could not read, by process and address: a page the
 * process has not touched, which stays so while nothing reads it.  Each
 * failed read is a fault taken and fixed up in the kernel (about 2-3 us),
 * so a string that failed once is not tried again: user space reads it
 * afterwards, once per address, as it does the first time.
 */
struct ot_str_key {
	__u64 addr;
	__u32 tgid, pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct ot_str_key);
	__type(value, __u8);
} ot_str_unread SEC(".maps");

/* glen: a Go string's length (~0: a C string, up to its NUL). */
static __always_inline void read_str(struct ot_bpf_str_sample *ss, __u64 glen)
{
	struct ot_str_key k = { .addr = ss->s.value,
				.tgid = (__u32)(bpf_get_current_pid_tgid() >> 32) };
	__u8 one = 1;
	__u32 n;

	ss->cap = 0;
	if (glen != ~0ull)
		ss->cap = (glen < OT_STR_MAX - 1 ? (__u32)glen : OT_STR_MAX - 1) + 1;
	if (bpf_map_lookup_elem(&ot_str_unread, &k)) {
		__builtin_memset(ss->str, 0, sizeof(ss->str));
		ss->len = -14;	/* -EFAULT, as the helper says it */
		return;
	}
	if (!ss->cap) {
		ss->len = bpf_probe_read_user_str(ss->str, sizeof(ss->str), (void *)ss->s.value);
	} else {
		__builtin_memset(ss->str, 0, sizeof(ss->str));
		n = (ss->cap - 1) & (OT_STR_MAX - 1);
		ss->len = (int)n + 1;
		if (n && bpf_probe_read_user(ss->str, n, (void *)ss->s.value))
			ss->len = -14;
	}
	if (ss->len < 0)
		bpf_map_update_elem(&ot_str_unread, &k, &one, BPF_ANY);
}

/*
 * Whether ot_owner's user could ptrace the current process: every uid and
 * gid of its credentials theirs, and its memory dumpable (the checks of
 * __ptrace_may_access, without the capabilities that would lift them).
 */
static __always_inline int owner_may(void)
{
	struct task_struct___ot *t = (void *)bpf_get_current_task();
	const struct cred___ot *cr = BPF_CORE_READ(t, cred);
	void *mm = BPF_CORE_READ(t, mm);
	__u32 zero = 0, *o = bpf_map_lookup_elem(&ot_owner, &zero);
	unsigned long flags;

	if (!o || !cr || !mm)
		return 0;
	if (BPF_CORE_READ(cr, uid.val) != o[0] || BPF_CORE_READ(cr, euid.val) != o[0] ||
	    BPF_CORE_READ(cr, suid.val) != o[0] || BPF_CORE_READ(cr, fsuid.val) != o[0] ||
	    BPF_CORE_READ(cr, gid.val) != o[1] || BPF_CORE_READ(cr, egid.val) != o[1] ||
	    BPF_CORE_READ(cr, sgid.val) != o[1] || BPF_CORE_READ(cr, fsgid.val) != o[1])
		return 0;
	if (bpf_core_field_exists(((struct mm_struct___new *)0)->flags.__mm_flags))
		flags = BPF_CORE_READ((struct mm_struct___new *)mm, flags.__mm_flags[0]);
	else
		flags = BPF_CORE_READ((struct mm_struct___old *)mm, flags);
	return (flags & OT_MMF_DUMPABLE_MASK) == OT_SUID_DUMP_USER;
}

static __always_inline int emit(struct pt_regs *ctx, __u32 bit)
{
	struct ot_bpf_str_sample ss;
	struct ot_bpf_sample s;
	__u64 glen = ~0ull;

	if (!(ot_enabled & bit))
		return 0;
	/* First: nothing of another user's process is read, not even its name. */
	if ((ot_enabled & 32) && !owner_may())
		return 0;
	if (ot_enabled & 4) {
		__u32 tgid = (__u32)(bpf_get_current_pid_tgid() >> 32);
		struct ot_followed_proc *f = bpf_map_lookup_elem(&ot_followed, &tgid);

		if (!f || f->state != OT_FOLLOW_LIVE)
			return 0;
	}
	/* The task's cgroup, as perf --cgroup counts it: that one or below. */
	if ((ot_enabled & 16) && bpf_current_task_under_cgroup(&ot_cgroup, 0) != 1)
		return 0;
	if (ot_enabled & 8) {
		__u32 tgid = (__u32)(bpf_get_current_pid_tgid() >> 32);
		struct ot_comm c = {}, *had = bpf_map_lookup_elem(&ot_comms, &tgid);

		bpf_get_current_comm(c.comm, sizeof(c.comm));
		/* Written only when new or renamed (an exec): a hit costs a lookup. */
		if (!had || had->w[0] != c.w[0] || had->w[1] != c.w[1])
			bpf_map_update_elem(&ot_comms, &tgid, &c, BPF_ANY);
	}
	s.id = bpf_get_attach_cookie(ctx);
	s.sp = PT_REGS_SP(ctx);
	/*
	 * lib/rings/kinds.h: 1..6 an integer argument, 15 the return value.  Every
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
	case 14: s.value = usdt_value(ctx, (__u32)(s.id >> 32) & 0xffff, &glen); break;
	default: s.value = 0; break;
	}
	s.key = 0;
	if (s.id & OT_COOKIE_GO)
		go_key(ctx, &s);
	/* A full ring fails the write; the kernel counts it and reports it
	 * as PERF_RECORD_LOST, which lib/rings/drain turns into loss epochs.
	 * A probe that records no value writes {id, sp} alone: 48 bytes a
	 * record in the ring, not 56; a Go function's {id, sp, value, key}
	 * (lib/rings/ring decodes each). */
	if (s.id & (1ull << 48)) {
		ss.s = s;
		ss.ip = PT_REGS_IP(ctx);
		read_str(&ss, glen);
		bpf_perf_event_output(ctx, &ot_rings, BPF_F_CURRENT_CPU, &ss, sizeof(ss));
		return 0;
	}
	bpf_perf_event_output(ctx, &ot_rings, BPF_F_CURRENT_CPU, &s,
			      s.id & OT_COOKIE_GO ? sizeof(s) :
			      s.id >> 56 ? 3 * sizeof(__u64) : 2 * sizeof(__u64));
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

/*
 * Return probes as uprobe sessions (Linux 6.13; user space loads this
 * program only where the kernel has them): at a call this program says
 * whether the kernel is to take its return instance, at the return it
 * records as ot_return does (the entry is the entry link's).
 *
 * Why: the kernel keeps one chain of return instances per thread, not
 * per stack.  A call on a stack above the chain's newest instance drops
 * it as a frame longjmp left (cleanup_return_instances), and a return
 * through the trampoline takes the chain's newest whatever stack it is
 * on (handle_trampoline): after a switch between stacks it finds none
 * (SIGILL) or another call's return address.  So a call takes a return
 * instance only where the chain stays on one stack: its SP in a mapping
 * made for a thread's stack (the main thread's grows down, a thread's
 * was mapped MAP_STACK: no huge pages) - never a fiber's, from the heap,
 * where neighbouring stacks share one mapping - and the chain's newest,
 * if any, in that same mapping.  Other calls are declined (the entry
 * still recorded: an unclosed call) and counted in ot_guard_stats; so is
 * one whose mapping cannot be looked up (bpf_find_vma only tries the
 * process's map lock).
 */
extern _Bool bpf_session_is_return(void) __ksym __weak;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} ot_guard_stats SEC(".maps");

struct vm_area_struct___ot {
	unsigned long vm_start, vm_end;
	unsigned long vm_flags;
} __attribute__((preserve_access_index));

struct return_instance___ot {
	unsigned long stack;
} __attribute__((preserve_access_index));

struct uprobe_task___ot {
	struct return_instance___ot *return_instances;
} __attribute__((preserve_access_index));

struct task_struct___guard {
	struct uprobe_task___ot *utask;
} __attribute__((preserve_access_index));

#define OT_VM_GROWSDOWN 0x100ul
#define OT_VM_NOHUGEPAGE 0x40000000ul

struct ot_guard_ctx {
	__u64 newest;	/* the chain's newest instance's SP, 0 for none */
	int ok;
};

static long guard_vma(void *task, struct vm_area_struct___ot *vma, struct ot_guard_ctx *g)
{
	unsigned long flags = vma->vm_flags;

	(void)task;
	if (!(flags & (OT_VM_GROWSDOWN | OT_VM_NOHUGEPAGE)))
		return 0;
	g->ok = !g->newest || (g->newest >= vma->vm_start && g->newest < vma->vm_end);
	return 0;
}

/* Whether this call may take a return instance (see above). */
static __always_inline int guard_takes(struct pt_regs *ctx)
{
	struct task_struct___guard *t = (void *)bpf_get_current_task();
	struct return_instance___ot *ri = BPF_CORE_READ(t, utask, return_instances);
	struct ot_guard_ctx g = { 0, 0 };

	if (ri)
		g.newest = BPF_CORE_READ(ri, stack);
	if (bpf_find_vma(bpf_get_current_task_btf(), PT_REGS_SP(ctx), guard_vma, &g, 0))
		return 0;
	return g.ok;
}

SEC("kprobe")
int ot_session(struct pt_regs *ctx)
{
	__u32 zero = 0;
	__u64 *declined;

	if (bpf_session_is_return())
		return emit(ctx, 2);
	/* Returns off (before the capture, after it): none to take. */
	if (!(ot_enabled & 2))
		return 1;
	if (guard_takes(ctx))
		return 0;
	declined = bpf_map_lookup_elem(&ot_guard_stats, &zero);
	if (declined)
		__sync_fetch_and_add(declined, 1);
	return 1;
}

/* sched_process_fork(parent, child), in the parent. */
SEC("raw_tp/sched_process_fork")
int ot_fork(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct___ot *child = (void *)ctx->args[1];
	__u32 ptgid = (__u32)(bpf_get_current_pid_tgid() >> 32), ctgid, zero = 0;
	struct ot_followed_proc *parent, c = { .state = OT_FOLLOW_LIVE };
	__u64 *dropped;

	parent = bpf_map_lookup_elem(&ot_followed, &ptgid);
	if (!parent || parent->state != OT_FOLLOW_LIVE)
		return 0;
	ctgid = (__u32)BPF_CORE_READ(child, tgid);
	if (ctgid == ptgid || (__u32)BPF_CORE_READ(child, pid) != ctgid)
		return 0;	/* a thread: followed with its process */
	c.ppid = ptgid;
	__builtin_memcpy(c.comm, parent->comm, sizeof(c.comm));
	if (bpf_map_update_elem(&ot_followed, &ctgid, &c, BPF_ANY)) {
		dropped = bpf_map_lookup_elem(&ot_follow_stats, &zero);
		if (dropped)
			__sync_fetch_and_add(dropped, 1);
	}
	return 0;
}

/* sched_process_exec(p, old_pid, bprm), in the process, its comm new. */
SEC("raw_tp/sched_process_exec")
int ot_exec(struct bpf_raw_tracepoint_args *ctx)
{
	__u32 tgid = (__u32)(bpf_get_current_pid_tgid() >> 32);
	struct ot_followed_proc *f = bpf_map_lookup_elem(&ot_followed, &tgid);

	(void)ctx;
	if (f)
		bpf_get_current_comm(f->comm, sizeof(f->comm));
	return 0;
}

/*
 * sched_process_exec(p, old_pid, bprm), in the process, after de_thread:
 * old_pid is the exec'ing thread's id before it took the process's.  An
 * exec by the first thread keeps the task the links filter on: nothing to
 * do.  A stop signal sent here is acted on before the new program runs.
 */
SEC("raw_tp/sched_process_exec")
int ot_exec_watch(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct___ot *t = (void *)bpf_get_current_task();
	__u64 id = bpf_get_current_pid_tgid();
	__u32 zero = 0, why = 0;
	struct ot_watch *w;

	if ((__u32)ctx->args[1] == (__u32)id)
		return 0;
	w = bpf_map_lookup_elem(&ot_watch, &zero);
	if (!w || w->tgid != (__u32)(id >> 32))
		return 0;
	/*
	 * Not held: when not asked; when someone traces it (the stop would be
	 * a signal-delivery stop, theirs to resume or swallow); when it blocks
	 * SIGCONT (continuing it would leave one pending, which it could see).
	 */
	if (!w->stop_sig)
		why = OT_UNHELD_NOT_ASKED;
	else if (BPF_CORE_READ(t, ptrace))
		why = OT_UNHELD_TRACED;
	else if (w->cont_sig > 0 && w->cont_sig <= 64 &&
		 (BPF_CORE_READ(t, blocked.sig[0]) >> (w->cont_sig - 1)) & 1)
		why = OT_UNHELD_CONT_BLOCKED;
	else if (bpf_send_signal(w->stop_sig))
		why = OT_UNHELD_SIGNAL;
	if (why)
		w->why = why;
	__sync_fetch_and_add(&w->events, why ? 1ull : 1ull | 1ull << 32);
	return 0;
}

/*
 * sched_process_exit(p[, group_dead]), in each exiting thread: the process
 * is gone when signal->live, decremented before the tracepoint, is 0.
 */
SEC("raw_tp/sched_process_exit")
int ot_exit(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct___ot *t = (void *)bpf_get_current_task();
	__u32 tgid = (__u32)(bpf_get_current_pid_tgid() >> 32);
	struct ot_followed_proc *f = bpf_map_lookup_elem(&ot_followed, &tgid);

	(void)ctx;
	if (f && BPF_CORE_READ(t, signal, live.counter) == 0)
		f->state = OT_FOLLOW_EXITED;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
