/*
 * One ELF handle per file (lib/symbols/elffile): a file opened while a
 * handle on it is open, by the same path or another name for the same
 * inode, gets that handle; a replaced file, a mapped open and a closed
 * one get their own; sections and symbols found by name, from the
 * unit-test fixture.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/symbols/elffile.h"
#include "lib/symbols/elfsym.h"
#include "lib/symbols/usdt.h"

#define FIXTURE OT_FIXTURE_DIR "/fixture-pie"

static void test_shared(void **state)
{
	struct ot_elf_file *a, *b, *c, *m;
	char alias[64];
	int fd = open(FIXTURE, O_RDONLY | O_CLOEXEC);

	(void)state;
	assert_true(fd >= 0);
	snprintf(alias, sizeof(alias), "/proc/self/fd/%d", fd);
	assert_int_equal(ot_elf_file_open(FIXTURE, 0, &a), 0);
	assert_int_equal(ot_elf_file_open(FIXTURE, 0, &b), 0);
	assert_ptr_equal(a, b);
	/* Another name for the same inode: the same handle too. */
	assert_int_equal(ot_elf_file_open(alias, OT_ELF_FILE_BYTES, &c), 0);
	assert_ptr_equal(a, c);
	/* Mapped: a handle of its own. */
	assert_int_equal(ot_elf_file_open(FIXTURE, OT_ELF_FILE_MAP, &m), 0);
	assert_ptr_not_equal(a, m);
	assert_int_not_equal(ot_elf_file_fd(a), ot_elf_file_fd(m));
	ot_elf_file_close(m);
	ot_elf_file_close(c);
	ot_elf_file_close(b);
	/* Still open for a: its libelf handle still reads. */
	assert_non_null(ot_elf_file_elf(a));
	assert_int_equal(fcntl(ot_elf_file_fd(a), F_GETFD), FD_CLOEXEC);
	ot_elf_file_close(a);
	close(fd);
}

/* A copy of the fixture at path (a new inode): 0 or -1. */
static int copy_to(const char *path)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "cp '%s' '%s.new' && mv '%s.new' '%s'", FIXTURE, path, path,
		 path);
	return system(cmd) ? -1 : 0;
}

static void test_replaced(void **state)
{
	char dir[] = "/tmp/ot-test-elffile-XXXXXX", path[128];
	struct ot_elf_file *a, *b;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/prog", dir);
	assert_int_equal(copy_to(path), 0);
	assert_int_equal(ot_elf_file_open(path, 0, &a), 0);
	/* The path names another file now: not a's bytes. */
	assert_int_equal(copy_to(path), 0);
	assert_int_equal(ot_elf_file_open(path, 0, &b), 0);
	assert_ptr_not_equal(a, b);
	ot_elf_file_close(a);
	ot_elf_file_close(b);
	unlink(path);
	rmdir(dir);
}

static void test_errors(void **state)
{
	struct ot_elf_file *f;
	char buf[4];

	(void)state;
	assert_int_equal(ot_elf_file_open(OT_FIXTURE_DIR "/no-such-file", 0, &f), -ENOENT);
	assert_null(f);
	assert_int_equal(ot_elf_file_open(OT_FIXTURE_DIR "/../../Makefile", 0, &f), -ENOEXEC);
	/* Bytes alone: any file. */
	assert_int_equal(ot_elf_file_open(OT_FIXTURE_DIR "/../../Makefile", OT_ELF_FILE_BYTES, &f),
			 0);
	assert_null(ot_elf_file_elf(f));
	assert_int_equal(ot_elf_file_pread(f, buf, 4, 0), 4);
	ot_elf_file_close(f);
}

static void test_lookups(void **state)
{
	static const Elf64_Word dyn_first[] = { SHT_DYNSYM, SHT_SYMTAB };
	struct ot_elf_file *f;
	uint64_t off, offset, size, addr;
	GElf_Shdr sh;
	GElf_Sym sym;

	(void)state;
	assert_int_equal(ot_elf_file_open(FIXTURE, 0, &f), 0);
	assert_non_null(ot_elf_file_section(f, ".text", &sh));
	assert_int_equal(sh.sh_type, SHT_PROGBITS);
	assert_null(ot_elf_file_section(f, ".no_such_section", &sh));
	assert_non_null(ot_elf_file_section_type(f, SHT_SYMTAB, &sh));
	assert_int_equal(ot_elf_file_symbol(f, "main", dyn_first, 2, &sym, &off), 0);
	assert_int_equal(ot_elf_file_symbol(f, "no_such_symbol", dyn_first, 2, &sym, &off), -ENOENT);
	/* The two lookups built on it agree with it. */
	assert_int_equal(ot_elf_lookup(FIXTURE, "main", &offset, &size, NULL, 0), 0);
	assert_int_equal(offset, off);
	assert_int_equal(size, sym.st_size);
	assert_int_equal(ot_usdt_sym_addr(FIXTURE, "main", &addr), 0);
	assert_int_equal(addr, sym.st_value);
	assert_int_equal(ot_elf_file_offset(f, sym.st_value, 1, &offset, NULL), 0);
	assert_int_equal(offset, off);
	ot_elf_file_close(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shared),
		cmocka_unit_test(test_replaced),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_lookups),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
