#!/bin/sh
# The seed's two loss tables for orbit-trace on this machine: loss by ring
# size, and by drain interval x ring size, on stress configs that push the
# kernel's rate (unpaced, both CPUs busy).  Defaults are chosen from these.
#
#   sudo scripts/ring-sweep.sh            RINGS="8 32 128 512 4096" DRAINS="1 5 50 100"
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
OT=${OT:-$top/orbit-trace}
STRESS=${STRESS:-$top/tests/stress/orbit-stress}
[ -f "$OT" ] && [ -f "$STRESS" ] || make -C "$top" -s all
RINGS=${RINGS:-"8 32 128 512 4096"}
DRAINS=${DRAINS:-"1 5 50 100"}
CONFIGS=${CONFIGS:-"2x10000x10000 2x0x20000"}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# run RING DRAIN CONFIG: prints "loss% lost" of one capture.
run() {
	IFS=x read -r n f k <<EOT
$3
EOT
	"$OT" -q --json -o "$dir/r.json" --ring-kb "$1" --drain-ms "$2" -f outer,middle,inner -- \
		"$STRESS" --stress-threads "$n" --stress-hz "$f" --stress-calls "$k" >/dev/null 2>&1 || true
	python3 -c '
import json, sys
j = json.load(open(sys.argv[1])); n, k = int(sys.argv[2]), int(sys.argv[3])
exp = 9 * n * k; obs = sum(f["scopes"] for f in j["functions"])
print("%.3f%% %d" % (100.0 * (exp - obs) / exp, j["records"]["lost"]))' "$dir/r.json" "$n" "$k"
}

echo "Loss by ring size (--drain-ms 50, the default; a quarter-full ring wakes the drain): loss% / records lost"
printf '%-16s' "config"; for r in $RINGS; do printf '%20s' "${r} KB"; done; echo
for c in $CONFIGS; do
	printf '%-16s' "$c"
	for r in $RINGS; do printf '%20s' "$(run "$r" 50 "$c" | tr ' ' /)"; done
	echo
done
echo
c=$(echo "$CONFIGS" | awk '{ print $NF }')
echo "Loss by drain interval x ring size, $c: loss% / records lost"
printf '%-16s' "drain"; for r in $RINGS; do printf '%20s' "${r} KB"; done; echo
for d in $DRAINS; do
	printf '%-16s' "${d} ms"
	for r in $RINGS; do printf '%20s' "$(run "$r" "$d" "$c" | tr ' ' /)"; done
	echo
done
