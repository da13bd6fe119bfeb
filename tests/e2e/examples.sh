# Every example of the README and the man page is run (issue 34, item 8):
# examples.py extracts each orbit-trace command line of their code blocks
# and runs it as written, with a stand-in (build/targets/examples) where it
# names a program or a pid, and Debian's php8.2, make and node exporter
# where it names them; each must exit 0 with no option refused, so an
# option renamed or a syntax changed breaks this test, not a reader.
. "$(dirname "$0")/lib.sh"
require_uprobes
S="$top/build/targets/examples"
[ -x "$S" ] || fail_ "no $S (make targets)"
for p in php8.2 make prometheus-node-exporter; do
	command -v "$p" >/dev/null || skip_ "$p is not installed (make deps installs it)"
done
for p in game server app vm orbit-stress; do cp "$S" "$work/$p"; done
mkdir -p "$work/tests/stress"
cp "$STRESS" "$work/tests/stress/orbit-stress"
cp "$STRESS" "$work/orbit-stress"
printf 'all: a b\na b:\n\t@true\n' >"$work/Makefile"
cat >"$work/app.php" <<'PHP'
<?php
function leaf($n) { return $n * 2; }
function work($n) { $s = 0; for ($i = 0; $i < $n; $i++) $s += leaf($i); return $s; }
echo work(100), "\n";
PHP
/usr/bin/python3.11 "$top/tests/e2e/examples.py" "$OT" "$work" "$S" \
	"$top/man/orbit-trace.1" "$top/README.md" >"$work/examples.log" 2>&1 ||
	fail_ "$(grep -v '^ok ' "$work/examples.log")"
grep -q '^ok ' "$work/examples.log" || fail_ "no example ran: $(cat "$work/examples.log")"
cat "$work/examples.log" | grep -v '^ok ' >&2 || true
pass_
