# A thread running two stacks (ucontext fibers yielding inside a traced
# function): every call paired on its own stack, by default without return
# probes (which the kernel cannot keep across stacks), the program's output
# unchanged - and with --backend inject, whose return addresses are kept by
# stack slot.  A fiber that moves to another thread with a traced call
# open returns there: inject finds its return address in the other
# thread's table, the program runs as untraced, the counts are the uprobe
# backend's.
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

# inject: the same fibers, exact.
if [ "$(uname -m)" = x86_64 ]; then
	"$OT" --backend inject --json -o "$work/i.json" -f step,work -- "$T/fibers" 1000 \
		>"$work/i.out" 2>"$work/i.err" || fail_ "inject: exit status $?: $(cat "$work/i.err")"
	cmp -s "$work/plain.out" "$work/i.out" || fail_ "inject: output changed: $(cat "$work/i.out")"
	json_check "$work/i.json" 'j["status"] == "ok"' \
		'(fn["step"]["scopes"], fn["step"]["unclosed"], fn["step"]["orphans"], fn["step"]["depths"]) == (2000, 0, 0, {"0": 2000})' \
		'(fn["work"]["scopes"], fn["work"]["unclosed"], fn["work"]["orphans"], fn["work"]["depths"]) == (4000, 0, 0, {"1": 4000})'
fi

# A fiber hopping between two threads, each hop() returning on the other
# thread: the program's own result, and inject's counts equal multi's.
"$T/migrate" 2000 >"$work/mig.plain" || fail_ "untraced migrate: exit status $?"
for b in multi inject; do
	[ "$b" = inject ] && [ "$(uname -m)" != x86_64 ] && continue
	"$OT" --backend "$b" --json -o "$work/mig-$b.json" -f hop,leaf -- "$T/migrate" 2000 \
		>"$work/mig-$b.out" 2>"$work/mig-$b.err" || fail_ "$b: exit status $?: $(cat "$work/mig-$b.err")"
	cmp -s "$work/mig.plain" "$work/mig-$b.out" || fail_ "$b: output changed: $(cat "$work/mig-$b.out")"
	json_check "$work/mig-$b.json" 'j["target"]["exit_status"] == 0' \
		'fn["leaf"]["scopes"] == 4000 and fn["hop"]["scopes"] + fn["hop"]["unclosed"] == 2000'
done
python3 - "$work/mig-multi.json" "$work/mig-inject.json" <<'PY' || fail_ "inject and multi differ on migrate"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
key = lambda j: [(f["name"], f["scopes"], f["unclosed"], f["orphans"], f["depths"]) for f in j["functions"]]
if key(a) != key(b):
    print(key(a), key(b), file=sys.stderr)
    sys.exit(1)
PY
pass_
