# Debug info from debuginfod (Debian's server program, serving a directory
# on loopback): a program built with -g, its debug part split off
# (objcopy --only-keep-debug) and the program stripped, build id kept.
# Its static functions are named only by the debug file: without
# DEBUGINFOD_URLS they cannot be traced; with it they are fetched (a note
# while it downloads, none from the cache), counted as the program counts
# its calls, listed by -l, their parameters read by their DWARF names;
# the DWARF of a program stripped of it alone (strip -g) is fetched the
# same way; a -p target attached after a download loses no call; a build
# the server lacks is an error naming the build id.  And a real Debian
# binary: libc.so.6, its libc6-dbg debug file served by debuginfod to a
# capture that cannot see /usr/lib/debug, against bpftrace's count of the
# same static function with the local debug file.
. "$(dirname "$0")/lib.sh"
require_uprobes
for c in debuginfod curl cc objcopy strip; do
	command -v "$c" >/dev/null || skip_ "$c is not installed (make deps installs it)"
done
unset DEBUGINFOD_URLS DEBUGINFOD_CACHE_PATH DEBUGINFOD_PROGRESS DEBUGINFOD_VERBOSE
# The cache in a directory only root can write, outside the checkout
# (which may sit under a user's home: orbit-trace would not use it).
tmp=$(mktemp -d /tmp/ot-debuginfod.XXXXXX)
trap 'cleanup_; rm -rf "$tmp"' EXIT INT TERM

# The program, its debug file served, two stripped copies.
mkdir "$work/srv"
cc -std=gnu11 -g -O1 -o "$work/full" "$top/tests/e2e/targets/stripped.c"
objcopy --only-keep-debug "$work/full" "$work/srv/hidden.debug"
strip --strip-all -o "$work/hidden" "$work/full"
strip -g -o "$work/nodwarf" "$work/full"
id=$(readelf -n "$work/hidden" | awk '/Build ID/ { print $3 }')
[ -n "$id" ] || fail_ "no build id in the stripped program"
# Another build of it, whose debug info the server does not have.
cc -std=gnu11 -g -O1 -Wl,--build-id=0x0123abcd -o "$work/other" "$top/tests/e2e/targets/stripped.c"
strip --strip-all "$work/other"
nsrv=1
libc=/lib/x86_64-linux-gnu/libc.so.6
libcid=$(readelf -n "$libc" 2>/dev/null | awk '/Build ID/ { print $3 }')
libcdbg=/usr/lib/debug/.build-id/$(echo "$libcid" | cut -c1-2)/$(echo "$libcid" | cut -c3-).debug
if [ -n "$libcid" ] && [ -f "$libcdbg" ]; then
	cp "$libcdbg" "$work/srv/libc.debug"
	nsrv=2
fi

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
debuginfod -F -p "$port" -d "$work/db.sqlite" -t 0 -g 0 "$work/srv" >"$work/debuginfod.log" 2>&1 &
dpid=$!
cleanup_pids=$dpid
# Ready once it has scanned every file of the directory.
n=0
until curl -sf "http://127.0.0.1:$port/metrics" 2>/dev/null |
	grep -qx "scanned_files_total{source=\"file\"} $nsrv"; do
	n=$((n + 1))
	[ $n -le 600 ] || fail_ "debuginfod did not scan $work/srv: $(cat "$work/debuginfod.log")"
	sleep 0.1
done
url=http://127.0.0.1:$port

"$work/hidden" 300 >"$work/want"

# Without a server: the functions are not there to name.
expect_rc 2 /dev/null "$work/none.err" "$OT" -f hidden_outer -- "$work/hidden" 300
grep -qxF "orbit-trace: no function 'hidden_outer' in $work/hidden" "$work/none.err" ||
	fail_ "without DEBUGINFOD_URLS: $(cat "$work/none.err")"

export DEBUGINFOD_URLS="$url" DEBUGINFOD_CACHE_PATH="$tmp/cache"
# Fetched: one note while it downloads, the counts the program's own, its
# output as untraced, a parameter and the return value typed by DWARF.
"$OT" --json -o "$work/r.json" -f 'hidden_outer,hidden_inner(x)%ret' -- "$work/hidden" 300 \
	>"$work/out" 2>"$work/err" || fail_ "fetched: exit status $?: $(cat "$work/err")"
cmp -s "$work/out" "$work/want" || fail_ "the program printed '$(cat "$work/out")', untraced '$(cat "$work/want")'"
grep -Ex "orbit-trace: downloading the debug info of $work/hidden \(build id $id, [0-9]+ KB\) from $url/buildid/$id/debuginfo" \
	"$work/err" >/dev/null || fail_ "no download note: $(cat "$work/err")"
[ "$(wc -l <"$work/err")" = 1 ] || fail_ "more than the note on stderr: $(cat "$work/err")"
json_check "$work/r.json" 'j["status"] == "ok"' \
	'fn["hidden_outer"]["scopes"] == 300 and fn["hidden_inner"]["scopes"] == 300' \
	'fn["hidden_inner"]["depths"] == {"1": 300}' \
	'fn["hidden_inner"]["arg"]["count"] == 300 and fn["hidden_inner"]["arg"]["max"] == 99' \
	'fn["hidden_inner"]["ret"]["max"] == 198'
# From the cache: no download, no note.
"$OT" --json -o "$work/r2.json" -f hidden_outer -- "$work/hidden" 300 >/dev/null 2>"$work/err2" ||
	fail_ "cached: exit status $?: $(cat "$work/err2")"
[ ! -s "$work/err2" ] || fail_ "from the cache, stderr says: $(cat "$work/err2")"
json_check "$work/r2.json" 'fn["hidden_outer"]["scopes"] == 300'
[ -s "$tmp/cache/$id/debuginfo" ] || fail_ "not in the cache named by DEBUGINFOD_CACHE_PATH: $(ls -R "$tmp")"

# -l: every function the debug file names, where the unstripped program
# has them, and how many .dynsym lacks.
"$OT" -l -- "$work/hidden" >"$work/list" || fail_ "-l: exit status $?"
"$OT" -l -- "$work/full" >"$work/full.list" || fail_ "-l of the unstripped program: exit status $?"
awk '!/^#/' "$work/full.list" >"$work/full.fns"
awk '!/^#/' "$work/list" | cmp -s - "$work/full.fns" || fail_ "-l: $(cat "$work/list"), unstripped: $(cat "$work/full.list")"
grep -q '  hidden_outer$' "$work/list" || fail_ "-l does not list hidden_outer: $(cat "$work/list")"
n=$(sed -n '1s/^# .*: \([0-9]*\) functions in .*/\1/p' "$work/full.list")
dyn=$(DEBUGINFOD_URLS= "$OT" -l -f '*' -- "$work/hidden" 2>/dev/null | sed -n '1s/^# .*: \([0-9]*\) functions in .dynsym$/\1/p')
head -1 "$work/list" | grep -qxF "# $work/hidden: $n functions in .symtab of debuginfod's debug info ($((n - ${dyn:-0})) more than .dynsym)" ||
	fail_ "-l header: $(head -1 "$work/list") (unstripped: $n, .dynsym: ${dyn:-0})"

# strip -g: the symbols stay, DWARF goes; a parameter by its name fetches it.
unset DEBUGINFOD_URLS
expect_rc 2 /dev/null "$work/nodw.err" "$OT" -f 'hidden_inner(x)' -- "$work/nodwarf" 10
grep -q "has no DWARF" "$work/nodw.err" || fail_ "strip -g without a server: $(cat "$work/nodw.err")"
export DEBUGINFOD_URLS="$url"
"$OT" -q --json -o "$work/nodw.json" -f 'hidden_inner(x)' -- "$work/nodwarf" 200 >/dev/null 2>"$work/err" ||
	fail_ "strip -g: exit status $?: $(cat "$work/err")"
json_check "$work/nodw.json" 'fn["hidden_inner"]["scopes"] == 200 and fn["hidden_inner"]["arg"]["max"] == 99'

# -p: the download happens before anything is armed; the process's calls
# after that are all counted (a fresh cache: it downloads again).
"$work/hidden" 500 wait >"$work/p.out" &
p=$!
cleanup_pids="$dpid $p"
wait_for "$work/p.out" '^ready '
DEBUGINFOD_CACHE_PATH="$tmp/cache2" "$OT" -v --json -o "$work/p.json" -p "$p" -d 60 \
	-f hidden_outer,hidden_inner 2>"$work/p.err" &
ot=$!
cleanup_pids="$dpid $p $ot"
wait_for "$work/p.err" 'armed 2 functions'
grep -q "^orbit-trace: downloading the debug info of $work/hidden " "$work/p.err" ||
	fail_ "-p: no download: $(cat "$work/p.err")"
kill -USR1 "$p"
wait "$p" || fail_ "the -p target failed"
wait "$ot" || fail_ "-p: exit status $?: $(cat "$work/p.err")"
json_check "$work/p.json" 'j["status"] == "ok" and j["capture"]["ended_by"] == "target exit"' \
	'fn["hidden_outer"]["scopes"] == 500 and fn["hidden_inner"]["scopes"] == 500'

# A build the server does not have: the error names its build id.
expect_rc 2 /dev/null "$work/miss.err" "$OT" -f hidden_outer -- "$work/other" 10
printf '%s\n' "orbit-trace: no debuginfod server has the debug info of $work/other (build id 0123abcd): asked $url" \
	"orbit-trace: no function 'hidden_outer' in $work/other" >"$work/miss.want"
cmp -s "$work/miss.err" "$work/miss.want" || fail_ "missing build: $(cat "$work/miss.err")"
# A glob only needs it to be complete: a warning, and .dynsym's answer.
expect_rc 2 /dev/null "$work/glob.err" "$OT" -l -f 'hidden_*' -- "$work/other"
printf '%s\n' "orbit-trace: warning: no debuginfod server has the debug info of $work/other (build id 0123abcd): asked $url" \
	"orbit-trace: no function matches 'hidden_*' in $work/other" >"$work/glob.want"
cmp -s "$work/glob.err" "$work/glob.want" || fail_ "missing build, glob: $(cat "$work/glob.err")"
# No server answering: the reason.
expect_rc 2 /dev/null "$work/down.err" env DEBUGINFOD_URLS=http://127.0.0.1:1 \
	DEBUGINFOD_CACHE_PATH="$tmp/cache3" "$OT" -f hidden_outer -- "$work/hidden" 10
grep -qxF "orbit-trace: cannot fetch the debug info of $work/hidden (build id $id) from debuginfod (http://127.0.0.1:1): Connection refused" \
	"$work/down.err" || fail_ "no server: $(cat "$work/down.err")"
# A cache someone else could write is not used: orbit-trace's own is.
mkdir "$tmp/theirs"
chown nobody "$tmp/theirs"
HOME=$tmp DEBUGINFOD_CACHE_PATH="$tmp/theirs" "$OT" -l -f hidden_outer -- "$work/hidden" >/dev/null 2>"$work/theirs.err" ||
	fail_ "another user's cache: exit status $?: $(cat "$work/theirs.err")"
grep -qxF "orbit-trace: warning: DEBUGINFOD_CACHE_PATH=$tmp/theirs is not for orbit-trace's user ($tmp/theirs is another user's): using its own cache" \
	"$work/theirs.err" || fail_ "another user's cache: $(cat "$work/theirs.err")"
[ -z "$(ls -A "$tmp/theirs")" ] || fail_ "wrote into another user's cache: $(ls -A "$tmp/theirs")"

# A real Debian binary: libc.so.6, in a mount namespace where
# /usr/lib/debug is empty, its static new_do_write (stdio's flush) from
# the libc6-dbg file debuginfod serves; seq's flushes counted, against
# bpftrace on the same function with the local file.
[ "$nsrv" = 2 ] || skip_ "no libc6-dbg debug file for $libc (make deps installs it)"
command -v unshare >/dev/null || skip_ "unshare is not installed"
command -v bpftrace >/dev/null || skip_ "bpftrace is not installed (make deps installs it)"
cp "$(command -v seq)" "$work/ot-seq"
DEBUGINFOD_CACHE_PATH="$tmp/cache4" unshare -m sh -c 'mount -t tmpfs none /usr/lib/debug && exec "$@"' sh \
	"$OT" --json -o "$work/libc.json" -f 'libc.so.6:new_do_write' -- "$work/ot-seq" 200000 \
	>"$work/seq.out" 2>"$work/libc.err" || fail_ "libc: exit status $?: $(cat "$work/libc.err")"
grep -q "^orbit-trace: downloading the debug info of /.*/libc.so.6 (build id $libcid, " "$work/libc.err" ||
	fail_ "libc's debug info was not downloaded: $(cat "$work/libc.err")"
seq 200000 | cmp -s - "$work/seq.out" || fail_ "seq's output changed"
bpftrace -q -e "BEGIN { printf(\"ready\\n\"); }
uprobe:$libc:new_do_write /comm == \"ot-seq\"/ { @n = count(); }" >"$work/bt.txt" 2>"$work/bt.err" &
bt=$!
cleanup_pids="$dpid $bt"
wait_for "$work/bt.txt" ready 30
"$work/ot-seq" 200000 >"$work/seq2.out"
kill -INT "$bt"
wait "$bt" || fail_ "bpftrace: $(cat "$work/bt.err")"
want=$(awk '/^@n:/ { print $2 }' "$work/bt.txt")
[ -n "$want" ] || fail_ "bpftrace counted nothing: $(cat "$work/bt.txt")"
json_check "$work/libc.json" 'j["status"] == "ok"' "fn['libc.so.6:new_do_write']['scopes'] == $want"
pass_
