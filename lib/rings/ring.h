/*
 * ring.h - reading a perf mmap ring and decoding its records.
 *
 * Pure code over memory: it does not open or map anything (lib/probes/probes does),
 * so the unit tests drive it with rings laid out in ordinary memory.  The
 * sample layout decoded here is the uprobe PMU events':
 * PERF_SAMPLE_IDENTIFIER | TID | TIME | REGS_USER (the stack pointer, and
 * the registers values are in when asked), with sample_id_all so that
 * PERF_RECORD_LOST carries a time too.  A backend whose samples are laid
 * out otherwise (a BPF program's output) gives the ring its own decoder
 * (ot_ring.decode), which fills a record as this file's do
 * (ot_record_sample); every other record type is decoded here.
 */
#ifndef OT_RING_H
#define OT_RING_H

#include "arch_defs.h"	/* lib/arch/$(ARCH)/ */

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

struct ot_record;

struct ot_ring {
	struct perf_event_mmap_page *meta; /* first page of the mapping */
	unsigned char *data;		   /* data area, size bytes */
	uint64_t size;			   /* power of two */
	unsigned char *scratch;		   /* 64 KiB, for records that wrap */
	uint64_t malformed;		   /* records skipped as corrupt */
	uint64_t high_water;		   /* most bytes pending at one drain */
	/* The backend's decoder of its records when its samples are not the
	 * layout above (NULL: ot_record_parse_regs with regs_mask): 0, or
	 * -EBADMSG for a truncated record. */
	int (*decode)(const struct perf_event_header *rec, struct ot_record *out);
	uint64_t regs_mask;		   /* the perf samples' user registers: the
					    * stack pointer's alone, or
					    * ot_ring_value_regs() */
};

/* Called once per record, in ring order; rec is valid only during the call. */
typedef void (*ot_ring_fn)(void *ctx, const struct perf_event_header *rec);

/*
 * Attach a ring to an mmap of (1 + 2^n) pages at base.  Allocates scratch.
 * Returns 0, or -EINVAL if size is not a power of two.
 */
int ot_ring_init(struct ot_ring *r, void *base, size_t page_size,
		 uint64_t data_size);
void ot_ring_fini(struct ot_ring *r);

/*
 * Hand every complete record between data_tail and data_head to fn, then
 * publish the new data_tail.  data_head is read with acquire ordering (the
 * kernel writes the record before it moves the head) and data_tail written
 * with release ordering (the kernel may reuse the space once it sees it).
 * A header whose size is zero, unaligned or beyond data_head means the
 * ring is corrupt: the rest is skipped and counted in r->malformed.
 * Returns the number of records handed to fn.
 */
size_t ot_ring_drain(struct ot_ring *r, ot_ring_fn fn, void *ctx);

/* The string a multi backend's record may carry, its NUL included. */
#define OT_RING_STR_MAX 64

/* Registers by perf number (asm/perf_regs.h) a record keeps: the
 * machine's (lib/arch/$(ARCH)/arch_defs.h). */
#define OT_RING_NREGS OT_ARCH_NREGS

enum ot_rec_type {
	OT_REC_SAMPLE = 1,
	OT_REC_LOST,
	OT_REC_OTHER,	/* a record type we do not use; ignore it */
	OT_REC_COMM,	/* a process's new name (an exec), with -a on perf */
};

struct ot_record {
	enum ot_rec_type type;
	uint64_t id;	/* perf event id (PERF_SAMPLE_IDENTIFIER) */
	uint64_t time;	/* ns, the events' clock (CLOCK_MONOTONIC) */
	uint32_t pid, tid;
	uint64_t sp;	/* user stack pointer; valid when has_sp */
	int has_sp;
	/* The goroutine a Go function's hit ran on (the multi backend's
	 * program reads it; its sp is then the distance from the stack's top,
	 * lib/symbols/gobin's OT_GO_VSP_TOP), or 0: the thread's. */
	uint64_t key;
	uint64_t lost;	/* OT_REC_LOST: number of records the kernel dropped */
	/* A value the probe recorded (the multi backend: the register its
	 * cookie names; inject), when has_value; or the registers it may be
	 * in (the perf backend, with ot_ring_value_regs), when has_regs. */
	uint64_t value;
	int has_value, has_regs;
	uint64_t args[6], rc;	/* the integer argument registers, the return's */
	uint64_t regs[OT_RING_NREGS];	/* every one sampled, by perf number */
	char comm[16];		/* OT_REC_COMM: the name, NUL-terminated */
	/* A string the multi backend's program read at value (a USDT
	 * argument's ":str"), when has_str: str_len bytes with the NUL, or
	 * str_len < 0 when it could not read it then.  Points into the
	 * record: valid during the ring's callback only. */
	const char *str;
	int32_t str_len;
	int has_str;
	/* A Go string's bytes with the NUL (its length + 1, at most
	 * OT_RING_STR_MAX): what to read afterwards; 0, a C string's, up to
	 * its NUL. */
	uint32_t str_cap;
	uint64_t str_ip;	/* the probe's address in the process */
};

/* The user registers (perf_event_attr.sample_regs_user) that carry the
 * stack pointer, the integer arguments and the return value. */
uint64_t ot_ring_value_regs(void);

/* The value selector's register of a sample (OT_VALUE_* of lib/rings/kinds.h:
 * argument n, the return value, or a register by perf number sized by
 * OT_VALUE_REG_SIZE) into *v: 0, or -ENOENT if the record has none. */
int ot_record_value(const struct ot_record *r, int sel, uint64_t *v);

/*
 * Decode one record of the layout above.  Returns 0, or -EBADMSG when the
 * record is shorter than its type requires (a truncated record).
 */
int ot_record_parse(const struct perf_event_header *rec, struct ot_record *out);

/* The same, the samples' user registers being regs_mask (ot_ring.regs_mask). */
int ot_record_parse_regs(const struct perf_event_header *rec, struct ot_record *out,
			 uint64_t regs_mask);

/* A sample of probe id, for a backend's decoder: every field set that a
 * sample of this layout sets, no value, register or string. */
void ot_record_sample(struct ot_record *out, uint64_t id, uint32_t pid, uint32_t tid,
		      uint64_t time, uint64_t sp);

#endif
