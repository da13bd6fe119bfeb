# Programs nobody here wrote (xz with liblzma, also on two threads; gzip
# with libc, also exec'd by env; CPython, its hottest functions with
# default settings, and forking; pigz on two threads through libz; sqlite3
# with libsqlite3) and a C++ program throwing on two threads: the traced
# program's output and exit status equal the untraced run's, nothing is
# lost, and every count equals bpftrace's on the same uprobes in an
# identical run (tests/real/diff.py); with the default backend and with
# --backend inject.
. "$(dirname "$0")/lib.sh"
require_uprobes
for c in bpftrace xz gzip pigz sqlite3; do
	command -v "$c" >/dev/null || skip_ "$c is not installed (make deps installs it)"
done
python3 "$top/tests/real/diff.py" "$OT" "$work" >"$work/out" 2>"$work/err" ||
	fail_ "$(cat "$work/err")"
# The same programs traced in their own memory (--backend inject): the
# same counts as bpftrace's, the same output as untraced.
if [ "$(uname -m)" = x86_64 ]; then
	python3 "$top/tests/real/diff.py" "$OT" "$work" --backend inject >"$work/inject.out" \
		2>"$work/inject.err" || fail_ "--backend inject: $(cat "$work/inject.err")"
fi
pass_
