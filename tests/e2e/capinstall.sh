# A capability install used by another user (issue 32, item 1): a copy of
# orbit-trace setcap'd cap_sys_admin+ep, run by nobody with -a on a :str
# function while root, a second user, a setuid program nobody started and
# a process of nobody's made not dumpable call it with secrets: none of
# their calls is counted and no secret is read (neither report, JSON or
# text, nor stderr holds one), nobody's own process is traced exactly.
# --backend perf (system-wide events) is refused for it.
. "$(dirname "$0")/lib.sh"
require_uprobes
command -v setcap >/dev/null && command -v setpriv >/dev/null ||
	skip_ "needs setcap (libcap2-bin) and setpriv (util-linux)"

mkdir -m 1777 "$pub/out"
cp "$OT" "$pub/ot-cap"
setcap cap_sys_admin+ep "$pub/ot-cap" || skip_ "this file system does not keep file capabilities"
secret=$(public "$top/build/targets/secret")
# A setuid-root copy: run by nobody, as su is.
cp "$secret" "$pub/secret-suid"
chmod 4755 "$pub/secret-suid"
as() { u=$1; shift; setpriv --reuid="$u" --regid="$u" --clear-groups "$@"; }

# Each victim reads its go lines from a FIFO held open here.
start() {	# start NAME COMMAND...: its output in $work/NAME.out
	mkfifo "$work/$1.in"
	vn=$1; shift
	"$@" <"$work/$vn.in" >"$work/$vn.out" 2>&1 &
	cleanup_pids="$cleanup_pids $!"
	eval "exec ${fd_next}>\"\$work/\$vn.in\""
	fd_next=$((fd_next + 1))
	wait_for "$work/$vn.out" '^ready '
	eval "pid_$vn=$(sed -n 's/^ready //p' "$work/$vn.out")"
}
fd_next=3
start root "$secret" ROOT-SECRET-f00d 41
start other as 4242 "$secret" OTHER-SECRET-beef 43
start suid as 65534 "$pub/secret-suid" SUID-SECRET-cafe 47
start nodump as 65534 "$secret" NODUMP-SECRET-d00d 53 nodump
start own as 65534 "$secret" nobody-own 37
[ "$(awk '/^Uid:/ { print $3 }' "/proc/$pid_suid/status")" = 0 ] ||
	skip_ "setuid bit not honoured here (nosuid mount?)"

funcs="$secret:check_password(arg1:str),$pub/secret-suid:check_password(arg1:str)"
# run N ARGS...: nobody's capture of every process calling check_password;
# each victim goes through its calls once, then the capture ends (SIGINT).
run() {
	r=$1; shift
	setpriv --reuid=65534 --regid=65534 --clear-groups "$pub/ot-cap" -v -a "$@" -f "$funcs" \
		>"$work/ot$r.out" 2>"$work/ot$r.err" &
	ot=$!
	cleanup_pids="$cleanup_pids $ot"
	wait_for "$work/ot$r.err" 'armed 2 functions'
	for fd in 3 4 5 6 7; do echo go >&$fd; done
	for v in root other suid nodump own; do
		while [ "$(grep -c '^done' "$work/$v.out")" -lt "$r" ]; do sleep 0.1; done
	done
	kill -INT "$ot"
	wait "$ot" || fail_ "capture $r: exit status $?: $(cat "$work/ot$r.err")"
}
run 1 --json -o "$pub/out/r.json"
run 2 -o "$pub/out/r.txt"
cp "$pub/out/r.json" "$pub/out/r.txt" "$work/"
for f in r.json r.txt ot1.out ot1.err ot2.out ot2.err; do
	! grep -aq 'SECRET' "$work/$f" || fail_ "a secret in $f: $(grep -a SECRET "$work/$f")"
done
json_check "$work/r.json" 'j["status"] == "ok"' \
	"[(p['pid'], p['scopes']) for p in j['processes']] == [($pid_own, 37)]" \
	'fn["secret:check_password"]["scopes"] == 37' \
	'fn["secret-suid:check_password"]["scopes"] == 0' \
	'[(s["value"], s["count"]) for s in fn["secret:check_password"]["strings"]["top"]] == [("nobody-own", 37)]'
grep -Eq '^secret:check_password +37 ' "$work/r.txt" || fail_ "text report: $(cat "$work/r.txt")"
# The title says whose processes these are, not "every process".
grep -qx 'orbit-trace report: every process of uid 65534' "$work/r.txt" ||
	fail_ "title: $(head -1 "$work/r.txt")"
json_check "$work/r.json" 'j["target"]["binary"] == "every process of uid 65534"'

# Root's capture of the same file sees every process (the filter is the
# caller's, not the file's): the victims' secrets are there.
"$OT" -v -a --json -o "$work/root.json" -f "$funcs" 2>"$work/root.err" &
ot=$!
cleanup_pids="$cleanup_pids $ot"
wait_for "$work/root.err" 'armed 2 functions'
for fd in 3 4 5 6 7; do echo go >&$fd; done
for v in root other suid nodump own; do
	while [ "$(grep -c '^done' "$work/$v.out")" -lt 3 ]; do sleep 0.1; done
done
kill -INT "$ot"
wait "$ot" || fail_ "root's capture: exit status $?: $(cat "$work/root.err")"
json_check "$work/root.json" 'fn["secret:check_password"]["scopes"] == 41 + 43 + 53 + 37' \
	'fn["secret-suid:check_password"]["scopes"] == 47' \
	'len(fn["secret:check_password"]["strings"]["top"]) == 4'

# The perf backend's system-wide events cannot keep to a user's processes.
expect_rc 1 /dev/null "$work/perf.err" as 65534 "$pub/ot-cap" -a --backend perf \
	-f "$secret:check_password" -d 1
grep -qxF "orbit-trace: -a run by a user needs the multi backend (its BPF program keeps to the user's own processes in the kernel; the perf backend's events would read every user's): not with --backend perf" "$work/perf.err" ||
	fail_ "--backend perf -a as nobody: $(cat "$work/perf.err")"
for fd in 3 4 5 6 7; do eval "exec $fd>&-"; done
pass_
