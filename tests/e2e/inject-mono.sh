# Mono under --backend inject (issue 30, item 3), Debian's mono-runtime:
# C functions called from C# through P/Invoke, one calling a delegate
# back that throws through its C frame to the C# caller.  Mono unwinds
# through C frames: a moved return address made that exception
# "unhandled" (exit status 1, said ok), as Debian's mono links its
# runtime in (no libmonosgen mapped).  Recognized by its exported
# mono_jit_init, returns are seen at return instructions: output and exit
# status as untraced, counts equal to the uprobe backend's, the calls
# the exceptions left said (not ok).  The library is preloaded: inject
# patches only code mapped when it arms (into orbit-trace too, whose ASan
# build is told not to mind).
. "$(dirname "$0")/lib.sh"
[ "$(uname -m)" = x86_64 ] || skip_ "inject is for x86-64"
command -v mono >/dev/null && command -v mcs >/dev/null ||
	skip_ "no mono (apt-get install mono-runtime mono-mcs)"
T="$top/build/targets"
lib="$T/libnwork.so"
mcs -out:"$work/pinvoke.exe" "$top/tests/e2e/targets/pinvoke.cs" >"$work/mcs.out" 2>&1 ||
	fail_ "mcs: $(cat "$work/mcs.out")"
F="$lib:nwork,$lib:napply,mono_gc_collect"
export LD_LIBRARY_PATH="$T"

LD_PRELOAD=$lib mono "$work/pinvoke.exe" 100000 >"$work/plain.out"
[ "$(cat "$work/plain.out")" = "calls 100000 sum 15000250000 applied 2010208108 caught 3300 through 100" ] ||
	fail_ "mono untraced: $(cat "$work/plain.out")"
LD_PRELOAD=$lib ASAN_OPTIONS=verify_asan_link_order=0 "$OT" --backend inject --json -o "$work/i.json" -f "$F" -- mono "$work/pinvoke.exe" 100000 \
	>"$work/i.out" 2>"$work/i.err" || fail_ "inject: exit status $?: $(cat "$work/i.err")"
cmp -s "$work/i.out" "$work/plain.out" || fail_ "inject: output changed: $(cat "$work/i.out") $(cat "$work/i.err")"
json_check "$work/i.json" 'j["target"]["exit_status"] == 0' 'j["inject"]["stack_walker"] == "Mono"' \
	'fn["libnwork.so:nwork"]["scopes"] == 109900' \
	'fn["libnwork.so:napply"]["scopes"] + fn["libnwork.so:napply"]["unclosed"] + fn["libnwork.so:napply"]["duplicates"] == 10000' \
	'j["status"] == "lossy" and any(r.startswith("libnwork.so:napply: ") for r in j["reasons"])'
if [ "$(id -u)" = 0 ] && [ -r /sys/bus/event_source/devices/uprobe/type ]; then
	LD_PRELOAD=$lib ASAN_OPTIONS=verify_asan_link_order=0 "$OT" --json -o "$work/u.json" -f "$F" -- mono "$work/pinvoke.exe" 100000 \
		>"$work/u.out" 2>"$work/u.err" || fail_ "uprobes: exit status $?: $(cat "$work/u.err")"
	cmp -s "$work/u.out" "$work/plain.out" || fail_ "uprobes: output changed: $(cat "$work/u.out")"
	python3 - "$work/i.json" "$work/u.json" <<'PY' || fail_ "inject's counts differ from the uprobes'"
import json, sys
i, u = (json.load(open(a)) for a in sys.argv[1:])
key = lambda j: [(f["name"], f["scopes"], f["unclosed"]) for f in j["functions"]]
sys.exit(print(key(i), key(u)) or 1 if key(i) != key(u) else 0)
PY
fi
pass_
