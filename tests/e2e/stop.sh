# A capture ends on SIGINT (report printed, exit 0, the -p target left
# running) and on -d (the started command is stopped, report printed).
. "$(dirname "$0")/lib.sh"
require_uprobes

# SIGINT while attached with -p to a program that would run 100 s.
# Calls in flight when the probes are enabled end as orphans (return
# probes go live first): at most the outer call under way and the inner
# calls that finish between enabling returns and entries.
"$STRESS" --stress-threads 1 --stress-hz 1000 --stress-calls 100000 --wait-go >"$work/stress.out" &
spid=$!
cleanup_pids="$spid"
wait_for "$work/stress.out" '^ready '
kill -USR1 "$spid"
"$OT" -v --json -o "$work/sigint.json" -p "$spid" -f outer,inner 2>"$work/err" &
otpid=$!
cleanup_pids="$spid $otpid"
wait_for "$work/err" 'armed 2 functions'
sleep 0.5
kill -INT "$otpid"
wait "$otpid" || fail_ "exit status $? after SIGINT"
kill -0 "$spid" 2>/dev/null || fail_ "the -p target did not survive the capture"
json_check "$work/sigint.json" \
	'j["capture"]["ended_by"] == "signal"' \
	'not j["target"]["exited"]' \
	'fn["outer"]["scopes"] > 100 and fn["inner"]["scopes"] >= 6 * fn["outer"]["scopes"] - 6' \
	'fn["outer"]["unclosed"] <= 1 and fn["inner"]["unclosed"] <= 1' \
	'fn["outer"]["orphans"] <= 2 and fn["inner"]["orphans"] <= 12'

# -d with a started command: the capture stops, and so does the command.
# The first stress program still runs the same file.  The perf backend's
# system-wide probes see its hits and must count them as other processes',
# not scopes; the multi backend's links filter by pid in the kernel, so
# none arrive.
for b in perf multi; do
	"$OT" --backend $b -d 0.5 -o "$work/duration-$b.txt" -f middle -- \
		"$STRESS" --stress-threads 1 --stress-hz 1000 --stress-calls 100000 \
		>"$work/stress.out" 2>"$work/err2" || fail_ "exit status $? with -d ($b)"
	grep -q '^capture: .*, ended by duration' "$work/duration-$b.txt" ||
		fail_ "report does not say the duration ended it: $(cat "$work/duration-$b.txt")"
	grep -Eq '^middle +[1-9][0-9]+ +0 ' "$work/duration-$b.txt" ||
		fail_ "no middle scopes at depth 0 ($b)"
	! grep -q expected "$work/stress.out" || fail_ "the command ran to its end ($b)"
done
grep -Eq ' [1-9][0-9]* of other processes;' "$work/duration-perf.txt" ||
	fail_ "the other stress program's hits were not filtered out"
grep -Eq ' 0 of other processes;' "$work/duration-multi.txt" ||
	fail_ "the multi backend let another process's hits through"
pass_
