# --backend inject on a process that execs: its old program and all of
# ours in it are gone, so nothing is written into the new one with the
# old one's data; the new program is instrumented at its entry point and
# its calls counted - a program exec'ing itself, another program, from a
# second thread, under -- CMD and -p - with the output of an untraced run
# and counts equal to bpftrace's on the same uprobes.  A program exec'd
# that inject cannot instrument makes the status lossy, saying why.
. "$(dirname "$0")/lib.sh"
T="$top/build/targets"
[ "$(uname -m)" = x86_64 ] || skip_ "inject is for x86-64"
command -v bpftrace >/dev/null || skip_ "bpftrace is not installed (make deps installs it)"

# bt_count FUNC CMD...: bpftrace's count of FUNC's entries in CMD's process.
bt_count() {
	f=$1
	shift
	bpftrace -e "uprobe:$T/sum:$f /pid == cpid/ { @n = count(); }" -c "$*" 2>/dev/null |
		sed -n 's/^@n: //p'
}
mix=$(bt_count mix "$T/execs" 2 1000 -- "$T/sum" 2000)
[ -n "$mix" ] && [ "$mix" -gt 0 ] || fail_ "bpftrace counted no call of sum's mix"

# -- CMD: the program execs itself twice, then sum.  mix is not mapped
# until the last exec: refused at first, armed there.
"$T/execs" 2 1000 -- "$T/sum" 2000 >"$work/plain.out"
"$OT" --backend inject --json -o "$work/cmd.json" -f "work,$T/sum:mix" -- \
	"$T/execs" 2 1000 -- "$T/sum" 2000 >"$work/cmd.out" 2>"$work/cmd.err" ||
	fail_ "-- CMD: exit status $?: $(cat "$work/cmd.err")"
cmp -s "$work/plain.out" "$work/cmd.out" || fail_ "output changed: $(cat "$work/cmd.out")"
json_check "$work/cmd.json" 'j["status"] == "ok" and j["records"]["lost"] == 0' \
	'j["inject"]["execs"] == 3 and j["inject"]["exec_untraced"] is None and j["inject"]["refused"] == []' \
	'(fn["work"]["scopes"], fn["work"]["unclosed"], fn["work"]["orphans"]) == (3000, 0, 0)' \
	'(fn["sum:mix"]["scopes"], fn["sum:mix"]["unclosed"]) == ('"$mix"', 0)' \
	'j["target"]["exit_status"] == 0'
"$OT" --backend inject -o "$work/cmd.txt" -f "work,$T/sum:mix" -- "$T/execs" 2 1000 -- "$T/sum" 2000 \
	>/dev/null 2>&1 || fail_ "-- CMD, text: exit status $?"
grep -qx "exec: 3 programs the process exec'd, instrumented at their entry points" "$work/cmd.txt" ||
	fail_ "the text report does not say what it did at the execs: $(head -4 "$work/cmd.txt")"

# The exec made from a second thread while the first one calls on (the
# kernel ends the first thread; the exec'ing one takes the process's id).
"$T/execs" 2 1000 thread -- "$T/sum" 2000 >"$work/thr.plain"
"$OT" --backend inject --json -o "$work/thr.json" -f "work,$T/sum:mix" -- \
	"$T/execs" 2 1000 thread -- "$T/sum" 2000 >"$work/thr.out" 2>"$work/thr.err" ||
	fail_ "exec from a thread: exit status $?: $(cat "$work/thr.err")"
cmp -s "$work/thr.plain" "$work/thr.out" || fail_ "output changed: $(cat "$work/thr.out")"
json_check "$work/thr.json" 'j["status"] == "ok"' 'j["inject"]["execs"] == 3' \
	'fn["work"]["scopes"] == 3000 and fn["sum:mix"]["scopes"] == '"$mix"

# -p: a process started before orbit-trace, which execs while traced.
"$T/execs" 2 1000 wait -- "$T/sum" 2000 >"$work/p.out" &
spid=$!
cleanup_pids="$spid"
wait_for "$work/p.out" '^ready '
"$OT" -v --backend inject --json -o "$work/p.json" -p "$spid" -f "work,$T/sum:mix" 2>"$work/p.err" &
otpid=$!
cleanup_pids="$spid $otpid"
wait_for "$work/p.err" 'armed 2 functions'
kill -USR1 "$spid"
wait "$otpid" || fail_ "-p: exit status $?: $(cat "$work/p.err")"
wait "$spid" || fail_ "the -p target exited with $?"
sed 1d "$work/p.out" >"$work/p.rest"
cmp -s "$work/plain.out" "$work/p.rest" || fail_ "-p: output changed: $(cat "$work/p.out")"
json_check "$work/p.json" 'j["status"] == "ok" and j["inject"]["execs"] == 3' \
	'fn["work"]["scopes"] == 3000 and fn["sum:mix"]["scopes"] == '"$mix" \
	'j["capture"]["ended_by"] == "target exit"'

# -p, the capture ended (SIGINT) while the program exec'd runs: only that
# program's patches are taken back, by its own addresses; it computes
# what it computes untraced, and nothing of orbit-trace's stays mapped.
want=$("$T/sum" 3000000)
"$T/execs" 0 1000 wait -- "$T/sum" 3000000 wait >"$work/x.out" &
spid=$!
cleanup_pids="$spid"
wait_for "$work/x.out" '^ready '
"$OT" -v --backend inject --json -o "$work/x.json" -p "$spid" -f "work,$T/sum:mix,$T/sum:scale" \
	2>"$work/x.err" &
otpid=$!
cleanup_pids="$spid $otpid"
wait_for "$work/x.err" 'armed 3 functions'
kill -USR1 "$spid"
wait_for "$work/x.err" "sum instrumented"
[ "$(grep -c '^ready ' "$work/x.out")" = 2 ] || fail_ "sum did not start: $(cat "$work/x.out")"
kill -INT "$otpid"
wait "$otpid" || fail_ "-p, SIGINT after the exec: exit status $?: $(cat "$work/x.err")"
! grep -q orbit-trace "/proc/$spid/maps" || fail_ "the rings' memfd is still mapped"
kill -USR1 "$spid"
wait "$spid" || fail_ "the program exec'd exited with $? after the capture"
[ "$(tail -n 1 "$work/x.out")" = "$want" ] ||
	fail_ "sum computed '$(tail -n 1 "$work/x.out")', untraced '$want'"
json_check "$work/x.json" 'j["status"] == "ok" and j["inject"]["execs"] == 1' \
	'fn["work"]["scopes"] == 1000 and j["inject_removal"]["left_mapped_bytes"] == 0' \
	'j["capture"]["ended_by"] == "signal"'

# A program exec'd under a seccomp filter (nobpf) cannot be instrumented:
# it runs untraced, as it would have, and the status says why.
"$T/nobpf" "$T/execs" 0 100 >"$work/sec.plain"
"$OT" --backend inject --json -o "$work/sec.json" -f libc.so.6:getenv -- "$T/nobpf" "$T/execs" 0 100 \
	>"$work/sec.out" 2>"$work/sec.err" || fail_ "seccomp: exit status $?: $(cat "$work/sec.err")"
cmp -s "$work/sec.plain" "$work/sec.out" || fail_ "seccomp: output changed"
grep -qxF "orbit-trace: warning: process $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["target"]["pid"])' "$work/sec.json") exec'd $(realpath "$T/execs"), which is not traced: inject cannot instrument it" \
	"$work/sec.err" || fail_ "no warning: $(cat "$work/sec.err")"
json_check "$work/sec.json" 'j["status"] == "lossy" and j["inject"]["exec_untraced"]' \
	'any("exec'"'"'d a program inject could not trace" in r for r in j["reasons"])'
pass_
