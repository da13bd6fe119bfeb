/*
 * outfile.h - the files orbit-trace writes (-o, --json -o, --trace,
 * --folded, --prom-textfile, --restore -o), opened so that nobody can turn
 * them against the host when it runs as root:
 *
 *  - the path is walked a component at a time from directories held open
 *    (O_PATH, O_NOFOLLOW); a symbolic link on the way is followed only
 *    where the kernel's fs.protected_symlinks would follow it, whatever
 *    that sysctl says: not one in a sticky world-writable directory (/tmp)
 *    owned by neither the caller (its effective uid) nor the directory's
 *    owner.  /dev/stdout and a link of the caller's own still work;
 *  - in such a directory an existing file that belongs to someone else
 *    (neither the caller nor the directory's owner, as
 *    fs.protected_regular) or that has other hard links is refused;
 *  - a file is created with O_CREAT | O_EXCL, mode 0600 (as perf.data):
 *    a report may hold strings read from other users' processes.  A file
 *    that exists keeps its owner and mode;
 *  - nothing is emptied before something is written to it: an existing
 *    file is truncated at the first byte written, and a file that never
 *    got one is left as it was (one created for it is removed again).
 *
 * Two ways to write.  In place (ot_outfile_open): one stream for the whole
 * capture.  By replacement (ot_outfile_replacing, for a file other
 * programs read while it changes, --prom-textfile): each version written
 * to a temporary beside it, named unpredictably and created O_EXCL (what
 * mkstemp(3) does, in the directory already walked), then renamed over it.
 * A file that is not regular (a terminal, a pipe, /dev/null) is written
 * as it is, and cannot be replaced.
 *
 * Errors of opening and closing are printed here ("cannot write PATH:
 * ..."); a version's, by its caller.  Nothing exits.
 */
#ifndef OT_OUTFILE_H
#define OT_OUTFILE_H

#include <stdio.h>
#include <sys/types.h>

struct ot_outfile;

/*
 * path opened (or created, 0600) to be written in place.  Returns 0 and
 * *out, or -errno after printing why.  Nothing is written to it yet.
 */
int ot_outfile_open(const char *path, struct ot_outfile **out);

/* The stream to write to: the file is emptied at its first byte. */
FILE *ot_outfile_stream(struct ot_outfile *o);

/*
 * Close (o freed; NULL: nothing).  keep: what was written is the file's,
 * and a failed write or close is printed and returned as -errno.  Not
 * keep (the capture failed): what the stream still buffers is dropped,
 * and a file that got nothing is left as it was, or removed if it was
 * created for it.  Returns 0 or -errno.
 */
int ot_outfile_close(struct ot_outfile *o, int keep);

/*
 * path to be replaced by each version ot_outfile_next writes: a regular
 * file or none, in a directory where a temporary can be made (tried now:
 * made and removed).  Its versions get the mode of the file they replace,
 * else 0644 less the umask (node_exporter, another user, reads them).
 * Returns 0 and *out, or -errno after printing why.
 */
int ot_outfile_replacing(const char *path, struct ot_outfile **out);

/* A new version: a stream to a fresh temporary beside the file, or NULL
 * with errno set (printed by the caller, who says how often). */
FILE *ot_outfile_next(struct ot_outfile *o);

/* The version closed and renamed over the file (the temporary removed on
 * failure).  0, or -errno (printed by the caller). */
int ot_outfile_commit(struct ot_outfile *o);

#endif
