# --follow traces the processes the target forks, from their first call,
# and the programs they exec (for the -f files they map), with a row per
# process.  Checked on exact counts: a target whose children call a traced
# function once each and exit at once; a shell (nobody here wrote it)
# running a known program twice; a -p shell that keeps starting it, and one
# whose child was already running; gzip -d under sh against bpftrace's
# counts of the same uprobe in gzip; and the refusals.
. "$(dirname "$0")/lib.sh"
require_uprobes
V="$top/build/targets/values"
F="$top/build/targets/forks"

# 20 children made by spawn(), each calling leaf() once: every first call
# seen (the child is followed before it runs).  spawn returns in the child
# too, where its entry was not seen: 20 orphans, said so.  system() runs
# a shell every 5th time: 25 processes followed.
"$OT" -q --json -o "$work/forks.json" --follow -f leaf,spawn -- "$F" 20 >"$work/out" 2>"$work/err" ||
	fail_ "forks: exit status $?: $(cat "$work/err")"
"$F" 20 >"$work/want" 2>/dev/null || fail_ "forks untraced: exit status $? (traced: 0)"
cmp -s "$work/out" "$work/want" || fail_ "forks printed '$(cat "$work/out")', untraced '$(cat "$work/want")'"
json_check "$work/forks.json" \
	'fn["leaf"]["scopes"] == 20 and fn["spawn"]["scopes"] == 20' \
	'fn["spawn"]["orphans"] == 20 and fn["leaf"]["orphans"] == 0' \
	'j["target"]["follow"] == {"processes": 25, "not_followed": 0}' \
	'sorted(p["scopes"] for p in j["processes"] if p["function"] == "leaf") == [1] * 20' \
	'all(p["ppid"] == j["target"]["pid"] for p in j["processes"] if p["function"] == "leaf")' \
	'[p["pid"] for p in j["processes"] if p["function"] == "spawn"] == [j["target"]["pid"]]'
# Without --follow, the children are not traced.
"$OT" -q --json -o "$work/nofollow.json" -f leaf -- "$F" 20 >/dev/null 2>&1 || fail_ "no --follow: $?"
json_check "$work/nofollow.json" 'fn["leaf"]["scopes"] == 0' '"follow" not in j["target"]'

# sh -c running the values program twice: two processes exec'd from the
# shell's children, each row exact; the output that of an untraced run.
cmd="$V 100; $V 200 | cat"
sh -c "$cmd" >"$work/want"
"$OT" -q --json -o "$work/sh.json" --follow -f "$V:take(arg1)" -- sh -c "$cmd" >"$work/out" 2>"$work/err" ||
	fail_ "sh: exit status $?: $(cat "$work/err")"
cmp -s "$work/out" "$work/want" || fail_ "sh printed '$(cat "$work/out")', untraced '$(cat "$work/want")'"
json_check "$work/sh.json" \
	'j["status"] == "ok" and fn["values:take"]["scopes"] == 300' \
	'sorted(p["scopes"] for p in j["processes"]) == [100, 200]' \
	'all(p["comm"] == "values" for p in j["processes"])' \
	'fn["values:take"]["arg"]["count"] == 300 and fn["values:take"]["arg"]["max"] == 99'

# -p: a shell that starts the program ten times once told to (after
# orbit-trace has armed), followed until it says it is done (eleven
# processes followed: the shell and its ten children, a row each for the
# ten that call take); and a shell
# whose child was already running when orbit-trace came.  Each says when
# it runs: the shell itself, the child for the other.
rm -f "$work/go"
mkfifo "$work/go"
sh -c "echo ready; read x; i=0; while [ \$i -lt 10 ]; do $V 50 >/dev/null; i=\$((i + 1)); done; echo done; read x" \
	<"$work/go" >"$work/loop.out" &
loop=$!
exec 3>"$work/go"
sh -c "$V 3000000000 ready & wait" >"$work/old.out" &
old=$!
cleanup_pids="$loop $old"
wait_for "$work/loop.out" '^ready'
wait_for "$work/old.out" '^ready '
cleanup_pids="$loop $old $(sed -n 's/^ready //p' "$work/old.out")"
"$OT" -v --json -o "$work/p.json" --follow -p "$loop" -f "$V:take" 2>"$work/err" &
ot=$!
cleanup_pids="$cleanup_pids $ot"
wait_for "$work/err" '^orbit-trace: armed'
echo go >&3
wait_for "$work/loop.out" '^done'
kill -INT $ot
wait $ot || fail_ "-p: exit status $?: $(cat "$work/err")"
echo bye >&3
exec 3>&-
json_check "$work/p.json" \
	'j["status"] == "ok" and len(j["processes"]) == 10 and j["target"]["follow"]["processes"] == 11' \
	'all(p["comm"] == "values" and p["ppid"] == j["target"]["pid"] for p in j["processes"])' \
	'all(p["scopes"] == 50 for p in j["processes"])' \
	'j["capture"]["ended_by"] == "signal"'
"$OT" -q --json -o "$work/old.json" --follow -p "$old" -f "$V:take" -d 0.3 2>"$work/err" ||
	fail_ "-p, child already there: exit status $?: $(cat "$work/err")"
json_check "$work/old.json" \
	'len(j["processes"]) == 1 and j["processes"][0]["scopes"] > 0' \
	'j["processes"][0]["ppid"] == j["target"]["pid"]'
kill $cleanup_pids 2>/dev/null || true

# Refusals: one line each, exit status 2.
expect_rc 2 "$work/o" "$work/e" "$OT" --follow -a -f "$V:take"
grep -qx "orbit-trace: --follow follows -p PID or a command: -a traces every process already" "$work/e" ||
	fail_ "-a: $(cat "$work/e")"
expect_rc 2 "$work/o" "$work/e" "$OT" --follow --backend perf -f take -- "$V" 1
grep -qx "orbit-trace: --follow needs the multi backend (its BPF program follows forks in the kernel): not with --backend perf" \
	"$work/e" || fail_ "perf: $(cat "$work/e")"
# In a nested PID namespace the kernel's pids are not ours: refused (1).
if command -v unshare >/dev/null; then
	expect_rc 1 "$work/o" "$work/e" unshare --pid --fork --mount-proc "$OT" --follow -f take -- "$V" 1
	grep -qx "orbit-trace: --follow: orbit-trace runs in a nested PID namespace (a container), whose pids the kernel's hooks do not see" \
		"$work/e" || fail_ "namespace: $(cat "$work/e")"
fi

# gzip -d twice under sh: libc's read in the gzip processes, against
# bpftrace's count of the same uprobe in processes of that name (a copy
# named ot-gzip: no other process on the machine has it).
for c in bpftrace gzip; do
	command -v "$c" >/dev/null || skip_ "$c is not installed (make deps installs it)"
done
libc="$(ldd "$(command -v gzip)" | awk '/libc\.so\.6/ { print $3 }')"
cp "$(command -v gzip)" "$work/ot-gzip"
seq 1 200000 >"$work/a" && gzip -k "$work/a" && cp "$work/a.gz" "$work/b.gz"
cmd="$work/ot-gzip -dc $work/a.gz | cksum; $work/ot-gzip -dc $work/b.gz | cksum"
sh -c "$cmd" >"$work/want"
"$OT" -q --json -o "$work/gzip.json" --follow -f "libc.so.6:read" -- sh -c "$cmd" >"$work/out" 2>"$work/err" ||
	fail_ "gzip: exit status $?: $(cat "$work/err")"
cmp -s "$work/out" "$work/want" || fail_ "gzip under sh printed '$(cat "$work/out")', untraced '$(cat "$work/want")'"
# bpftrace system-wide (with -c it probes only the shell itself).
bpftrace -q -e "BEGIN { printf(\"ready\\n\"); }
uprobe:$libc:read /comm == \"ot-gzip\"/ { @reads = count(); }" >"$work/bt.txt" 2>"$work/bt.err" &
bt=$!
cleanup_pids="$bt"
wait_for "$work/bt.txt" ready 30
sh -c "$cmd" >/dev/null
kill -INT "$bt"
wait "$bt" || fail_ "bpftrace: $(cat "$work/bt.err")"
want=$(awk '/^@reads:/ { print $2 }' "$work/bt.txt")
[ -n "$want" ] || fail_ "bpftrace counted nothing: $(cat "$work/bt.txt")"
json_check "$work/gzip.json" \
	"sum(p['scopes'] for p in j['processes'] if p['comm'] == 'ot-gzip') == $want" \
	"len([p for p in j['processes'] if p['comm'] == 'ot-gzip']) == 2"
pass_
