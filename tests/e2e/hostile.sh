# Nothing turned against the host (issue 32): what another user plants,
# what a traced process names itself and passes, what a slow client holds
# and what a user types get root's orbit-trace to do nothing it was not
# asked to.
#  1. Files: a symbolic link user nobody plants in a sticky 1777 directory
#     at each output (-o, --json -o, --trace, --folded, --prom-textfile),
#     on the way to one, and at the temporary --prom-textfile once used; a
#     file of nobody's there: each refused with its reason, the victim file
#     untouched.  A failed capture leaves an existing file as it was and
#     removes one made for it; reports are created 0600, the textfile as
#     the umask says; /dev/stdout still works.
#  2. Output: a process whose comm holds ESC, BEL, a newline and bytes that
#     are not UTF-8 (prctl), passing such a string: the text shows them
#     escaped, python3's json reads the JSON, promtool passes the .prom;
#     also python3.11 renaming itself through ctypes, on multi and inject.
#  3. --listen: 20 connections trickling a request from 127.0.0.1 hold
#     neither another address's scrape nor, for long, their own address's;
#     each is closed before its request is whole; 0.0.0.0 is warned of.
#  4. Input: exact messages and statuses for -f lists that select nothing,
#     a term ending in ':::', inject on its own pid, inject's clock when the
#     last program had nothing to patch.
# Nothing here waits for a time: each bound is a generous timeout.
. "$(dirname "$0")/lib.sh"
require_uprobes
T="$top/build/targets"
[ -x "$T/hostile" ] || fail_ "$T/hostile is not built (make targets)"
for tool in setpriv promtool curl; do
	command -v "$tool" >/dev/null || skip_ "$tool is not installed (make deps)"
done
PY=/usr/bin/python3.11
[ -x $PY ] || PY=python3
try="Try 'orbit-trace --help' for more information."
n=0

# check STATUS "MESSAGE" ARGS...: orbit-trace ARGS exits STATUS and says
# exactly MESSAGE on stderr.
check() {
	want_rc=$1 want=$2
	shift 2
	n=$((n + 1))
	set +e
	"$OT" "$@" >"$work/out.$n" 2>"$work/err.$n"
	rc=$?
	set -e
	[ "$rc" = "$want_rc" ] || fail_ "orbit-trace $*: exit $rc, expected $want_rc: $(cat "$work/err.$n")"
	printf '%s\n' "$want" >"$work/exp.$n"
	diff -u "$work/exp.$n" "$work/err.$n" || fail_ "orbit-trace $*: wrong message"
}

# 1. Files.
shared="$pub/shared"
mkdir "$shared"
chmod 1777 "$shared"
victim="$pub/victim"
printf 'the victim file\n' >"$victim"
chmod 0644 "$victim"
mkdir "$pub/victim-dir"
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
victim_intact() {
	[ "$(cat "$victim")" = "the victim file" ] || fail_ "$1: the victim file was written: $(cat "$victim")"
	[ -z "$(ls -A "$pub/victim-dir")" ] || fail_ "$1: written in the victim directory: $(ls -A "$pub/victim-dir")"
}
link_msg() {
	echo "orbit-trace: cannot write $1: not following the symbolic link '$2': it belongs to uid 65534, in a sticky world-writable directory of uid 0 (as fs.protected_symlinks refuses)"
}
for out in "-o r.txt" "--json -o r.json" "--trace t.json" "--folded f.txt" "--prom-textfile m.prom"; do
	file=${out##* }
	as_nobody ln -s "$victim" "$shared/$file"
	# shellcheck disable=SC2086
	check 1 "$(link_msg "$shared/$file" "$file")" ${out% *} "$shared/$file" \
		-f outer -- "$STRESS" --stress-calls 10
	victim_intact "$out"
	[ -L "$shared/$file" ] || fail_ "$out: the planted link was replaced"
done
# A link on the way: DIR/link/report.txt, the link nobody's.
as_nobody ln -s "$pub/victim-dir" "$shared/d"
check 1 "$(link_msg "$shared/d/r.txt" d)" -o "$shared/d/r.txt" -f outer -- "$STRESS" --stress-calls 10
victim_intact "a link on the way"
# A file nobody made there, waiting for root to write into it.
as_nobody sh -c "printf 'theirs\n' >'$shared/theirs.txt'"
check 1 "orbit-trace: cannot write $shared/theirs.txt: it belongs to uid 65534, in a sticky world-writable directory of uid 0 (as fs.protected_regular refuses)" \
	-o "$shared/theirs.txt" -f outer -- "$STRESS" --stress-calls 10
[ "$(cat "$shared/theirs.txt")" = theirs ] || fail_ "nobody's file was written"
# The temporary --prom-textfile used to write (.NAME.prom.tmp): its
# temporaries are unpredictable now, and the capture works beside the link.
as_nobody ln -s "$victim" "$shared/.ok.prom.tmp"
"$OT" -q --prom-textfile "$shared/ok.prom" -f outer -- "$STRESS" --stress-calls 10 >/dev/null ||
	fail_ "--prom-textfile beside a planted temporary: exit status $?"
victim_intact "--prom-textfile's temporary"
grep -q '^orbit_trace_status{status="ok"} 1$' "$shared/ok.prom" || fail_ "ok.prom: $(cat "$shared/ok.prom")"
[ -z "$(ls -A "$shared" | grep '^\.ok\.prom\.' | grep -vx '.ok.prom.tmp')" ] ||
	fail_ "a temporary was left: $(ls -A "$shared")"

# A capture that fails leaves what exists as it was, and what it made goes.
for f in old.txt old.json old.folded; do printf 'previous %s\n' "$f" >"$work/$f"; done
check 2 "orbit-trace: no function 'nosuchfunction' in $(realpath "$STRESS")" -o "$work/old.txt" \
	--trace "$work/old.json" --folded "$work/old.folded" -f nosuchfunction -- "$STRESS"
check 1 "orbit-trace: cannot run no-such-command-xyz: command not found in PATH" \
	-o "$work/old.txt" --trace "$work/old.json" --folded "$work/old.folded" -f outer -- no-such-command-xyz
for f in old.txt old.json old.folded; do
	[ "$(cat "$work/$f")" = "previous $f" ] || fail_ "$f changed by a failed capture: $(cat "$work/$f")"
done
check 2 "orbit-trace: no function 'nosuchfunction' in $(realpath "$STRESS")" -o "$work/made.txt" \
	--trace "$work/made.json" -f nosuchfunction -- "$STRESS"
[ ! -e "$work/made.txt" ] && [ ! -e "$work/made.json" ] || fail_ "a failed capture left files it made"

# Modes: reports 0600, as perf.data; the textfile is node_exporter's to read.
(umask 022 && "$OT" -q -o "$work/m.txt" --trace "$work/m.json" --folded "$work/m.folded" \
	--prom-textfile "$work/m.prom" -f outer -- "$STRESS" --stress-calls 10 >/dev/null) ||
	fail_ "modes capture: exit status $?"
for f in m.txt m.json m.folded; do
	[ "$(stat -c %a "$work/$f")" = 600 ] || fail_ "$f created $(stat -c %a "$work/$f"), not 600"
done
[ "$(stat -c %a "$work/m.prom")" = 644 ] || fail_ "m.prom is $(stat -c %a "$work/m.prom"), not 644"
# An existing file keeps its mode; /dev/stdout is written as it is.
chmod 0640 "$work/m.txt"
"$OT" -q -o "$work/m.txt" -f outer -- "$STRESS" --stress-calls 10 >/dev/null
[ "$(stat -c %a "$work/m.txt")" = 640 ] || fail_ "m.txt's mode changed to $(stat -c %a "$work/m.txt")"
grep -qx 'status: ok' "$work/m.txt" || fail_ "m.txt: $(cat "$work/m.txt")"
"$OT" -q -o /dev/stdout -f outer -- "$STRESS" --stress-calls 10 >"$work/stdout.txt"
grep -qx 'status: ok' "$work/stdout.txt" || fail_ "-o /dev/stdout: $(cat "$work/stdout.txt")"

# 2. Output a target controls: the process named before orbit-trace
# attaches (-p), so that every name it is given is the hostile one.
# slow_lines FILE: until FILE has the 5 calls' --slower-than lines (each
# read while the process lives, so named as it named itself).
slow_lines() {
	i=0
	until [ "$(grep -c '^slow: ' "$1" 2>/dev/null)" = 5 ]; do
		i=$((i + 1))
		[ $i -le 300 ] || fail_ "$1: not 5 slow lines: $(cat "$1")"
		sleep 0.1
	done
}
# hostile TAG [FILE] ARGS...: orbit-trace -v ARGS -p on a fresh $prog, let
# go once armed, held after its calls until FILE (if named) has its slow lines.
prog="$T/hostile ready"
hostile() {
	tag=$1 lines=$2
	shift 2
	rm -f "$work/go"
	mkfifo "$work/go"
	$prog <"$work/go" >"$work/$tag.out" &
	hpid=$!
	cleanup_pids="$cleanup_pids $hpid"
	exec 3<>"$work/go"
	wait_for "$work/$tag.out" '^ready '
	"$OT" -v "$@" -p "$hpid" 2>"$work/$tag.err" &
	otpid=$!
	cleanup_pids="$cleanup_pids $otpid"
	wait_for "$work/$tag.err" 'armed 1 functions'
	echo go >&3
	wait_for "$work/$tag.out" '^done$'
	[ -z "$lines" ] || slow_lines "$lines"
	echo exit >&3
	wait $otpid || fail_ "$tag: exit status $?: $(cat "$work/$tag.err")"
	exec 3>&-
	sed -i '/^ready /d' "$work/$tag.out"
}
hostile h "$work/h.txt" --follow --slower-than 1ns -o "$work/h.txt" -f 'take(arg1:str)'
hostile h2 "" --follow --json -o "$work/h.json" --prom-textfile "$work/h.prom" -f 'take(arg1:str)'
hostile hi "$work/hi.txt" --backend inject --slower-than 1ns --prom-textfile "$work/hi.prom" \
	--prom-pid -o "$work/hi.txt" -f 'take(arg1:str)'
for o in h.out h2.out hi.out; do
	[ "$(cat "$work/$o")" = done ] || fail_ "the target's output changed: $(cat "$work/$o")"
done
for p in h.prom hi.prom; do
	promtool check metrics <"$work/$p" >"$work/$p.lint" 2>&1 || fail_ "promtool $p: $(cat "$work/$p.lint")"
done
$PY - "$work" <<'PY' || fail_ "hostile output check failed"
import json, sys
w = sys.argv[1]
comm_text = r"\x1b]0;pwn\x07\n\xff\xfeevil"
str_text = r"a\x1b[2J\x07\n\xff\xfe\xc2\x9bb\xe2\x82"
for name in ("h.txt", "hi.txt", "h.json", "h.prom", "hi.prom"):
    raw = open(f"{w}/{name}", "rb").read()
    raw.decode("utf-8")                       # strict: valid UTF-8
    for b in (b"\x1b", b"\x07", b"\xc2\x9b"):
        assert b not in raw, (name, b)
for name in ("h.txt", "hi.txt"):
    lines = open(f"{w}/{name}", encoding="utf-8").read().splitlines()
    slow = [l for l in lines if l.startswith("slow: ")]
    assert len(slow) == 5 and all(f"({comm_text}) tid" in l and f'arg1:str="{str_text}"' in l
                                  for l in slow), slow
    assert any(l.endswith("  " + str_text) for l in lines if l.startswith("take ")), lines
    assert not any(l.startswith("evil") or l.startswith(r"\xff") for l in lines), lines
rows = [l for l in open(f"{w}/h.txt").read().splitlines()
        if comm_text in l and not l.startswith("slow: ")]
assert len(rows) == 1 and rows[0].split()[1:4] == [comm_text, "take", "5"], rows
j = json.load(open(f"{w}/h.json"))
assert j["processes"][0]["comm"] == "\x1b]0;pwn\x07\n\ufffd\ufffdevil", j["processes"]
fn = {f["name"]: f for f in j["functions"]}
top = fn["take"]["strings"]["top"]
assert top == [{"value": "a\x1b[2J\x07\n\ufffd\ufffd\x9bb\ufffd\ufffd", "count": 5}], top
for p in ("h.prom", "hi.prom"):
    t = open(f"{w}/{p}", encoding="utf-8").read()
    assert 'comm="' + comm_text.replace("\\", "\\\\").replace(r"\\n", r"\n") + '"' in t, t
PY
# A program nobody here wrote, renaming itself and passing such bytes.
cat >"$work/rename.py" <<'PY'
import ctypes, os, sys
libc = ctypes.CDLL(None)
libc.prctl(15, b"\x1b]2;owned\x07\xff", 0, 0, 0)
print("ready", os.getpid(), flush=True)
sys.stdin.readline()
libc.fflush(None)
libc.puts(b"\x1b[2J\xff\xfe")
libc.fflush(None)
print("done", flush=True)
sys.stdin.readline()
PY
prog="$PY $work/rename.py"
hostile py "" --follow --json -o "$work/py.json" -f 'libc.so.6:puts(arg1:str)'
$PY - "$work/py.json" <<'PY' || fail_ "python3.11's report"
import json, sys
j = json.load(open(sys.argv[1], encoding="utf-8"))
assert any(p["comm"] == "\x1b]2;owned\x07\ufffd" for p in j["processes"]), j["processes"]
top = j["functions"][0]["strings"]["top"]
assert {"value": "\x1b[2J\ufffd\ufffd", "count": 1} in top, top
PY

# 3. --listen under slow clients.
"$STRESS" --stress-hz 100 --stress-calls 1000000 --wait-go >"$work/l.out" &
spid=$!
cleanup_pids="$cleanup_pids $spid"
wait_for "$work/l.out" '^ready '
"$OT" --listen 127.0.0.1:0 -f outer -p "$spid" >/dev/null 2>"$work/l.err" &
otpid=$!
cleanup_pids="$cleanup_pids $otpid"
wait_for "$work/l.err" 'serving metrics at '
kill -USR1 "$spid"
url=$(sed -n 's/^orbit-trace: serving metrics at //p' "$work/l.err")
port=${url##*:}
port=${port%%/*}
# 20 connections from 127.0.0.1, each sending its request a byte a second
# (never idle for the server's idle limit); gives up after 60 s.
$PY - "$port" >"$work/slow.out" 2>&1 <<'PY' &
import socket, sys, time
port = int(sys.argv[1])
req = b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"s" * 80 + b"\r\n\r\n"
socks = []
for _ in range(20):
    s = socket.create_connection(("127.0.0.1", port))
    s.setblocking(False)
    socks.append(s)
print("open", len(socks), flush=True)
closed, k, end = set(), 0, time.time() + 60
while len(closed) < len(socks) and k < len(req) - 1 and time.time() < end:
    for i, s in enumerate(socks):
        if i in closed:
            continue
        try:
            s.send(req[k:k + 1])
            if s.recv(1, socket.MSG_PEEK) == b"":
                closed.add(i)
        except BlockingIOError:
            pass
        except OSError:
            closed.add(i)
    k += 1
    time.sleep(1)
print("closed", len(closed), "of", len(socks), "before byte", k, "of", len(req), flush=True)
PY
slow=$!
cleanup_pids="$cleanup_pids $slow"
wait_for "$work/slow.out" '^open 20$' 30
# Another address is served at once; the same address once the server
# has cut the slow ones (each bound a generous timeout).
curl -sf -m 30 --interface 127.0.0.2 "$url" >"$work/scrape2" ||
	fail_ "a scrape from 127.0.0.2 failed while 20 slow connections were held"
grep -q '^orbit_trace_calls_total{function="outer"' "$work/scrape2" || fail_ "scrape: $(head -5 "$work/scrape2")"
curl -sf -m 90 --retry 60 --retry-delay 1 --retry-all-errors "$url" >"$work/scrape1" ||
	fail_ "no scrape from 127.0.0.1 succeeded while the slow connections were cut"
grep -q '^orbit_trace_calls_total{function="outer"' "$work/scrape1" || fail_ "scrape: $(head -5 "$work/scrape1")"
wait $slow || fail_ "slow client: $(cat "$work/slow.out")"
grep -Eq '^closed 20 of 20 before byte [0-9]+ of 1[0-9]{2}$' "$work/slow.out" ||
	fail_ "slow connections not all cut before their request was whole: $(tail -1 "$work/slow.out")"
kill -INT $otpid
wait $otpid || fail_ "--listen capture: exit status $?"
kill "$spid"
# Beyond loopback: said.
"$OT" -d 0.1 --listen 0.0.0.0:0 -f outer -- "$STRESS" --stress-calls 10 >/dev/null 2>"$work/any.err" ||
	fail_ "--listen 0.0.0.0:0: exit status $?"
grep -qx "orbit-trace: warning: --listen '0.0.0.0:0' is not a loopback address: whoever can reach this machine reads the capture's metrics there (function, file and process names, counted strings), without authentication" \
	"$work/any.err" || fail_ "no warning for 0.0.0.0: $(cat "$work/any.err")"

# 4. Input.
for f in '' ',,,' '!' '!*' '!outer' 'libc.so.6:'; do
	check 2 "orbit-trace: -f '$f' selects nothing: it has no name, glob or usdt: term, only exclusions ('!GLOB') or empty terms
$try" -f "$f" -- "$STRESS" --stress-calls 10
done
check 2 "orbit-trace: no function 'outer:::' in $(realpath "$STRESS") (did you mean: outer?)" \
	-f 'outer:::' -- "$STRESS" --stress-calls 10
# Its own pid (the shell exec's orbit-trace): ptrace's refusal, said as such.
set +e
sh -c 'exec "$0" --backend inject -p $$ -f main -d 1 2>"$1"; ' "$OT" "$work/self.err"
rc=$?
set -e
self=$(sed -n 's/^orbit-trace: cannot stop process \([0-9]*\): .*/\1/p' "$work/self.err")
[ $rc = 1 ] && [ -n "$self" ] || fail_ "inject on its own pid: exit $rc: $(cat "$work/self.err")"
grep -qx "orbit-trace: cannot stop process $self: it is this orbit-trace: no process may ptrace itself: Operation not permitted" \
	"$work/self.err" || fail_ "inject on its own pid: $(cat "$work/self.err")"
# The last program had nothing to patch: no clock, said so.
"$OT" --backend inject -f work -o "$work/clock.txt" -- "$T/execs" 1 3 -- /bin/true >/dev/null 2>&1 ||
	fail_ "inject through an exec: exit status $?"
grep -q '(backend inject), clock none, ' "$work/clock.txt" || fail_ "clock: $(grep ^armed "$work/clock.txt")"
pass_
