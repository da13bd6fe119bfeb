# The uprobe backends on a process that execs itself twice, then sum,
# from its first thread and from a second one.  An exec from a second
# thread ends the first, and the exec'ing thread takes the process's id;
# the multi backend's links follow the first thread's task (the kernel's
# uprobe_multi pid filter), so it makes them again for each new program,
# the process held stopped until then where it may be.  Counts exact
# (sum's mix against bpftrace's count of the same uprobe), output that of
# an untraced run: under -- CMD, -p with --freeze, -p without (multi:
# not held, so lossy, saying why) and --follow; a command that blocks
# SIGCONT is not held either (continuing it would leave one pending).
. "$(dirname "$0")/lib.sh"
require_uprobes
T="$top/build/targets"
command -v bpftrace >/dev/null || skip_ "bpftrace is not installed (make deps installs it)"

# The same work whichever thread execs: bpftrace's count in each case.
for mode in first thread; do
	m=$mode
	[ "$m" = first ] && m=
	n=$(bpftrace -e "uprobe:$T/sum:mix /pid == cpid/ { @n = count(); }" \
		-c "$T/execs 2 1000 $m -- $T/sum 2000" 2>/dev/null | sed -n 's/^@n: //p')
	[ -n "$n" ] && [ "$n" -gt 0 ] || fail_ "bpftrace counted no call of sum's mix ($mode)"
	eval "mix_$mode=$n"
done
[ "$mix_first" = "$mix_thread" ] || fail_ "bpftrace: mix $mix_first from the first thread, $mix_thread from a second"
mix=$mix_first
"$T/execs" 2 1000 -- "$T/sum" 2000 >"$work/plain.out"
"$T/execs" 2 1000 thread -- "$T/sum" 2000 >"$work/plain.thread"
cmp -s "$work/plain.out" "$work/plain.thread" || fail_ "execs prints differently from a thread"

# exact FILE BACKEND MODE: every call counted, status ok; with multi the
# execs from a second thread (3, or none) armed again, each held.
exact() {
	te=0
	[ "$3" = thread ] && te=3
	json_check "$1" 'j["status"] == "ok" and j["records"]["lost"] == 0' \
		'(fn["work"]["scopes"], fn["work"]["unclosed"], fn["work"]["orphans"]) == (3000, 0, 0)' \
		'(fn["sum:mix"]["scopes"], fn["sum:mix"]["unclosed"]) == ('"$mix"', 0)'
	if [ "$2" = multi ]; then
		json_check "$1" 'j["target"]["thread_execs"] == {"count": '$te', "held": '$te', "unprobed_ns": 0}'
	else
		json_check "$1" '"thread_execs" not in j["target"]'
	fi
}

# run_p BACKEND MODE NAME [OPTION]: -p on execs started before orbit-trace,
# released once armed; its output (after its ready line) as untraced.
run_p() {
	b=$1 m=$2 run=$3
	shift 3
	[ "$m" = first ] && m=
	"$T/execs" 2 1000 wait $m -- "$T/sum" 2000 >"$work/$run.out" &
	spid=$!
	cleanup_pids="$spid"
	wait_for "$work/$run.out" '^ready '
	"$OT" -v --backend "$b" "$@" --json -o "$work/$run.json" -p "$spid" \
		-f "work,$T/sum:mix" 2>"$work/$run.err" &
	otpid=$!
	cleanup_pids="$spid $otpid"
	wait_for "$work/$run.err" 'armed 2 functions'
	kill -USR1 "$spid"
	wait "$otpid" || fail_ "$run: exit status $?: $(cat "$work/$run.err")"
	wait "$spid" || fail_ "$run: the target exited with $?"
	sed 1d "$work/$run.out" >"$work/$run.rest"
	cmp -s "$work/plain.out" "$work/$run.rest" || fail_ "$run: output changed: $(cat "$work/$run.out")"
	json_check "$work/$run.json" 'j["capture"]["ended_by"] == "target exit"'
}

for b in multi perf; do
	for mode in first thread; do
		m=$mode
		[ "$m" = first ] && m=
		run="cmd-$b-$mode"
		"$OT" --backend "$b" --json -o "$work/$run.json" -f "work,$T/sum:mix" -- \
			"$T/execs" 2 1000 $m -- "$T/sum" 2000 >"$work/$run.out" 2>"$work/$run.err" ||
			fail_ "$run: exit status $?: $(cat "$work/$run.err")"
		cmp -s "$work/plain.out" "$work/$run.out" || fail_ "$run: output changed: $(cat "$work/$run.out")"
		exact "$work/$run.json" "$b" "$mode"
		run_p "$b" "$mode" "p-$b-$mode-freeze" --freeze
		exact "$work/p-$b-$mode-freeze.json" "$b" "$mode"
		run_p "$b" "$mode" "p-$b-$mode"
		[ "$b/$mode" = multi/thread ] || exact "$work/p-$b-$mode.json" "$b" "$mode"
	done
done

# -p without --freeze: the multi backend may not stop the process (its
# parent would see it), so the programs after each exec from a thread ran
# unprobed until armed again: lossy, saying why; never more than the truth.
json_check "$work/p-multi-thread.json" 'j["status"] == "lossy"' \
	'j["target"]["thread_execs"]["count"] == 3 and j["target"]["thread_execs"]["held"] == 0' \
	'1000 <= fn["work"]["scopes"] <= 3000 and fn["sum:mix"]["scopes"] <= '"$mix" \
	'any(r.startswith("3 of 3 programs the process exec'"'"'d from a thread other than its first ran unprobed for up to ") and r.endswith(" before their probes were armed again (--freeze holds a -p process there instead): their calls meanwhile are not counted") for r in j["reasons"])'

# The text report says what was done at the execs.
"$OT" -o "$work/cmd.txt" -f "work,$T/sum:mix" -- "$T/execs" 2 1000 thread -- "$T/sum" 2000 \
	>/dev/null 2>&1 || fail_ "text: exit status $?"
grep -qxF "exec: 3 programs the process exec'd from a thread other than its first armed again, each before it ran (the process held stopped meanwhile)" \
	"$work/cmd.txt" || fail_ "the text report does not say what it did at the execs: $(head -4 "$work/cmd.txt")"
grep -qx "status: ok" "$work/cmd.txt" || fail_ "text: $(grep status "$work/cmd.txt")"

# A command that blocks SIGCONT (its threads and the programs they exec
# inherit the mask) is not held: continuing it would leave a SIGCONT
# pending that it could see.  Lossy, saying why; output unchanged.
command -v perl >/dev/null || skip_ "perl is not installed"
block='sigprocmask(SIG_BLOCK, POSIX::SigSet->new(SIGCONT)) or die; exec @ARGV or die'
perl -MPOSIX -e "$block" "$T/execs" 2 1000 thread -- "$T/sum" 2000 >"$work/cont.plain"
cmp -s "$work/plain.out" "$work/cont.plain" || fail_ "execs under perl prints differently"
"$OT" --json -o "$work/cont.json" -f "$T/execs:work,$T/sum:mix" -- perl -MPOSIX -e "$block" \
	"$T/execs" 2 1000 thread -- "$T/sum" 2000 >"$work/cont.out" 2>"$work/cont.err" ||
	fail_ "SIGCONT blocked: exit status $?: $(cat "$work/cont.err")"
cmp -s "$work/plain.out" "$work/cont.out" || fail_ "SIGCONT blocked: output changed: $(cat "$work/cont.out")"
json_check "$work/cont.json" 'j["status"] == "lossy"' \
	'j["target"]["thread_execs"]["count"] == 3 and j["target"]["thread_execs"]["held"] == 0' \
	'any("(it blocked SIGCONT, so it was not stopped there)" in r for r in j["reasons"])'

# --follow: the kernel's table of followed processes is by process, and
# its links filter on no pid: exact with no arming again, here for a
# shell's child that execs from a thread.
"$OT" --follow --json -o "$work/follow.json" -f "$T/execs:work,$T/sum:mix" -- \
	sh -c "$T/execs 2 1000 thread -- $T/sum 2000; true" >"$work/follow.out" 2>"$work/follow.err" ||
	fail_ "--follow: exit status $?: $(cat "$work/follow.err")"
cmp -s "$work/plain.out" "$work/follow.out" || fail_ "--follow: output changed: $(cat "$work/follow.out")"
json_check "$work/follow.json" 'j["status"] == "ok" and "thread_execs" not in j["target"]' \
	'fn["execs:work"]["scopes"] == 3000 and fn["sum:mix"]["scopes"] == '"$mix" \
	'[(p["comm"], p["scopes"]) for p in j["processes"] if p["function"] == "sum:mix"] == [("sum", '"$mix"')]'
pass_
