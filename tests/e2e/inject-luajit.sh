# LuaJIT under --backend inject (issue 30, item 3), a runtime nobody here
# wrote: a C function called from Lua through the FFI (from a loop the JIT
# compiles, and calling back into Lua), and LuaJIT's own functions (its
# exported lua_*/luaL_* API: Debian's luajit has no other symbols).
# LuaJIT unwinds its C frames itself (its errors), so inject sees returns
# at return instructions there, never moving a return address; a
# function whose returns cannot all be patched is refused with the
# reason (once: a function not armed has no counts to call inexact).
# Output and exit status as untraced, each count equal to the
# uprobe backend's (and to bpftrace's where it is installed) or refused.
# The library is preloaded: inject patches only code mapped when it arms
# (into orbit-trace too, whose ASan build is told not to mind).
. "$(dirname "$0")/lib.sh"
[ "$(uname -m)" = x86_64 ] || skip_ "inject is for x86-64"
LJ=$(command -v luajit || true)
[ -n "$LJ" ] || skip_ "no luajit (apt-get install luajit)"
lib="$top/build/targets/libffiwork.so"
lua="$top/tests/e2e/targets/ffi.lua"
F="$lib:ffiwork,$lib:ffiapply,lua_pcall,luaL_where,lua_pushlstring"
n=100000

LD_PRELOAD=$lib "$LJ" "$lua" "$lib" $n >"$work/plain.out"
[ "$(cat "$work/plain.out")" = "calls $n sum 15000250000 applied 200202000 caught 1000" ] ||
	fail_ "luajit untraced: $(cat "$work/plain.out")"
LD_PRELOAD=$lib ASAN_OPTIONS=verify_asan_link_order=0 "$OT" --backend inject --json -o "$work/i.json" -f "$F" -- "$LJ" "$lua" "$lib" $n \
	>"$work/i.out" 2>"$work/i.err" || fail_ "inject: exit status $?: $(cat "$work/i.err")"
cmp -s "$work/i.out" "$work/plain.out" || fail_ "inject: output changed: $(cat "$work/i.out")"
json_check "$work/i.json" 'j["target"]["exit_status"] == 0' \
	'j["inject"]["stack_walker"] == "LuaJIT"' \
	'fn["libffiwork.so:ffiwork"]["scopes"] == 101000 and fn["libffiwork.so:ffiapply"]["scopes"] == 1000' \
	'all(f["unclosed"] + f["orphans"] == 0 for f in j["functions"])' \
	'all("LuaJIT walks its stacks" in r["reason"] for r in j["inject"]["refused"])' \
	'j["status"] == ("lossy" if j["inject"]["refused"] else "ok")' \
	'all(" functions were not armed: inject could not patch them" in r for r in j["reasons"])'
if [ "$(id -u)" = 0 ] && [ -r /sys/bus/event_source/devices/uprobe/type ]; then
	LD_PRELOAD=$lib ASAN_OPTIONS=verify_asan_link_order=0 "$OT" --json -o "$work/u.json" -f "$F" -- "$LJ" "$lua" "$lib" $n \
		>"$work/u.out" 2>"$work/u.err" || fail_ "uprobes: exit status $?: $(cat "$work/u.err")"
	cmp -s "$work/u.out" "$work/plain.out" || fail_ "uprobes: output changed: $(cat "$work/u.out")"
	json_check "$work/u.json" 'j["status"] == "ok" and fn["luaL_where"]["scopes"] >= 1000'
	python3 - "$work/i.json" "$work/u.json" <<'PY' || fail_ "inject's counts differ from the uprobes'"
import json, sys
i, u = (json.load(open(a)) for a in sys.argv[1:])
refused = {r["function"] for r in i["inject"]["refused"]}
uc = {f["name"]: f["scopes"] for f in u["functions"]}
bad = [(f["name"], f["scopes"], uc[f["name"]]) for f in i["functions"]
       if f["name"] not in refused and f["scopes"] != uc[f["name"]]]
sys.exit(print(bad) or 1 if bad else 0)
PY
	if command -v bpftrace >/dev/null; then
		LD_PRELOAD=$lib bpftrace -e "uprobe:$LJ:luaL_where { @n = count(); }" \
			-c "$LJ $lua $lib $n" >"$work/bt.out" 2>&1 || fail_ "bpftrace: $(cat "$work/bt.out")"
		bt=$(sed -n 's/^@n: \([0-9]*\)$/\1/p' "$work/bt.out")
		json_check "$work/u.json" "fn['luaL_where']['scopes'] == $bt"
	fi
fi
pass_
