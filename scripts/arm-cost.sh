#!/bin/sh
# Arming and disarming cost against the number of functions, the seed's
# "linear progression" for our own operation.  A generated target with
# 2,000 functions keeps a thread busy calling them on every CPU; each
# backend arms M of them (entry and return probes) for half a second:
#   multi     orbit-trace --backend multi (uprobe_multi BPF links)
#   freeze    the same with --freeze (the target stopped while arming and disarming)
#   perf      orbit-trace --backend perf (uprobe PMU events, 4 per function on 2 CPUs)
#   bpftrace  uprobe + uretprobe on the same M functions, counting hits
# Per row: arm and disarm wall ms, CAL (IPIs) and TLB deltas of
# /proc/interrupts, kernel objects (fds or links); then per backend the
# least-squares fit cost = m*M + b of each column.
#
#   sudo scripts/arm-cost.sh [M...]           default: 1 10 100 500 1000 2000
#   BACKENDS="multi freeze perf bpftrace"     which to run
#   PERF_MAX_M=100 BPFTRACE_MAX_M=100         larger M skipped for these two:
#       each of their probes costs ~0.1 s to release, serialised (minutes).
# orbit-trace's figures come from its JSON ("arming", "disarming").
# bpftrace's arm time runs from its launch (parsing and compiling
# included) to its BEGIN probe, which fires once every probe is attached;
# its disarm time from the exit() its interval probe calls to its exit.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
OT=${OT:-$top/orbit-trace}
[ -x "$OT" ] || make -C "$top" -s all
[ $# -gt 0 ] || set -- 1 10 100 500 1000 2000
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 "$top/tests/e2e/targets/gen-funcs.py" 2000 "$dir/many.c"
cc -O1 -pthread -o "$dir/many" "$dir/many.c"
case " ${BACKENDS:-multi freeze perf bpftrace} " in *" bpftrace "*)
	command -v bpftrace >/dev/null || { apt-get update -qq &&
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bpftrace >/dev/null; } ;;
esac

exec python3 - "$OT" "$dir" "${BACKENDS:-multi freeze perf bpftrace}" \
	"${PERF_MAX_M:-100}" "${BPFTRACE_MAX_M:-100}" "$@" <<'PY'
import json, os, signal, subprocess, sys, time

ot, d, backends = sys.argv[1], sys.argv[2], sys.argv[3].split()
limit = {"perf": int(sys.argv[4]), "bpftrace": int(sys.argv[5])}
ms = [int(m) for m in sys.argv[6:]]
target = os.path.join(d, "many")

def irq():
    s = {}
    for line in open("/proc/interrupts"):
        f = line.split()
        if f and f[0] in ("CAL:", "TLB:"):
            s[f[0]] = sum(int(x) for x in f[1:] if x.isdigit())
    return s.get("CAL:", 0), s.get("TLB:", 0)

def names(m):
    return ["f%04d" % i for i in range(m)]

def run_orbit(backend, m):
    out = os.path.join(d, "r.json")
    extra = ["--backend", "multi", "--freeze"] if backend == "freeze" else ["--backend", backend]
    subprocess.run([ot, "-q", "--json", "-o", out, "-p", str(tpid),
                    "-f", ",".join(names(m)), "-d", "0.5"] + extra, check=True)
    j = json.load(open(out))
    a, z = j["arming"], j["disarming"]
    return (a["wall_ns"] / 1e6, a["ipis"], a["tlb_shootdowns"],
            z["wall_ns"] / 1e6, z["ipis"], z["tlb_shootdowns"], a["events"])

def run_bpftrace(m):
    prog = ('BEGIN { printf("armed\\n"); } '
            + ",".join("uprobe:%s:%s" % (target, n) for n in names(m)) + " { @e = count(); } "
            + ",".join("uretprobe:%s:%s" % (target, n) for n in names(m)) + " { @r = count(); } "
            + "interval:ms:500 { exit(); }")
    c0, l0 = irq()
    t0 = time.monotonic()
    p = subprocess.Popen(["bpftrace", "-e", prog], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True)
    for line in p.stdout:
        if line.strip() == "armed":
            break
    t1 = time.monotonic()
    c1, l1 = irq()
    p.stdout.read()
    p.wait()
    t2 = time.monotonic()
    c2, l2 = irq()
    # Its probes: one perf event each (bpftrace 0.17 attaches no uprobe_multi).
    return ((t1 - t0) * 1e3, c1 - c0, l1 - l0, (t2 - t1) * 1e3 - 500, c2 - c1, l2 - l1, 2 * m)

# Its own "ready" line: until then it may not be the program yet.
tp = subprocess.Popen([target, "spin"], stdout=subprocess.PIPE, text=True)
tpid = tp.pid
tp.stdout.readline()
cols = ["arm_ms", "arm_ipi", "arm_tlb", "disarm_ms", "disarm_ipi", "disarm_tlb", "objects"]
rows = {}
try:
    print("%-9s %5s %9s %8s %8s %10s %10s %10s %8s" % (("backend", "M") + tuple(cols)), flush=True)
    for b in backends:
        for m in ms:
            if m > limit.get(b, 10 ** 9):
                print("%-9s %5d skipped (M > %d: minutes of disarming; raise %s_MAX_M)"
                      % (b, m, limit[b], b.upper()), flush=True)
                continue
            r = run_bpftrace(m) if b == "bpftrace" else run_orbit(b, m)
            rows.setdefault(b, []).append((m,) + r)
            print("%-9s %5d %9.1f %8d %8d %10.1f %10d %10d %8d" % ((b, m) + r), flush=True)
finally:
    tp.kill()

print("\nfit cost = m*M + b (least squares), per backend:")
for b, rs in rows.items():
    if len(rs) < 2:
        continue
    xs = [r[0] for r in rs]
    for k, name in enumerate(cols, 1):
        ys = [r[k] for r in rs]
        n = len(xs); mx = sum(xs) / n; my = sum(ys) / n
        sxx = sum((x - mx) ** 2 for x in xs)
        slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else 0
        print("  %-9s %-11s m = %10.3f per function   b = %10.1f" % (b, name, slope, my - slope * mx))
PY
