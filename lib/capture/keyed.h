/*
 * keyed.h - a capture's strings and the rows it makes while it runs:
 * counts per distinct string of each ":str" argument (a USDT probe's, or
 * a function's value), for each pair of probes
 * (usdt:FILE:PROVIDER:ENTRY..RETURN@argN) one row per distinct key,
 * whose scopes the pairing nests by key (OT_EV_KEYED), and for each pair
 * of functions (ENTRYFN..RETURNFN@argN) one row, its scopes matched by
 * key and process (a request's pointer from its start to its end).
 *
 * The report's and the pairing's arrays are sized at start: c->nrows rows,
 * the selection's then OT_KEYED_ROWS for keys (lib/scopes/keys).  Strings
 * a probe could not read in the moment are read from the process's memory
 * afterwards, or from the file mapped there (its maps read at arming).
 * Part of lib/capture: prints nothing, never exits.
 */
#ifndef OT_CAPTURE_KEYED_H
#define OT_CAPTURE_KEYED_H

#include "capture_priv.h"

/* Rows for keys, all pairs together (each pair also has an overflow row). */
#define OT_KEYED_ROWS 256
/* The strings the report shows per argument, most frequent first. */
#define OT_KEYED_TOP_STRS 10

/* c->nrows and c->names, from the plan; before the sinks are made. */
void ot_keyed_size(struct ot_capture *c);

/* Row i's string's name ("arg2:str", "path:str"), "" when it has none. */
const char *ot_keyed_str_name(const struct ot_capture *c, size_t i);

/* Whether strings may be read afterwards (ot_keyed_started must run
 * before orbit-trace drops its capabilities, for a command). */
int ot_keyed_reads_strs(const struct ot_capture *c);

/* The drain made: strings read afterwards, the process's maps kept. */
void ot_keyed_armed(struct ot_capture *c);

/* A command stopped right after its exec (ot_target_release_at_exec):
 * its maps (its program's and the loader's) kept instead of those read
 * at arming (the command's before its exec), its memory opened. */
void ot_keyed_started(struct ot_capture *c);

/* An event for the selection's pairing: 1 if taken here (a probe of a
 * pair or with a string), 0 for the caller to feed (a function's entry
 * with a string is counted here, then fed by the caller). */
int ot_keyed_feed(struct ot_capture *c, const struct ot_event *ev);

/*
 * Function pairs ("ENTRYFN..RETURNFN@argN", a row each after the
 * selection's): the pairing's scope hook tells each scope here; a
 * RETURNFN scope whose key an ENTRYFN entry opened in its process makes
 * the pair's scope, from that entry to its return (one with no entry
 * open, an orphan).  They are fed to the pairing by ot_keyed_flush,
 * called between events (never from inside the pairing), as keyed
 * scopes: pushed and closed at once.
 */
void ot_keyed_scope(struct ot_capture *c, const struct ot_scope *sc);
void ot_keyed_flush(struct ot_capture *c);
/* After the last event, before ot_pair_finish: entries whose return never
 * came, open calls of their rows (unclosed). */
void ot_keyed_finish(struct ot_capture *c);

/* Rows the report shows: the selection's and the keys' given so far. */
size_t ot_keyed_nreport(const struct ot_capture *c);

/* fn[sel.n .. ot_keyed_nreport) described, and every row's strings. */
void ot_keyed_report(struct ot_capture *c, struct ot_report_func *fn);

/* Into the check's reasons (lossy): returns of pairs with no entry open
 * (orphans), hits whose key went to an overflow row, strings unreadable. */
void ot_keyed_judge(struct ot_capture *c);

void ot_keyed_free(struct ot_capture *c);

#endif
