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

expect_rc 2 /dev/null "$work/amb" "$OT" -f twice -- "$T"
grep -q "^orbit-trace: 'twice' is ambiguous in $T: .*app::twice<.*>.*app::twice<.*; name one$" "$work/amb" ||
	fail_ "ambiguity not explained: $(cat "$work/amb")"

require_uprobes
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

# Rust, both manglings: module paths without the crate, a bare name.
for b in rstress rstress-v0; do
	"$OT" --json -o "$work/$b.json" -f 'orbit_stress::outer,middle,orbit_stress::inner' -- \
		"$top/build/targets/$b" 2000 >"$work/$b.out" 2>"$work/$b.err" || fail_ "$b: exit status $?"
	grep -q '"outer": 2000, "middle": 4000, "inner": 12000' "$work/$b.out" || fail_ "$b did not run"
	json_check "$work/$b.json" \
		'[(f["name"], f["scopes"], f["depths"]) for f in j["functions"]] == [("rstress::orbit_stress::outer", 2000, {"0": 2000}), ("rstress::orbit_stress::middle", 4000, {"1": 4000}), ("rstress::orbit_stress::inner", 12000, {"2": 12000})]'
done
pass_
