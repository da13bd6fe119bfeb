#!/bin/sh
# make bench: orbit-trace against perf and bpftrace on the stress program.
# Installs bpftrace and linux-perf if missing (root), builds, runs
# scripts/bench.py.  BENCH_RUNS (default 3) and BENCH_CONFIGS choose the sweep.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
for p in bpftrace linux-perf; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'ok installed' ||
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$p"; }
done
make -C "$top" -s all
exec python3 "$top/scripts/bench.py" "$@"
