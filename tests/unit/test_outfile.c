/*
 * Output files (lib/util/outfile) against what another user plants in a
 * sticky world-writable directory: links and files of uid 65534 (made
 * with lchown, so as root; those cases skip otherwise), in a directory of
 * its own under /tmp.  The victim file must come out as it went in.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "skip_ci.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/util/error.h"
#include "lib/util/outfile.h"

#define NOBODY 65534

static char dir[64];		/* 1777, as /tmp */
static char victim[128];	/* what a planted link points at */

static void path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

static void put(const char *p, const char *text)
{
	FILE *f = fopen(p, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static const char *get(const char *p)
{
	static char buf[256];
	FILE *f = fopen(p, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

static int setup(void **state)
{
	(void)state;
	ot_error_set_verbosity(-2);
	snprintf(dir, sizeof(dir), "/tmp/ot-outfile.XXXXXX");
	if (!mkdtemp(dir) || chmod(dir, 01777))
		return -1;
	snprintf(victim, sizeof(victim), "%s.victim", dir);
	put(victim, "the victim's\n");
	return 0;
}

static int teardown(void **state)
{
	char cmd[256];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'", dir, victim);
	return system(cmd);
}

/* A symbolic link planted by uid 65534 at name, to the victim. */
static int plant_link(const char *name)
{
	char p[128];

	path(p, sizeof(p), name);
	unlink(p);
	if (symlink(victim, p))
		return -1;
	return lchown(p, NOBODY, NOBODY);
}

static void test_created_0600_emptied_at_first_byte(void **state)
{
	struct ot_outfile *o;
	struct stat st;
	char p[128];

	(void)state;
	path(p, sizeof(p), "new.txt");
	assert_int_equal(ot_outfile_open(p, &o), 0);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	fputs("report\n", ot_outfile_stream(o));
	assert_int_equal(ot_outfile_close(o, 1), 0);
	assert_string_equal(get(p), "report\n");

	/* An existing file: untouched until a byte is written, and by a
	 * capture that failed before that; its mode kept. */
	put(p, "the old report, longer\n");
	chmod(p, 0644);
	assert_int_equal(ot_outfile_open(p, &o), 0);
	assert_string_equal(get(p), "the old report, longer\n");
	fputs("buffered, never flushed\n", ot_outfile_stream(o));
	assert_int_equal(ot_outfile_close(o, 0), 0);
	assert_string_equal(get(p), "the old report, longer\n");
	assert_int_equal(ot_outfile_open(p, &o), 0);
	fputs("new\n", ot_outfile_stream(o));
	fflush(ot_outfile_stream(o));
	assert_string_equal(get(p), "new\n");
	assert_int_equal(ot_outfile_close(o, 1), 0);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);

	/* Made for a capture that failed: removed again. */
	path(p, sizeof(p), "failed.txt");
	assert_int_equal(ot_outfile_open(p, &o), 0);
	assert_int_equal(ot_outfile_close(o, 0), 0);
	assert_int_equal(access(p, F_OK), -1);
}

static void test_planted_link_refused(void **state)
{
	struct ot_outfile *o;
	char p[128], q[160];

	(void)state;
	if (geteuid())
		ot_skip("planting files of uid 65534 needs root (lchown)");
	assert_int_equal(plant_link("r.txt"), 0);
	path(p, sizeof(p), "r.txt");
	assert_int_equal(ot_outfile_open(p, &o), -EACCES);
	assert_int_equal(ot_outfile_replacing(p, &o), -EACCES);
	/* On the way too: DIR/link/x where link is theirs. */
	path(q, sizeof(q), "r.txt/x");
	assert_true(ot_outfile_open(q, &o) < 0);
	assert_string_equal(get(victim), "the victim's\n");

	/* The same link of the caller's own is followed, as the kernel does. */
	assert_int_equal(lchown(p, 0, 0), 0);
	assert_int_equal(ot_outfile_open(p, &o), 0);
	assert_int_equal(ot_outfile_close(o, 0), 0);
	assert_string_equal(get(victim), "the victim's\n");
}

static void test_planted_file_refused(void **state)
{
	struct ot_outfile *o;
	char p[128];

	(void)state;
	if (geteuid())
		ot_skip("planting files of uid 65534 needs root (lchown)");
	path(p, sizeof(p), "theirs.txt");
	put(p, "theirs\n");
	assert_int_equal(chown(p, NOBODY, NOBODY), 0);
	assert_int_equal(ot_outfile_open(p, &o), -EACCES);
	assert_int_equal(ot_outfile_replacing(p, &o), -EACCES);
	assert_string_equal(get(p), "theirs\n");
	/* A second name of a file of ours, made in the shared directory. */
	path(p, sizeof(p), "hard.txt");
	assert_int_equal(link(victim, p), 0);
	assert_int_equal(ot_outfile_open(p, &o), -EACCES);
	assert_string_equal(get(victim), "the victim's\n");
}

static void test_not_regular(void **state)
{
	struct ot_outfile *o;

	(void)state;
	assert_int_equal(ot_outfile_open("/dev/null", &o), 0);
	fputs("nothing\n", ot_outfile_stream(o));
	assert_int_equal(ot_outfile_close(o, 1), 0);
	/* /dev/stdout: a link to /proc/self/fd/1, the kernel's to follow
	 * (when this process may open its standard output again at all). */
	if (!access("/dev/stdout", W_OK)) {
		assert_int_equal(ot_outfile_open("/dev/stdout", &o), 0);
		assert_int_equal(ot_outfile_close(o, 0), 0);
	}
	assert_int_equal(ot_outfile_replacing("/dev/null", &o), -EINVAL);
	assert_int_equal(ot_outfile_open(dir, &o), -EISDIR);
	assert_int_equal(ot_outfile_open("/nonexistent-dir/x", &o), -ENOENT);
}

static void test_replacing(void **state)
{
	struct ot_outfile *o;
	struct stat st;
	char p[128], cmd[320];
	FILE *f;
	mode_t mask = umask(022);

	(void)state;
	path(p, sizeof(p), "m.prom");
	assert_int_equal(ot_outfile_replacing(p, &o), 0);
	assert_int_equal(access(p, F_OK), -1);	/* not made before a version */
	f = ot_outfile_next(o);
	assert_non_null(f);
	fputs("v1\n", f);
	assert_int_equal(ot_outfile_commit(o), 0);
	assert_string_equal(get(p), "v1\n");
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	f = ot_outfile_next(o);
	fputs("v2\n", f);
	assert_string_equal(get(p), "v1\n");	/* whole versions only */
	assert_int_equal(ot_outfile_commit(o), 0);
	assert_string_equal(get(p), "v2\n");
	f = ot_outfile_next(o);
	fputs("abandoned\n", f);
	assert_int_equal(ot_outfile_close(o, 0), 0);
	assert_string_equal(get(p), "v2\n");
	/* No temporary left beside it. */
	snprintf(cmd, sizeof(cmd), "test -z \"$(ls -A '%s' | grep '^\\.m\\.prom')\"", dir);
	assert_int_equal(system(cmd), 0);
	umask(mask);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_created_0600_emptied_at_first_byte),
		cmocka_unit_test(test_planted_link_refused),
		cmocka_unit_test(test_planted_file_refused),
		cmocka_unit_test(test_not_regular),
		cmocka_unit_test(test_replacing),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
