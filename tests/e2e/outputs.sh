# Every output form on one capture of the known tree (2 x 1000 Hz x 1000:
# 2000 outer, 4000 middle, 12000 inner): JSON with --expect, the Chrome
# trace (parsed, counted, nesting checked), folded stacks, the text call
# tree, the arming and disarming lines and --hist; then a wrong --expect
# exits 3 with a clear line; then
# the live status line on a terminal.
. "$(dirname "$0")/lib.sh"
require_uprobes

"$OT" --json -o "$work/report.json" --trace "$work/trace.json" \
	--folded "$work/folded.txt" --expect outer=2000,middle=4000,inner=12000 \
	-f outer,middle,inner -- "$STRESS" --stress-threads 2 --stress-hz 1000 \
	--stress-calls 1000 >/dev/null 2>"$work/err" || fail_ "exit status $?"
json_check "$work/report.json" \
	'j["status"] == "ok" and j["reasons"] == []' \
	'[(f["expected"], f["missing"], f["loss_pct"]) for f in j["functions"]] == [(2000, 0, 0.0), (4000, 0, 0.0), (12000, 0, 0.0)]' \
	'[(t["path"], t["calls"]) for t in j["call_tree"]] == [(["outer"], 2000), (["outer", "middle"], 4000), (["outer", "middle", "inner"], 12000)]' \
	'all(t["self_ns"] <= t["total_ns"] for t in j["call_tree"])' \
	'j["call_tree"][2]["self_ns"] == j["call_tree"][2]["total_ns"]' \
	'all(f["duration_ns"]["p50"] <= f["duration_ns"]["p90"] <= f["duration_ns"]["p99"] <= f["duration_ns"]["p999"] <= f["duration_ns"]["max"] for f in j["functions"])'

# The timeline: valid JSON, one X event per scope, children inside parents.
python3 - "$work/trace.json" "$work/report.json" <<'PY' || fail_ "trace check failed"
import json, sys, collections
t = json.load(open(sys.argv[1]))
r = json.load(open(sys.argv[2]))
ev = [e for e in t["traceEvents"] if e["ph"] == "X"]
n = collections.Counter(e["name"] for e in ev)
assert n == {"outer": 2000, "middle": 4000, "inner": 12000}, n
pid = r["target"]["pid"]
assert all(e["pid"] == pid for e in t["traceEvents"])
named = {e["tid"] for e in t["traceEvents"] if e["ph"] == "M" and e["name"] == "thread_name"}
assert named == {e["tid"] for e in ev} and len(named) == 2, named
# Per thread, sweep in time order: every inner lies in a middle, every middle in an outer.
parent = {"middle": "outer", "inner": "middle"}
for tid in named:
    open_ = {}
    for e in sorted((e for e in ev if e["tid"] == tid), key=lambda e: (e["ts"], -e["dur"])):
        open_[e["name"]] = (e["ts"], e["ts"] + e["dur"])
        if e["name"] in parent:
            ps, pe = open_[parent[e["name"]]]
            assert ps <= e["ts"] and e["ts"] + e["dur"] <= pe + 0.001, (e, ps, pe)
PY

# Folded stacks: the three paths, weights = self time of the call tree.
python3 - "$work/folded.txt" "$work/report.json" <<'PY' || fail_ "folded check failed"
import json, sys
rows = dict(l.rsplit(" ", 1) for l in open(sys.argv[1]).read().splitlines())
r = json.load(open(sys.argv[2]))
want = {";".join(t["path"]): t["self_ns"] for t in r["call_tree"]}
assert {k: int(v) for k, v in rows.items()} == want, (rows, want)
PY

# Text: the call tree, --hist rows adding up, and a wrong --expect.
expect_rc 3 /dev/null "$work/err2" "$OT" --hist --expect outer=2001 -o "$work/report.txt" \
	-f outer,middle,inner -- "$STRESS" --stress-threads 2 --stress-hz 1000 --stress-calls 1000
grep -qx "orbit-trace: check failed: outer: 1 of 2001 expected scopes missing (0.050% > 1%)" "$work/err2" ||
	grep -qx "orbit-trace: check failed: outer: pairing inconsistent: 1 missing > 0 unclosed + 0 orphans + 0 duplicates, with no records lost" "$work/err2" ||
	fail_ "no clear line for the failed check: $(cat "$work/err2")"
grep -q '^status: failed$' "$work/report.txt" || fail_ "text report does not say failed"
# The text header says what arming cost, and its last line, after the
# report, what disarming cost.
grep -Eq '^armed 3 of 3 functions in [0-9.]+ [mu]?s \([0-9]+ IPIs, [0-9]+ TLB shootdowns\): 6 uprobes \(returns seen at return instructions\), 2 uprobe_multi links \(backend multi\)' \
	"$work/report.txt" || fail_ "header: $(grep ^armed "$work/report.txt")"
[ "$(tail -n 1 "$work/report.txt" | sed -E 's/[0-9.]+ [mu]?s \([0-9]+ IPIs, [0-9]+ TLB/T (N IPIs, N TLB/')" = \
	"disarmed 3 functions in T (N IPIs, N TLB shootdowns)" ] ||
	fail_ "last line: $(tail -n 1 "$work/report.txt")"
grep -Eq '^    inner +12000 ' "$work/report.txt" || fail_ "call tree: no outer > middle > inner with 12000 calls"
grep -Eq '^  middle +4000 .*%$' "$work/report.txt" || fail_ "call tree: no middle row with its parent share"
awk '/^@inner \(ns\):/ { on = 1; next } !/^\[/ { on = 0 } on { sub(/^[^])]*[])]/, ""); s += $1 }
     END { exit s != 12000 }' "$work/report.txt" || fail_ "--hist rows of inner do not add up to 12000"

# Live status on a terminal (script(1) gives the capture a tty).
command -v script >/dev/null || skip_ "script(1) is not installed"
script -qec "'$OT' -o '$work/live.txt' -f outer -- '$STRESS' --stress-hz 1000 --stress-calls 2500" \
	/dev/null >"$work/tty" 2>&1 || fail_ "capture under script(1) failed"
grep -q 'orbit-trace: [0-9.]* s, [0-9]* scopes/s, 0 records lost, ring peak' "$work/tty" ||
	fail_ "no live status on the terminal: $(cat "$work/tty")"
! grep -q 'scopes/s' "$work/live.txt" || fail_ "live status leaked into the report"
"$OT" -q -o "$work/quiet.txt" -f outer -- "$STRESS" --stress-hz 1000 --stress-calls 1500 \
	>/dev/null 2>"$work/quiet.err"
! grep -q 'scopes/s' "$work/quiet.err" || fail_ "-q did not silence the live status"
pass_
