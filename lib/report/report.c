/*
 * What the report's files share: the words and figures the text and the
 * JSON both say, computed once so that the two cannot disagree, and the
 * duration people read in every text line.
 */
#include "report_priv.h"
#include "util/figures.h"
#include "util/escape.h"

#include <inttypes.h>
#include <sys/wait.h>

const char *ot_report_duration(uint64_t ns, char *buf, size_t len)
{
	return ot_figs_duration(ns, buf, len);
}

const char *ot_report_status(const struct ot_report *r)
{
	return ot_status_name(r->check->status);
}

uint64_t ot_report_node_self(const struct ot_tree_node *n)
{
	return n->total_ns > n->child_ns ? n->total_ns - n->child_ns : 0;
}

enum ot_report_end ot_report_target_end(const struct ot_report *r, int *code)
{
	if (!r->target_exited || r->target_status < 0)
		return OT_END_UNKNOWN;
	if (WIFEXITED(r->target_status)) {
		*code = WEXITSTATUS(r->target_status);
		return OT_END_EXIT;
	}
	if (WIFSIGNALED(r->target_status)) {
		*code = WTERMSIG(r->target_status);
		return OT_END_SIGNAL;
	}
	return OT_END_UNKNOWN;
}

const struct ot_values *ot_report_value(const struct ot_report_func *fn, size_t k,
					const char **what)
{
	*what = NULL;
	if (k == 0) {
		*what = fn->arg_name;
		return fn->arg;
	}
	if (k <= fn->nmore) {
		*what = fn->more_name[k - 1];
		return fn->more[k - 1];
	}
	if (k == fn->nmore + 1) {
		*what = fn->ret_name;
		return fn->ret;
	}
	return NULL;
}

void ot_report_text_string(FILE *f, const char *s, int quoted)
{
	ot_escape_text(f, s, quoted ? OT_ESC_QUOTED : 0);
}
