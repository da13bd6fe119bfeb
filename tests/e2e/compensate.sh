# --compensate: the probe cost is calibrated during the capture (a thread of
# orbit-trace calls its own probed empty function) and taken out of the
# durations.  Only what holds on every machine is asserted here: the
# calibration ran and measured a positive cost, the live thread made its
# calls, and compensation never adds time.  How close the compensated
# median comes to the untraced one depends on the machine's trap cost and
# its drift (1.3 us of work under a 0.7..20 us probe pair); that figure is
# measured by `make bench` (scripts/bench.py, "compensation" table), never
# judged here.
. "$(dirname "$0")/lib.sh"
require_uprobes

for mode in uretprobe insn; do
	"$OT" --returns "$mode" --compensate --json -o "$work/$mode.json" -f outer,middle,inner -- \
		"$STRESS" --stress-hz 1000 --stress-calls 1000 >"$work/$mode.out" 2>"$work/$mode.err" ||
		fail_ "$mode: exit status $?"
	json_check "$work/$mode.json" \
		'j["calibration"]["pair_ns"] >= j["calibration"]["own_ns"] > 0' \
		'j["calibration"]["live_calls"] >= 400' \
		'[f["scopes"] for f in j["functions"]] == [1000, 2000, 6000]' \
		'all(0 <= f["compensated_ns"][k] <= f["duration_ns"][k] for f in j["functions"] for k in ("min", "p50", "p99", "max"))'
done
pass_
