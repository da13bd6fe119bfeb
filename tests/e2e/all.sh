# -a: every process running the traced file.  Two processes of the stress
# program, started and waiting before orbit-trace arms, each do their own
# number of calls; the report counts both, with a row per process, and
# orbit-trace's own activity is not in it; --slower-than names each slow
# scope's own process.  Ended by SIGINT once both
# have exited, so the counts are exact.
. "$(dirname "$0")/lib.sh"
require_uprobes

"$STRESS" --stress-threads 1 --stress-hz 1000 --stress-calls 300 --wait-go >"$work/s1.out" &
p1=$!
"$STRESS" --stress-threads 2 --stress-hz 1000 --stress-calls 100 --wait-go >"$work/s2.out" &
p2=$!
cleanup_pids="$p1 $p2"
wait_for "$work/s1.out" '^ready '
wait_for "$work/s2.out" '^ready '
"$OT" -v -a --json --slower-than-all 1ns -o "$work/r.ndjson" \
	-f "$STRESS:outer,$STRESS:middle,libc.so.6:getpid" 2>"$work/err" &
ot=$!
cleanup_pids="$p1 $p2 $ot"
wait_for "$work/err" 'armed 3 functions'
kill -USR1 "$p1" "$p2"
wait "$p1" "$p2" || fail_ "a stress program failed"
kill -INT "$ot"
wait "$ot" || fail_ "exit status $?: $(cat "$work/err")"
# NDJSON: a line per slow scope (all of them: 1ns, nested ones too) with its own process,
# then the report.
tail -n 1 "$work/r.ndjson" >"$work/r.json"
python3 - "$work/r.ndjson" "$p1" "$p2" <<'PY' || fail_ "slow lines: $(head -3 "$work/r.ndjson")"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
pids = {int(sys.argv[2]), int(sys.argv[3])}
stress = [l for l in lines[:-1] if l["name"].startswith("orbit-stress:")]
assert len(stress) == 1500 and {l["pid"] for l in stress} == pids
PY
json_check "$work/r.json" 'j["status"] == "ok"' 'j["capture"]["ended_by"] == "signal"' \
	'[(f["name"], f["scopes"]) for f in j["functions"]] == [("orbit-stress:outer", 500), ("orbit-stress:middle", 1000), ("libc.so.6:getpid", fn["libc.so.6:getpid"]["scopes"])]' \
	"sorted((p['pid'], p['function'], p['scopes']) for p in j['processes'] if p['function'] != 'libc.so.6:getpid') == sorted([($p1, 'orbit-stress:outer', 300), ($p1, 'orbit-stress:middle', 600), ($p2, 'orbit-stress:outer', 200), ($p2, 'orbit-stress:middle', 400)])" \
	"all(p['pid'] != $ot for p in j['processes'])" \
	'all(p["comm"] == "orbit-stress" for p in j["processes"] if p["function"] != "libc.so.6:getpid")'
# Short-lived processes, each gone long before a drain reads its records:
# named as they were when they called, never "?", in the report and in the
# metrics' labels (a series per process).
T="$top/build/targets"
for b in multi perf; do
	"$OT" -v -a --backend "$b" --json -o "$work/short-$b.json" \
		--prom-textfile "$work/short-$b.prom" -f "$T/burst:tick" 2>"$work/short-$b.err" &
	ot=$!
	cleanup_pids="$ot"
	wait_for "$work/short-$b.err" 'armed 1 functions'
	for i in 1 2 3; do "$T/burst" 100 >/dev/null; done
	kill -INT "$ot"
	wait "$ot" || fail_ "$b short-lived: exit status $?: $(cat "$work/short-$b.err")"
	json_check "$work/short-$b.json" 'len(j["processes"]) == 3' \
		'all(p["comm"] == "burst" and p["scopes"] == 100 for p in j["processes"])'
	[ "$(grep -c '^orbit_trace_calls_total{function="burst:tick",.*,comm="burst"} 100$' "$work/short-$b.prom")" = 3 ] ||
		fail_ "$b short-lived: metrics by process: $(grep calls_total "$work/short-$b.prom")"
done
# A term without its file has nothing to resolve against.
expect_rc 2 /dev/null "$work/bad.err" "$OT" -a -f outer -d 1
grep -qxF "orbit-trace: 'outer' names no file: give it as FILE:NAME or SONAME:NAME" "$work/bad.err" ||
	fail_ "-a -f outer: $(cat "$work/bad.err")"
pass_
