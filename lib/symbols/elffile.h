/*
 * elffile.h - one open ELF file, shared by every question asked of it
 * while it is open: the libelf open prologue (elf_version, open, elf_begin,
 * the ELF kind) written once, section lookup by name or type, symbol
 * lookup by name, and reads of its bytes by file offset or by the
 * link-time address a PT_LOAD maps.
 *
 Sharing: a path that names, now (stat(2): its device and inode), a
 * file a handle is open on gets that handle (a reference, counted),
 * whatever name it was opened by (/proc/self/fd/N, the path in
 * /proc/PID/maps); a replaced file is another inode, so a handle of its
 * own.  What holds a file for its whole life (lib/symbols/elfsym's struct
 * ot_elf: the program and each library a selection names) so answers
 * every later question on it (its code, tables, notes, imports) without
 * opening it again.  Paths are opened as given (O_RDONLY | O_CLOEXEC):
 * the callers name files by what they trust (lib/process/mapfile's
 * /proc/self/fd/N or map_files paths for a process's files), as they did
 * when each opened its own.
 *
 * Contract: prints nothing, never exits; out of memory aborts
 * (util/xalloc.h).  Handles are not for several threads at once (libelf's
 * are not); the table of open handles is locked.
 */
#ifndef OT_ELFFILE_H
#define OT_ELFFILE_H

#include <gelf.h>
#include <libelf.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ot_elf_file;

/* Read with mmap (ELF_C_READ_MMAP: every section read fast, at the risk
 * of SIGBUS if the file shrinks), in a handle of its own. */
#define OT_ELF_FILE_MAP 1u

/* Any file, ELF or not (its bytes to read with ot_elf_file_pread): an
 * open ELF handle on path if there is one, else a handle of its own with
 * no libelf behind it (ot_elf_file_elf gives NULL). */
#define OT_ELF_FILE_BYTES 2u

/*
 * The ELF file at path: 0 with *out (release with ot_elf_file_close), or
 * -errno opening it, -ENOEXEC when it is no ELF file (or libelf cannot
 * be used).
 */
int ot_elf_file_open(const char *path, unsigned flags, struct ot_elf_file **out);
/* Drop a reference; the last closes the file.  NULL is a no-op. */
void ot_elf_file_close(struct ot_elf_file *f);

/* f's libelf handle (NULL only with OT_ELF_FILE_BYTES on no ELF file). */
Elf *ot_elf_file_elf(const struct ot_elf_file *f);
int ot_elf_file_fd(const struct ot_elf_file *f);

/* The section named name (the first), with its header; NULL if none. */
Elf_Scn *ot_elf_file_section(const struct ot_elf_file *f, const char *name, GElf_Shdr *sh);
/* The first section of type (SHT_SYMTAB, SHT_DYNSYM...); NULL if none. */
Elf_Scn *ot_elf_file_section_type(const struct ot_elf_file *f, Elf64_Word type, GElf_Shdr *sh);

/*
 * The first defined symbol (st_shndx not SHN_UNDEF) called name in the
 * symbol tables of the types given, in that order (SHT_DYNSYM,
 * SHT_SYMTAB): 0 with *sym and, with off non-NULL, its file offset
 * through the PT_LOAD whose file bytes hold it (a symbol without one is
 * passed over then); -ENOENT if none (*sym untouched).
 */
int ot_elf_file_symbol(const struct ot_elf_file *f, const char *name, const Elf64_Word *types,
		       size_t ntypes, GElf_Sym *sym, uint64_t *off);

/*
 * The file offset of link-time address vaddr through the PT_LOAD holding
 * it: in its file bytes (p_filesz) when filesz, else in its memory
 * (p_memsz).  0 with *off, or -1; *left (may be NULL) the file bytes from
 * there to the segment's end (0 past them).
 */
int ot_elf_file_offset(const struct ot_elf_file *f, uint64_t vaddr, int filesz, uint64_t *off,
		       uint64_t *left);

/* pread(2) of the file: the count, or -errno. */
ssize_t ot_elf_file_pread(const struct ot_elf_file *f, void *buf, size_t len, uint64_t off);

#endif
