# A service's processes: -p PID,PID... (as perf takes it) and -p repeated,
# a row and a metrics series per process, each row the calls that process
# made by its own count, the capture over when the last has exited; a
# python3.11 master and the two workers it forked, against bpftrace's
# counts of the same uprobe in the same processes; --cgroup keeping -a to
# a transient cgroup v2 directory (one process inside, one outside, whose
# calls must be absent); and the refusals, word for word.
. "$(dirname "$0")/lib.sh"
require_uprobes

# stress N THREADS CALLS: a stress program waiting for SIGUSR1, its pid in sN.
stress() {
	rm -f "$work/s$1.out"
	: >"$work/s$1.out"
	"$STRESS" --stress-threads "$2" --stress-hz 1000 --stress-calls "$3" --wait-go >"$work/s$1.out" &
	cleanup_pids="$cleanup_pids $!"
	wait_for "$work/s$1.out" '^ready '
	eval "s$1=\$(sed -n 's/^ready //p' \"\$work/s$1.out\")"
}
# own N FUNCTION: what stress program N counted of FUNCTION.
own() {
	python3 -c 'import json, sys; print(json.loads(open(sys.argv[1]).readlines()[-1])["expected"][sys.argv[2]])' \
		"$work/s$1.out" "$2"
}

# -p A,B, and the same as -p A -p B: each process its own row, exact.
for form in list repeated; do
	cleanup_pids=""
	stress 1 1 300
	stress 2 2 100
	if [ $form = list ]; then pids="-p $s1,$s2"; else pids="-p $s1 -p $s2"; fi
	# shellcheck disable=SC2086
	"$OT" -v --json -o "$work/$form.json" --prom-textfile "$work/$form.prom" $pids \
		-f outer,middle 2>"$work/$form.err" &
	ot=$!
	cleanup_pids="$cleanup_pids $ot"
	wait_for "$work/$form.err" 'armed 2 functions'
	kill -USR1 "$s1" "$s2"
	wait "$ot" || fail_ "$form: exit status $?: $(cat "$work/$form.err")"
	json_check "$work/$form.json" 'j["status"] == "ok" and j["capture"]["ended_by"] == "target exit"' \
		"j['target']['pids'] == [$s1, $s2] and j['target']['pid'] == $s1" \
		"sorted((p['pid'], p['function'], p['scopes']) for p in j['processes']) == sorted([($s1, 'outer', $(own 1 outer)), ($s1, 'middle', $(own 1 middle)), ($s2, 'outer', $(own 2 outer)), ($s2, 'middle', $(own 2 middle))])" \
		'all(p["comm"] == "orbit-stress" for p in j["processes"])' \
		"fn['outer']['scopes'] == $(own 1 outer) + $(own 2 outer)"
	for s in "$s1 $(own 1 outer)" "$s2 $(own 2 outer)"; do
		set -- $s
		grep -q "^orbit_trace_calls_total{function=\"outer\",file=\"[^\"]*\",pid=\"$1\",comm=\"orbit-stress\"} $2\$" \
			"$work/$form.prom" || fail_ "$form: no series for pid $1: $(grep calls_total "$work/$form.prom")"
	done
done
# The text report's title names them all.
cleanup_pids=""
stress 1 1 50
stress 2 1 60
"$OT" -v -o "$work/title.txt" -p "$s1,$s2" -f outer 2>"$work/title.err" &
ot=$!
cleanup_pids="$cleanup_pids $ot"
wait_for "$work/title.err" "armed 1 functions"
kill -USR1 "$s1" "$s2"
wait "$ot" || fail_ "title: exit status $?: $(cat "$work/title.err")"
head -1 "$work/title.txt" | grep -qxF "orbit-trace report: $STRESS (pids $s1, $s2)" ||
	fail_ "title: $(head -1 "$work/title.txt")"

# A service nobody here wrote: a python3.11 master that forks two
# workers, each calling os.getpid() its own number of times once told
# to; traced as -p MASTER,WORKER,WORKER, against bpftrace's counts of
# libc's getpid in the same three processes.
command -v bpftrace >/dev/null || skip_ "bpftrace is not installed (make deps installs it)"
cat >"$work/svc.py" <<'PY'
import os, signal
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
kids, n = [], 1000
for k in (2, 3):
    pid = os.fork()
    if pid == 0:
        kids, n = [], 1000 * k
        break
    kids.append(pid)
os.write(1, b"ready %d\n" % os.getpid())
signal.sigwait({signal.SIGUSR1})
for _ in range(n):
    os.getpid()
for pid in kids:
    os.waitpid(pid, 0)
PY
libc="$(ldd /usr/bin/python3.11 | awk '/libc\.so\.6/ { print $3 }')"
/usr/bin/python3.11 "$work/svc.py" >"$work/svc.out" &
cleanup_pids="$!"
n=0
until [ "$(grep -c '^ready ' "$work/svc.out")" = 3 ]; do
	n=$((n + 1))
	[ $n -le 200 ] || fail_ "the python service did not start: $(cat "$work/svc.out")"
	sleep 0.1
done
svc=$(sed -n 's/^ready //p' "$work/svc.out" | sort -n | paste -sd, -)
cleanup_pids="$(echo "$svc" | tr , ' ')"
filter=$(echo "$svc" | sed 's/,/ || pid == /g; s/^/pid == /')
bpftrace -q -e "BEGIN { printf(\"ready\\n\"); }
uprobe:$libc:getpid /$filter/ { @[pid] = count(); }" >"$work/bt.txt" 2>"$work/bt.err" &
bt=$!
cleanup_pids="$cleanup_pids $bt"
wait_for "$work/bt.txt" ready 30
"$OT" -v --json -o "$work/svc.json" -p "$svc" -f 'libc.so.6:getpid' 2>"$work/svc.err" &
ot=$!
cleanup_pids="$cleanup_pids $ot"
wait_for "$work/svc.err" 'armed 1 functions'
kill -USR1 $(echo "$svc" | tr , ' ')
wait "$ot" || fail_ "python service: exit status $?: $(cat "$work/svc.err")"
kill -INT "$bt"
wait "$bt" || fail_ "bpftrace: $(cat "$work/bt.err")"
bt_counts=$(awk -F'[][]|: ' '/^@\[/ { printf "%s(%s, %s)", sep, $2, $4; sep = ", " }' "$work/bt.txt")
[ -n "$bt_counts" ] || fail_ "bpftrace counted nothing: $(cat "$work/bt.txt")"
json_check "$work/svc.json" 'j["status"] == "ok" and j["capture"]["ended_by"] == "target exit"' \
	"sorted((p['pid'], p['scopes']) for p in j['processes']) == sorted([$bt_counts])" \
	'sorted(p["scopes"] for p in j["processes"]) >= [1000, 2000, 3000] and len(j["processes"]) == 3' \
	'all(p["comm"].startswith("python3") for p in j["processes"])'

# --cgroup: a transient cgroup v2 directory with one stress program in it,
# another outside; -a on their file sees the one inside only.
cg2=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
[ -n "$cg2" ] || skip_ "no cgroup v2 file system mounted"
cg="$cg2/orbit-trace-test-$$"
mkdir "$cg" || skip_ "cannot make a cgroup under $cg2"
trap 'cleanup_; for p in $(cat "$cg/cgroup.procs" 2>/dev/null); do echo "$p" >"$cg2/cgroup.procs"; done; rmdir "$cg" 2>/dev/null' EXIT INT TERM
cleanup_pids=""
stress 1 1 300
stress 2 2 100
echo "$s1" >"$cg/cgroup.procs"
# Named by its path, then as perf names it, under the file system's mount.
for where in "$cg" "${cg#"$cg2"/}"; do
	"$OT" -v -a --cgroup "$where" --json -o "$work/cg.json" --prom-textfile "$work/cg.prom" \
		-f "$STRESS:outer,$STRESS:middle" 2>"$work/cg-${where%%/*}.err" &
	ot=$!
	cleanup_pids="$cleanup_pids $ot"
	wait_for "$work/cg-${where%%/*}.err" 'armed 2 functions'
	[ "$where" = "$cg" ] || break
	kill -INT "$ot"
	wait "$ot" || fail_ "--cgroup $where: exit status $?: $(cat "$work/cg-.err")"
done
kill -USR1 "$s1" "$s2"
wait "$s1" "$s2" || fail_ "a stress program failed"
kill -INT "$ot"
wait "$ot" || fail_ "--cgroup: exit status $?: $(cat "$work"/cg-*.err)"
json_check "$work/cg.json" 'j["status"] == "ok"' "j['target']['cgroup'] == '$cg'" \
	"sorted((p['pid'], p['function'], p['scopes']) for p in j['processes']) == sorted([($s1, 'orbit-stress:outer', $(own 1 outer)), ($s1, 'orbit-stress:middle', $(own 1 middle))])" \
	"fn['orbit-stress:outer']['scopes'] == $(own 1 outer)"
grep -q "pid=\"$s1\"" "$work/cg.prom" || fail_ "--cgroup: no series for pid $s1"
! grep -q "pid=\"$s2\"" "$work/cg.prom" || fail_ "--cgroup: a series for pid $s2, outside the cgroup"

# Refusals: a list of processes of two programs, one gone, a cgroup that
# is none; the option's own errors are test_options' (exit status 2).
cleanup_pids=""
stress 1 1 10
sleep 1000 &
sl=$!
cleanup_pids="$cleanup_pids $sl"
# Its own "ready": the child has exec'd sleep (before, it is still the shell).
n=0
until [ "$(readlink /proc/$sl/exe)" = "$(readlink -f "$(command -v sleep)")" ]; do
	n=$((n + 1))
	[ $n -le 200 ] || fail_ "sleep never started"
	sleep 0.05
done
expect_rc 1 /dev/null "$work/two.err" "$OT" -p "$s1,$sl" -f outer -d 1
grep -qxF "orbit-trace: process $sl runs $(readlink -f /proc/$sl/exe), not $STRESS as process $s1 does: -p PID,PID... traces the processes of one program (for several, -a with FILE:NAME terms, and --cgroup)" \
	"$work/two.err" || fail_ "two programs: $(cat "$work/two.err")"
kill "$sl"
wait "$sl" 2>/dev/null || true
expect_rc 1 /dev/null "$work/gone.err" "$OT" -p "$s1,$sl" -f outer -d 1
grep -qxF "orbit-trace: no process with pid $sl" "$work/gone.err" || fail_ "gone: $(cat "$work/gone.err")"
# A thread's id where a process's belongs.
/usr/bin/python3.11 -c 'import os, threading
t = threading.Thread(target=threading.Event().wait)
t.start()
print("ready", os.getpid(), t.native_id, flush=True)' >"$work/th.out" &
tp=$!
cleanup_pids="$cleanup_pids $tp"
wait_for "$work/th.out" '^ready '
read -r _ _ tt <"$work/th.out"
# Taken for its process, with a note (issue 34); named twice, once.
"$OT" -p "$tt,$tp" -f 'libc.so.6:getpid' -d 0.3 >"$work/th.txt" 2>"$work/th.err" ||
	fail_ "a thread: exit status $?: $(cat "$work/th.err")"
grep -qxF "orbit-trace: $tt is a thread of process $tp: tracing process $tp, all its threads" \
	"$work/th.err" || fail_ "a thread: $(cat "$work/th.err")"
head -1 "$work/th.txt" | grep -qxF "orbit-trace report: /usr/bin/python3.11 (pid $tp)" ||
	fail_ "a thread's report: $(head -1 "$work/th.txt")"
kill "$tp"
expect_rc 1 /dev/null "$work/nocg.err" "$OT" -a --cgroup /nonexistent-cgroup -f "$STRESS:outer" -d 1
grep -qxF "orbit-trace: --cgroup /nonexistent-cgroup: No such file or directory" "$work/nocg.err" ||
	fail_ "no such cgroup: $(cat "$work/nocg.err")"
expect_rc 1 /dev/null "$work/notcg.err" "$OT" -a --cgroup "$work" -f "$STRESS:outer" -d 1
grep -qxF "orbit-trace: --cgroup $work is not a cgroup v2 directory (one of the cgroup2 file system, as under /sys/fs/cgroup)" \
	"$work/notcg.err" || fail_ "not a cgroup: $(cat "$work/notcg.err")"
expect_rc 2 /dev/null "$work/perf.err" "$OT" --backend perf -p "$s1,$s1" -p 1 -f outer -d 1
grep -qxF "orbit-trace: -p PID,PID... needs the multi backend (its BPF program keeps to those processes in the kernel): not with --backend perf" \
	"$work/perf.err" || fail_ "perf: $(cat "$work/perf.err")"
pass_
