/*
 * lang.c - --lang's runtime checked in its target before arming (lang.h):
 * its file among the process's mappings, its variable in the environment
 * the process started with.
 */
#include "lang.h"
#include "symbols/select.h"
#include "capture_priv.h"
#include "process/procfs.h"
#include "util/error.h"
#include "util/xalloc.h"

#include <errno.h>
#include <fcntl.h>
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
static int check_pid(const struct ot_lang *l, pid_t pid)
{
	char exe[PATH_MAX], val[64];
	int r;

	if (!maps_file(pid, l->file, exe, sizeof(exe))) {
		ot_error("--lang %s: process %d does not run %s (%s is not among its mappings; "
			 "its program is %s): its probes cannot fire there", l->lang, (int)pid,
			 l->name, l->file, exe[0] ? exe : "unknown");
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
static int check_cmd(const struct ot_lang *l, const char *exe)
{
	char real[PATH_MAX];
	const char *val;

	if (!l->env || l->file[0] != '/' || !realpath(l->file, real) || strcmp(real, exe))
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

enum ot_capture_result ot_capture_lang_check(struct ot_capture *c)
{
	const struct ot_lang *l = ot_lang_find(c->o.lang);
	int bad;

	if (!l || c->o.list || c->o.all)
		return OT_CAPTURE_OK;
	if (c->o.argv)
		/* display is the command's real path; exe a descriptor's. */
		bad = c->target.display && check_cmd(l, c->target.display);
	else
		bad = check_pid(l, c->target.pid);
	return bad ? OT_CAPTURE_BAD_INPUT : OT_CAPTURE_OK;
}

void ot_capture_lang_judge(struct ot_capture *c)
{
	const struct ot_lang *l = ot_lang_find(c->o.lang);
	size_t i;

	if (!l || !l->silent)
		return;
	for (i = 0; i < c->plan.sel.n; i++)
		if (c->plan.sel.fn[i].pair == OT_SEL_PAIR_ENTRY &&
		    !ot_pair_stats(c->pair, i)->points) {
			ot_check_add(&c->check, OT_STATUS_LOSSY, l->silent);
			return;
		}
}

void ot_capture_lang_hint(const struct ot_capture *c)
{
	const char *prog = c->target.display ? strrchr(c->target.display, '/') : NULL;
	static const char *const langs[] = { "php", "python", "ruby" };
	size_t i;

	prog = prog ? prog + 1 : c->target.display;
	/* A probe of the runtime's named: the user knows its probes. */
	if (c->o.lang || !prog || ot_select_asks_usdt(c->o.functions))
		return;
	for (i = 0; i < sizeof(langs) / sizeof(langs[0]); i++)
		if (!strncmp(prog, langs[i], strlen(langs[i])))
			ot_note("%s runs %s scripts: -f names its own C functions; a script's "
				"functions are traced with --lang %s (see the man page)", prog,
				langs[i], langs[i]);
}
