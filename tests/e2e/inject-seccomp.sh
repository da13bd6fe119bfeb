# --backend inject and a seccomp filter installed after arming (issue 32,
# item 4): the target forbids itself mmap, mprotect and munmap (killing
# the process) while traced; the disarm then makes no system call in it:
# its code is put back by ptrace writes, the regions stay mapped, unused,
# and the report says so.  The target lives on and prints what it prints
# untraced, exit status 0.
. "$(dirname "$0")/lib.sh"
[ "$(uname -m)" = x86_64 ] || skip_ "inject is for x86-64"
T="$top/build/targets"

"$T/seccomp" 1000 >"$work/plain.out" <<EOF2
go
go
EOF2
mkfifo "$work/in"
"$T/seccomp" 1000 <"$work/in" >"$work/t.out" 2>&1 &
spid=$!
cleanup_pids=$spid
exec 3>"$work/in"
wait_for "$work/t.out" '^ready '
"$OT" -v --backend inject --json -o "$work/r.json" -p "$spid" -f work 2>"$work/err" &
ot=$!
cleanup_pids="$spid $ot"
wait_for "$work/err" 'armed 1 functions'
echo go >&3
wait_for "$work/t.out" '^filtered'
grep -q '^Seccomp:	2' "/proc/$spid/status" || fail_ "no filter in the target"
kill -INT "$ot"
wait "$ot" || fail_ "orbit-trace: exit status $?: $(cat "$work/err")"
kill -0 "$spid" 2>/dev/null || fail_ "the target did not survive the disarm"
echo go >&3
exec 3>&-
st=0
wait "$spid" || st=$?
[ "$st" = 0 ] || fail_ "the target exited with status $st: $(cat "$work/t.out")"
sed 1d "$work/t.out" >"$work/traced"
sed 1d "$work/plain.out" >"$work/untraced"
diff -u "$work/untraced" "$work/traced" >"$work/diff" || fail_ "output differs from untraced: $(cat "$work/diff")"
json_check "$work/r.json" 'fn["work"]["scopes"] == 1000' \
	'j["inject_removal"]["left_mapped_bytes"] > 0' \
	'"seccomp" in j["inject_removal"]["left_why"]'
pass_
