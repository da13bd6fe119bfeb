# A thread running two stacks (ucontext fibers yielding inside a traced
# function): every call paired on its own stack, by default without return
# probes (which the kernel cannot keep across stacks), the program's output
# unchanged - and with --backend inject, whose return addresses are kept by
# stack slot.  A fiber that moves to another thread with a traced call
# open returns there: its stack is the process's, not the thread's, and
# the pairing takes it over (inject finds its return address in the other
# thread's table): every call paired at its depth, on every backend.
. "$(dirname "$0")/lib.sh"
require_uprobes
T="$top/build/targets"

"$T/fibers" 1000 >"$work/plain.out" || fail_ "untraced fibers: exit status $?"
"$OT" -v --json -o "$work/f.json" -f step,work -- "$T/fibers" 1000 >"$work/f.out" 2>"$work/f.err" ||
	fail_ "exit status $?: $(cat "$work/f.err")"
cmp -s "$work/plain.out" "$work/f.out" || fail_ "output changed: $(cat "$work/f.out")"
grep -qF "$T/fibers switches stacks (swapcontext, in $T/fibers): no function gets a return probe" \
	"$work/f.err" || fail_ "-v does not say it switches stacks: $(cat "$work/f.err")"
json_check "$work/f.json" 'j["status"] == "ok"' 'j["arming"]["returns"] == "insn"' \
	'(fn["step"]["scopes"], fn["step"]["unclosed"], fn["step"]["orphans"], fn["step"]["depths"]) == (2000, 0, 0, {"0": 2000})' \
	'(fn["work"]["scopes"], fn["work"]["unclosed"], fn["work"]["orphans"], fn["work"]["depths"]) == (4000, 0, 0, {"1": 4000})' \
	'j["target"]["exit_status"] == 0'
# Forcing return probes is refused, before the program runs.
expect_rc 2 "$work/u.out" "$work/u.err" "$OT" --returns uretprobe -o /dev/null -f step -- "$T/fibers" 10
[ "$(cat "$work/u.err")" = "orbit-trace: $T/fibers:step: --returns uretprobe refused: the process switches stacks (swapcontext, in $T/fibers): a return probe kills a call that returns on another stack than the last one entered (SIGILL); the default, or --returns insn, sees its returns at return instructions" ] ||
	fail_ "refusal: $(cat "$work/u.err")"
[ ! -s "$work/u.out" ] || fail_ "the program ran: $(cat "$work/u.out")"

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
# thread, and leaf() called on both sides of the hop: the program's own
# result, every call paired at its depth, on every backend.
"$T/migrate" 2000 >"$work/mig.plain" || fail_ "untraced migrate: exit status $?"
for b in multi perf inject; do
	[ "$b" = inject ] && [ "$(uname -m)" != x86_64 ] && continue
	"$OT" --backend "$b" --json -o "$work/mig-$b.json" -f hop,leaf -- "$T/migrate" 2000 \
		>"$work/mig-$b.out" 2>"$work/mig-$b.err" || fail_ "$b: exit status $?: $(cat "$work/mig-$b.err")"
	cmp -s "$work/mig.plain" "$work/mig-$b.out" || fail_ "$b: output changed: $(cat "$work/mig-$b.out")"
	json_check "$work/mig-$b.json" 'j["target"]["exit_status"] == 0' 'j["status"] == "ok"' \
		'(fn["hop"]["scopes"], fn["hop"]["unclosed"], fn["hop"]["orphans"], fn["hop"]["depths"]) == (2000, 0, 0, {"0": 2000})' \
		'(fn["leaf"]["scopes"], fn["leaf"]["unclosed"], fn["leaf"]["orphans"], fn["leaf"]["depths"]) == (4000, 0, 0, {"1": 4000})'
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
