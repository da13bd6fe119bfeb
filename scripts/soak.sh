#!/bin/sh
# Soak: a long capture of the stress program at a steady high rate.  Every
# second the tracer's RSS and open fds are sampled; the run fails if either
# grows after the first 10 s (RSS by more than 1 MiB: page-granular noise
# aside) or if the kernel lost any record or a count is off.  With
# SOAK_INTERVAL=SECS the capture also reports every SECS (-I, NDJSON), and
# the intervals' scopes must add up to the final report's.
#
#   sudo [SOAK_INTERVAL=1] scripts/soak.sh [SECONDS=600] [THREADS=2] [HZ=2000]
set -eu
secs=${1:-600} threads=${2:-2} hz=${3:-2000}
top=$(cd "$(dirname "$0")/.." && pwd)
OT=${OT:-$top/orbit-trace}
STRESS=${STRESS:-$top/tests/stress/orbit-stress}
[ -f "$OT" ] && [ -f "$STRESS" ] || make -C "$top" all >/dev/null
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
calls=$((hz * secs))
n=$((threads * calls))
"$OT" -q --json -o "$dir/report.json" ${SOAK_INTERVAL:+-I "$SOAK_INTERVAL"} --expect "outer=$n,middle=$((2 * n)),inner=$((6 * n))" \
	-f outer,middle,inner -- "$STRESS" --stress-threads "$threads" --stress-hz "$hz" \
	--stress-calls "$calls" >"$dir/stress.out" &
ot=$!
t=0
echo "second rss_kb fds"
while kill -0 "$ot" 2>/dev/null; do
	rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$ot/status" 2>/dev/null || true)
	fds=$(ls "/proc/$ot/fd" 2>/dev/null | wc -l)
	[ -n "$rss" ] && echo "$t $rss $fds" | tee -a "$dir/samples" | awk -v t="$t" 't % 60 == 0'
	t=$((t + 1))
	sleep 1
done
wait "$ot" || true
python3 - "$dir/samples" "$dir/report.json" "${SOAK_INTERVAL:-}" <<'PY'
import json, sys
rows = [tuple(map(int, l.split())) for l in open(sys.argv[1]) if l.strip()]
if sys.argv[3]:  # NDJSON: the intervals, then the report
    lines = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
    j, ivl = lines[-1], [l for l in lines[:-1] if l["type"] == "interval"]
else:
    j, ivl = json.load(open(sys.argv[2])), []
base = [r for r in rows if r[0] >= 10]
ok = True
if base:
    b = base[0]
    rss_max = max(r[1] for r in base); fd_max = max(r[2] for r in base)
    print("after 10 s: RSS %d kB -> max %d kB (+%d kB); fds %d -> max %d"
          % (b[1], rss_max, rss_max - b[1], b[2], fd_max))
    if rss_max - b[1] > 1024: print("FAIL: RSS grew"); ok = False
    if fd_max > b[2]: print("FAIL: fds grew"); ok = False
else:
    print("FAIL: capture shorter than 10 s"); ok = False
print("status %s, records %d, lost %d, scopes %s, %s" % (j["status"], j["records"]["samples"],
      j["records"]["lost"], [f["scopes"] for f in j["functions"]], "; ".join(j["reasons"])))
if j["status"] != "ok" or j["records"]["lost"]: print("FAIL: loss or a failed check"); ok = False
if ivl:
    sums = [sum(i["functions"][k]["scopes"] for i in ivl) for k in range(len(j["functions"]))]
    print("%d intervals, their scopes %s" % (len(ivl), sums))
    if sums != [f["scopes"] for f in j["functions"]]: print("FAIL: intervals do not add up"); ok = False
print("soak:", "PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
PY
