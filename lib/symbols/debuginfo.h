/*
 * debuginfo.h - what DWARF and separate debug info tell, through libdwfl:
 * where a stripped file's full symbol table is, and how many inlined
 * copies of a function the compiler made (calls to those never reach a
 * probe).  The standard searches: .gnu_debuglink beside the file, .debug/,
 * /usr/lib/debug, and by build-id under /usr/lib/debug/.build-id.
 *
 * And debuginfod (libdebuginfod, when DEBUGINFOD_URLS names a server):
 * asked only through ot_debuginfo_fetch, when a name or a parameter the
 * file's own symbols lack is asked for, never behind the caller's back.
 * libdwfl would ask by itself, silently, for every stripped file it
 * opens; its sessions here see DEBUGINFOD_URLS only for a file whose debug
 * info debuginfod already gave this process (then from its cache, and
 * the DWARF file dwz shares between packages, which it may fetch too).
 * The cache is the one of the user orbit-trace runs as: a root
 * orbit-trace never reads or writes a directory another user can write
 * (a $HOME sudo kept, a DEBUGINFOD_CACHE_PATH of someone else's).  The
 * environment is the caller's again whenever these return: a command
 * started later gets the one orbit-trace was given.
 */
#ifndef OT_DEBUGINFO_H
#define OT_DEBUGINFO_H

#include <stddef.h>
#include <stdint.h>

#define OT_DEBUG_DIR "/usr/lib/debug"

struct Dwfl;
struct Dwfl_Module;

/* The separate debug file of path found locally, malloc'd: 0, or
 * -ENODATA if none. */
int ot_debuginfo_file(const char *path, char **debugfile);

/*
 * How many inlined copies of each of the n functions (raw symbol names)
 * the DWARF of path (or its separate debug info) records: counts[i].
 * Returns 0, or -ENODATA without DWARF.
 */
int ot_debuginfo_inlined(const char *path, const char *const *names, size_t n,
			 uint64_t *counts);

/*
 * A libdwfl session on path (an offline module, the searches above), its
 * symbol table looked for before it returns, and with dwarf its DWARF
 * (and the file dwz shares it with) too: the session asks for nothing
 * more afterwards.  *mod is NULL when path cannot be read.  NULL when
 * libdwfl cannot start.  The caller dwfl_end()s it.
 */
struct Dwfl *ot_debuginfo_open(const char *path, int dwarf, struct Dwfl_Module **mod);

/* 1 when DEBUGINFOD_URLS names a server to ask. */
int ot_debuginfod_enabled(void);

/* 1 when path (or its separate debug info) has DWARF. */
int ot_debuginfo_has_dwarf(const char *path);

/*
 * Ask debuginfod for path's debug info by its build id (display names the
 * file in messages): a one-line note
 * while it downloads (not a cache hit; -q silences it), the file checked
 * to be that build's.  Returns 0 with *debugfile (the file in the cache,
 * malloc'd), or -errno after saying why - an error when required, else a
 * warning: -ENOSYS no server named, -ENODATA no build id, -ENOENT no
 * server has it, -EBADMSG a file of another build, another from
 * libdebuginfod (the network).
 */
int ot_debuginfo_fetch(const char *path, const char *display, int required,
		       char **debugfile);

#endif
