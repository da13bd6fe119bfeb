/*
 * inject_sema.c - USDT semaphores under --backend inject (inject_sema.h): the
 * counters in the process's memory raised for each probe with a patched site,
 * lowered again.
 */
#include "inject_sema.h"
#include "inject_state.h"
#include "util/xalloc.h"

#include <sys/stat.h>

/* The address of file offset off of the file at path in the process's
 * writable mapping of it, or 0. */
static uint64_t mapped_rw(const struct ot_inject *in, const char *path, uint64_t off)
{
	struct stat st;
	size_t i;

	if (stat(path, &st))
		return 0;
	for (i = 0; i < in->nmaps; i++) {
		const struct ot_proc_map *m = &in->maps[i];

		if (m->ino == st.st_ino && m->dev == st.st_dev && m->perms[1] == 'w' &&
		    off >= m->off && off + 2 <= m->off + (m->hi - m->lo))
			return m->lo + (off - m->off);
	}
	return 0;
}

void inject_semas_find(struct ot_inject *in, const struct ot_inject_fn *fn, size_t n)
{
	size_t i, k;

	in->semas = ot_xcalloc(n + 1, sizeof(*in->semas));
	in->nsemas = 0;
	for (i = 0; i < n; i++) {
		uint64_t a;

		if (!fn[i].point || !fn[i].sema || fn[i].refused ||
		    !(a = mapped_rw(in, fn[i].path, fn[i].sema)))
			continue;
		for (k = 0; k < in->nsemas && in->semas[k] != a; k++)
			;
		if (k == in->nsemas)
			in->semas[in->nsemas++] = a;
	}
}

size_t inject_semas_add(struct ot_inject *in, int delta)
{
	size_t i, failed = 0;

	for (i = 0; i < in->nsemas; i++) {
		uint16_t v;

		if (ot_tracee_read(in->t, in->semas[i], &v, sizeof(v)) || (delta < 0 && !v)) {
			failed++;
			continue;
		}
		v = (uint16_t)(v + delta);
		failed += ot_tracee_write(in->t, in->semas[i], &v, sizeof(v)) != 0;
	}
	return failed;
}
