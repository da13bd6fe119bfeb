# Program shapes --backend inject must not harm (issue 30): each runs
# with the output and exit status it has untraced, and the counts are
# exact or the status is not ok.
. "$(dirname "$0")/lib.sh"
T="$top/build/targets"
[ "$(uname -m)" = x86_64 ] || skip_ "inject is for x86-64"

# A signal handler that leaves by a longjmp, also from inside the runtime:
# the runtime is reset on that thread and recording goes on (every call
# that returned is a scope), the status says why counts may be short.
"$T/handjmp" 2000000 >"$work/hj.plain"
"$OT" --backend inject --json -o "$work/hj.json" -f work -- "$T/handjmp" 2000000 \
	>"$work/hj.out" 2>"$work/hj.err" || fail_ "handjmp: exit status $?: $(cat "$work/hj.err")"
[ "$(cut -d' ' -f1-2 "$work/hj.out")" = "$(cut -d' ' -f1-2 "$work/hj.plain")" ] ||
	fail_ "handjmp's output changed: $(cat "$work/hj.out")"
jumps=$(sed -n 's/^calls 2000000 jumps //p' "$work/hj.out")
json_check "$work/hj.json" 'fn["work"]["scopes"] >= 2000000 - '"$jumps" \
	'fn["work"]["scopes"] <= 2000000' \
	'j["status"] == ("lossy" if j["inject"]["runtime_resets"] else "ok")' \
	'all("longjmp" in r for r in j["reasons"])'

# A recursion 8,000 deep: past 3,072 calls open on a thread inject's table
# of return addresses is full and the calls deeper are unclosed - a
# reason, as the kernel's 64 return probes are (it said ok).
"$T/recurse" 5 8000 >"$work/deep.plain"
"$OT" --backend inject --json -o "$work/deep.json" -f top,rec,leaf -- "$T/recurse" 5 8000 \
	>"$work/deep.out" 2>"$work/deep.err" || fail_ "deep: exit status $?: $(cat "$work/deep.err")"
cmp -s "$work/deep.out" "$work/deep.plain" || fail_ "deep: output changed: $(cat "$work/deep.out")"
json_check "$work/deep.json" 'j["status"] == "lossy"' \
	'(fn["rec"]["scopes"], fn["rec"]["unclosed"]) == (5 * 3071, 5 * (8000 - 3071))' \
	'j["reasons"] == ["%d calls entered with 3072 calls open on their thread (inject\x27s table of return addresses full), or a fourth tail call in one frame: their returns are not seen, unclosed" % fn["rec"]["unclosed"]]'

# vfork and posix_spawn children run in the parent's memory until they
# exec: their calls (child_only, execve) are another process's, not the
# parent's - counted apart, as the uprobe backends filter them out.
"$T/vforks" 100 >"$work/vf.plain"
"$OT" --backend inject --json -o "$work/vf.json" -f parent_only,child_only,libc.so.6:execve -- \
	"$T/vforks" 100 >"$work/vf.out" 2>"$work/vf.err" || fail_ "vforks: exit status $?: $(cat "$work/vf.err")"
cmp -s "$work/vf.out" "$work/vf.plain" || fail_ "vforks' output changed: $(cat "$work/vf.out")"
json_check "$work/vf.json" 'j["status"] == "ok"' 'fn["parent_only"]["scopes"] == 100' \
	'fn["child_only"]["scopes"] + fn["child_only"]["unclosed"] == 0' \
	'fn["libc.so.6:execve"]["scopes"] + fn["libc.so.6:execve"]["unclosed"] == 0' \
	'j["inject"]["unrecorded_calls"]["vfork_children"] == 300'

# A pre-forking server: a worker forked while inject traces its parent is
# taken back at its fork (nothing of orbit-trace's mapped in it, the
# report says so), works on as untraced after the capture, and a capture
# with the default backend counts its calls exactly.
"$T/prefork" 1000 >"$work/pf.out" &
spid=$!
cleanup_pids="$spid"
wait_for "$work/pf.out" '^ready '
"$OT" -v --backend inject --json -o "$work/pf.json" -p "$spid" -f handle,spawn_worker \
	2>"$work/pf.err" &
otpid=$!
cleanup_pids="$spid $otpid"
wait_for "$work/pf.err" 'armed 2 functions'
kill -USR1 "$spid"
wait_for "$work/pf.out" '^worker [0-9]*$'
wpid=$(sed -n 's/^worker \([0-9]*\)$/\1/p' "$work/pf.out")
cleanup_pids="$spid $otpid $wpid"
kill -USR1 "$wpid"
wait_for "$work/pf.out" "^worker $wpid calls 1000"
kill -INT "$otpid"
wait "$otpid" || fail_ "prefork: exit status $?: $(cat "$work/pf.err")"
json_check "$work/pf.json" 'j["status"] == "ok"' 'fn["spawn_worker"]["scopes"] == 1' \
	'fn["handle"]["scopes"] == 0 and j["records"]["foreign"] == 0' \
	'j["inject"]["children"] == {"taken_back": 1, "kept": 0, "kept_why": None}'
! grep -q orbit-trace "/proc/$wpid/maps" || fail_ "worker $wpid keeps orbit-trace's memory: $(grep orbit-trace "/proc/$wpid/maps")"
if [ "$(id -u)" = 0 ] && [ -r /sys/bus/event_source/devices/uprobe/type ]; then
	"$OT" -v --json -o "$work/pfw.json" -p "$wpid" -f handle 2>"$work/pfw.err" &
	otpid=$!
	cleanup_pids="$spid $otpid $wpid"
	wait_for "$work/pfw.err" 'armed 1 functions'
	kill -USR1 "$wpid"
	n=0
	while [ "$(grep -c "^worker $wpid calls 1000" "$work/pf.out")" -lt 2 ]; do
		n=$((n + 1)); [ $n -le 200 ] || fail_ "worker $wpid did not answer under the default backend"
		sleep 0.1
	done
	kill -INT "$otpid"
	wait "$otpid" || fail_ "worker capture: exit status $?: $(cat "$work/pfw.err")"
	json_check "$work/pfw.json" 'j["status"] == "ok" and fn["handle"]["scopes"] == 1000'
fi
kill -TERM "$spid"
wait "$spid" || fail_ "prefork ended with $?: $(cat "$work/pf.out")"
grep -q '^workers 1, 0 ended badly' "$work/pf.out" || fail_ "prefork: $(cat "$work/pf.out")"

# What a killed inject capture left, met by another backend: a uprobe on
# a patched function would resume inside the jmp (handle starts with a
# 3-byte instruction: the worker computed garbage).  Taken back first,
# said; while the inject capture lives, the other one is refused.
if [ "$(id -u)" = 0 ] && [ -r /sys/bus/event_source/devices/uprobe/type ]; then
	"$T/prefork" 1000 >"$work/k.out" &
	spid=$!
	cleanup_pids="$spid"
	wait_for "$work/k.out" '^ready '
	kill -USR1 "$spid"
	wait_for "$work/k.out" '^worker [0-9]*$'
	wpid=$(sed -n 's/^worker \([0-9]*\)$/\1/p' "$work/k.out")
	cleanup_pids="$spid $wpid"
	"$OT" -v --backend inject -p "$wpid" -f handle -o /dev/null 2>"$work/k1.err" &
	otpid=$!
	cleanup_pids="$spid $wpid $otpid"
	wait_for "$work/k1.err" 'armed 1 functions'
	expect_rc 1 "$work/busy.out" "$work/busy.err" "$OT" -p "$wpid" -f handle -d 1
	grep -q "^orbit-trace: cannot trace process $wpid: orbit-trace process $otpid instruments it (--backend inject) and still runs" \
		"$work/busy.err" || fail_ "a live inject capture: $(cat "$work/busy.err")"
	# -a puts uprobes in every process mapping the files: refused where
	# inject patched a function it probes, not for another one.
	expect_rc 1 "$work/busya.out" "$work/busya.err" "$OT" -a -f "$T/prefork:handle" -d 0.1 -o /dev/null
	grep -q "cannot trace process $wpid: orbit-trace process $otpid instruments it" "$work/busya.err" ||
		fail_ "-a beside a live inject capture: $(cat "$work/busya.err")"
	"$OT" -a -f "$T/prefork:step" -d 0.1 -o /dev/null 2>"$work/busyb.err" ||
		fail_ "-a on another function: exit status $?: $(cat "$work/busyb.err")"
	kill -KILL "$otpid"
	wait "$otpid" 2>/dev/null || true
	grep -q orbit-trace "/proc/$wpid/maps" || fail_ "the killed capture left nothing to test with"
	"$OT" -v --json -o "$work/k2.json" -p "$wpid" -f handle 2>"$work/k2.err" &
	otpid=$!
	cleanup_pids="$spid $wpid $otpid"
	wait_for "$work/k2.err" 'armed 1 functions'
	grep -q "warning: process $wpid was left instrumented by orbit-trace process [0-9]* (--backend inject), which is gone: 1 of 1 patched functions" \
		"$work/k2.err" || fail_ "no word of the leftover: $(cat "$work/k2.err")"
	! grep -q orbit-trace "/proc/$wpid/maps" || fail_ "the leftover is still mapped"
	kill -USR1 "$wpid"
	wait_for "$work/k.out" "^worker $wpid calls "
	kill -INT "$otpid"
	wait "$otpid" || fail_ "after a killed capture: exit status $?: $(cat "$work/k2.err")"
	grep -q "^worker $wpid calls 1000$" "$work/k.out" || fail_ "the worker was harmed: $(cat "$work/k.out")"
	json_check "$work/k2.json" 'j["status"] == "ok" and fn["handle"]["scopes"] == 1000'
	kill -TERM "$spid"
	wait "$spid" || fail_ "prefork ended with $?: $(cat "$work/k.out")"
fi

# AddressSanitizer programs (gcc's runtime a library, clang's linked in):
# LeakSanitizer's check at exit stops every thread with ptrace, which
# fails in a process inject holds (exit status 1, output lost).  inject
# lets the process go where the check starts: output and exit status as
# untraced, leaks found or not, the status says calls after it are not
# counted; with the check off nothing is let go.
for cc in gcc clang; do
	for mode in clean leak; do
		set +e
		"$T/asan-$cc" 1000 $mode >"$work/as.plain" 2>"$work/as.plain.err"
		want=$?
		"$OT" --backend inject --json -o "$work/as.json" -f work -- "$T/asan-$cc" 1000 $mode \
			>"$work/as.out" 2>"$work/as.err"
		got=$?
		set -e
		[ $got = 0 ] || fail_ "asan-$cc $mode: orbit-trace exit status $got: $(cat "$work/as.err")"
		cmp -s "$work/as.out" "$work/as.plain" || fail_ "asan-$cc $mode: output changed: $(cat "$work/as.out")"
		[ "$(grep -c 'ERROR: LeakSanitizer: detected memory leaks' "$work/as.err")" = \
		  "$(grep -c 'ERROR: LeakSanitizer: detected memory leaks' "$work/as.plain.err")" ] ||
			fail_ "asan-$cc $mode: the leak report changed: $(cat "$work/as.err")"
		json_check "$work/as.json" 'j["target"]["exit_status"] == '"$want" \
			'fn["work"]["scopes"] == 1000' \
			'j["inject"]["let_go"].startswith("at its LeakSanitizer leak check")' \
			'j["status"] == "lossy" and any("let go" in r for r in j["reasons"])'
	done
	ASAN_OPTIONS=detect_leaks=0 "$OT" --backend inject --json -o "$work/as0.json" -f work -- \
		"$T/asan-$cc" 1000 leak >"$work/as0.out" 2>"$work/as0.err" || fail_ "detect_leaks=0: $?"
	json_check "$work/as0.json" 'j["status"] == "ok" and j["inject"]["let_go"] is None' \
		'j["target"]["exit_status"] == 0 and fn["work"]["scopes"] == 1000'
done

# A set-user-ID program the traced process execs, under an unprivileged
# capture: the kernel would run it without its privileges (it exits 7,
# not 0).  inject lets the process go at libc's execve first: it runs as
# root, exits 0 as untraced, and the status says why the capture ended
# early.  A program without privileges of its own (echo) is exec'd past
# that breakpoint and instrumented as usual; a vfork child execs untraced
# while the breakpoint is out.
if [ "$(id -u)" = 0 ]; then
	suid=$(public "$T/execsuid")
	cp -p "$suid" "$pub/suidcheck"
	chmod 4755 "$pub/suidcheck"
	ot_nobody=$(public "$OT")
	mkdir "$pub/out"
	chmod 0777 "$pub/out"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$suid" "$pub/suidcheck" >"$work/su.plain" ||
		fail_ "the set-user-ID program does not run as root untraced: $(cat "$work/su.plain")"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$ot_nobody" --backend inject --json \
		-o "$pub/out/su.json" -f before -- "$suid" "$pub/suidcheck" >"$work/su.out" 2>"$work/su.err" ||
		fail_ "setuid: exit status $?: $(cat "$work/su.err")"
	cmp -s "$work/su.out" "$work/su.plain" || fail_ "setuid: output changed: $(cat "$work/su.out")"
	json_check "$pub/out/su.json" 'j["status"] == "lossy" and j["target"]["exit_status"] == 0' \
		'fn["before"]["scopes"] == 1' \
		'j["inject"]["let_go"].startswith("before it exec\x27d '"$pub"'/suidcheck, a program with privileges of its own")' \
		'any("let go" in r for r in j["reasons"])'
	setpriv --reuid=65534 --regid=65534 --clear-groups "$ot_nobody" --backend inject --json \
		-o "$pub/out/echo.json" -f before -- "$suid" /bin/echo hi >"$work/echo.out" 2>"$work/echo.err" ||
		fail_ "echo: exit status $?: $(cat "$work/echo.err")"
	[ "$(cat "$work/echo.out")" = hi ] || fail_ "echo: $(cat "$work/echo.out")"
	json_check "$pub/out/echo.json" 'j["status"] == "ok" and j["inject"]["execs"] == 1' \
		'j["inject"]["let_go"] is None and fn["before"]["scopes"] == 1'
	vf=$(public "$T/vforks")
	setpriv --reuid=65534 --regid=65534 --clear-groups "$ot_nobody" --backend inject --json \
		-o "$pub/out/vf.json" -f parent_only,child_only -- "$vf" 50 >"$work/vfn.out" 2>"$work/vfn.err" ||
		fail_ "vforks as nobody: exit status $?: $(cat "$work/vfn.err")"
	grep -q '^parent_only 50 vforks_ok 50 spawns_ok 50$' "$work/vfn.out" ||
		fail_ "vforks as nobody: $(cat "$work/vfn.out")"
	json_check "$pub/out/vf.json" 'j["status"] == "ok" and fn["parent_only"]["scopes"] == 50' \
		'fn["child_only"]["scopes"] == 0 and j["inject"]["unrecorded_calls"]["vfork_children"] == 50'
	# Both breakpoints at once (execve's, LeakSanitizer's): an ASan program.
	as=$(public "$T/asan-gcc")
	setpriv --reuid=65534 --regid=65534 --clear-groups "$ot_nobody" --backend inject --json \
		-o "$pub/out/as.json" -f work -- "$as" 1000 >"$work/asn.out" 2>"$work/asn.err" ||
		fail_ "asan as nobody: exit status $?: $(cat "$work/asn.err")"
	grep -q '^calls 1000 ' "$work/asn.out" || fail_ "asan as nobody: $(cat "$work/asn.out")"
	json_check "$pub/out/as.json" 'j["target"]["exit_status"] == 0 and fn["work"]["scopes"] == 1000' \
		'j["inject"]["let_go"].startswith("at its LeakSanitizer leak check")'
fi

pass_
