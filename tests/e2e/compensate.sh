# --compensate: the probe cost is calibrated during the capture (a thread of
# orbit-trace calls its own probed empty function) and taken out of the
# durations.  Checked against the stress program's own untraced timing of
# inner (an identical, untraced copy): the compensated median must be
# within 30 % of it (the issue's bound; 40 of 40 runs came within 17 % on
# the project VM, docs/benchmarks.md), much closer than the raw one, and
# below the raw one everywhere.
. "$(dirname "$0")/lib.sh"
require_uprobes

# The 30 % bound holds for the tracer as shipped.  The ASan/UBSan build's
# drain and calibration thread run several times slower and take the
# CPUs the target and the calibration share on this 2-CPU machine: there
# inner came within -29 to +12 % in 10 runs and outside 30 % once in
# make check (docs/benchmarks.md), so that pass checks the rest only.
case $OT in
*build-san*) bound=True ;;
*) bound=False ;;
esac

for mode in uretprobe insn; do
	"$OT" --returns "$mode" --compensate --json -o "$work/$mode.json" -f outer,middle,inner -- \
		"$STRESS" --stress-hz 1000 --stress-calls 1000 >"$work/$mode.out" 2>"$work/$mode.err" ||
		fail_ "$mode: exit status $?"
	inner_ns=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).read())["inner_ns"])' "$work/$mode.out")
	json_check "$work/$mode.json" \
		'j["calibration"]["pair_ns"] > j["calibration"]["own_ns"] > 0' \
		'j["calibration"]["live_calls"] >= 400' \
		"$bound or abs(fn['inner']['compensated_ns']['p50'] - $inner_ns) <= 0.3 * $inner_ns" \
		'all(f["compensated_ns"]["p50"] < f["duration_ns"]["p50"] for f in j["functions"])' \
		"abs(fn['inner']['compensated_ns']['p50'] - $inner_ns) < 0.5 * abs(fn['inner']['duration_ns']['p50'] - $inner_ns)" \
		'fn["outer"]["compensated_ns"]["p50"] >= fn["inner"]["compensated_ns"]["p50"]'
done
pass_
