# --freeze: a busy -p target is stopped while its 600 functions are armed
# and disarmed, so the kernel's breakpoint writes need no TLB shootdowns and
# wake no waiters on other CPUs (without it: ~1.5 IPIs per function each
# way; what it saves is measured by scripts/arm-cost.sh, not here: the
# IPIs of /proc/interrupts are the whole machine's); it runs in between, is
# never left stopped, and a process someone else had stopped stays
# stopped.  Another user's process is stopped for disarming as well.
. "$(dirname "$0")/lib.sh"
require_uprobes

python3 "$top/tests/e2e/targets/gen-funcs.py" 600 "$work/many.c"
cc -O1 -pthread -o "$work/many" "$work/many.c" || fail_ "cannot build the target"
"$work/many" spin >"$work/spin.out" &
tpid=$!
cleanup_pids=$tpid
wait_for "$work/spin.out" '^ready '

state() { awk '/^State:/ { print $2 }' "/proc/$tpid/status"; }

"$OT" --freeze --json -o "$work/r.json" -p "$tpid" -f 'f0*' -d 0.3 2>"$work/err" ||
	fail_ "exit status $?: $(cat "$work/err")"
json_check "$work/r.json" \
	'j["arming"]["functions_armed"] == 600 and j["arming"]["frozen"]' \
	'j["disarming"]["frozen"] == (j["arming"]["backend"] == "multi")' \
	'sum(f["scopes"] for f in j["functions"]) > 600'
[ "$(state)" != T ] || fail_ "the target was left stopped"
# The target says each SIGCONT that continued it: once after arming, and
# once after disarming where that is frozen too.
conts() { grep -c '^continued' "$work/spin.out" || true; }
want=$(python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); print(1 + j["disarming"]["frozen"])' "$work/r.json")
[ "$(conts)" = "$want" ] || fail_ "the target was continued $(conts) times, expected $want"

# Already stopped by someone else: orbit-trace does not continue it.
kill -STOP "$tpid"
"$OT" -q --freeze -o /dev/null -p "$tpid" -f f0001 -d 0.1 || fail_ "stopped target: exit status $?"
[ "$(state)" = T ] && [ "$(conts)" = "$want" ] || fail_ "a target stopped by someone else was continued"
kill -CONT "$tpid"

# Another user's process is stopped for disarming too, and continued:
# orbit-trace keeps CAP_KILL for --freeze when it drops its privileges.
if command -v setpriv >/dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups "$(public "$work/many")" spin >"$work/other.out" &
	opid=$!
	cleanup_pids="$tpid $opid"
	wait_for "$work/other.out" '^ready '
	"$OT" --freeze --json -o "$work/other.json" -p "$opid" -f f0001 -d 0.1 2>"$work/other.err" ||
		fail_ "another user's process: exit status $?: $(cat "$work/other.err")"
	[ ! -s "$work/other.err" ] || fail_ "another user's process: $(cat "$work/other.err")"
	json_check "$work/other.json" 'j["arming"]["frozen"]' \
		'j["disarming"]["frozen"] == (j["arming"]["backend"] == "multi")'
	[ "$(awk '/^State:/ { print $2 }' "/proc/$opid/status")" != T ] ||
		fail_ "another user's process was left stopped"
	kill "$opid"
fi

expect_rc 2 /dev/null "$work/usage.err" "$OT" --freeze -f f0001 -- "$work/many" count 1
grep -q -- '--freeze applies to -p' "$work/usage.err" || fail_ "--freeze with -- CMD: $(cat "$work/usage.err")"
pass_
