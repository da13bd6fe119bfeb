# Every bad invocation that needs a real process or file: its exact
# message and exit status 2 (usage) or 1 (runtime), and that nothing runs.
# The option parser's own messages are in tests/unit/test_options.c.
. "$(dirname "$0")/lib.sh"

try="Try 'orbit-trace --help' for more information."
n=0
# check STATUS "MESSAGE" [VAR=VALUE ...] -- ARGS...
check() {
	want_rc=$1 want=$2; shift 2
	envs=""
	while [ "$1" != "--" ]; do envs="$envs $1"; shift; done
	shift
	n=$((n + 1))
	set +e
	env $envs "$OT" "$@" >"$work/out.$n" 2>"$work/err.$n"
	rc=$?
	set -e
	[ "$rc" = "$want_rc" ] || fail_ "orbit-trace $*: exit $rc, expected $want_rc: $(cat "$work/err.$n")"
	printf '%s\n' "$want" >"$work/exp.$n"
	diff -u "$work/exp.$n" "$work/err.$n" || fail_ "orbit-trace $*: wrong message"
	[ ! -s "$work/out.$n" ] || fail_ "orbit-trace $*: wrote to stdout"
}

# Every option's bad values are pinned by tests/unit/test_options.c; here
# only main's part: the message, the hint, exit status 2, nothing on stdout.
check 2 "orbit-trace: unknown option '--bogus'
$try" -- --bogus -f x -p 1
check 2 "orbit-trace: ORBIT_DRAIN_MS '101' is invalid: expected an integer in 1..100
$try" ORBIT_DRAIN_MS=101 -- -f outer -- "$STRESS"
check 1 "orbit-trace: no process with pid 4194304" -- -p 4194304 -f outer
check 1 "orbit-trace: no process with pid 4194304" -- --restore -p 4194304
check 1 "orbit-trace: cannot run no-such-command-xyz: command not found in PATH" -- \
	-f outer -- no-such-command-xyz
# Executable, but neither ELF nor "#!" (a #! script is traced: resolve.sh).
printf 'echo hi\n' >"$work/script.sh"
chmod +x "$work/script.sh"
check 1 "orbit-trace: $(realpath "$work/script.sh") is not an ELF file" -- \
	-f outer -- "$work/script.sh"
# Names that exist but are no function defined here.
check 2 "orbit-trace: 'sink' in $STRESS is a data object, not a function" -- -f outer,sink -- "$STRESS"
check 2 "orbit-trace: 'printf' is not defined in $STRESS: it is imported from a shared library; name the library's function instead
orbit-trace: did you mean libc.so.6:printf? printf is not defined in $STRESS but in the library $(ldd "$STRESS" | awk '/libc\.so\.6/ { print $3 }') (-f 'libc.so.6:printf')" -- \
	-f printf -- "$STRESS"

# An IFUNC is not the code that runs; an old hidden version is left out.
libc=$(realpath "$(ldd "$STRESS" | awk '/libc\.so\.6/ { print $3 }')")
check 2 "orbit-trace: 'memcpy' in $libc is an IFUNC: the loader picks one of its implementations when the program starts; trace that one by name (internal names need the library's .symtab)" -- \
	-f 'libc.so.6:memcpy' -- "$STRESS"

# Files that are not traceable ELF executables.
w=$(realpath "$work")
head -c 3000 "$STRESS" >"$w/truncated"
cp "$STRESS" "$w/arm64"
printf '\267\000' | dd of="$w/arm64" bs=1 seek=18 conv=notrunc 2>/dev/null
python3 -c 'import struct,sys; d=bytearray(open(sys.argv[1],"rb").read()); struct.pack_into("<Q", d, 0x28, len(d) + 4096); open(sys.argv[2],"wb").write(d)' \
	"$STRESS" "$w/badshoff"
printf 'void _start(void) { for (;;); }\n' >"$w/nosym.c"
cc -nostdlib -static -o "$w/nosym" "$w/nosym.c" && strip "$w/nosym"
chmod +x "$w/truncated" "$w/arm64" "$w/badshoff"
check 1 "orbit-trace: $w/truncated is truncated or corrupt: its section headers lie beyond the end of the file (3000 bytes)" -- \
	-f outer -- "$w/truncated"
check 1 "orbit-trace: $w/arm64 is an ELF file for another machine (e_machine 183)" -- -f outer -- "$w/arm64"
check 1 "orbit-trace: $w/badshoff is truncated or corrupt: its section headers lie beyond the end of the file ($(stat -c %s "$w/badshoff") bytes)" -- \
	-f outer -- "$w/badshoff"
check 1 "orbit-trace: $w/nosym has no symbol table: no .symtab or .dynsym, and no separate debug info (.gnu_debuglink beside it, in .debug/ or /usr/lib/debug, or by build-id in /usr/lib/debug/.build-id)" -- \
	-f _start -- "$w/nosym"
check 1 "orbit-trace: no user 'no-such-user-xyz'" -- --user no-such-user-xyz -f outer -- "$STRESS"

# A zombie: its parent execs without reaping it.
sh -c 'sleep 0.1 & echo $! >"$1"; exec sleep 5' sh "$w/zpid" &
cleanup_pids=$!
wait_for "$w/zpid" .
zpid=$(cat "$w/zpid")
n=0
until [ "$(cut -d' ' -f3 "/proc/$zpid/stat" 2>/dev/null)" = Z ]; do
	n=$((n + 1)); [ $n -lt 50 ] || fail_ "no zombie"; sleep 0.1
done
check 1 "orbit-trace: process $zpid is a zombie: it has exited and has no code to trace" -- -p "$zpid" -f outer

[ -d /proc/2 ] && [ ! -e /proc/2/exe ] 2>/dev/null && [ "$(cat /proc/2/comm)" = kthreadd ] &&
	check 1 "orbit-trace: process 2 is a kernel thread: it has no user-space code" -- -p 2 -f outer

# --help goes to stdout and exits 0; -V prints the version.
"$OT" --help >"$work/help" || fail_ "--help exit status $?"
grep -q '^usage: orbit-trace' "$work/help" || fail_ "--help has no usage line"
"$OT" -V | grep -qx 'orbit-trace [0-9.]*' || fail_ "-V prints no version"
pass_
