# Faults during a capture: calls whose returns never come (recursion past
# the kernel's uretprobe nesting limit, longjmp, a C++ exception; with
# return probes and with --returns insn), thread
# churn, the target killed, the tracer killed (no probe left behind), and a
# second SIGINT.  Each target prints the counts it made.
. "$(dirname "$0")/lib.sh"
require_uprobes
T="$top/build/targets"

# Recursion 100 deep: the kernel gives return probes to the outer 64 or so
# levels only.  The deeper calls are unclosed, everything else exact.
"$OT" --json -o "$work/rec.json" -f top,rec,leaf -- "$T/recurse" 200 100 >/dev/null 2>"$work/rec.err" ||
	fail_ "recursion: exit status $?"
json_check "$work/rec.json" \
	'fn["top"]["scopes"] == 200 and fn["top"]["depths"] == {"0": 200} and fn["top"]["unclosed"] == 0' \
	'fn["leaf"]["scopes"] == 200 and fn["leaf"]["depths"] == {"1": 200} and fn["leaf"]["unclosed"] == 0' \
	'fn["rec"]["scopes"] + fn["rec"]["unclosed"] == 20000 and fn["rec"]["unclosed"] > 0' \
	'fn["rec"]["orphans"] == 0 and fn["rec"]["duplicates"] == 0' \
	'min(int(d) for d in fn["rec"]["depths"]) == 1'

# longjmp from h through g back into f: g and h unclosed, f and leaf exact.
"$OT" --json -o "$work/jump.json" -f f,g,h,leaf -- "$T/jump" 500 >/dev/null 2>"$work/jump.err" ||
	fail_ "longjmp: exit status $?"
json_check "$work/jump.json" \
	'fn["f"]["scopes"] == 500 and fn["f"]["depths"] == {"0": 500}' \
	'fn["leaf"]["scopes"] == 500 and fn["leaf"]["depths"] == {"1": 500}' \
	'fn["g"]["unclosed"] == 500 and fn["h"]["unclosed"] == 500' \
	'fn["g"]["scopes"] == fn["h"]["scopes"] == 0' \
	'all(f["orphans"] == 0 and f["duplicates"] == 0 for f in j["functions"])'

# A C++ exception caught in f, thrown from h through untraced g: exact,
# even with return probes.
"$OT" --returns uretprobe --json -o "$work/throw.json" -f f,leaf -- "$T/throw" 500 >/dev/null 2>"$work/throw.err" ||
	fail_ "exception: exit status $?"
json_check "$work/throw.json" \
	'fn["f"]["scopes"] == 500 and fn["leaf"]["scopes"] == 500 and fn["leaf"]["depths"] == {"1": 500}' \
	'j["target"]["exit_status"] == 0'
# Through traced g and h, with probes on return instructions (nothing on
# the stack changes): the program runs to its end, g and h are unclosed,
# f (which tail-calls leaf after the catch) and leaf exact.
"$OT" --returns insn --json -o "$work/throw-insn.json" -f f,g,h,leaf -- "$T/throw" 500 \
	>"$work/throw-insn.out" 2>"$work/throw-insn.err" || fail_ "--returns insn: exit status $?"
grep -q '"caught": 500' "$work/throw-insn.out" || fail_ "the C++ program did not finish"
json_check "$work/throw-insn.json" \
	'j["target"]["exit_status"] == 0 and j["arming"]["returns"] == "insn"' \
	'fn["f"]["scopes"] == 500 and fn["f"]["depths"] == {"0": 500} and fn["f"]["unclosed"] == 0' \
	'fn["leaf"]["scopes"] == 500 and fn["leaf"]["depths"] == {"1": 500}' \
	'fn["g"]["unclosed"] == 500 and fn["h"]["unclosed"] == 500' \
	'all(f["orphans"] == 0 and f["duplicates"] == 0 for f in j["functions"])'
# By default a C++ program gets --returns insn, the same exact result.
"$OT" --json -o "$work/throw-auto.json" -f f,g,h,leaf -- "$T/throw" 500 \
	>/dev/null 2>"$work/throw-auto.err" || fail_ "C++ default: exit status $?"
json_check "$work/throw-auto.json" \
	'j["arming"]["returns"] == "insn" and j["target"]["exit_status"] == 0' \
	'fn["f"]["scopes"] == 500 and fn["g"]["unclosed"] == 500'
# With return probes forced, the C++ runtime finds the uretprobe trampoline
# where a return address should be and calls std::terminate (perf's and
# bpftrace's return probes do the same): orbit-trace warns before, then
# reports the signal with what it saw, and fails (a crash: exit status 3).
expect_rc 3 /dev/null "$work/throw2.err" "$OT" --returns uretprobe --json -o "$work/throw2.json" \
	-f f,g,h -- "$T/throw" 500
grep -q "uses C++ exceptions: one thrown through a function with a return probe aborts the program; --returns insn avoids that" \
	"$work/throw2.err" || fail_ "no warning about C++ exceptions"
json_check "$work/throw2.json" \
	'j["target"]["signal"] == 6 and j["status"] == "failed"' \
	'any("was killed by SIGABRT during the capture" in r for r in j["reasons"])' \
	'fn["h"]["unclosed"] + fn["h"]["scopes"] >= 1 and fn["f"]["orphans"] == 0'

# The same recursion and longjmp with --returns insn: no nesting limit for
# plain uprobes, so every rec call closes; the longjmp heals the same way.
"$OT" --returns insn --json -o "$work/rec-insn.json" -f top,rec,leaf -- "$T/recurse" 200 100 \
	>/dev/null 2>"$work/rec-insn.err" || fail_ "recursion, insn: exit status $?"
json_check "$work/rec-insn.json" \
	'fn["rec"]["scopes"] == 20000 and fn["rec"]["unclosed"] == 0' \
	'fn["top"]["scopes"] == 200 and fn["leaf"]["depths"] == {"1": 200}'
"$OT" --returns insn --json -o "$work/jump-insn.json" -f f,g,h,leaf -- "$T/jump" 500 \
	>/dev/null 2>"$work/jump-insn.err" || fail_ "longjmp, insn: exit status $?"
json_check "$work/jump-insn.json" \
	'fn["f"]["scopes"] == 500 and fn["leaf"]["depths"] == {"1": 500}' \
	'fn["g"]["unclosed"] == 500 and fn["h"]["unclosed"] == 500'

# Thread churn: 600 threads made and joined in 300 rounds, every scope counted.
"$OT" --json -o "$work/churn.json" --expect outer=6000,middle=12000,inner=36000 \
	-f outer,middle,inner -- "$STRESS" --stress-threads 2 --stress-hz 0 \
	--stress-calls 10 --stress-rounds 300 >/dev/null || fail_ "churn: exit status $?"
json_check "$work/churn.json" 'j["status"] == "ok"' 'j["capture"]["threads"] == 600'

# The target killed mid-capture: a report of what was seen, exit 0.
"$OT" --json -o "$work/killed.json" -f outer,middle,inner -- "$STRESS" \
	--stress-hz 1000 --stress-calls 100000 --wait-go >"$work/killed.out" &
otpid=$!
cleanup_pids=$otpid
wait_for "$work/killed.out" '^ready '
spid=$(sed -n 's/^ready //p' "$work/killed.out")
kill -USR1 "$spid"; sleep 0.5; kill -KILL "$spid"
wait "$otpid" || fail_ "target killed: exit status $?"
json_check "$work/killed.json" \
	'j["target"]["signal"] == 9 and j["capture"]["ended_by"] == "target exit"' \
	'fn["outer"]["scopes"] > 100' \
	'fn["outer"]["unclosed"] <= 1 and fn["middle"]["unclosed"] <= 1 and fn["inner"]["unclosed"] <= 1'

# The tracer killed with SIGKILL: the breakpoint leaves the target's code
# with the tracer's fds, the target keeps running, a new tracer counts anew.
"$STRESS" --stress-hz 1000 --stress-calls 100000 --wait-go >"$work/busy.out" &
spid=$!
cleanup_pids="$spid"
wait_for "$work/busy.out" '^ready '
kill -USR1 "$spid"
off=$("$OT" -l -f outer -- "$STRESS" | awk '!/^#/ { print $1 }')
byte_at_outer() {
	python3 - "$1" "$off" "$(realpath "$STRESS")" <<'PY'
import sys
pid, off, path = int(sys.argv[1]), int(sys.argv[2], 16), sys.argv[3]
for l in open("/proc/%d/maps" % pid):
    f = l.split()
    lo, hi = (int(x, 16) for x in f[0].split("-"))
    moff = int(f[2], 16)
    if len(f) > 5 and f[5] == path and "x" in f[1] and moff <= off < moff + hi - lo:
        m = open("/proc/%d/mem" % pid, "rb"); m.seek(lo + off - moff)
        print("%02x" % m.read(1)[0]); break
PY
}
orig=$(od -An -tx1 -j $((off)) -N1 "$STRESS" | tr -d ' ')
[ "$(byte_at_outer "$spid")" = "$orig" ] || fail_ "outer is not intact before tracing"
"$OT" -v -o /dev/null -p "$spid" -f outer 2>"$work/k.err" &
otpid=$!
cleanup_pids="$spid $otpid"
wait_for "$work/k.err" 'armed 1 functions'
[ "$(byte_at_outer "$spid")" = cc ] || fail_ "no breakpoint at outer while armed"
kill -KILL "$otpid"
wait "$otpid" 2>/dev/null || true
[ "$(byte_at_outer "$spid")" = "$orig" ] || fail_ "outer still has a breakpoint after the tracer died"
kill -0 "$spid" || fail_ "the target died with its tracer"
"$OT" --json -o "$work/again.json" -p "$spid" -f outer,middle -d 1 || fail_ "second tracer: $?"
json_check "$work/again.json" \
	'500 <= fn["outer"]["scopes"] <= 1500 and fn["middle"]["scopes"] >= 2 * fn["outer"]["scopes"] - 2'

# SIGINT ends the capture; a second one, while the probes are disarmed,
# ends orbit-trace at once (exit by signal) after the report is out.  The
# perf backend, because its disarming takes seconds for every function.
"$OT" --backend perf -o "$work/twice.txt" -p "$spid" -f '*' 2>"$work/twice.err" &
otpid=$!
cleanup_pids="$spid $otpid"
sleep 1
kill -INT "$otpid"
wait_for "$work/twice.txt" '^status:'
# Past a second of disarming, stderr says what is going on.
wait_for "$work/twice.err" 'still disarming [0-9]* perf events'
kill -INT "$otpid"
set +e
wait "$otpid"
rc=$?
set -e
[ $rc = 130 ] || fail_ "second SIGINT: exit status $rc, expected 130 (killed by SIGINT)"
kill -0 "$spid" || fail_ "the target died"
pass_
