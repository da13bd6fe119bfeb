#!/bin/sh
# Arming and disarming cost against the number of functions, the seed's
# "linear progression" for our own operation: a generated target with
# 2,000 functions, its threads busy on every CPU; orbit-trace -p arms M of
# them for half a second.  Per M: arm ms and IPIs/TLB (from the report),
# disarm ms and IPIs/TLB (/proc/interrupts from report to exit), fds; then
# the least-squares fit cost = m*M + b of each column.
#
#   sudo scripts/arm-cost.sh [M...]      default: 1 10 100 500 1000 2000
# Disarming takes ~0.05-0.15 s per perf uprobe fd here, serialised: 1000
# functions on 2 CPUs are 4000 fds and minutes; start small.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
OT=${OT:-$top/orbit-trace}
[ -f "$OT" ] || make -C "$top" -s all
[ $# -gt 0 ] || set -- 1 10 100 500 1000 2000
dir=$(mktemp -d)
trap 'kill $tpid 2>/dev/null; rm -rf "$dir"' EXIT

python3 - "$dir/many.c" <<'PY'
import sys
n = 2000
with open(sys.argv[1], "w") as f:
    f.write("#include <pthread.h>\n#include <unistd.h>\nstatic volatile int sink;\n")
    for i in range(n):
        f.write("__attribute__((noinline)) void f%04d(void) { sink += %d; }\n" % (i, i))
    f.write("static void *spin(void *a) { (void)a; for (;;) {\n")
    for i in range(n):
        f.write("f%04d();\n" % i)
    f.write("usleep(1000); } return 0; }\n")
    f.write("int main(void) { pthread_t t; long c = sysconf(_SC_NPROCESSORS_ONLN);\n"
            "for (long i = 1; i < c; i++) pthread_create(&t, 0, spin, 0); spin(0); }\n")
PY
cc -O1 -pthread -o "$dir/many" "$dir/many.c"
"$dir/many" &
tpid=$!
sleep 0.3

irq() { awk '$1 == "CAL:" || $1 == "TLB:" { s = 0; for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i; printf "%s ", s }' /proc/interrupts; }
now_ms() { date +%s%3N; }

echo "M arm_ms arm_ipi arm_tlb disarm_ms disarm_ipi disarm_tlb fds" | tee "$dir/table"
for m in "$@"; do
	names=$(python3 -c "print(','.join('f%04d' % i for i in range($m)))")
	rm -f "$dir/r.json"
	"$OT" -q --json -o "$dir/r.json" -p "$tpid" -f "$names" -d 0.5 &
	ot=$!
	while ! grep -q call_tree_dropped "$dir/r.json" 2>/dev/null; do sleep 0.01; done
	t0=$(now_ms); set -- $(irq); c0=$1 l0=$2
	wait "$ot"
	t1=$(now_ms); set -- $(irq); c1=$1 l1=$2
	python3 - "$dir/r.json" "$m" $((t1 - t0)) $((c1 - c0)) $((l1 - l0)) <<'PY' | tee -a "$dir/table"
import json, sys
j = json.load(open(sys.argv[1])); a = j["arming"]
print(sys.argv[2], "%.1f" % (a["wall_ns"] / 1e6), a["ipis"], a["tlb_shootdowns"],
      sys.argv[3], sys.argv[4], sys.argv[5], a["events"])
PY
done
python3 - "$dir/table" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1])][1:]
if len(rows) < 2:
    sys.exit(0)
ms = [float(r[0]) for r in rows]
print("\nfit cost = m*M + b (least squares):")
for k, name in enumerate(["arm_ms", "arm_ipi", "arm_tlb", "disarm_ms", "disarm_ipi", "disarm_tlb", "fds"], 1):
    ys = [float(r[k]) for r in rows]
    n = len(ms); mx = sum(ms) / n; my = sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in ms)
    m = sum((x - mx) * (y - my) for x, y in zip(ms, ys)) / sxx if sxx else 0
    print("  %-11s m = %10.3f per function   b = %10.1f" % (name, m, my - m * mx))
PY
