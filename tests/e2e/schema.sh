# The JSON contract (issue 34): docs/report.schema.json, checked against
# every JSON golden of the unit tests (reports, NDJSON lines) and against
# a real capture's stream (interval, slow and report objects) and a
# --restore --json object; an object that breaks it (a count as a
# string, no type) is caught, so the check checks.
. "$(dirname "$0")/lib.sh"
/usr/bin/python3.11 -c 'import jsonschema' 2>/dev/null ||
	skip_ "python3-jsonschema is not installed (make deps installs it)"
validate() {
	/usr/bin/python3.11 - "$top/docs/report.schema.json" "$@" <<'PY'
import json, sys, jsonschema
v = jsonschema.Draft202012Validator(json.load(open(sys.argv[1])))
n = bad = 0
for f in sys.argv[2:]:
    text = open(f).read()
    objs = [json.loads(text)] if f.endswith(".json") else \
        [json.loads(l) for l in text.splitlines() if l.strip()]
    for o in objs:
        n += 1
        for e in list(v.iter_errors(o))[:3]:
            bad += 1
            print("%s: %s at %s" % (f, e.message[:300], list(e.absolute_path)))
print("%d objects, %d errors" % (n, bad))
sys.exit(1 if bad or not n else 0)
PY
}
validate "$top"/tests/unit/expected/*.json "$top"/tests/unit/expected/*.jsonl >"$work/goldens" 2>&1 ||
	fail_ "goldens: $(cat "$work/goldens")"
/usr/bin/python3.11 - "$top/tests/unit/expected/clean.json" "$work" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
j["functions"][0]["scopes"] = str(j["functions"][0]["scopes"])
json.dump(j, open(sys.argv[2] + "/bad1.json", "w"))
j = json.load(open(sys.argv[1]))
del j["type"]
json.dump(j, open(sys.argv[2] + "/bad2.json", "w"))
PY
for b in bad1 bad2; do
	! validate "$work/$b.json" >"$work/$b.out" 2>&1 || fail_ "$b passed the schema"
done

require_uprobes
"$OT" -q --json -I 0.05 --slower-than-all 1ns -o "$work/run.ndjson" -f outer,middle,inner -- \
	"$STRESS" --stress-threads 2 --stress-hz 1000 --stress-calls 100 >/dev/null 2>"$work/run.err" ||
	fail_ "capture: exit status $?: $(cat "$work/run.err")"
"$OT" -q --json -o "$work/usdt.json" -f "usdt:$top/build/targets/usdt:*" -- "$top/build/targets/usdt" \
	>/dev/null 2>"$work/usdt.err" || fail_ "usdt capture: exit status $?: $(cat "$work/usdt.err")"
"$STRESS" --stress-calls 1 --wait-go >"$work/s.out" &
spid=$!
cleanup_pids=$spid
wait_for "$work/s.out" '^ready '
"$OT" --restore --json -p "$spid" -o "$work/restore.jsonl" || fail_ "--restore --json: $?"
kill "$spid"
validate "$work/run.ndjson" "$work/usdt.json" "$work/restore.jsonl" >"$work/run" 2>&1 ||
	fail_ "a real capture's objects: $(cat "$work/run")"
/usr/bin/python3.11 - "$work/run.ndjson" <<'PY' || fail_ "the stream lacks a kind of object"
import json, sys
kinds = {json.loads(l)["type"] for l in open(sys.argv[1])}
assert kinds == {"interval", "slow", "report"}, kinds
PY
pass_
