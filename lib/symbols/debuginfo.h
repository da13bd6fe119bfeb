/*
 * debuginfo.h - what DWARF and separate debug info tell, through libdwfl:
 * where a stripped file's full symbol table is, and how many inlined
 * copies of a function the compiler made (calls to those never reach a
 * probe).  The standard searches: .gnu_debuglink beside the file, .debug/,
 * /usr/lib/debug, and by build-id under /usr/lib/debug/.build-id.
 */
#ifndef OT_DEBUGINFO_H
#define OT_DEBUGINFO_H

#include <stddef.h>
#include <stdint.h>

#define OT_DEBUG_DIR "/usr/lib/debug"

/* The separate debug file of path, malloc'd: 0, or -ENODATA if none. */
int ot_debuginfo_file(const char *path, char **debugfile);

/*
 * How many inlined copies of each of the n functions (raw symbol names)
 * the DWARF of path (or its separate debug info) records: counts[i].
 * Returns 0, or -ENODATA without DWARF.
 */
int ot_debuginfo_inlined(const char *path, const char *const *names, size_t n,
			 uint64_t *counts);

#endif
