# Bash completion: options, PIDs for -p, commands after --, function
# names for -f taken from `orbit-trace --list` of the binary on the line,
# and a value's forms inside a term's parentheses (:str, :32).
. "$(dirname "$0")/lib.sh"
command -v bash >/dev/null || skip_ "bash is not installed"

# complete CWORD WORD...: the candidates for word number CWORD, one per line.
complete_() {
	bash -c '. "$1"; COMP_CWORD=$2; shift 2; COMP_WORDS=("$@")
		_orbit_trace; printf "%s\n" "${COMPREPLY[@]}"' \
		sh "$top/scripts/orbit-trace.bash" "$@" | sort
}

# What --list says of the binary, checked against readelf: every defined
# function of .symtab but the entry point (_start), which no call enters.
want=$(readelf -sW "$STRESS" | awk '/^Symbol table .\.symtab/ { on = 1 }
	on && $4 == "FUNC" && $7 != "UND" && $2 !~ /^0+$/ && $8 != "_start" { print $8 }' | sort -u | tr '\n' ' ')
got=$(complete_ 2 "$OT" -f '' -- "$STRESS" | tr '\n' ' ')
[ -n "$want" ] && [ "$got" = "$want" ] || fail_ "-f before -- CMD: '$got', readelf says '$want'"
[ "$(complete_ 2 "$OT" -f mi -- "$STRESS")" = "middle" ] || fail_ "-f mi"
[ "$(complete_ 2 "$OT" -f 'outer,mi' -- "$STRESS")" = "outer,middle" ] || fail_ "-f outer,mi"
# After --, words belong to the command: files, not our options.
complete_ 4 "$OT" -- "$STRESS" -f "$top/READ" | grep -qx "$top/README.md" || fail_ "args after -- CMD"
"$STRESS" --wait-go >"$work/stress.out" &
spid=$!
cleanup_pids=$spid
wait_for "$work/stress.out" '^ready '
[ "$(complete_ 4 "$OT" -p "$spid" -f ou)" = "outer" ] || fail_ "-p PID -f ou"
complete_ 2 "$OT" -p "$spid" | grep -qx "$spid" || fail_ "-p does not offer PIDs"
# A list: the next PID after the comma; its functions, the first's program's.
complete_ 2 "$OT" -p "1,$spid" | grep -qx "1,$spid" || fail_ "-p PID,PID does not offer PIDs"
[ "$(complete_ 4 "$OT" -p "$spid,1" -f ou)" = "outer" ] || fail_ "-p PID,PID -f ou"
# --cgroup: the cgroup v2 file system's directories (one made for it).
cg2=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
if [ -n "$cg2" ] && mkdir "$cg2/orbit-trace-completion-$$" 2>/dev/null; then
	got=$(complete_ 2 "$OT" --cgroup "")
	rmdir "$cg2/orbit-trace-completion-$$"
	echo "$got" | grep -qxF "$cg2/orbit-trace-completion-$$/" || fail_ "--cgroup: $got"
fi
[ "$(complete_ 1 "$OT" --dr)" = "--drain-ms" ] || fail_ "--dr"
[ "$(complete_ 2 "$OT" --backend m)" = "multi" ] || fail_ "--backend m"
[ "$(complete_ 2 "$OT" --lang p | tr '\n' ' ')" = "php python " ] || fail_ "--lang p"
# Every backend -V names (from the backends' table) is offered.
for b in $("$OT" -V | sed -n 's/^backends: //p' | grep -oE '(^|\), )[a-z]+ \(' | grep -oE '[a-z]+'); do
	complete_ 2 "$OT" --backend "$b" | grep -qx "$b" || fail_ "--backend $b is not completed"
done
# Every long option --help lists is offered.
for o in $("$OT" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
	complete_ 1 "$OT" "$o" | grep -qx -- "$o" || fail_ "$o, listed by --help, is not completed"
done
complete_ 4 "$OT" -f x -- bas | grep -qx bash || fail_ "no command after --"
# usdt:FILE: offers the probes FILE declares, without a target.
if [ -x "$top/build/targets/usdt" ]; then
	U="$top/build/targets/usdt"
	[ "$(complete_ 2 "$OT" -f "usdt:$U:ot:t" | tr '\n' ' ')" = "usdt:$U:ot:tick " ] ||
		fail_ "-f usdt:FILE:ot:t: $(complete_ 2 "$OT" -f "usdt:$U:ot:t")"
	[ "$(complete_ 2 "$OT" -f "main,usdt:$U:" | tr '\n' ' ')" = \
		"main,usdt:$U:ot:forms main,usdt:$U:ot:site main,usdt:$U:ot:tick " ] ||
		fail_ "-f main,usdt:FILE:: $(complete_ 2 "$OT" -f "main,usdt:$U:")"
fi
# In a term's values: the value closed, or read as a string (:str), or
# an argN's low half (:32).
[ "$(complete_ 2 "$OT" -f 'outer,handle(flags,pa' -- "$STRESS" | tr '\n' ' ')" = \
	"outer,handle(flags,pa) outer,handle(flags,pa:str) " ] ||
	fail_ "-f handle(flags,pa: $(complete_ 2 "$OT" -f 'outer,handle(flags,pa' -- "$STRESS")"
[ "$(complete_ 2 "$OT" -f 'take(arg1' -- "$STRESS" | tr '\n' ' ')" = \
	"take(arg1) take(arg1:32) take(arg1:str) " ] ||
	fail_ "-f take(arg1: $(complete_ 2 "$OT" -f 'take(arg1' -- "$STRESS")"
complete_ 2 "$OT" --trace "$top/READ" | grep -qx "$top/README.md" || fail_ "--trace takes a file"
pass_
