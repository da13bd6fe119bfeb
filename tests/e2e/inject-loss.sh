# --backend inject: every record a ring drops is counted when it happens
# (the uprobe backends' kernel rings: loss.sh), whatever follows - a
# burst that overflows the ring, then no call at all (no later record
# carries the news).  Records kept plus
# records lost is exactly two per call, and the status is not ok.  A
# forked child is taken back at its fork and runs untraced; calls
# of signal handlers that interrupt the runtime are counted as such, and
# every one of them is either a scope or counted.
. "$(dirname "$0")/lib.sh"
T="$top/build/targets"
[ "$(uname -m)" = x86_64 ] || skip_ "inject is for x86-64"

# every_record FILE CALLS: each call's entry and return, kept or counted lost.
every_record() {
	json_check "$1" 'j["records"]["samples"] + j["records"]["lost"] == 2 * '"$2" \
		'j["records"]["lost"] > 0 and j["status"] == "lossy"' \
		'fn["tick"]["scopes"] * 2 + fn["tick"]["unclosed"] + fn["tick"]["orphans"] == j["records"]["samples"]'
}

# -- CMD: the burst, then the program exits.
"$OT" --backend inject --ring-kb 4 --json -o "$work/cmd.json" -f tick -- "$T/burst" 400000 \
	>"$work/cmd.out" 2>"$work/cmd.err" || fail_ "-- CMD: exit status $?: $(cat "$work/cmd.err")"
grep -q '^calls 400000 ' "$work/cmd.out" || fail_ "the burst did not run: $(cat "$work/cmd.out")"
every_record "$work/cmd.json" 400000
# -p: the burst, then the program lives on without a call; the capture
# ends by SIGINT.
"$T/burst" 400000 wait >"$work/p.out" &
spid=$!
cleanup_pids="$spid"
wait_for "$work/p.out" '^ready '
"$OT" -v --backend inject --ring-kb 4 --json -o "$work/p.json" -p "$spid" -f tick 2>"$work/p.err" &
otpid=$!
cleanup_pids="$spid $otpid"
wait_for "$work/p.err" 'armed 1 functions'
kill -USR1 "$spid"
wait_for "$work/p.out" '^calls 400000'
kill -INT "$otpid"
wait "$otpid" || fail_ "-p: exit status $?: $(cat "$work/p.err")"
every_record "$work/p.json" 400000
kill "$spid"
wait "$spid" || fail_ "the target exited with $?"

# A forked child bursts (the parent makes no traced call): taken back at
# its fork, it runs untraced - another process, as for the uprobe
# backends - and the traced one lost nothing.
"$OT" --backend inject --ring-kb 4 --json -o "$work/child.json" -f tick -- "$T/burst" 100000 child \
	>"$work/child.out" 2>"$work/child.err" || fail_ "child: exit status $?: $(cat "$work/child.err")"
grep -q '^calls 100000 ' "$work/child.out" || fail_ "the child did not run: $(cat "$work/child.out")"
json_check "$work/child.json" 'j["status"] == "ok" and j["records"]["lost"] == 0' \
	'j["records"]["foreign"] + j["records"]["foreign_lost"] == 0' \
	'j["inject"]["children"]["taken_back"] == 1'
"$OT" --backend inject --ring-kb 4 -o "$work/child.txt" -f tick -- "$T/burst" 100000 child \
	>/dev/null 2>&1 || fail_ "child, text: exit status $?"
grep -q '^fork: 1 child the process forked taken back at its fork' "$work/child.txt" ||
	fail_ "child: no fork line: $(cat "$work/child.txt")"
! grep -q 'ring-kb' "$work/child.txt" || fail_ "the child's losses are blamed on the traced process"

# A timer's handler calling hwork() every 200 us while work() runs: every
# handler call is a scope or counted as not recorded, and those counted
# are said to be what they are, not ring losses.  The rings hold every
# record (32 MB: 2M records of 16 bytes for 500,000 calls and the
# handlers'), so the verdict never depends on how fast the tracer drains.
# alt: a 1 kHz timer whose handler runs on an alternate stack above the
# interrupted thread's stack (the runtime must not take it for code a
# longjmp returned to, and reset what it interrupted).
for mode in plain alt; do
	arg=$mode; [ "$mode" = plain ] && arg=
	"$OT" --backend inject --ring-kb 32768 --json -o "$work/sig-$mode.json" -f work,hwork -- \
		"$T/sigcalls" 500000 $arg >"$work/sig-$mode.out" 2>"$work/sig-$mode.err" ||
		fail_ "sigcalls $mode: exit status $?: $(cat "$work/sig-$mode.err")"
	handled=$(sed -n 's/^work 500000 hwork //p' "$work/sig-$mode.out")
	[ -n "$handled" ] || fail_ "sigcalls $mode did not finish: $(cat "$work/sig-$mode.out")"
	json_check "$work/sig-$mode.json" 'fn["work"]["scopes"] == 500000 and j["records"]["lost"] == 0' \
		'fn["hwork"]["scopes"] + j["inject"]["unrecorded_calls"]["signal_handlers"] == '"$handled" \
		'fn["work"]["unclosed"] + fn["work"]["orphans"] + fn["hwork"]["unclosed"] + fn["hwork"]["orphans"] == 0' \
		'j["status"] == ("lossy" if j["inject"]["unrecorded_calls"]["signal_handlers"] else "ok")' \
		'all("signal handlers" in r for r in j["reasons"])'
done
"$OT" --backend inject --ring-kb 32768 -o "$work/sig.txt" -f work,hwork -- "$T/sigcalls" 500000 >/dev/null 2>&1 ||
	fail_ "sigcalls, text: exit status $?"
# The warning is there exactly when the status is lossy (an ok report
# with the warning was not checked before).
lossy=no warned=no
grep -q '^status: lossy' "$work/sig.txt" && lossy=yes
grep -Eq "^warning: [0-9]+ calls of signal handlers that interrupted inject's runtime on their thread were not recorded: scope counts are low$" \
	"$work/sig.txt" && warned=yes
[ $lossy = $warned ] || fail_ "lossy: $lossy, the handlers' calls said: $warned: $(cat "$work/sig.txt")"
! grep -q 'ring-kb' "$work/sig.txt" || fail_ "handlers' calls blamed on the rings: $(cat "$work/sig.txt")"
pass_
