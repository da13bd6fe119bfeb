/*
 * lang_table.h - the runtimes --lang knows, as Debian 12 builds them: each
 * one's -f terms (a pair of USDT probes keyed by the function's name), the
 * file its probes are in, and what must hold in its process for them to
 * fire.  Read by lib/cli (the option's check, its terms after -f) and by
 * lib/capture/lang (the target checked before arming).  A table only:
 * nothing here opens a file or prints.
 */
#ifndef OT_LANG_TABLE_H
#define OT_LANG_TABLE_H

/* What a --lang runtime is: its terms, the file its probes are in (a
 * path, or a library's soname), its name for people, the variable that
 * must be non-zero in its environment when it starts for its probes to
 * fire (NULL: none), and what to say when its entry probe never fired
 * (NULL: nothing). */
struct ot_lang {
	const char *lang, *terms, *file, *name, *env, *silent;
};

/* lang's, or NULL for a runtime the table does not know (or NULL). */
const struct ot_lang *ot_lang_find(const char *lang);

/* lang's -f terms, or NULL for a runtime the table does not know. */
const char *ot_lang_preset(const char *lang);

#endif
