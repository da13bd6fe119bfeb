# --backend inject SIGKILLed at each instant of the two system calls it
# makes while no region of its own is in the process (issue 32, item 4):
# the first region's mmap at arming and the last munmap at the disarm, and
# the munmaps of a recovery (--restore of a killed capture), which has no
# runtime gadget of its own.
# bpftrace kills orbit-trace (signal("KILL"), its own probe on orbit-trace's
# ot_tracee_syscall, then the Nth of its ptrace requests or waits): after
# the registers are set, after each resume, in each wait, after they are
# put back.  The target (tests/e2e/targets/killat.c: 3 busy threads, the
# main one in read() with values it checks after) runs on through every
# kill and ends, once its input does, with its own "ok" and status 0;
# every kill is checked to have been made.  No verdict depends on timing.
. "$(dirname "$0")/lib.sh"
[ "$(uname -m)" = x86_64 ] || skip_ "inject is for x86-64"
[ "$(id -u)" = 0 ] || skip_ "needs root (bpftrace)"
command -v bpftrace >/dev/null || skip_ "bpftrace is not installed (make deps installs it)"
target="$top/build/targets/killat"
[ -x "$target" ] || fail_ "$target is not built (make targets)"

# Its input a FIFO held open here: it runs until that ends.
mkfifo "$work/in"
"$target" <"$work/in" >"$work/t.out" 2>&1 &
spid=$!
cleanup_pids="$spid"
exec 3>"$work/in"
wait_for "$work/t.out" '^ready '

capture="$OT --backend inject -o /dev/null -p $spid -f outer,middle,inner -d 0.2"
# The first system call, or the munmap of the last code region (its
# length, not the rings' or tables').
first=1
last="arg1 == 11 && *(uint64 *)(arg2 + 8) < 0x1000000"

# killat NAME PREDICATE N COMMAND: run COMMAND (orbit-trace) under bpftrace,
# killed at its Nth ptrace request or wait from the ot_tracee_syscall
# that PREDICATE selects on; then the target must still run.
killat() {
	bpftrace --unsafe -e "
uprobe:$OT:ot_tracee_syscall /pid == cpid && @on == 0 && ($2)/ { @on = 1; }
tracepoint:syscalls:sys_enter_ptrace /pid == cpid && @on == 1 &&
    (args->request == 0x4205 || args->request == 24 || args->request == 9)/ {
	@n++; if (@n == $3) { printf(\"killed at ptrace %d\\n\", args->request); signal(\"KILL\"); @on = 2; } }
tracepoint:syscalls:sys_enter_wait4 /pid == cpid && @on == 1/ {
	@n++; if (@n == $3) { printf(\"killed in wait4\\n\"); signal(\"KILL\"); @on = 2; } }
END { clear(@on); clear(@n); }" -c "$4" >"$work/k$1.$3.out" 2>&1 || true
	grep -q '^killed' "$work/k$1.$3.out" ||
		fail_ "$1, kill $3: orbit-trace was not killed there: $(cat "$work/k$1.$3.out")"
	kill -0 "$spid" 2>/dev/null && [ "$(awk '{ print $3 }' "/proc/$spid/stat")" != Z ] || {
		st=0; wait "$spid" || st=$?
		fail_ "$1, kill $3 ($(grep '^killed' "$work/k$1.$3.out")): the target is gone (status $st): $(cat "$work/t.out")"
	}
}

# A capture killed as its disarm begins: everything of it left in place.
leave_armed() {
	bpftrace --unsafe -e "uprobe:$OT:ot_inject_remove /pid == cpid/ {
	printf(\"killed\\n\"); signal(\"KILL\"); }" -c "$capture" >"$work/armed.out" 2>&1 || true
	grep -q '^killed' "$work/armed.out" || fail_ "the capture was not killed: $(cat "$work/armed.out")"
	grep -q 'memfd:orbit-trace' "/proc/$spid/maps" || fail_ "nothing left armed"
}

# Registers set, resumed to the call's entry, waited, resumed to its
# exit, waited, registers put back: every instant of the call.  In a
# capture, then in the recovery a --restore makes of a killed capture.
for n in 1 2 3 4 5 6; do
	killat arming "$first" "$n" "$capture"
	expect_rc 0 "$work/r.out" "$work/r.err" "$OT" --restore -p "$spid"
	killat disarm "$last" "$n" "$capture"
	leave_armed
	killat restore-first "$first" "$n" "$OT --restore -p $spid"
	leave_armed
	killat restore-last "$last" "$n" "$OT --restore -p $spid"
	expect_rc 0 "$work/r.out" "$work/r.err" "$OT" --restore -p "$spid"
done
! grep -q orbit-trace "/proc/$spid/maps" || fail_ "--restore left memory of orbit-trace's mapped"
exec 3>&-
wait "$spid" || fail_ "the target exited with status $?: $(cat "$work/t.out")"
grep -q ' calls ok$' "$work/t.out" || fail_ "the target's own output: $(cat "$work/t.out")"
pass_
