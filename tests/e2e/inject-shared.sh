# --backend inject with another tool's uprobe on a function it patched
# (bpftrace here; perf plants the same int3; another orbit-trace on a
# uprobe backend refuses to, naming the inject capture).  The kernel's breakpoint lands on inject's jmp and runs
# the file's first instruction past it: calls go unseen (or the program
# dies, where the first instruction is shorter than the jmp).  inject
# finds its patch overwritten before judging, so its report is lossy and
# names the function, never ok; it puts the function's bytes back but
# for the other tool's int3, which keeps counting every call after.  The
# program's work is as untraced either way: its inner starts with a
# 10-byte movabs, so the uprobe's step skips the whole jmp.
. "$(dirname "$0")/lib.sh"
require_uprobes
[ "$(uname -m)" = x86_64 ] || skip_ "inject is for x86-64"

# shared TAG: inject armed on a waiting stress program, then a uprobe on
# the same function; with TAG "stays" the uprobe outlives inject and sees
# the calls, with "gone" it came and went before (its int3 replaced by the
# file's byte, our jmp broken all the same).
shared() {
	tag=$1
	"$STRESS" --stress-threads 1 --stress-hz 1000 --stress-calls 200 --wait-go \
		>"$work/$tag.out" &
	spid=$!
	cleanup_pids="$spid"
	wait_for "$work/$tag.out" '^ready '
	"$OT" -v --backend inject --json -o "$work/$tag-inject.json" -p "$spid" -f inner \
		2>"$work/$tag-inject.err" &
	ot1=$!
	cleanup_pids="$spid $ot1"
	wait_for "$work/$tag-inject.err" 'armed 1 functions'
	if [ "$tag" = stays ]; then
		# BEGIN runs once every probe is attached ("Attaching" comes before).
		bpftrace -p "$spid" -e "BEGIN { printf(\"attached\\n\"); }
			uprobe:$STRESS:inner { @calls = count(); }" \
			>"$work/$tag-uprobe.out" 2>"$work/$tag-uprobe.err" &
		ot2=$!
		cleanup_pids="$spid $ot1 $ot2"
		wait_for "$work/$tag-uprobe.out" '^attached$' 60
	else
		bpftrace -p "$spid" -e "uprobe:$STRESS:inner { @calls = count(); }
			interval:ms:100 { exit(); }" >"$work/$tag-uprobe.out" 2>"$work/$tag-uprobe.err" ||
			fail_ "$tag: bpftrace: $(cat "$work/$tag-uprobe.err")"
		# orbit-trace on a uprobe backend does not put its int3 there.
		expect_rc 1 "$work/$tag-ot.out" "$work/$tag-ot.err" "$OT" -q -p "$spid" -f inner -d 0.1
		grep -q "cannot trace process $spid: orbit-trace process $ot1 instruments it (--backend inject) and still runs" \
			"$work/$tag-ot.err" || fail_ "$tag: a uprobe capture beside inject: $(cat "$work/$tag-ot.err")"
	fi
	kill -INT "$ot1"
	wait "$ot1" || fail_ "$tag: inject's orbit-trace exited $?: $(cat "$work/$tag-inject.err")"
	kill -USR1 "$spid"
	wait "$spid" || fail_ "$tag: the program exited $?"
	grep -q '"inner": 1200' "$work/$tag.out" || fail_ "$tag: the program's work: $(cat "$work/$tag.out")"
	json_check "$work/$tag-inject.json" 'j["status"] == "lossy"' \
		'any(w.startswith("1 patched function found overwritten (") and ":inner) by another tool" in w for w in j["reasons"])'
}
shared gone
shared stays
# bpftrace ends with the program, having counted every call.
wait "$ot2" || fail_ "stays: bpftrace exited $?: $(cat "$work/stays-uprobe.err")"
grep -q '^@calls: 1200$' "$work/stays-uprobe.out" || fail_ "stays: bpftrace: $(cat "$work/stays-uprobe.out")"
pass_
