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
