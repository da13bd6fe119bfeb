# How the target ended, in the report, for -p processes as for commands
# (targets/ends: step() N times, the last of them ending the process from
# inside fault(), a traced call under way):
# - a -p target killed by SIGSEGV mid-capture, on multi, perf and inject:
#   the signal named, the status failed (exit status 3) with the reason,
#   the program's own output and exit status as untraced; who said it:
#   the kernel's exit tracepoint (lib/probes/exitwatch) on multi and perf,
#   ptrace on inject (lib/process/exitinfo's pidfd and /proc fallbacks
#   have their unit test, test_exitinfo);
# - one killed by SIGABRT, one by SIGSYS (a seccomp filter), one exiting
#   3 (said, status ok) and one killed by SIGTERM (an ending, ok);
# - python3.11 (-p) faulting for real, on every backend;
# - a command (-- CMD) killed by SIGSEGV, on every backend.
. "$(dirname "$0")/lib.sh"
require_uprobes
T="$top/build/targets"
[ -x "$T/ends" ] || skip_ "make targets first"

# The capture line and the verdict of a text report, durations and pids
# taken out.
verdict() {
	sed -nE -e 's/^capture: [^,]*, /capture: /p' -e '/^status: /p' \
		-e 's/\(pid [0-9]+\)/(pid N)/; /^check failed: /p' "$1"
}

# pcap BACKEND HOW NAME [ARGS...]: orbit-trace -p on ends HOW, started
# waiting; its report in $work/NAME (text, or JSON with --json in ARGS),
# its exit status in $otrc, the target's in $trc, its output $work/NAME.out (not $n: wait_for's).
pcap() {
	b=$1 how=$2 rep=$3
	shift 3
	rm -f "$work/in"
	mkfifo "$work/in"
	"$T/ends" "$how" 100 wait <"$work/in" >"$work/$rep.out" &
	tpid=$!
	cleanup_pids=$tpid
	exec 3>"$work/in"
	wait_for "$work/$rep.out" '^ready '
	"$OT" -v --backend "$b" -o "$work/$rep" "$@" -p "$tpid" -f step,fault 2>"$work/$rep.err" &
	otpid=$!
	cleanup_pids="$tpid $otpid"
	wait_for "$work/$rep.err" 'armed 2 functions'
	echo go >&3
	exec 3>&-
	set +e
	wait "$tpid"
	trc=$?
	wait "$otpid"
	otrc=$?
	set -e
	cleanup_pids=""
	[ "$(sed 1d "$work/$rep.out")" = "100 steps" ] || fail_ "$rep: the target printed $(cat "$work/$rep.out")"
}

# Untraced, for the exit statuses the traced runs must keep.
for how in segv abort sys exit3; do
	set +e
	"$T/ends" $how 100 >/dev/null 2>&1
	eval "plain_$how=$?"
	set -e
done
[ "$plain_segv" = 139 ] && [ "$plain_abort" = 134 ] && [ "$plain_exit3" = 3 ] ||
	fail_ "untraced exit statuses: $plain_segv $plain_abort $plain_exit3"

# SIGSEGV mid-capture, -p, every backend: the text says it.
# fault() leaves by a tail call to another library: perf, whose return
# probes cannot be guarded against a stack switch, sees its return
# instructions only, and says so.
inexact="fault: calls that leave it by a tail call through a pointer or to another library are not seen returning (--returns insn); its counts may be short"
for b in multi perf inject; do
	pcap $b segv segv-$b.txt
	[ $trc = "$plain_segv" ] || fail_ "segv $b: the target's exit status $trc, untraced $plain_segv"
	[ $otrc = 3 ] || fail_ "segv $b: exit status $otrc, expected 3: $(cat "$work/segv-$b.txt.err")"
	more=
	[ $b != perf ] || more="check failed: $inexact
"
	[ "$(verdict "$work/segv-$b.txt")" = "capture: ended by target exit (killed by SIGSEGV); drained at least every 50 ms
status: failed
${more}check failed: the target (pid N) was killed by SIGSEGV during the capture: a crash, of the program or of its tracing" ] ||
		fail_ "segv $b: $(cat "$work/segv-$b.txt")"
	grep -q "^orbit-trace: check failed: the target (pid $tpid) was killed by SIGSEGV" \
		"$work/segv-$b.txt.err" || fail_ "segv $b: not said on standard error"
	# The traced call the crash ended is unclosed, the rest are scopes.
	grep -Eq '^step +99 +0 +0 +1 +0 ' "$work/segv-$b.txt" || fail_ "segv $b: step's row"
done

# The same as JSON: the signal by number and name, and who said it.
for b in multi perf inject; do
	pcap $b segv segv-$b.json --json
	[ $otrc = 3 ] || fail_ "segv $b json: exit status $otrc"
	from=kernel
	[ $b = inject ] && from=ptrace
	json_check "$work/segv-$b.json" 'j["status"] == "failed"' \
		'j["target"]["exited"] and j["target"]["signal"] == 11' \
		'j["target"]["signal_name"] == "SIGSEGV"' \
		"j['target']['exit_from'] == '$from'" \
		'"exit_status" not in j["target"]' \
		"j['reasons'] == ['$inexact'] * ('$b' == 'perf') + ['the target (pid $tpid) was killed by SIGSEGV during the capture: a crash, of the program or of its tracing']"
done

# SIGABRT (abort()) and SIGSYS (a forbidden system call under seccomp)
# fail too; exit(3) and SIGTERM are endings: said, status ok.
pcap multi abort abort.json --json
[ $trc = "$plain_abort" ] && [ $otrc = 3 ] || fail_ "abort: exit statuses $trc, $otrc"
json_check "$work/abort.json" 'j["status"] == "failed"' 'j["target"]["signal_name"] == "SIGABRT"' \
	'any("was killed by SIGABRT during the capture" in r for r in j["reasons"])'
pcap perf abort abort-perf.txt
[ $otrc = 3 ] && grep -q '^capture: .*(killed by SIGABRT)' "$work/abort-perf.txt" ||
	fail_ "abort perf: $otrc $(cat "$work/abort-perf.txt")"
pcap multi sys sys.json --json
[ $otrc = 3 ] || fail_ "sys: exit status $otrc"
json_check "$work/sys.json" 'j["status"] == "failed"' 'j["target"]["signal_name"] == "SIGSYS"'
for b in multi perf inject; do
	pcap $b exit3 exit3-$b.txt
	[ $trc = 3 ] && [ $otrc = 0 ] || fail_ "exit3 $b: exit statuses $trc, $otrc: $(cat "$work/exit3-$b.txt.err")"
	st=ok
	[ $b != perf ] || st=lossy	# fault's returns, as above
	[ "$(verdict "$work/exit3-$b.txt")" = "capture: ended by target exit (exit status 3); drained at least every 50 ms
status: $st" ] || fail_ "exit3 $b: $(cat "$work/exit3-$b.txt")"
done

# SIGTERM from outside while the capture runs: said, not a crash.
"$STRESS" --stress-threads 1 --stress-hz 1000 --stress-calls 100000 --wait-go >"$work/stress.out" &
spid=$!
cleanup_pids=$spid
wait_for "$work/stress.out" '^ready '
"$OT" -v --json -o "$work/term.json" -p "$spid" -f outer 2>"$work/term.err" &
otpid=$!
cleanup_pids="$spid $otpid"
wait_for "$work/term.err" 'armed 1 functions'
kill -TERM "$spid"
wait "$otpid" || fail_ "SIGTERM: exit status $?: $(cat "$work/term.err")"
cleanup_pids=""
json_check "$work/term.json" 'j["status"] == "ok"' 'j["target"]["signal_name"] == "SIGTERM"'

# A program nobody here wrote: python3.11 faulting for real (a NULL read
# through ctypes) while -p traces its interpreter loop, every backend.
PY=/usr/bin/python3.11
if [ -x "$PY" ]; then
	for b in multi perf inject; do
		rm -f "$work/in"
		mkfifo "$work/in"
		"$PY" -c 'import ctypes, os, sys
print("ready", os.getpid(), flush=True)
sys.stdin.readline()
print(sum(range(1000)), flush=True)
ctypes.string_at(0)' <"$work/in" >"$work/py-$b.out" 2>/dev/null &
		tpid=$!
		cleanup_pids=$tpid
		exec 3>"$work/in"
		wait_for "$work/py-$b.out" '^ready '
		"$OT" -v --backend $b --json -o "$work/py-$b.json" -p "$tpid" \
			-f PyObject_Call,_PyEval_EvalFrameDefault 2>"$work/py-$b.err" &
		otpid=$!
		cleanup_pids="$tpid $otpid"
		wait_for "$work/py-$b.err" 'armed 2 functions'
		echo go >&3
		exec 3>&-
		set +e
		wait "$tpid"
		trc=$?
		wait "$otpid"
		otrc=$?
		set -e
		cleanup_pids=""
		[ $trc = 139 ] && [ $otrc = 3 ] || fail_ "python3.11 $b: exit statuses $trc, $otrc: $(cat "$work/py-$b.err")"
		[ "$(sed 1d "$work/py-$b.out")" = 499500 ] || fail_ "python3.11 $b: it printed $(cat "$work/py-$b.out")"
		# perf: both functions may leave by an indirect tail call, and
		# its return probes cannot be guarded: return instructions, said.
		json_check "$work/py-$b.json" 'j["status"] == "failed"' 'j["target"]["signal_name"] == "SIGSEGV"' \
			"j['reasons'][-1] == 'the target (pid $tpid) was killed by SIGSEGV during the capture: a crash, of the program or of its tracing'" \
			"[r.split(':')[0] for r in j['reasons'][:-1]] == ['PyObject_Call', '_PyEval_EvalFrameDefault'] * ('$b' == 'perf')"
	done
fi

# A command killed by SIGSEGV, every backend: its own exit status kept.
for b in multi perf inject; do
	set +e
	"$OT" --backend $b -o "$work/cmd-$b.txt" -f step,fault -- "$T/ends" segv 100 \
		>"$work/cmd-$b.out" 2>"$work/cmd-$b.err"
	otrc=$?
	set -e
	[ $otrc = 3 ] || fail_ "-- CMD $b: exit status $otrc: $(cat "$work/cmd-$b.err")"
	[ "$(cat "$work/cmd-$b.out")" = "100 steps" ] || fail_ "-- CMD $b: the command printed $(cat "$work/cmd-$b.out")"
	more=
	[ $b != perf ] || more="check failed: $inexact
"
	[ "$(verdict "$work/cmd-$b.txt")" = "capture: ended by target exit (killed by SIGSEGV); drained at least every 50 ms
status: failed
${more}check failed: the target (pid N) was killed by SIGSEGV during the capture: a crash, of the program or of its tracing" ] ||
		fail_ "-- CMD $b: $(cat "$work/cmd-$b.txt")"
done
pass_
