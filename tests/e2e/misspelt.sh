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

# Messages that say what to do (issue 34): a library's function named
# without its library, a script's function named in its runtime's -f.
expect_rc 2 /dev/null "$work/lib.err" "$OT" -f malloc,outer -- "$STRESS" --stress-calls 1
grep -qxF "orbit-trace: did you mean libc.so.6:malloc? malloc is not defined in $STRESS but in the library $(ldd "$STRESS" | awk '/libc\.so\.6/ { print $3 }') (-f 'libc.so.6:malloc')" \
	"$work/lib.err" || fail_ "no library suggestion: $(cat "$work/lib.err")"
if command -v php8.2 >/dev/null; then
	echo '<?php function fib($n) { return $n < 2 ? $n : fib($n - 1) + fib($n - 2); } echo fib(5), "\n";' \
		>"$work/fib.php"
	expect_rc 2 /dev/null "$work/php.err" "$OT" -f fib -- php8.2 "$work/fib.php"
	grep -qxF "orbit-trace: php8.2 runs php scripts: -f names its own C functions; a script's functions are traced with --lang php (see the man page)" \
		"$work/php.err" || fail_ "no --lang hint: $(cat "$work/php.err")"
fi
pass_
