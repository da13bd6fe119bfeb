# Depth is judged only against an expectation (--expect NAME=N@DEPTH): a
# helper called at two depths or a recursion is no error, its DEPTH column
# shows the spread, the table stays aligned, and a recursion's call tree
# stays a few rows.  Depths are counted as they are, however deep.
. "$(dirname "$0")/lib.sh"
require_uprobes
T="$top/build/targets"

# aligned FILE FIRST-LINE-PATTERN: the rows of the table that starts with
# the header FIRST (up to a blank line) are all as long as the header.
aligned() {
	awk -v h="$2" '$0 ~ "^" h { on = 1; w = length($0); next }
		on && $0 == "" { exit }
		on && length($0) != w { print "misaligned: " $0; bad = 1 }
		END { exit bad }' "$1" || fail_ "$2 table misaligned: $(cat "$1")"
}

# square: called by main (depth 0) and through dispatch_ptr (depth 1).
"$OT" --returns uretprobe --json -o "$work/two.json" -f dispatch_ptr,square -- "$T/tails" 500 \
	>"$work/two.out" 2>"$work/two.err" || fail_ "exit status $?: $(cat "$work/two.err")"
json_check "$work/two.json" 'j["status"] == "ok"' 'fn["square"]["depths"] == {"0": 500, "1": 500}' \
	'fn["square"]["wrong_depth"] is None and fn["square"]["expected_depth"] is None'
"$OT" --returns uretprobe -o "$work/two.txt" -f dispatch_ptr,square -- "$T/tails" 500 >/dev/null 2>&1 ||
	fail_ "text: exit status $?"
grep -Eq '^square +1000 0:500,1:500 +0 +0 +0 +- +0$' "$work/two.txt" || fail_ "square row: $(cat "$work/two.txt")"
aligned "$work/two.txt" FUNCTION

# An expected depth is checked: exit 3 and the reason when scopes are elsewhere.
expect_rc 3 "$work/exp.out" "$work/exp.err" "$OT" --returns uretprobe --json -o "$work/exp.json" \
	--expect 'dispatch_ptr=500@0,square=1000@1' -f dispatch_ptr,square -- "$T/tails" 500
json_check "$work/exp.json" 'j["status"] == "failed"' \
	'j["reasons"] == ["square: 500 of 1000 scopes at another depth than 1"]' \
	'(fn["square"]["expected_depth"], fn["square"]["wrong_depth"]) == (1, 500)' \
	'(fn["dispatch_ptr"]["expected_depth"], fn["dispatch_ptr"]["wrong_depth"]) == (0, 0)'
expect_rc 2 /dev/null "$work/bad.err" "$OT" --expect 'square=10@x' -f square -- "$T/tails"

# A recursion 100 deep: four levels and one summed row, columns aligned.
"$OT" --returns insn -o "$work/rec.txt" -f 'rec,main' -- "$T/recurse" >/dev/null 2>&1 ||
	fail_ "recurse: exit status $?"
grep -Eq '^  rec \(levels 5\.\.100\) +[0-9]+ ' "$work/rec.txt" || fail_ "recursion rows: $(cat "$work/rec.txt")"
[ "$(grep -c '^  rec' "$work/rec.txt")" = 5 ] || fail_ "recursion rows: $(cat "$work/rec.txt")"
aligned "$work/rec.txt" "CALL TREE"
aligned "$work/rec.txt" FUNCTION

# Depths past 63 counted as they are (once folded into "63+"), on every
# backend: each of rec's 100 levels 200 times.  The call tree folds the
# recursion as the text does: four levels, then one entry for levels
# 5..100 (depths 5 to 100).  (The uprobe backends see returns at return
# instructions by default: the kernel keeps no more than 64 nested return
# probes.)
for b in multi perf inject; do
	[ "$b" = inject ] && [ "$(uname -m)" != x86_64 ] && continue
	"$OT" --backend "$b" --json -o "$work/deep-$b.json" -f top,rec -- "$T/recurse" 200 100 \
		>/dev/null 2>"$work/deep-$b.err" || fail_ "$b: exit status $?: $(cat "$work/deep-$b.err")"
	json_check "$work/deep-$b.json" 'j["status"] == "ok"' \
		'fn["rec"]["depths"] == {str(d): 200 for d in range(1, 101)}' \
		'[(n["path"], n["calls"], n.get("depths")) for n in j["call_tree"]] == [(["top"] + ["rec"] * k, 200 if k < 5 else 19200, None if k < 5 else [5, 100]) for k in range(6)]'
	"$OT" --backend "$b" -o "$work/deep-$b.txt" -f top,rec -- "$T/recurse" 200 100 >/dev/null 2>&1 ||
		fail_ "$b text: exit status $?"
	grep -Eq '^rec +20000 1\.\.100 ' "$work/deep-$b.txt" || fail_ "$b: rec row: $(cat "$work/deep-$b.txt")"
done
pass_
