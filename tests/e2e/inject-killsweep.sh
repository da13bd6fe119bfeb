# --backend inject SIGKILLed before each of its ptrace requests, writes
# of the process's memory and blocking waits in turn (issue 32, item 4):
# run N kills orbit-trace (bpftrace's signal("KILL") on libc's ptrace,
# pwrite64 and waitpid, before the call) at its Nth, N = 1, 2, ... until a
# capture ends unkilled (about 500 here: attach, arming, a 0.1 s capture,
# disarm).  The target (tests/e2e/targets/killat.c) must run on after
# every kill and end with its own "ok"; --restore between runs takes back
# what each left.  Run only when named (run.sh's manual list: ~10 min,
# and its probes sit on libc for every process while it runs); FROM=N
# starts at N.
. "$(dirname "$0")/lib.sh"
[ "$(uname -m)" = x86_64 ] || skip_ "inject is for x86-64"
[ "$(id -u)" = 0 ] || skip_ "needs root (bpftrace)"
command -v bpftrace >/dev/null || skip_ "bpftrace is not installed (make deps installs it)"
target="$top/build/targets/killat"
[ -x "$target" ] || fail_ "$target is not built (make targets)"
libc=$(awk '$6 ~ /\/libc\.so\.6$/ { print $6; exit }' /proc/self/maps)
[ -n "$libc" ] || skip_ "no glibc libc.so.6 here"

mkfifo "$work/in"
"$target" <"$work/in" >"$work/t.out" 2>&1 &
spid=$!
cleanup_pids="$spid"
exec 3>"$work/in"
wait_for "$work/t.out" '^ready '
n=${FROM:-1}
while :; do
	bpftrace --unsafe -e "
uprobe:$libc:ptrace /pid == cpid/ { @n++; if (@n == $n) { printf(\"killed before ptrace %d\\n\", arg0); signal(\"KILL\"); } }
uprobe:$libc:pwrite64 /pid == cpid/ { @n++; if (@n == $n) { printf(\"killed before pwrite %d\\n\", arg2); signal(\"KILL\"); } }
uprobe:$libc:waitpid /pid == cpid && !(arg2 & 1)/ { @n++; if (@n == $n) { printf(\"killed before waitpid\\n\"); signal(\"KILL\"); } }
END { clear(@n); }" -c "$OT --backend inject -o /dev/null -p $spid -f outer,middle,inner -d 0.1" \
		>"$work/k$n.out" 2>&1 || true
	kill -0 "$spid" 2>/dev/null && [ "$(awk '{ print $3 }' "/proc/$spid/stat")" != Z ] || {
		st=0; wait "$spid" || st=$?
		fail_ "kill $n ($(grep '^killed' "$work/k$n.out")): the target is gone (status $st): $(cat "$work/t.out")"
	}
	grep -q '^killed' "$work/k$n.out" || break
	expect_rc 0 "$work/r.out" "$work/r.err" "$OT" --restore -p "$spid"
	rm -f "$work/k$n.out"
	n=$((n + 1))
done
[ "$n" -gt 100 ] || fail_ "a capture ended unkilled at kill $n: $(cat "$work/k$n.out")"
echo "  ($((n - 1)) kills)"
exec 3>&-
wait "$spid" || fail_ "the target exited with status $?: $(cat "$work/t.out")"
grep -q ' calls ok$' "$work/t.out" || fail_ "the target's own output: $(cat "$work/t.out")"
pass_
