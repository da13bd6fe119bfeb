# Programs nobody here wrote (xz with liblzma, gzip with libc, CPython,
# sqlite3 with libsqlite3): the traced program's output and exit status
# equal the untraced run's, and every count equals bpftrace's on the same
# uprobes in an identical run (tests/real/diff.py).
. "$(dirname "$0")/lib.sh"
require_uprobes
for c in bpftrace xz gzip sqlite3; do
	command -v "$c" >/dev/null || skip_ "$c is not installed (make deps installs it)"
done
python3 "$top/tests/real/diff.py" "$OT" "$work" >"$work/out" 2>"$work/err" ||
	fail_ "$(cat "$work/err")"
pass_
