# USDT probes (-f 'usdt:FILE:PROVIDER:NAME(argN)'): counted points with
# their arguments, on the uprobe backends and inject.  Checked on facts that do not
# depend on timing: tests/e2e/targets/usdt, whose probes fire a known
# number of times with known values (every operand form gcc emits, a
# probe at three sites, semaphores, a probe in its own library), under
# -- CMD and -p; its semaphore raised while armed and lowered after, as
# the program itself reads it; -l against readelf -n's notes, without
# root; libstdc++'s throw and catch against the program's own counts; the
# refusals in one line.
. "$(dirname "$0")/lib.sh"
require_uprobes
T="$top/build/targets"
[ -x "$T/usdt" ] && [ -x "$T/throw" ] || skip_ "make targets first"
N=300
SITE=$((N / 2 * 3))	# i even: two sites, i odd: one

# The program's own counts, and its semaphore down when nobody traces it.
[ "$("$T/usdt" $N)" = "tick semaphore 0
tick $N site $SITE forms $N work $N" ] || fail_ "untraced: $("$T/usdt" $N)"

# check_values JSON NAME ARG PYTHON-LIST: the argument's count, extremes
# and median equal those of the values the program passed.
check_values() {
	python3 - "$@" <<'PY' || fail_ "$1: $2 $3: $(head -c 3000 "$1")"
import json, math, sys
rep = json.load(open(sys.argv[1]))
f = {x["name"]: x for x in rep["functions"]}[sys.argv[2]]
xs = sorted(eval(sys.argv[4]))
v = f["arg"]
assert rep["status"] == "ok", rep["status"]
assert f["point"] and f["hits"] == len(xs), f
assert v["what"] == sys.argv[3], v
assert (v["count"], v["min"], v["max"]) == (len(xs), xs[0], xs[-1]), (v, xs[0], xs[-1])
assert v["p50"] == xs[math.ceil(0.5 * len(xs)) - 1], v
PY
}

for b in multi perf inject; do
	# Every probe, counted; the semaphore up for the whole run.
	"$OT" -q --backend $b --json -o "$work/$b.json" \
		-f "usdt:usdt:ot:tick(arg1),usdt:$T/usdt:ot:site,usdt:usdt:ot:forms(arg2),usdt:libusdtlib.so:otlib:work(arg1)" \
		-- "$T/usdt" $N >"$work/$b.out" 2>"$work/err" || fail_ "$b: exit status $?: $(cat "$work/err")"
	[ "$(cat "$work/$b.out")" = "tick semaphore 1
tick $N site $SITE forms $N work $N" ] || fail_ "$b: the target printed $(cat "$work/$b.out")"
	json_check "$work/$b.json" 'j["status"] == "ok"' \
		"[(f['name'], f['hits'], f['scopes']) for f in j['functions']] == [('usdt:ot:tick', $N, 0), ('usdt:ot:site', $SITE, 0), ('usdt:ot:forms', $N, 0), ('usdt:libusdtlib.so:otlib:work', $N, 0)]"
	check_values "$work/$b.json" usdt:ot:tick arg1 "range($N)"
	check_values "$work/$b.json" usdt:ot:forms arg2 "[-(i % 10) for i in range($N)]"
	check_values "$work/$b.json" usdt:libusdtlib.so:otlib:work arg1 "[i % 3 for i in range($N)]"
done

# Prometheus: a probe's hits in their own family, its argument's values
# in the value family, equal to the report's.
"$OT" -q --json -o "$work/prom.json" --prom-textfile "$work/usdt.prom" -f 'usdt:usdt:ot:tick(arg1)' \
	-- "$T/usdt" $N >/dev/null 2>"$work/err" || fail_ "prom: exit status $?: $(cat "$work/err")"
grep -qx "orbit_trace_probe_hits_total{probe=\"usdt:ot:tick\",file=\"$T/usdt\"} $N" "$work/usdt.prom" &&
	grep -qx "orbit_trace_call_value_count{probe=\"usdt:ot:tick\",file=\"$T/usdt\",value=\"arg1\"} $N" "$work/usdt.prom" &&
	! grep -q '^orbit_trace_calls_total' "$work/usdt.prom" ||
	fail_ "prom: $(grep -v bucket "$work/usdt.prom" | head -20)"

# Globs, a probe named twice (armed once, with the argument either asks),
# and !usdt: excluding after the inclusions.
"$OT" -q --json -o "$work/globs.json" -f "usdt:usdt:ot:*,usdt:usdt:ot:tick(arg1),!usdt:usdt:*:for*" \
	-- "$T/usdt" $N >/dev/null 2>"$work/err" || fail_ "globs: exit status $?: $(cat "$work/err")"
json_check "$work/globs.json" \
	"[(f['name'], f['hits']) for f in j['functions']] == [('usdt:ot:site', $SITE), ('usdt:ot:tick', $N)]"
check_values "$work/globs.json" usdt:ot:tick arg1 "range($N)"

# --expect judges a probe's hits: exact passes, 10 short fails (status 3).
"$OT" -q --expect "usdt:ot:tick=$N,usdt:ot:site=$SITE" -o "$work/expect.txt" \
	-f "usdt:usdt:ot:tick,usdt:usdt:ot:site" -- "$T/usdt" $N >/dev/null 2>"$work/err" ||
	fail_ "--expect: exit status $?: $(cat "$work/err")"
# A capture of probes alone speaks of probes, not functions (issue 34).
grep -Eq '^armed 2 of 2 USDT probes in .*\): [0-9]+ uprobes, ' "$work/expect.txt" ||
	fail_ "probes called functions: $(grep '^armed' "$work/expect.txt")"
grep -Eq '^disarmed 2 USDT probes in ' "$work/expect.txt" ||
	fail_ "disarmed: $(grep '^disarmed' "$work/expect.txt")"
expect_rc 3 "$work/stdout" "$work/stderr" "$OT" -q --expect "usdt:ot:tick=$((N + 10))" -o "$work/expect.txt" \
	-f "usdt:usdt:ot:tick" -- "$T/usdt" $N
grep -qx "orbit-trace: check failed: usdt:ot:tick: 10 of $((N + 10)) expected hits missing (3.226% > 1%)" \
	"$work/stderr" || fail_ "--expect short: $(cat "$work/stderr")"

# Every operand form on multi (its BPF program reads them) and inject (its
# trampoline's code does): -4@$5, -4@%eax, -4@-4(%rsp), -8@(%rdx,%rcx,8),
# -8@level(%rip), -1@%sil.
for b in multi inject; do
	k=0
	for vals in "[5] * $N" "[-(i % 10) for i in range($N)]" "[i % 50 for i in range($N)]" \
		"[10 * (i % 4) for i in range($N)]" "[42] * $N" "[-3] * $N"; do
		k=$((k + 1))
		"$OT" -q --backend $b --json -o "$work/form$k.json" -f "usdt:usdt:ot:forms(arg$k)" \
			-- "$T/usdt" $N >/dev/null 2>"$work/err" ||
			fail_ "$b arg$k: exit status $?: $(cat "$work/err")"
		check_values "$work/form$k.json" usdt:ot:forms "arg$k" "$vals"
	done
done
# The perf backend reads registers: -1@%sil is one, -4@-4(%rsp) is not.
"$OT" -q --backend perf --json -o "$work/perf6.json" -f "usdt:usdt:ot:forms(arg6)" -- "$T/usdt" $N \
	>/dev/null 2>"$work/err" || fail_ "perf arg6: exit status $?: $(cat "$work/err")"
check_values "$work/perf6.json" usdt:ot:forms arg6 "[-3] * $N"
expect_rc 2 "$work/stdout" "$work/stderr" "$OT" --backend perf -f "usdt:$T/usdt:ot:forms(arg3)" -- "$T/usdt" 1
off=$(python3 -c "
import json, sys
print(hex(json.load(open('$work/form3.json'))['functions'][0]['offset']))")
grep -qx "orbit-trace: usdt:$T/usdt:ot:forms: arg3 at +$off is in memory: the perf backend reads only registers (--backend multi reads every operand)" \
	"$work/stderr" || fail_ "perf memory operand: $(cat "$work/stderr")"

# -p: the running program (its library loaded already), armed before it
# goes on; its semaphore up while armed and down once orbit-trace is gone.
for b in multi perf inject; do
	rm -f "$work/in"
	mkfifo "$work/in"
	"$T/usdt" $N wait <"$work/in" >"$work/p$b.out" &
	tpid=$!
	cleanup_pids="$tpid"
	exec 3>"$work/in"
	wait_for "$work/p$b.out" '^ready '
	"$OT" -v --backend $b --json -o "$work/p$b.json" -p "$tpid" \
		-f "usdt:$T/usdt:ot:tick(arg1),usdt:libusdtlib.so:otlib:work,usdt:usdt:ot:site" \
		2>"$work/p$b.err" &
	otpid=$!
	cleanup_pids="$tpid $otpid"
	wait_for "$work/p$b.err" 'armed 3 functions'
	echo go >&3
	wait_for "$work/p$b.out" '^tick [0-9]* site'
	kill -INT "$otpid"
	wait "$otpid" || fail_ "-p $b: exit status $?: $(cat "$work/p$b.err")"
	echo done >&3
	exec 3>&-
	wait "$tpid" || fail_ "-p $b: the target's exit status $?"
	[ "$(sed 1d "$work/p$b.out")" = "tick semaphore 1
tick $N site $SITE forms $N work $N
tick semaphore 0" ] || fail_ "-p $b: the target printed $(cat "$work/p$b.out")"
	json_check "$work/p$b.json" 'j["status"] == "ok"' \
		"[(f['name'], f['hits']) for f in j['functions']] == [('usdt:ot:tick', $N), ('usdt:libusdtlib.so:otlib:work', $N), ('usdt:ot:site', $SITE)]"
	check_values "$work/p$b.json" usdt:ot:tick arg1 "range($N)"
done
cleanup_pids=""

# libstdc++'s probes: every throw and catch of a program that throws N
# times and catches each (bpftrace 0.17 counts the same: see NEWS).  Under
# inject, rethrow's site in Debian 12's libstdc++ cannot be patched (a
# branch lands next to its nop), so it is not asked there.
for b in multi perf inject; do
	probes='usdt:libstdc++.so.6:libstdcxx:throw,usdt:libstdc++.so.6:libstdcxx:catch'
	want='[500, 500]'
	[ $b = inject ] || probes="$probes,usdt:libstdc++.so.6:libstdcxx:rethrow" want='[500, 500, 0]'
	"$OT" -q --backend $b --json -o "$work/throw-$b.json" -f "$probes" \
		-- "$T/throw" 500 >"$work/throw.out" 2>"$work/err" || fail_ "throw $b: $(cat "$work/err")"
	grep -q '"h": 500, "leaf": 500, "caught": 500' "$work/throw.out" || fail_ "throw $b: $(cat "$work/throw.out")"
	json_check "$work/throw-$b.json" 'j["status"] == "ok"' \
		"[f['hits'] for f in j['functions']] == $want"
done

# A program nobody here wrote: python3.11's gc__start (a semaphore; its
# generation in memory, -4@112(%rsp)) and gc__done, against bpftrace's
# counts per value in an identical run; at least the collections the
# script asks for (50 of generation 2, 7 of generation 1).
PY=/usr/bin/python3.11
[ -x $PY ] || skip_ "no $PY (make deps installs python3)"
command -v bpftrace >/dev/null || skip_ "bpftrace is not installed (make deps installs it)"
{
	printf 'import gc\ngc.disable()\nfor _ in range(50): gc.collect()\nfor _ in range(7): gc.collect(1)\n' \
		>"$work/gc.py"
	for b in multi perf inject; do
		arg='(arg1)'; [ $b = perf ] && arg=
		"$OT" -q --backend $b --json -o "$work/py-$b.json" \
			-f "usdt:$PY:python:gc__start$arg,usdt:$PY:python:gc__done" -- $PY "$work/gc.py" \
			2>"$work/err" || fail_ "python $b: exit status $?: $(cat "$work/err")"
	done
	bpftrace -q -o "$work/bt.txt" -e "usdt:$PY:python:gc__start { @start[arg0] = count(); }
usdt:$PY:python:gc__done { @done = count(); }" -c "$PY $work/gc.py" >/dev/null 2>"$work/bt.err" ||
		fail_ "bpftrace: $(cat "$work/bt.err")"
	python3 - "$work/py-multi.json" "$work/py-perf.json" "$work/py-inject.json" "$work/bt.txt" <<'PY' || fail_ "python against bpftrace: $(cat "$work/bt.txt")"
import json, re, sys
bt = open(sys.argv[4]).read()
start = {int(k): int(v) for k, v in re.findall(r"^@start\[(\d+)\]: (\d+)$", bt, re.M)}
done = int(re.search(r"^@done: (\d+)$", bt, re.M).group(1))
assert start.get(2, 0) >= 50 and start.get(1, 0) >= 7, start
for path in sys.argv[1:4]:
    rep = json.load(open(path))
    f = {x["name"]: x for x in rep["functions"]}
    assert rep["status"] == "ok", rep["status"]
    assert f["usdt:python:gc__start"]["hits"] == sum(start.values()), (path, f, start)
    assert f["usdt:python:gc__done"]["hits"] == done, (path, f, done)
for path in (sys.argv[1], sys.argv[3]):
    v = {x["name"]: x for x in json.load(open(path))["functions"]}["usdt:python:gc__start"]["arg"]
    assert (v["min"], v["max"]) == (min(start), max(start)), (path, v, start)
    assert [b["count"] for b in v["log2"]] == [start[k] for k in sorted(start)], (path, v, start)
PY
}

# -l: what readelf -n says of the notes, without root and without a target.
pusdt=$(public "$T/usdt" "$T/libusdtlib.so") ot_nobody=$(public "$OT")
setpriv --reuid=65534 --regid=65534 --clear-groups "$ot_nobody" -l -f "usdt:$pusdt:ot:*" \
	>"$work/list.txt" 2>"$work/err" || fail_ "-l as nobody: exit status $?: $(cat "$work/err")"
readelf -n "$T/usdt" >"$work/notes.txt"
python3 - "$work/list.txt" "$work/notes.txt" "$pusdt" <<'PY' || fail_ "-l: $(cat "$work/list.txt")"
import re, sys
lst, notes, path = open(sys.argv[1]).read(), open(sys.argv[2]).read(), sys.argv[3]
want = {}
for m in re.finditer(r"Provider: (\S+)\s+Name: (\S+)\s+Location: (0x[0-9a-f]+), Base: \S+, "
                     r"Semaphore: (0x[0-9a-f]+)\s+Arguments: ([^\n]*)", notes):
    p = want.setdefault(m.group(1) + ":" + m.group(2), [int(m.group(4), 16), []])
    p[1].append((int(m.group(3), 16), m.group(5).strip()))
got, cur = {}, None
lines = lst.splitlines()
assert lines[0] == "# %s: 3 USDT probes" % path, lines[0]
for line in lines[2:]:
    m = re.match(r"^(\S+) +(\d+)  (?:0x([0-9a-f]+) \(file offset 0x[0-9a-f]+\)|-)$", line)
    if m:
        cur = got.setdefault(m.group(1), [int(m.group(3) or "0", 16), []])
        continue
    m = re.match(r"^    at 0x([0-9a-f]+) \(file offset 0x[0-9a-f]+\): (.*)$", line)
    assert m and cur is not None, line
    cur[1].append((int(m.group(1), 16), m.group(2)))
assert got == want, (got, want)
PY

# One line for what cannot be: a probe that is not there, an argument the
# note does not declare, the backend without uprobes.
expect_rc 2 "$work/stdout" "$work/stderr" "$OT" -f "usdt:$T/usdt:ot:tock" -- "$T/usdt" 1
grep -qx "orbit-trace: usdt:$T/usdt:ot:tock: no such probe in $T/usdt (probes: ot:site, ot:forms, ot:tick)" \
	"$work/stderr" || fail_ "no such probe: $(cat "$work/stderr")"
expect_rc 2 "$work/stdout" "$work/stderr" "$OT" -f "usdt:$T/usdt:ot:tick(arg2)" -- "$T/usdt" 1
grep -qx "orbit-trace: usdt:$T/usdt:ot:tick(arg2): ot:tick has 1 argument (-8@%rbx): no arg2" \
	"$work/stderr" || fail_ "arg2: $(cat "$work/stderr")"

# A site inject must not patch, and says why: in Debian 12's python3.11,
# four bytes of a string in .data read as an address inside the bytes
# line's patch would cover (lib/symbols/coderefs), and a branch lands
# among those before it.  The probe is not armed, the status says so,
# and the program runs as untraced.
if [ "$(uname -m)" = x86_64 ] && [ -x /usr/bin/python3.11 ]; then
	"$OT" --backend inject --json -o "$work/line.json" \
		-f 'usdt:/usr/bin/python3.11:python:line,usdt:/usr/bin/python3.11:python:gc__done' \
		-- /usr/bin/python3.11 -c 'import gc; gc.collect(); print("done")' \
		>"$work/line.out" 2>"$work/line.err" || fail_ "line: exit status $?: $(cat "$work/line.err")"
	[ "$(cat "$work/line.out")" = done ] || fail_ "line: the program printed $(cat "$work/line.out")"
	grep -qx "orbit-trace: warning: not tracing usdt:/usr/bin/python3.11:python:line: a patch after the site: an 8-byte code pointer at 0x9c6930 (.data) lands at 0x434241, inside the patched bytes; before it: a branch of the function lands inside the patched bytes" \
		"$work/line.err" || fail_ "line: $(cat "$work/line.err")"
	json_check "$work/line.json" 'j["status"] != "ok"' 'fn["usdt:python:gc__done"]["hits"] >= 1'
fi

# inject keeps the semaphore in the process's memory: an orbit-trace
# killed with SIGKILL leaves it raised (and the sites patched), and
# --restore lowers it with the rest.
if [ "$(uname -m)" = x86_64 ]; then
	rm -f "$work/in"
	mkfifo "$work/in"
	"$T/usdt" $N wait <"$work/in" >"$work/k.out" &
	tpid=$!
	cleanup_pids="$tpid"
	exec 3>"$work/in"
	wait_for "$work/k.out" '^ready '
	"$OT" -v --backend inject -p "$tpid" -f "usdt:$T/usdt:ot:tick(arg1)" 2>"$work/k.err" >/dev/null &
	otpid=$!
	cleanup_pids="$tpid $otpid"
	wait_for "$work/k.err" 'armed 1 functions'
	kill -KILL "$otpid"
	wait "$otpid" 2>/dev/null || true
	expect_rc 0 "$work/r.out" "$work/r.err" "$OT" --restore -p "$tpid"
	grep -qx "semaphores: 1 of 1 USDT semaphore lowered" "$work/r.out" ||
		fail_ "--restore: $(cat "$work/r.out" "$work/r.err")"
	echo go >&3
	wait_for "$work/k.out" '^tick [0-9]* site'
	echo done >&3
	exec 3>&-
	wait "$tpid" || fail_ "after --restore: the target's exit status $?"
	[ "$(sed 1d "$work/k.out")" = "tick semaphore 0
tick $N site $SITE forms $N work $N
tick semaphore 0" ] || fail_ "after --restore: the target printed $(cat "$work/k.out")"
	cleanup_pids=""
fi
pass_
