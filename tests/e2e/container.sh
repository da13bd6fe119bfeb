# Processes as containers run them: in mount and pid namespaces of their
# own, their program and library on a tmpfs at a path the host does not
# have, and libc.so.6 another file than the host's at the same path (a
# copy bind-mounted over it).  Traced with -p by name on multi, perf and
# inject: counts equal to the program's own and to bpftrace's on the
# /proc/PID/root/... paths, the files shown as the process names them;
# never the host's file armed (never 0 and ok).  A library replaced on
# disk while the process runs (maps: "(deleted)") is traced as mapped,
# and refused with the reason when /proc/PID/map_files cannot be opened.
# -a by a /proc/PID/root/... path, a DWARF argument, inject killed and
# --restore in the namespace; python3.11 (nobody here wrote it) with its
# own copy of itself and of libc, against bpftrace.  And a hostile
# target: a string read afterwards from a file it replaced by a link to a
# root-only file, or by a FIFO: nothing read, nothing hangs.
. "$(dirname "$0")/lib.sh"
T="$top/build/targets"
require_uprobes
command -v unshare >/dev/null || skip_ "unshare (util-linux) is not installed"
command -v bpftrace >/dev/null || skip_ "bpftrace is not installed (make deps installs it)"
[ "$(uname -m)" = x86_64 ] || skip_ "inject is for x86-64"
N=1000
ALL=$((3 * N))
LIBC=$(realpath "$(ldd "$T/hidden" | awk '$1 == "libc.so.6" { print $3 }')")
[ -f "$LIBC" ] || fail_ "no libc.so.6 for $T/hidden"
ctr=$work/ctr		# empty here: the container's tmpfs goes over it
mkdir "$ctr"
cp "$LIBC" "$work/libc.so.6"

# start NAME: hidden in new mount and pid namespaces, its files on a
# tmpfs at $ctr, the copy of libc over ours; once it is ready, pid is
# its pid here and init the namespace's first process (ours to kill).
start() {
	out=$work/$1.out
	unshare -m -p -f --mount-proc sh -c "mount -t tmpfs ot '$ctr' &&
		cp '$T/hidden' '$T/libhidden.so' '$ctr/' &&
		mount --bind '$work/libc.so.6' '$LIBC' && '$ctr/hidden' $N & wait" \
		>"$out" 2>"$work/$1.nserr" &
	upid=$!
	cleanup_pids="$cleanup_pids $upid"
	wait_for "$out" '^ready '
	init=$(pgrep -P "$upid")
	pid=$(pgrep -P "$init")
	cleanup_pids="$cleanup_pids $init $pid"
	[ "$(awk '/^NSpid:/ { print $3 }' "/proc/$pid/status")" = "$(sed -n 's/^ready //p' "$out")" ] ||
		fail_ "process $pid is not the container's hidden"
}

# armed ERR PID: until orbit-trace PID says (-v) it armed; it must not end first.
armed() {
	n=0
	while ! grep -q 'armed [0-9]* functions' "$1" 2>/dev/null; do
		kill -0 "$2" 2>/dev/null || { wait "$2" || true; fail_ "orbit-trace ended before arming: $(cat "$1")"; }
		n=$((n + 1))
		[ $n -le 600 ] || fail_ "timed out waiting for orbit-trace to arm: $(cat "$1")"
		sleep 0.1
	done
}

# finish NAME: let it work, wait for it to end; its own counts checked.
finish() {
	kill -USR1 "$pid"
	wait_for "$work/$1.out" '^in_lib '
	grep -qx "in_lib $ALL getpid $ALL" "$work/$1.out" || fail_ "$1: the program printed $(cat "$work/$1.out")"
}

# trace NAME ARGS...: orbit-trace ARGS -p pid -v --json, while the
# program works; its report in $work/NAME.json.
trace() {
	tn=$1
	shift
	"$OT" -v --json -o "$work/$tn.json" -p "$pid" "$@" 2>"$work/$tn.err" &
	otpid=$!
	cleanup_pids="$cleanup_pids $otpid"
	armed "$work/$tn.err" "$otpid"
	finish "$tn"
	wait "$otpid" || fail_ "$tn: exit status $?: $(cat "$work/$tn.err")"
}

# -p by soname, by path, by a name in the container's own libc: as the
# process maps them, on every backend.
for b in multi perf inject; do
	start "$b"
	trace "$b" --backend "$b" -f "libhidden.so:in_lib,libc.so.6:getpid"
	json_check "$work/$b.json" 'j["status"] == "ok" and j["records"]["lost"] == 0' \
		'(fn["libhidden.so:in_lib"]["scopes"], fn["libc.so.6:getpid"]["scopes"]) == ('"$ALL, $ALL"')' \
		'fn["libhidden.so:in_lib"]["binary"] == "'"$ctr/libhidden.so"'"' \
		'fn["libc.so.6:getpid"]["binary"] == "'"$LIBC"'"' \
		'j["target"]["binary"] == "'"$ctr/hidden"'"'
done

# The host has another libc.so.6 at that path: never it armed (0 and ok).
start onlylibc
trace onlylibc -f libc.so.6:getpid
json_check "$work/onlylibc.json" 'j["status"] == "ok" and fn["libc.so.6:getpid"]["scopes"] == '"$ALL"

# bpftrace on the same files through /proc/PID/root.
start bt
bpftrace -e "BEGIN { printf(\"attached\\n\"); }
	uprobe:/proc/$pid/root$ctr/libhidden.so:in_lib /pid == $pid/ { @lib = count(); }
	uprobe:/proc/$pid/root$LIBC:getpid /pid == $pid/ { @getpid = count(); }" \
	>"$work/bt.txt" 2>"$work/bt.err" &
bt=$!
cleanup_pids="$cleanup_pids $bt"
wait_for "$work/bt.txt" '^attached'
finish bt
kill -INT "$bt"
wait "$bt" || fail_ "bpftrace: $(cat "$work/bt.err")"
[ "$(sed -n 's/^@lib: //p' "$work/bt.txt")" = "$ALL" ] && [ "$(sed -n 's/^@getpid: //p' "$work/bt.txt")" = "$ALL" ] ||
	fail_ "bpftrace counted otherwise than the program: $(cat "$work/bt.txt")"

# A path in the container's root, and a parameter by its DWARF name.
start dwarf
trace dwarf -f "$ctr/libhidden.so:in_lib(x)"
json_check "$work/dwarf.json" 'j["status"] == "ok"' \
	'[fn["libhidden.so:in_lib"]["arg"][k] for k in ("count", "min", "max")] == ['"$ALL, 0, $((N - 1))"']'

# -a: a term names the container's file by /proc/PID/root, as bpftrace does.
start all
"$OT" -v -a --json -o "$work/all.json" -f "/proc/$pid/root$ctr/libhidden.so:in_lib" 2>"$work/all.err" &
otpid=$!
cleanup_pids="$cleanup_pids $otpid"
armed "$work/all.err" "$otpid"
finish all
kill -INT "$otpid"
wait "$otpid" || fail_ "-a: exit status $?: $(cat "$work/all.err")"
json_check "$work/all.json" 'fn["libhidden.so:in_lib"]["scopes"] == '"$ALL"

# The library upgraded under the running process: another file renamed
# over it.  Traced as mapped, through /proc/PID/map_files.
for b in multi perf inject; do
	start "up$b"
	cp "$T/libhidden.so" "/proc/$pid/root$ctr/.new" && mv "/proc/$pid/root$ctr/.new" "/proc/$pid/root$ctr/libhidden.so"
	grep -q "$ctr/libhidden.so (deleted)" "/proc/$pid/maps" || fail_ "the library is not deleted"
	trace "up$b" --backend "$b" -f libhidden.so:in_lib
	json_check "$work/up$b.json" 'j["status"] == "ok" and fn["libhidden.so:in_lib"]["scopes"] == '"$ALL" \
		'fn["libhidden.so:in_lib"]["binary"] == "'"$ctr/libhidden.so (deleted)"'"'
done
# Without the capability map_files needs, nothing reaches it: refused,
# naming why (inject needs only ptrace).
start nocap
cp "$T/libhidden.so" "/proc/$pid/root$ctr/.new" && mv "/proc/$pid/root$ctr/.new" "/proc/$pid/root$ctr/libhidden.so"
expect_rc 1 /dev/null "$work/nocap.err" setpriv --bounding-set=-sys_admin,-checkpoint_restore \
	--inh-caps=-sys_admin,-checkpoint_restore "$OT" --backend inject -p "$pid" -f libhidden.so:in_lib
grep -qxF "orbit-trace: cannot trace libhidden.so, which process $pid maps: it was deleted or replaced on disk since it was mapped ($ctr/libhidden.so), and only /proc/$pid/map_files reaches it, which needs CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE" \
	"$work/nocap.err" || fail_ "no capability for map_files: $(cat "$work/nocap.err")"
finish nocap

# inject killed in the namespace: --restore puts the bytes back, checked
# against the file the process maps (its own, not ours by that name),
# though that file was replaced since and a FIFO waits at its name as
# maps gives it ("PATH (deleted)").
start restore
"$OT" -v --backend inject -p "$pid" -f libhidden.so:in_lib >/dev/null 2>"$work/restore.err" &
otpid=$!
cleanup_pids="$cleanup_pids $otpid"
armed "$work/restore.err" "$otpid"
kill -KILL "$otpid"
wait "$otpid" 2>/dev/null || true
cp "$T/libhidden.so" "/proc/$pid/root$ctr/.new" && mv "/proc/$pid/root$ctr/.new" "/proc/$pid/root$ctr/libhidden.so"
mkfifo "/proc/$pid/root$ctr/libhidden.so (deleted)"
expect_rc 0 "$work/r.out" "$work/r.err" timeout -s KILL 120 "$OT" --restore -p "$pid"
sed -n 2p "$work/r.out" | grep -qx "restored: 1 of 1 patched entry (checked against their files), 0 return addresses" ||
	fail_ "--restore: $(cat "$work/r.out" "$work/r.err")"
finish restore

# USDT probes of the container's program and library, its semaphore
# raised in the container's file (the program says so) while armed.
for b in multi perf inject; do
	rm -f "$work/in"
	mkfifo "$work/in"
	unshare -m -p -f --mount-proc sh -c "mount -t tmpfs ot '$ctr' &&
		cp '$T/usdt' '$T/libusdtlib.so' '$ctr/' && '$ctr/usdt' $N wait <'$work/in' & wait" \
		>"$work/u$b.out" 2>"$work/u$b.nserr" &
	upid=$!
	cleanup_pids="$cleanup_pids $upid"
	exec 3>"$work/in"
	wait_for "$work/u$b.out" '^ready '
	init=$(pgrep -P "$upid")
	pid=$(pgrep -P "$init")
	cleanup_pids="$cleanup_pids $init $pid"
	"$OT" -v --backend "$b" --json -o "$work/u$b.json" -p "$pid" \
		-f "usdt:usdt:ot:tick(arg1),usdt:libusdtlib.so:otlib:work" 2>"$work/u$b.err" &
	otpid=$!
	cleanup_pids="$cleanup_pids $otpid"
	armed "$work/u$b.err" "$otpid"
	echo go >&3
	wait_for "$work/u$b.out" '^tick [0-9]* site'
	kill -INT "$otpid"
	wait "$otpid" || fail_ "usdt, $b: exit status $?: $(cat "$work/u$b.err")"
	echo done >&3
	exec 3>&-
	wait_for "$work/u$b.out" '^tick semaphore 0'
	sed -n 2p "$work/u$b.out" | grep -qx 'tick semaphore 1' ||
		fail_ "usdt, $b: the semaphore was not raised: $(cat "$work/u$b.out")"
	json_check "$work/u$b.json" 'j["status"] == "ok"' \
		"[(f['name'], f['hits']) for f in j['functions']] == [('usdt:ot:tick', $N), ('usdt:libusdtlib.so:otlib:work', $N)]"
done

# python3.11, with its own copies of itself and of libc at our paths,
# against bpftrace on the same uprobes (counts by PYTHONHASHSEED fixed).
PY=$(realpath /usr/bin/python3.11 2>/dev/null || true)
if [ -x "$PY" ]; then
	cp "$PY" "$work/python3.11"
	cat >"$work/py.py" <<'EOF'
import os, signal
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
print("ready", os.getpid(), flush=True)
signal.sigwait({signal.SIGUSR1})
d = {}
for i in range(20000):
    d[str(i)] = hash((i, str(i)))
print("done", sum(d.values()) % 1000003, len(d), os.getpid() == os.getpid(), flush=True)
EOF
	pystart() {
		unshare -m -p -f --mount-proc env -i PYTHONHASHSEED=0 PATH=/usr/bin:/bin sh -c \
			"mount --bind '$work/python3.11' '$PY' && mount --bind '$work/libc.so.6' '$LIBC' &&
			'$PY' '$work/py.py' & wait" >"$work/$1.out" 2>"$work/$1.nserr" &
		upid=$!
		cleanup_pids="$cleanup_pids $upid"
		wait_for "$work/$1.out" '^ready '
		init=$(pgrep -P "$upid")
		pid=$(pgrep -P "$init")
		cleanup_pids="$cleanup_pids $init $pid"
	}
	pystart pybt
	bpftrace -e "BEGIN { printf(\"attached\\n\"); }
		uprobe:/proc/$pid/root$PY:PyObject_Hash /pid == $pid/ { @hash = count(); }
		uprobe:/proc/$pid/root$LIBC:getpid /pid == $pid/ { @getpid = count(); }" \
		>"$work/pybt.txt" 2>"$work/pybt.err" &
	bt=$!
	cleanup_pids="$cleanup_pids $bt"
	wait_for "$work/pybt.txt" '^attached'
	kill -USR1 "$pid"
	wait_for "$work/pybt.out" '^done '
	kill -INT "$bt"
	wait "$bt" || fail_ "bpftrace: $(cat "$work/pybt.err")"
	want=$(sed -n 's/^@hash: //p' "$work/pybt.txt")
	[ -n "$want" ] && [ "$(sed -n 's/^@getpid: //p' "$work/pybt.txt")" = 2 ] ||
		fail_ "bpftrace on python3.11: $(cat "$work/pybt.txt")"
	for b in multi perf inject; do
		pystart "py$b"
		"$OT" -v --json -o "$work/py$b.json" --backend "$b" -p "$pid" \
			-f 'PyObject_Hash,libc.so.6:getpid' 2>"$work/py$b.err" &
		otpid=$!
		cleanup_pids="$cleanup_pids $otpid"
		armed "$work/py$b.err" "$otpid"
		kill -USR1 "$pid"
		wait "$otpid" || fail_ "python3.11, $b: exit status $?: $(cat "$work/py$b.err")"
		cmp -s "$work/pybt.out" "$work/py$b.out" || fail_ "python3.11, $b: its output changed"
		json_check "$work/py$b.json" 'j["target"]["binary"] == "'"$PY"'"'
		# PyObject_Hash may leave by an indirect tail call: perf, whose
		# return probes cannot be guarded, sees its return instructions
		# only, and says its counts may be short.
		if [ $b = perf ]; then
			json_check "$work/py$b.json" 'j["status"] == "lossy"' \
				'fn["libc.so.6:getpid"]["scopes"] == 2' \
				'any(r.startswith("PyObject_Hash: calls that leave it by an indirect tail call") for r in j["reasons"])'
		else
			json_check "$work/py$b.json" 'j["status"] == "ok"' \
				'(fn["PyObject_Hash"]["scopes"], fn["libc.so.6:getpid"]["scopes"]) == ('"$want"', 2)'
		fi
	done
	# --follow from here: the child it forks, a row each.
	cat >"$work/py.py" <<'EOF'
import os, signal
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
print("ready", os.getpid(), flush=True)
signal.sigwait({signal.SIGUSR1})
pid = os.fork()
if pid == 0:
    for i in range(100):
        os.getpid()
    os._exit(0)
os.waitpid(pid, 0)
for i in range(50):
    os.getpid()
print("done", flush=True)
EOF
	pystart follow
	"$OT" -v --json -o "$work/follow.json" --follow -p "$pid" -f libc.so.6:getpid 2>"$work/follow.err" &
	otpid=$!
	cleanup_pids="$cleanup_pids $otpid"
	armed "$work/follow.err" "$otpid"
	kill -USR1 "$pid"
	wait "$otpid" || fail_ "--follow: exit status $?: $(cat "$work/follow.err")"
	json_check "$work/follow.json" 'j["status"] == "ok"' \
		'sorted(p["scopes"] for p in j["processes"]) == [50, 100]' \
		'all(p["function"] == "libc.so.6:getpid" for p in j["processes"])'
fi

# A hostile target (as user nobody, from a copy outside the checkout):
# the file a string lies in replaced, once the page is unmapped, by a
# link to a root-only file or by a FIFO.  The string is unreadable, the
# secret never read, and the capture ends.
hostile=$(mktemp -d /tmp/ot-planted.XXXXXX)
cleanup_() {
	for p in $cleanup_pids; do kill -KILL "$p" 2>/dev/null || true; done
	rm -rf "$hostile"
}
cp "$T/planted" "$hostile/"
mkdir "$hostile/d"
chown 65534 "$hostile/d"
chmod 755 "$hostile" "$hostile/planted"
python3 -c 'print("TOPSECRET" * 20)' >"$hostile/secret"
chmod 600 "$hostile/secret"
for plant in link fifo; do
	[ $plant = link ] && to=$hostile/secret || to=fifo
	for b in perf multi; do
		rm -f "$hostile/d/"*
		setpriv --reuid=65534 --regid=65534 --clear-groups "$hostile/planted" "$hostile/d" "$to" \
			>"$work/pl$plant$b.out" 2>&1 &
		tpid=$!
		cleanup_pids="$cleanup_pids $tpid"
		wait_for "$work/pl$plant$b.out" '^ready '
		# A tracer stuck opening the FIFO would not end: killed, it fails below.
		timeout -s KILL 120 "$OT" -v --json -o "$work/pl$plant$b.json" --backend "$b" -p "$tpid" -d 3 \
			-f 'take(arg1:str)' 2>"$work/pl$plant$b.err" &
		otpid=$!
		cleanup_pids="$cleanup_pids $otpid"
		armed "$work/pl$plant$b.err" "$otpid"
		kill -USR1 "$tpid"
		wait_for "$work/pl$plant$b.out" '^planted'
		wait "$otpid" || fail_ "$plant, $b: exit status $? (137: it hung): $(cat "$work/pl$plant$b.err")"
		kill -USR1 "$tpid"
		wait "$tpid" || fail_ "$plant, $b: the planted program exited with $? (untraced: 0)"
		! grep -q TOPSECRET "$work/pl$plant$b.json" || fail_ "$plant, $b: the root-only file was read"
		json_check "$work/pl$plant$b.json" 'fn["take"]["scopes"] == 1' \
			'j["strings"]["unreadable"] == 1 and j["status"] == "lossy"'
	done
done
pass_
