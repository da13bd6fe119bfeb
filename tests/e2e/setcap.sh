# Without root: a plain copy refuses before arming and says why; a copy
# with the file capability cap_sys_admin+ep traces as user nobody, and the
# command it starts runs as nobody without capabilities.
. "$(dirname "$0")/lib.sh"
require_uprobes
command -v setcap >/dev/null && command -v setpriv >/dev/null ||
	skip_ "needs setcap (libcap2-bin) and setpriv (util-linux)"

# nobody runs these copies and writes its report beside them
mkdir -m 1777 "$pub/out"
cp "$OT" "$pub/ot-plain"
cp "$OT" "$pub/ot-cap"
setcap cap_sys_admin+ep "$pub/ot-cap" || skip_ "this file system does not keep file capabilities"
stress=$(public "$STRESS")
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }

expect_rc 1 "$work/out1" "$work/err1" as_nobody "$pub/ot-plain" -f outer -- "$stress" --stress-calls 10
hint=
[ "$(uname -m)" = x86_64 ] && hint=", or without uprobes: --backend inject needs only ptrace"
grep -qxF "orbit-trace: cannot arm uprobes: the uprobe PMU needs CAP_SYS_ADMIN (CAP_PERFMON is not enough); this process has no capabilities; run it with sudo (see PERMISSIONS in orbit-trace(1))$hint" "$work/err1" ||
	fail_ "unexpected message: $(cat "$work/err1")"
! grep -q expected "$work/out1" || fail_ "the command ran although nothing was armed"

# The capability a setcap'd binary carries is effective, and enough.
as_nobody "$pub/ot-cap" --json -o "$pub/out/report.json" -f outer,middle,inner -- "$stress" \
	--stress-threads 2 --stress-hz 1000 --stress-calls 300 --wait-go \
	>"$work/out2" 2>"$work/err2" &
otpid=$!
cleanup_pids=$otpid
wait_for "$work/out2" '^ready '
spid=$(sed -n 's/^ready //p' "$work/out2")
grep -q "^Uid:	65534" "/proc/$spid/status" || fail_ "the command does not run as nobody"
grep -q "^CapEff:	0000000000000000" "/proc/$spid/status" || fail_ "the command has capabilities"
kill -USR1 "$spid"
wait "$otpid" || fail_ "setcap'd capture failed: $(cat "$work/err2")"
json_check "$pub/out/report.json" \
	'fn["outer"]["scopes"] == 600 and fn["middle"]["scopes"] == 1200 and fn["inner"]["scopes"] == 3600' \
	'j["records"]["lost"] == 0'
pass_
