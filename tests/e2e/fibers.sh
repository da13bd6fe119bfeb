# A thread running two stacks (ucontext fibers yielding inside a traced
# function): every call paired on its own stack, by default without return
# probes (which the kernel cannot keep across stacks), the program's output
# unchanged.
. "$(dirname "$0")/lib.sh"
require_uprobes
T="$top/build/targets"

"$T/fibers" 1000 >"$work/plain.out" || fail_ "untraced fibers: exit status $?"
"$OT" -v --json -o "$work/f.json" -f step,work -- "$T/fibers" 1000 >"$work/f.out" 2>"$work/f.err" ||
	fail_ "exit status $?: $(cat "$work/f.err")"
cmp -s "$work/plain.out" "$work/f.out" || fail_ "output changed: $(cat "$work/f.out")"
grep -qF "$T/fibers switches stacks (swapcontext): returns are seen at return instructions (--returns insn)" \
	"$work/f.err" || fail_ "-v does not say why insn: $(cat "$work/f.err")"
json_check "$work/f.json" 'j["status"] == "ok"' 'j["arming"]["returns"] == "insn"' \
	'(fn["step"]["scopes"], fn["step"]["unclosed"], fn["step"]["orphans"], fn["step"]["depths"]) == (2000, 0, 0, {"0": 2000})' \
	'(fn["work"]["scopes"], fn["work"]["unclosed"], fn["work"]["orphans"], fn["work"]["depths"]) == (4000, 0, 0, {"1": 4000})' \
	'j["target"]["exit_status"] == 0'
# Forcing return probes is warned about.
"$OT" --returns uretprobe -o /dev/null -f step -- "$T/fibers" 10 >/dev/null 2>"$work/u.err" || true
grep -qF "orbit-trace: warning: $T/fibers switches stacks (swapcontext): a return probe kills it when a call returns on another stack than it was made on; --returns insn avoids that" \
	"$work/u.err" || fail_ "no warning: $(cat "$work/u.err")"
pass_
