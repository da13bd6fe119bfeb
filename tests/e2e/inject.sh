# --backend inject, against real processes: the cases the uprobe backends
# pass (the stress tree via -- CMD and -p, threads started after arming,
# recursion deeper than 64, longjmp, a C++ exception, Rust, a shared
# library, SIGINT, children forked from traced functions), the target's
# output unchanged (a checksum), orbit-trace killed mid-capture, the code
# put back and the memory given back afterwards, and the refusals.
. "$(dirname "$0")/lib.sh"
T="$top/build/targets"
[ "$(uname -m)" = x86_64 ] || skip_ "inject is for x86-64"

# The stress tree, started by orbit-trace: exact, nothing lost.
"$OT" --backend inject --json -o "$work/cmd.json" -f outer,middle,inner -- \
	"$STRESS" --stress-threads 2 --stress-hz 2000 --stress-calls 2000 >"$work/cmd.out" 2>"$work/cmd.err" ||
	fail_ "-- CMD: exit status $?: $(cat "$work/cmd.err")"
grep -q '"expected": {"outer": 4000, "middle": 8000, "inner": 24000}' "$work/cmd.out" ||
	fail_ "the stress program did not run to completion"
exact='[(f["name"], f["scopes"], f["depths"]) for f in j["functions"]] == [("outer", 4000, {"0": 4000}), ("middle", 8000, {"1": 8000}), ("inner", 24000, {"2": 24000})]'
clean='all(f["unclosed"] == 0 and f["orphans"] == 0 and f["duplicates"] == 0 and f["outside_parent"] == 0 for f in j["functions"])'
json_check "$work/cmd.json" "$exact" "$clean" \
	'j["status"] == "ok" and j["records"]["lost"] == 0' \
	'j["arming"]["backend"] == "inject" and j["arming"]["returns"] == "trampoline"' \
	'j["arming"]["uprobes"] == 0 and j["arming"]["events"] == 3 and j["arming"]["functions_armed"] == 3' \
	'j["inject"]["code_regions"] >= 1 and j["inject"]["code_bytes"] > 0 and j["inject"]["refused"] == []' \
	'j["inject"]["clock"] in ("tsc", "vdso") and j["inject"]["pause_ns"] > 0' \
	'j["inject_removal"]["target_exited"]' \
	'j["target"]["exit_status"] == 0 and j["capture"]["ended_by"] == "target exit"' \
	'all(0 < f["duration_ns"]["min"] <= f["duration_ns"]["p50"] <= f["duration_ns"]["max"] for f in j["functions"])'
grep -q '^orbit-trace: ' "$work/cmd.err" && fail_ "warnings: $(cat "$work/cmd.err")"

# The same with the vDSO's clock instead of the TSC.
ORBIT_INJECT_CLOCK=vdso "$OT" --backend inject --json -o "$work/vdso.json" -f outer,middle,inner -- \
	"$STRESS" --stress-threads 2 --stress-hz 2000 --stress-calls 2000 >/dev/null ||
	fail_ "vdso clock: exit status $?"
json_check "$work/vdso.json" "$exact" "$clean" 'j["inject"]["clock"] == "vdso"'

# -p: threads that exist before arming; work starts on SIGUSR1 after it.
# Once the capture is over the process runs on with its own code again
# and nothing of orbit-trace mapped.
"$STRESS" --stress-threads 2 --stress-hz 2000 --stress-calls 2000 --wait-go >"$work/p.out" &
spid=$!
cleanup_pids="$spid"
wait_for "$work/p.out" '^ready '
"$OT" -v --backend inject --json -o "$work/p.json" -p "$spid" -f outer,middle,inner -d 30 2>"$work/p.err" &
otpid=$!
cleanup_pids="$spid $otpid"
wait_for "$work/p.err" 'armed 3 functions'
grep -q orbit-trace "/proc/$spid/maps" || fail_ "no orbit-trace memfd mapped in the target while armed"
kill -USR1 "$spid"
wait "$otpid" || fail_ "-p: exit status $?"
json_check "$work/p.json" "$exact" "$clean" 'j["target"]["pid"] == '"$spid" \
	'j["capture"]["ended_by"] == "target exit"'
wait "$spid" || fail_ "the -p target exited with $?"

# A long-running -p target, the capture ended by SIGINT: its entries hold
# the file's bytes again, no mapping of orbit-trace's is left, it runs on.
"$T/sum" 400000000 wait >"$work/long.out" &
spid=$!
cleanup_pids="$spid"
wait_for "$work/long.out" '^ready '
kill -USR1 "$spid"
maps_before=$(grep -c . "/proc/$spid/maps")
# The first 16 bytes of each function, in the process against the file.
entry_bytes() {
	python3 - "$1" "$(realpath "$T/sum")" <<'PY'
import subprocess, sys
pid, path = int(sys.argv[1]), sys.argv[2]
nm = subprocess.run(["nm", path], capture_output=True, text=True).stdout
syms = {f[2]: int(f[0], 16) for f in (l.split() for l in nm.splitlines()) if len(f) == 3}
for l in open("/proc/%d/maps" % pid):
    f = l.split()
    if len(f) > 5 and f[5] == path and "x" in f[1]:
        lo, off = int(f[0].split("-")[0], 16), int(f[2], 16)
        break
mem, fd, res = open("/proc/%d/mem" % pid, "rb"), open(path, "rb"), []
for name in ("mix", "many", "scale", "make_big", "rec", "vsum"):
    mem.seek(lo + syms[name] - off)   # vaddr == file offset in this PIE's text
    fd.seek(syms[name])
    res.append("%s=%s" % (name, "same" if mem.read(16) == fd.read(16) else "changed"))
print(" ".join(res))
PY
}
[ "$(entry_bytes "$spid")" = "mix=same many=same scale=same make_big=same rec=same vsum=same" ] ||
	fail_ "the code differs from the file before tracing: $(entry_bytes "$spid")"
"$OT" -v --backend inject --json -o "$work/long.json" -p "$spid" -f mix,many,scale,make_big,rec,vsum \
	2>"$work/long.err" &
otpid=$!
cleanup_pids="$spid $otpid"
wait_for "$work/long.err" 'armed 6 functions'
grep -q orbit-trace "/proc/$spid/maps" || fail_ "no orbit-trace memfd mapped in the target while armed"
sleep 0.3
kill -INT "$otpid"
wait "$otpid" || fail_ "SIGINT: exit status $?: $(cat "$work/long.err")"
[ "$(entry_bytes "$spid")" = "mix=same many=same scale=same make_big=same rec=same vsum=same" ] ||
	fail_ "the code was not restored: $(entry_bytes "$spid")"
[ "$(grep -c . "/proc/$spid/maps")" = "$maps_before" ] || fail_ "mappings left behind: $(tail -5 "/proc/$spid/maps")"
! grep -q orbit-trace "/proc/$spid/maps" || fail_ "the rings' memfd is still mapped"
json_check "$work/long.json" 'fn["mix"]["scopes"] > 0 and fn["scale"]["scopes"] > 0' \
	'j["capture"]["ended_by"] == "signal" and not j["target"]["exited"]' \
	'j["inject_removal"]["left_mapped_bytes"] == 0 and not j["inject_removal"]["target_exited"]' \
	'j["inject_removal"]["pause_ns"] > 0'
kill -0 "$spid" || fail_ "the target did not survive the capture"
kill "$spid"
wait "$spid" 2>/dev/null || true

# Threads created after arming get their rings by themselves: 600 threads
# made and joined in 300 rounds, every scope counted.
"$OT" --backend inject --json -o "$work/churn.json" --expect outer=6000,middle=12000,inner=36000 \
	-f outer,middle,inner -- "$STRESS" --stress-threads 2 --stress-hz 0 \
	--stress-calls 10 --stress-rounds 300 >/dev/null || fail_ "churn: exit status $?"
json_check "$work/churn.json" 'j["status"] == "ok"' 'j["capture"]["threads"] == 600'

# Recursion 100 deep: no nesting limit, every call closed.
"$OT" --backend inject --json -o "$work/rec.json" -f top,rec,leaf -- "$T/recurse" 200 100 >/dev/null ||
	fail_ "recursion: exit status $?"
json_check "$work/rec.json" \
	'fn["rec"]["scopes"] == 20000 and fn["rec"]["unclosed"] == 0 and fn["rec"]["orphans"] == 0' \
	'fn["top"]["scopes"] == 200 and fn["top"]["depths"] == {"0": 200}' \
	'fn["leaf"]["scopes"] == 200 and fn["leaf"]["depths"] == {"1": 200}'

# longjmp from h through g back into f: g and h unclosed, f and leaf exact.
"$OT" --backend inject --json -o "$work/jump.json" -f f,g,h,leaf -- "$T/jump" 500 >/dev/null ||
	fail_ "longjmp: exit status $?"
json_check "$work/jump.json" \
	'fn["f"]["scopes"] == 500 and fn["f"]["depths"] == {"0": 500}' \
	'fn["leaf"]["scopes"] == 500 and fn["leaf"]["depths"] == {"1": 500}' \
	'fn["g"]["unclosed"] == 500 and fn["h"]["unclosed"] == 500 and fn["g"]["scopes"] == fn["h"]["scopes"] == 0' \
	'all(f["orphans"] == 0 and f["duplicates"] == 0 for f in j["functions"])'

# A C++ exception thrown from h through traced g into f: the unwinder finds
# the real return addresses through orbit-trace's unwind entries, so the
# program runs to its end; g and h are unclosed, f (which tail-calls leaf
# after the catch) and leaf exact.
"$OT" --backend inject --json -o "$work/throw.json" -f f,g,h,leaf -- "$T/throw" 500 \
	>"$work/throw.out" 2>"$work/throw.err" || fail_ "exception: exit status $?"
grep -q '"caught": 500' "$work/throw.out" || fail_ "the C++ program did not finish: $(cat "$work/throw.err")"
json_check "$work/throw.json" \
	'j["target"]["exit_status"] == 0 and j["inject"]["unwinder_hooked"]' \
	'fn["f"]["scopes"] == 500 and fn["f"]["depths"] == {"0": 500} and fn["f"]["unclosed"] == 0' \
	'fn["leaf"]["scopes"] == 500 and fn["leaf"]["depths"] == {"1": 500}' \
	'fn["g"]["unclosed"] == 500 and fn["h"]["unclosed"] == 500' \
	'all(f["orphans"] == 0 and f["duplicates"] == 0 for f in j["functions"])'

# Rust.
"$OT" --backend inject --json -o "$work/rust.json" -f 'orbit_stress::outer,middle,orbit_stress::inner' -- \
	"$T/rstress" 2000 >"$work/rust.out" || fail_ "Rust: exit status $?"
grep -q '"outer": 2000, "middle": 4000, "inner": 12000' "$work/rust.out" || fail_ "rstress did not run"
json_check "$work/rust.json" \
	'[(f["scopes"], f["depths"]) for f in j["functions"]] == [(2000, {"0": 2000}), (4000, {"1": 4000}), (12000, {"2": 12000})]'

# A shared library's functions; a plugin dlopen'ed later is not mapped when
# inject patches, so it is refused by name and the status is lossy.
"$OT" --backend inject --json -o "$work/lib.json" \
	-f "$T/libwork.so:work_add,$T/libwork.so:work_mul,$T/libplug.so:plug_run" \
	-- "$T/uselib" 200 dlopen >"$work/lib.out" 2>"$work/lib.err" || fail_ "library: exit status $?"
grep -q '"plug_run": 600' "$work/lib.out" || fail_ "the program did not load its plugin"
grep -qxF "orbit-trace: warning: not tracing libplug.so:plug_run: $T/libplug.so is not mapped in the process (yet): inject patches only code already loaded" \
	"$work/lib.err" || fail_ "refusal not said: $(cat "$work/lib.err")"
json_check "$work/lib.json" \
	'[(f["name"], f["scopes"]) for f in j["functions"]] == [("libwork.so:work_add", 200), ("libwork.so:work_mul", 400), ("libplug.so:plug_run", 0)]' \
	'j["status"] == "lossy" and j["arming"]["functions_armed"] == 2' \
	'[r["function"] for r in j["inject"]["refused"]] == ["libplug.so:plug_run"]'
# Its row in the text says it was not armed, not only 0 (issue 34).
"$OT" --backend inject -o "$work/lib.txt" -f "$T/libwork.so:work_add,$T/libplug.so:plug_run" \
	-- "$T/uselib" 20 dlopen >/dev/null 2>&1 || fail_ "library, text: exit status $?"
grep -Eq '^libplug\.so:plug_run +0 .*  not armed$' "$work/lib.txt" ||
	fail_ "the unpatched row is not marked: $(cat "$work/lib.txt")"
grep -Eq '^libwork\.so:work_add +20 .*[0-9]$' "$work/lib.txt" || fail_ "work_add's row: $(cat "$work/lib.txt")"

# Children forked inside traced functions return through its frames, and
# a command run by system() (posix_spawn: the parent's memory until exec):
# their exit statuses are right; each forked one is taken back at its fork
# (its copy of the patches and moved return addresses) and runs untraced.
"$OT" --backend inject --json -o "$work/forks.json" -f spawn,leaf,run,libc.so.6:fork -- \
	"$T/forks" 20 >"$work/forks.out" || fail_ "forks: exit status $?"
grep -q '"spawn": 20, "children_ok": 20, "shells_ok": 4' "$work/forks.out" ||
	fail_ "the children did not run as untraced: $(cat "$work/forks.out")"
json_check "$work/forks.json" 'j["target"]["exit_status"] == 0' \
	'fn["spawn"]["scopes"] == 20 and fn["run"]["scopes"] == 4 and fn["leaf"]["scopes"] == 0' \
	'fn["libc.so.6:fork"]["scopes"] == 20 and j["records"]["foreign"] == 0' \
	'j["inject"]["children"] == {"taken_back": 20, "kept": 0, "kept_why": None}'

# The target's output does not change: a checksum over calls with stack
# arguments, floating point, structs returned in memory, varargs, flags
# read at a function's entry.
# (20,000 rounds: 250,000 records, within one ring, so nothing is lost
# however the tracer is scheduled and every count is exact.)
want=$("$T/sum" 20000)
got=$("$OT" --backend inject -q --json -o "$work/sum.json" -f mix,many,scale,make_big,rec,vsum,cf_in,of_in -- \
	"$T/sum" 20000) || fail_ "checksum: exit status $?"
json_check "$work/sum.json" 'j["records"]["lost"] == 0' \
	'[f["scopes"] for f in j["functions"]] == [61563, 20000, 20000, 20000, 313, 313, 1250, 1250]'
[ "$got" = "$want" ] || fail_ "traced output '$got', untraced '$want'"
want=$("$T/sum" 300000)
got=$("$OT" --backend inject -q -o "$work/sum.txt" -f mix,many,scale,make_big,rec,vsum,cf_in,of_in -- \
	"$T/sum" 300000) || fail_ "checksum: exit status $?"
[ "$got" = "$want" ] || fail_ "traced output '$got', untraced '$want'"

# orbit-trace SIGKILLed mid-capture: the target runs on, patched, to the
# same output as untraced.
want=$("$T/sum" 20000000)
"$T/sum" 20000000 wait >"$work/k.out" &
spid=$!
cleanup_pids="$spid"
wait_for "$work/k.out" '^ready '
"$OT" -v --backend inject -o /dev/null -p "$spid" -f mix,many,scale,make_big 2>"$work/k.err" &
otpid=$!
cleanup_pids="$spid $otpid"
wait_for "$work/k.err" 'armed 4 functions'
kill -USR1 "$spid"
sleep 0.2
kill -KILL "$otpid"
wait "$otpid" 2>/dev/null || true
wait "$spid" || fail_ "the target exited with $? after its tracer was killed"
[ "$(tail -n 1 "$work/k.out")" = "$want" ] || fail_ "after SIGKILL: '$(tail -n 1 "$work/k.out")', untraced '$want'"

# No privilege needed: an unprivileged user traces a command of its own.
if command -v setpriv >/dev/null; then
	ot_nobody=$(public "$OT") stress_nobody=$(public "$STRESS")
	mkdir -p "$pub/out"
	chmod 0777 "$pub/out"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$ot_nobody" --backend inject --json \
		-o "$pub/out/nobody.json" -f outer,middle,inner -- "$stress_nobody" --stress-threads 2 --stress-hz 2000 --stress-calls 500 \
		>"$work/nobody.out" 2>"$work/nobody.err" || fail_ "as nobody: exit status $?: $(cat "$work/nobody.err")"
	json_check "$pub/out/nobody.json" 'j["status"] == "ok"' \
		'[f["scopes"] for f in j["functions"]] == [1000, 2000, 6000]'
fi
# A process it may not ptrace is refused naming ptrace and why: another
# user's, and one of its own that is not dumpable.
if command -v setpriv >/dev/null; then
	"$STRESS" --stress-calls 10 --wait-go >"$work/root.out" &
	rpid=$!
	cleanup_pids="$rpid"
	wait_for "$work/root.out" '^ready '
	expect_rc 1 /dev/null "$work/other.err" setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$ot_nobody" --backend inject -f outer -p "$rpid"
	grep -qxF "orbit-trace: cannot trace process $rpid: ptrace access to it is denied: it runs as uid 0 and orbit-trace as uid 65534, without CAP_SYS_PTRACE (run it as that user, or with sudo)" \
		"$work/other.err" || fail_ "another user's process: $(cat "$work/other.err")"
	kill "$rpid"
	setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3.11 -c \
		'import ctypes, sys, time; ctypes.CDLL(None).prctl(4, 0, 0, 0, 0); print("ready", flush=True); time.sleep(60)' \
		>"$work/nd.out" &
	npid=$!
	cleanup_pids="$npid"
	wait_for "$work/nd.out" '^ready'
	expect_rc 1 /dev/null "$work/nd.err" setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$ot_nobody" --backend inject -f PyObject_Hash -p "$npid"
	grep -qxF "orbit-trace: cannot trace process $npid: ptrace access to it is denied: it is not dumpable (a setuid or setgid program, or one that called prctl(PR_SET_DUMPABLE, 0)): only CAP_SYS_PTRACE (sudo) may trace it" \
		"$work/nd.err" || fail_ "a process not dumpable: $(cat "$work/nd.err")"
	kill "$npid"
fi
# Under sudo the command runs as the user; once armed the tracer keeps only
# CAP_KILL (to stop it) and CAP_SYS_PTRACE (to restore it at the end).
held sudo --backend inject
[ "$(uid_of "$spid")" = 65534 ] || fail_ "the command does not run as the sudo user"
[ "$(cap_eff "$otpid")" = 0000000000080020 ] ||
	fail_ "armed tracer has CapEff $(cap_eff "$otpid"), expected CAP_KILL and CAP_SYS_PTRACE"
kill -USR1 "$spid"
wait "$otpid" || fail_ "sudo: exit status $?"
grep -Eq '^outer +100 ' "$work/rsudo.txt" || fail_ "no scopes from the command run as nobody"

# Refused with one line and exit 1: a process another tracer holds, one
# under a seccomp filter.
"$STRESS" --stress-calls 10 --wait-go >"$work/busy.out" &
spid=$!
cleanup_pids="$spid"
wait_for "$work/busy.out" '^ready '
strace -p "$spid" -o /dev/null 2>/dev/null &
stpid=$!
cleanup_pids="$spid $stpid"
n=0
until grep -q "^TracerPid:[[:space:]]*$stpid" "/proc/$spid/status"; do
	n=$((n + 1)); [ $n -lt 100 ] || fail_ "strace did not attach"; sleep 0.05
done
expect_rc 1 /dev/null "$work/traced.err" "$OT" --backend inject -f outer -p "$spid"
grep -qxF "orbit-trace: cannot inject into process $spid: it is already traced by process $stpid (strace)" \
	"$work/traced.err" || fail_ "already traced: $(cat "$work/traced.err")"
kill "$stpid"
wait "$stpid" 2>/dev/null || true
kill "$spid"
"$T/nobpf" "$STRESS" --stress-calls 10 --wait-go >"$work/sec.out" &
spid=$!
cleanup_pids="$spid"
wait_for "$work/sec.out" '^ready '
expect_rc 1 /dev/null "$work/sec.err" "$OT" --backend inject -f outer -p "$spid"
grep -qxF "orbit-trace: cannot inject into process $spid: thread $spid runs under a seccomp filter (the system calls inject makes there may be refused or kill it)" \
	"$work/sec.err" || fail_ "seccomp: $(cat "$work/sec.err")"
kill "$spid"
# --restore while a capture runs: that capture named, not gdb or strace
# (issue 34); the capture then ends as usual.
"$STRESS" --stress-calls 100000 --stress-hz 100 --wait-go >"$work/live.out" &
spid=$!
cleanup_pids="$spid"
wait_for "$work/live.out" '^ready '
"$OT" -v --backend inject -f outer -p "$spid" -o "$work/live.txt" 2>"$work/live.err" &
otpid=$!
cleanup_pids="$spid $otpid"
wait_for "$work/live.err" 'armed 1 functions'
expect_rc 1 "$work/rl.out" "$work/rl.err" "$OT" --restore -p "$spid"
grep -qxF "orbit-trace: cannot restore process $spid: ptrace: an orbit-trace capture (pid $otpid) holds it: it takes its patches back itself when it ends (SIGINT); wait for that, or end it" \
	"$work/rl.err" || fail_ "--restore during a capture: $(cat "$work/rl.err")"
kill -INT "$otpid"
wait "$otpid" || fail_ "the live capture: exit status $?: $(cat "$work/live.err")"
kill "$spid"
pass_
