/*
 * backend_figs.c - the backends' own figures for the report
 * (backend_figs.h): inject's statistics and multi's re-armed execs, in
 * the order and words the report has always printed them.
 */
#include "backend_figs.h"
#include "util/escape.h"

#include <inttypes.h>
#include <stdio.h>

/* "armed N of M functions in T" goes on with what inject paused and put
 * in the process; then the programs the process exec'd, what it let go. */
static void inject_arming(struct ot_figures *f, const struct ot_inject_stats *in, size_t events,
			  const char *objects, size_t ring_kb)
{
	char p[32], why[sizeof(in->exec_why) * 4];

	ot_figs_head(f, OT_FIG_ARMING, ", the target paused %s: %zu %s in %zu code region%s "
		     "(backend inject), clock %s, %zu KB ring per thread",
		     ot_figs_duration(in->arm_pause_ns, p, sizeof(p)), events, objects,
		     in->regions, in->regions == 1 ? "" : "s", in->clock ? in->clock : "tsc",
		     ring_kb);
	if (in->execs)
		ot_figs_line(f, OT_FIG_ARMING, "exec: %u program%s the process exec'd, "
			     "instrumented at %s entry point%s", in->execs,
			     in->execs == 1 ? "" : "s", in->execs == 1 ? "its" : "their",
			     in->execs == 1 ? "" : "s");
	if (in->exec_why[0])
		ot_figs_line(f, OT_FIG_ARMING, "exec: a program the process exec'd is not "
			     "traced: %s", ot_escape_text_buf(in->exec_why, why, sizeof(why)));
	if (in->let_go[0])
		ot_figs_line(f, OT_FIG_ARMING, "let go: the process was let go before the end, %s",
			     ot_escape_text_buf(in->let_go, why, sizeof(why)));
	if (in->walker)
		ot_figs_line(f, OT_FIG_ARMING, "returns: seen at return instructions for %zu "
			     "function%s (%s walks its stacks: no return address is moved)",
			     in->exits_functions, in->exits_functions == 1 ? "" : "s",
			     ot_escape_text_buf(in->walker, why, sizeof(why)));
	if (in->children)
		ot_figs_line(f, OT_FIG_ARMING, "fork: %zu child%s the process forked taken back "
			     "at %s fork (run untraced, as other processes)", in->children,
			     in->children == 1 ? "" : "ren", in->children == 1 ? "its" : "their");
	if (in->children_kept)
		ot_figs_line(f, OT_FIG_ARMING, "fork: %zu child%s the process forked still "
			     "instrumented (%s): orbit-trace --restore -p PID takes it back",
			     in->children_kept, in->children_kept == 1 ? "" : "ren",
			     ot_escape_text_buf(in->child_why, why, sizeof(why)));
	if (in->vfork_calls)
		ot_figs_line(f, OT_FIG_ARMING, "vfork: %" PRIu64 " calls of its vfork children "
			     "(another process each, until it execs) not counted", in->vfork_calls);
}

/* JSON "inject": what it put in the process, and what it refused. */
static void inject_json(struct ot_figures *f, const struct ot_inject_stats *in)
{
	ot_figs_section(f, OT_FIG_ARMING, "inject");
	ot_figs_str(f, "clock", in->clock ? in->clock : "tsc");
	ot_figs_num(f, "code_regions", in->regions);
	ot_figs_num(f, "code_bytes", in->code_bytes);
	ot_figs_num(f, "private_bytes", in->private_bytes);
	ot_figs_num(f, "shared_bytes", in->shared_bytes);
	ot_figs_bool(f, "unwinder_hooked", in->unwinder);
	ot_figs_num(f, "pause_ns", in->arm_pause_ns);
	ot_figs_refused(f, "refused");
	ot_figs_section(f, OT_FIG_ARMING, "unrecorded_calls");
	ot_figs_num(f, "threads", in->unrecorded_threads);
	ot_figs_num(f, "signal_handlers", in->unrecorded_handlers);
	ot_figs_num(f, "vfork_children", in->vfork_calls);
	ot_figs_end(f);
	ot_figs_num(f, "runtime_resets", in->resets);
	ot_figs_section(f, OT_FIG_ARMING, "children");
	ot_figs_num(f, "taken_back", in->children);
	ot_figs_num(f, "kept", in->children_kept);
	ot_figs_str(f, "kept_why", in->child_why[0] ? in->child_why : NULL);
	ot_figs_end(f);
	ot_figs_num(f, "execs", in->execs);
	ot_figs_str(f, "exec_untraced", in->exec_why[0] ? in->exec_why : NULL);
	ot_figs_str(f, "let_go", in->let_go[0] ? in->let_go : NULL);
	ot_figs_str(f, "stack_walker", in->walker);
	ot_figs_num(f, "exits_functions", in->exits_functions);
	ot_figs_end(f);
}

/* The calls its runtime could not record: counts are low. */
static void inject_warnings(struct ot_figures *f, const struct ot_inject_stats *in)
{
	if (in->unrecorded_handlers)
		ot_figs_line(f, OT_FIG_WARNING, "warning: %" PRIu64 " calls of signal handlers "
			     "that interrupted inject's runtime on their thread were not recorded: "
			     "scope counts are low", in->unrecorded_handlers);
	if (in->resets)
		ot_figs_line(f, OT_FIG_WARNING, "warning: %" PRIu64 " times a signal handler left "
			     "inject's runtime by a longjmp: recording went on, the call it was "
			     "recording then may be unclosed", in->resets);
	if (in->unrecorded_threads)
		ot_figs_line(f, OT_FIG_WARNING, "warning: %" PRIu64 " calls of threads inject had "
			     "no room for (more threads at once than its slots and ring areas) were "
			     "not recorded: scope counts are low", in->unrecorded_threads);
}

/* "disarmed N functions in T" goes on with what removal put back and
 * left; JSON "inject_removal". */
static void inject_removal(struct ot_figures *f, const struct ot_inject_stats *in)
{
	char p[32], m[32];

	if (in->gone)
		ot_figs_head(f, OT_FIG_DISARMING, " (the target had exited: nothing to restore)");
	else if (in->left_bytes) {
		snprintf(m, sizeof(m), "%.1f MB", (double)in->left_bytes / 1048576.0);
		ot_figs_head(f, OT_FIG_DISARMING, ", the target paused %s (%zu return address%s "
			     "put back; %s left mapped: %s)",
			     ot_figs_duration(in->disarm_pause_ns, p, sizeof(p)),
			     in->returns_restored, in->returns_restored == 1 ? "" : "es", m,
			     in->left_why);
	} else if (in->children_kept) {
		ot_figs_head(f, OT_FIG_DISARMING, ", the target paused %s (%zu return address%s "
			     "put back; nothing left mapped here; %zu forked child%s still "
			     "instrumented)", ot_figs_duration(in->disarm_pause_ns, p, sizeof(p)),
			     in->returns_restored, in->returns_restored == 1 ? "" : "es",
			     in->children_kept, in->children_kept == 1 ? "" : "ren");
	} else {
		ot_figs_head(f, OT_FIG_DISARMING, ", the target paused %s (%zu return address%s "
			     "put back; nothing left mapped)",
			     ot_figs_duration(in->disarm_pause_ns, p, sizeof(p)),
			     in->returns_restored, in->returns_restored == 1 ? "" : "es");
	}
	ot_figs_section(f, OT_FIG_DISARMING, "inject_removal");
	ot_figs_bool(f, "target_exited", in->gone);
	ot_figs_num(f, "pause_ns", in->disarm_pause_ns);
	ot_figs_num(f, "returns_restored", in->returns_restored);
	ot_figs_num(f, "calls_without_return", in->noret);
	ot_figs_num(f, "left_mapped_bytes", in->left_bytes);
	ot_figs_str(f, "left_why", in->left_why);
	ot_figs_end(f);
}

void ot_figs_inject(struct ot_figures *f, const struct ot_inject_stats *in, size_t events,
		    const char *objects, size_t ring_kb)
{
	inject_arming(f, in, events, objects, ring_kb);
	inject_json(f, in);
	inject_warnings(f, in);
	inject_removal(f, in);
}

void ot_figs_thread_execs(struct ot_figures *f, const struct ot_probes_thread_execs *te)
{
	const char *held = "(the process held stopped meanwhile)";

	ot_figs_section(f, OT_FIG_TARGET, "thread_execs");
	ot_figs_num(f, "count", te->count);
	ot_figs_num(f, "held", te->held);
	ot_figs_num(f, "unprobed_ns", te->unprobed_ns);
	ot_figs_end(f);
	if (!te->count)
		return;
	/* The programs the process exec'd from a thread other than its first,
	 * armed again; before they ran where the process was held. */
	if (te->held == te->count)
		ot_figs_line(f, OT_FIG_ARMING, "exec: %" PRIu64 " program%s the process exec'd "
			     "from a thread other than its first armed again%s before it ran %s",
			     te->count, te->count == 1 ? "" : "s", te->count == 1 ? "" : ", each",
			     held);
	else if (!te->held)
		ot_figs_line(f, OT_FIG_ARMING, "exec: %" PRIu64 " program%s the process exec'd "
			     "from a thread other than its first armed again after %s had begun "
			     "to run (see status)", te->count, te->count == 1 ? "" : "s",
			     te->count == 1 ? "it" : "they");
	else
		ot_figs_line(f, OT_FIG_ARMING, "exec: %" PRIu64 " program%s the process exec'd "
			     "from a thread other than its first armed again: %" PRIu64 " before "
			     "they ran %s, %" PRIu64 " after (see status)", te->count,
			     te->count == 1 ? "" : "s", te->held, held, te->count - te->held);
}
