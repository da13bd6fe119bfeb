# Program shapes --backend inject must not harm (issue 30): each runs
# with the output and exit status it has untraced, and the counts are
# exact or the status is not ok.
. "$(dirname "$0")/lib.sh"
T="$top/build/targets"
[ "$(uname -m)" = x86_64 ] || skip_ "inject is for x86-64"

# A signal handler that leaves by a longjmp, also from inside the runtime:
# the runtime is reset on that thread and recording goes on (every call
# that returned is a scope), the status says why counts may be short.
"$T/handjmp" 2000000 >"$work/hj.plain"
"$OT" --backend inject --json -o "$work/hj.json" -f work -- "$T/handjmp" 2000000 \
	>"$work/hj.out" 2>"$work/hj.err" || fail_ "handjmp: exit status $?: $(cat "$work/hj.err")"
[ "$(cut -d' ' -f1-2 "$work/hj.out")" = "$(cut -d' ' -f1-2 "$work/hj.plain")" ] ||
	fail_ "handjmp's output changed: $(cat "$work/hj.out")"
jumps=$(sed -n 's/^calls 2000000 jumps //p' "$work/hj.out")
json_check "$work/hj.json" 'fn["work"]["scopes"] >= 2000000 - '"$jumps" \
	'fn["work"]["scopes"] <= 2000000' \
	'j["status"] == ("lossy" if j["inject"]["runtime_resets"] else "ok")' \
	'all("longjmp" in r for r in j["reasons"])'

pass_
