/*
 * lang.c - --lang's runtime checked in its target before arming (lang.h):
 * the file of it the process runs (its program or a library it maps),
 * its variable in the environment the process started with.
 */
#include "lang.h"
#include "lang_table.h"
#include "symbols/elfsym.h"
#include "symbols/select.h"
#include "process/target.h"
#include "capture_priv.h"
#include "process/procfs.h"
#include "util/error.h"
#include "util/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The runtime enables its probes when the variable is a non-zero integer
 * (php's main.c: ZEND_ATOL(getenv("USE_ZEND_DTRACE"))). */
static int env_on(const char *val)
{
	return val && strtol(val, NULL, 10) != 0;
}

/*
 * NAME's value in the environment pid started with (/proc/PID/environ, NUL
 * separated) into buf: 1, 0 when it has none, or -errno when that cannot
 * be read.
 */
static int proc_env(pid_t pid, const char *name, char *buf, size_t len)
{
	char path[64], *all = NULL;
	size_t n = 0, cap = 0, nl = strlen(name), i;
	ssize_t r;
	int fd, found = 0;

	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	do {
		if (n + 4096 > cap)
			all = ot_xreallocarray(all, cap = cap ? 2 * cap : 65536, 1);
		r = read(fd, all + n, cap - n - 1);
		n += r > 0 ? (size_t)r : 0;
	} while (r > 0);
	close(fd);
	if (r < 0) {
		free(all);
		return -EIO;
	}
	all[n] = 0;
	for (i = 0; i < n && !found; i += strlen(all + i) + 1)
		if (!strncmp(all + i, name, nl) && all[i + nl] == '=') {
			snprintf(buf, len, "%s", all + i + nl + 1);
			found = 1;
		}
	free(all);
	return found;
}

/* Whether pid maps file (a path, or a soname: a mapping's base name). */
static int maps_file(pid_t pid, const char *file, char *exe, size_t len)
{
	struct ot_proc_map *maps;
	size_t n, i;
	int found = 0;
	const char *base;

	exe[0] = 0;
	if (ot_proc_maps(pid, ot_proc_live_task(pid), &maps, &n))
		return 1;	/* gone: its exit says so */
	for (i = 0; i < n && !found; i++) {
		if (!maps[i].ino || maps[i].path[0] != '/')
			continue;
		base = strrchr(maps[i].path, '/') + 1;
		found = file[0] == '/' ? !strcmp(maps[i].path, file) : !strcmp(base, file);
		if (!exe[0] && maps[i].perms[2] == 'x')
			snprintf(exe, len, "%s", maps[i].path);
	}
	ot_proc_maps_free(maps, n);
	return found;
}

/* -p: the process runs the runtime, and started with its variable. */
static int check_pid(const struct ot_lang *l, const char *file, pid_t pid)
{
	char exe[PATH_MAX], val[64];
	int r;

	if (!maps_file(pid, file, exe, sizeof(exe))) {
		ot_error("--lang %s: process %d does not run %s (%s is not among its mappings; "
			 "its program is %s): its probes cannot fire there", l->lang, (int)pid,
			 l->name, file, exe[0] ? exe : "unknown");
		return -1;
	}
	if (!l->env)
		return 0;
	r = proc_env(pid, l->env, val, sizeof(val));
	if (r < 0) {
		ot_error_errno(-r, "--lang %s: cannot read the environment of process %d, "
			       "where %s must be set", l->lang, (int)pid, l->env);
		return -1;
	}
	if (!r || !env_on(val)) {
		ot_error("--lang %s: process %d started without %s=1 in its environment%s%s%s: "
			 "%s fires its function probes only with it (it reads it when it starts)",
			 l->lang, (int)pid, l->env, r ? " (it has " : "", r ? val : "",
			 r ? ")" : "", l->name);
		return -1;
	}
	return 0;
}

/* -- CMD: when the command is the runtime itself, its environment is
 * ours. */
static int check_cmd(const struct ot_lang *l, const char *file, const char *exe)
{
	char real[PATH_MAX];
	const char *val;

	if (!l->env || file[0] != '/' || !realpath(file, real) || strcmp(real, exe))
		return 0;
	val = getenv(l->env);
	if (env_on(val))
		return 0;
	ot_error("--lang %s: %s fires its function probes only with %s=1 in its environment, "
		 "and the command's has %s%s%s (run: %s=1 sudo -E orbit-trace --lang %s ...)",
		 l->lang, l->name, l->env, val ? l->env : "none", val ? "=" : "", val ? val : "",
		 l->env, l->lang);
	return -1;
}

/* The files a runtime is built as, by their base names: its program
 * (php8.2, php-fpm8.2, python3.11) or its library (libpython3.12.so.1.0). */
static const char *const *runtime_globs(const struct ot_lang *l)
{
	static const char *const php[] = { "php*", "libphp*.so*", NULL };
	static const char *const python[] = { "python3*", "libpython3*.so*", NULL };
	static const char *const ruby[] = { "ruby*", "libruby*.so*", NULL };

	return !strcmp(l->lang, "php") ? php : !strcmp(l->lang, "python") ? python : ruby;
}

/*
 * The runtime's file the target runs: the first of its files (its
 * program first; a -p process's mappings, a command's program and the
 * libraries the loader gives it) named as the runtime is built, with USDT
 * probes.  1 and *file (as the process names it); -1 when such files are
 * there but none has probes (*file the first); 0 none.
 */
static int runtime_file(struct ot_capture *c, const struct ot_lang *l, char *file, size_t len)
{
	const char *const *g = runtime_globs(l);
	char **paths = NULL, **names = NULL;
	size_t n = 0, k, j;
	int found = 0;

	if (ot_target_objects(&c->target, &paths, &names, &n))
		return 0;
	for (k = 0; k < n && found < 1; k++) {
		const char *base = strrchr(names[k], '/') ? strrchr(names[k], '/') + 1 : names[k];

		for (j = 0; g[j] && fnmatch(g[j], base, 0); j++)
			;
		if (!g[j])
			continue;
		if (ot_elf_file_has_section(paths[k], ".note.stapsdt") > 0) {
			snprintf(file, len, "%s", names[k]);
			found = 1;
		} else if (!found) {
			snprintf(file, len, "%s", names[k]);
			found = -1;
		}
	}
	for (k = 0; k < n; k++) {
		free(paths[k]);
		free(names[k]);
	}
	free(paths);
	free(names);
	return found;
}

/* -f's terms with the preset's file replaced by file (owned by c). */
static void arm_file(struct ot_capture *c, const struct ot_lang *l, const char *file)
{
	const char *at = c->o.functions, *hit;
	size_t fl = strlen(l->file);
	char *out = NULL, *prev = NULL;

	while ((hit = strstr(at, l->file))) {
		prev = out;
		if (asprintf(&out, "%s%.*s%s", prev ? prev : "", (int)(hit - at), at, file) < 0)
			out = NULL;
		free(prev);
		if (!out)
			return;
		at = hit + fl;
	}
	prev = out;
	if (asprintf(&out, "%s%s", prev ? prev : "", at) < 0)
		out = NULL;
	free(prev);
	if (!out)
		return;
	free(c->lang_functions);
	c->o.functions = c->lang_functions = out;
	ot_verbose("--lang %s: the target runs %s: its probes are armed there", l->lang, file);
}

enum ot_capture_result ot_capture_lang_check(struct ot_capture *c)
{
	const struct ot_lang *l = ot_lang_find(c->o.lang);
	char file[PATH_MAX];
	int bad, r;

	if (!l || c->o.list || c->o.all)
		return OT_CAPTURE_OK;
	snprintf(file, sizeof(file), "%s", l->file);
	r = runtime_file(c, l, file, sizeof(file));
	if (r < 0) {
		ot_error("--lang %s: %s has no USDT probes (no .note.stapsdt section: a build "
			 "without --with-dtrace or --enable-dtrace): %s functions cannot be "
			 "traced as scopes there", l->lang, file, l->lang);
		return OT_CAPTURE_BAD_INPUT;
	}
	if (r > 0 && strcmp(file, l->file))
		arm_file(c, l, file);
	if (r <= 0)
		snprintf(file, sizeof(file), "%s", l->file);
	if (c->o.argv)
		/* display is the command's real path; exe a descriptor's. */
		bad = c->target.display && check_cmd(l, file, c->target.display);
	else
		bad = check_pid(l, file, c->target.pid);
	return bad ? OT_CAPTURE_BAD_INPUT : OT_CAPTURE_OK;
}

/* Hits of the runtime's probes, all of them. */
static uint64_t lang_hits(struct ot_capture *c)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < c->plan.sel.n; i++)
		if (c->plan.sel.fn[i].pair)
			n += ot_tables_stats(c->tables, i)->points;
	return n;
}

void ot_capture_lang_judge(struct ot_capture *c)
{
	const struct ot_lang *l = ot_lang_find(c->o.lang);
	size_t i;

	/* A script (pyenv's shims are) may exec another build of the
	 * runtime than the file armed: no hit at all is then no count. */
	if (l && c->o.argv && ot_target_is_script(&c->target) && !lang_hits(c)) {
		char why[512];

		snprintf(why, sizeof(why), "--lang %s: none of its probes fired: the command %s is "
			 "a script, which may run another %s than the one armed (a pyenv shim runs "
			 "its own build); name the interpreter it runs (-- /path/to/%s ...)",
			 l->lang, c->o.argv[0], l->lang, l->name);
		ot_check_add(&c->check, OT_STATUS_LOSSY, why);
	}
	if (!l || !l->silent)
		return;
	for (i = 0; i < c->plan.sel.n; i++)
		if (c->plan.sel.fn[i].pair == OT_SEL_PAIR_ENTRY &&
		    !ot_tables_stats(c->tables, i)->points) {
			ot_check_add(&c->check, OT_STATUS_LOSSY, l->silent);
			return;
		}
}

/* Whether a plain name of -f is none of the program's symbols (a refusal
 * of a function it has is no hint's business). */
static int missed_name(const struct ot_capture *c)
{
	size_t n, i;
	char **names = ot_select_plain_names(c->o.functions, &n);
	int missed = 0;

	for (i = 0; i < n; i++) {
		uint64_t off, size;

		if (c->target.exe && ot_elf_lookup(c->target.exe, names[i], &off, &size, NULL, 0))
			missed = 1;
		free(names[i]);
	}
	free(names);
	return missed;
}

void ot_capture_lang_hint(const struct ot_capture *c)
{
	const char *prog = c->target.display ? strrchr(c->target.display, '/') : NULL;
	static const char *const langs[] = { "php", "python", "ruby" };
	size_t i;

	prog = prog ? prog + 1 : c->target.display;
	/* A probe of the runtime's named: the user knows its probes. */
	if (c->o.lang || !prog || ot_select_asks_usdt(c->o.functions) || !missed_name(c))
		return;
	for (i = 0; i < sizeof(langs) / sizeof(langs[0]); i++)
		if (!strncmp(prog, langs[i], strlen(langs[i])))
			ot_note("%s runs %s scripts: -f names its own C functions; a script's "
				"functions are traced with --lang %s (see the man page)", prog,
				langs[i], langs[i]);
}
