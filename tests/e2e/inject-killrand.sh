# --backend inject SIGKILLed at random instants of its arming and
# disarming (issue 32, item 4): a busy multi-threaded target (3 threads
# calling outer/middle/inner) is traced KILLS times (default 200, as
# issue 32 asks of make check), each orbit-trace killed after a random
# delay spanning its arming, a short capture (-d) and its disarming.  The verdict is not
# timing: the target is still running after every kill, ends with its own
# expected output and exit status 0, and --restore leaves nothing of
# orbit-trace's mapped.
. "$(dirname "$0")/lib.sh"
[ "$(uname -m)" = x86_64 ] || skip_ "inject is for x86-64"
[ "$(id -u)" = 0 ] || [ "$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo 0)" = 0 ] ||
	skip_ "needs root or ptrace_scope 0"
kills=${KILLS:-200}
calls=$(( (kills * 700 / 1000 + 20) * 1000 ))

"$STRESS" --stress-threads 3 --stress-hz 1000 --stress-calls "$calls" --wait-go >"$work/t.out" 2>&1 &
spid=$!
cleanup_pids="$spid"
wait_for "$work/t.out" '^ready '
kill -USR1 "$spid"
i=0
while [ $i -lt "$kills" ]; do
	i=$((i + 1))
	# 0 to 599 ms: arming (~50-300 ms here), the 100 ms capture, disarming.
	delay=$(od -An -N2 -tu2 /dev/urandom | awk '{ printf "%.3f", ($1 % 600) / 1000 }')
	"$OT" --backend inject -o /dev/null -p "$spid" -f outer,middle,inner -d 0.1 \
		>/dev/null 2>"$work/k$i.err" &
	ot=$!
	cleanup_pids="$spid $ot"
	sleep "$delay"
	kill -KILL "$ot" 2>/dev/null || true
	wait "$ot" 2>/dev/null || true
	# A zombie answers kill -0: its state says it died.
	kill -0 "$spid" 2>/dev/null && [ "$(awk '{ print $3 }' "/proc/$spid/stat")" != Z ] || {
		st=0; wait "$spid" || st=$?
		fail_ "kill $i (after ${delay}s): the target is gone (status $st): $(tail -3 "$work/t.out"; cat "$work/k$i.err")"
	}
	echo "$i $delay" >>"$work/kills"
	rm -f "$work/k$i.err"
done
expect_rc 0 "$work/r.out" "$work/r.err" "$OT" --restore -p "$spid"
! grep -q orbit-trace "/proc/$spid/maps" || fail_ "--restore left memory of orbit-trace's mapped"
expect_rc 0 "$work/r2.out" "$work/r2.err" "$OT" --restore --json -p "$spid"
python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))["found"] is not False)' "$work/r2.out" ||
	fail_ "a second --restore still finds something: $(cat "$work/r2.out")"
wait "$spid" || fail_ "the target exited with status $?: $(tail -3 "$work/t.out")"
tail -n 1 "$work/t.out" | grep -q "\"expected\": {\"outer\": $((3 * calls)), " ||
	fail_ "the target's own output: $(tail -3 "$work/t.out")"
pass_
