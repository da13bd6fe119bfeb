# Arming at scale: 600 functions of a generated program, every one armed
# (entry and return) by the default backend, exact call counts for each;
# and, with the perf backend under a small RLIMIT_NOFILE that cannot be
# raised, a refusal that says how far arming got and leaves nothing armed.
. "$(dirname "$0")/lib.sh"
require_uprobes

python3 "$top/tests/e2e/targets/gen-funcs.py" 600 "$work/many.c"
cc -O2 -pthread -o "$work/many" "$work/many.c" || fail_ "cannot build the target"

"$OT" --json -o "$work/r.json" -f 'f0*' -- "$work/many" count 10 \
	>"$work/out" 2>"$work/err" || fail_ "exit status $?: $(cat "$work/err")"
json_check "$work/r.json" \
	'j["status"] == "ok" and j["records"]["lost"] == 0' \
	'j["arming"]["functions_requested"] == 600 and j["arming"]["functions_armed"] == 600' \
	'j["arming"]["uprobes"] == 1200' \
	'j["arming"]["backend"] == "multi" and j["arming"]["events"] == 2' \
	'j["disarming"]["wall_ns"] > 0 and isinstance(j["disarming"]["ipis"], int)' \
	'len(j["functions"]) == 600' \
	'all(fn["f%04d" % i]["scopes"] == (i % 5 + 1) * 10 for i in range(600))' \
	'all(f["unclosed"] == 0 and f["orphans"] == 0 and f["duplicates"] == 0 for f in j["functions"])'

# Past 1000 functions (issue 34): a warning that names what to do, none
# with --yes; --max-functions refuses past its bound before arming.
python3 "$top/tests/e2e/targets/gen-funcs.py" 1100 "$work/big.c"
cc -O2 -pthread -o "$work/big" "$work/big.c" || fail_ "cannot build the big target"
"$OT" -o "$work/big.txt" -f 'f[01]*' -- "$work/big" count 1 >/dev/null 2>"$work/big.err" ||
	fail_ "1100 functions: exit status $?: $(cat "$work/big.err")"
grep -qxF "orbit-trace: warning: -f selects 1100 functions: every call of each is trapped, and a program that calls many of them runs several times slower (see OVERHEAD); -l shows what it selects, --max-functions N refuses more than N, --yes arms them without this warning" \
	"$work/big.err" || fail_ "no warning: $(cat "$work/big.err")"
"$OT" --yes -o "$work/big.txt" -f 'f[01]*' -- "$work/big" count 1 >/dev/null 2>"$work/yes.err" ||
	fail_ "--yes: exit status $?"
! grep -q 'selects 1100' "$work/yes.err" || fail_ "--yes warned: $(cat "$work/yes.err")"
expect_rc 2 "$work/max.out" "$work/max.err" "$OT" --max-functions 1000 -f 'f[01]*' -- "$work/big" count 1
grep -qxF "orbit-trace: -f selects 1100 functions, more than --max-functions 1000: narrow it (-l shows what it selects)" \
	"$work/max.err" || fail_ "--max-functions: $(cat "$work/max.err")"
! grep -q round "$work/max.out" || fail_ "the command ran past --max-functions"

# RLIMIT_NOFILE 40, and no CAP_SYS_RESOURCE to raise it: the perf backend
# needs 4 fds per function on 2 CPUs and must stop, saying so.
command -v setpriv >/dev/null || skip_ "setpriv (util-linux) is missing"
expect_rc 1 "$work/lim.out" "$work/lim.err" \
	setpriv --bounding-set=-sys_resource --inh-caps=-sys_resource \
	sh -c 'ulimit -n 40 && exec "$@"' sh \
	"$OT" --backend perf -f 'f0*' -- "$work/many" count 1
grep -Eq 'RLIMIT_NOFILE \(40 fds\) reached after arming [0-9]+ of 600 functions' "$work/lim.err" ||
	fail_ "no limit message: $(cat "$work/lim.err")"
grep -q 'Too many open files' "$work/lim.err" || fail_ "no errno: $(cat "$work/lim.err")"
[ ! -s "$work/lim.out" ] || fail_ "a report after a failed arming: $(cat "$work/lim.out")"
pass_
