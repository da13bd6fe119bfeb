# --lang arms the runtime the target runs (issue 34): a program that
# embeds Debian's libpython3.11 (nobody here wrote the runtime) has its
# Python functions' probes armed in the library it maps, not in
# /usr/bin/python3.11 it never runs (0 hits and "ok" before); a python
# built without its USDT probes (a copy with .note.stapsdt removed, as
# pyenv builds it) is refused saying why.
. "$(dirname "$0")/lib.sh"
[ -r /usr/include/python3.11/Python.h ] || skip_ "libpython3.11-dev is not installed (make deps installs it)"
cat >"$work/embed.c" <<'C'
#include <Python.h>
/* Runs the script argv[1] in an embedded interpreter. */
int main(int argc, char **argv)
{
	FILE *f;
	int r;

	if (argc < 2 || !(f = fopen(argv[1], "r")))
		return 2;
	Py_Initialize();
	r = PyRun_SimpleFile(f, argv[1]);
	fclose(f);
	return Py_FinalizeEx() < 0 ? 1 : r;
}
C
gcc -I/usr/include/python3.11 -o "$work/embed" "$work/embed.c" -lpython3.11 ||
	fail_ "cannot build the embedding program"
printf 'def work(n):\n    return n + 1\nfor i in range(300):\n    work(i)\nprint("done")\n' >"$work/s.py"
lib=$(ldd "$work/embed" | awk '/libpython3\.11\.so/ { print $3 }')
[ -n "$lib" ] || fail_ "embed does not load libpython3.11"

require_uprobes
"$OT" -v --lang python --json -o "$work/r.json" -- "$work/embed" "$work/s.py" >"$work/out" 2>"$work/err" ||
	fail_ "embed: exit status $?: $(cat "$work/err")"
grep -qx done "$work/out" || fail_ "embed's output: $(cat "$work/out")"
grep -qxF "orbit-trace: --lang python: the target runs $lib: its probes are armed there" "$work/err" ||
	fail_ "-v does not name libpython: $(cat "$work/err")"
json_check "$work/r.json" \
	'fn["usdt:libpython3.11.so.1.0:python:function__return"]["hits"] > 300' \
	'fn["usdt:libpython3.11.so.1.0:python:function__entry"]["hits"] > 0'

# The runtime without its probes: refused, nothing armed, not "ok".
objcopy --remove-section .note.stapsdt /usr/bin/python3.11 "$work/python3.11" ||
	fail_ "objcopy"
expect_rc 2 /dev/null "$work/bare.err" "$OT" --lang python -- "$work/python3.11" "$work/s.py"
grep -qxF "orbit-trace: --lang python: $work/python3.11 has no USDT probes (no .note.stapsdt section: a build without --with-dtrace or --enable-dtrace): python functions cannot be traced as scopes there" \
	"$work/bare.err" || fail_ "no probes: $(cat "$work/bare.err")"
# A script that runs the runtime (a pyenv shim): the armed file may not be
# the one it execs; with no hit at all the status is lossy, saying why.
printf '#!/bin/sh\nexec "%s" "$@"\n' "$work/python3.11" >"$work/shim"
printf '#!/bin/sh\nexec /usr/bin/python3.11 "$@"\n' >"$work/shim-debian"
chmod +x "$work/shim" "$work/shim-debian"
"$OT" --lang python --json -o "$work/shim.json" -- "$work/shim" "$work/s.py" >/dev/null 2>"$work/shim.err" ||
	fail_ "shim: exit status $?: $(cat "$work/shim.err")"
json_check "$work/shim.json" 'j["status"] == "lossy"' \
	'"--lang python: none of its probes fired: the command '"$work"'/shim is a script, which may run another python than the one armed (a pyenv shim runs its own build); name the interpreter it runs (-- /path/to/python3.11 ...)" in j["reasons"]'
"$OT" --lang python --json -o "$work/shim2.json" -- "$work/shim-debian" "$work/s.py" >/dev/null 2>&1 ||
	fail_ "shim to Debian's python: exit status $?"
json_check "$work/shim2.json" 'not any("none of its probes fired" in r for r in j["reasons"])'
pass_
