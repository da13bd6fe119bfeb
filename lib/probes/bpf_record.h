/*
 * bpf_record.h - the multi backend's ring samples, decoded: BPF output
 * events (PERF_SAMPLE_TID | TIME | RAW), the raw part being {u64 probe
 * id, u64 stack pointer, u64 value, u64 key} (the value and the key only
 * when the probe writes them: 16, 24 or 32 bytes), and for a string
 * argument {s32 length, u32 a Go string's length + 1 (0: up to a NUL),
 * u64 site address, char[OT_RING_STR_MAX]} after the key
 * (lib/probes/uprobe_multi.bpf.c), with sample_id_all.  The backend's
 * rings' decoder (ot_ring.decode); pure, as lib/rings/ring is.
 */
#ifndef OT_BPF_RECORD_H
#define OT_BPF_RECORD_H

#include "rings/ring.h"

#include <linux/perf_event.h>

/* One record: a sample of that layout, any other record as
 * ot_record_parse decodes it.  0, or -EBADMSG (truncated). */
int ot_record_parse_bpf(const struct perf_event_header *rec, struct ot_record *out);

#endif
