#!/bin/sh
# What a scraper of --listen costs a capture: the same capture (inject, the
# stress tree on one thread, unpaced) with nobody scraping and with curl
# scraping /metrics as fast as it can (OpenMetrics, as Prometheus asks),
# RUNS times each, side by side: the program's time, records lost, the
# tracer's CPU.  A figure, not a test (docs/benchmarks.md).
#
#   sudo scripts/scrape-cost.sh            RUNS=3 CALLS=300000 BACKEND=inject
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
OT=${OT:-$top/orbit-trace}
STRESS=${STRESS:-$top/tests/stress/orbit-stress}
[ -f "$OT" ] && [ -f "$STRESS" ] || make -C "$top" -s all
RUNS=${RUNS:-3}
CALLS=${CALLS:-300000}
BACKEND=${BACKEND:-inject}
PY=/usr/bin/python3.11
[ -x $PY ] || PY=python3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# one SCRAPE(0|1): prints "scrapes seconds lost samples tracer_cpu_s".
one() {
	: >"$dir/err"
	"$OT" --backend "$BACKEND" --listen 127.0.0.1:0 --json -o "$dir/r.json" \
		-f outer,middle,inner -- "$STRESS" --stress-threads 1 --stress-hz 0 \
		--stress-calls "$CALLS" >/dev/null 2>"$dir/err" &
	ot=$!
	n=0
	if [ "$1" = 1 ]; then
		while ! grep -q 'serving metrics at' "$dir/err"; do
			kill -0 "$ot" 2>/dev/null || break
		done
		url=$(sed -n 's/^orbit-trace: serving metrics at //p' "$dir/err")
		while kill -0 "$ot" 2>/dev/null; do
			curl -s -o /dev/null -H 'Accept: application/openmetrics-text;version=1.0.0' \
				"$url" && n=$((n + 1))
		done
	fi
	wait "$ot"
	$PY - "$dir/r.json" "$n" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
print(sys.argv[2], "%.3f" % (j["capture"]["duration_ns"] / 1e9), j["records"]["lost"],
      j["records"]["samples"], "%.3f" % (j["tracer"]["cpu_ns"] / 1e9))
PY
}

printf '%-10s %8s %9s %6s %9s %10s\n' scraper scrapes seconds lost samples tracer_cpu
for r in $(seq "$RUNS"); do
	for s in 0 1; do
		set -- $(one $s)
		printf '%-10s %8s %9s %6s %9s %10s\n' "$([ $s = 1 ] && echo curl || echo none)" "$@"
	done
done
