# The report's tables gathered two ways agree (issue 33, item 6's
# harness): each program traced under --backend inject, its records
# streamed through rings large enough to lose nothing, and under the
# multi backend's uprobes; every function's counts and depths and the
# call tree must be identical (tests/e2e/tables_cmp.py), whatever each
# call cost.  Issue 33's tables gathered in the process will join as a
# third way, compared with durations too (tables_cmp.py --durations).
# The stress tree, recursion, C++ exceptions, fibers, CPython.
. "$(dirname "$0")/lib.sh"
T="$top/build/targets"
require_uprobes
[ "$(uname -m)" = x86_64 ] || skip_ "inject is for x86-64"
PY=/usr/bin/python3.11

# both NAME FUNCS SAME CMD...: the program under each backend, its exit
# status as untraced, and its output (SAME=1; the stress program prints
# its timings), the tables compared.
both() {
	case_=$1 funcs=$2 same=$3
	shift 3
	set +e
	"$@" >"$work/$case_.want" 2>&1
	want=$?
	set -e
	for b in inject multi; do
		ring="--ring-kb 16384"
		[ "$b" = inject ] && ring="--ring-kb 65536"
		set +e
		# shellcheck disable=SC2086
		"$OT" --backend "$b" $ring --json -o "$work/$case_-$b.json" -f "$funcs" -- "$@" \
			>"$work/$case_-$b.out" 2>"$work/$case_-$b.err"
		rc=$?
		set -e
		[ "$rc" = "$want" ] || fail_ "$case_, $b: exit status $rc, untraced $want: $(cat "$work/$case_-$b.err")"
		[ "$same" = 0 ] || cmp -s "$work/$case_.want" "$work/$case_-$b.out" ||
			fail_ "$case_, $b: output differs from the untraced run's"
		json_check "$work/$case_-$b.json" 'j["records"]["lost"] == 0'
	done
	python3 "$top/tests/e2e/tables_cmp.py" "$work/$case_-inject.json" "$work/$case_-multi.json" ||
		fail_ "$case_: the tables differ (inject against multi, above)"
}

both stress outer,middle,inner 0 "$STRESS" --stress-threads 2 --stress-hz 0 --stress-calls 2000
both recurse top,rec,leaf 1 "$T/recurse" 200 30
both throw f,g,h,leaf 1 "$T/throw" 1000
both fibers step,work 1 "$T/fibers" 1000
if [ -x "$PY" ]; then
	printf 'd = {}\ns = 0\nfor i in range(3000):\n    for k in range(20):\n        d[k] = i + k\n    s += hash(i) + len(d)\nprint(s)\n' \
		>"$work/hot.py"
	both python PyObject_Hash,PyLong_FromLong 1 "$PY" "$work/hot.py"
fi
pass_
