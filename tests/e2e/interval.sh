# -I: interval reports during a capture.  What is deterministic is
# checked: the intervals follow each other without a gap on fixed
# boundaries of the capture's clock (the last ends with the capture),
# every scope of the final report is in exactly one interval, and with --json every line
# is one JSON object (NDJSON) with the full report last.  How many
# intervals there are depends on the machine's speed, and is not; with
# -d it does not.
. "$(dirname "$0")/lib.sh"
require_uprobes

"$OT" -q --json -I 0.2 -o "$work/r.ndjson" --expect outer=1000@0,middle=2000@1,inner=6000@2 \
	-f outer,middle,inner -- "$STRESS" --stress-hz 1000 --stress-calls 1000 >/dev/null 2>"$work/err" ||
	fail_ "exit status $?: $(cat "$work/err")"
python3 - "$work/r.ndjson" <<'PY' || fail_ "NDJSON: $(head -c 2000 "$work/r.ndjson")"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
ivl, rep = lines[:-1], lines[-1]
assert rep["type"] == "report" and rep["status"] == "ok", rep
assert ivl and all(i["type"] == "interval" for i in ivl)
assert [i["seq"] for i in ivl] == list(range(1, len(ivl) + 1))
assert ivl[0]["start_ns"] == 0
assert all(a["end_ns"] == b["start_ns"] for a, b in zip(ivl, ivl[1:]))
# Windows fixed on the clock: each 0.2 s exactly, the last ending with the capture.
assert all(i["start_ns"] == 200000000 * (i["seq"] - 1) for i in ivl), [i["start_ns"] for i in ivl]
assert all(i["end_ns"] - i["start_ns"] == 200000000 for i in ivl[:-1])
assert ivl[-1]["end_ns"] == rep["capture"]["duration_ns"], (ivl[-1], rep["capture"])
names = [f["name"] for f in rep["functions"]]
for k, f in enumerate(rep["functions"]):
    assert [i["functions"][k]["name"] for i in ivl] == [f["name"]] * len(ivl)
    assert sum(i["functions"][k]["scopes"] for i in ivl) == f["scopes"], (f["name"], f["scopes"])
PY

# -d ends the capture at its deadline: -d 1 -I 0.25 is 4 whole windows and
# a capture of exactly 1 s, on both kinds of backend (a stress program that
# outlives it; its calls are not counted here, only the windows).
for b in multi inject; do
	"$OT" -q --backend "$b" --json -d 1 -I 0.25 -o "$work/d-$b.ndjson" -f inner -- "$STRESS" \
		--stress-hz 1000 --stress-calls 100000 >/dev/null 2>"$work/d-$b.err" ||
		fail_ "$b -d: exit status $?: $(cat "$work/d-$b.err")"
	python3 - "$work/d-$b.ndjson" <<'PY' || fail_ "$b -d 1 -I 0.25: $(cut -c1-200 "$work/d-$b.ndjson")"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
ivl, rep = lines[:-1], lines[-1]
assert rep["capture"]["ended_by"] == "duration" and rep["capture"]["duration_ns"] == 10**9, rep["capture"]
assert [(i["start_ns"], i["end_ns"]) for i in ivl] == [(k * 250000000, (k + 1) * 250000000) for k in range(4)], ivl
assert sum(i["functions"][0]["scopes"] for i in ivl) == rep["functions"][0]["scopes"]
PY
done

"$OT" -I 0.2 -o "$work/r.txt" -f outer,middle,inner -- "$STRESS" --stress-hz 1000 --stress-calls 600 \
	>/dev/null 2>&1 || fail_ "text: exit status $?"
grep -q '^interval 1: 0 ns to ' "$work/r.txt" || fail_ "no first interval: $(cat "$work/r.txt")"
grep -q '^orbit-trace report: ' "$work/r.txt" && grep -q '^status: ok$' "$work/r.txt" ||
	fail_ "no final report: $(cat "$work/r.txt")"
pass_
