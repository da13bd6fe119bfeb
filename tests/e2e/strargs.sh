# Functions' arguments read as strings (-f 'NAME(argN:str)', issue 22,
# item 5) on a program nobody here wrote, with the defaults, on every
# backend: python3.11 (Debian's, not a pyenv shim) running a fixed script.
# - -- CMD: PySys_GetObject(name) and PyImport_ImportModule(name), whose
#   names are literals in python3.11's own .rodata (readable whenever read:
#   perf and inject read them afterwards, from the process or, once it is
#   gone, its file), counted per string on multi, perf and inject, each
#   equal to bpftrace 0.17's uprobe:... /pid == cpid/ { @[str(arg0)] =
#   count(); } on an identical run (without the filter, bpftrace counts every
#   python3.11 on the machine) (bpftrace's arg0 is our arg1): the most frequent strings
#   and their counts, how many distinct, how many calls.
# - -p, waiting for the script's own "ready" line: PyObject_GetAttrString's
#   name (arg2), some of them literals of extension modules the script
#   loads after arming (_json): on multi, perf and inject the same strings
#   and counts, the capture ended while python still runs (perf and inject
#   read each string afterwards from its memory), none unreadable; multi's
#   equal to bpftrace's on the same script run by -c.
. "$(dirname "$0")/lib.sh"
require_uprobes
PY=/usr/bin/python3.11
[ -x $PY ] || skip_ "no $PY (apt-get install python3.11)"
command -v bpftrace >/dev/null || skip_ "bpftrace is not installed (make deps installs it)"
bes="multi perf"
[ "$(uname -m)" = x86_64 ] && bes="$bes inject"

cat >"$work/work.py" <<'EOF'
import sys
if len(sys.argv) > 1:
    print("ready", flush=True)
    sys.stdin.readline()
import json, collections, re
for i in range(50):
    json.dumps({"a": i, "b": [1, 2, 3]})
    json.loads('{"x": [%d, 2.5, null, true]}' % i)
    re.compile("x%d" % (i % 7))
    collections.OrderedDict(a=i)
if len(sys.argv) > 1:
    print("done", flush=True)
    sys.stdin.readline()
EOF

# same OURS.json BPFTRACE.txt MAP=FUNCTION...: each function's strings in
# our report equal bpftrace's map: the top ones and their counts (ties at
# the last count shown may be any of bpftrace's), distinct, calls.
same() {
	python3 - "$@" <<'PY' || fail_ "$1 against bpftrace: $(cat "$2")"
import json, re, sys
rep, bt = json.load(open(sys.argv[1])), {}
for m in re.finditer(r"^@(\w+)\[(.*)\]: (\d+)$", open(sys.argv[2]).read(), re.M):
    bt.setdefault(m.group(1), {})[m.group(2)] = int(m.group(3))
f = {x["name"]: x for x in rep["functions"]}
assert rep["status"] == "ok" and rep["strings"]["unreadable"] == 0, (rep["status"], rep["reasons"])
for spec in sys.argv[3:]:
    key, fn = spec.split("=")
    want, s = bt[key], f[fn]["strings"]
    assert "" not in want, (fn, "bpftrace read an empty string")
    top = [(t["value"], t["count"]) for t in s["top"]]
    assert all(want.get(v) == n for v, n in top), (fn, top, want)
    assert [n for _, n in top] == sorted(want.values(), reverse=True)[:len(top)], (fn, top, want)
    assert len(top) == min(10, len(want)) and s["distinct"] == len(want), (fn, s, want)
    assert f[fn]["scopes"] == sum(want.values()), (fn, f[fn]["scopes"], sum(want.values()))
    print("%s: %d calls, %d distinct, top %s" % (fn, f[fn]["scopes"], s["distinct"], top[:3]))
PY
}

bpftrace -q -o "$work/bt.txt" -e "
uprobe:$PY:PySys_GetObject /pid == cpid/ { @sys[str(arg0)] = count(); }
uprobe:$PY:PyImport_ImportModule /pid == cpid/ { @imp[str(arg0)] = count(); }" \
	-c "$PY -I $work/work.py" >/dev/null 2>"$work/bt.err" || fail_ "bpftrace: $(cat "$work/bt.err")"
for be in $bes; do
	# PySys_GetObject may leave by a tail call to another library: perf,
	# whose return probes cannot be guarded, gives it one only when asked
	# (python3.11 switches no stacks).
	ret=
	[ $be != perf ] || ret="--returns uretprobe"
	"$OT" -q --json -o "$work/cmd-$be.json" --backend $be $ret \
		-f 'PySys_GetObject(arg1:str),PyImport_ImportModule(arg1:str)' \
		-- $PY -I "$work/work.py" >/dev/null 2>"$work/err" ||
		fail_ "$be: exit status $?: $(cat "$work/err")"
	same "$work/cmd-$be.json" "$work/bt.txt" sys=PySys_GetObject imp=PyImport_ImportModule
done

# -p: armed on python waiting at its "ready" line; the capture ends while
# it waits after its "done" line.  bpftrace runs the same script by -c and
# counts between the same two lines: from python's first read of its
# standard input (the "ready" line's wait) to its second (the "done" line's).
libc="$(ldd $PY | awk '/libc\.so\.6/ { print $3 }')"
rm -f "$work/btin"
mkfifo "$work/btin"
bpftrace -q -o "$work/bt-attr.txt" -e "
uprobe:$libc:read /pid == cpid && arg0 == 0/ { @reads++; }
uprobe:$PY:PyObject_GetAttrString /pid == cpid && @reads == 1/ { @attr[str(arg1)] = count(); }" \
	-c "$PY -I $work/work.py wait" <"$work/btin" >"$work/bt-py.out" 2>"$work/bt.err" &
btpid=$!
cleanup_pids="$cleanup_pids $btpid"
exec 3>"$work/btin"
wait_for "$work/bt-py.out" '^ready$'
echo go >&3
wait_for "$work/bt-py.out" '^done$'
echo bye >&3
exec 3>&-
wait $btpid || fail_ "bpftrace -p's script: exit status $?: $(cat "$work/bt.err")"
for be in $bes; do
	rm -f "$work/in" "$work/py.out"	# no "ready", "done" of the last backend's
	mkfifo "$work/in"
	$PY -I "$work/work.py" wait <"$work/in" >"$work/py.out" &
	pypid=$!
	cleanup_pids="$cleanup_pids $pypid"
	exec 3>"$work/in"
	wait_for "$work/py.out" '^ready$'
	# Its own file per backend: the previous one's "armed" line must not
	# pass for this one's before its shell has truncated it.
	ret=
	[ $be != perf ] || ret="--returns uretprobe"	# as above
	"$OT" -v --json --backend $be $ret -o "$work/p-$be.json" -f 'PyObject_GetAttrString(arg2:str)' \
		-p $pypid >/dev/null 2>"$work/p-$be.err" &
	otpid=$!
	cleanup_pids="$cleanup_pids $otpid"
	wait_for "$work/p-$be.err" 'armed 1 functions'
	echo go >&3
	wait_for "$work/py.out" '^done$'
	kill -INT $otpid
	wait $otpid || fail_ "-p $be: orbit-trace exit status $?: $(cat "$work/p-$be.err")"
	echo bye >&3
	exec 3>&-
	wait $pypid || fail_ "-p $be: python exit status $?"
	same "$work/p-$be.json" "$work/bt-attr.txt" attr=PyObject_GetAttrString
done
# The extension module's own strings are among them (_json, from
# lib-dynload: loaded after arming; perf and inject read them afterwards
# from the process).
for be in $bes; do
	json_check "$work/p-$be.json" \
		'all({"value": v, "count": 1} in fn["PyObject_GetAttrString"]["strings"]["top"] for v in ("strict", "parse_float", "object_hook"))'
done
pass_
