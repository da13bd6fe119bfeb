# Attach to a running stress program with -p; its threads exist before the
# probes are armed, and it starts work on SIGUSR1 sent after arming.
. "$(dirname "$0")/lib.sh"
require_uprobes

"$STRESS" --stress-threads 2 --stress-hz 2000 --stress-calls 2000 --wait-go \
	>"$work/stress.out" &
spid=$!
cleanup_pids="$spid"
wait_for "$work/stress.out" '^ready '
"$OT" -v --json -o "$work/report.json" -p "$spid" -f outer,middle,inner \
	2>"$work/err" &
otpid=$!
cleanup_pids="$spid $otpid"
wait_for "$work/err" 'armed 3 functions'
kill -USR1 "$spid"
wait "$otpid" || fail_ "orbit-trace exit status $?"
json_check "$work/report.json" \
	'j["target"]["pid"] == '"$spid" \
	'j["records"]["lost"] == 0' \
	'fn["outer"]["scopes"] == 4000 and fn["outer"]["depths"] == {"0": 4000}' \
	'fn["middle"]["scopes"] == 8000 and fn["middle"]["depths"] == {"1": 8000}' \
	'fn["inner"]["scopes"] == 24000 and fn["inner"]["depths"] == {"2": 24000}' \
	'all(f["wrong_depth"] is None and f["outside_parent"] == 0 and f["unclosed"] == 0 and f["orphans"] == 0 for f in j["functions"])' \
	'j["capture"]["ended_by"] == "target exit"'
pass_
