/*
 * keyed.c - USDT strings and the rows of pairs' keys (keyed.h).
 */
#include "keyed.h"
#include "process/mapfile.h"
#include "process/procfs.h"
#include "scopes/keys.h"
#include "util/clock.h"
#include "util/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A function pair's entry waiting for its return: by pair, process, key. */
struct fp_open {
	uint64_t key, start;
	uint32_t pid, tid;
	uint16_t fpair;		/* 0: a free slot */
};

/* A function pair's scope to feed the pairing once it is between events. */
struct fp_scope {
	uint64_t start, end;
	uint32_t row, pid, tid;
	uint8_t orphan;		/* a return with no entry open: no start */
};

struct ot_keyed {
	/* Function pairs ("ENTRYFN..RETURNFN@argN"): row sel.n + id - 1 each,
	 * before the USDT pairs' keys' rows, which begin at base. */
	uint32_t nfp;
	size_t base;
	char **fp_label;	/* per fpair id - 1: "ENTRYFN..RETURNFN", owned */
	struct fp_open *open;	/* open addressing, linear probing */
	size_t nopen, open_cap;
	uint64_t *fp_reentered;	/* per fpair id - 1: an open key entered again */
	uint64_t fp_dropped;	/* entries past FP_OPEN_MAX waiting at once */
	struct fp_scope *queue;
	size_t nqueue, queue_cap;
	struct ot_keys *keys;	/* NULL without pairs */
	uint32_t npairs;
	uint32_t *entry;	/* per pair id (1..npairs): its entry probe */
	char **label;		/* per pair id: "usdt:FILE:P:ENTRY..RETURN", owned */
	char **rowname;		/* per row from sel.n: its name, owned */
	uint32_t *row_pair;	/* per row from sel.n: its pair */
	struct ot_report_str *strs;	/* every row's top strings, for the report */
	char **str_name;	/* per selected row with a string: "arg2:str", owned */
	/* The process's mappings at arming: a string's page its file's. */
	struct ot_proc_map *maps;
	size_t nmaps;
	uint64_t maps_at;	/* when read (ns), to read them again at most so often */
	int str_reader;		/* some probe reads a string */
	int mem_fd;		/* the target's /proc/PID/mem, kept open (keep_memory) */
};

/* The maps are read again, for a string outside them, at most this often. */
#define MAPS_AGAIN_NS (100ull * 1000 * 1000)

/* Entries of function pairs waiting at once, at most (then counted). */
#define FP_OPEN_MAX (1u << 20)

/* The function pairs' rows, named "ENTRYFN..RETURNFN" (k->nfp set). */
static void fp_size(struct ot_capture *c)
{
	const struct ot_selection *sel = &c->plan.sel;
	struct ot_keyed *k = c->keyed;
	size_t i, j;

	k->fp_label = ot_xcalloc(k->nfp + 1, sizeof(*k->fp_label));
	k->fp_reentered = ot_xcalloc(k->nfp + 1, sizeof(*k->fp_reentered));
	for (i = 0; i < sel->n; i++) {
		if (sel->fn[i].fpair != OT_SEL_PAIR_ENTRY)
			continue;
		for (j = 0; j < sel->n; j++)
			if (sel->fn[j].fpair == OT_SEL_PAIR_RETURN &&
			    sel->fn[j].fpair_id == sel->fn[i].fpair_id)
				break;
		if (j == sel->n || asprintf(&k->fp_label[sel->fn[i].fpair_id - 1], "%s..%s",
					    sel->fn[i].name, sel->fn[j].name) < 0)
			k->fp_label[sel->fn[i].fpair_id - 1] = ot_xstrdup("?");
		c->names[sel->n + sel->fn[i].fpair_id - 1] = k->fp_label[sel->fn[i].fpair_id - 1];
	}
}

void ot_keyed_size(struct ot_capture *c)
{
	const struct ot_selection *sel = &c->plan.sel;
	struct ot_keyed *k = ot_xcalloc(1, sizeof(*k));
	size_t i, extra;

	c->keyed = k;
	k->mem_fd = -1;
	k->str_name = ot_xcalloc(sel->n + 1, sizeof(*k->str_name));
	for (i = 0; i < sel->n; i++) {
		const struct ot_selected *f = &sel->fn[i];

		if (f->str && (f->arg_name ? asprintf(&k->str_name[i], "%s:str", f->arg_name) :
			       asprintf(&k->str_name[i], "arg%u:str", f->arg)) < 0)
			k->str_name[i] = ot_xstrdup(":str");
		c->keyed_feeds |= f->str || f->pair || f->fpair;
		if (f->fpair_id > k->nfp)
			k->nfp = f->fpair_id;
	}
	for (i = 0; i < sel->n; i++)
		if (sel->fn[i].pair_id > k->npairs)
			k->npairs = sel->fn[i].pair_id;
	extra = k->npairs ? k->npairs + OT_KEYED_ROWS : 0;
	k->base = sel->n + k->nfp;
	c->nrows = k->base + extra;
	c->names = ot_xcalloc(c->nrows + 1, sizeof(*c->names));
	memcpy(c->names, c->plan.names, sel->n * sizeof(*c->names));
	if (k->nfp)
		fp_size(c);
	if (!k->npairs)
		return;
	k->entry = ot_xcalloc(k->npairs + 1, sizeof(*k->entry));
	k->label = ot_xcalloc(k->npairs + 1, sizeof(*k->label));
	for (i = 0; i < sel->n; i++)
		if (sel->fn[i].pair == OT_SEL_PAIR_ENTRY)
			k->entry[sel->fn[i].pair_id] = (uint32_t)i;
	for (i = 0; i < sel->n; i++) {
		const struct ot_selected *f = &sel->fn[i];

		if (f->pair == OT_SEL_PAIR_RETURN &&
		    asprintf(&k->label[f->pair_id], "%s..%s", sel->fn[k->entry[f->pair_id]].label,
			     f->usdt->name) < 0)
			k->label[f->pair_id] = NULL;
	}
	k->rowname = ot_xcalloc(extra, sizeof(*k->rowname));
	k->row_pair = ot_xcalloc(extra, sizeof(*k->row_pair));
	k->keys = ot_keys_new((uint32_t)k->base, OT_KEYED_ROWS, k->npairs);
	/* Overflow rows: what no row of its own was left for. */
	for (i = 0; i < k->npairs; i++) {
		const struct ot_usdt_probe *u = sel->fn[k->entry[i + 1]].usdt;
		size_t x = OT_KEYED_ROWS + i;

		if (asprintf(&k->rowname[x], "%s:(other keys)", u->provider) < 0)
			k->rowname[x] = ot_xstrdup("(other keys)");
		k->row_pair[x] = (uint32_t)i + 1;
		c->names[k->base + x] = k->rowname[x];
	}
}

/* In the file of probe func hit at ip: where a string in its .rodata is
 * when the process is gone (a command's last records). */
static ssize_t file_str(struct ot_capture *c, uint32_t func, uint64_t ip, uint64_t addr,
			char *buf, size_t len)
{
	const struct ot_selected *f;
	size_t k;

	if (func >= c->plan.sel.n || !ip || !(f = &c->plan.sel.fn[func])->usdt)
		return -1;
	/* The load bias is the site's: page-aligned, so the site is the one
	 * whose address differs from ip by whole pages. */
	for (k = 0; k < f->usdt->nsites; k++) {
		uint64_t bias = ip - f->usdt->sites[k].vaddr;

		if (!(bias & 4095))
			return ot_usdt_file_read(f->bin->path, addr - bias, buf, len);
	}
	return -1;
}

/*
 * In the file mapped at addr in process pid when it was armed (it may be
 * gone: its maps were kept, the file's path in our root is tried then):
 * the process chose that file and may have put a link or a FIFO at its
 * name since, so it is read only once proven to be the file mapped
 * (lib/process/mapfile.h), never by its name alone.
 */
static ssize_t mapped_str(const struct ot_keyed *k, pid_t pid, uint64_t addr, char *buf,
			  size_t len)
{
	size_t i;

	for (i = 0; i < k->nmaps; i++) {
		const struct ot_proc_map *m = &k->maps[i];

		if (addr < m->lo || addr >= m->hi || !m->ino || m->path[0] != '/')
			continue;
		return ot_mapfile_pread(pid, m, addr - m->lo + m->off, buf,
					len < m->hi - addr ? len : m->hi - addr);
	}
	return -1;
}

/* Whether addr is in one of the mappings kept. */
static int in_maps(const struct ot_keyed *k, uint64_t addr)
{
	size_t i;

	for (i = 0; i < k->nmaps; i++)
		if (addr >= k->maps[i].lo && addr < k->maps[i].hi)
			return 1;
	return 0;
}

/* len bytes at addr in the target's memory, through the fd kept open
 * (opened again once if that fails and the open succeeds: an exec
 * replaced the memory, and orbit-trace may still open it). */
static ssize_t target_mem(struct ot_capture *c, uint64_t addr, char *buf, size_t len)
{
	struct ot_keyed *k = c->keyed;
	char path[64];
	ssize_t n = -1;
	int fd;

	if (k->mem_fd >= 0 && (n = pread(k->mem_fd, buf, len, (off_t)addr)) > 0)
		return n;
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)c->target.pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return n;
	if (k->mem_fd >= 0)
		close(k->mem_fd);
	k->mem_fd = fd;
	return pread(fd, buf, len, (off_t)addr);
}

/*
 * A string the probe could not read, or did not try: from the process's
 * memory while it lives (reading /proc/PID/mem faults the page in), else
 * from the file mapped there, through the maps kept (read again when a
 * string is found outside them: a library loaded since) or the probe's
 * own file.
 */
static int read_str(void *ctx, uint32_t pid, uint32_t func, uint64_t ip, uint64_t addr,
		    char *buf, size_t len)
{
	struct ot_capture *c = ctx;
	struct ot_keyed *k = c->keyed;
	int target = pid == (uint32_t)c->target.pid;
	char path[64];
	ssize_t n = -1;
	int fd;

	if (target) {
		n = target_mem(c, addr, buf, len);
	} else {
		snprintf(path, sizeof(path), "/proc/%u/mem", pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			n = pread(fd, buf, len, (off_t)addr);
			close(fd);
		}
	}
	if (n > 0 && target && !in_maps(k, addr) && ot_now_ns() >= k->maps_at + MAPS_AGAIN_NS) {
		struct ot_proc_map *maps;
		size_t nmaps;

		if (!ot_proc_maps(c->target.pid, c->target.pid, &maps, &nmaps)) {
			ot_proc_maps_free(k->maps, k->nmaps);
			k->maps = maps;
			k->nmaps = nmaps;
		}
		k->maps_at = ot_now_ns();
	}
	if (n <= 0 && target)
		n = mapped_str(k, c->target.pid, addr, buf, len);
	if (n <= 0)
		n = file_str(c, func, ip, addr, buf, len);
	if (n <= 0)
		return -ENODATA;
	/* A longer string is cut as the probe cuts it (len - 1 bytes). */
	if (!memchr(buf, 0, (size_t)n)) {
		if ((size_t)n < len)
			return -ENODATA;
		buf[len - 1] = 0;
	}
	return 0;
}

/*
 * The target's maps and memory, kept for strings read afterwards: read
 * and opened while orbit-trace may (the capabilities it drops after
 * arming are what a root process's memory needs); what cannot be read
 * now leaves what was kept.
 */
static void keep_memory(struct ot_capture *c)
{
	struct ot_keyed *k = c->keyed;
	struct ot_proc_map *maps;
	char path[64];
	size_t n;
	int fd;

	if (!ot_proc_maps(c->target.pid, c->target.pid, &maps, &n)) {
		ot_proc_maps_free(k->maps, k->nmaps);
		k->maps = maps;
		k->nmaps = n;
	}
	k->maps_at = ot_now_ns();
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)c->target.pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
		if (k->mem_fd >= 0)
			close(k->mem_fd);
		k->mem_fd = fd;
	}
}

int ot_keyed_reads_strs(const struct ot_capture *c)
{
	return c->keyed && c->keyed->str_reader;
}

void ot_keyed_armed(struct ot_capture *c)
{
	size_t i;

	for (i = 0; i < c->plan.sel.n && !c->plan.sel.fn[i].str; i++)
		;
	if (i == c->plan.sel.n)
		return;
	ot_drain_set_str_reader(c->drain, read_str, c);
	c->keyed->str_reader = 1;
	if (c->target.pid > 0)
		keep_memory(c);
}

const char *ot_keyed_str_name(const struct ot_capture *c, size_t i)
{
	return c->keyed && c->keyed->str_name[i] ? c->keyed->str_name[i] : "";
}

void ot_keyed_started(struct ot_capture *c)
{
	struct ot_keyed *k = c->keyed;

	/* Read at once, the command stopped: a short one may be gone before
	 * its strings are drained, and the perf backend's records carry no
	 * site address. */
	if (!k || !k->str_reader)
		return;
	/* What was kept at arming is the command's before its exec. */
	ot_proc_maps_free(k->maps, k->nmaps);
	k->maps = NULL;
	k->nmaps = 0;
	if (k->mem_fd >= 0)
		close(k->mem_fd);
	k->mem_fd = -1;
	keep_memory(c);
}

/* The row of ev's key, named when new. */
static uint32_t key_row(struct ot_capture *c, const struct ot_selected *f,
			const struct ot_event *ev)
{
	struct ot_keyed *k = c->keyed;
	int is_new;
	uint32_t row = ot_keys_row(k->keys, f->pair_id, ev->value, &is_new);
	size_t x = row - k->base;
	const char *s;

	if (!is_new)
		return row;
	s = f->str ? ot_strtab_get(ot_drain_strs(c->drain), (uint32_t)ev->value) : NULL;
	if ((s ? asprintf(&k->rowname[x], "%s:%s", f->usdt->provider, s) :
		 asprintf(&k->rowname[x], "%s:%" PRId64, f->usdt->provider, (int64_t)ev->value)) < 0)
		k->rowname[x] = ot_xstrdup("?");
	k->row_pair[x] = f->pair_id;
	c->names[row] = k->rowname[x];
	return row;
}

static size_t fp_hash(const struct ot_keyed *k, uint16_t fpair, uint32_t pid, uint64_t key)
{
	uint64_t h = (key ^ ((uint64_t)pid << 32) ^ fpair) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 20) & (k->open_cap - 1);
}

/* The slot of (fpair, pid, key): its own, or the free one it would take. */
static size_t fp_slot(const struct ot_keyed *k, uint16_t fpair, uint32_t pid, uint64_t key)
{
	size_t i = fp_hash(k, fpair, pid, key);

	while (k->open[i].fpair && (k->open[i].fpair != fpair || k->open[i].pid != pid ||
				     k->open[i].key != key))
		i = (i + 1) & (k->open_cap - 1);
	return i;
}

/* The table twice as large, every waiting entry moved. */
static void fp_grow(struct ot_keyed *k)
{
	struct fp_open *old = k->open;
	size_t oldcap = k->open_cap, i;

	k->open_cap = oldcap ? 2 * oldcap : 1024;
	k->open = ot_xcalloc(k->open_cap, sizeof(*k->open));
	for (i = 0; i < oldcap; i++)
		if (old[i].fpair)
			k->open[fp_slot(k, old[i].fpair, old[i].pid, old[i].key)] = old[i];
	free(old);
}

/* ENTRYFN's entry: its key waits for the RETURNFN call with the same. */
static void fp_enter(struct ot_keyed *k, const struct ot_selected *f, const struct ot_event *ev)
{
	struct fp_open *o;

	if (2 * (k->nopen + 1) > k->open_cap) {
		if (k->nopen >= FP_OPEN_MAX) {
			k->fp_dropped++;
			return;
		}
		fp_grow(k);
	}
	o = &k->open[fp_slot(k, f->fpair_id, ev->pid, ev->value)];
	if (o->fpair)
		k->fp_reentered[f->fpair_id - 1]++;	/* the older one never closes */
	else
		k->nopen++;
	o->fpair = f->fpair_id;
	o->pid = ev->pid;
	o->key = ev->value;
	o->tid = ev->tid;
	o->start = ev->time;
}

/* Slot i freed, the entries after it in its run moved back (no tombstones). */
static void fp_remove(struct ot_keyed *k, size_t i)
{
	size_t j = i, want;

	k->open[i].fpair = 0;
	k->nopen--;
	for (;;) {
		j = (j + 1) & (k->open_cap - 1);
		if (!k->open[j].fpair)
			return;
		want = fp_hash(k, k->open[j].fpair, k->open[j].pid, k->open[j].key);
		/* j stays unless its home is cyclically outside (i, j]. */
		if (i <= j ? (want > i && want <= j) : (want > i || want <= j))
			continue;
		k->open[i] = k->open[j];
		k->open[j].fpair = 0;
		i = j;
	}
}

static void fp_queue(struct ot_keyed *k, const struct fp_scope *q)
{
	if (k->nqueue == k->queue_cap) {
		k->queue_cap = k->queue_cap ? 2 * k->queue_cap : 16;
		k->queue = ot_xreallocarray(k->queue, k->queue_cap, sizeof(*k->queue));
	}
	k->queue[k->nqueue++] = *q;
}

void ot_keyed_scope(struct ot_capture *c, const struct ot_scope *sc)
{
	struct ot_keyed *k = c->keyed;
	const struct ot_selected *f;
	struct fp_scope q = { 0 };
	size_t i;

	if (!k || !k->nfp || sc->point || sc->func >= c->plan.sel.n)
		return;
	f = &c->plan.sel.fn[sc->func];
	if (f->fpair != OT_SEL_PAIR_RETURN || !sc->has_arg)
		return;
	q.row = (uint32_t)(c->plan.sel.n + f->fpair_id - 1);
	q.pid = sc->pid;
	q.tid = sc->tid;
	q.end = sc->end;
	i = k->open_cap ? fp_slot(k, f->fpair_id, sc->pid, sc->arg) : 0;
	if (!k->open_cap || !k->open[i].fpair) {
		q.orphan = 1;
	} else {
		q.start = k->open[i].start;
		fp_remove(k, i);
	}
	fp_queue(k, &q);
}

void ot_keyed_flush(struct ot_capture *c)
{
	struct ot_keyed *k = c->keyed;
	size_t i;

	for (i = 0; k && i < k->nqueue; i++) {
		const struct fp_scope *q = &k->queue[i];
		struct ot_event e = { .time = q->start, .tid = q->tid, .pid = q->pid,
				      .func = q->row, .kind = OT_EV_ENTRY, .flags = OT_EV_KEYED };

		/* Pushed and closed at once: nothing is left on the thread's
		 * stack for its other calls to meet. */
		if (!q->orphan)
			ot_pair_feed(c->pair, &e);
		e.time = q->end;
		e.kind = OT_EV_RETURN;
		ot_pair_feed(c->pair, &e);
	}
	if (k)
		k->nqueue = 0;
}

void ot_keyed_finish(struct ot_capture *c)
{
	struct ot_keyed *k = c->keyed;
	size_t i;

	ot_keyed_flush(c);
	/* Entries still waiting: open calls of their rows, counted unclosed. */
	for (i = 0; k && i < k->open_cap; i++) {
		const struct fp_open *o = &k->open[i];
		struct ot_event e = { .time = o->start, .tid = o->tid, .pid = o->pid,
				      .kind = OT_EV_ENTRY, .flags = OT_EV_KEYED };

		if (!o->fpair)
			continue;
		e.func = (uint32_t)(c->plan.sel.n + o->fpair - 1);
		ot_pair_feed(c->pair, &e);
	}
}

int ot_keyed_feed(struct ot_capture *c, const struct ot_event *ev)
{
	const struct ot_selected *f;
	struct ot_event e;

	if (ev->func >= c->plan.sel.n)
		return 0;
	f = &c->plan.sel.fn[ev->func];
	/* A pair's ENTRYFN is a counted point: its entry opens the key;
	 * a return (a patching backend sees them all) is none of the pair's. */
	if (f->fpair == OT_SEL_PAIR_ENTRY && (ev->kind == OT_EV_ENTRY || ev->kind == OT_EV_RETURN)) {
		if (ev->kind == OT_EV_RETURN)
			return 1;
		if (ev->has_value)
			fp_enter(c->keyed, f, ev);
		e = *ev;
		e.kind = OT_EV_POINT;	/* its key stays its VALUE row's */
		e.flags = 0;
		ot_pair_feed(c->pair, &e);
		return 1;
	}
	if (ev->kind != OT_EV_POINT && ev->kind != OT_EV_ENTRY)
		return 0;
	/* A function's string: counted here, its call paired by the caller
	 * (its scope carries the id, for --slower-than's lines). */
	if (ev->kind == OT_EV_ENTRY) {
		if (f->str && ev->has_value)
			ot_strtab_count(ot_drain_strs(c->drain), ev->func, (uint32_t)ev->value);
		return 0;
	}
	if (!f->str && !f->pair)
		return 0;
	if (f->str && ev->has_value)
		ot_strtab_count(ot_drain_strs(c->drain), ev->func, (uint32_t)ev->value);
	e = *ev;
	/* The point's hit is counted; its string is counted here, not as a number. */
	e.has_value = f->str ? 0 : ev->has_value;
	ot_pair_feed(c->pair, &e);
	if (!f->pair || !ev->has_value)
		return 1;
	e = *ev;
	e.func = key_row(c, f, ev);
	e.kind = f->pair == OT_SEL_PAIR_ENTRY ? OT_EV_ENTRY : OT_EV_RETURN;
	e.flags = OT_EV_KEYED;
	e.has_value = 0;
	ot_pair_feed(c->pair, &e);
	return 1;
}

size_t ot_keyed_nreport(const struct ot_capture *c)
{
	const struct ot_keyed *k = c->keyed;

	if (!k)
		return c->plan.sel.n;
	if (!k->keys)
		return k->base;
	/* The overflow rows follow the keys' once those are all taken. */
	return k->base + ot_keys_used(k->keys) +
	       (ot_keys_overflowed(k->keys) ? k->npairs : 0);
}

/* Row i's strings into fn[i]. */
static void row_strs(struct ot_capture *c, struct ot_report_func *fn, size_t i,
		     struct ot_report_str *out)
{
	struct ot_strtab_hit top[OT_KEYED_TOP_STRS];
	const struct ot_strtab *t = ot_drain_strs(c->drain);
	size_t n, j;

	n = ot_strtab_top(t, (uint32_t)i, top, OT_KEYED_TOP_STRS, &fn->strs_distinct);
	for (j = 0; j < n; j++) {
		out[j].value = ot_strtab_get(t, top[j].id);
		out[j].count = top[j].count;
	}
	fn->strs = out;
	fn->nstrs = n;
}

void ot_keyed_report(struct ot_capture *c, struct ot_report_func *fn)
{
	const struct ot_selection *sel = &c->plan.sel;
	struct ot_keyed *k = c->keyed;
	size_t i, n = ot_keyed_nreport(c);

	free(k->strs);
	k->strs = ot_xcalloc(sel->n * OT_KEYED_TOP_STRS + 1, sizeof(*k->strs));
	for (i = 0; i < sel->n; i++) {
		if (!sel->fn[i].str)
			continue;
		row_strs(c, &fn[i], i, &k->strs[i * OT_KEYED_TOP_STRS]);
		fn[i].strs_name = k->str_name[i];
	}
	for (i = 0; i < sel->n && !sel->fn[i].str; i++)
		;
	if (i < sel->n) {
		c->rep_strs.any = 1;
		ot_drain_str_stats(c->drain, &c->rep_strs.probe, &c->rep_strs.late,
				   &c->rep_strs.unreadable);
	}
	for (i = sel->n; i < k->base; i++) {
		const struct ot_selected *e = NULL;
		size_t j;

		for (j = 0; j < sel->n && !e; j++)
			if (sel->fn[j].fpair == OT_SEL_PAIR_ENTRY &&
			    sel->fn[j].fpair_id == i - sel->n + 1)
				e = &sel->fn[j];
		fn[i].name = c->names[i];
		fn[i].symbol = c->names[i];
		fn[i].binary = e ? e->bin->file : "";
		fn[i].st = ot_tables_stats(c->tables, i);
		fn[i].pair = c->names[i];
	}
	for (i = k->base; i < n; i++) {
		const struct ot_selected *e = &sel->fn[k->entry[k->row_pair[i - k->base]]];

		fn[i].name = c->names[i];
		fn[i].symbol = c->names[i];
		fn[i].binary = e->bin->file;
		fn[i].st = ot_tables_stats(c->tables, i);
		fn[i].pair = k->label[k->row_pair[i - k->base]] ? k->label[k->row_pair[i - k->base]]
							      : e->label;
	}
}

/* Function pairs' reasons: their orphans, keys entered twice, entries
 * past the table's room. */
static void fp_judge(struct ot_capture *c)
{
	struct ot_keyed *k = c->keyed;
	char why[512];
	size_t i;

	for (i = 0; i < k->nfp; i++) {
		uint64_t orphans = ot_tables_stats(c->tables, c->plan.sel.n + i)->orphans;

		if (orphans) {
			snprintf(why, sizeof(why), "%s: %" PRIu64 " return%s with a key no entry "
				 "had opened (orphans: entered before the capture began, or the "
				 "entry was lost): no scope is made of them", c->names[c->plan.sel.n + i],
				 orphans, orphans == 1 ? "" : "s");
			ot_check_add(&c->check, OT_STATUS_LOSSY, why);
		}
		if (k->fp_reentered[i]) {
			snprintf(why, sizeof(why), "%s: %" PRIu64 " entr%s with a key already open "
				 "in the process: the earlier entry's scope is not counted",
				 c->names[c->plan.sel.n + i], k->fp_reentered[i],
				 k->fp_reentered[i] == 1 ? "y" : "ies");
			ot_check_add(&c->check, OT_STATUS_LOSSY, why);
		}
	}
	if (k->fp_dropped) {
		snprintf(why, sizeof(why), "%" PRIu64 " entries of function pairs found %u keys "
			 "waiting already: not kept, their scopes not counted", k->fp_dropped,
			 FP_OPEN_MAX);
		ot_check_add(&c->check, OT_STATUS_LOSSY, why);
	}
}

void ot_keyed_judge(struct ot_capture *c)
{
	struct ot_keyed *k = c->keyed;
	uint64_t orphans = 0, probe, late, unreadable;
	size_t i, n = ot_keyed_nreport(c);
	char why[256];

	for (i = k->base; i < n; i++)
		orphans += ot_tables_stats(c->tables, i)->orphans;
	if (orphans) {
		snprintf(why, sizeof(why), "%" PRIu64 " return%s of a pair of probes came with no "
			 "entry open (orphans): its entry probe did not fire or was lost, and no "
			 "scope is made of them", orphans, orphans == 1 ? "" : "s");
		ot_check_add(&c->check, OT_STATUS_LOSSY, why);
	}
	fp_judge(c);
	if (k->keys && ot_keys_overflowed(k->keys)) {
		snprintf(why, sizeof(why), "%" PRIu64 " hits of pairs' probes had keys past the "
			 "first %d: counted in their pair's (other keys) row",
			 ot_keys_overflowed(k->keys), OT_KEYED_ROWS);
		ot_check_add(&c->check, OT_STATUS_LOSSY, why);
	}
	ot_drain_str_stats(c->drain, &probe, &late, &unreadable);
	if (unreadable) {
		snprintf(why, sizeof(why), "%" PRIu64 " string argument%s could not be read, in "
			 "the moment or afterwards: shown as <unreadable ADDRESS>", unreadable,
			 unreadable == 1 ? "" : "s");
		ot_check_add(&c->check, OT_STATUS_LOSSY, why);
	}
}

void ot_keyed_free(struct ot_capture *c)
{
	struct ot_keyed *k = c->keyed;
	size_t i;

	free(c->names);
	c->names = NULL;
	if (!k)
		return;
	for (i = 0; k->rowname && i < c->nrows - k->base; i++)
		free(k->rowname[i]);
	for (i = 0; k->fp_label && i < k->nfp; i++)
		free(k->fp_label[i]);
	free(k->fp_label);
	free(k->fp_reentered);
	free(k->open);
	free(k->queue);
	free(k->rowname);
	free(k->row_pair);
	for (i = 0; k->label && i <= k->npairs; i++)
		free(k->label[i]);
	free(k->label);
	free(k->entry);
	free(k->strs);
	for (i = 0; k->str_name && i < c->plan.sel.n; i++)
		free(k->str_name[i]);
	free(k->str_name);
	if (k->mem_fd >= 0)
		close(k->mem_fd);
	ot_keys_free(k->keys);
	ot_proc_maps_free(k->maps, k->nmaps);
	free(k);
	c->keyed = NULL;
}
