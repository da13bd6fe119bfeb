# The stress program started under orbit-trace (-- CMD): exact scope counts
# at the right depths, nothing lost, and the started command's own output.
. "$(dirname "$0")/lib.sh"
require_uprobes

"$OT" --json -o "$work/report.json" -f outer,middle,inner -- \
	"$STRESS" --stress-threads 2 --stress-hz 2000 --stress-calls 2000 \
	>"$work/out" 2>"$work/err" || fail_ "exit status $?"
grep -q '"expected": {"outer": 4000, "middle": 8000, "inner": 24000}' "$work/out" ||
	fail_ "the stress program did not run to completion"
json_check "$work/report.json" \
	'j["status"] == "ok"' \
	'j["records"]["lost"] == 0' \
	'j["records"]["samples"] == 2 * (4000 + 8000 + 24000)' \
	'j["arming"]["functions_requested"] == 3 and j["arming"]["functions_armed"] == 3' \
	'j["arming"]["uprobes"] == 6 and j["arming"]["cpus"] > 0' \
	'j["arming"]["backend"] == "multi" and j["arming"]["events"] == 2' \
	'j["arming"]["wall_ns"] > 0 and isinstance(j["arming"]["ipis"], int) and isinstance(j["arming"]["tlb_shootdowns"], int)' \
	'j["disarming"]["wall_ns"] > 0 and isinstance(j["disarming"]["ipis"], int) and isinstance(j["disarming"]["tlb_shootdowns"], int)' \
	'fn["outer"]["scopes"] == 4000 and fn["outer"]["depths"] == {"0": 4000}' \
	'fn["middle"]["scopes"] == 8000 and fn["middle"]["depths"] == {"1": 8000}' \
	'fn["inner"]["scopes"] == 24000 and fn["inner"]["depths"] == {"2": 24000}' \
	'all(f["wrong_depth"] is None and f["outside_parent"] == 0 for f in j["functions"])' \
	'all(f["unclosed"] == 0 and f["orphans"] == 0 and f["duplicates"] == 0 for f in j["functions"])' \
	'all(0 < f["duration_ns"]["min"] <= f["duration_ns"]["p50"] <= f["duration_ns"]["p99"] <= f["duration_ns"]["max"] for f in j["functions"])' \
	'fn["outer"]["duration_ns"]["p50"] > fn["middle"]["duration_ns"]["p50"] > fn["inner"]["duration_ns"]["p50"]' \
	'j["target"]["exited"] and j["target"]["exit_status"] == 0' \
	'j["capture"]["ended_by"] == "target exit" and j["capture"]["ring_kb"] == 4096 and j["capture"]["drain_ms"] == 50'

# tree_ NAME OPTION...: the same capture with OPTIONs, into NAME.json; it
# must see the exact tree, with nothing lost, unclosed or orphaned.  (Not
# $name inside: lib.sh's pass_ reports the test by that variable.)
tree_() {
	tree=$1
	shift
	"$OT" "$@" --json -o "$work/$tree.json" -f outer,middle,inner -- \
		"$STRESS" --stress-threads 2 --stress-hz 2000 --stress-calls 2000 \
		>/dev/null 2>"$work/$tree.err" || fail_ "$*: exit status $?"
	json_check "$work/$tree.json" \
		'j["records"]["lost"] == 0' \
		'[(f["scopes"], f["depths"]) for f in j["functions"]] == [(4000, {"0": 4000}), (8000, {"1": 8000}), (24000, {"2": 24000})]' \
		'all(f["unclosed"] == 0 and f["orphans"] == 0 and f["duplicates"] == 0 for f in j["functions"])'
}

# The perf backend: one perf event per uprobe and CPU.
tree_ perf --backend perf
json_check "$work/perf.json" \
	'j["arming"]["backend"] == "perf" and j["arming"]["events"] == 6 * j["arming"]["cpus"]' \
	'j["disarming"]["wall_ns"] > 0'
# Returns seen at return instructions.
tree_ insn --returns insn
json_check "$work/insn.json" 'j["arming"]["returns"] == "insn"'
pass_
