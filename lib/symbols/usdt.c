/*
 * usdt.c - USDT probes (usdt.h): a file's .note.stapsdt notes read with libelf
 * and gathered per provider:name, and their argument specs parsed (the
 * operands by the machine's own reader, lib/arch).
 */
#include "usdt.h"
#include "arch/arch.h"
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

/* vaddr's file offset through the PT_LOAD holding it; -1 if none does. */
static int64_t file_offset(Elf *elf, uint64_t vaddr)
{
	size_t n, i;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n))
		return -1;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_memsz)
			return (int64_t)(vaddr - ph.p_vaddr + ph.p_offset);
	}
	return -1;
}

int ot_usdt_file_read(const char *path, uint64_t vaddr, char *buf, size_t len)
{
	size_t n, i;
	GElf_Phdr ph;
	Elf *elf;
	int fd;
	ssize_t ret = -ENOENT;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOEXEC;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &n)) {
		ret = -ENOEXEC;
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    vaddr < ph.p_vaddr || vaddr >= ph.p_vaddr + ph.p_filesz)
			continue;
		if (len > ph.p_vaddr + ph.p_filesz - vaddr)
			len = ph.p_vaddr + ph.p_filesz - vaddr;
		ret = pread(fd, buf, len, (off_t)(vaddr - ph.p_vaddr + ph.p_offset));
		if (ret < 0)
			ret = -errno;
		break;
	}
out:
	if (elf)
		elf_end(elf);
	close(fd);
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
static int one_note(Elf *elf, const char *desc, size_t len, uint64_t stapsdt_base,
		    struct ot_usdt_notes *out)
{
	uint64_t pc, base, sema;
	const char *prov, *name, *args, *end = desc + len;
	struct ot_usdt_probe *p;
	struct ot_usdt_site *s;
	int64_t off;

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
	if ((off = file_offset(elf, pc)) < 0)
		return -EINVAL;
	p = probe_of(out, prov, name);
	p->sites = ot_xreallocarray(p->sites, p->nsites + 1, sizeof(*p->sites));
	s = &p->sites[p->nsites++];
	s->vaddr = pc;
	s->offset = (uint64_t)off;
	s->args = ot_xstrdup(args);
	if (sema && !p->sema_vaddr) {
		int64_t so = file_offset(elf, sema);

		if (so < 0)
			return -EINVAL;
		p->sema_vaddr = sema;
		p->sema_offset = (uint64_t)so;
	}
	return 0;
}

/* Every note of type 3 named "stapsdt" in section scn. */
static int notes_of(Elf *elf, Elf_Scn *scn, uint64_t stapsdt_base, struct ot_usdt_notes *out)
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
		ret = one_note(elf, (const char *)data->d_buf + desc_off, nh.n_descsz,
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
	size_t shstrndx;
	GElf_Shdr sh;
	Elf *elf;
	int fd, ret = 0;

	memset(out, 0, sizeof(*out));
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOEXEC;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx)) {
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
		ret = notes_of(elf, notes, stapsdt_base, out);
out:
	if (elf)
		elf_end(elf);
	close(fd);
	if (ret)
		ot_usdt_free(out);
	return ret;
}

/* name in the symbol table scn, if there. */
static int sym_in(Elf *elf, Elf_Scn *scn, const char *name, uint64_t *addr)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	GElf_Shdr sh;
	GElf_Sym sym;
	size_t i, n;

	if (!data || !gelf_getshdr(scn, &sh) || !sh.sh_entsize)
		return -ENOENT;
	n = sh.sh_size / sh.sh_entsize;
	for (i = 0; i < n; i++) {
		const char *s;

		if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF)
			continue;
		s = elf_strptr(elf, sh.sh_link, sym.st_name);
		if (s && !strcmp(s, name)) {
			*addr = sym.st_value;
			return 0;
		}
	}
	return -ENOENT;
}

int ot_usdt_sym_addr(const char *path, const char *name, uint64_t *addr)
{
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL;
	GElf_Shdr sh;
	Elf *elf;
	int fd, ret = -ENOENT;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOEXEC;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		ret = -ENOEXEC;
		goto out;
	}
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			symtab = scn;
		else if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_DYNSYM)
			dynsym = scn;
	if (symtab)
		ret = sym_in(elf, symtab, name, addr);
	if (ret && dynsym)
		ret = sym_in(elf, dynsym, name, addr);
out:
	if (elf)
		elf_end(elf);
	close(fd);
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
