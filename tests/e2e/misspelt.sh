# A function that does not exist: exit 2, a suggestion, and nothing armed
# (strace proves perf_event_open was never called).
. "$(dirname "$0")/lib.sh"
command -v strace >/dev/null || skip_ "strace is not installed"

# LeakSanitizer cannot run under ptrace.
expect_rc 2 "$work/out" "$work/err" env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	strace -f -qq -e trace=perf_event_open -o "$work/strace" \
	"$OT" -f outer,midle,inner -- "$STRESS" --stress-calls 1
grep -qx "orbit-trace: no function 'midle' in $STRESS (did you mean: middle?)" "$work/err" ||
	fail_ "unexpected message: $(cat "$work/err")"
! grep -q perf_event_open "$work/strace" || fail_ "a perf event was opened"
! grep -q expected "$work/out" || fail_ "the command ran although nothing was armed"
pass_
