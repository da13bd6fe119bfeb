# --backend inject when orbit-trace is SIGKILLed: the kernel marks its
# mutex in the rings' header dead and the runtime stops recording at once
# (the rings stay still while the program calls on); a later orbit-trace
# recognizes the process, puts back what the dead one patched (checked
# against the file) and traces it as usual; `orbit-trace --restore -p`
# does only that and says what it restored.  The program's work is the
# same as untraced throughout.
. "$(dirname "$0")/lib.sh"
T="$top/build/targets"
[ "$(uname -m)" = x86_64 ] || skip_ "inject is for x86-64"

# rings PID: the owner word of the rings' header, then the records written
# to all its rings so far.
rings() {
	python3 - "$1" <<'PY'
import struct, sys
pid = int(sys.argv[1])
lo = hi = 0
for l in open("/proc/%d/maps" % pid):
    if "memfd:orbit-trace" in l:
        lo, hi = (int(x, 16) for x in l.split()[0].split("-"))
        break
if not lo:
    print("none")
    sys.exit(0)
mem = open("/proc/%d/mem" % pid, "rb")
mem.seek(lo)
hdr = mem.read(4096)
owner = struct.unpack_from("<I", hdr, 64)[0]
nareas = struct.unpack_from("<I", hdr, 12)[0]
size = (hi - lo - 4096) // nareas
heads = 0
for a in range(nareas):
    mem.seek(lo + 4096 + a * size)
    state, tid, head = struct.unpack("<IIQ", mem.read(16))
    heads += head if state else 0
print("owner=%s heads=%d" % ("dead" if not owner & 0x3fffffff else "alive", heads))
PY
}
# tick_bytes PID: the first 16 bytes of tick() in the process, against the file.
tick_bytes() {
	python3 - "$1" "$(realpath "$T/burst")" <<'PY'
import subprocess, sys
pid, path = int(sys.argv[1]), sys.argv[2]
nm = subprocess.run(["nm", path], capture_output=True, text=True).stdout
off = [int(f[0], 16) for f in (l.split() for l in nm.splitlines()) if len(f) == 3 and f[2] == "tick"][0]
for l in open("/proc/%d/maps" % pid):
    f = l.split()
    if len(f) > 5 and f[5] == path and "x" in f[1] and int(f[2], 16) <= off:
        lo, base = int(f[0].split("-")[0], 16), int(f[2], 16)
mem, fd = open("/proc/%d/mem" % pid, "rb"), open(path, "rb")
mem.seek(lo + off - base)
fd.seek(off)
print("same" if mem.read(16) == fd.read(16) else "changed")
PY
}
bursts() { grep -c '^calls ' "$work/t.out" || true; }
# go N: one more burst of 100,000 calls, the Nth; wait for its line.
go() {
	kill -USR1 "$spid"
	n=0
	until [ "$(bursts)" -ge "$1" ]; do
		n=$((n + 1)); [ $n -le 200 ] || fail_ "burst $1 did not end"; sleep 0.1
	done
}

"$T/burst" 100000 wait >"$work/t.out" &
spid=$!
cleanup_pids="$spid"
wait_for "$work/t.out" '^ready '
[ "$(tick_bytes "$spid")" = same ] || fail_ "tick differs from the file before tracing"

# 1. Traced, then orbit-trace SIGKILLed: the runtime records no more.
"$OT" -v --backend inject -o /dev/null -p "$spid" -f tick 2>"$work/1.err" &
otpid=$!
cleanup_pids="$spid $otpid"
wait_for "$work/1.err" 'armed 1 functions'
go 1
kill -KILL "$otpid"
wait "$otpid" 2>/dev/null || true
after_kill=$(rings "$spid")
case $after_kill in owner=dead\ heads=*) ;; *) fail_ "after SIGKILL: $after_kill" ;; esac
[ "$(tick_bytes "$spid")" = changed ] || fail_ "tick was not patched while traced"
go 2
[ "$(rings "$spid")" = "$after_kill" ] ||
	fail_ "the runtime recorded after its tracer died: $after_kill, then $(rings "$spid")"

# 2. A second orbit-trace takes the dead one's patches back and traces.
"$OT" -v --backend inject --json -o "$work/2.json" -p "$spid" -f tick 2>"$work/2.err" &
otpid=$!
cleanup_pids="$spid $otpid"
wait_for "$work/2.err" 'armed 1 functions'
grep -Eq "^orbit-trace: warning: process $spid was left instrumented by orbit-trace process [0-9]+, which is gone: 1 of 1 patched functions and 0 return addresses put back, [0-9.]+ MB unmapped\$" \
	"$work/2.err" || fail_ "the second orbit-trace did not say what it restored: $(cat "$work/2.err")"
go 3
kill -INT "$otpid"
wait "$otpid" || fail_ "the second orbit-trace: exit status $?: $(cat "$work/2.err")"
json_check "$work/2.json" 'j["status"] == "ok" and j["records"]["lost"] == 0' \
	'(fn["tick"]["scopes"], fn["tick"]["unclosed"], fn["tick"]["orphans"]) == (100000, 0, 0)' \
	'j["inject_removal"]["left_mapped_bytes"] == 0'
[ "$(tick_bytes "$spid")" = same ] || fail_ "tick not restored by the second orbit-trace"
! grep -q orbit-trace "/proc/$spid/maps" || fail_ "memory of orbit-trace's left mapped"

# 3. Killed again; --restore does only the restore and says what.
"$OT" -v --backend inject -o /dev/null -p "$spid" -f tick 2>"$work/3.err" &
otpid=$!
cleanup_pids="$spid $otpid"
wait_for "$work/3.err" 'armed 1 functions'
go 4
kill -KILL "$otpid"
wait "$otpid" 2>/dev/null || true
expect_rc 0 "$work/r.out" "$work/r.err" "$OT" --restore -p "$spid"
sed -n 1p "$work/r.out" | grep -Eqx "process $spid \\(burst\\): left instrumented by orbit-trace process $otpid, which is gone" ||
	fail_ "--restore: $(cat "$work/r.out")"
sed -n 2p "$work/r.out" | grep -qx "restored: 1 of 1 patched entry (checked against their files), 0 return addresses" ||
	fail_ "--restore: $(cat "$work/r.out")"
sed -n 3p "$work/r.out" | grep -Eqx 'unmapped: [0-9.]+ MB of address space' || fail_ "--restore: $(cat "$work/r.out")"
[ "$(tick_bytes "$spid")" = same ] || fail_ "tick not restored by --restore"
! grep -q orbit-trace "/proc/$spid/maps" || fail_ "--restore left memory of orbit-trace's mapped"
expect_rc 0 "$work/r2.out" "$work/r2.err" "$OT" --restore --json -p "$spid"
python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); sys.exit(not (j["found"] is False and j["pid"] == int(sys.argv[2])))' \
	"$work/r2.out" "$spid" || fail_ "--restore --json on a clean process: $(cat "$work/r2.out")"
go 5
kill -TERM "$spid"
wait "$spid" || fail_ "the target exited with $?"
# Every burst did the same work as untraced.
[ "$(grep -c '^calls 100000 ' "$work/t.out")" = 5 ] || fail_ "bursts: $(cat "$work/t.out")"
pass_
