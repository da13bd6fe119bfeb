# Names and commands as the system resolves them: a soname as ld.so finds
# it (DT_RUNPATH with $ORIGIN), a versioned symbol by its plain name (the
# default version), a "#!" script (its interpreter is traced), and the
# process keeps the name it was started by.
. "$(dirname "$0")/lib.sh"
T="$top/build/targets"

# Without root: -l resolves libver.so.1 through usever's RUNPATH=$ORIGIN,
# and vfn is vfn@@ORBIT_2 (= vfn_new), not the old vfn@ORBIT_1.
"$OT" -l -f 'libver.so.1:vfn' -- "$T/usever" >"$work/list" 2>"$work/list.err" ||
	fail_ "-l libver.so.1:vfn: exit status $?: $(cat "$work/list.err")"
grep -qxF "# $T/libver.so.1: 9 functions in .symtab" "$work/list" || fail_ "-l: $(cat "$work/list")"
new=$(nm "$T/libver.so.1" | awk '$3 == "vfn_new" { print $1 }' | sed 's/^0*//')
grep -qx "0x$new  *[0-9]*  vfn" "$work/list" || fail_ "-l: not the default version: $(cat "$work/list")"

# libc's debug .symtab (libc6-dbg) spells versioned functions NAME@@VER
# (default) and NAME@VER (old): NAME is the default one.
dpkg-query -W -f='${Status}' libc6-dbg 2>/dev/null | grep -q 'ok installed' ||
	skip_ "libc6-dbg is not installed (make deps installs it)"
"$OT" -l -f 'libc.so.6:pthread_mutex_lock,libc.so.6:fopen,libc.so.6:realpath,libc.so.6:clock_nanosleep' \
	-- /bin/true >"$work/libc" 2>"$work/libc.err" || fail_ "libc names: exit status $?: $(cat "$work/libc.err")"
grep -q "functions in .symtab of the separate debug info" "$work/libc" || fail_ "not the debug .symtab: $(cat "$work/libc")"
real=$(readelf --dyn-syms -W /lib/x86_64-linux-gnu/libc.so.6 | awk '$8 == "realpath@@GLIBC_2.3" { print $2 }' | sed 's/^0*//')
[ -n "$real" ] && grep -qx "0x$real  *[0-9]*  realpath" "$work/libc" || fail_ "realpath is not the default version 0x$real: $(cat "$work/libc")"
[ "$(grep -vc '^#' "$work/libc")" = 4 ] || fail_ "libc names: $(cat "$work/libc")"

# A command that is a wrapper script, as pyenv's python3 shim (a bash
# script that execs the real python3): the name misses in its interpreter,
# and the message says why and how to name the program's file.
V="$T/values"
mkdir -p "$work/bin"
printf '#!/bin/sh\nexec "%s" "$@"\n' "$V" >"$work/bin/values"
chmod +x "$work/bin/values"
expect_rc 2 /dev/null "$work/shim.err" env PATH="$work/bin:$PATH" "$OT" -f take -- values 100
grep -qxF "orbit-trace: no function 'take' in $(realpath /bin/sh), which runs the script values ($work/bin/values); a script may exec another program: name that program's file, as in -f /path/to/program:take" \
	"$work/shim.err" || fail_ "wrapper script: $(cat "$work/shim.err")"
expect_rc 2 /dev/null "$work/shimglob.err" "$OT" -f 'tak*' -- "$work/bin/values" 100
grep -qxF "orbit-trace: no function matches 'tak*' in $(realpath /bin/sh), which runs the script $work/bin/values; a script may exec another program: name that program's file, as in -f /path/to/program:tak*" \
	"$work/shimglob.err" || fail_ "wrapper script, glob: $(cat "$work/shimglob.err")"

require_uprobes

# FILE:NAME, as the message says: the calls the program exec'd by the
# script makes are counted (the same process), on both uprobe backends.
"$V" 100 >"$work/shim.want"
for b in multi perf; do
	env PATH="$work/bin:$PATH" "$OT" --backend $b -q --json -o "$work/shim-$b.json" -f "$V:take" -- \
		values 100 >"$work/shim-$b.out" 2>"$work/shim-$b.err" ||
		fail_ "wrapper script, $b: exit status $?: $(cat "$work/shim-$b.err")"
	cmp -s "$work/shim-$b.out" "$work/shim.want" || fail_ "wrapper script, $b: printed $(cat "$work/shim-$b.out")"
	json_check "$work/shim-$b.json" 'j["status"] == "ok"' \
		"j['target']['binary'] == '$(realpath /bin/sh)' and j['target']['exit_status'] == 0" \
		'[(f["name"], f["scopes"], f["unclosed"], f["orphans"]) for f in j["functions"]] == [("values:take", 100, 0, 0)]'
done
"$OT" -q --json -o "$work/ver.json" -f 'libver.so.1:vfn' -- "$T/usever" 100 >"$work/ver.out" 2>"$work/ver.err" ||
	fail_ "libver.so.1:vfn: exit status $?: $(cat "$work/ver.err")"
grep -qx "sum=5150" "$work/ver.out" || fail_ "usever printed $(cat "$work/ver.out")"
json_check "$work/ver.json" '[(f["name"], f["scopes"]) for f in j["functions"]] == [("libver.so.1:vfn", 100)]' \
	"j['functions'][0]['binary'] == '$T/libver.so.1'"

# A #! script: its interpreter runs, and is traced; status and output kept.
printf '#!/bin/sh\necho "script $1"\nexit 3\n' >"$work/s.sh"
chmod +x "$work/s.sh"
"$OT" -q --json -o "$work/s.json" -f libc.so.6:getpid -- "$work/s.sh" hi >"$work/s.out" 2>"$work/s.err" ||
	fail_ "script: exit status $?: $(cat "$work/s.err")"
grep -qx "script hi" "$work/s.out" || fail_ "script printed $(cat "$work/s.out")"
json_check "$work/s.json" "j['target']['binary'] == '$(realpath /bin/sh)'" 'j["target"]["exit_status"] == 3'

# The process is named as the user named the command (a symlink here, as
# python3 -> python3.11), not by the file it resolves to.
ln -s "$(command -v cat)" "$work/mycat"
"$OT" -q -o /dev/null -f libc.so.6:getpid -- "$work/mycat" /proc/self/comm >"$work/comm" 2>"$work/comm.err" ||
	fail_ "mycat: exit status $?: $(cat "$work/comm.err")"
grep -qx mycat "$work/comm" || fail_ "the process is named $(cat "$work/comm")"
pass_
