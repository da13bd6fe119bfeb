/*
 * test_mapfile.c - a mapping's file opened only once proven to be the one
 * mapped (lib/process/mapfile): this process's own mapping of a file of
 * ours, then its name pointed at a link, a FIFO and another file, which
 * are refused without blocking and without a byte read; a deleted file
 * reached through map_files when that can be opened (root).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "process/mapfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64], file[128], other[128], tmp[128];

static const char content[] = "the mapped file's own bytes";

/* A regular file at path holding text. */
static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text) + 1), (ssize_t)strlen(text) + 1);
	close(fd);
}

/* Our own mapping of file (its copy in *m, path owned): mapped at *at. */
static void mapping(struct ot_proc_map *m, void **at)
{
	struct ot_proc_map *maps;
	size_t n, i;
	int fd = open(file, O_RDONLY);

	assert_true(fd >= 0);
	*at = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	assert_true(*at != MAP_FAILED);
	assert_int_equal(ot_proc_maps(getpid(), getpid(), &maps, &n), 0);
	for (i = 0; i < n && maps[i].lo != (uint64_t)(uintptr_t)*at; i++)
		;
	assert_true(i < n);
	*m = maps[i];
	m->path = strdup(maps[i].path);
	ot_proc_maps_free(maps, n);
	assert_string_equal(m->path, file);
	assert_false(m->deleted);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/ot-mapfile.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(file, sizeof(file), "%s/data", dir);
	snprintf(other, sizeof(other), "%s/other", dir);
	snprintf(tmp, sizeof(tmp), "%s/new", dir);
	write_file(other, "ANOTHER FILE'S BYTES, NEVER TO BE READ");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(file);
	unlink(other);
	unlink(tmp);
	rmdir(dir);
	return 0;
}

/* The mapped file, by every way that applies: read as it is. */
static void test_mapped(void **state)
{
	struct ot_proc_map m;
	struct ot_mapfile f;
	char buf[64], why[256], root[256];
	void *at;
	struct stat st;

	(void)state;
	write_file(file, content);
	mapping(&m, &at);
	assert_int_equal(ot_mapfile_open(getpid(), &m, &f, why, sizeof(why)), 0);
	assert_true(f.fd >= 0 && !strncmp(f.path, "/proc/self/fd/", 14));
	assert_int_equal(stat(f.path, &st), 0);
	assert_true(st.st_ino == m.ino);
	ot_mapfile_close(&f);
	assert_int_equal(f.fd, -1);
	/* Our root's way alone (the process gone). */
	assert_int_equal(ot_mapfile_open(0, &m, &f, why, sizeof(why)), 0);
	ot_mapfile_close(&f);
	assert_int_equal(ot_mapfile_pread(0, &m, 0, buf, sizeof(buf)), (ssize_t)sizeof(content));
	assert_string_equal(buf, content);
	/* A /proc/PID/root path is opened through the link, as given. */
	snprintf(root, sizeof(root), "/proc/%d/root%s", (int)getpid(), file);
	assert_int_equal(ot_mapfile_open_in_root(0, root, &f, why, sizeof(why)), 0);
	assert_true(f.ino == m.ino);
	ot_mapfile_close(&f);
	munmap(at, 4096);
	free(m.path);
}

/* The name now leads elsewhere: refused by name, never read, no block. */
static void test_planted(void **state)
{
	static const char *const kinds[] = { "link", "fifo", "file" };
	struct ot_proc_map m;
	struct ot_mapfile f;
	char buf[64], why[256];
	size_t k;
	void *at;

	(void)state;
	for (k = 0; k < 3; k++) {
		write_file(file, content);
		mapping(&m, &at);
		unlink(tmp);
		if (k == 0)
			assert_int_equal(symlink(other, tmp), 0);
		else if (k == 1)
			assert_int_equal(mkfifo(tmp, 0644), 0);
		else
			write_file(tmp, "ANOTHER FILE'S BYTES, NEVER TO BE READ");
		assert_int_equal(rename(tmp, file), 0);
		memset(buf, 0, sizeof(buf));
		assert_int_equal(ot_mapfile_open(0, &m, &f, why, sizeof(why)), -ESTALE);
		assert_int_equal(f.fd, -1);
		assert_non_null(strstr(why, "is not the file the process maps"));
		assert_int_equal(ot_mapfile_pread(0, &m, 0, buf, sizeof(buf)), -1);
		assert_null(strstr(buf, "ANOTHER"));
		/* Still mapped, so map_files reaches it when it may be opened. */
		if (ot_mapfile_open(getpid(), &m, &f, why, sizeof(why)) == 0) {
			assert_true(f.ino == m.ino);
			ot_mapfile_close(&f);
			assert_int_equal(ot_mapfile_pread(getpid(), &m, 0, buf, sizeof(buf)),
					 (ssize_t)sizeof(content));
			assert_string_equal(buf, content);
		} else {
			print_message("  (%s: map_files cannot be opened here: %s)\n", kinds[k], why);
		}
		munmap(at, 4096);
		free(m.path);
		unlink(file);
	}
}

/* A mapping of no file, and a path that is no regular file. */
static void test_not_files(void **state)
{
	struct ot_proc_map m = { .lo = 0x1000, .hi = 0x2000, .path = (char *)"[vdso]" };
	struct ot_mapfile f;
	char why[256];

	(void)state;
	assert_int_equal(ot_mapfile_open(getpid(), &m, &f, why, sizeof(why)), -ENOENT);
	assert_string_equal(why, "[vdso] is not a file");
	assert_int_equal(ot_mapfile_open_in_root(0, dir, &f, why, sizeof(why)), -EINVAL);
	assert_int_equal(f.fd, -1);
	assert_int_equal(ot_mapfile_open_in_root(getpid(), "/nonexistent/lib.so", &f, why,
						 sizeof(why)), -ENOENT);
	assert_int_equal(ot_mapfile_same_view(getpid()), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mapped),
		cmocka_unit_test(test_planted),
		cmocka_unit_test(test_not_files),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
