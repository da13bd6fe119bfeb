# Backend choice: where bpf() is unavailable (a seccomp filter makes it
# fail with ENOSYS, as on a kernel without CONFIG_BPF_SYSCALL), --backend
# auto falls back to the perf backend, says why with -v, and the capture is
# still exact; --backend multi refuses before arming anything.
. "$(dirname "$0")/lib.sh"
require_uprobes
nobpf="$top/build/targets/nobpf"

"$nobpf" "$OT" -v --json -o "$work/auto.json" -f inner -- \
	"$STRESS" --stress-threads 1 --stress-hz 1000 --stress-calls 200 \
	>/dev/null 2>"$work/auto.err" || fail_ "auto without bpf(): exit status $?"
grep -q 'multi backend unavailable (.*Function not implemented.*): using perf' "$work/auto.err" ||
	fail_ "-v does not say why the multi backend was not used: $(cat "$work/auto.err")"
json_check "$work/auto.json" \
	'j["arming"]["backend"] == "perf" and j["arming"]["events"] == 2 * j["arming"]["cpus"]' \
	'fn["inner"]["scopes"] == 1200 and j["records"]["lost"] == 0'

expect_rc 1 "$work/multi.out" "$work/multi.err" \
	"$nobpf" "$OT" --backend multi -f inner -- "$STRESS" --stress-calls 10
grep -q '^orbit-trace: cannot use the multi backend: .*Function not implemented' "$work/multi.err" ||
	fail_ "--backend multi without bpf(): $(cat "$work/multi.err")"
[ ! -s "$work/multi.out" ] || fail_ "the command ran although nothing was armed"

# What the backend auto took cannot arm is a usage error there too, in the
# words --backend perf has for it (issue 31, item 6e): exit status 2, the
# command never run.
U="$top/build/targets/usdt"
expect_rc 2 "$work/auto-usdt.out" "$work/auto-usdt.err" \
	"$nobpf" "$OT" -f "usdt:$U:ot:forms(arg3)" -- "$U" 1
expect_rc 2 /dev/null "$work/perf-usdt.err" "$OT" --backend perf -f "usdt:$U:ot:forms(arg3)" -- "$U" 1
grep -q ': arg3 at +0x[0-9a-f]* is in memory: the perf backend reads only registers' "$work/auto-usdt.err" &&
	[ "$(grep -v 'multi backend unavailable' "$work/auto-usdt.err")" = "$(cat "$work/perf-usdt.err")" ] ||
	fail_ "auto's perf refusal: $(cat "$work/auto-usdt.err")"
[ ! -s "$work/auto-usdt.out" ] || fail_ "the command ran although nothing was armed"

# Where it works, auto is multi.
"$OT" --json -o "$work/default.json" -f inner -- "$STRESS" --stress-calls 10 >/dev/null ||
	fail_ "default backend: exit status $?"
json_check "$work/default.json" 'j["arming"]["backend"] == "multi"'
pass_
