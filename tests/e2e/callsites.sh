# Probes go only where a call lands, and a count that cannot be trusted is
# not ok: .cold parts and the entry point are never selected (a return
# probe there changed the program's results), tail calls are closed in
# --returns insn or reported, a LOCK-prefixed first instruction is probed
# on the next one, and the held child of -- CMD runs nothing a probe sees.
# Every traced run's output and exit status must equal the untraced run's.
. "$(dirname "$0")/lib.sh"
T="$top/build/targets"

# Selection, without root: -l and the refusals.
"$OT" -l -f 'pars*' -- "$T/cold" >"$work/list" || fail_ "-l: exit status $?"
[ "$(awk '!/^#/ { print $3 }' "$work/list")" = parse ] || fail_ "-l selected: $(cat "$work/list")"
grep -qxF "# skipped $T/cold:parse.cold: a .cold part split off its function by the compiler, entered by a jump" \
	"$work/list" || fail_ "-l does not say what it skipped: $(cat "$work/list")"
expect_rc 2 /dev/null "$work/cold.err" "$OT" -f parse.cold -- "$T/cold"
grep -qxF "orbit-trace: 'parse.cold' in $T/cold cannot be traced: a .cold part split off its function by the compiler, entered by a jump" \
	"$work/cold.err" || fail_ "parse.cold: $(cat "$work/cold.err")"
expect_rc 2 /dev/null "$work/start.err" "$OT" -f _start,main -- "$T/cold" x
grep -qxF "orbit-trace: '_start' in $T/cold cannot be traced: the ELF entry point, entered by the kernel, not called" \
	"$work/start.err" || fail_ "_start: $(cat "$work/start.err")"
expect_rc 2 /dev/null "$work/glob.err" "$OT" -f '_st*' -- "$T/cold"
grep -qxF "orbit-trace: no function that can be traced matches '_st*' in $T/cold: _start is the ELF entry point, entered by the kernel, not called" \
	"$work/glob.err" || fail_ "_st*: $(cat "$work/glob.err")"
# A C++ name whose function has a .cold clone: "leaf" spells leaf(long)
# and, without parameters, "leaf(long) [clone .cold]" too; it selects the
# function and skips the clone.  A name of the clone alone is refused.
"$OT" -l -f leaf,check -- "$T/coldxx" >"$work/coldxx.list" || fail_ "-l leaf,check: exit status $?"
[ "$(awk '!/^#/ { print $3 }' "$work/coldxx.list" | tr '\n' ' ')" = "_Z4leafl _ZN3app5checkEl " ] ||
	fail_ "-l leaf,check selected: $(cat "$work/coldxx.list")"
grep -qxF "# skipped $T/coldxx:leaf(long) [clone .cold]: a .cold part split off its function by the compiler, entered by a jump" \
	"$work/coldxx.list" || fail_ "-l does not say it skipped leaf's clone: $(cat "$work/coldxx.list")"
expect_rc 2 /dev/null "$work/clone.err" "$OT" -f _Z4leafl.cold -- "$T/coldxx"
grep -qxF "orbit-trace: '_Z4leafl.cold' in $T/coldxx cannot be traced: a .cold part split off its function by the compiler, entered by a jump" \
	"$work/clone.err" || fail_ "the clone by name: $(cat "$work/clone.err")"

require_uprobes

# same_run NAME CMD...: the target's output and status, traced (orbit-trace's
# report to $work/NAME.json) and untraced, must be the same.
same_run() {
	n=$1; shift
	set +e
	"$@" >"$work/$n.plain" 2>"$work/$n.plain2"
	plain=$?
	"$OT" -q --json -o "$work/$n.json" $OTARGS -- "$@" >"$work/$n.traced" 2>"$work/$n.err"
	traced=$?
	set -e
	[ "$traced" = 0 ] || fail_ "$n: orbit-trace exit status $traced: $(cat "$work/$n.err")"
	json_check "$work/$n.json" "j['target']['exit_status'] == $plain"
	cmp -s "$work/$n.traced" "$work/$n.plain" ||
		fail_ "$n: the traced program's output differs: $(diff "$work/$n.plain" "$work/$n.traced")"
	grep -v '^orbit-trace: ' "$work/$n.err" | cmp -s - "$work/$n.plain2" ||
		fail_ "$n: the traced program's errors differ: $(cat "$work/$n.err")"
}

OTARGS="-f pars*" same_run cold "$T/cold" x
json_check "$work/cold.json" '[(f["name"], f["scopes"], f["unclosed"], f["orphans"]) for f in j["functions"]] == [("parse", 1000, 0, 0)]' \
	'j["status"] == "ok"'

# The same names traced, on every backend: exact counts, the program's own
# output.
for b in multi perf inject; do
	OTARGS="--backend $b -f leaf,check" same_run "coldxx-$b" "$T/coldxx" 300
	json_check "$work/coldxx-$b.json" 'j["status"] == "ok"' \
		'[(f["name"], f["scopes"], f["unclosed"], f["orphans"], f["duplicates"]) for f in j["functions"]] == [("leaf(long)", 300, 0, 0, 0), ("app::check(long)", 300, 0, 0, 0)]'
done

for mode in insn uretprobe; do
	OTARGS="--returns $mode -f crc,pagesize,dispatch_ptr,square,lockinc" same_run "tails-$mode" "$T/tails" 500
	json_check "$work/tails-$mode.json" \
		'all((fn[f]["scopes"], fn[f]["duplicates"], fn[f]["unclosed"], fn[f]["orphans"]) == (500, 0, 0, 0) for f in ("crc", "lockinc"))' \
		'(fn["square"]["scopes"], fn["square"]["duplicates"], fn["square"]["unclosed"]) == (1000, 0, 0)'
done
# insn: crc's tail call to crc_impl (not traced) is closed by crc_impl's
# return; pagesize's to libc's sysconf through the PLT and dispatch_ptr's
# through a pointer cannot be followed: the status says so.
json_check "$work/tails-insn.json" 'j["status"] == "lossy"' \
	'"pagesize: calls that leave it by a tail call through a pointer or to another library are not seen returning (--returns insn); its counts may be short" in j["reasons"]' \
	'"dispatch_ptr: calls that leave it by an indirect tail call are not seen returning (--returns insn); its counts may be short" in j["reasons"]' \
	'len(j["reasons"]) == 2'
json_check "$work/tails-uretprobe.json" 'j["status"] == "ok"' \
	'all((f["scopes"], f["duplicates"]) == (1000 if f["name"] == "square" else 500, 0) for f in j["functions"])'
# By default each function gets what sees it exactly: return instructions
# where every exit is found, a return probe for pagesize and dispatch_ptr
# (a C program: nothing unwinds through them); the header names them.
OTARGS="-f crc,pagesize,dispatch_ptr,square,lockinc" same_run tails-default "$T/tails" 500
json_check "$work/tails-default.json" 'j["status"] == "ok" and j["arming"]["returns"] == "mixed"' \
	'[(f["name"], f["returns"], f["scopes"], f["unclosed"]) for f in j["functions"]] == [("crc", "insn", 500, 0), ("pagesize", "uretprobe", 500, 0), ("dispatch_ptr", "uretprobe", 500, 0), ("square", "insn", 1000, 0), ("lockinc", "insn", 500, 0)]'
"$OT" -o "$work/tails-default.txt" -f crc,pagesize,dispatch_ptr,square,lockinc -- "$T/tails" 500 >/dev/null 2>&1 ||
	fail_ "tails, text: exit status $?"
grep -qx 'returns seen by return probes: pagesize, dispatch_ptr (not every exit of them is a return instruction)' \
	"$work/tails-default.txt" || fail_ "tails, text: $(head -3 "$work/tails-default.txt")"
grep -Eq '^armed 5 of 5 functions .*\(returns of 3 seen at return instructions\)' "$work/tails-default.txt" ||
	fail_ "tails, header: $(head -2 "$work/tails-default.txt")"
# crc_impl is probed only because crc tail-calls it: every call of it
# traps, from any caller (php-fpm's _efree, issue 34): the report says so
# (text and JSON); a return probe (--returns uretprobe) probes nothing of it.
grep -qxF "returns: crc leaves by tail calls to crc_impl, whose return instructions are probed too: every call of crc_impl, from any caller, traps (--returns uretprobe probes crc's own return alone)" \
	"$work/tails-default.txt" || fail_ "tails, tail-called: $(head -4 "$work/tails-default.txt")"
[ "$(grep -c '^returns: .* leaves by tail calls' "$work/tails-default.txt")" = 1 ] ||
	fail_ "tails, tail-called: not crc's alone: $(head -5 "$work/tails-default.txt")"
json_check "$work/tails-default.json" \
	'[(f["name"], f.get("tail_probed")) for f in j["functions"] if "tail_probed" in f] == [("crc", ["crc_impl"])]'
json_check "$work/tails-uretprobe.json" 'not any("tail_probed" in f for f in j["functions"])'

# Tail calls through tables of function pointers, in a C++ file (--returns
# insn by default).  dispatch has no return instruction of its own: each
# call returns with one of the four functions its table names; the table
# is read from the file (a PIE: its relocations) to its symbol's end.
# dispatch_null loads an entry, tests it and jumps through the register;
# sw is a switch.  Traced alone and together, every call is a scope at
# depth 0.  hooked (a table the program may change) and apply (a table it
# is given) cannot be followed: lossy, the function named.
for b in multi perf; do
	OTARGS="--backend $b -f dispatch" same_run "dispatch-$b" "$T/tables" 400
	json_check "$work/dispatch-$b.json" 'j["status"] == "ok" and j["arming"]["returns"] == "insn"' \
		'[(f["name"], f["scopes"], f["duplicates"], f["unclosed"], f["orphans"]) for f in j["functions"]] == [("dispatch", 400, 0, 0, 0)]'
	OTARGS="--backend $b -f dispatch,dispatch_null,sw" same_run "tables-$b" "$T/tables" 400
	json_check "$work/tables-$b.json" 'j["status"] == "ok"' \
		'[(f["name"], f["scopes"], f["depths"], f["duplicates"], f["unclosed"], f["orphans"]) for f in j["functions"]] == [(n, 400, {"0": 400}, 0, 0, 0) for n in ("dispatch", "dispatch_null", "sw")]'
	OTARGS="--backend $b -f hooked,apply" same_run "unfollowed-$b" "$T/tables" 400
	json_check "$work/unfollowed-$b.json" 'j["status"] == "lossy"' \
		'all("%s: calls that leave it by an indirect tail call are not seen returning (--returns insn); its counts may be short" % f in j["reasons"] for f in ("hooked", "apply"))'
done
# inject sees every return at its trampoline, tail calls through tables
# included: all five exact, whatever their tables.
if [ "$(uname -m)" = x86_64 ]; then
	OTARGS="--backend inject -f dispatch,dispatch_null,sw,hooked,apply" same_run tables-inject "$T/tables" 400
	json_check "$work/tables-inject.json" 'j["status"] == "ok"' \
		'[(f["name"], f["scopes"], f["depths"], f["duplicates"], f["unclosed"], f["orphans"]) for f in j["functions"]] == [(n, 400, {"0": 400}, 0, 0, 0) for n in ("dispatch", "dispatch_null", "sw", "hooked", "apply")]'
fi
# Without the symbol that gives its table's length, dispatch is lossy.
objcopy --strip-symbol=_ZZ8dispatchE5table "$T/tables" "$work/tables-nosize"
OTARGS="-f dispatch" same_run nosize "$work/tables-nosize" 400
json_check "$work/nosize.json" 'j["status"] == "lossy"' \
	'"dispatch: calls that leave it by an indirect tail call are not seen returning (--returns insn); its counts may be short" in j["reasons"]'
# Not PIE: the tables hold addresses, and sw's switch jumps through one of
# its own labels (jmp *tab(,%rdi,8)), which is no exit.
${CXX:-g++} -O2 -g -fno-pie -no-pie -o "$work/tables-nopie" "$top/tests/e2e/targets/tables.cc" ||
	fail_ "cannot build the non-PIE target"
OTARGS="-f dispatch,dispatch_null,sw" same_run nopie "$work/tables-nopie" 400
json_check "$work/nopie.json" 'j["status"] == "ok"' \
	'[(f["name"], f["scopes"], f["depths"], f["duplicates"]) for f in j["functions"]] == [(n, 400, {"0": 400}, 0) for n in ("dispatch", "dispatch_null", "sw")]'

"$OT" -v -f lockinc -- "$T/tails" 10 >/dev/null 2>"$work/lock.err" || fail_ "lockinc: exit status $?"
grep -q "lockinc: its first instruction has a LOCK prefix, which the kernel cannot probe: the entry probe is on the next one" \
	"$work/lock.err" || fail_ "lockinc -v: $(cat "$work/lock.err")"

# -p: the same function in a running process, once it says it runs (before
# its exec, the background job is a copy of this shell).
"$T/tails" 100000000 ready >"$work/tails.out" &
tpid=$!
cleanup_pids=$tpid
wait_for "$work/tails.out" '^ready '
"$OT" --json -o "$work/p.json" -d 1 -p "$tpid" -f lockinc >/dev/null 2>"$work/p.err" ||
	fail_ "-p lockinc: exit status $?: $(cat "$work/p.err")"
json_check "$work/p.json" 'fn["lockinc"]["scopes"] > 0'
kill "$tpid"

# The command starts with the signal dispositions orbit-trace was given:
# orbit-trace ignores SIGPIPE, the command must not.
OTARGS="-f libc.so.6:getpid" same_run sigign grep SigIgn /proc/self/status

# The held child waits and execs without libc: its read and execve are not
# the program's, and --expect with the program's true counts holds.
for f in read execve; do
	"$OT" -q --json -o "$work/$f.json" --expect "libc.so.6:$f=0" -f "libc.so.6:$f" -- /bin/true \
		>/dev/null 2>"$work/$f.err" || fail_ "$f: exit status $?: $(cat "$work/$f.err")"
	json_check "$work/$f.json" 'j["status"] == "ok"' \
		'(j["functions"][0]["unclosed"], j["functions"][0]["orphans"]) == (0, 0)'
done
pass_
