#!/bin/sh
# Regenerate the sample report in README.md and the man page's EXAMPLES
# from a real run of the command they show (issue 34: samples written by
# hand drifted from the report).  Needs root (uprobes) and a built tree:
#   sudo sh scripts/samples.sh [ORBIT_TRACE]
# tests/e2e/samples.sh checks that both have the shape a run gives.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
OT=${1:-$top/build/orbit-trace}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$OT" -f outer,middle,inner -- "$top/tests/stress/orbit-stress" --stress-threads 2 \
	--stress-hz 5000 --stress-calls 5000 2>/dev/null | sed -n '/^orbit-trace report:/,$p' >"$out"
python3 - "$top" "$out" <<'PY'
import re, sys
top, out = sys.argv[1], open(sys.argv[2]).read().rstrip("\n").split("\n")
# README: the indented block from "orbit-trace report:" to "disarmed".
p = top + "/README.md"
text = open(p).read().split("\n")
a = next(i for i, l in enumerate(text) if l.startswith("    orbit-trace report: "))
b = next(i for i in range(a, len(text)) if text[i].startswith("    disarmed "))
text[a:b + 1] = ["    " + l if l else "" for l in out]
open(p, "w").write("\n".join(text))
# man page: the .EX block after "prints (durations vary):", groff-escaped.
p = top + "/man/orbit-trace.1"
text = open(p).read().split("\n")
m = text.index("prints (durations vary):")
a = text.index(".EX", m) + 1
b = text.index(".EE", a)
text[a:b] = [l.replace("\\", "\\e") for l in out]
open(p, "w").write("\n".join(text))
PY
echo "samples regenerated: README.md, man/orbit-trace.1"
