# Node under --backend inject (issue 30, item 2): V8's garbage collector
# walks the stacks and dies on a return address it does not know (main:
# SIGSEGV after ~10,000 calls of a GC-heavy script).  Recognized from
# what the process maps, functions' returns are seen at their return
# instructions instead, each patched; one that cannot be is refused with
# the reason.  Output and exit status as untraced, counts exact against
# the script's own.
. "$(dirname "$0")/lib.sh"
[ "$(uname -m)" = x86_64 ] || skip_ "inject is for x86-64"
node=$(command -v node || command -v nodejs || true)
[ -n "$node" ] || skip_ "no node (apt-get install nodejs)"
js="$top/tests/e2e/targets/n4.js"
# V8 in the program (nodesource, upstream) or in Debian's libnode.so.N.
fn=v8::internal::Builtin_JsonStringify
if ! nm -D "$node" 2>/dev/null | grep -q 'Builtin_JsonStringify'; then
	lib=$(ldd "$node" | awk '/libnode\.so/ { print $1; exit }')
	[ -n "$lib" ] || skip_ "$node has no V8 builtin to trace"
	fn="$lib:$fn"
fi

"$node" "$js" 100000 >"$work/plain.out"
"$OT" --backend inject --json -o "$work/n.json" -f "$fn" -- "$node" "$js" 100000 \
	>"$work/n.out" 2>"$work/n.err" || fail_ "exit status $?: $(cat "$work/n.err")"
cmp -s "$work/n.out" "$work/plain.out" || fail_ "node's output changed: $(cat "$work/n.out")"
json_check "$work/n.json" 'j["target"]["exit_status"] == 0' 'j["status"] == "ok"' \
	'j["functions"][0]["scopes"] == 100000' \
	'j["functions"][0]["unclosed"] + j["functions"][0]["orphans"] == 0' \
	'j["inject"]["stack_walker"].startswith("V8")' 'j["inject"]["exits_functions"] == 1'
"$OT" --backend inject -o "$work/n.txt" -f "$fn" -- "$node" "$js" 20000 >/dev/null 2>&1 ||
	fail_ "text: exit status $?"
grep -q '^returns: seen at return instructions for 1 function (V8.* walks its stacks: no return address is moved)$' \
	"$work/n.txt" || fail_ "no returns line: $(cat "$work/n.txt")"

# Many of V8's own functions: those whose return instructions cannot all
# be patched are refused, saying why; node is unharmed, the others count.
"$OT" --backend inject --json -o "$work/many.json" -f "${fn%Builtin_JsonStringify}JsonStringifier::*" -- \
	"$node" "$js" 20000 >"$work/many.out" 2>"$work/many.err" || fail_ "many: exit status $?"
[ "$(cat "$work/many.out")" = "calls 20000" ] || fail_ "many: output changed: $(cat "$work/many.out")"
json_check "$work/many.json" 'j["target"]["exit_status"] == 0' \
	'j["inject"]["exits_functions"] > 0' \
	'all("walks its stacks" in r["reason"] for r in j["inject"]["refused"])' \
	'j["status"] == ("lossy" if j["inject"]["refused"] else "ok")' \
	'all(f["unclosed"] + f["orphans"] == 0 for f in j["functions"])'
pass_
