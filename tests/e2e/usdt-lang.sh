# Pairs of USDT probes as scopes (-f 'usdt:FILE:PROVIDER:ENTRY..RETURN@argN',
# --lang) and string arguments (:str), against real processes:
# - php8.2 under --lang php (USE_ZEND_DTRACE=1) running
#   targets/calls.php, which counts its own calls per function and depth
#   (recursion, nested calls, a recursive method): every row's scopes and
#   depths equal the script's (bpftrace 0.17 counts the same per name: NEWS);
# - python3.11 under --lang python, whose function__entry is broken
#   upstream (CPython gh-98894): the returns of a function called N times
#   come out as N orphans, no scope is made of them, the status is not ok;
# - targets/usdt_pairs, whose names live in a page the process never
#   touches (bpftrace 0.17 shows "" for each): every name read afterwards,
#   none unreadable, on -- CMD and -p; returns that skip open scopes
#   (counted skipped) and returns with no entry (orphans); integer keys;
#   the perf backend's pairs;
# - the refusals in one line.
. "$(dirname "$0")/lib.sh"
require_uprobes
T="$top/build/targets"
[ -x "$T/usdt_pairs" ] || skip_ "make targets first"
PHP=/usr/bin/php8.2
PY=/usr/bin/python3.11

# check_pairs JSON: usdt_pairs' rows, named NAMES (a python dict literal of
# its keys' names), as the program made them.
check_pairs() {
	json_check "$1" \
		"[(f['name'], f['scopes'], f['skipped'], f['orphans'], f['depths']) for f in j['functions'] if 'pair' in f] == [
			('rt:$2', 1, 0, 0, {'0': 1}),
			('rt:$3', 67, 0, 0, {'1': 1, '2': 2, '3': 4, '4': 8, '5': 16, '6': 22, '7': 12, '8': 2}),
			('rt:$4', 3, 0, 0, {'1': 3}),
			('rt:$5', 0, 3, 0, {}),
			('rt:$6', 0, 0, 2, {})]" \
		"[(f['name'], f['hits']) for f in j['functions'] if f.get('point')] == [('usdt:rt:enter', 74), ('usdt:rt:leave', 73)]" \
		'j["status"] == "lossy"' \
		'any("2 returns of a pair of probes came with no entry open" in r for r in j["reasons"])'
}

# The names: on multi every one read afterwards (the BPF program cannot
# read a page the process has not touched), on inject every one by the
# probe (process_vm_readv faults the page in); the program's own output
# says what it did.  Under inject three of its sites are next to each
# other: one patch, three probes.
for b in multi inject; do
	"$OT" -q --backend $b --json -o "$work/pairs-$b.json" \
		-f "usdt:$T/usdt_pairs:rt:enter..leave@arg1:str" \
		-- "$T/usdt_pairs" >"$work/pairs.out" 2>"$work/err" || fail_ "pairs $b: exit status $?: $(cat "$work/err")"
	[ "$(cat "$work/pairs.out")" = "fib 21 scopes fib 67 run 1 try 3 skipped inner 3 orphans ghost 2" ] ||
		fail_ "pairs: the target printed $(cat "$work/pairs.out")"
	check_pairs "$work/pairs-$b.json" run fib try inner ghost
	json_check "$work/pairs-$b.json" "fn['rt:fib']['pair'] == 'usdt:$T/usdt_pairs:rt:enter..leave'"
	strs='{"probe": 0, "late": 147, "unreadable": 0}'
	[ $b = inject ] && strs='{"probe": 147, "late": 0, "unreadable": 0}'
	json_check "$work/pairs-$b.json" "j['strings'] == $strs" \
		"fn['usdt:rt:enter']['strings'] == {'what': 'arg1:str', 'distinct': 4, 'top': [{'value': 'fib', 'count': 67}, {'value': 'try', 'count': 3}, {'value': 'inner', 'count': 3}, {'value': 'run', 'count': 1}]}"
done

# Integer keys (arg2: run 1, fib 2, try 3, inner 4, ghost 5), on both
# uprobe backends (perf reads the register operands it can: arg2 is a
# constant there, so perf pairs on the name's register below).
for b in multi inject; do
	"$OT" -q --backend $b --json -o "$work/ints.json" -f "usdt:$T/usdt_pairs:rt:enter..leave@arg2" \
		-- "$T/usdt_pairs" >/dev/null 2>"$work/err" || fail_ "ints $b: exit status $?: $(cat "$work/err")"
	check_pairs "$work/ints.json" 1 2 3 4 5
done

# -p, on multi, perf and inject: armed while the program waits, its maps
# kept, so the names are read from its file even once it has exited.
for b in multi perf inject; do
	rm -f "$work/in"
	mkfifo "$work/in"
	"$T/usdt_pairs" wait <"$work/in" >"$work/p$b.out" &
	tpid=$!
	cleanup_pids="$tpid"
	exec 3>"$work/in"
	wait_for "$work/p$b.out" '^ready '
	"$OT" -v --backend $b --json -o "$work/p$b.json" -p "$tpid" \
		-f "usdt:$T/usdt_pairs:rt:enter..leave@arg1:str" 2>"$work/p$b.err" &
	otpid=$!
	cleanup_pids="$tpid $otpid"
	wait_for "$work/p$b.err" 'armed 2 functions'
	echo go >&3
	exec 3>&-
	wait "$tpid" || fail_ "-p $b: the target's exit status $?"
	wait "$otpid" || fail_ "-p $b: exit status $?: $(cat "$work/p$b.err")"
	check_pairs "$work/p$b.json" run fib try inner ghost
	json_check "$work/p$b.json" 'j["strings"]["unreadable"] == 0'
done
cleanup_pids=""

# PHP: every function's scopes by depth, as the script counted them; the
# top-level script is php:main at depth 0.
if [ -x "$PHP" ]; then
	for b in multi inject; do
		USE_ZEND_DTRACE=1 "$OT" -q --backend $b --lang php --json -o "$work/php.json" \
			-- "$PHP" "$top/tests/e2e/targets/calls.php" 7 >"$work/php.out" 2>"$work/err" ||
			fail_ "php $b: exit status $?: $(cat "$work/err")"
		python3 - "$work/php.json" "$work/php.out" <<'PY' || fail_ "php $b: $(cat "$work/php.out")"
import json, sys
rep = json.load(open(sys.argv[1]))
want = json.loads(open(sys.argv[2]).read())
want = {"php:" + k: {d: n for d, n in v.items()} for k, v in want.items()}
want["php:main"] = {"0": 1}
got = {f["name"]: f["depths"] for f in rep["functions"] if "pair" in f}
assert got == want, (got, want)
assert all(f["orphans"] == f["unclosed"] == f["skipped"] == 0 for f in rep["functions"] if "pair" in f)
assert sum(sum(v.values()) for v in want.values()) == 1 + 465 + 1 + 7 + 14 + 93
assert rep["status"] == "ok", rep["reasons"]
assert rep["strings"]["unreadable"] == 0, rep["strings"]
PY
	done
	# Nested with a traced C function of php8.2 (the script's whole run):
	# every PHP row one level deeper, under it in the call tree.
	USE_ZEND_DTRACE=1 "$OT" -q --lang php -f php_execute_script --json -o "$work/php-c.json" \
		-- "$PHP" "$top/tests/e2e/targets/calls.php" 7 >/dev/null 2>"$work/err" ||
		fail_ "php with php_execute_script: exit status $?: $(cat "$work/err")"
	json_check "$work/php-c.json" 'j["status"] == "ok"' \
		"fn['php_execute_script']['depths'] == {'0': 1}" \
		"fn['php:main']['depths'] == {'1': 1}" \
		"fn['php:leaf']['depths'] == {'4': 14}" \
		"min(map(int, fn['php:fib']['depths'])) == 2 and max(map(int, fn['php:fib']['depths'])) == 13" \
		"any(n['path'] == ['php_execute_script', 'php:main', 'php:outer', 'php:middle', 'php:leaf'] and n['calls'] == 14 for n in j['call_tree'])"
	# The rows are functions everywhere: Perfetto's slices, folded stacks,
	# -I's windows (rows kept for keys not seen yet are not shown).
	USE_ZEND_DTRACE=1 "$OT" -q --lang php --trace "$work/php-trace.json" --folded "$work/php.folded" \
		-I 0.01 -o "$work/php-ivl.txt" -- "$PHP" "$top/tests/e2e/targets/calls.php" 7 \
		>/dev/null 2>"$work/err" || fail_ "php --trace --folded -I: exit status $?: $(cat "$work/err")"
	python3 - "$work/php-trace.json" <<'PY' || fail_ "php --trace"
import collections, json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"] if isinstance(d, dict) else d
got = collections.Counter(e["name"] for e in ev if e.get("ph") == "X")
assert got == {"php:main": 1, "php:fib": 465, "php:outer": 1, "php:middle": 7, "php:leaf": 14,
               "php:walk": 93}, got
PY
	grep -q '^php:main;php:outer;php:middle;php:leaf [0-9]*$' "$work/php.folded" || fail_ "php --folded"
	# fib's recursion 12 deep: four levels, then one line for the rest.
	grep -q '^php:main;php:fib;php:fib;php:fib;php:fib;php:fib [0-9]*$' \
		"$work/php.folded" || fail_ "php --folded: fib's levels 5..12"
	! grep -q 'php:fib;php:fib;php:fib;php:fib;php:fib;php:fib' "$work/php.folded" ||
		fail_ "php --folded: fib not folded: $(cat "$work/php.folded")"
	[ "$(awk '/^interval / { on = 1 } /^$/ { on = 0 } on && $1 == "php:fib" { n += $2 } END { print n }' "$work/php-ivl.txt")" = 465 ] ||
		fail_ "php -I: $(cat "$work/php-ivl.txt")"
	# Without USE_ZEND_DTRACE php fires none: refused, saying why, before
	# anything is armed (it was 0 rows and ok); on a -p process that did
	# not start with it, or that is not php at all, too.
	expect_rc 2 "$work/out" "$work/err" env -u USE_ZEND_DTRACE "$OT" --lang php -- \
		"$PHP" "$top/tests/e2e/targets/calls.php"
	[ "$(cat "$work/err")" = "orbit-trace: --lang php: php8.2 fires its function probes only with USE_ZEND_DTRACE=1 in its environment, and the command's has none (run: USE_ZEND_DTRACE=1 sudo -E orbit-trace --lang php ...)" ] ||
		fail_ "php without USE_ZEND_DTRACE: $(cat "$work/err")"
	[ ! -s "$work/out" ] || fail_ "php without USE_ZEND_DTRACE: the command ran: $(cat "$work/out")"
	for env in "" USE_ZEND_DTRACE=0; do
		rm -f "$work/in" "$work/php-p.out"
		mkfifo "$work/in"
		env -u USE_ZEND_DTRACE $env "$PHP" -r 'echo "ready ", getmypid(), "\n"; fgets(STDIN);' \
			<"$work/in" >"$work/php-p.out" &
		tpid=$!
		cleanup_pids=$tpid
		exec 3>"$work/in"
		wait_for "$work/php-p.out" '^ready '
		expect_rc 2 "$work/out" "$work/err" "$OT" --lang php -p "$tpid"
		have=${env:+" (it has 0)"}
		[ "$(cat "$work/err")" = "orbit-trace: --lang php: process $tpid started without USE_ZEND_DTRACE=1 in its environment$have: php8.2 fires its function probes only with it (it reads it when it starts)" ] ||
			fail_ "php -p without USE_ZEND_DTRACE: $(cat "$work/err")"
		echo >&3
		exec 3>&-
		wait "$tpid" || fail_ "php -p: its exit status $?"
	done
	rm -f "$work/in"
	mkfifo "$work/in"
	"$T/usdt_pairs" wait <"$work/in" >"$work/notphp.out" &
	tpid=$!
	cleanup_pids=$tpid
	exec 3>"$work/in"
	wait_for "$work/notphp.out" '^ready '
	expect_rc 2 "$work/out" "$work/err" "$OT" --lang php -p "$tpid"
	[ "$(cat "$work/err")" = "orbit-trace: --lang php: process $tpid does not run php8.2 (/usr/bin/php8.2 is not among its mappings; its program is $T/usdt_pairs): its probes cannot fire there" ] ||
		fail_ "--lang php on a process that is not php: $(cat "$work/err")"
	echo go >&3
	exec 3>&-
	wait "$tpid" >/dev/null || fail_ "usdt_pairs: exit status $?"
	cleanup_pids=""

	# A probe asked for a value and as a pair's key records one of them:
	# refused (the value was dropped silently).  A 4-byte integer is no
	# string's address (every hit was "unreadable"): refused as a DWARF
	# parameter that is no pointer is, on every backend, with exit status 2.
	F=usdt:/usr/bin/php8.2:php
	expect_rc 2 "$work/out" "$work/err" "$OT" -f "$F:function__entry(arg3),$F:function__entry..function__return@arg1:str" \
		-- "$PHP" "$top/tests/e2e/targets/calls.php"
	[ "$(cat "$work/err")" = "orbit-trace: $F:function__entry..function__return@arg1:str: php:function__entry is asked for arg3 and for arg1:str (one as a pair's key): a probe records one argument, its value or its pair's key" ] ||
		fail_ "a value beside a pair's key: $(cat "$work/err")"
	for b in multi perf inject; do
		USE_ZEND_DTRACE=1 expect_rc 2 "$work/out" "$work/err" "$OT" --backend $b -f "$F:function__entry(arg3:str)" \
			-- "$PHP" "$top/tests/e2e/targets/calls.php"
		[ "$(cat "$work/err")" = "orbit-trace: $F:function__entry: cannot read arg3 as a string (:str): at its site +0x2f191f it is -4@%r13d, a 4-byte integer, not an address" ] ||
			fail_ "arg3:str $b: $(cat "$work/err")"
	done

	# Under inject, execute__entry's two sites: one is patched, the other
	# cannot be (a loop jumps inside it).  The probe is armed at the one,
	# its hits there counted, as bpftrace counts that site (by its
	# address), and the status says the other's are not.
	USE_ZEND_DTRACE=1 "$OT" --backend inject --json -o "$work/exec.json" -f "$F:execute__entry" \
		-- "$PHP" "$top/tests/e2e/targets/calls.php" 7 >/dev/null 2>"$work/exec.err" ||
		fail_ "execute__entry inject: exit status $?: $(cat "$work/exec.err")"
	grep -qx "orbit-trace: warning: $F:execute__entry: 1 of its 2 sites armed; 1 not patched, their hits not counted (site +0x2f18ad: .*)" \
		"$work/exec.err" || fail_ "execute__entry inject: $(cat "$work/exec.err")"
	USE_ZEND_DTRACE=1 bpftrace -e "usdt:/usr/bin/php8.2:php:execute__entry { @[reg(\"ip\")] = count(); }" \
		-c "$PHP $top/tests/e2e/targets/calls.php 7" >"$work/exec.bt" 2>&1 ||
		fail_ "bpftrace: $(cat "$work/exec.bt")"
	# Its sites at 0x2f18ad and 0x2f1a10: the higher address is the one patched.
	want=$(sed -n 's/^@\[\([0-9]*\)\]: \([0-9]*\)$/\1 \2/p' "$work/exec.bt" | sort -n | tail -1 | cut -d' ' -f2)
	[ "$(sed -n 's/^@\[[0-9]*\]: //p' "$work/exec.bt" | wc -l)" = 2 ] || fail_ "bpftrace: $(cat "$work/exec.bt")"
	json_check "$work/exec.json" "fn['usdt:php:execute__entry']['hits'] == $want" \
		'j["status"] == "lossy" and j["arming"]["functions_armed"] == 1' \
		'any("execute__entry: 1 of its 2 sites armed; 1 not patched, their hits not counted (site +0x2f18ad: " in r for r in j["reasons"])'
else
	echo "  (no $PHP: apt-get install php8.2-cli)" >&2
fi

# python3.11: its entry probe does not fire for Python functions, so fib's
# 177 returns are orphans, never scopes, and the status says so.
if [ -x "$PY" ]; then
	printf 'def fib(n): return n if n < 2 else fib(n - 1) + fib(n - 2)\nfib(10)\n' >"$work/fib.py"
	for b in multi inject; do
		"$OT" -q --backend $b --lang python --json -o "$work/py.json" -- "$PY" "$work/fib.py" \
			>/dev/null 2>"$work/err" || fail_ "python $b: exit status $?: $(cat "$work/err")"
		json_check "$work/py.json" \
			"(fn['python:fib']['scopes'], fn['python:fib']['orphans']) == (0, 177)" \
			'j["status"] != "ok"' \
			'any("returns of a pair of probes came with no entry open" in r for r in j["reasons"])'
	done
fi

# ruby 3.1 fires its method probes for a Ruby method only while a
# TracePoint asks for :call and :return (its VM fires them from its trace
# instructions): with one enabled before the script (ruby -r), fib's 177
# calls are scopes; without, none fires, and the status says why.
if [ -x /usr/bin/ruby3.1 ]; then
	printf 'def fib(n) n < 2 ? n : fib(n - 1) + fib(n - 2) end\nfib(10)\nputs "done"\n' >"$work/fib.rb"
	echo 'TracePoint.new(:call, :return) {}.enable' >"$work/tp.rb"
	for b in multi inject; do
		"$OT" -q --backend $b --lang ruby --json -o "$work/rb.json" -- /usr/bin/ruby3.1 \
			-r"$work/tp.rb" "$work/fib.rb" >"$work/rb.out" 2>"$work/err" ||
			fail_ "ruby $b: exit status $?: $(cat "$work/err")"
		[ "$(cat "$work/rb.out")" = done ] || fail_ "ruby $b: the script printed $(cat "$work/rb.out")"
		json_check "$work/rb.json" "(fn['ruby:fib']['scopes'], fn['ruby:fib']['orphans']) == (177, 0)" \
			"min(map(int, fn['ruby:fib']['depths'])) == 0 and max(map(int, fn['ruby:fib']['depths'])) == 9"
	done
	"$OT" -q --lang ruby --json -o "$work/rb0.json" -- /usr/bin/ruby3.1 "$work/fib.rb" \
		>/dev/null 2>"$work/err" || fail_ "ruby without a TracePoint: exit status $?: $(cat "$work/err")"
	json_check "$work/rb0.json" "'ruby:fib' not in fn" 'j["status"] == "lossy"' \
		'"ruby 3.1 fires method__entry for a Ruby method only while a TracePoint for :call is enabled in the process, and method__return only while one for :return is: enable TracePoint.new(:call, :return) {}.enable (for a script, ruby -r./tp.rb with that line in tp.rb)" in j["reasons"]'
else
	echo "  (no /usr/bin/ruby3.1: apt-get install ruby3.1)" >&2
fi

# The refusals, in one line each.
expect_rc 2 "$work/out" "$work/err" "$OT" --lang perl -- true
[ "$(cat "$work/err")" = "orbit-trace: --lang 'perl' is not a runtime orbit-trace knows: php, python or ruby
Try 'orbit-trace --help' for more information." ] ||
	fail_ "--lang perl: $(cat "$work/err")"
expect_rc 2 "$work/out" "$work/err" "$OT" -f "usdt:$T/usdt_pairs:rt:enter..leave" -- "$T/usdt_pairs"
[ "$(cat "$work/err")" = "orbit-trace: usdt:$T/usdt_pairs:rt:enter..leave: a pair of probes is usdt:FILE:PROVIDER:ENTRY..RETURN@argN or @argN:str (the argument both carry, its key)" ] ||
	fail_ "pair without a key: $(cat "$work/err")"
expect_rc 2 "$work/out" "$work/err" "$OT" -f "usdt:$T/usdt_pairs:rt:enter(arg1:int)" -- "$T/usdt_pairs"
[ "$(cat "$work/err")" = "orbit-trace: usdt:$T/usdt_pairs:rt:enter(arg1:int): the arguments of a probe are arg1 to arg12, as its note declares them, arg2:str for a string's" ] ||
	fail_ "arg1:int: $(cat "$work/err")"
expect_rc 2 "$work/out" "$work/err" "$OT" -f "usdt:$T/usdt_pairs:rt:enter..enter@arg1" -- "$T/usdt_pairs"
[ "$(cat "$work/err")" = "orbit-trace: usdt:$T/usdt_pairs:rt:enter..enter@arg1: a pair is two probes: ENTRY and RETURN are one" ] ||
	fail_ "enter..enter: $(cat "$work/err")"
expect_rc 2 "$work/out" "$work/err" "$OT" -f "usdt:$T/usdt_pairs:rt:*..leave@arg1" -- "$T/usdt_pairs"
[ "$(cat "$work/err")" = "orbit-trace: usdt:$T/usdt_pairs:rt:*..leave@arg1: * matches 2 probes of $T/usdt_pairs: each of a pair names one" ] ||
	fail_ "a glob pair: $(cat "$work/err")"
pass_
