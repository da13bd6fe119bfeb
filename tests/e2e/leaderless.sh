# -p on a process whose first thread has ended (pthread_exit) while another
# runs on: it is no zombie.  The kernel's uprobe_multi filter is bound to
# that first thread and would arm nothing, so auto takes perf (saying
# why) and --backend multi refuses; perf and inject count every call.
. "$(dirname "$0")/lib.sh"
require_uprobes
T="$top/build/targets"

# run NAME ARGS...: orbit-trace ARGS -p on a fresh leaderless, 5000 calls.
run() {
	tag=$1
	shift
	"$T/leaderless" 5000 >"$work/$tag.out" &
	spid=$!
	cleanup_pids="$spid"
	wait_for "$work/$tag.out" '^ready '
	"$OT" -v --json -o "$work/$tag.json" -p "$spid" -f work "$@" 2>"$work/$tag.err" &
	otpid=$!
	cleanup_pids="$spid $otpid"
	wait_for "$work/$tag.err" 'armed 1 functions'
	kill -USR1 "$spid"
	wait "$otpid" || fail_ "$tag: exit status $?: $(cat "$work/$tag.err")"
	wait "$spid" || fail_ "$tag: the target exited with $?"
	grep -qx 'work 5000' "$work/$tag.out" || fail_ "$tag: the target did not finish: $(cat "$work/$tag.out")"
	json_check "$work/$tag.json" 'j["status"] == "ok" and fn["work"]["scopes"] == 5000' \
		'j["capture"]["ended_by"] == "target exit"'
}
run auto
json_check "$work/auto.json" 'j["arming"]["backend"] == "perf"'
grep -q "multi backend unavailable (the first thread of process [0-9]* has ended, and uprobe_multi's filter is bound to it (it would arm nothing)): using perf" \
	"$work/auto.err" || fail_ "auto does not say why perf: $(cat "$work/auto.err")"
run perf --backend perf
[ "$(uname -m)" = x86_64 ] && run inject --backend inject
"$T/leaderless" 10 >"$work/m.out" &
spid=$!
cleanup_pids="$spid"
wait_for "$work/m.out" '^ready '
expect_rc 1 /dev/null "$work/m.err" "$OT" --backend multi -f work -p "$spid"
grep -qx "orbit-trace: cannot use the multi backend: the first thread of process $spid has ended, and uprobe_multi's filter is bound to it (it would arm nothing)" \
	"$work/m.err" || fail_ "multi: $(cat "$work/m.err")"
kill "$spid"
pass_
