# --backend inject SIGKILLed before each of its ptrace requests, writes
# of the process's memory and blocking waits in turn (issue 32, item 4):
# run N kills orbit-trace (bpftrace's signal("KILL") on libc's ptrace,
# pwrite64 and waitpid, before the call) at its Nth, N = 1, 2, ... until a
# capture ends unkilled (148 here: attach, arming, a 0.1 s capture,
# disarm).  The target (tests/e2e/targets/killat.c) must run on after
# every kill and end with its own "ok" (a fresh one each run); --restore
# takes back what each kill left.  Run only when named (run.sh's manual list: ~4 min,
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

# A fresh target each run: what a kill leaves for good (BUGS: a region
# mapped before the recovery table names it) would shift the next run's
# calls, and the sweep would chase them.
kn=${FROM:-1}  # not n: wait_for counts with it
while :; do
	rm -f "$work/in"
	mkfifo "$work/in"
	"$target" <"$work/in" >"$work/t.out" 2>&1 &
	spid=$!
	cleanup_pids="$spid"
	exec 3>"$work/in"
	wait_for "$work/t.out" '^ready '
	bpftrace --unsafe -e "
uprobe:$libc:ptrace /pid == cpid/ { @n++; if (@n == $kn) { printf(\"killed before ptrace %d\\n\", arg0); signal(\"KILL\"); } }
uprobe:$libc:pwrite64 /pid == cpid/ { @n++; if (@n == $kn) { printf(\"killed before pwrite %d\\n\", arg2); signal(\"KILL\"); } }
uprobe:$libc:waitpid /pid == cpid && !(arg2 & 1)/ { @n++; if (@n == $kn) { printf(\"killed before waitpid\\n\"); signal(\"KILL\"); } }
END { clear(@n); }" -c "$OT --backend inject -o /dev/null -p $spid -f outer,middle,inner -d 0.1" \
		>"$work/k$kn.out" 2>&1 || true
	kill -0 "$spid" 2>/dev/null && [ "$(awk '{ print $3 }' "/proc/$spid/stat")" != Z ] || {
		st=0; wait "$spid" || st=$?
		fail_ "kill $kn ($(grep '^killed' "$work/k$kn.out")): the target is gone (status $st): $(cat "$work/t.out")"
	}
	killed=$(grep -c '^killed' "$work/k$kn.out" || true)
	expect_rc 0 "$work/r.out" "$work/r.err" "$OT" --restore -p "$spid"
	exec 3>&-
	wait "$spid" || fail_ "kill $kn: the target exited with status $?: $(cat "$work/t.out")"
	grep -q ' calls ok$' "$work/t.out" || fail_ "kill $kn: the target's own output: $(cat "$work/t.out")"
	[ "$killed" = 1 ] || break
	rm -f "$work/k$kn.out"
	kn=$((kn + 1))
done
[ "$kn" -gt 100 ] || fail_ "a capture ended unkilled at kill $kn: $(cat "$work/k$kn.out")"
echo "  ($((kn - 1)) kills)"
pass_
