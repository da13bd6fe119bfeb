# The sample reports in README.md and the man page have the shape a real
# run of their command gives (issue 34: hand-written samples drifted, both
# lacked the LONGEST table): line by line, the same first word (a table's
# title, a row's function, a header's key), durations and counts aside.
# scripts/samples.sh regenerates them from a run.
. "$(dirname "$0")/lib.sh"
require_uprobes
"$OT" -f outer,middle,inner -- "$STRESS" --stress-threads 2 --stress-hz 5000 --stress-calls 500 \
	>"$work/run.out" 2>"$work/run.err" || fail_ "exit status $?: $(cat "$work/run.err")"
python3 - "$top" "$work/run.out" <<'PY' || fail_ "a sample drifted from the report"
import sys
top, run = sys.argv[1], open(sys.argv[2]).read().split("\n")

def shape(lines):
    # The first word of each line; a continuation row (LONGEST's) is "".
    return [l.split()[0] if l[:1].strip() else "" for l in lines]

def block(lines, first, last):
    a = next(i for i, l in enumerate(lines) if l.startswith(first))
    b = next(i for i in range(a, len(lines)) if lines[i].startswith(last))
    return lines[a:b + 1]

want = shape(block(run, "orbit-trace report: ", "disarmed "))
readme = [l[4:] for l in block(open(top + "/README.md").read().split("\n"),
                                "    orbit-trace report: ", "    disarmed ")]
man = [l.replace("\\e", "\\").replace("\\-", "-")
       for l in block(open(top + "/man/orbit-trace.1").read().split("\n"),
                      "orbit-trace report: /", "disarmed ")]
ok = True
for name, got in (("README.md", readme), ("man page", man)):
    if shape(got) != want:
        print("%s: %s\n  a run: %s" % (name, shape(got), want), file=sys.stderr)
        ok = False
sys.exit(0 if ok else 1)
PY
pass_
