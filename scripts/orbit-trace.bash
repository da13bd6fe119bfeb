# bash completion for orbit-trace(1).
# Options; PIDs for -p; function names for -f, from `orbit-trace --list` of
# the binary already on the command line (-p PID or -- CMD), and after
# usdt:FILE: the probes FILE declares; commands after --.

_orbit_trace_binary_args()
{
	local i
	for ((i = 1; i < ${#COMP_WORDS[@]}; i++)); do
		case ${COMP_WORDS[i]} in
		-p | --pid)
			# A list's first process: they run one program.
			[[ -n ${COMP_WORDS[i + 1]} ]] && echo "-p ${COMP_WORDS[i + 1]%%,*}" && return
			;;
		--pid=*)
			local p=${COMP_WORDS[i]#--pid=}
			echo "-p ${p%%,*}" && return
			;;
		--)
			[[ -n ${COMP_WORDS[i + 1]} ]] && echo "-- ${COMP_WORDS[i + 1]}" && return
			;;
		esac
	done
}

_orbit_trace()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]} i
	local opts="-p --pid -a --all -f --functions -l --list -d --duration -I --interval -o --output --json
		--hist --slower-than --slower-than-all --wall-clock --slowest --trace --folded --expect --max-loss --ring-kb --drain-ms
		--backend --freeze --follow --returns --user --compensate --restore
		--prom-textfile --listen --prom-pid --lang --cgroup --comm --tid --yes --max-functions
		-q --quiet -v --verbose -h --help -V --version --"

	# After "--": the command, then its own arguments (files).
	for ((i = 1; i < COMP_CWORD; i++)); do
		if [[ ${COMP_WORDS[i]} == -- ]]; then
			if ((COMP_CWORD == i + 1)); then
				COMPREPLY=($(compgen -c -- "$cur"))
			else
				COMPREPLY=($(compgen -f -- "$cur"))
			fi
			return
		fi
	done

	case $prev in
	-p | --pid)
		# PID,PID...: the last one of the list.
		local before=
		[[ $cur == *,* ]] && before=${cur%,*},
		COMPREPLY=($(compgen -P "$before" -W "$(ps -e -o pid= 2>/dev/null)" -- "${cur##*,}"))
		return
		;;
	--cgroup)
		# Directories of the cgroup v2 file system, by their paths.
		local cg2
		cg2=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo 2>/dev/null)
		[[ -n $cg2 ]] && COMPREPLY=($(compgen -d -S / -- "${cur:-$cg2/}"))
		return
		;;
	-f | --functions)
		local target names prefix= term
		# A word with ':' in it whole, where bash-completion can say so.
		declare -F _get_comp_words_by_ref >/dev/null && _get_comp_words_by_ref -n : cur
		term=${cur##*,}
		[[ $cur == *,* ]] && prefix=${cur%,*},
		# In a term's values ("handle(fl"): the value as it is, or the
		# string it points to (:str), or an argN's low half (:32).
		if [[ $cur == *\(* && ${cur##*\(} != *\)* ]]; then
			local v=${cur##*[(,]}
			if [[ -n $v && $v != *:* ]]; then
				COMPREPLY=("$cur)" "$cur:str)")
				[[ $v == arg[1-9] ]] && COMPREPLY+=("$cur:32)")
				declare -F __ltrim_colon_completions >/dev/null &&
					__ltrim_colon_completions "$cur"
			fi
			return
		fi
		# usdt:FILE: then FILE's probes (-l lists them without a target).
		if [[ $term == usdt:*:* ]]; then
			local file=${term#usdt:}
			file=${file%%:*}
			names=$(${COMP_WORDS[0]} --list -q -f "usdt:$file:*" 2>/dev/null |
				awk -v f="usdt:$file:" '!/^#/ && !/^ / { print f $1 }')
			COMPREPLY=($(compgen -P "$prefix" -W "$names" -- "$term"))
			declare -F __ltrim_colon_completions >/dev/null && __ltrim_colon_completions "$cur"
			return
		fi
		target=$(_orbit_trace_binary_args)
		[[ -n $target ]] || return
		# Complete the last term of a comma-separated list: from the
		# file's own symbols (no debuginfod download behind a TAB).
		names=$(DEBUGINFOD_URLS= ${COMP_WORDS[0]} --list -q $target 2>/dev/null |
			awk '!/^#/ { print $3 }')
		COMPREPLY=($(compgen -P "$prefix" -W "$names" -- "${cur##*,}"))
		return
		;;
	-o | --output | --trace | --folded)
		COMPREPLY=($(compgen -f -- "$cur"))
		return
		;;
	--prom-textfile)
		# node_exporter's textfile collector reads *.prom files only.
		COMPREPLY=($(compgen -f -X '!*.prom' -- "$cur") $(compgen -d -S / -- "$cur"))
		return
		;;
	--backend)
		COMPREPLY=($(compgen -W "auto multi perf inject" -- "$cur"))
		return
		;;
	--lang)
		COMPREPLY=($(compgen -W "php python ruby" -- "$cur"))
		return
		;;
	--returns)
		COMPREPLY=($(compgen -W "uretprobe insn" -- "$cur"))
		return
		;;
	--user)
		COMPREPLY=($(compgen -u -- "$cur"))
		return
		;;
	-d | --duration | -I | --interval | --slower-than | --slower-than-all | --slowest | --ring-kb | --drain-ms | --expect | --max-loss | --listen | --comm | --tid | --max-functions)
		return
		;;
	esac
	COMPREPLY=($(compgen -W "$opts" -- "$cur"))
}
complete -F _orbit_trace orbit-trace
