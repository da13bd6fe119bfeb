/*
 * ring.c - a perf mmap ring read and its records decoded (ring.h): the
 * uprobe PMU's sample layout (a backend's own through ot_ring.decode),
 * PERF_RECORD_LOST; pure code over memory.
 */
#include "ring.h"
#include "kinds.h"
#include "arch/arch.h"
#include "util/xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define OT_RING_SCRATCH 65536 /* perf_event_header.size is a u16 */

int ot_ring_init(struct ot_ring *r, void *base, size_t page_size,
		 uint64_t data_size)
{
	memset(r, 0, sizeof(*r));
	if (!data_size || (data_size & (data_size - 1)))
		return -EINVAL;
	r->meta = base;
	r->data = (unsigned char *)base + page_size;
	r->size = data_size;
	r->scratch = ot_xmalloc(OT_RING_SCRATCH);
	return 0;
}

void ot_ring_fini(struct ot_ring *r)
{
	free(r->scratch);
	r->scratch = NULL;
}

size_t ot_ring_drain(struct ot_ring *r, ot_ring_fn fn, void *ctx)
{
	uint64_t head, tail, mask = r->size - 1;
	size_t n = 0;

	head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	tail = r->meta->data_tail;
	if (head - tail > r->high_water)
		r->high_water = head - tail;

	while (tail < head) {
		uint64_t off = tail & mask;
		struct perf_event_header hdr;
		const struct perf_event_header *rec;

		/* The kernel keeps records 8-byte aligned, so a header never
		 * straddles the end; copy it anyway rather than trust that. */
		if (off + sizeof(hdr) <= r->size) {
			memcpy(&hdr, r->data + off, sizeof(hdr));
		} else {
			size_t first = r->size - off;

			memcpy(&hdr, r->data + off, first);
			memcpy((char *)&hdr + first, r->data, sizeof(hdr) - first);
		}
		if (hdr.size < sizeof(hdr) || (hdr.size & 7) ||
		    hdr.size > head - tail) {
			r->malformed++;
			tail = head;
			break;
		}
		/*
		 * The kernel wrote these lines on another CPU: ask for the
		 * next ones while this record is handled.
		 */
		__builtin_prefetch(r->data + ((off + 256) & mask));
		if (off + hdr.size <= r->size) {
			rec = (const void *)(r->data + off);
		} else {
			size_t first = r->size - off;

			memcpy(r->scratch, r->data + off, first);
			memcpy(r->scratch + first, r->data, hdr.size - first);
			rec = (const void *)r->scratch;
		}
		fn(ctx, rec);
		n++;
		tail += hdr.size;
	}
	__atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}

static int take(const unsigned char **p, const unsigned char *end,
		uint64_t *v)
{
	if (end - *p < 8)
		return -EBADMSG;
	memcpy(v, *p, 8);
	*p += 8;
	return 0;
}

/* The sample the perf backend (lib/probes/backend_perf) asks for, when the SP is there: the common case. */
struct sample_sp {
	struct perf_event_header h;
	uint64_t id;
	uint32_t pid, tid;
	uint64_t time, abi, sp;
};

void ot_record_sample(struct ot_record *out, uint64_t id, uint32_t pid, uint32_t tid,
		      uint64_t time, uint64_t sp)
{
	out->type = OT_REC_SAMPLE;
	out->id = id;
	out->pid = pid;
	out->tid = tid;
	out->time = time;
	out->sp = sp;
	out->has_sp = 1;
	out->lost = 0;
	out->key = 0;
	out->has_value = out->has_regs = out->has_str = 0;
}

uint64_t ot_ring_value_regs(void)
{
	return OT_ARCH_SAMPLE_REGS;
}

/* A USDT operand's register as its selector sizes it (OT_VALUE_REG_SIZE). */
static uint64_t reg_value(const struct ot_record *r, int sel)
{
	unsigned bytes = ((unsigned)sel >> 8) & 15, bits = bytes * 8;
	uint64_t x = r->regs[(sel & 0xff) - OT_VALUE_REG0] >> ((sel >> 13 & 1) ? 8 : 0);

	if (!bytes || bits >= 64)
		return x;
	x &= (1ull << bits) - 1;
	if ((sel >> 12 & 1) && (x >> (bits - 1)))
		x |= ~0ull << bits;	/* sign-extended */
	return x;
}

int ot_record_value(const struct ot_record *r, int sel, uint64_t *v)
{
	if (r->has_value) {
		*v = r->value;
		return 0;
	}
	if (r->has_regs && (sel & 0xff) >= OT_VALUE_REG0 &&
	    (sel & 0xff) < OT_VALUE_REG0 + OT_RING_NREGS) {
		*v = reg_value(r, sel);
		return 0;
	}
	if (!r->has_regs || sel < OT_VALUE_ARG1 ||
	    (sel >= OT_VALUE_ARG1 + 6 && sel != OT_VALUE_RET))
		return -ENOENT;
	*v = sel == OT_VALUE_RET ? r->rc : r->args[sel - OT_VALUE_ARG1];
	return 0;
}

int ot_record_parse(const struct perf_event_header *rec, struct ot_record *out)
{
	return ot_record_parse_regs(rec, out, 0);
}

int ot_record_parse_regs(const struct perf_event_header *rec, struct ot_record *out,
			 uint64_t regs_mask)
{
	const unsigned char *p = (const void *)(rec + 1);
	const unsigned char *end = (const unsigned char *)rec + rec->size;
	uint64_t v;

	if (rec->type == PERF_RECORD_SAMPLE && rec->size == sizeof(struct sample_sp)) {
		struct sample_sp s;

		memcpy(&s, rec, sizeof(s));
		if (s.abi != PERF_SAMPLE_REGS_ABI_NONE) {
			ot_record_sample(out, s.id, s.pid, s.tid, s.time, s.sp);
			return 0;
		}
	}
	memset(out, 0, sizeof(*out));
	if (rec->size < sizeof(*rec))
		return -EBADMSG;
	switch (rec->type) {
	case PERF_RECORD_SAMPLE:
		out->type = OT_REC_SAMPLE;
		if (take(&p, end, &out->id) || take(&p, end, &v))
			return -EBADMSG;
		out->pid = (uint32_t)v;
		out->tid = (uint32_t)(v >> 32);
		if (take(&p, end, &out->time) || take(&p, end, &v))
			return -EBADMSG;
		/* abi NONE: the sample hit a kernel thread and has no regs. */
		if (v != PERF_SAMPLE_REGS_ABI_NONE && regs_mask == OT_ARCH_SAMPLE_REGS) {
			uint64_t r[OT_ARCH_NSAMPLE_REGS];
			int i;

			for (i = 0; i < OT_ARCH_NSAMPLE_REGS; i++)
				if (take(&p, end, &r[i]))
					return -EBADMSG;
			ot_arch_sample_regs(r, out->regs, out->args, &out->rc, &out->sp);
			out->has_sp = out->has_regs = 1;
		} else if (v != PERF_SAMPLE_REGS_ABI_NONE) {
			if (take(&p, end, &out->sp))
				return -EBADMSG;
			out->has_sp = 1;
		}
		return 0;
	case PERF_RECORD_LOST:
		out->type = OT_REC_LOST;
		if (take(&p, end, &out->id) || take(&p, end, &out->lost))
			return -EBADMSG;
		/* sample_id: {pid, tid}, time, identifier; older records may
		 * lack it, and the count is what matters. */
		if (!take(&p, end, &v)) {
			out->pid = (uint32_t)v;
			out->tid = (uint32_t)(v >> 32);
			(void)take(&p, end, &out->time);
		}
		return 0;
	case PERF_RECORD_COMM: {
		/* {pid, tid, comm (NUL, padded to 8)}, then sample_id. */
		size_t len = (size_t)(end - p);

		if (take(&p, end, &v))
			return -EBADMSG;
		out->type = OT_REC_COMM;
		out->pid = (uint32_t)v;
		out->tid = (uint32_t)(v >> 32);
		len = len > 8 ? len - 8 : 0;
		if (len >= sizeof(out->comm))
			len = sizeof(out->comm) - 1;
		memcpy(out->comm, p, len);
		out->comm[len] = 0;
		return 0;
	}
	default:
		out->type = OT_REC_OTHER;
		return 0;
	}
}
