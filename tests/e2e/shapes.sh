# Programs of every shape, on the uprobe backends (multi and perf): fibers
# switched by hand-written assembly, coroutines made of sigaltstack and
# setjmp/longjmp, swapcontext only inside a linked library, fibers resumed
# on another thread, recursion deeper than the kernel's 64 return probes,
# a signal handler that longjmps out of traced calls, a recursion 8,000
# deep reported as JSON, C++ exceptions across threads, Rust panics, and
# PHP's fibers.  Each runs as it does untraced (the same output and exit
# status), and its counts are exact or the status is not ok.  Return
# probes are used only where return instructions cannot see every exit,
# never in a process that switches stacks: forcing them there is refused
# before the program runs.
. "$(dirname "$0")/lib.sh"
require_uprobes
T="$top/build/targets"

# shape NAME "ORBIT-TRACE ARGS" CMD...: CMD untraced, then traced with
# --json into $work/NAME.json: orbit-trace exits 0, the program's output
# and exit status are what they were untraced.
shape() {
	n=$1 ota=$2
	shift 2
	set +e
	"$@" >"$work/$n.plain" 2>"$work/$n.plain-err"
	want=$?
	"$OT" $ota --json -o "$work/$n.json" -- "$@" >"$work/$n.out" 2>"$work/$n.err"
	got=$?
	set -e
	[ "$got" = 0 ] || fail_ "$n: orbit-trace exit status $got: $(cat "$work/$n.err")"
	cmp -s "$work/$n.plain" "$work/$n.out" || fail_ "$n: output changed: $(cat "$work/$n.out")"
	json_check "$work/$n.json" "j['target'].get('exit_status') == $want"
}

# exact FILE STEP WORK N: fibers that yield inside STEP, each call of it
# calling WORK twice, N steps in all: every call paired, at its depth, and
# seen at its return instructions.
exact() {
	json_check "$1" 'j["status"] == "ok"' \
		"[(f['name'], f['returns'], f['scopes'], f['unclosed'], f['orphans'], f['duplicates'], f['depths']) for f in j['functions']] == [('$2', 'insn', $4, 0, 0, 0, {'0': $4}), ('$3', 'insn', 2 * $4, 0, 0, 0, {'1': 2 * $4})]"
}

# refused NAME MESSAGE CMD...: --returns uretprobe on CMD exits 2 with
# MESSAGE, and CMD never ran.
refused() {
	n=$1 msg=$2
	shift 2
	expect_rc 2 "$work/$n.out" "$work/$n.err" "$OT" --returns uretprobe -o "$work/$n.txt" "$@"
	[ "$(cat "$work/$n.err")" = "orbit-trace: $msg" ] || fail_ "$n: $(cat "$work/$n.err")"
	[ ! -s "$work/$n.out" ] || fail_ "$n: the program ran: $(cat "$work/$n.out")"
}
kills="a return probe kills a call that returns on another stack than the last one entered (SIGILL); the default, or --returns insn, sees its returns at return instructions"

# The reason for N calls whose return probe multi declined.
declined() {
	echo "$1 calls on another stack than their thread's own (a fiber or coroutine): their returns not probed, as a return probe there would kill the program (SIGILL); --returns insn sees returns at return instructions"
}
declined500=$(declined 500) declined2000=$(declined 2000) declined6000=$(declined 6000)
# 1 if this kernel has uprobe sessions (Linux 6.13): multi's return
# probes are guarded.
guarded() {
	uname -r | awk -F. '{ print ($1 > 6 || ($1 == 6 && $2 >= 13)) ? 1 : 0 }'
}

for b in multi perf; do
	# Assembly fibers: nothing in the imports says so; every function has
	# its exits at return instructions, so no return probe is armed.
	if [ "$(uname -m)" = x86_64 ]; then
		shape "asm-$b" "--backend $b -f astep,awork" "$T/asmswitch" 1000
		exact "$work/asm-$b.json" astep awork 2000
	fi
	# A switch no file names, found at run time: with return probes
	# forced, calls open across it make the capture lossy, with the
	# reason (it said ok); by default, return instructions: exact, ok.
	if [ "$(uname -m)" = x86_64 ]; then
		# multi (guarded return probes, uprobe sessions): inner(), on the
		# fiber's stack, gets none - each of its 500 calls counted;
		# perf: the kernel's chain happens to follow this switch.
		shape "hid-$b" "--backend $b --returns uretprobe -f outer,inner" "$T/hidswitch" 500
		switched='" switched stacks with calls under return probes open (1000 times; a fiber or coroutine no file names): the kernel keeps one chain of return probes per thread, not per stack" in j["reasons"][-1]'
		if [ $b = multi ] && [ "$(guarded)" = 1 ]; then
			json_check "$work/hid-$b.json" 'j["status"] == "lossy"' \
				'[(f["returns"], f["scopes"]) for f in j["functions"]] == [("uretprobe", 500), ("uretprobe", 0)]' \
				"\"$declined500\" in j['reasons']" "$switched"
		else
			json_check "$work/hid-$b.json" 'j["status"] == "lossy"' \
				'[(f["returns"], f["scopes"]) for f in j["functions"]] == [("uretprobe", 500)] * 2' \
				'len(j["reasons"]) == 1' "$switched"
		fi
		# Fibers yielding inside ahop(), whose exit is a jump through a
		# pointer: by default a uprobe backend would give it a return
		# probe, and the kernel killed the program (SIGILL).  multi
		# declines the fibers' calls (counted); perf gives none.
		shape "hop-$b" "--backend $b -f ahop,awork" "$T/asmswitch" 1000 hop
		json_check "$work/hop-$b.json" 'j["status"] == "lossy"' \
			'[(f["name"], f["scopes"]) for f in j["functions"]][1] == ("awork", 4000)'
		if [ $b = multi ] && [ "$(guarded)" = 1 ]; then
			json_check "$work/hop-$b.json" \
				'[f["returns"] for f in j["functions"]] == ["uretprobe", "insn"]' \
				"\"$declined2000\" in j['reasons']"
			# Forced on every function: every call is on a fiber.
			shape "asmu-$b" "--backend $b --returns uretprobe -f astep,awork" \
				"$T/asmswitch" 1000
			json_check "$work/asmu-$b.json" 'j["status"] == "lossy"' \
				"\"$declined6000\" in j['reasons']"
		else
			json_check "$work/hop-$b.json" \
				'[f["returns"] for f in j["functions"]] == ["insn", "insn"]'
		fi
		shape "hidi-$b" "--backend $b -f outer,inner" "$T/hidswitch" 500
		json_check "$work/hidi-$b.json" 'j["status"] == "ok"' \
			'[(f["returns"], f["scopes"], f["unclosed"], f["orphans"]) for f in j["functions"]] == [("insn", 500, 0, 0)] * 2'
	fi
	# sigaltstack coroutines, and swapcontext in a library only.
	shape "alt-$b" "--backend $b -v -f cstep,cwork" "$T/altstack" 1000
	exact "$work/alt-$b.json" cstep cwork 2000
	grep -qF "$T/altstack switches stacks (sigaltstack, setjmp and longjmp, in $T/altstack): no function gets a return probe" \
		"$work/alt-$b.err" || fail_ "alt-$b: -v: $(cat "$work/alt-$b.err")"
	shape "coro-$b" "--backend $b -v -f lstep,lwork" "$T/usecoro" 1000
	exact "$work/coro-$b.json" lstep lwork 2000
	grep -qF "$T/usecoro switches stacks (swapcontext, in $T/libcoro.so): no function gets a return probe" \
		"$work/coro-$b.err" || fail_ "coro-$b: -v: $(cat "$work/coro-$b.err")"
	# A fiber resumed on the other thread with hop() open.
	shape "mig-$b" "--backend $b -f hop,leaf" "$T/migrate" 1000
	exact "$work/mig-$b.json" hop leaf 1000

	# 100 deep: exact at return instructions; forced return probes lose
	# the calls past the kernel's 64, and the status says how many.
	shape "rec-$b" "--backend $b -f top,rec,leaf" "$T/recurse" 200 100
	json_check "$work/rec-$b.json" 'j["status"] == "ok"' \
		'[(f["returns"], f["scopes"], f["unclosed"]) for f in j["functions"]] == [("insn", 200, 0), ("insn", 20000, 0), ("insn", 200, 0)]'
	shape "recu-$b" "--backend $b --returns uretprobe -f top,rec,leaf" "$T/recurse" 200 100
	json_check "$work/recu-$b.json" 'j["status"] == "lossy"' \
		'fn["rec"]["returns"] == "uretprobe" and fn["rec"]["scopes"] + fn["rec"]["unclosed"] == 20000' \
		'j["reasons"] == ["rec: depth > 64 at %d calls: the kernel gives a thread no more return probes, so they are not seen returning" % fn["rec"]["unclosed"]]'

	# A timer's handler longjmps out of spin() or tick(): the program says
	# how many spin() calls returned and how many it left; the counts
	# agree, or the status says they may not.
	shape "jmp-$b" "--backend $b -f spin,tick" "$T/asyncjmp" 20000
	grep -q '^returned [0-9]* left [0-9]*$' "$work/jmp-$b.err" || fail_ "jmp-$b: $(cat "$work/jmp-$b.err")"
	set -- $(sed -n 's/^returned \([0-9]*\) left \([0-9]*\)$/\1 \2/p' "$work/jmp-$b.err")
	json_check "$work/jmp-$b.json" \
		"j['status'] != 'ok' or (fn['spin']['scopes'], fn['spin']['unclosed'], fn['spin']['duplicates']) == ($1, $2, 0)" \
		"$2 == 0 or j['status'] != 'ok' or fn['spin']['unclosed'] == $2"

	# A recursion 8,000 deep: the JSON's call tree folds it as the text
	# does (four levels and one entry for the rest), --folded too; the
	# report stays small (it grew with the square of the depth: 257 MB).
	"$OT" --backend "$b" --json -o "$work/deep-$b.json" --folded "$work/deep-$b.folded" \
		-f top,rec,leaf -- "$T/recurse" 5 8000 >/dev/null 2>"$work/deep-$b.err" ||
		fail_ "deep-$b: exit status $?: $(cat "$work/deep-$b.err")"
	size=$(wc -c <"$work/deep-$b.json")
	[ "$size" -lt 200000 ] || fail_ "deep-$b: the JSON report is $size bytes"
	json_check "$work/deep-$b.json" 'j["status"] == "ok" and fn["rec"]["scopes"] == 40000' \
		'[(n["path"], n.get("depths")) for n in j["call_tree"]] == [(["top"], None)] + [(["top"] + ["rec"] * k, None) for k in range(1, 5)] + [(["top"] + ["rec"] * 5, [5, 8000]), (["top", "leaf"], None)]'
	[ "$(wc -l <"$work/deep-$b.folded")" -le 7 ] || fail_ "deep-$b: --folded: $(head "$work/deep-$b.folded")"

	# C++ exceptions thrown through traced frames on two threads, and Rust
	# panics: at return instructions the stack is left alone; the calls an
	# exception left are unclosed, the others exact.
	shape "cxx-$b" "--backend $b -f check,parse" "$T/cxxthreads" 3000
	json_check "$work/cxx-$b.json" 'j["status"] == "ok"' \
		'all(f["returns"] == "insn" and f["orphans"] == 0 for f in j["functions"])' \
		'fn["check(long)"]["unclosed"] == fn["parse(long)"]["unclosed"] == sum(int(x) for x in open("'"$work/cxx-$b.out"'").read().split()[3].split(","))' \
		'fn["check(long)"]["scopes"] == fn["parse(long)"]["scopes"] == 6000 - fn["check(long)"]["unclosed"]'
	shape "rust-$b" "--backend $b -f rpanic::shapes::check,rpanic::shapes::parse" "$T/rpanic" 7000
	json_check "$work/rust-$b.json" 'j["status"] == "ok"' \
		'[(f["returns"], f["scopes"], f["unclosed"], f["orphans"]) for f in j["functions"]] == [("insn", 6000, 1000, 0)] * 2'
done

# Return probes forced where they would kill: refused, named, before the
# program runs; for a -p process its maps are read.
refused alt "$T/altstack:cstep: --returns uretprobe refused: the process switches stacks (sigaltstack, setjmp and longjmp, in $T/altstack): $kills" \
	-f cstep -- "$T/altstack" 10
refused coro "$T/usecoro:lstep: --returns uretprobe refused: the process switches stacks (swapcontext, in $T/libcoro.so): $kills" \
	-f lstep -- "$T/usecoro" 10
refused cxx "$T/cxxthreads:check(long): --returns uretprobe refused: $T/cxxthreads has exception tables (C++ or Rust): an exception or panic unwinding through a function with a return probe aborts the program; the default, or --returns insn, sees its returns at return instructions" \
	-f check -- "$T/cxxthreads" 10
"$T/usecoro" 100000000 ready >"$work/p.out" &
cpid=$!
cleanup_pids=$cpid
wait_for "$work/p.out" '^ready '
expect_rc 2 /dev/null "$work/p.err" "$OT" --returns uretprobe -o /dev/null -p "$cpid" -f lstep -d 1
[ "$(cat "$work/p.err")" = "orbit-trace: $T/usecoro:lstep: --returns uretprobe refused: the process switches stacks (swapcontext, in $T/libcoro.so): $kills" ] ||
	fail_ "-p refusal: $(cat "$work/p.err")"
"$OT" --json -o "$work/p.json" -p "$cpid" -f lstep,lwork -d 1 >/dev/null 2>"$work/p2.err" ||
	fail_ "-p: exit status $?: $(cat "$work/p2.err")"
json_check "$work/p.json" 'fn["lstep"]["scopes"] > 0 and fn["lwork"]["depths"].get("1", 0) > 0' \
	'all(f["returns"] == "insn" for f in j["functions"])'
kill "$cpid"

# PHP's fibers (a program nobody here wrote): the same output, and its
# stack switch found in php itself.
PHP=/usr/bin/php8.2
if [ -x "$PHP" ]; then
	for b in multi perf; do
		shape "php-$b" "--backend $b -f zend_fiber_switch_context" "$PHP" "$top/tests/e2e/targets/fibers.php" 200
		json_check "$work/php-$b.json" 'fn["zend_fiber_switch_context"]["returns"] == "insn"' \
			'j["status"] != "ok" or fn["zend_fiber_switch_context"]["scopes"] == 800'
	done
	refused php "$PHP:zend_fiber_switch_context: --returns uretprobe refused: the process switches stacks (jump_fcontext, in $PHP): $kills" \
		-f zend_fiber_switch_context -- "$PHP" "$top/tests/e2e/targets/fibers.php" 10
fi
pass_
