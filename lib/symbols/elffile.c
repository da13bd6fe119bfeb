/*
 * elffile.c - open ELF files, shared while open (elffile.h): the one
 * libelf open prologue, the table of open handles, and the section,
 * symbol and segment lookups every reader of ELF files in lib/symbols asks.
 */
#include "elffile.h"
#include "util/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct ot_elf_file {
	int fd;
	Elf *elf;
	dev_t dev;
	ino_t ino;
	unsigned refs;
	int shared;		/* in the table of open handles */
	struct ot_elf_file *next;
};

/* The handles open now that the next open of their path may share.  Few
 * (the program and the libraries a selection names): a list. */
static struct ot_elf_file *open_files;
static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;

/* An open handle on the file path names now (by its device and inode:
 * the same file under another name, /proc/self/fd/N or the path in
 * /proc/PID/maps, is the same bytes), with a new reference; NULL if none. */
static struct ot_elf_file *shared_handle(const char *path)
{
	struct ot_elf_file *f;
	struct stat st;

	if (stat(path, &st))
		return NULL;
	for (f = open_files; f; f = f->next)
		if (f->dev == st.st_dev && f->ino == st.st_ino) {
			f->refs++;
			return f;
		}
	return NULL;
}

int ot_elf_file_open(const char *path, unsigned flags, struct ot_elf_file **out)
{
	struct ot_elf_file *f;
	struct stat st;
	int fd;

	*out = NULL;
	if (!(flags & OT_ELF_FILE_BYTES) && elf_version(EV_CURRENT) == EV_NONE)
		return -ENOEXEC;
	if (!(flags & OT_ELF_FILE_MAP)) {
		pthread_mutex_lock(&open_lock);
		*out = shared_handle(path);
		pthread_mutex_unlock(&open_lock);
		if (*out)
			return 0;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	f = ot_xcalloc(1, sizeof(*f));
	f->fd = fd;
	f->refs = 1;
	if (flags & OT_ELF_FILE_BYTES) {
		*out = f;	/* bytes alone: not shared */
		return 0;
	}
	f->elf = elf_begin(fd, flags & OT_ELF_FILE_MAP ? ELF_C_READ_MMAP : ELF_C_READ, NULL);
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF) {
		ot_elf_file_close(f);
		return -ENOEXEC;
	}
	if (!(flags & OT_ELF_FILE_MAP) && !fstat(fd, &st)) {
		f->dev = st.st_dev;
		f->ino = st.st_ino;
		f->shared = 1;
		pthread_mutex_lock(&open_lock);
		f->next = open_files;
		open_files = f;
		pthread_mutex_unlock(&open_lock);
	}
	*out = f;
	return 0;
}

void ot_elf_file_close(struct ot_elf_file *f)
{
	struct ot_elf_file **p;
	int last;

	if (!f)
		return;
	pthread_mutex_lock(&open_lock);
	last = !--f->refs;
	if (last && f->shared)
		for (p = &open_files; *p; p = &(*p)->next)
			if (*p == f) {
				*p = f->next;
				break;
			}
	pthread_mutex_unlock(&open_lock);
	if (!last)
		return;
	if (f->elf)
		elf_end(f->elf);
	close(f->fd);
	free(f);
}

Elf *ot_elf_file_elf(const struct ot_elf_file *f)
{
	return f->elf;
}

int ot_elf_file_fd(const struct ot_elf_file *f)
{
	return f->fd;
}

Elf_Scn *ot_elf_file_section(const struct ot_elf_file *f, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(f->elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(f->elf, scn))) {
		const char *s;

		if (gelf_getshdr(scn, sh) && (s = elf_strptr(f->elf, shstrndx, sh->sh_name)) &&
		    !strcmp(s, name))
			return scn;
	}
	return NULL;
}

Elf_Scn *ot_elf_file_section_type(const struct ot_elf_file *f, Elf64_Word type, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(f->elf, scn)))
		if (gelf_getshdr(scn, sh) && sh->sh_type == type)
			return scn;
	return NULL;
}

int ot_elf_file_offset(const struct ot_elf_file *f, uint64_t vaddr, int filesz, uint64_t *off,
		       uint64_t *left)
{
	size_t phnum, i;

	if (elf_getphdrnum(f->elf, &phnum))
		return -1;
	for (i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(f->elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    vaddr < ph.p_vaddr || vaddr - ph.p_vaddr >= (filesz ? ph.p_filesz : ph.p_memsz))
			continue;
		*off = vaddr - ph.p_vaddr + ph.p_offset;
		if (left)
			*left = vaddr - ph.p_vaddr < ph.p_filesz ? ph.p_filesz - (vaddr - ph.p_vaddr) : 0;
		return 0;
	}
	return -1;
}

/* name in the symbol table of type: 0 with *sym (and *off), or -ENOENT. */
static int symbol_in(const struct ot_elf_file *f, Elf64_Word type, const char *name,
		     GElf_Sym *sym, uint64_t *off)
{
	GElf_Shdr sh;
	Elf_Scn *scn = ot_elf_file_section_type(f, type, &sh);
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
	size_t i, n = data && sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;

	for (i = 0; i < n; i++) {
		const char *s;
		GElf_Sym y;

		if (!gelf_getsym(data, (int)i, &y) || y.st_shndx == SHN_UNDEF)
			continue;
		s = elf_strptr(f->elf, sh.sh_link, y.st_name);
		if (!s || strcmp(s, name) || (off && ot_elf_file_offset(f, y.st_value, 1, off, NULL)))
			continue;
		*sym = y;
		return 0;
	}
	return -ENOENT;
}

int ot_elf_file_symbol(const struct ot_elf_file *f, const char *name, const Elf64_Word *types,
		       size_t ntypes, GElf_Sym *sym, uint64_t *off)
{
	size_t t;

	for (t = 0; t < ntypes; t++)
		if (!symbol_in(f, types[t], name, sym, off))
			return 0;
	return -ENOENT;
}

ssize_t ot_elf_file_pread(const struct ot_elf_file *f, void *buf, size_t len, uint64_t off)
{
	ssize_t n = pread(f->fd, buf, len, (off_t)off);

	return n < 0 ? -errno : n;
}
