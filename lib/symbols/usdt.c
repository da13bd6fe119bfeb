/*
 * usdt.c - USDT probes (usdt.h): a file's .note.stapsdt notes read with libelf
 * and gathered per provider:name, and their argument specs parsed (the
 * operands by the machine's own reader, lib/arch).
 */
#include "usdt.h"
#include "arch/arch.h"
#include "elffile.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int ot_usdt_arg_parse(const char *spec, struct ot_usdt_arg *out, char *why, size_t whylen)
{
	const char *p = spec, *at = strchr(spec, '@');
	struct ot_usdt_arg a = { .size = 8, .reg = -1, .idx = -1 };
	char *end;
	int r;

	if (at) {
		long n = strtol(spec, &end, 10);

		if (end != at || (labs(n) != 1 && labs(n) != 2 && labs(n) != 4 && labs(n) != 8)) {
			snprintf(why, whylen, "'%s': the size before '@' is not 1, 2, 4 or 8 "
				 "(negative: signed)", spec);
			return -EINVAL;
		}
		a.size = (uint8_t)labs(n);
		a.is_signed = n < 0;
		p = at + 1;
	}
	/* The operand itself is in the machine's assembler syntax. */
	if ((r = ot_arch_usdt_operand(spec, p, &a, why, whylen)))
		return r;
	*out = a;
	return 0;
}

const char *ot_usdt_reg_name(int reg)
{
	return ot_arch_usdt_reg_name(reg);
}

int ot_usdt_args_parse(const char *specs, struct ot_usdt_arg *out, size_t max, char *why,
		       size_t whylen)
{
	char *copy = ot_xstrdup(specs), *save = NULL, *tok;
	int n = 0, ret = 0;

	for (tok = strtok_r(copy, " \t", &save); tok && !ret; tok = strtok_r(NULL, " \t", &save)) {
		if ((size_t)n == max) {
			snprintf(why, whylen, "more than %zu arguments", max);
			ret = -E2BIG;
		} else {
			ret = ot_usdt_arg_parse(tok, &out[n], why, whylen);
			n += !ret;
		}
	}
	free(copy);
	return ret ? ret : n;
}

int ot_usdt_file_read(const char *path, uint64_t vaddr, char *buf, size_t len)
{
	struct ot_elf_file *f;
	uint64_t off, left;
	ssize_t ret = ot_elf_file_open(path, 0, &f);
	size_t n;

	if (ret)
		return (int)ret;
	if (elf_getphdrnum(ot_elf_file_elf(f), &n))
		ret = -ENOEXEC;
	else if (ot_elf_file_offset(f, vaddr, 1, &off, &left))
		ret = -ENOENT;
	else
		ret = ot_elf_file_pread(f, buf, len < left ? len : (size_t)left, off);
	ot_elf_file_close(f);
	return (int)ret;
}

/* The probe named provider:name in n, added if new. */
static struct ot_usdt_probe *probe_of(struct ot_usdt_notes *n, const char *provider,
				      const char *name)
{
	struct ot_usdt_probe *p;
	size_t i;

	for (i = 0; i < n->n; i++)
		if (!strcmp(n->probe[i].provider, provider) && !strcmp(n->probe[i].name, name))
			return &n->probe[i];
	n->probe = ot_xreallocarray(n->probe, n->n + 1, sizeof(*n->probe));
	p = &n->probe[n->n++];
	memset(p, 0, sizeof(*p));
	p->provider = ot_xstrdup(provider);
	p->name = ot_xstrdup(name);
	return p;
}

/*
 * One NT_STAPSDT note's descriptor: pc, base, semaphore (8 bytes each),
 * then provider, name and arguments, each NUL-terminated.  stapsdt_base:
 * where the file's .stapsdt.base is (0: none), the note's base where it was.
 */
static int one_note(const struct ot_elf_file *f, const char *desc, size_t len, uint64_t stapsdt_base,
		    struct ot_usdt_notes *out)
{
	uint64_t pc, base, sema;
	const char *prov, *name, *args, *end = desc + len;
	struct ot_usdt_probe *p;
	struct ot_usdt_site *s;
	uint64_t off;

	if (len < 3 * 8 + 3)
		return -EINVAL;
	memcpy(&pc, desc, 8);
	memcpy(&base, desc + 8, 8);
	memcpy(&sema, desc + 16, 8);
	prov = desc + 24;
	if (!(name = memchr(prov, 0, (size_t)(end - prov))))
		return -EINVAL;
	name++;
	if (!(args = memchr(name, 0, (size_t)(end - name))))
		return -EINVAL;
	args++;
	if (!memchr(args, 0, (size_t)(end - args)))
		return -EINVAL;
	/* Prelink moved the file: the pc and the semaphore moved with it. */
	if (stapsdt_base && base) {
		pc += stapsdt_base - base;
		if (sema)
			sema += stapsdt_base - base;
	}
	if (ot_elf_file_offset(f, pc, 0, &off, NULL))
		return -EINVAL;
	p = probe_of(out, prov, name);
	p->sites = ot_xreallocarray(p->sites, p->nsites + 1, sizeof(*p->sites));
	s = &p->sites[p->nsites++];
	s->vaddr = pc;
	s->offset = off;
	s->args = ot_xstrdup(args);
	if (sema && !p->sema_vaddr) {
		uint64_t so;

		if (ot_elf_file_offset(f, sema, 0, &so, NULL))
			return -EINVAL;
		p->sema_vaddr = sema;
		p->sema_offset = so;
	}
	return 0;
}

/* Every note of type 3 named "stapsdt" in section scn. */
static int notes_of(const struct ot_elf_file *f, Elf_Scn *scn, uint64_t stapsdt_base, struct ot_usdt_notes *out)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;
	int ret;

	if (!data)
		return -EINVAL;
	while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type != 3 || nh.n_namesz != 8 ||
		    memcmp((const char *)data->d_buf + name_off, "stapsdt", 8))
			continue;
		ret = one_note(f, (const char *)data->d_buf + desc_off, nh.n_descsz,
			       stapsdt_base, out);
		if (ret)
			return ret;
	}
	return 0;
}

int ot_usdt_read(const char *path, struct ot_usdt_notes *out)
{
	uint64_t stapsdt_base = 0;
	Elf_Scn *scn = NULL, *notes = NULL;
	struct ot_elf_file *f;
	size_t shstrndx;
	GElf_Shdr sh;
	Elf *elf;
	int ret;

	memset(out, 0, sizeof(*out));
	if ((ret = ot_elf_file_open(path, 0, &f)))
		return ret;
	elf = ot_elf_file_elf(f);
	if (elf_getshdrstrndx(elf, &shstrndx)) {
		ret = -ENOEXEC;
		goto out;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if (!strcmp(name, ".stapsdt.base"))
			stapsdt_base = sh.sh_addr;
		else if (!strcmp(name, ".note.stapsdt") && sh.sh_type == SHT_NOTE)
			notes = scn;
	}
	if (notes)
		ret = notes_of(f, notes, stapsdt_base, out);
out:
	ot_elf_file_close(f);
	if (ret)
		ot_usdt_free(out);
	return ret;
}

/* lib/symbols/elffile's lookup, as ot_elf_lookup's: .symtab first here,
 * any defined symbol (a %rip operand's is data, perhaps in .bss). */
int ot_usdt_sym_addr(const char *path, const char *name, uint64_t *addr)
{
	static const Elf64_Word types[] = { SHT_SYMTAB, SHT_DYNSYM };
	struct ot_elf_file *f;
	GElf_Sym sym;
	int ret = ot_elf_file_open(path, 0, &f);

	if (ret)
		return ret;
	ret = ot_elf_file_symbol(f, name, types, 2, &sym, NULL);
	if (!ret)
		*addr = sym.st_value;
	ot_elf_file_close(f);
	return ret;
}

void ot_usdt_free(struct ot_usdt_notes *n)
{
	size_t i, k;

	for (i = 0; i < n->n; i++) {
		for (k = 0; k < n->probe[i].nsites; k++)
			free(n->probe[i].sites[k].args);
		free(n->probe[i].sites);
		free(n->probe[i].provider);
		free(n->probe[i].name);
	}
	free(n->probe);
	memset(n, 0, sizeof(*n));
}
