/*
 * usdt.c - USDT probes (usdt.h): a file's .note.stapsdt notes read with libelf
 * and gathered per provider:name, and their x86-64 argument specs parsed.
 */
#include "usdt.h"
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

/* x86-64's integer registers by every name the assembler gives a part of
 * them: the perf number, and the bits the name covers. */
static const struct {
	const char *name;
	int8_t reg;
	uint8_t bits, shift;
} regs[] = {
	{ "rax", 0, 64, 0 }, { "eax", 0, 32, 0 }, { "ax", 0, 16, 0 }, { "al", 0, 8, 0 }, { "ah", 0, 8, 8 },
	{ "rbx", 1, 64, 0 }, { "ebx", 1, 32, 0 }, { "bx", 1, 16, 0 }, { "bl", 1, 8, 0 }, { "bh", 1, 8, 8 },
	{ "rcx", 2, 64, 0 }, { "ecx", 2, 32, 0 }, { "cx", 2, 16, 0 }, { "cl", 2, 8, 0 }, { "ch", 2, 8, 8 },
	{ "rdx", 3, 64, 0 }, { "edx", 3, 32, 0 }, { "dx", 3, 16, 0 }, { "dl", 3, 8, 0 }, { "dh", 3, 8, 8 },
	{ "rsi", 4, 64, 0 }, { "esi", 4, 32, 0 }, { "si", 4, 16, 0 }, { "sil", 4, 8, 0 },
	{ "rdi", 5, 64, 0 }, { "edi", 5, 32, 0 }, { "di", 5, 16, 0 }, { "dil", 5, 8, 0 },
	{ "rbp", 6, 64, 0 }, { "ebp", 6, 32, 0 }, { "bp", 6, 16, 0 }, { "bpl", 6, 8, 0 },
	{ "rsp", 7, 64, 0 }, { "esp", 7, 32, 0 }, { "sp", 7, 16, 0 }, { "spl", 7, 8, 0 },
	{ "rip", 8, 64, 0 },
	{ "r8", 16, 64, 0 }, { "r8d", 16, 32, 0 }, { "r8w", 16, 16, 0 }, { "r8b", 16, 8, 0 },
	{ "r9", 17, 64, 0 }, { "r9d", 17, 32, 0 }, { "r9w", 17, 16, 0 }, { "r9b", 17, 8, 0 },
	{ "r10", 18, 64, 0 }, { "r10d", 18, 32, 0 }, { "r10w", 18, 16, 0 }, { "r10b", 18, 8, 0 },
	{ "r11", 19, 64, 0 }, { "r11d", 19, 32, 0 }, { "r11w", 19, 16, 0 }, { "r11b", 19, 8, 0 },
	{ "r12", 20, 64, 0 }, { "r12d", 20, 32, 0 }, { "r12w", 20, 16, 0 }, { "r12b", 20, 8, 0 },
	{ "r13", 21, 64, 0 }, { "r13d", 21, 32, 0 }, { "r13w", 21, 16, 0 }, { "r13b", 21, 8, 0 },
	{ "r14", 22, 64, 0 }, { "r14d", 22, 32, 0 }, { "r14w", 22, 16, 0 }, { "r14b", 22, 8, 0 },
	{ "r15", 23, 64, 0 }, { "r15d", 23, 32, 0 }, { "r15w", 23, 16, 0 }, { "r15b", 23, 8, 0 },
};
#define NREGS (sizeof(regs) / sizeof(*regs))

const char *ot_usdt_reg_name(int reg)
{
	size_t i;

	for (i = 0; i < NREGS; i++)
		if (regs[i].reg == reg && regs[i].bits == 64)
			return regs[i].name;
	return "?";
}

/* "%name" at *p: its table entry, *p past it; or -1. */
static int reg_at(const char **p)
{
	const char *s = *p;
	size_t n = 0, i;

	if (*s != '%')
		return -1;
	s++;
	while (isalnum((unsigned char)s[n]))
		n++;
	for (i = 0; i < NREGS; i++)
		if (strlen(regs[i].name) == n && !strncmp(regs[i].name, s, n)) {
			*p = s + n;
			return (int)i;
		}
	return -1;
}

/* "(%base)", "(%base,%idx)", "(%base,%idx,scale)", "(,%idx,scale)" at p. */
static int mem_operand(const char *p, struct ot_usdt_arg *a, char *why, size_t whylen)
{
	int r;

	if (*p++ != '(')
		goto bad;
	if (*p != ',') {
		if ((r = reg_at(&p)) < 0)
			goto badreg;
		a->reg = regs[r].reg;
	}
	if (*p == ',') {
		p++;
		if ((r = reg_at(&p)) < 0)
			goto badreg;
		a->idx = regs[r].reg;
		a->scale = 1;
		if (*p == ',') {
			char *end;
			long s = strtol(p + 1, &end, 10);

			if (end == p + 1 || (s != 1 && s != 2 && s != 4 && s != 8))
				goto bad;
			a->scale = (uint8_t)s;
			p = end;
		}
	}
	if (strcmp(p, ")"))
		goto bad;
	if (a->reg == 8) {
		if (a->idx >= 0)
			goto bad;
		a->kind = OT_USDT_ARG_RIP;
		a->reg = -1;
	}
	return 0;
badreg:
	snprintf(why, whylen, "unknown register in '%s'", p);
	return -EINVAL;
bad:
	snprintf(why, whylen, "malformed memory operand");
	return -EINVAL;
}

/* "sym", "sym+8", "sym-8", "-8", "112" before '(' : off, and sym for %rip. */
static int displacement(const char *s, size_t n, struct ot_usdt_arg *a)
{
	char buf[128], *end;
	size_t k = 0;

	if (n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, n);
	buf[n] = 0;
	if (!n)
		return 0;
	if (isalpha((unsigned char)buf[0]) || buf[0] == '_' || buf[0] == '.') {
		while (k < n && buf[k] != '+' && buf[k] != '-')
			k++;
		if (k >= sizeof(a->sym))
			return -EINVAL;
		memcpy(a->sym, buf, k);
		a->sym[k] = 0;
		if (k == n)
			return 0;
	}
	a->off = strtoll(buf + k, &end, 0);
	return *end || end == buf + k ? -EINVAL : 0;
}

int ot_usdt_arg_parse(const char *spec, struct ot_usdt_arg *out, char *why, size_t whylen)
{
	const char *p = spec, *at = strchr(spec, '@'), *open;
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
	if (*p == '$') {
		a.kind = OT_USDT_ARG_CONST;
		a.off = strtoll(p + 1, &end, 0);
		if (end == p + 1 || *end)
			goto bad;
	} else if (*p == '%') {
		a.kind = OT_USDT_ARG_REG;
		if ((r = reg_at(&p)) < 0 || *p || regs[r].reg == 8)
			goto badreg;
		a.reg = regs[r].reg;
		a.shift = regs[r].shift;
		/* "4@%rax" and "8@%eax" alike read what both say: the smaller. */
		if (regs[r].bits / 8 < a.size)
			a.size = regs[r].bits / 8;
	} else if ((open = strchr(p, '('))) {
		a.kind = OT_USDT_ARG_MEM;
		if (displacement(p, (size_t)(open - p), &a))
			goto bad;
		if (mem_operand(open, &a, why, whylen)) {
			size_t used = strlen(why);

			snprintf(why + used, whylen - used, " in '%s'", spec);
			return -EINVAL;
		}
		if (a.sym[0] && a.kind != OT_USDT_ARG_RIP)
			goto bad;
	} else {
		goto bad;
	}
	*out = a;
	return 0;
badreg:
	snprintf(why, whylen, "'%s': unknown register", spec);
	return -EINVAL;
bad:
	snprintf(why, whylen, "'%s': not an x86-64 operand (N@%%reg, N@off(%%reg), "
		 "N@off(%%reg,%%idx,scale), N@$const, N@sym(%%rip))", spec);
	return -EINVAL;
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
