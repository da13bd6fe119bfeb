# --slower-than-all streams each scope longer than a threshold as it closes,
# with its process's name, thread and chain of traced callers (and the
# values the call recorded: dwarfargs.sh); --slowest keeps each
# function's N longest for the report.  Checked deterministically: with a
# threshold every scope passes (1ns), one line per scope, each with the
# path the stress tree gives it; the report's slowest lists are sorted and
# their longest is the function's max.  The lines flow into a pipe as
# the scopes close (flushed at each drain), not at the end: read from one
# while the program still runs.
. "$(dirname "$0")/lib.sh"
require_uprobes

"$OT" -q --json --slower-than-all 1ns --slowest 3 -o "$work/r.ndjson" -f outer,middle,inner -- \
	"$STRESS" --stress-threads 2 --stress-hz 1000 --stress-calls 200 >/dev/null 2>"$work/err" ||
	fail_ "exit status $?: $(cat "$work/err")"
# --slower-than prints the outermost slow call only (issue 34): with
# every scope slow, outer's 400 and none of the calls nested in them.
"$OT" -q --json --slower-than 1ns -o "$work/o.ndjson" -f outer,middle,inner -- \
	"$STRESS" --stress-threads 2 --stress-hz 1000 --stress-calls 200 >/dev/null 2>"$work/err" ||
	fail_ "outermost: exit status $?: $(cat "$work/err")"
python3 - "$work/o.ndjson" <<'PY' || fail_ "outermost: $(head -c 2000 "$work/o.ndjson")"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
slow, rep = lines[:-1], lines[-1]
assert rep["type"] == "report" and rep["status"] == "ok"
assert [s["name"] for s in slow] == ["outer"] * 400, {s["name"] for s in slow}
assert all(s["path"] == ["outer"] for s in slow)
PY
python3 - "$work/r.ndjson" <<'PY' || fail_ "NDJSON: $(head -c 2000 "$work/r.ndjson")"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
slow, rep = lines[:-1], lines[-1]
assert rep["type"] == "report" and rep["status"] == "ok"
assert all(s["type"] == "slow" for s in slow)
path = {"outer": ["outer"], "middle": ["outer", "middle"], "inner": ["outer", "middle", "inner"]}
for f in rep["functions"]:
    mine = [s for s in slow if s["name"] == f["name"]]
    assert len(mine) == f["scopes"] == {"outer": 400, "middle": 800, "inner": 2400}[f["name"]]
    assert all(s["path"] == path[f["name"]] and s["pid"] == rep["target"]["pid"] for s in mine)
    assert all(s["comm"] == "orbit-stress" and "values" not in s for s in mine)
    assert len({s["tid"] for s in mine}) == 2            # both worker threads
    d = [s["duration_ns"] for s in f["slowest"]]
    assert len(d) == 3 and d == sorted(d, reverse=True) and d[0] == f["duration_ns"]["max"]
PY

"$OT" --slower-than 1ns -o "$work/r.txt" -f inner -- "$STRESS" --stress-calls 50 >/dev/null 2>&1 ||
	fail_ "text: exit status $?"
[ "$(grep -c '^slow: inner at .*, pid [0-9]* (orbit-stress) tid [0-9]*: .* (inner)$' "$work/r.txt")" = 300 ] ||
	fail_ "slow lines: $(head "$work/r.txt")"
grep -Eq '^inner +[0-9.]+ [mun]?s +[0-9.]+ [mun]?s +[0-9]+  inner$' "$work/r.txt" ||
	fail_ "no LONGEST row: $(cat "$work/r.txt")"

# Into a pipe, while the program calls on, once a second (20 lines would
# not fill stdio's buffer before wait_for gives up: only a flush shows one).
"$STRESS" --stress-threads 1 --stress-hz 1 --stress-calls 100000 --wait-go >"$work/s.out" &
spid=$!
cleanup_pids="$spid"
wait_for "$work/s.out" '^ready '
("$OT" -v --slower-than 1ns -p "$spid" -f outer 2>"$work/pipe.err" | cat >"$work/pipe.txt") &
cleanup_pids="$spid $!"
wait_for "$work/pipe.err" 'armed 1 functions'
kill -USR1 "$spid"
wait_for "$work/pipe.txt" '^slow: outer at '
kill "$spid"
wait
pass_
