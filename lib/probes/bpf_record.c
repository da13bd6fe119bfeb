/*
 * bpf_record.c - the multi backend's samples decoded (bpf_record.h): its
 * BPF program's output, laid out as uprobe_multi.bpf.c writes it.
 */
#include "bpf_record.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

/* A BPF output sample: the raw part is {u64 id, u64 sp, u64 value, u64
 * key} and the 4 bytes of padding the kernel adds to keep records 8-byte
 * aligned (16 bytes, without the value; 24, without the key). */
struct sample_bpf {
	struct perf_event_header h;
	uint32_t pid, tid;
	uint64_t time;
	uint32_t raw_size;
	uint64_t id, sp, value, key;
	int32_t str_len;
	uint32_t str_cap;
	uint64_t ip;
	char str[OT_RING_STR_MAX];
} __attribute__((packed));

int ot_record_parse_bpf(const struct perf_event_header *rec,
			struct ot_record *out)
{
	struct sample_bpf s;

	if (rec->type != PERF_RECORD_SAMPLE)
		return ot_record_parse(rec, out);
	/* Per record, so no clearing: ot_record_sample sets every field that is
	 * read, and the value is copied whenever raw_size says it is there. */
	if (rec->size < offsetof(struct sample_bpf, value))
		return -EBADMSG;
	memcpy(&s, rec, rec->size < sizeof(s) ? rec->size : sizeof(s));
	if (s.raw_size < 2 * sizeof(uint64_t) ||
	    s.raw_size > rec->size - offsetof(struct sample_bpf, id))
		return -EBADMSG;
	ot_record_sample(out, s.id, s.pid, s.tid, s.time, s.sp);
	if (s.raw_size >= 3 * sizeof(uint64_t)) {
		out->value = s.value;
		out->has_value = 1;
	}
	if (s.raw_size >= 4 * sizeof(uint64_t))
		out->key = s.key;
	/* A string argument's record (uprobe_multi.bpf.c's ot_bpf_str_sample). */
	if (s.raw_size >= 6 * sizeof(uint64_t) + OT_RING_STR_MAX) {
		const struct sample_bpf *in = (const void *)rec;

		out->str = in->str;
		out->str_len = s.str_len;
		out->str_cap = s.str_cap <= OT_RING_STR_MAX ? s.str_cap : OT_RING_STR_MAX;
		out->str_ip = s.ip;
		out->has_str = 1;
	}
	return 0;
}
