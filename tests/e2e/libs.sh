# Functions in shared libraries: named by path before the program starts,
# by soname in a running process (its mappings), and a plugin named by
# path that is only dlopen'ed later (uprobes bind to the file).
. "$(dirname "$0")/lib.sh"
T="$top/build/targets"

# -l shows which file each name resolved to, and arms nothing.
"$OT" -l -f "$T/libwork.so:work_*,main" -- "$T/uselib" >"$work/list" || fail_ "-l: exit status $?"
grep -q "^# $T/libwork.so: " "$work/list" || fail_ "-l does not name the library: $(cat "$work/list")"
[ "$(awk '!/^#/ { print $3 }' "$work/list" | tr '\n' ' ')" = "work_add work_mul main " ] ||
	fail_ "-l selection: $(cat "$work/list")"
got=$("$OT" -l -f "$T/libwork.so:*" -- "$T/uselib" | awk '!/^#/ { print $3 }' | sort | tr '\n' ' ')
want=$(nm --defined-only "$T/libwork.so" | awk '$2 ~ /^[tT]$/ { print $3 }' | sort | tr '\n' ' ')
[ -n "$want" ] && [ "$got" = "$want" ] || fail_ "-l libwork.so:*: '$got', nm: '$want'"
expect_rc 1 /dev/null "$work/nolib" "$OT" -f 'libnope.so:f' -- "$T/uselib"
grep -qxF "orbit-trace: no library 'libnope.so' loaded by $T/uselib (ld.so --list), in LD_LIBRARY_PATH or the standard directories (name it by path)" \
	"$work/nolib" || fail_ "unknown library: $(cat "$work/nolib")"

require_uprobes
"$OT" --json -o "$work/cmd.json" -f "$T/libwork.so:work_add,$T/libwork.so:work_mul,$T/libplug.so:plug_run" \
	-- "$T/uselib" 200 dlopen >"$work/cmd.out" 2>"$work/cmd.err" || fail_ "exit status $?: $(cat "$work/cmd.err")"
grep -q '"plug_run": 600' "$work/cmd.out" || fail_ "the program did not load its plugin"
json_check "$work/cmd.json" \
	'[(f["name"], f["scopes"]) for f in j["functions"]] == [("libwork.so:work_add", 200), ("libwork.so:work_mul", 400), ("libplug.so:plug_run", 600)]' \
	'j["functions"][2]["binary"].endswith("/libplug.so")'

# -p with a soname: found in the running process's mappings.
"$T/uselib" 300 wait >"$work/p.out" &
upid=$!
cleanup_pids=$upid
wait_for "$work/p.out" '^ready '
"$OT" -v --json -o "$work/p.json" -p "$upid" -f 'libwork.so:work_*' 2>"$work/p.err" &
otpid=$!
cleanup_pids="$upid $otpid"
wait_for "$work/p.err" 'armed 2 functions'
kill -USR1 "$upid"
wait "$otpid" || fail_ "-p: exit status $?"
json_check "$work/p.json" \
	'[(f["name"], f["scopes"]) for f in j["functions"]] == [("libwork.so:work_add", 300), ("libwork.so:work_mul", 600)]' \
	'j["functions"][0]["binary"] == "'"$(realpath "$T/libwork.so")"'"'
pass_
