/*
 * Separate debug info through libdwfl's searches, and through debuginfod
 * (libdebuginfod) when asked: the environment libdwfl's own client reads
 * is arranged around each session, and the cache chosen, here alone.
 */
#include "debuginfo.h"
#include "elffile.h"
#include "util/error.h"
#include "util/xalloc.h"

#include <dwarf.h>
#include <elfutils/debuginfod.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEBUG_DIR OT_DEBUG_DIR
#define URLS_VAR DEBUGINFOD_URLS_ENV_VAR
#define CACHE_VAR DEBUGINFOD_CACHE_PATH_ENV_VAR
#define ID_MAX 64	/* build id bytes */

extern char **environ;

/*
 * Build ids whose debug info debuginfod gave this process: libdwfl's
 * sessions on those files may ask it (its cache answers).  Process-wide,
 * as the cache it stands for.
 */
static char **fetched;
static size_t nfetched;

/* The build id of path as lowercase hex into hex (2 * ID_MAX + 1), and
 * its bytes into id: the length, 0 without one, or -errno. */
static int build_id(const char *path, unsigned char *id, char *hex)
{
	const void *bits = NULL;
	struct ot_elf_file *f;
	ssize_t n = 0;
	int i, err;

	*hex = 0;
	err = ot_elf_file_open(path, 0, &f);
	if (err)
		return err == -ENOEXEC ? 0 : err;	/* no ELF file: no build id */
	n = dwelf_elf_gnu_build_id(ot_elf_file_elf(f), &bits);
	if (n > ID_MAX || n < 0)
		n = 0;
	if (n)
		memcpy(id, bits, (size_t)n);
	for (i = 0; i < n; i++)
		sprintf(hex + 2 * i, "%02x", id[i]);
	ot_elf_file_close(f);
	return (int)n;
}

static int was_fetched(const char *hex)
{
	size_t i;

	for (i = 0; *hex && i < nfetched; i++)
		if (!strcmp(fetched[i], hex))
			return 1;
	return 0;
}

int ot_debuginfod_enabled(void)
{
	const char *u = getenv(URLS_VAR);

	return u && *u;
}

/* One directory of a path: ours or root's, and writable by nobody else
 * (a sticky one, /tmp, may hold what comes below it).  0, or why. */
static int own_one(const char *dir, int last, char *why, size_t whylen)
{
	uid_t me = geteuid();
	struct stat st;

	if (lstat(dir, &st)) {
		snprintf(why, whylen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode) || (st.st_uid != me && st.st_uid != 0) ||
	    ((st.st_mode & 022) && (last || !(st.st_mode & S_ISVTX)))) {
		snprintf(why, whylen, "%s is %s", dir, !S_ISDIR(st.st_mode) ? "not a directory" :
			 st.st_uid != me && st.st_uid != 0 ? "another user's" :
			 "writable by others");
		return -1;
	}
	return 0;
}

/*
 * Whether path is a directory only this user (or root) can change, and
 * so is every directory above it: a root orbit-trace reads and writes
 * there, and a link planted by someone else would send it elsewhere.
 * 0 with its real path in real (PATH_MAX), which no one else can
 * redirect; or a reason in why.
 */
static int own_dir(const char *path, char *real, char *why, size_t whylen)
{
	char at[PATH_MAX];
	const char *p, *next;
	size_t len;

	if (!realpath(path, real)) {
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (own_one("/", !real[1], why, whylen))
		return -1;
	for (p = real + 1; *p; p = next + 1) {
		next = strchr(p, '/');
		len = next ? (size_t)(next - real) : strlen(real);
		memcpy(at, real, len);
		at[len] = 0;
		if (own_one(at, !next, why, whylen))
			return -1;
		if (!next)
			break;
	}
	return 0;
}

/* dir made if it is not there, where its parent is ours: 0 with its real
 * path in real (PATH_MAX), or why. */
static int make_own_dir(const char *dir, char *real, char *why, size_t whylen)
{
	char parent[PATH_MAX], made[PATH_MAX];
	const char *base = strrchr(dir, '/');
	struct stat st;

	if (stat(dir, &st) && errno == ENOENT) {
		/* Made in the parent's real path, which nobody else can move. */
		snprintf(parent, sizeof(parent), "%.*s", base ? (int)(base - dir) : 0, dir);
		if (own_dir(!base ? "." : *parent ? parent : "/", real, why, whylen))
			return -1;
		if (snprintf(made, sizeof(made), "%s/%s", real, base ? base + 1 : dir) >=
		    (int)sizeof(made) || (mkdir(made, 0700) && errno != EEXIST)) {
			snprintf(why, whylen, "%s: %s", dir, strerror(errno));
			return -1;
		}
		return own_dir(made, real, why, whylen);
	}
	return own_dir(dir, real, why, whylen);
}

/*
 * The cache libdebuginfod is to use, into dir: DEBUGINFOD_CACHE_PATH
 * when it is this user's own, else ~/.cache/debuginfod_client of the
 * user orbit-trace runs as, from the password database ($HOME may be
 * another user's under sudo).  0, or -EACCES after saying why.
 */
static int cache_dir(char *dir, size_t len)
{
	static int warned;	/* once a run: the variable does not change */
	const char *env = getenv(CACHE_VAR);
	struct passwd *pw = getpwuid(geteuid());
	char why[PATH_MAX + 64], real[PATH_MAX];

	if (env && *env) {
		if (!make_own_dir(env, real, why, sizeof(why)))
			return snprintf(dir, len, "%s", real) >= (int)len ? -EACCES : 0;
		if (!warned++)
			ot_warn("%s=%s is not for orbit-trace's user (%s): using its own cache",
				CACHE_VAR, env, why);
	}
	if (!pw || !pw->pw_dir || pw->pw_dir[0] != '/') {
		ot_error("no home directory for uid %u: nowhere to keep debuginfod's cache",
			 (unsigned)geteuid());
		return -EACCES;
	}
	snprintf(dir, len, "%s/.cache", pw->pw_dir);
	if (make_own_dir(dir, real, why, sizeof(why))) {
		ot_error("debuginfod's cache cannot be kept in %s: %s", dir, why);
		return -EACCES;
	}
	return snprintf(dir, len, "%s/debuginfod_client", real) >= (int)len ? -EACCES : 0;
}

/*
 * The environment libdebuginfod reads while a session or a fetch runs:
 * DEBUGINFOD_URLS hidden (its slot holds an empty value, which it takes
 * for none) unless asking is allowed, then the cache chosen.  Undone by
 * env_leave, entries in their order: a command started later gets
 * orbit-trace's environment as it came.
 */
struct env_ctx {
	char **slot;		/* DEBUGINFOD_URLS's entry, hidden */
	char *hidden;		/* what it held */
	int cache_set;		/* DEBUGINFOD_CACHE_PATH set here */
	char *old_cache;	/* its value before, or NULL: none */
};

static int env_enter(struct env_ctx *e, int allow)
{
	static char empty[] = URLS_VAR "=";
	char dir[PATH_MAX];
	const char *old;
	char **p;

	memset(e, 0, sizeof(*e));
	if (!allow) {
		for (p = environ; p && *p; p++) {
			if (!strncmp(*p, URLS_VAR "=", sizeof(URLS_VAR))) {
				e->slot = p;
				e->hidden = *p;
				*p = empty;
				break;
			}
		}
		return 0;
	}
	if (cache_dir(dir, sizeof(dir)))
		return -EACCES;
	old = getenv(CACHE_VAR);
	e->old_cache = old ? ot_xstrdup(old) : NULL;
	e->cache_set = !setenv(CACHE_VAR, dir, 1);
	return 0;
}

static void env_leave(struct env_ctx *e)
{
	if (e->slot)
		*e->slot = e->hidden;
	if (e->cache_set && e->old_cache)
		setenv(CACHE_VAR, e->old_cache, 1);
	else if (e->cache_set)
		unsetenv(CACHE_VAR);
	free(e->old_cache);
	memset(e, 0, sizeof(*e));
}

/* The note while a download runs, once per file. */
struct note {
	const char *path, *hex;
	int said;
};

/* Called while libdebuginfod waits: once a server sends the file (it
 * has a URL then; a server without it sends none), the note. */
static int progress(debuginfod_client *c, long done, long total)
{
	struct note *n = debuginfod_get_user_data(c);
	const char *url = debuginfod_get_url(c);

	(void)done;
	if (n && !n->said && url) {
		n->said = 1;
		if (total > 0)
			ot_note("downloading the debug info of %s (build id %s, %ld KB) from %s",
				n->path, n->hex, (total + 1023) / 1024, url);
		else
			ot_note("downloading the debug info of %s (build id %s) from %s", n->path,
				n->hex, url);
	}
	return 0;
}

struct Dwfl *ot_debuginfo_open(const char *path, int dwarf, struct Dwfl_Module **out)
{
	static char *debuginfo_path = (char *)"+:.debug:" DEBUG_DIR;
	static const Dwfl_Callbacks cb = {
		.find_elf = dwfl_build_id_find_elf,
		.find_debuginfo = dwfl_standard_find_debuginfo,
		.debuginfo_path = &debuginfo_path,
	};
	const unsigned char *id = NULL;
	char hex[2 * ID_MAX + 1] = "";
	struct note n = { path, hex, 0 };
	struct env_ctx env;
	Dwfl *dwfl = dwfl_begin(&cb);
	Dwfl_Module *mod;
	Dwarf_Addr bias;
	GElf_Addr at;
	int allow, len, i;

	*out = NULL;
	if (!dwfl)
		return NULL;
	mod = dwfl_report_offline(dwfl, "", path, -1);
	dwfl_report_end(dwfl, NULL, NULL);
	if (!mod)
		return dwfl;
	/* The file's own note, read without looking for anything. */
	len = dwfl_module_build_id(mod, &id, &at);
	for (i = 0; i < len && i < ID_MAX; i++)
		sprintf(hex + 2 * i, "%02x", id[i]);
	allow = len > 0 && len <= ID_MAX && was_fetched(hex);
	if (env_enter(&env, allow))
		return dwfl;
	if (allow) {
		debuginfod_client *c = dwfl_get_debuginfod_client(dwfl);

		if (c) {
			debuginfod_set_user_data(c, &n);
			debuginfod_set_progressfn(c, progress);
		}
	}
	/* Each search now, while the environment says what it may ask. */
	dwfl_module_getsymtab(mod);
	if (dwarf)
		dwfl_module_getdwarf(mod, &bias);
	env_leave(&env);
	*out = mod;
	return dwfl;
}

int ot_debuginfo_file(const char *path, char **debugfile)
{
	const char *file = NULL;
	Dwfl_Module *mod;
	Dwfl *dwfl = ot_debuginfo_open(path, 0, &mod);

	*debugfile = NULL;
	if (!dwfl)
		return -ENODATA;
	/* The symbol table's search named the debug file (or found none). */
	if (mod && dwfl_module_getsymtab(mod) > 0)
		dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, &file);
	if (file)
		*debugfile = strdup(file);
	dwfl_end(dwfl);
	return *debugfile ? 0 : -ENODATA;
}

int ot_debuginfo_has_dwarf(const char *path)
{
	Dwfl_Module *mod;
	Dwfl *dwfl = ot_debuginfo_open(path, 1, &mod);
	Dwarf_Addr bias;
	int has = mod && dwfl_module_getdwarf(mod, &bias);

	if (dwfl)
		dwfl_end(dwfl);
	return has;
}

/* Why debuginfod gave nothing, as an error or a warning. */
static void say_not_fetched(int required, const char *path, const char *hex, int err)
{
	char msg[PATH_MAX + 512];
	const char *urls = getenv(URLS_VAR);

	if (err == -ENOENT)
		snprintf(msg, sizeof(msg), "no debuginfod server has the debug info of %s "
			 "(build id %s): asked %s", path, hex, urls);
	else if (err == -EBADMSG)
		snprintf(msg, sizeof(msg), "debuginfod (%s) sent a file for build id %s that is "
			 "not the debug info of %s: not used", urls, hex, path);
	else
		snprintf(msg, sizeof(msg), "cannot fetch the debug info of %s (build id %s) from "
			 "debuginfod (%s): %s", path, hex, urls, strerror(-err));
	if (required)
		ot_error("%s", msg);
	else
		ot_warn("%s", msg);
}

/* libdebuginfod's answer for build id, with the note while it downloads:
 * its file (malloc'd) and the build id it has checked, or -errno. */
static int ask(const char *display, const unsigned char *id, int n, const char *hex,
	       char **file)
{
	unsigned char got[ID_MAX];
	char gothex[2 * ID_MAX + 1];
	struct note note = { display, hex, 0 };
	struct env_ctx env;
	debuginfod_client *c;
	int fd;

	*file = NULL;
	if (env_enter(&env, 1))
		return -EACCES;
	c = debuginfod_begin();
	if (!c) {
		env_leave(&env);
		return -ENOMEM;
	}
	debuginfod_set_user_data(c, &note);
	debuginfod_set_progressfn(c, progress);
	fd = debuginfod_find_debuginfo(c, id, n, file);
	debuginfod_end(c);
	env_leave(&env);
	if (fd < 0)
		return fd;
	close(fd);
	/* A server may be wrong or lie: the file must be that build's. */
	if (!*file || build_id(*file, got, gothex) != n || memcmp(got, id, (size_t)n)) {
		free(*file);
		*file = NULL;
		return -EBADMSG;
	}
	return 0;
}

int ot_debuginfo_fetch(const char *path, const char *display, int required,
		       char **debugfile)
{
	unsigned char id[ID_MAX];
	char hex[2 * ID_MAX + 1];
	int n, err;

	*debugfile = NULL;
	if (!ot_debuginfod_enabled())
		return -ENOSYS;
	n = build_id(path, id, hex);
	if (n <= 0) {
		if (required)
			ot_error("%s has no build id: debuginfod cannot be asked for its debug info",
				 display);
		else
			ot_warn("%s has no build id: debuginfod cannot be asked for its debug info",
				display);
		return -ENODATA;
	}
	err = ask(display, id, n, hex, debugfile);
	if (err == -EACCES)
		return err;
	if (err) {
		say_not_fetched(required, display, hex, err);
		return err;
	}
	if (!was_fetched(hex)) {
		fetched = ot_xreallocarray(fetched, nfetched + 1, sizeof(*fetched));
		fetched[nfetched++] = ot_xstrdup(hex);
	}
	ot_verbose("%s: debug info from debuginfod, %s", display, *debugfile);
	return 0;
}

struct inline_walk {
	const char *const *names;
	size_t n;
	uint64_t *counts;
};

static void count_inlined(Dwarf_Die *die, struct inline_walk *w)
{
	Dwarf_Die child, origin;
	Dwarf_Attribute attr;

	if (dwarf_tag(die) == DW_TAG_inlined_subroutine &&
	    dwarf_attr_integrate(die, DW_AT_abstract_origin, &attr) &&
	    dwarf_formref_die(&attr, &origin)) {
		Dwarf_Attribute la;
		const char *name = NULL;
		size_t i;

		if (dwarf_attr_integrate(&origin, DW_AT_linkage_name, &la))
			name = dwarf_formstring(&la);
		if (!name)
			name = dwarf_diename(&origin);
		for (i = 0; name && i < w->n; i++)
			if (!strcmp(w->names[i], name))
				w->counts[i]++;
	}
	if (dwarf_child(die, &child) == 0) {
		do
			count_inlined(&child, w);
		while (dwarf_siblingof(&child, &child) == 0);
	}
}

int ot_debuginfo_inlined(const char *path, const char *const *names, size_t n,
			 uint64_t *counts)
{
	struct inline_walk w = { names, n, counts };
	Dwarf_Off off = 0, next;
	Dwfl_Module *mod;
	Dwarf_Addr bias;
	Dwarf *dw;
	Dwfl *dwfl;
	size_t hsize;

	memset(counts, 0, n * sizeof(*counts));
	dwfl = ot_debuginfo_open(path, 1, &mod);
	if (!dwfl)
		return -ENODATA;
	dw = mod ? dwfl_module_getdwarf(mod, &bias) : NULL;
	if (!dw) {
		dwfl_end(dwfl);
		return -ENODATA;
	}
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(dw, off + hsize, &cu))
			count_inlined(&cu, &w);
		off = next;
	}
	dwfl_end(dwfl);
	return 0;
}
