# C++ names as people write them: qualified, with or without parameters,
# a bare last component when unique, an ambiguous one refused with the
# candidates; -l shows raw and demangled names, checked against nm.
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
pass_
