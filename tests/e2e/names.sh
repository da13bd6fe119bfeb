# C++ and Rust names as people write them: qualified, with or without
# parameters, a bare last component (or path suffix) when unique, an
# ambiguous one refused with the candidates; -l shows raw and demangled
# names, checked against nm.
. "$(dirname "$0")/lib.sh"
T="$top/build/targets/cxx"

# -l needs no privileges: the selection against nm's own list.
"$OT" -l -f 'app::*' -- "$T" >"$work/list" || fail_ "-l: exit status $?"
got=$(awk '!/^#/ { print $3 }' "$work/list" | sort | tr '\n' ' ')
want=$(nm --defined-only "$T" | awk '$2 ~ /^[tTwW]$/ && $3 ~ /^_ZN3app/ { print $3 }' | sort | tr '\n' ' ')
[ -n "$want" ] && [ "$got" = "$want" ] || fail_ "-l 'app::*': '$got', nm: '$want'"
grep -q '_ZN3app5parseEi  app::parse(int)$' "$work/list" || fail_ "-l shows no demangled name"

# C++ spellings that name no overload (issue 34): the overloads offered,
# or the one that differs only in spaces.
expect_rc 2 /dev/null "$work/ovl" "$OT" -l -f 'app::parse(long)' -- "$T"
grep -qxF "orbit-trace: no function 'app::parse(long)' in $T (did you mean: app::parse(double), app::parse(int)?)" \
	"$work/ovl" || fail_ "overloads not offered: $(cat "$work/ovl")"
expect_rc 2 /dev/null "$work/sp" "$OT" -l -f 'app::mix(int,long)' -- "$T"
grep -qxF "orbit-trace: no function 'app::mix(int,long)' in $T (did you mean: app::mix(int, long)?)" \
	"$work/sp" || fail_ "spacing not offered: $(cat "$work/sp")"

expect_rc 2 /dev/null "$work/amb" "$OT" -f twice -- "$T"
grep -q "^orbit-trace: 'twice' is ambiguous in $T: .*app::twice<.*>.*app::twice<.*; name one$" "$work/amb" ||
	fail_ "ambiguity not explained: $(cat "$work/amb")"

# A stripped copy of the stress program with its debug info in a file
# beside it (.gnu_debuglink): the static function 'worker', absent from
# .dynsym, is found at the same offset as in the unstripped file.
objcopy --only-keep-debug "$STRESS" "$work/stripped.debug"
strip --strip-all -o "$work/stripped" "$STRESS"
(cd "$work" && objcopy --add-gnu-debuglink=stripped.debug stripped)
"$OT" -l -f worker -- "$STRESS" | awk '!/^#/' >"$work/full.list"
"$OT" -l -f worker -- "$work/stripped" >"$work/stripped.list" || fail_ "-l on the stripped copy: $?"
grep -q "separate debug info" "$work/stripped.list" || fail_ "debug info not used: $(cat "$work/stripped.list")"
awk '!/^#/' "$work/stripped.list" | cmp -s - "$work/full.list" || fail_ "stripped copy: another offset"
mv "$work/stripped.debug" "$work/elsewhere.debug"
expect_rc 2 /dev/null "$work/nodebug" env -u DEBUGINFOD_URLS "$OT" -l -f worker -- "$work/stripped"
# What was searched, and where the rest would be (issue 34).
grep -qxF "orbit-trace: $work/stripped is stripped: only the 6 functions its .dynsym exports were searched, no debug info was found for it (/usr/lib/debug, .gnu_debuglink); install its debug symbols (a -dbgsym package) or set DEBUGINFOD_URLS to a debuginfod server that has them" \
	"$work/nodebug" || fail_ "stripped, no debug info: $(cat "$work/nodebug")"
mv "$work/elsewhere.debug" "$work/stripped.debug"

# A function the compiler also inlined: -l says so (DWARF), and a capture
# counts only the calls to its out-of-line copy.
"$OT" -l -f helper -- "$top/build/targets/inl" >"$work/inl.list" || fail_ "-l inl: $?"
grep -Eq '  helper  \(also inlined at [1-9][0-9]* call sites?: calls there are not counted\)$' \
	"$work/inl.list" || fail_ "-l does not say helper is inlined: $(cat "$work/inl.list")"

require_uprobes
"$OT" --json -o "$work/inl.json" -f helper -- "$top/build/targets/inl" 100 >"$work/inl.out" 2>&1 ||
	fail_ "inl: exit status $?"
grep -q '"inlined": 100, "out_of_line": 100' "$work/inl.out" || fail_ "inl did not run"
json_check "$work/inl.json" 'fn["helper"]["scopes"] == 100'
"$OT" --json -o "$work/strip.json" -f worker,outer -- "$work/stripped" --stress-threads 2 \
	--stress-calls 300 >/dev/null 2>&1 || fail_ "capture of the stripped copy: $?"
json_check "$work/strip.json" 'fn["worker"]["scopes"] == 2 and fn["outer"]["scopes"] == 600'
"$OT" --json -o "$work/r.json" -f 'app::parse,draw,app::twice<int>' -- "$T" 300 \
	>"$work/out" 2>"$work/err" || fail_ "exit status $?: $(cat "$work/err")"
json_check "$work/r.json" \
	'[f["name"] for f in j["functions"]][:2] == ["app::parse(double)", "app::parse(int)"]' \
	'fn["app::parse(int)"]["scopes"] == 300 and fn["app::parse(int)"]["symbol"] == "_ZN3app5parseEi"' \
	'fn["app::parse(double)"]["scopes"] == 600' \
	'[f["scopes"] for f in j["functions"] if f["name"].startswith("app::Widget::draw()")] == [300]' \
	'[f["scopes"] for f in j["functions"] if "twice<int>" in f["name"]] == [300]' \
	'len(j["functions"]) == 4'
"$OT" --json -o "$work/one.json" -f 'app::parse(double)' -- "$T" 100 >/dev/null 2>&1 ||
	fail_ "parameters in -f: exit status $?"
json_check "$work/one.json" '[(f["name"], f["scopes"]) for f in j["functions"]] == [("app::parse(double)", 200)]'

# --expect takes every name -f takes (issue 34): a C++ name with two
# parameters (its comma inside the parentheses), a bare last component,
# a raw symbol, each checked against the function's row; a name that
# spells two rows is refused as -f refuses an ambiguous one.
"$OT" --json -o "$work/exp.json" -f 'app::mix(int, long),draw,app::parse(double),app::parse(int)' \
	--expect 'app::mix(int, long)=100,draw=100@0' --expect '_ZN3app5parseEi=100,app::parse(double)=200' \
	-- "$T" 100 >/dev/null 2>"$work/exp.err" || fail_ "--expect C++ names: exit status $?: $(cat "$work/exp.err")"
json_check "$work/exp.json" 'j["status"] == "ok"' \
	'fn["app::mix(int, long)"]["scopes"] == 100 and fn["app::mix(int, long)"]["expected"] == 100' \
	'[f["expected"] for f in j["functions"] if f["name"].startswith("app::Widget::draw()")] == [100]' \
	'fn["app::parse(int)"]["expected"] == 100 and fn["app::parse(double)"]["expected"] == 200'
expect_rc 2 /dev/null "$work/exp2.err" "$OT" -f 'app::parse' --expect parse=1 -- "$T" 1
grep -qx "orbit-trace: --expect names 'parse', which names 2 of the functions -f traces ('app::parse(double)' among them): give one's name as the report shows it" \
	"$work/exp2.err" || fail_ "--expect ambiguous: $(cat "$work/exp2.err")"

# Rust, both manglings: -l against nm, then module paths without the
# crate and a bare name.
for b in rstress rstress-v0; do
	got=$("$OT" -l -f '*orbit_stress::*' -- "$top/build/targets/$b" | awk '!/^#/ { print $3 }' | sort | tr '\n' ' ')
	want=$(nm --defined-only "$top/build/targets/$b" | awk '$2 ~ /^[tT]$/ && $3 ~ /12orbit_stress/ { print $3 }' | sort | tr '\n' ' ')
	[ -n "$want" ] && [ "$got" = "$want" ] || fail_ "$b: -l '$got', nm '$want'"
	"$OT" --json -o "$work/$b.json" -f 'orbit_stress::outer,middle,orbit_stress::inner' -- \
		"$top/build/targets/$b" 2000 >"$work/$b.out" 2>"$work/$b.err" || fail_ "$b: exit status $?"
	grep -q '"outer": 2000, "middle": 4000, "inner": 12000' "$work/$b.out" || fail_ "$b did not run"
	json_check "$work/$b.json" \
		'[(f["name"], f["scopes"], f["depths"]) for f in j["functions"]] == [("rstress::orbit_stress::outer", 2000, {"0": 2000}), ("rstress::orbit_stress::middle", 4000, {"1": 4000}), ("rstress::orbit_stress::inner", 12000, {"2": 12000})]'
done
pass_
