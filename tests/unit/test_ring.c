/*
 * Ring reader and record decoding, on rings laid out in ordinary memory
 * exactly as the kernel lays out a perf mmap: a control page, then a
 * power-of-two data area that records wrap around.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/probes/bpf_record.h"
#include "lib/rings/ring.h"

#define PAGE 4096
#define DATA 256 /* small, so a handful of records wrap */

struct fake {
	unsigned char *mem;
	struct ot_ring ring;
	uint64_t head; /* the kernel's write position */
};

static void fake_init(struct fake *f, uint64_t start)
{
	f->mem = calloc(1, PAGE + DATA);
	assert_non_null(f->mem);
	assert_int_equal(ot_ring_init(&f->ring, f->mem, PAGE, DATA), 0);
	f->head = start;
	f->ring.meta->data_tail = start;
	f->ring.meta->data_head = start;
}

static void fake_fini(struct fake *f)
{
	ot_ring_fini(&f->ring);
	free(f->mem);
}

/* Write bytes at the head, wrapping, as the kernel does. */
static void fake_write(struct fake *f, const void *src, size_t len)
{
	const unsigned char *p = src;
	size_t i;

	for (i = 0; i < len; i++)
		f->ring.data[(f->head + i) % DATA] = p[i];
	f->head += len;
}

static void fake_publish(struct fake *f)
{
	__atomic_store_n(&f->ring.meta->data_head, f->head, __ATOMIC_RELEASE);
}

struct sample48 {
	struct perf_event_header h;
	uint64_t id;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t abi;
	uint64_t sp;
};

static void put_sample(struct fake *f, uint64_t id, uint32_t tid, uint64_t t,
		       uint64_t sp)
{
	struct sample48 s = {
		.h = { .type = PERF_RECORD_SAMPLE, .size = sizeof(s) },
		.id = id, .pid = 100, .tid = tid, .time = t,
		.abi = PERF_SAMPLE_REGS_ABI_64, .sp = sp,
	};

	fake_write(f, &s, sizeof(s));
}

struct collected {
	struct ot_record rec[64];
	int bad;
	size_t n;
};

static void collect(void *ctx, const struct perf_event_header *hdr)
{
	struct collected *c = ctx;

	if (ot_record_parse(hdr, &c->rec[c->n]))
		c->bad++;
	c->n++;
}

static void test_records_in_order(void **state)
{
	struct collected c = { 0 };
	struct fake f;

	(void)state;
	fake_init(&f, 0);
	put_sample(&f, 7, 11, 1000, 0x7ffd0000);
	put_sample(&f, 8, 12, 1001, 0x7ffd0100);
	fake_publish(&f);
	assert_int_equal(ot_ring_drain(&f.ring, collect, &c), 2);
	assert_int_equal(c.bad, 0);
	assert_int_equal(c.rec[0].type, OT_REC_SAMPLE);
	assert_int_equal(c.rec[0].id, 7);
	assert_int_equal(c.rec[0].pid, 100);
	assert_int_equal(c.rec[0].tid, 11);
	assert_int_equal(c.rec[0].time, 1000);
	assert_int_equal(c.rec[0].sp, 0x7ffd0000);
	assert_true(c.rec[0].has_sp);
	assert_int_equal(c.rec[1].tid, 12);
	/* The tail is handed back to the kernel. */
	assert_int_equal(f.ring.meta->data_tail, 2 * sizeof(struct sample48));
	/* Nothing new: nothing read. */
	assert_int_equal(ot_ring_drain(&f.ring, collect, &c), 0);
	fake_fini(&f);
}

static void test_record_wraps_around_end(void **state)
{
	struct collected c = { 0 };
	struct fake f;
	int i;

	(void)state;
	/* Start 24 bytes before the end: the first record straddles it. */
	fake_init(&f, 1000 * DATA - 24);
	for (i = 0; i < 4; i++)
		put_sample(&f, 1, 5, 100 + (uint64_t)i, 0x1000 - 16 * (uint64_t)i);
	fake_publish(&f);
	assert_int_equal(ot_ring_drain(&f.ring, collect, &c), 4);
	assert_int_equal(c.bad, 0);
	for (i = 0; i < 4; i++) {
		assert_int_equal(c.rec[i].time, 100 + (uint64_t)i);
		assert_int_equal(c.rec[i].sp, 0x1000 - 16 * (uint64_t)i);
	}
	assert_int_equal(f.ring.malformed, 0);
	fake_fini(&f);
}

static void test_lost_record(void **state)
{
	struct {
		struct perf_event_header h;
		uint64_t id, lost;
		uint32_t pid, tid;
		uint64_t time, ident;
	} lost = {
		.h = { .type = PERF_RECORD_LOST, .size = sizeof(lost) },
		.id = 9, .lost = 1234, .pid = 100, .tid = 101, .time = 5555,
		.ident = 9,
	};
	struct collected c = { 0 };
	struct fake f;

	(void)state;
	fake_init(&f, 0);
	fake_write(&f, &lost, sizeof(lost));
	fake_publish(&f);
	assert_int_equal(ot_ring_drain(&f.ring, collect, &c), 1);
	assert_int_equal(c.rec[0].type, OT_REC_LOST);
	assert_int_equal(c.rec[0].lost, 1234);
	assert_int_equal(c.rec[0].time, 5555);
	fake_fini(&f);
}

/* The multi backend's sample as the kernel writes it for the BPF output
 * event: TID, TIME, then RAW = u32 size + the program's 16 bytes + 4 of
 * padding; and its PERF_RECORD_LOST, whose sample_id has no identifier. */
/*
 * A BPF output sample as the kernel writes it: header, {pid, tid}, time,
 * the raw part's size, then the raw part {id, sp[, value]} (raw 16 or 24),
 * the rest of the size bytes 0xee.
 */
static void bpf_sample(unsigned char *rec, uint16_t size, uint32_t raw, uint64_t id,
		       uint64_t sp, uint64_t value)
{
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = size };
	uint32_t pid = 100, tid = 101;
	uint64_t t = 123456789;

	memset(rec, 0xee, size);
	memcpy(rec, &h, 8);
	memcpy(rec + 8, &pid, 4);
	memcpy(rec + 12, &tid, 4);
	memcpy(rec + 16, &t, 8);
	memcpy(rec + 24, &raw, 4);
	memcpy(rec + 28, &id, 8);
	memcpy(rec + 36, &sp, 8);
	if (raw >= 24)
		memcpy(rec + 44, &value, 8);
}

static void test_bpf_sample_layout(void **state)
{
	unsigned char rec[48];
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = 48 };
	uint32_t raw;
	struct {
		struct perf_event_header h;
		uint64_t id, lost;
		uint32_t pid, tid;
		uint64_t time;
	} lost = {
		.h = { .type = PERF_RECORD_LOST, .size = sizeof(lost) },
		.id = 3, .lost = 42, .pid = 100, .tid = 101, .time = 999,
	};
	struct ot_record r;

	(void)state;
	bpf_sample(rec, sizeof(rec), 20, 77, 0x7ffc0000fff8ull, 0);
	assert_int_equal(ot_record_parse_bpf((void *)rec, &r), 0);
	assert_false(r.has_value);	/* an older program's {id, sp} */
	assert_int_equal(r.type, OT_REC_SAMPLE);
	assert_int_equal(r.pid, 100);
	assert_int_equal(r.tid, 101);
	assert_int_equal(r.time, 123456789);
	assert_int_equal(r.id, 77);
	assert_true(r.has_sp);
	assert_int_equal(r.sp, 0x7ffc0000fff8ull);

	/* A raw part too short for {id, sp}, or longer than the record. */
	raw = 8;
	memcpy(rec + 24, &raw, 4);
	assert_int_equal(ot_record_parse_bpf((void *)rec, &r), -EBADMSG);
	raw = 60;
	memcpy(rec + 24, &raw, 4);
	assert_int_equal(ot_record_parse_bpf((void *)rec, &r), -EBADMSG);
	h.size = 40;
	memcpy(rec, &h, 8);
	assert_int_equal(ot_record_parse_bpf((void *)rec, &r), -EBADMSG);

	assert_int_equal(ot_record_parse_bpf(&lost.h, &r), 0);
	assert_int_equal(r.type, OT_REC_LOST);
	assert_int_equal(r.lost, 42);
	assert_int_equal(r.time, 999);
	assert_int_equal(r.tid, 101);
}

/*
 * Values: the multi backend's 24-byte raw part carries the register the
 * cookie named; a perf sample with ot_ring_value_regs() carries them all,
 * in the kernel's bit order.
 */
#if defined(__x86_64__)
#define NREGS 16
#include "lib/rings/kinds.h"
#else
#define NREGS 7
#endif
static void test_value_records(void **state)
{
	unsigned char rec[56];
	uint64_t v = 0;
	struct {
		struct perf_event_header h;
		uint64_t id;
		uint32_t pid, tid;
		uint64_t time, abi, regs[NREGS];
	} perf = {
		.h = { .type = PERF_RECORD_SAMPLE, .size = sizeof(perf) },
		.id = 3, .pid = 100, .tid = 101, .time = 7, .abi = PERF_SAMPLE_REGS_ABI_64,
	};
	struct ot_record r;
	int i;

	(void)state;
	bpf_sample(rec, sizeof(rec), 24, 9, 0x7ff0, (uint64_t)-1);
	assert_int_equal(ot_record_parse_bpf((void *)rec, &r), 0);
	assert_true(r.has_value);
	assert_int_equal(ot_record_value(&r, 3, &v), 0); /* whichever was asked */
	assert_int_equal(v, (uint64_t)-1);

	for (i = 0; i < NREGS; i++)
		perf.regs[i] = 0x100 + (uint64_t)i;
	assert_int_equal(ot_record_parse_regs(&perf.h, &r, ot_ring_value_regs()), 0);
	assert_true(r.has_regs);
	assert_false(r.has_value);
#if defined(__x86_64__)
	/* ax, bx, cx, dx, si, di, bp, sp, r8 ... r15 */
	assert_int_equal(r.sp, 0x107);
	assert_int_equal(ot_record_value(&r, 1, &v), 0);
	assert_int_equal(v, 0x105);	/* rdi */
	assert_int_equal(ot_record_value(&r, 2, &v), 0);
	assert_int_equal(v, 0x104);	/* rsi */
	assert_int_equal(ot_record_value(&r, 4, &v), 0);
	assert_int_equal(v, 0x102);	/* rcx */
	assert_int_equal(ot_record_value(&r, 6, &v), 0);
	assert_int_equal(v, 0x109);	/* r9 */
	assert_int_equal(ot_record_value(&r, 15, &v), 0);
	assert_int_equal(v, 0x100);	/* rax */
	/* A USDT operand by perf number, sized: %rbx; -4@%r15d; 1@%ah. */
	assert_int_equal(ot_record_value(&r, OT_VALUE_REG(1), &v), 0);
	assert_int_equal(v, 0x101);
	perf.regs[15] = 0xfffffffe;	/* r15 */
	perf.regs[0] = 0x1234;		/* rax */
	assert_int_equal(ot_record_parse_regs(&perf.h, &r, ot_ring_value_regs()), 0);
	assert_int_equal(ot_record_value(&r, OT_VALUE_REG(23) | OT_VALUE_REG_SIZE(4, 1, 0), &v), 0);
	assert_int_equal((int64_t)v, -2);
	assert_int_equal(ot_record_value(&r, OT_VALUE_REG(23) | OT_VALUE_REG_SIZE(4, 0, 0), &v), 0);
	assert_int_equal(v, 0xfffffffe);
	assert_int_equal(ot_record_value(&r, OT_VALUE_REG(0) | OT_VALUE_REG_SIZE(1, 0, 1), &v), 0);
	assert_int_equal(v, 0x12);
#endif
	/* Without the registers (a plain SP sample) there is no value. */
	assert_int_equal(ot_record_parse_regs(&perf.h, &r, 0), 0);
	assert_int_equal(ot_record_value(&r, 1, &v), -ENOENT);
	/* Registers cut short are a malformed record. */
	perf.h.size -= 8;
	assert_int_equal(ot_record_parse_regs(&perf.h, &r, ot_ring_value_regs()), -EBADMSG);
}

/*
 * A string argument's record (uprobe_multi.bpf.c's ot_bpf_str_sample): the
 * 32-byte raw part (its key 0: no Go function's), then the length the
 * program read (< 0: not then), the site's address and 64 bytes; the
 * string points into the record.
 */
static void test_string_records(void **state)
{
	unsigned char rec[144];
	int32_t len = 4, fail = -14;
	uint64_t ip = 0x55550000123eull, key = 0;
	struct ot_record r;

	(void)state;
	bpf_sample(rec, sizeof(rec), 112, 9, 0x7ff0, 0x5555000a0004ull);
	memcpy(rec + 52, &key, 8);
	memcpy(rec + 60, &len, 4);
	memcpy(rec + 68, &ip, 8);
	memcpy(rec + 76, "fib", 4);
	assert_int_equal(ot_record_parse_bpf((void *)rec, &r), 0);
	assert_true(r.has_value && r.has_str);
	assert_int_equal(r.value, 0x5555000a0004ull);
	assert_int_equal(r.str_len, 4);
	assert_int_equal(r.str_ip, ip);
	assert_string_equal(r.str, "fib");
	assert_int_equal(r.key, 0);
	memcpy(rec + 60, &fail, 4);
	assert_int_equal(ot_record_parse_bpf((void *)rec, &r), 0);
	assert_int_equal(r.str_len, -14);
	/* The common record carries none. */
	bpf_sample(rec, 56, 24, 9, 0x7ff0, 1);
	assert_int_equal(ot_record_parse_bpf((void *)rec, &r), 0);
	assert_false(r.has_str);
	/* A raw part longer than its record is malformed. */
	bpf_sample(rec, 64, 112, 9, 0x7ff0, 1);
	assert_int_equal(ot_record_parse_bpf((void *)rec, &r), -EBADMSG);
}

/*
 * A Go function's record: {id, sp, value, key}, the key the goroutine
 * (g) the program read from R14, the SP its distance below the stack's
 * top; the common records carry key 0, the thread's.
 */
static void test_go_records(void **state)
{
	unsigned char rec[64];
	uint64_t g = 0xc000007380ull;
	struct ot_record r;

	(void)state;
	bpf_sample(rec, 64, 32, 9 | 1ull << 49, (1ull << 62) - 0x1f8, 0);
	memcpy(rec + 52, &g, 8);
	assert_int_equal(ot_record_parse_bpf((void *)rec, &r), 0);
	assert_int_equal(r.key, g);
	assert_int_equal(r.sp, (1ull << 62) - 0x1f8);
	bpf_sample(rec, 56, 24, 9, 0x7ff0, 1);
	assert_int_equal(ot_record_parse_bpf((void *)rec, &r), 0);
	assert_int_equal(r.key, 0);
}

static void test_truncated_record_rejected(void **state)
{
	struct sample48 s = {
		.h = { .type = PERF_RECORD_SAMPLE, .size = 32 }, /* id, tid, time only */
	};
	struct ot_record rec;

	(void)state;
	assert_int_equal(ot_record_parse(&s.h, &rec), -EBADMSG);
	s.h.size = 40; /* abi says regs follow, but they do not */
	s.abi = PERF_SAMPLE_REGS_ABI_64;
	assert_int_equal(ot_record_parse(&s.h, &rec), -EBADMSG);
	s.abi = PERF_SAMPLE_REGS_ABI_NONE; /* a kernel thread: no regs, fine */
	assert_int_equal(ot_record_parse(&s.h, &rec), 0);
	assert_false(rec.has_sp);
}

static void test_corrupt_header_skips_rest(void **state)
{
	struct perf_event_header bad = { .type = PERF_RECORD_SAMPLE, .size = 0 };
	struct collected c = { 0 };
	struct fake f;

	(void)state;
	fake_init(&f, 0);
	put_sample(&f, 1, 2, 3, 4);
	fake_write(&f, &bad, sizeof(bad));
	put_sample(&f, 1, 2, 3, 4);
	fake_publish(&f);
	assert_int_equal(ot_ring_drain(&f.ring, collect, &c), 1);
	assert_int_equal(f.ring.malformed, 1);
	/* The reader does not spin on the bad record: the ring is released. */
	assert_int_equal(f.ring.meta->data_tail, f.head);
	fake_fini(&f);
}

static void test_other_record_types_ignored(void **state)
{
	struct {
		struct perf_event_header h;
		uint64_t pad[2];
	} mmap_rec = { .h = { .type = PERF_RECORD_MMAP, .size = sizeof(mmap_rec) } };
	struct ot_record rec;

	(void)state;
	assert_int_equal(ot_record_parse(&mmap_rec.h, &rec), 0);
	assert_int_equal(rec.type, OT_REC_OTHER);
}

/* -a on perf: an exec's comm record names its process (then sample_id). */
static void test_comm_record(void **state)
{
	struct {
		struct perf_event_header h;
		uint32_t pid, tid;
		char comm[16];
		uint64_t sample_id[3];
	} c = { .h = { .type = PERF_RECORD_COMM, .size = sizeof(c) }, .pid = 42, .tid = 42,
		.comm = "a-name-of-15-ch" };
	struct perf_event_header cut = { .type = PERF_RECORD_COMM, .size = sizeof(cut) };
	struct ot_record rec;

	(void)state;
	memset(c.sample_id, 0xff, sizeof(c.sample_id));	/* never read as the name */
	assert_int_equal(ot_record_parse(&c.h, &rec), 0);
	assert_int_equal(rec.type, OT_REC_COMM);
	assert_int_equal(rec.pid, 42);
	assert_string_equal(rec.comm, "a-name-of-15-ch");
	memcpy(c.comm, "sh\0\0\0\0\0\0", 8);
	c.h.size = sizeof(c.h) + 8 + 8;	/* without sample_id */
	assert_int_equal(ot_record_parse(&c.h, &rec), 0);
	assert_string_equal(rec.comm, "sh");
	assert_int_equal(ot_record_parse(&cut, &rec), -EBADMSG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_records_in_order),
		cmocka_unit_test(test_record_wraps_around_end),
		cmocka_unit_test(test_lost_record),
		cmocka_unit_test(test_bpf_sample_layout),
		cmocka_unit_test(test_value_records),
		cmocka_unit_test(test_string_records),
		cmocka_unit_test(test_truncated_record_rejected),
		cmocka_unit_test(test_corrupt_header_skips_rest),
		cmocka_unit_test(test_other_record_types_ignored),
		cmocka_unit_test(test_comm_record),
		cmocka_unit_test(test_go_records),
	};

	return cmocka_run_group_tests_name("ring", tests, NULL, NULL);
}
