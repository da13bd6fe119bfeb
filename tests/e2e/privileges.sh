# Privileges: once armed the tracer holds no capability (CAP_KILL only when
# its command runs as another user); under sudo the command runs as the
# invoking user, with --user to choose.
. "$(dirname "$0")/lib.sh"
require_uprobes

cap_eff() { awk '/^CapEff:/ { print $2 }' "/proc/$1/status"; }
uid_of() { awk '/^Uid:/ { print $2 }' "/proc/$1/status"; }

# As under "sudo orbit-trace -- CMD" by user nobody.
SUDO_UID=65534 SUDO_GID=65534 "$OT" -v -o "$work/r1.txt" -f outer -- "$STRESS" \
	--stress-calls 100 --wait-go >"$work/out1" 2>"$work/err1" &
otpid=$!
cleanup_pids=$otpid
wait_for "$work/out1" '^ready '
wait_for "$work/err1" 'armed 1 functions'
spid=$(sed -n 's/^ready //p' "$work/out1")
[ "$(uid_of "$spid")" = 65534 ] || fail_ "the command runs as uid $(uid_of "$spid"), not the sudo user"
[ "$(cap_eff "$spid")" = 0000000000000000 ] || fail_ "the command has capabilities"
[ "$(cap_eff "$otpid")" = 0000000000000020 ] ||
	fail_ "armed tracer has CapEff $(cap_eff "$otpid"), expected CAP_KILL only"
kill -USR1 "$spid"
wait "$otpid" || fail_ "exit status $?"
grep -Eq '^outer +100 ' "$work/r1.txt" || fail_ "no scopes from the command run as nobody"

# --user root overrides SUDO_UID.
SUDO_UID=65534 SUDO_GID=65534 "$OT" -v --user root -o "$work/r2.txt" -f outer -- "$STRESS" \
	--stress-calls 100 --wait-go >"$work/out2" 2>"$work/err2" &
otpid=$!
cleanup_pids=$otpid
wait_for "$work/out2" '^ready '
wait_for "$work/err2" 'armed 1 functions'
spid=$(sed -n 's/^ready //p' "$work/out2")
[ "$(uid_of "$spid")" = 0 ] || fail_ "--user root: uid $(uid_of "$spid")"
[ "$(cap_eff "$otpid")" = 0000000000000000 ] || fail_ "armed tracer keeps $(cap_eff "$otpid")"
kill -USR1 "$spid"
wait "$otpid" || fail_ "exit status $?"
pass_
