/*
 * inject_pad.c - the runtime's system-call gadget, copied for a moment into
 * the padding after a file's executable segment (inject_pad.h): the calls
 * made while no region of ours exists run there, never stepped.
 */
#include "inject_pad.h"
#include "inject_state.h"
#include "util/xalloc.h"

#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PAD_MAX_PHDRS 64

/* The gadget and the registers it reloads: one block of the runtime. */
static size_t block_len(void)
{
	return RT_OFF(ot_inj_rt_saved) + sizeof(struct ot_tracee_saved) - RT_OFF(ot_inj_rt_syscall);
}

/* The mapping of m's file at offset 0 (its ELF header), or NULL. */
static const struct ot_proc_map *file_head(const struct ot_inject *in, const struct ot_proc_map *m)
{
	size_t i;

	for (i = 0; i < in->nmaps; i++)
		if (in->maps[i].ino == m->ino && in->maps[i].dev == m->dev && !in->maps[i].off)
			return &in->maps[i];
	return NULL;
}

/* Whether [lo, hi) meets a segment of ph[n] (bias added). */
static int in_a_segment(const Elf64_Phdr *ph, size_t n, uint64_t bias, uint64_t lo, uint64_t hi)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (ph[i].p_type == PT_LOAD && bias + ph[i].p_vaddr < hi &&
		    bias + ph[i].p_vaddr + ph[i].p_memsz > lo)
			return 1;
	return 0;
}

/*
 * In the executable mapping m, room for len bytes after the end of an
 * executable segment, in its last page and in no segment (the file's
 * program headers as the process maps them): the address, or 0.
 */
static uint64_t room_in(struct ot_inject *in, const struct ot_proc_map *m, size_t len)
{
	const struct ot_proc_map *head = file_head(in, m);
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), bias = 0, lo = UINT64_MAX;
	Elf64_Phdr ph[PAD_MAX_PHDRS];
	Elf64_Ehdr eh;
	size_t i, n;

	if (!head || ot_tracee_read(in->t, head->lo, &eh, sizeof(eh)) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || !eh.e_phnum || eh.e_phnum > PAD_MAX_PHDRS ||
	    eh.e_phoff + (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr) > head->hi - head->lo)
		return 0;
	n = eh.e_phnum;
	if (ot_tracee_read(in->t, head->lo + eh.e_phoff, ph, n * sizeof(*ph)))
		return 0;
	for (i = 0; i < n; i++)
		if (ph[i].p_type == PT_LOAD && ph[i].p_vaddr < lo)
			lo = ph[i].p_vaddr;
	if (lo == UINT64_MAX)
		return 0;
	bias = head->lo - (lo & ~(page - 1));
	for (i = 0; i < n; i++) {
		uint64_t end = bias + ph[i].p_vaddr + ph[i].p_memsz;
		uint64_t at = (end + 15) & ~15ull, page_end = (end + page - 1) & ~(page - 1);

		if (ph[i].p_type != PT_LOAD || !(ph[i].p_flags & PF_X) || at + len > page_end ||
		    at < m->lo || page_end > m->hi || in_a_segment(ph, n, bias, end, page_end))
			continue;
		return at;
	}
	return 0;
}

int inject_pad_set(struct ot_inject *in)
{
	size_t len = block_len(), i;
	uint64_t at = 0;
	int ret;

	inject_pad_clear(in);
	for (i = 0; i < in->nmaps && !at; i++) {
		const struct ot_proc_map *m = &in->maps[i];

		/* Private: a write to a shared mapping would reach the file. */
		if (m->perms[2] == 'x' && m->perms[1] != 'w' && m->perms[3] == 'p' && m->ino)
			at = room_in(in, m, len);
	}
	if (!at)
		return -ENOSPC;
	in->pad_orig = ot_xmalloc(len);
	ret = ot_tracee_read(in->t, at, in->pad_orig, len);
	if (!ret)
		ret = ot_tracee_write(in->t, at, ot_inj_rt_syscall, len);
	if (ret) {
		/* Half written: put back what was read. */
		ot_tracee_write(in->t, at, in->pad_orig, len);
		free(in->pad_orig);
		in->pad_orig = NULL;
		return ret;
	}
	in->pad = at;
	in->t->gadget = at;
	in->t->gadget_saved = at + RT_OFF(ot_inj_rt_saved) - RT_OFF(ot_inj_rt_syscall);
	return 0;
}

void inject_pad_clear(struct ot_inject *in)
{
	if (!in->pad)
		return;
	if (in->t->gadget == in->pad)
		in->t->gadget = in->t->gadget_saved = 0;
	ot_tracee_write(in->t, in->pad, in->pad_orig, block_len());
	free(in->pad_orig);
	in->pad_orig = NULL;
	in->pad = 0;
}
