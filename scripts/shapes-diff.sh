#!/bin/sh
# shapes-diff.sh [RUNS]: the differential run of issue 30 - programs of
# every shape traced behave as untraced, on every backend they concern.
# Each run of each case runs the program untraced and traced, compares
# what it wrote on stdout (through the case's filter where the program
# prints what varies: pids, a count of signals) and its exit status, and
# checks the report: its counts exact (the case's expression over the
# JSON), or its status not ok.  Prints a table, shape x backend: runs,
# equal (output and exit status as untraced), harmed (not), not-ok
# (status lossy or failed), lied (status ok, counts not exact); fails if
# any run harmed or lied.
# RUNS defaults to 20; make check runs 2.  SHAPES=REGEX keeps to shapes
# whose name matches, BACKENDS="multi perf inject" to those.
# Needs root (uprobes); OT=path/to/orbit-trace to choose the binary.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
OT=${OT:-$top/orbit-trace}
runs=${1:-20}
only=${SHAPES:-.}
backends=${BACKENDS:-multi perf inject}
T=$top/build/targets
PY=$(command -v /usr/bin/python3.11 || command -v python3)
tmp=$(mktemp -d)
chmod 0755 "$tmp"
pids=
trap 'for p in $pids; do kill -KILL "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
bad=0
table="$tmp/table"
printf '%-22s %-7s %5s %6s %7s %7s %5s\n' SHAPE BACKEND RUNS EQUAL HARMED NOT-OK LIED >"$table"

# want SHAPE BACKEND: is this row to run?
want_row() {
	echo "$1" | grep -Eq "$only" && case " $backends " in *" $2 "*) true ;; *) false ;; esac
}

# verdict JSON EXACT: "STATUS EXIT EXACT" of a report (EXIT: the
# program's exit status as the report says; EXACT: 1 if the expression,
# over j, fn and out (the program's stdout and stderr traced), holds).
verdict() {
	"$PY" - "$1" "$2" "$tmp/got" "$tmp/got.err" <<'PY' 2>/dev/null || echo "none none 0"
import json, sys
try:
    j = json.load(open(sys.argv[1]))
except Exception:
    print("none none 0"); sys.exit(0)
fn = {f["name"]: f for f in j["functions"]}
out = open(sys.argv[3], errors="replace").read() + open(sys.argv[4], errors="replace").read()
try:
    ok = bool(eval(sys.argv[2]))
except Exception:
    ok = False
print(j["status"], j["target"].get("exit_status"), int(ok))
PY
}

# tally SHAPE BACKEND EQUAL STATUS EXACT: one run counted in the row.
tally() {
	n_runs=$((n_runs + 1))
	if [ "$3" = 1 ]; then n_eq=$((n_eq + 1)); else n_harm=$((n_harm + 1)); fi
	[ "$4" = ok ] || n_notok=$((n_notok + 1))
	[ "$4" != ok ] || [ "$5" = 1 ] || n_lied=$((n_lied + 1))
}

row_start() { n_runs=0 n_eq=0 n_harm=0 n_notok=0 n_lied=0; }
row_end() {
	printf '%-22s %-7s %5d %6d %7d %7d %5d\n' "$1" "$2" $n_runs $n_eq $n_harm $n_notok $n_lied |
		tee -a "$table"
	[ $n_harm = 0 ] && [ $n_lied = 0 ] || bad=1
}

# case_ SHAPE BACKEND FILTER EXACT OT-ARGS -- CMD...: RUNS times CMD
# untraced and traced by orbit-trace --backend BACKEND OT-ARGS; FILTER
# (a sed script) is applied to both outputs.  $wrap, if set, runs CMD
# and orbit-trace (setpriv as another user); $json is where the report goes.
case_() {
	shape=$1 b=$2 filt=$3 exact=$4
	shift 4
	want_row "$shape" "$b" || return 0
	ota=
	while [ "$1" != -- ]; do ota="$ota $1"; shift; done
	shift
	row_start
	i=0
	while [ $i -lt "$runs" ]; do
		${wrap:-} "$@" >"$tmp/want.raw" 2>/dev/null
		want=$?
		rm -f "${json:-$tmp/r.json}"
		${wrap:-} "$OT" --backend "$b" $ota --json -o "${json:-$tmp/r.json}" -- "$@" \
			>"$tmp/got.raw" 2>"$tmp/got.err"
		sed "$filt" "$tmp/want.raw" >"$tmp/want"
		sed "$filt" "$tmp/got.raw" >"$tmp/got"
		v=$(verdict "${json:-$tmp/r.json}" "$exact")
		st=${v%% *} rest=${v#* }
		ex=${rest%% *} exact_ok=${rest#* }
		eq=0
		[ "$ex" = "$want" ] && cmp -s "$tmp/want" "$tmp/got" && eq=1
		[ $eq = 1 ] || echo "  $shape/$b run $i: exit status $want untraced, $ex traced: $(head -c 300 "$tmp/got.err")" >&2
		[ "$st" != ok ] || [ "$exact_ok" = 1 ] || echo "  $shape/$b run $i: ok but not exact" >&2
		tally "$shape" "$b" $eq "$st" "$exact_ok"
		i=$((i + 1))
	done
	row_end "$shape" "$b"
}

# wait_line FILE REGEX: until FILE has a line matching (60 s at most).
wait_line() {
	n=0
	while ! grep -q "$2" "$1" 2>/dev/null; do
		n=$((n + 1))
		[ $n -le 600 ] || return 1
		sleep 0.1
	done
}

# prefork_run BACKEND KILLED: one run of a pre-forking server (prefork):
# traced by inject on the server (KILLED empty), its worker forked and
# working under the capture; or (KILLED=1) an inject capture on the
# worker killed with SIGKILL, then a capture by BACKEND on it.  Sets eq,
# st, exact_ok; the server's own output (pids taken out) and exit status
# are compared with an untraced run's.
prefork_run() {
	b=$1 killed=$2
	# Nothing of the last run's to be waited for: a stale "armed" line
	# let a signal reach orbit-trace before it was set to take it.
	rm -f "$tmp/ot.err" "$tmp/ot1.err" "$tmp/r.json"
	: >"$tmp/pf.out"
	"$T/prefork" 1000 >"$tmp/pf.out" 2>/dev/null &
	spid=$!
	pids="$spid"
	wait_line "$tmp/pf.out" '^ready ' || return 1
	if [ -z "$killed" ]; then
		"$OT" -v --backend inject --json -o "$tmp/r.json" -p "$spid" -f handle,spawn_worker \
			2>"$tmp/ot.err" &
	else
		kill -USR1 "$spid"
		wait_line "$tmp/pf.out" '^worker [0-9]*$' || return 1
		wpid=$(sed -n 's/^worker \([0-9]*\)$/\1/p' "$tmp/pf.out")
		"$OT" -v --backend inject -o /dev/null -p "$wpid" -f handle 2>"$tmp/ot1.err" &
		otpid=$!
		pids="$spid $otpid"
		wait_line "$tmp/ot1.err" 'armed 1 functions' || return 1
		kill -KILL "$otpid"
		wait "$otpid" 2>/dev/null
		"$OT" -v --backend "$b" --json -o "$tmp/r.json" -p "$wpid" -f handle 2>"$tmp/ot.err" &
	fi
	otpid=$!
	pids="$spid $otpid"
	wait_line "$tmp/ot.err" 'armed [12] functions' || return 1
	if [ -z "$killed" ]; then
		kill -USR1 "$spid"
		wait_line "$tmp/pf.out" '^worker [0-9]*$' || return 1
		wpid=$(sed -n 's/^worker \([0-9]*\)$/\1/p' "$tmp/pf.out")
	fi
	kill -USR1 "$wpid"
	wait_line "$tmp/pf.out" "^worker $wpid calls " || return 1
	kill -INT "$otpid"
	wait "$otpid"
	kill -TERM "$spid"
	wait "$spid"
	ex=$?
	pids=
	sed 's/[0-9][0-9]*/N/g' "$tmp/pf.out" >"$tmp/got"
	: >"$tmp/got.err"
	eq=0
	[ "$ex" = 0 ] && cmp -s "$tmp/pf.want" "$tmp/got" && eq=1
	[ $eq = 1 ] || echo "  prefork/$b run $i: exit status $ex: $(cat "$tmp/pf.out")" >&2
	if [ -z "$killed" ]; then
		v=$(verdict "$tmp/r.json" 'fn["spawn_worker"]["scopes"] == 1 and fn["handle"]["scopes"] == 0')
	else
		v=$(verdict "$tmp/r.json" 'fn["handle"]["scopes"] == 1000')
	fi
	st=${v%% *}
	exact_ok=${v##* }
	[ "$st" != ok ] || [ "$exact_ok" = 1 ] ||
		echo "  prefork/$b run $i: ok but not exact: $(grep -o '"scopes": [0-9]*' "$tmp/r.json" | tr '\n' ' ')" >&2
}

# The server's output untraced, the same steps without orbit-trace.
prefork_want() {
	"$T/prefork" 1000 >"$tmp/pf.out" 2>/dev/null &
	spid=$!
	pids="$spid"
	wait_line "$tmp/pf.out" '^ready '
	kill -USR1 "$spid"
	wait_line "$tmp/pf.out" '^worker [0-9]*$'
	wpid=$(sed -n 's/^worker \([0-9]*\)$/\1/p' "$tmp/pf.out")
	kill -USR1 "$wpid"
	wait_line "$tmp/pf.out" "^worker $wpid calls "
	kill -TERM "$spid"
	wait "$spid"
	pids=
	sed 's/[0-9][0-9]*/N/g' "$tmp/pf.out" >"$tmp/pf.want"
}

# prefork_case SHAPE BACKEND KILLED
prefork_case() {
	want_row "$1" "$2" || return 0
	row_start
	i=0
	while [ $i -lt "$runs" ]; do
		if ! prefork_run "$2" "$3"; then
			eq=0 st=none exact_ok=0
			echo "  $1/$2 run $i: stuck: $(cat "$tmp/pf.out" "$tmp/ot.err" 2>/dev/null | head -c 300)" >&2
			for p in $pids; do kill -KILL "$p" 2>/dev/null; done
			pids=
		fi
		tally "$1" "$2" $eq "$st" "$exact_ok"
		i=$((i + 1))
	done
	row_end "$1" "$2"
}

ids='s/[0-9][0-9]*/N/g'
for b in multi perf inject; do
	if [ "$(uname -m)" = x86_64 ]; then
		case_ "asm switch" $b p 'fn["astep"]["scopes"] == 2000 and fn["awork"]["scopes"] == 4000' \
			-f astep,awork -- "$T/asmswitch" 1000
		case_ "asm switch, unnamed" $b p 'fn["outer"]["scopes"] == fn["inner"]["scopes"] == 500' \
			-f outer,inner -- "$T/hidswitch" 500
		# Return probes forced there: seen switching at run time, never ok.
		[ $b = inject ] || case_ "asm unnamed, uretprobe" $b p 'False' \
			--returns uretprobe -f outer,inner -- "$T/hidswitch" 500
		# Fibers yielding inside ahop(), which leaves by a jump through
		# a pointer: by default a return probe where the backend guards
		# them (multi: the fibers' calls declined), else none; never ok.
		[ $b = inject ] || case_ "asm switch, hop" $b p 'False' \
			-f ahop,awork -- "$T/asmswitch" 1000 hop
		# Forced: multi's guard declines every fiber's call, never ok
		# (perf's unguarded return probe kills it: not a row).
		[ $b != multi ] || case_ "asm switch, uretprobe" $b p 'False' \
			--returns uretprobe -f astep,awork -- "$T/asmswitch" 1000
	fi
	case_ "sigaltstack coroutines" $b p 'fn["cstep"]["scopes"] == 2000 and fn["cwork"]["scopes"] == 4000' \
		-f cstep,cwork -- "$T/altstack" 1000
	case_ "swapcontext in a .so" $b p 'fn["lstep"]["scopes"] == 2000 and fn["lwork"]["scopes"] == 4000' \
		-f lstep,lwork -- "$T/usecoro" 1000
	case_ "migrating fibers" $b p 'fn["hop"]["scopes"] == 1000 and fn["leaf"]["scopes"] == 2000' \
		-f hop,leaf -- "$T/migrate" 1000
	case_ "vfork/posix_spawn" $b p 'fn["parent_only"]["scopes"] == 100 and fn["child_only"]["scopes"] == 0' \
		-f parent_only,child_only -- "$T/vforks" 100
	for cc in gcc clang; do
		case_ "ASan ($cc), a leak" $b p 'fn["work"]["scopes"] == 1000' \
			-f work -- "$T/asan-$cc" 1000 leak
	done
	case_ "100-deep recursion" $b p \
		'(fn["top"]["scopes"], fn["rec"]["scopes"], fn["leaf"]["scopes"]) == (200, 20000, 200)' \
		-f top,rec,leaf -- "$T/recurse" 200 100
	case_ "JSON at depth 8,000" $b p \
		'fn["rec"]["scopes"] == 40000 and __import__("os").path.getsize(sys.argv[1]) < 200000' \
		-f top,rec,leaf -- "$T/recurse" 5 8000
done
# A handler that longjmps: out of traced calls (asyncjmp: the uprobe
# backends), out of inject's runtime (handjmp: how many jumps varies).
for b in multi perf; do
	case_ "handler longjmps" $b p \
		'(lambda r, l: (fn["spin"]["scopes"], fn["spin"]["unclosed"]) == (r, l))(*map(int, __import__("re").search(r"returned (\d+) left (\d+)", out).groups()))' \
		-f spin,tick -- "$T/asyncjmp" 20000
done
case_ "handler longjmps" inject 's/ jumps [0-9]*$//' 'fn["work"]["scopes"] == 2000000' \
	-f work -- "$T/handjmp" 2000000
# A setuid program exec'd under an unprivileged capture (inject's case:
# the uprobe backends need root, whose exec keeps its privileges).
if [ "$(id -u)" = 0 ] && want_row "setuid exec, nobody" inject; then
	pub=$(mktemp -d /tmp/shapes-diff.XXXXXX)
	chmod 0755 "$pub"
	cp -p "$T/execsuid" "$OT" "$pub/"
	cp -p "$T/execsuid" "$pub/suidcheck"
	chmod 4755 "$pub/suidcheck"
	mkdir -m 0777 "$pub/out"
	json="$pub/out/r.json"
	OT_ROOT=$OT OT=$pub/$(basename "$OT")
	wrap="setpriv --reuid=65534 --regid=65534 --clear-groups"
	# Untraced also as nobody: the program's privileges are its own.
	case_ "setuid exec, nobody" inject p 'fn["before"]["scopes"] == 1' \
		-f before -- "$pub/execsuid" "$pub/suidcheck"
	OT=$OT_ROOT
	unset json wrap
	rm -rf "$pub"
fi
# node's V8 builtins (V8 walks its stacks: inject sees returns at return
# instructions).
node=$(command -v node || command -v nodejs || true)
if [ -n "$node" ] && [ "$(uname -m)" = x86_64 ]; then
	fn=v8::internal::Builtin_JsonStringify
	if ! nm -D "$node" 2>/dev/null | grep -q Builtin_JsonStringify; then
		lib=$(ldd "$node" | awk '/libnode\.so/ { print $1; exit }')
		fn="$lib:$fn"
	fi
	for b in multi perf inject; do
		case_ "node V8 builtins" $b p 'j["functions"][0]["scopes"] == 20000' \
			-f "$fn" -- "$node" "$top/tests/e2e/targets/n4.js" 20000
	done
fi
# LuaJIT: a C function called through the FFI, LuaJIT's own API (it
# unwinds its C frames: inject sees returns at return instructions).
# Preloaded: inject patches only code mapped when it arms.
LJ=$(command -v luajit || true)
if [ -n "$LJ" ]; then
	lib=$T/libffiwork.so
	wrap="env LD_PRELOAD=$lib ASAN_OPTIONS=verify_asan_link_order=0"
	for b in multi perf inject; do
		case_ "LuaJIT FFI and API" $b p \
			'fn["libffiwork.so:ffiwork"]["scopes"] == 101000 and fn["libffiwork.so:ffiapply"]["scopes"] == 1000 and fn["luaL_where"]["scopes"] >= 1000' \
			-f "$lib:ffiwork,$lib:ffiapply,luaL_where" -- "$LJ" "$top/tests/e2e/targets/ffi.lua" "$lib" 100000
	done
	unset wrap
fi
# Mono (Debian's links its runtime in): C# calling C through P/Invoke, a
# delegate called back throwing through the C frame.
if command -v mono >/dev/null && command -v mcs >/dev/null &&
   mcs -out:"$tmp/pinvoke.exe" "$top/tests/e2e/targets/pinvoke.cs" >/dev/null 2>&1; then
	lib=$T/libnwork.so
	wrap="env LD_PRELOAD=$lib LD_LIBRARY_PATH=$T ASAN_OPTIONS=verify_asan_link_order=0"
	for b in multi perf inject; do
		case_ "Mono P/Invoke, throws" $b p \
			'fn["libnwork.so:nwork"]["scopes"] == 109900 and fn["libnwork.so:napply"]["scopes"] == 10000' \
			-f "$lib:nwork,$lib:napply" -- mono "$tmp/pinvoke.exe" 100000
	done
	unset wrap
fi
# A forking server under inject; a capture after a SIGKILLed inject one.
if want_row "forking server" inject || want_row "after a killed inject" multi ||
   want_row "after a killed inject" perf || want_row "after a killed inject" inject; then
	prefork_want
	prefork_case "forking server" inject ""
	for b in multi perf inject; do
		prefork_case "after a killed inject" $b 1
	done
fi
echo
cat "$table"
exit $bad
