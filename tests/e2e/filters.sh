# --tid and --comm keep a capture to one thread, or to the processes of
# one name (issue 34): the stress program's two workers, one kept by its
# thread id (its 200 calls of outer, no more); two python3.11 processes
# traced as -p A,B, one renamed, --comm keeping its rows alone; the
# records dropped counted in the report; a master whose worker made the
# calls, told so.
. "$(dirname "$0")/lib.sh"
require_uprobes

"$STRESS" --stress-threads 2 --stress-hz 1000 --stress-calls 200 --wait-go >"$work/s.out" &
spid=$!
cleanup_pids=$spid
wait_for "$work/s.out" '^ready '
tids=$(ls "/proc/$spid/task" | sort -n)
[ "$(echo "$tids" | wc -l)" = 3 ] || fail_ "threads: $tids"
worker=$(echo "$tids" | sed -n 2p)
"$OT" -v --json -o "$work/tid.json" -p "$spid" --tid "$worker" -f outer,middle 2>"$work/tid.err" &
ot=$!
cleanup_pids="$spid $ot"
wait_for "$work/tid.err" 'armed 2 functions'
kill -USR1 "$spid"
wait "$ot" || fail_ "--tid: exit status $?: $(cat "$work/tid.err")"
json_check "$work/tid.json" 'j["status"] == "ok"' \
	'fn["outer"]["scopes"] == 200 and fn["middle"]["scopes"] == 400' \
	'j["filter"] == {"by": "--tid '"$worker"'", "records_dropped": 1200}'

cat >"$work/py.py" <<'PY'
import ctypes, os, sys
if sys.argv[1] != "-":
    ctypes.CDLL(None).prctl(15, sys.argv[1].encode(), 0, 0, 0)   # PR_SET_NAME
print("ready", os.getpid(), flush=True)
sys.stdin.readline()
for _ in range(1000):
    os.getpid()
PY
rm -f "$work/in1" "$work/in2"
mkfifo "$work/in1" "$work/in2"
/usr/bin/python3.11 "$work/py.py" renamedpy <"$work/in1" >"$work/p1.out" &
p1=$!
/usr/bin/python3.11 "$work/py.py" - <"$work/in2" >"$work/p2.out" &
p2=$!
cleanup_pids="$p1 $p2"
exec 3>"$work/in1" 4>"$work/in2"
wait_for "$work/p1.out" '^ready '
wait_for "$work/p2.out" '^ready '
# Both exit right after their calls, before the first drain (--drain-ms
# 100) more often than not: --comm still knows them by the names they had
# when the capture began (the previous binary dropped every call in 2 of 3
# such runs, status ok).
"$OT" -v --json -o "$work/comm.json" --drain-ms 100 -p "$p1,$p2" --comm renamedpy -f 'libc.so.6:getpid' \
	2>"$work/comm.err" &
ot=$!
cleanup_pids="$p1 $p2 $ot"
wait_for "$work/comm.err" 'armed 1 functions'
echo go >&3
echo go >&4
exec 3>&- 4>&-
wait "$ot" || fail_ "--comm: exit status $?: $(cat "$work/comm.err")"
json_check "$work/comm.json" 'j["status"] == "ok"' \
	"[(p['pid'], p['comm']) for p in j['processes']] == [($p1, 'renamedpy')]" \
	'j["processes"][0]["scopes"] >= 1000' \
	'j["filter"]["by"] == "--comm renamedpy" and j["filter"]["records_dropped"] >= 2000'

# A master that made none of the calls, its worker did (issue 34): the
# report's note names the worker and the -p that traces both.
"$top/build/targets/prefork" 100 >"$work/pf.out" &
pf=$!
cleanup_pids="$pf"
wait_for "$work/pf.out" '^ready '
kill -USR1 "$pf"
wait_for "$work/pf.out" '^worker [0-9]*$'
wk=$(sed -n 's/^worker \([0-9]*\)$/\1/p' "$work/pf.out")
"$OT" -v -p "$pf" -f handle -o "$work/pf.txt" 2>"$work/pfo.err" &
ot=$!
cleanup_pids="$pf $ot"
wait_for "$work/pfo.err" 'armed 1 functions'
kill -USR1 "$wk"
wait_for "$work/pf.out" "^worker $wk calls 100"
kill -INT "$ot"
wait "$ot" || fail_ "master: exit status $?: $(cat "$work/pfo.err")"
grep -qxF "note: process $pf made none of the traced calls; its child processes ($wk) may make them: -p $pf,$wk traces them too (a service's master and workers), --follow a command's children" \
	"$work/pf.txt" || fail_ "no hint of the workers: $(cat "$work/pf.txt")"
grep -qx 'status: ok' "$work/pf.txt" || fail_ "master: $(grep status "$work/pf.txt")"
kill "$pf"
# --follow --comm: forks' twenty children call leaf() and exit, most of
# them before a drain reads their records (/proc has no name for them
# then): the kernel's table of followed processes names them, so their
# calls are kept - the previous binary dropped all 40 records as another
# process's, 0 scopes, status ok.  A name no child has keeps none.
F="$top/build/targets/forks"
"$OT" -q --json -o "$work/fol.json" --follow --comm forks --drain-ms 100 -f leaf -- "$F" 20 \
	>/dev/null 2>"$work/fol.err" || fail_ "--follow --comm: exit status $?: $(cat "$work/fol.err")"
json_check "$work/fol.json" 'j["status"] == "ok"' \
	'[f["scopes"] for f in j["functions"]] == [20]' 'j["filter"]["records_dropped"] == 0'
"$OT" -q --json -o "$work/fol2.json" --follow --comm nosuchname --drain-ms 100 -f leaf -- "$F" 20 \
	>/dev/null 2>"$work/fol2.err" || fail_ "--follow --comm other: exit status $?: $(cat "$work/fol2.err")"
json_check "$work/fol2.json" 'j["status"] == "ok"' \
	'[f["scopes"] for f in j["functions"]] == [0]' 'j["filter"]["records_dropped"] == 40'

expect_rc 2 /dev/null "$work/bad.err" "$OT" -p "$p1" --comm 0123456789abcdef -f x
grep -qxF "orbit-trace: --comm '0123456789abcdef' is invalid: expected a process name of 1 to 15 bytes, as ps -o comm shows it" \
	"$work/bad.err" || fail_ "--comm too long: $(cat "$work/bad.err")"
pass_
