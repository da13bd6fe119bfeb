# Go programs (issue 29), on our own Go program (tests/e2e/targets/gop.go,
# built by Debian's golang-go), which prints what it did: 8 goroutines
# that Gosched (so they move between threads) and recurse deep enough for
# Go to copy their stacks (runtime.morestack), and panics recovered above
# a traced call.  Traced, it prints what it prints untraced and exits 0;
# every count and depth is the program's own (--expect), the panicking
# call's unclosed count too, no orphan, no duplicate; the same on its
# stripped copy, whose names come from .gopclntab alone, and with -p.  A
# fatal error of Go's runtime is never ok.  What no backend may do to a
# Go program is refused, in exact words: a return probe, the perf backend,
# inject.  (Every backend that claims Go - OT_CAN_GO - is multi alone.)
. "$(dirname "$0")/lib.sh"
require_uprobes
G="$top/build/targets/gop"
GS="$top/build/targets/gop-stripped"
[ -x "$G" ] && [ -x "$GS" ] || skip_ "no $G (make targets builds it with golang-go)"
N=300
F='main.outer,main.middle,main.leaf,main.deep,main.guarded,main.boom,main.greet,main.(*tally).add'

"$G" $N >"$work/want" || fail_ "untraced: exit status $?"
# The program's own counts, as --expect says them: NAME=N@DEPTH.
EXP=$(grep '^main\.' "$work/want" | paste -sd, -)
BOOM=$(sed -n 's/^unreturned main.boom=//p' "$work/want")
[ -n "$EXP" ] && [ -n "$BOOM" ] || fail_ "the program printed no counts: $(cat "$work/want")"

# check JSON: the program's counts, exactly; boom never returns.
check() {
	json_check "$1" 'j["status"] == "ok"' 'j["records"]["lost"] == 0' \
		'all(f["missing"] == 0 for f in j["functions"] if f["name"] != "main.boom")' \
		'fn["main.boom"]["scopes"] == 0 and fn["main.boom"]["unclosed"] == '"$BOOM" \
		'all(f["orphans"] == 0 and f["duplicates"] == 0 and f["outside_parent"] == 0 for f in j["functions"])' \
		'all(f["unclosed"] == 0 for f in j["functions"] if f["name"] != "main.boom")' \
		'sorted(int(d) for d in fn["main.deep"]["depths"]) == list(range(2, 203))' \
		'len(set(fn["main.deep"]["depths"].values())) == 1'
}

for bin in "$G" "$GS"; do
	b=$(basename "$bin")
	"$OT" -v --json -o "$work/$b.json" --expect "$EXP" -f "$F" -- "$bin" $N \
		>"$work/$b.out" 2>"$work/$b.err" || fail_ "$b: exit status $?: $(cat "$work/$b.err")"
	cmp -s "$work/$b.out" "$work/want" || fail_ "$b: traced, it printed other things"
	check "$work/$b.json"
	# Past the stack check: a call whose prologue runs again after
	# runtime.morestack is seen once.
	grep -q "^orbit-trace: $bin:main.deep: past its stack check" "$work/$b.err" ||
		fail_ "$b: main.deep's entry probe is not past its stack check"
done
grep -q "^orbit-trace: $GS: a Go binary (go1\.[0-9]*.*), [0-9]* functions in .gopclntab" \
	"$work/gop-stripped.err" || fail_ "stripped: not read from .gopclntab: $(head -3 "$work/gop-stripped.err")"

# Position-independent and stripped (.data.rel.ro.gopclntab, its code's
# start a relocation's); its panicking boom traced without guarded, the
# function that recovers: each call of boom at its previous one's SP is a
# call (that one gone), not one call seen twice.
GP="$top/build/targets/gop-pie"
"$OT" --json -o "$work/pie.json" -f 'main.outer,main.deep,main.boom' -- "$GP" $N \
	>"$work/pie.out" 2>"$work/pie.err" || fail_ "pie: exit status $?: $(cat "$work/pie.err")"
cmp -s "$work/pie.out" "$work/want" || fail_ "pie: traced, it printed other things"
json_check "$work/pie.json" 'j["status"] == "ok"' \
	'fn["main.outer"]["scopes"] == '"$(sed -n 's/^main.outer=\([0-9]*\)@0$/\1/p' "$work/want")" \
	'fn["main.deep"]["scopes"] == '"$(sed -n 's/^main.deep=//p' "$work/want")" \
	'fn["main.boom"]["unclosed"] == '"$BOOM"' and fn["main.boom"]["duplicates"] == 0' \
	'all(f["orphans"] == 0 and f["duplicates"] == 0 for f in j["functions"])'

# Names from .gopclntab: -l with a glob; methods, closures and a generic
# function's two instantiations named as Go (1.19) names them.
"$OT" -l -f 'main.*' -- "$GS" >"$work/list" 2>&1 || fail_ "-l: exit status $?"
for f in main.outer main.guarded.func1 main.main.func1 'main.(*tally).add' 'main.larger[...]'; do
	awk -v f="$f" '$NF == f { n++ } END { exit !n }' "$work/list" || fail_ "-l: no $f: $(cat "$work/list")"
done
[ "$(awk '$NF == "main.larger[...]"' "$work/list" | wc -l)" = 2 ] || fail_ "-l: not two main.larger[...]"
"$OT" -l -f 'net/http.*' -- "$GS" >"$work/list2" 2>&1 && fail_ "-l: a glob that selects nothing passed"
grep -qF "no function matches 'net/http.*' in $GS" "$work/list2" || fail_ "-l net/http.*: $(cat "$work/list2")"
head -1 "$work/list" | grep -q "functions in .gopclntab" || fail_ "-l: $(head -1 "$work/list")"

# -p: armed on the running program before its goroutines start.
mkfifo "$work/in"
"$GS" -wait $N <"$work/in" >"$work/p.out" &
gpid=$!
cleanup_pids="$gpid"
exec 3>"$work/in"
wait_for "$work/p.out" '^ready'
"$OT" -v --json -o "$work/p.json" --expect "$EXP" -f "$F" -p $gpid >/dev/null 2>"$work/p.err" &
otpid=$!
cleanup_pids="$gpid $otpid"
wait_for "$work/p.err" 'armed 8 functions'
echo go >&3
exec 3>&-
wait $gpid || fail_ "-p: gop exit status $?"
wait $otpid || fail_ "-p: orbit-trace exit status $?: $(cat "$work/p.err")"
sed 1d "$work/p.out" | cmp -s - "$work/want" || fail_ "-p: the program printed other things"
check "$work/p.json"

# Go's arguments: argN in Go's registers (greet(name string, n int): name
# in rax and rbx, n in rcx), a Go string by its length (no NUL ends it in
# the binary: read up to one, "gopher" would run on into its neighbours),
# a parameter by its DWARF name.
for v in 'arg1:str,arg3' 'name:str,n'; do
	"$OT" --json -o "$work/v.json" -f "main.greet($v)" -- "$G" 2 >"$work/v.out" 2>"$work/v.err" ||
		fail_ "greet($v): exit status $?: $(cat "$work/v.err")"
	json_check "$work/v.json" 'j["status"] == "ok"' \
		'fn["main.greet"]["strings"]["top"] == [{"value": "gopher", "count": 8}]' \
		'[(x["count"], x["min"], x["max"]) for x in fn["main.greet"]["values"]] == [(8, 0, 7)]'
done
expect_rc 2 "$work/v.out" "$work/v.err" "$OT" -f 'main.greet(name)' -- "$G" 1
[ "$(cat "$work/v.err")" = "orbit-trace: $G:main.greet: cannot read 'name' as an integer: it is a Go string, read as one with 'name:str'" ] ||
	fail_ "greet(name): $(cat "$work/v.err")"

# Go's runtime ending the program (fatal error: all goroutines are asleep):
# its exit status as untraced, the report failed and says why.
set +e
"$G" -deadlock 20 >"$work/dl.want" 2>"$work/dl.werr"
want_rc=$?
"$OT" --json -o "$work/dl.json" -f main.outer -- "$G" -deadlock 20 >"$work/dl.out" 2>"$work/dl.err"
rc=$?
set -e
[ $want_rc = 2 ] || fail_ "deadlock: untraced exit status $want_rc"
[ $rc = 3 ] || fail_ "deadlock: orbit-trace exit status $rc, expected 3 (a check failed)"
cmp -s "$work/dl.out" "$work/dl.want" || fail_ "deadlock: traced, it printed other things"
grep -q '^fatal error: all goroutines are asleep' "$work/dl.err" || fail_ "deadlock: $(cat "$work/dl.err")"
json_check "$work/dl.json" 'j["status"] == "failed"' 'j["target"]["exit_status"] == 2' \
	'any(r.startswith("the Go runtime threw a fatal error (runtime.fatalthrow") for r in j["reasons"])' \
	'fn["main.outer"]["scopes"] == 20'
# The same with -p.
mkfifo "$work/din"
"$G" -wait -deadlock 20 <"$work/din" >"$work/dp.out" 2>/dev/null &
gpid=$!
cleanup_pids="$gpid"
exec 3>"$work/din"
wait_for "$work/dp.out" '^ready'
"$OT" -v --json -o "$work/dp.json" -f main.outer -p $gpid >/dev/null 2>"$work/dp.err" &
otpid=$!
cleanup_pids="$gpid $otpid"
wait_for "$work/dp.err" 'armed 1 functions'
echo go >&3
exec 3>&-
set +e
wait $otpid
rc=$?
set -e
[ $rc = 3 ] || fail_ "deadlock -p: orbit-trace exit status $rc: $(cat "$work/dp.err")"
json_check "$work/dp.json" 'j["status"] == "failed"' \
	'any(r.startswith("the Go runtime threw a fatal error") for r in j["reasons"])'

# The differential run (scripts/go-diff.sh; 20 runs by hand, 2 here):
# output and exit status as untraced, the fatal error's too.
OT="$OT" sh "$top/scripts/go-diff.sh" 2 >"$work/diff" 2>&1 || fail_ "go-diff.sh: $(cat "$work/diff")"

# Refused, before the program runs: what would harm it, or cannot pair its calls.
expect_rc 2 "$work/r.out" "$work/r.err" "$OT" --returns uretprobe -f main.outer -- "$G" 1
[ "$(cat "$work/r.err")" = "orbit-trace: $G is a Go program: a return probe (--returns uretprobe) replaces the return address on the goroutine's stack, which Go's stack copier and unwinder read (the program dies: fatal error: unknown caller pc); its returns are seen at return instructions" ] ||
	fail_ "uretprobe: $(cat "$work/r.err")"
[ ! -s "$work/r.out" ] || fail_ "uretprobe: the program ran"
expect_rc 2 "$work/r.out" "$work/r.err" "$OT" --backend perf -f main.outer -- "$G" 1
[ "$(cat "$work/r.err")" = "orbit-trace: $G is a Go program: the perf backend reads registers only, and a goroutine's calls cannot be paired without reading where its stack is (it moves when it grows); the multi backend (the default, Linux 6.6) traces Go programs" ] ||
	fail_ "perf: $(cat "$work/r.err")"
if [ "$(uname -m)" = x86_64 ]; then
	expect_rc 2 "$work/r.out" "$work/r.err" "$OT" --backend inject -f main.outer -- "$G" 1
	[ "$(cat "$work/r.err")" = "orbit-trace: $G is a Go program: --backend inject cannot trace it: its trampolines replace each call's return address on the stack, which Go's stack copier and unwinder read (fatal error: unknown caller pc), and it keeps threads by glibc's, where Go runs goroutines on threads of its own; the default backend (multi) traces Go programs" ] ||
		fail_ "inject: $(cat "$work/r.err")"
fi
pass_
