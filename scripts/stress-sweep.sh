#!/bin/sh
# The seed's sweep table for orbit-trace: the stress program across
# THREADSxHZxCALLS configs, each judged by orbit-trace --expect, printed
# from the JSON reports.  Exits non-zero if any row fails its checks.
#
#   sudo scripts/stress-sweep.sh [CONFIG...]      e.g. 1x5000x5000 2x20000x20000
#   ORBIT_UPROBE_RING_KB / ORBIT_DRAIN_MS / OT_SWEEP_ARGS pass through.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
if [ -f "$here/orbit-stress" ]; then
	# Installed: beside the stress program in libexec, orbit-trace in PATH.
	OT=${OT:-$(command -v orbit-trace || echo "$here/../../bin/orbit-trace")}
	STRESS=${STRESS:-$here/orbit-stress}
else
	top=$(dirname "$here")
	OT=${OT:-$top/orbit-trace}
	STRESS=${STRESS:-$top/tests/stress/orbit-stress}
	[ -f "$OT" ] && [ -f "$STRESS" ] || make -C "$top" all >/dev/null
fi
[ $# -gt 0 ] || set -- 1x5000x5000 2x5000x5000 2x10000x10000 2x20000x20000
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
i=0
for cfg in "$@"; do
	i=$((i + 1))
	IFS=x read -r n f k <<EOT
$cfg
EOT
	o=$((n * k)); m=$((2 * n * k)); in=$((6 * n * k))
	"$OT" -q --json -o "$dir/$i.json" ${OT_SWEEP_ARGS:-} \
		--expect "outer=$o@0,middle=$m@1,inner=$in@2" -f outer,middle,inner -- \
		"$STRESS" --stress-threads "$n" --stress-hz "$f" --stress-calls "$k" \
		>"$dir/$i.stress" || true
	echo "$cfg $dir/$i.json" >>"$dir/list"
done
python3 - "$dir/list" <<'PY'
import json, sys
rows, bad = [], 0
hdr = ("threads x Hz x calls", "expected", "observed", "missing", "loss", "dup",
       "unclosed", "orphan", "rec lost", "depth wrong", "outside", "status")
print("%-22s %10s %10s %8s %8s %5s %8s %6s %9s %11s %7s  %s" % hdr)
durs = []
for line in open(sys.argv[1]):
    cfg, path = line.split()
    try:
        j = json.load(open(path))
    except Exception as e:
        print("%-22s  no report (%s)" % (cfg.replace("x", " x "), e)); bad += 1; continue
    fs = j["functions"]
    exp = sum(f["expected"] for f in fs); obs = sum(f["scopes"] for f in fs)
    tot = lambda k: sum(f[k] for f in fs)
    print("%-22s %10d %10d %8d %7.3f%% %5d %8d %6d %9d %11d %7d  %s" % (
        cfg.replace("x", " x "), exp, obs, exp - obs, 100.0 * (exp - obs) / exp,
        tot("duplicates"), tot("unclosed"), tot("orphans"), j["records"]["lost"],
        tot("wrong_depth"), tot("outside_parent"), j["status"]))
    for r in j["reasons"]:
        print("    " + r)
    bad += j["status"] == "failed"
    durs.append((cfg, fs))
print("\ndurations (min / p50 / p99 / max, ns), outer -> middle -> inner:")
for cfg, fs in durs:
    print("%-16s " % cfg + "   ".join("%s %s / %s / %s / %s" % (
        f["name"], *(format(f["duration_ns"][k], ",") if f["duration_ns"] else "-"
                     for k in ("min", "p50", "p99", "max"))) for f in fs))
sys.exit(1 if bad else 0)
PY
