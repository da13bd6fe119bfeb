# Privileges: once armed the tracer holds no capability (CAP_KILL only when
# its command runs as another user); under sudo the command runs as the
# invoking user, with --user to choose.
. "$(dirname "$0")/lib.sh"
require_uprobes

held 1
[ "$(uid_of "$spid")" = 65534 ] || fail_ "the command runs as uid $(uid_of "$spid"), not the sudo user"
[ "$(cap_eff "$spid")" = 0000000000000000 ] || fail_ "the command has capabilities"
[ "$(cap_eff "$otpid")" = 0000000000000020 ] ||
	fail_ "armed tracer has CapEff $(cap_eff "$otpid"), expected CAP_KILL only"
kill -USR1 "$spid"
wait "$otpid" || fail_ "exit status $?"
grep -Eq '^outer +100 ' "$work/r1.txt" || fail_ "no scopes from the command run as nobody"

# --user root overrides SUDO_UID.
held 2 --user root
[ "$(uid_of "$spid")" = 0 ] || fail_ "--user root: uid $(uid_of "$spid")"
[ "$(cap_eff "$otpid")" = 0000000000000000 ] || fail_ "armed tracer keeps $(cap_eff "$otpid")"
kill -USR1 "$spid"
wait "$otpid" || fail_ "exit status $?"
pass_
