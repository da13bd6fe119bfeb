#!/bin/sh
# go-diff.sh [RUNS]: the differential run of issue 29 - Go programs traced
# behave as untraced.  Each run of each case runs the program untraced and
# traced by orbit-trace (the default backend), and compares what it wrote
# on stdout and its exit status: gop's workload (goroutines that move,
# stacks copied mid-recursion, recovered panics), its stripped copy, its
# deadlock (Go's fatal error, exit 2: the same status, the same output
# before it).  Prints a line per case and fails if any run differed.
# RUNS defaults to 20; tests/e2e/go.sh runs 2.
# Needs root (uprobes); OT=path/to/orbit-trace to choose the binary.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
OT=${OT:-$top/orbit-trace}
runs=${1:-20}
G=$top/build/targets/gop
GS=$top/build/targets/gop-stripped
F='main.outer,main.middle,main.leaf,main.deep,main.guarded,main.boom,main.greet'
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0

# case NAME CMD...: RUNS times untraced and traced, stdout and status compared.
case_() {
	name=$1
	shift
	same=0 i=0
	while [ $i -lt "$runs" ]; do
		set +e
		"$@" >"$tmp/want" 2>/dev/null
		want=$?
		"$OT" -q -o "$tmp/report" -f "$F" -- "$@" >"$tmp/got" 2>/dev/null
		got=$?
		set -e
		# orbit-trace exits 0, or 3 when its check failed (Go's fatal
		# error): the program's own status is the report's.
		st=$(sed -n 's/.*ended by target exit (exit status \([0-9]*\)).*/\1/p' "$tmp/report")
		if [ "$got" -le 3 ] && [ "$st" = "$want" ] && cmp -s "$tmp/want" "$tmp/got"; then
			same=$((same + 1))
		else
			echo "  $name run $i: exit status $want untraced, $st traced (orbit-trace $got)" >&2
			diff "$tmp/want" "$tmp/got" | head -5 >&2 || true
		fi
		i=$((i + 1))
	done
	printf '%-28s %3d of %3d runs as untraced\n' "$name" $same "$runs"
	[ $same = "$runs" ] || bad=1
}

case_ "gop 300" "$G" 300
case_ "gop-stripped 300" "$GS" 300
case_ "gop -deadlock 20 (exit 2)" "$G" -deadlock 20
exit $bad
