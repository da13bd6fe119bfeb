# Arguments by their DWARF names and returns typed by DWARF (issue 22,
# item 5): tests/e2e/targets/dwargs (gcc -O2 -g) prints every value it
# passes and gets back; orbit-trace must record the same by name on multi
# (registers, memory through a pointer, the stack at the entry, a pointer on
# the stack), perf and inject (registers; memory refused in one line), with -- CMD
# and -p; several values per function; two terms for one function merged;
# --slower-than's lines with the values, the process's name, --wall-clock;
# every location -v prints equal to perf probe -D's for the same
# parameter (dwargs' and libc's); strings (:str) on every backend,
# against tests/e2e/targets/strs's own counts; the refusals' exact lines.
# Then libc's read(fd, buf, nbytes) under gzip -d by name (libc6-dbg's
# DWARF) against the same run by register (read(arg3)), which values.sh
# holds against bpftrace.
. "$(dirname "$0")/lib.sh"
require_uprobes
# The placements are checked against perf probe -D: without perf that
# check could not fail (make deps installs linux-perf).
command -v perf >/dev/null || skip_ "perf is not installed (make deps installs linux-perf)"
D="$top/build/targets/dwargs"
N=2000

"$D" $N >"$work/want" || fail_ "dwargs untraced: $?"

# check REPORT.json FUNCTION WHAT LINE: the JSON value of FUNCTION called
# WHAT has the count, min and max of the program's LINE ("NAME VALUE ...").
check() {
	python3 - "$1" "$2" "$3" "$4" "$work/want" <<'PY' || fail_ "$1: $2 $3: $(head -c 2000 "$1")"
import json, sys
rep, fn, what, line = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3], sys.argv[4]
want = {}
for l in open(sys.argv[5]):
    p = l.split()
    want[p[0] + " " + p[1]] = [int(x) for x in p[2:5]]
assert rep["status"] == "ok", rep["status"]
f = {x["name"]: x for x in rep["functions"]}[fn]
v = f["ret"] if what == "ret" else f["arg"]
assert v["what"] == what, (v["what"], what)
got = [v["count"], v["min"], v["max"]]
assert got == want[line], (fn, what, got, want[line])
PY
}

# inject (issue 22, item 7) records the argument registers at the entry
# and rax at the return: the same values where DWARF puts them there.
bes="multi perf"
[ "$(uname -m)" = x86_64 ] && bes="$bes inject"
for be in $bes; do
	"$OT" -q --json -o "$work/$be-1.json" --backend $be \
		-f 'handle(flags)%ret,narrow%ret,shorty%ret' -- "$D" $N >"$work/out" 2>"$work/err" ||
		fail_ "$be: exit status $?: $(cat "$work/err")"
	cmp -s "$work/out" "$work/want" || fail_ "$be: the program printed other values traced"
	check "$work/$be-1.json" handle flags "handle flags"
	# int, unsigned char, short: the register's upper bits are not the value.
	check "$work/$be-1.json" handle ret "handle ret"
	check "$work/$be-1.json" narrow ret "narrow ret"
	check "$work/$be-1.json" shorty ret "shorty ret"
	"$OT" -q --json -o "$work/$be-2.json" --backend $be -f 'handle(n)' -- "$D" $N >/dev/null 2>"$work/err" ||
		fail_ "$be: exit status $?: $(cat "$work/err")"
	check "$work/$be-2.json" handle n "handle n"
done

# Memory: through the pointer in %rdi, the 7th argument on the stack, and
# a member through that stack pointer (multi's program reads them all).
"$OT" -q --json -o "$work/mem.json" -f 'handle(req->len),seventh(g),far(r->len)' -- "$D" $N \
	>/dev/null 2>"$work/err" || fail_ "memory: exit status $?: $(cat "$work/err")"
check "$work/mem.json" handle req-\>len "handle req->len"
check "$work/mem.json" seventh g "seventh g"
check "$work/mem.json" far r-\>len "far r->len"

# Several values per function (issue 22, item 6): by one term, names and
# registers mixed, each its own row and its JSON values entry in order.
for be in $bes; do
	"$OT" -q --json -o "$work/several-$be.json" --backend $be -f 'handle(flags,n,arg1)%ret' \
		-- "$D" $N >/dev/null 2>"$work/err" || fail_ "several $be: exit status $?: $(cat "$work/err")"
	check "$work/several-$be.json" handle flags "handle flags"
	check "$work/several-$be.json" handle ret "handle ret"
	python3 - "$work/several-$be.json" $N <<'PY' || fail_ "several $be: $(head -c 3000 "$work/several-$be.json")"
import json, sys
f = json.load(open(sys.argv[1]))["functions"][0]
n = int(sys.argv[2])
v = f["values"]
assert [x["what"] for x in v] == ["flags", "n", "arg1", "ret"], [x["what"] for x in v]
assert (v[1]["count"], v[1]["min"], v[1]["max"]) == (n, 0, 89), v[1]
assert v[2]["count"] == n and v[2]["min"] == v[2]["max"] > 0, v[2]   # one struct's address
PY
done
"$OT" -q -o "$work/several.txt" -f 'handle(flags,req->len),seventh(a,g),far(r->len,f)' -- "$D" $N \
	>/dev/null 2>"$work/err" || fail_ "several, text: exit status $?: $(cat "$work/err")"
for row in "handle flags $N 2147483648" "handle req->len $N 1000" "seventh a $N 1" "seventh g $N -10" \
	"far r->len $N -12" "far f $N 6"; do
	set -- $row
	grep -Eq "^$1 $2 +$3 +$4 " "$work/several.txt" || fail_ "no row '$row': $(cat "$work/several.txt")"
done

# Two terms for one function: both values, merged into one row.
"$OT" -q --json -o "$work/merged.json" -f 'handle(flags),handle%ret' -- "$D" $N \
	>/dev/null 2>"$work/err" || fail_ "merged: exit status $?: $(cat "$work/err")"
check "$work/merged.json" handle flags "handle flags"
check "$work/merged.json" handle ret "handle ret"

# --slower-than's lines carry the call's values and the process's name:
# every call's line (1ns), the values those of the program's calls.
"$OT" -q --json --slower-than 1ns -o "$work/slow.ndjson" -f 'handle(req->len)%ret' -- "$D" 200 \
	>/dev/null 2>"$work/err" || fail_ "slow: exit status $?: $(cat "$work/err")"
python3 - "$work/slow.ndjson" <<'PY' || fail_ "slow lines: $(head -c 2000 "$work/slow.ndjson")"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
slow = [l for l in lines if l["type"] == "slow"]
assert len(slow) == 200, len(slow)
assert all(s["comm"] == "dwargs" for s in slow)
got = sorted((s["values"]["req->len"], s["values"]["ret"]) for s in slow)
want = sorted((1000 + i % 37, i % 90 - 50) for i in range(200))
assert got == want, (got[:5], want[:5])
PY
# Every value of each call on its line, on both backends.
for be in multi perf; do
	"$OT" -q --json --backend $be --slower-than 1ns -o "$work/slow-$be.ndjson" \
		-f 'handle(flags,n,arg1)%ret' -- "$D" 300 >/dev/null 2>"$work/err" ||
		fail_ "slow $be: exit status $?: $(cat "$work/err")"
	python3 - "$work/slow-$be.ndjson" <<'PY' || fail_ "slow $be: $(head -c 2000 "$work/slow-$be.ndjson")"
import json, sys
slow = [l for l in map(json.loads, open(sys.argv[1])) if l["type"] == "slow"]
assert len(slow) == 300 and all(list(s["values"]) == ["flags", "n", "arg1", "ret"] for s in slow)
got = sorted((s["values"]["flags"], s["values"]["n"], s["values"]["ret"]) for s in slow)
assert got == sorted((0x80000000 + i % 5, i % 90, i % 90 - 50) for i in range(300))
PY
done
"$OT" --slower-than 1ns -o "$work/slow.txt" -f 'shorty%ret' -- "$D" 7 >/dev/null 2>&1 ||
	fail_ "slow text: exit status $?"
grep -q '^slow: shorty at .*, pid [0-9]* (dwargs) tid [0-9]*: .* (shorty) ret=-1800$' "$work/slow.txt" ||
	fail_ "slow text: $(cat "$work/slow.txt")"

# --wall-clock: the lines say the time of day, within the run's.
before=$(date +%s%N)
TZ=UTC "$OT" -q --json --slower-than 1ns --wall-clock -o "$work/wall.ndjson" -f shorty -- "$D" 5 \
	>/dev/null 2>"$work/err" || fail_ "wall: exit status $?: $(cat "$work/err")"
after=$(date +%s%N)
python3 - "$work/wall.ndjson" "$before" "$after" <<'PY' || fail_ "wall: $(head -c 2000 "$work/wall.ndjson")"
import json, sys, time
slow = [l for l in map(json.loads, open(sys.argv[1])) if l["type"] == "slow"]
lo, hi = int(sys.argv[2]), int(sys.argv[3])
assert len(slow) == 5
for s in slow:
    assert lo <= s["wall_ns"] <= hi, (lo, s["wall_ns"], hi)
    t = time.gmtime(s["wall_ns"] // 10**9)
    assert s["time"] == "%02d:%02d:%02d.%06d" % (t.tm_hour, t.tm_min, t.tm_sec, s["wall_ns"] % 10**9 // 1000), s
PY
"$OT" --slower-than 1ns --wall-clock -o "$work/wall.txt" -f shorty -- "$D" 5 >/dev/null 2>&1 ||
	fail_ "wall text: exit status $?"
[ "$(grep -Ec '^slow: shorty at [0-2][0-9]:[0-5][0-9]:[0-6][0-9]\.[0-9]{6}, pid [0-9]+ \(dwargs\) tid ' "$work/wall.txt")" = 5 ] ||
	fail_ "wall text: $(cat "$work/wall.txt")"

# -p: armed on the running program before it makes its calls.
mkfifo "$work/in"
"$D" $N ready <"$work/in" >"$work/p.out" &
dpid=$!
cleanup_pids="$cleanup_pids $dpid"
exec 3>"$work/in"
wait_for "$work/p.out" '^ready '
"$OT" -v --json -o "$work/p.json" -f 'far(r->len)' -p $dpid >/dev/null 2>"$work/p.err" &
otpid=$!
cleanup_pids="$cleanup_pids $otpid"
wait_for "$work/p.err" 'armed 1 functions'
echo go >&3
exec 3>&-
wait $dpid || fail_ "-p: dwargs exit status $?"
wait $otpid || fail_ "-p: orbit-trace exit status $?: $(cat "$work/p.err")"
grep -qx "orbit-trace: $D:far: r->len is +8(+8(%sp)):s64 (DWARF, at the entry)" "$work/p.err" ||
	fail_ "-p: -v does not say where r->len is: $(cat "$work/p.err")"
sed 1d "$work/p.out" >"$work/p.want"
cmp -s "$work/p.want" "$work/want" || fail_ "-p: the program printed other values"
check "$work/p.json" far r-\>len "far r->len"

# Where each parameter is, against perf probe -D's placement of the same
# (perf's x32/x64 is our u32/u64: hex-printed unsigned).
{
	for spec in "handle req,flags,n" "handle req->len" "seventh a,g" "far r->len,f"; do
		set -- $spec
		"$OT" -v -f "$1($2)" -o /dev/null -- "$D" 1 >/dev/null 2>"$work/v.err" ||
			fail_ "$spec -v: $(cat "$work/v.err")"
		perf probe -x "$D" -D "$1 $(echo "$2" | tr , ' ')" 2>"$work/perf.err" >"$work/perf.out" ||
			fail_ "perf probe -D $spec: $(cat "$work/perf.err")"
		python3 - "$work/v.err" "$work/perf.out" "$1" "$2" <<'PY' ||
import re, sys
ours = dict(re.findall(r":%s: (\S+) is (\S+) \(DWARF" % sys.argv[3], open(sys.argv[1]).read()))
perf = open(sys.argv[2]).read().split()[2:]
assert len(perf) == len(sys.argv[4].split(",")), perf	# zip would stop at the shorter
for name, p in zip(sys.argv[4].split(","), perf):
    loc = p.split("=", 1)[1].replace(":x", ":u")
    assert ours.get(name) == loc, (name, ours.get(name), loc)
PY
			fail_ "$spec: ours $(grep DWARF "$work/v.err"), perf's $(cat "$work/perf.out")"
	done
}

# Without DWARF (the same program, its debug info stripped): argN is the
# ABI's register, %ret the whole register (-v says so: shorty's -300 is
# 65236 with this gcc: no short is that), a name is refused.
objcopy --strip-debug "$D" "$work/nodebug"
"$OT" -v --json -o "$work/nodebug.json" -f 'shorty%ret,handle(arg2)' -- "$work/nodebug" 7 \
	>/dev/null 2>"$work/nodebug.err" || fail_ "no DWARF: exit status $?: $(cat "$work/nodebug.err")"
grep -qx "orbit-trace: $work/nodebug:shorty: no DWARF: %ret is the whole return register" "$work/nodebug.err" ||
	fail_ "no DWARF: -v does not say so: $(cat "$work/nodebug.err")"
json_check "$work/nodebug.json" 'fn["shorty"]["ret"]["max"] > 32767 and fn["shorty"]["ret"]["min"] >= 0' \
	'fn["handle"]["arg"]["what"] == "arg2" and fn["handle"]["arg"]["min"] == 2147483648'
expect_rc 2 "$work/stdout" "$work/stderr" "$OT" -f 'handle(flags)' -- "$work/nodebug" 1
[ "$(cat "$work/stderr")" = "orbit-trace: $work/nodebug:handle: cannot read 'flags': $work/nodebug has no DWARF for it (install its debug info, or name the argument argN: the ABI's registers)" ] ||
	fail_ "no DWARF, a name: $(cat "$work/stderr")"

# Strings (issue 22, item 5's :str): tests/e2e/targets/strs passes known
# strings (literals, two on a page it never touches, one of 70
# characters) a known number of times and prints each with its count; on
# every backend the STRING rows are the program's, a parameter by its
# DWARF name or argN, first or second of a function's values, beside its
# integer values and %ret.  multi reads them in the probe (the untouched
# page's afterwards), inject in the probe too (process_vm_readv, which
# faults the page in), perf afterwards (the process's memory, or its file
# once it is gone).
ST="$top/build/targets/strs"
"$ST" >"$work/strs.want" || fail_ "strs untraced: $?"
for be in $bes; do
	"$OT" -q --json -o "$work/str-$be.json" --backend $be \
		-f 'take(path:str,flags)%ret,tally(n,name:str)' -- "$ST" >"$work/strs.out" 2>"$work/err" ||
		fail_ "strings $be: exit status $?: $(cat "$work/err")"
	cmp -s "$work/strs.out" "$work/strs.want" || fail_ "strings $be: the program printed other strings"
	python3 - "$work/str-$be.json" "$work/strs.want" $be <<'PY' || fail_ "strings $be: $(head -c 3000 "$work/str-$be.json")"
import json, sys
rep, be = json.load(open(sys.argv[1])), sys.argv[3]
want = {}
for l in open(sys.argv[2]):
    fn, s, n = l.split()
    want.setdefault(fn, {})[s] = int(n)
def top(d):
    return sorted(d.items(), key=lambda kv: -kv[1])[:10]
assert rep["status"] == "ok", rep["reasons"]
st = rep["strings"]
assert st["unreadable"] == 0 and st["probe"] + st["late"] == 153 + 300, st
if be == "multi":
    assert st["probe"] > 0 and st["late"] >= 6, st     # the untouched page's 6 afterwards
elif be == "inject":
    assert st["late"] == 0, st
else:
    assert st["probe"] == 0, st
f = {x["name"]: x for x in rep["functions"]}
for fn, arg in (("take", "path:str"), ("tally", "name:str")):
    s = f[fn]["strings"]
    assert s["what"] == arg and s["distinct"] == len(want[fn]), (fn, s)
    assert [(t["value"], t["count"]) for t in s["top"]] == top(want[fn]), (fn, s["top"], top(want[fn]))
t, y = f["take"], f["tally"]
assert t["arg"] is None and y["arg"] is None        # the first value is the string
assert [(v["what"], v["count"], v["min"], v["max"]) for v in t["values"]] == \
    [("flags", 153, 0, 300), ("ret", 153, -1, 21)], t["values"]
assert [(v["what"], v["count"], v["min"], v["max"]) for v in y["values"]] == [("n", 300, 0, 299)]
PY
	# Every string, the long one cut at 63 characters, on --slower-than's lines.
	"$OT" -q --json --slower-than 1ns -o "$work/str-slow-$be.ndjson" --backend $be \
		-f 'take(arg1:str,flags)' -- "$ST" >/dev/null 2>"$work/err" ||
		fail_ "strings slow $be: exit status $?: $(cat "$work/err")"
	python3 - "$work/str-slow-$be.ndjson" "$work/strs.want" <<'PY' || fail_ "strings slow $be: $(head -c 2000 "$work/str-slow-$be.ndjson")"
import collections, json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
slow = [l for l in lines if l["type"] == "slow"]
assert all(list(s["values"]) == ["arg1:str", "flags"] for s in slow), slow[0]
got = collections.Counter(s["values"]["arg1:str"] for s in slow)
want = {l.split()[1]: int(l.split()[2]) for l in open(sys.argv[2]) if l.startswith("take ")}
assert got == want, (got, want)
assert lines[-1]["strings"]["unreadable"] == 0
PY
done
# The text report: the STRING table, the strings line, --slower-than's
# lines with the string quoted.
"$OT" -o "$work/str.txt" -f 'take(path:str,flags)%ret' -- "$ST" >/dev/null 2>"$work/err" ||
	fail_ "strings text: exit status $?: $(cat "$work/err")"
grep -Eq '^strings: [0-9]+ read by the probes, [0-9]+ afterwards \(not readable in the moment\), 0 unreadable$' "$work/str.txt" &&
	grep -Eq '^take +path:str +23  lima$' "$work/str.txt" && grep -Eq '^ +5  charlie$' "$work/str.txt" &&
	grep -Eq '^ +\(15 distinct, the 10 most frequent shown\)$' "$work/str.txt" &&
	grep -Eq '^take flags +153 +0 ' "$work/str.txt" || fail_ "strings text: $(cat "$work/str.txt")"
"$OT" --slower-than 1ns -o "$work/str-slow.txt" -f 'take(path:str,flags)%ret' -- "$ST" >/dev/null 2>&1 ||
	fail_ "strings slow text: exit status $?"
grep -q '^slow: take at .*, pid [0-9]* (strs) tid [0-9]*: .* (take) path:str="lima" flags=11 ret=21$' "$work/str-slow.txt" ||
	fail_ "strings slow text: $(cat "$work/str-slow.txt")"
# A member through a pointer (multi reads memory), and a pointer to a
# struct read as a string (the user's choice: -v says what it is).
"$OT" -v --json -o "$work/str-mem.json" -f 'named(it->name:str)' -- "$ST" >/dev/null 2>"$work/err" ||
	fail_ "strings member: exit status $?: $(cat "$work/err")"
json_check "$work/str-mem.json" 'fn["named"]["strings"]["top"] == [{"value": "item", "count": 7}]'
"$OT" -v -o /dev/null -f 'named(it:str)' -- "$ST" >/dev/null 2>"$work/err" ||
	fail_ "strings struct pointer: exit status $?: $(cat "$work/err")"
grep -qx "orbit-trace: $ST:named: it is const struct item \*, not a char pointer: the bytes it points to are read as a string (up to a NUL, 64 at most)" "$work/err" ||
	fail_ "strings struct pointer: -v does not say so: $(cat "$work/err")"
# -p: a string in the heap, read afterwards from the living process
# (perf, inject) or in the probe (multi); the capture ends while it runs.
for be in $bes; do
	rm -f "$work/sin" "$work/sp.out"	# no "ready", "done" of the last backend's
	mkfifo "$work/sin"
	"$ST" ready <"$work/sin" >"$work/sp.out" &
	spid=$!
	cleanup_pids="$cleanup_pids $spid"
	exec 4>"$work/sin"
	wait_for "$work/sp.out" '^ready '
	# Its own file per backend: the previous one's "armed" line must not
	# pass for this one's before its shell has truncated it.
	"$OT" -v --json --backend $be -o "$work/sp-$be.json" -f 'take(path:str)' -p $spid >/dev/null 2>"$work/sp-$be.err" &
	otpid=$!
	cleanup_pids="$cleanup_pids $otpid"
	wait_for "$work/sp-$be.err" 'armed 1 functions'
	echo go >&4
	wait_for "$work/sp.out" '^done$'
	kill -INT $otpid
	wait $otpid || fail_ "strings -p $be: orbit-trace exit status $?: $(cat "$work/sp-$be.err")"
	echo bye >&4
	exec 4>&-
	wait $spid || fail_ "strings -p $be: strs exit status $?"
	json_check "$work/sp-$be.json" 'j["status"] == "ok" and j["strings"]["unreadable"] == 0' \
		'fn["take"]["strings"]["top"][:2] == [{"value": "heap", "count": 25}, {"value": "lima", "count": 23}]' \
		'fn["take"]["strings"]["distinct"] == 16'
done

# refused RC LINE ARGS...: exit status RC, the one line (every backend refuses
# what it cannot read before anything is armed: 2).
refused() {
	rc=$1 line=$2
	shift 2
	expect_rc "$rc" "$work/stdout" "$work/stderr" "$OT" "$@" -- "$D" 1
	[ "$(cat "$work/stderr")" = "$line" ] || fail_ "$*: '$(cat "$work/stderr")', expected '$line'"
}
refused 2 "orbit-trace: $D:handle: cannot read 'flag': no parameter 'flag' (did you mean flags?)" \
	-f 'handle(flag)'
refused 2 "orbit-trace: $D:handle: cannot read 'len': no parameter 'len' (its parameters: req, flags, n)" \
	-f 'handle(len)'
refused 2 "orbit-trace: $D:handle: cannot read 'req->size': struct req has no member 'size'" \
	-f 'handle(req->size)'
refused 2 "orbit-trace: $D:handle: cannot read 'flags' as a string (:str): it is unsigned int, not a pointer" \
	-f 'handle(flags:str)'
refused 2 "orbit-trace: $D:far: cannot read 'r->len' as a string (:str): it is long int, not a pointer" \
	-f 'far(r->len:str)'
refused 2 "orbit-trace: 'handle(req:str,arg2:str)': one value of a function may be read as a string (:str), not 2" \
	-f 'handle(req:str,arg2:str)'
refused 2 "orbit-trace: handle: terms ask 2 of its values as strings (:str): one may be" \
	-f 'handle(req:str),handle(arg1:str)'
refused 2 "orbit-trace: 'handle(arg1:32:str)': 'arg1:32:str' is no value: values are NAME(VALUE,...), NAME%ret, NAME(VALUE,...)%ret: up to 4 VALUEs, each argN (N 1 to 6), argN:32, a parameter's name or NAME->MEMBER, one of them VALUE:str (the string it points to); %ret:32 the low half" \
	-f 'handle(arg1:32:str)'
refused 2 "orbit-trace: 'handle(1)': '1' is no value: values are NAME(VALUE,...), NAME%ret, NAME(VALUE,...)%ret: up to 4 VALUEs, each argN (N 1 to 6), argN:32, a parameter's name or NAME->MEMBER, one of them VALUE:str (the string it points to); %ret:32 the low half" \
	-f 'handle(1)'
refused 2 "orbit-trace: 'handle%return': values are NAME(VALUE,...), NAME%ret, NAME(VALUE,...)%ret: up to 4 VALUEs, each argN (N 1 to 6), argN:32, a parameter's name or NAME->MEMBER, one of them VALUE:str (the string it points to); %ret:32 the low half" \
	-f 'handle%return'
refused 2 "orbit-trace: 'handle(flags,n,req,arg1,arg2)': at most 4 values at the entry of a function" \
	-f 'handle(flags,n,req,arg1,arg2)'
refused 2 "orbit-trace: handle: terms ask more than 4 values at its entry" \
	-f 'handle(flags,n),handle(req,arg1,arg2)'
refused 2 "orbit-trace: $D:seventh: the argument asked is in memory at the entry (+8(%sp):s64): the perf backend reads only registers (--backend multi reads it)" \
	--backend perf -f 'seventh(g)'
refused 2 "orbit-trace: $D:seventh: the argument asked is in memory at the entry (+8(%sp):s64): the perf backend reads only registers (--backend multi reads it)" \
	--backend perf -f 'seventh(a,g)'
refused 2 "orbit-trace: $D:far: the argument asked is in memory at the entry (+8(%sp):u64): the perf backend reads only registers (--backend multi reads it)" \
	--backend perf -f 'far(r:str)'
if [ "$(uname -m)" = x86_64 ]; then
	refused 2 "orbit-trace: $D:far: cannot record its first value: it is +8(%sp):u64 at the entry, and --backend inject records only the argument registers (rdi, rsi, rdx, rcx, r8, r9): use --backend multi" \
		--backend inject -f 'far(r:str)'
	refused 2 "orbit-trace: $D:seventh: cannot record its value 2: it is +8(%sp):s64 at the entry, and --backend inject records only the argument registers (rdi, rsi, rdx, rcx, r8, r9): use --backend multi" \
		--backend inject -f 'seventh(a,g)'
	refused 2 "orbit-trace: $D:handle: cannot record its first value: it is +8(%di):s64 at the entry, and --backend inject records only the argument registers (rdi, rsi, rdx, rcx, r8, r9): use --backend multi" \
		--backend inject -f 'handle(req->len)'
fi

# A program nobody here wrote: gzip -d's reads through libc, by name
# (libc6-dbg's DWARF: __libc_read's fd and nbytes, its ssize_t return) and
# by register (read(arg1,arg3), two values of one call), on identical
# runs: the same values.
libc="$(ldd "$(command -v gzip)" | awk '/libc\.so\.6/ { print $3 }')"
perf probe -x "$libc" -V read 2>/dev/null | grep -q 'size_t[[:space:]]*nbytes' ||
	skip_ "no DWARF for $libc's read (apt-get install libc6-dbg)"
# libc's read is __libc_read in its DWARF: perf probe -D places fd and
# nbytes where -v says they are.
{
	"$OT" -v -f "libc.so.6:read(fd,nbytes)" -o /dev/null -- gzip -dc /dev/null >/dev/null 2>"$work/v.err" ||
		fail_ "libc -v: $(cat "$work/v.err")"
	perf probe -x "$libc" -D '__libc_read fd nbytes' >"$work/perf.out" 2>"$work/perf.err" ||
		fail_ "perf probe -D __libc_read: $(cat "$work/perf.err")"
	python3 - "$work/v.err" "$work/perf.out" <<'PY' || fail_ "libc read: ours $(grep DWARF "$work/v.err"), perf's $(cat "$work/perf.out")"
import re, sys
ours = dict(re.findall(r":read: (\S+) is (\S+) \(DWARF", open(sys.argv[1]).read()))
perf = dict(p.split("=", 1) for p in open(sys.argv[2]).read().split()[2:])
assert ours == {k: v.replace(":x", ":u") for k, v in perf.items()}, (ours, perf)
PY
}
python3 -c "
import random
r = random.Random(5)
with open('$work/in.txt', 'w') as f:
    for i in range(200000): f.write(' '.join(r.choice(['dwarf', 'name', 'read', '%d' % i]) for _ in range(9)) + '\n')
"
gzip -f "$work/in.txt"
for how in 'read(fd,nbytes)%ret' 'read(arg1,arg3)%ret'; do
	"$OT" -q --json -o "$work/gzip-${how%%(*}-${how#*(}.json" -f "libc.so.6:$how" \
		-- gzip -dc "$work/in.txt.gz" >/dev/null 2>"$work/err" ||
		fail_ "gzip $how: exit status $?: $(cat "$work/err")"
done
python3 - "$work/gzip-read-fd,nbytes)%ret.json" "$work/gzip-read-arg1,arg3)%ret.json" <<'PY' ||
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
va, vb = a["functions"][0]["values"], b["functions"][0]["values"]
assert [x["what"] for x in va] == ["fd", "nbytes", "ret"], va
assert [x["what"] for x in vb] == ["arg1", "arg3", "ret"], vb
for x, y in zip(va, vb):
    for k in ("count", "min", "max", "log2"):
        assert x[k] == y[k], (x["what"], k, x[k], y[k])
assert va[1]["count"] > 4, va[1]
PY
	fail_ "gzip: by name and by register differ"
pass_
