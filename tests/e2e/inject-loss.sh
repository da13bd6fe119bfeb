# --backend inject: every record a thread's ring drops is counted when it
# happens, whatever follows - a burst that overflows the ring, then no
# call at all (no later record carries the news).  Records kept plus
# records lost is exactly two per call, and the status is not ok.
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
pass_
