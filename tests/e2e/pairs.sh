# Pairs of functions by key (issue 34): -f 'ENTRYFN..RETURNFN@argN' makes
# a scope from ENTRYFN's entry to the return of the RETURNFN call whose
# argument N is the same, in the same process: a request from its start
# to its end.  requests: 100 overlapping requests ended in another order
# than begun, 3 ended that never began (orphans), 2 begun that never end
# (unclosed), counted exactly and against bpftrace's own pairing of the
# same probes; its --slower-than lines; the malformed terms refused word
# for word; then nginx (Debian's, nobody here wrote it) on 127.0.0.1 as
# its own user: ngx_http_process_request..ngx_http_free_request of the
# same request pointer, a scope per request, equal to bpftrace's count.
. "$(dirname "$0")/lib.sh"
T="$top/build/targets/requests"

expect_rc 2 /dev/null "$work/glob.err" "$OT" -f 'start_*..free_request@arg1' -- "$T"
grep -qxF "orbit-trace: 'start_*..free_request@arg1' is not a function pair: expected [FILE:]ENTRYFN..RETURNFN@argN, two functions named (no glob, no other value) and N from 1 to 9" \
	"$work/glob.err" || fail_ "a glob in a pair: $(cat "$work/glob.err")"
expect_rc 2 /dev/null "$work/one.err" "$OT" -f 'start_request..start_request@arg1' -- "$T"
grep -qxF "orbit-trace: pair 1 (start_request(arg1)..start_request(arg1)): start_request is in two pairs: a pair's function records its key alone, in one pair" \
	"$work/one.err" || fail_ "one function twice: $(cat "$work/one.err")"
expect_rc 2 /dev/null "$work/vals.err" "$OT" -f 'start_request..free_request@arg1,free_request(arg2)' -- "$T"
grep -qxF "orbit-trace: pair 1 (start_request(arg1)..free_request(arg1)): free_request is asked other values too: a pair's function records its key alone, in one pair" \
	"$work/vals.err" || fail_ "other values: $(cat "$work/vals.err")"

require_uprobes
for b in multi perf inject; do
	"$OT" --backend $b --json -o "$work/r-$b.json" -f 'start_request..free_request@arg1' -- "$T" 100 \
		>"$work/r-$b.out" 2>"$work/r-$b.err" || fail_ "$b: exit status $?: $(cat "$work/r-$b.err")"
	grep -qx 'requests 100 orphans 3 unclosed 2' "$work/r-$b.out" || fail_ "$b: output: $(cat "$work/r-$b.out")"
	python3 - "$work/r-$b.json" <<'PY' || fail_ "$b: pair row"
import json, sys
j = json.load(open(sys.argv[1]))
p = [f for f in j["functions"] if f["name"] == "start_request..free_request"]
assert len(p) == 1, [f["name"] for f in j["functions"]]
p = p[0]
assert p["scopes"] == 100 and p["orphans"] == 3 and p["unclosed"] == 2, p
assert p["pair"] == "start_request..free_request" and j["status"] == "lossy"
assert any(r.startswith("start_request..free_request: 3 returns with a key no entry") for r in j["reasons"])
fn = {f["name"]: f for f in j["functions"]}
# The pair's ENTRYFN is armed at its entry alone (issue 34): its entries
# counted as a point's hits; RETURNFN's scopes as a function's.
s = fn["start_request"]
assert (s.get("point"), s.get("hits"), s["count"], s["scopes"], "returns" in s) == (True, 102, 102, 0, False), s
assert fn["free_request"]["scopes"] == 103
PY
done
# No return probe for ENTRYFN: 3 uprobes (start_request's entry,
# free_request's entry and return instruction), where main had 4.
json_check "$work/r-multi.json" 'j["arming"]["uprobes"] == 3'
"$OT" -v -o /dev/null -f 'start_request..free_request@arg1' -- "$T" 3 >/dev/null 2>"$work/v.err" ||
	fail_ "-v: exit status $?"
grep -q "start_request: a pair's entry: its entry alone is probed" "$work/v.err" || fail_ "-v: $(cat "$work/v.err")"
# --expect takes the pair's row by its name (101 expected, 100 made: one
# missing, past --max-loss 0).
expect_rc 3 "$work/exp.out" "$work/exp.err" "$OT" --json -o "$work/exp.json" --max-loss 0 \
	--expect 'start_request..free_request=101' -f 'start_request..free_request@arg1' -- "$T" 100
python3 - "$work/exp.json" <<'PY' || fail_ "--expect on a pair: $(cat "$work/exp.err")"
import json, sys
j = json.load(open(sys.argv[1]))
p = [f for f in j["functions"] if f["name"] == "start_request..free_request"][0]
assert p["expected"] == 101 and p["missing"] == 1 and j["status"] == "failed", (p, j["status"])
assert "start_request..free_request: 1 of 101 expected scopes missing (0.990% > 0%)" in j["reasons"], j["reasons"]
PY
# --expect of the 100 requests made, with 3 orphans and 2 unclosed: the
# function's healing equation (missing >= unclosed + orphans) is not a
# pair's, whose orphans are returns of keys no entry opened: lossy (the
# orphans' reason), exit 0 - it failed, "pairing inconsistent".
"$OT" --json -o "$work/exp100.json" --expect 'start_request..free_request=100' \
	-f 'start_request..free_request@arg1' -- "$T" 100 >/dev/null 2>"$work/exp100.err" ||
	fail_ "--expect 100 on a pair: exit status $?: $(cat "$work/exp100.err")"
json_check "$work/exp100.json" 'j["status"] == "lossy"' \
	'not any("inconsistent" in r for r in j["reasons"])' \
	'[(f["expected"], f["missing"], f["orphans"], f["unclosed"]) for f in j["functions"] if f["name"] == "start_request..free_request"] == [(100, 0, 3, 2)]'
# --slower-than (1ns: every scope): a line per request, outermost.
"$OT" --slower-than 1ns -o "$work/slow.txt" -f 'start_request..free_request@arg1' -- "$T" 100 \
	>/dev/null 2>&1 || fail_ "slow: exit status $?"
[ "$(grep -c '^slow: start_request\.\.free_request at .*(start_request\.\.free_request)$' "$work/slow.txt")" = 100 ] ||
	fail_ "slow lines: $(grep '^slow' "$work/slow.txt" | head)"

# bpftrace pairs the same probes in the same run: its count is ours.
command -v bpftrace >/dev/null || skip_ "bpftrace is not installed (make deps installs it)"
bt_prog() { # FILE ENTRY RETURN PID
	printf '%s\n' 'BEGIN { printf("ready\n"); }' \
		"uprobe:$1:$2 /pid == $4/ { @s[pid, arg0] = nsecs; }" \
		"uprobe:$1:$3 /pid == $4 && @s[pid, arg0]/ { @r[tid] = arg0; }" \
		"uretprobe:$1:$3 /pid == $4 && @r[tid]/ { @pairs = count(); delete(@s[pid, @r[tid]]); delete(@r[tid]); }"
}
rm -f "$work/in"
mkfifo "$work/in"
"$T" 100 wait <"$work/in" >"$work/w.out" &
tpid=$!
cleanup_pids=$tpid
exec 3>"$work/in"
wait_for "$work/w.out" '^ready '
bpftrace -q -e "$(bt_prog "$T" start_request free_request "$tpid")" >"$work/bt.txt" 2>"$work/bt.err" &
bt=$!
cleanup_pids="$tpid $bt"
wait_for "$work/bt.txt" ready 30
"$OT" -v --json -o "$work/w.json" -p "$tpid" -f 'start_request..free_request@arg1' 2>"$work/w.err" &
ot=$!
cleanup_pids="$tpid $bt $ot"
wait_for "$work/w.err" 'armed 2 functions'
echo go >&3
exec 3>&-
wait "$ot" || fail_ "-p: exit status $?: $(cat "$work/w.err")"
kill -INT "$bt"
wait "$bt" || fail_ "bpftrace: $(cat "$work/bt.err")"
btn=$(sed -n 's/^@pairs: //p' "$work/bt.txt")
[ "$btn" = 100 ] || fail_ "bpftrace paired $btn: $(cat "$work/bt.txt")"
json_check "$work/w.json" \
	"[f['scopes'] for f in j['functions'] if f['name'] == 'start_request..free_request'] == [$btn]"

# nginx on 127.0.0.1, master as root and its worker as www-data, a
# configuration of its own in a temporary directory.
NGINX=/usr/sbin/nginx
[ -x "$NGINX" ] || skip_ "nginx is not installed (make deps installs nginx-light)"
ngx="$pub/nginx"
mkdir -p "$ngx/www"
echo hello >"$ngx/www/index.html"
chmod -R a+rX "$ngx"
port=$((20000 + $$ % 20000))
cat >"$ngx/nginx.conf" <<CONF
worker_processes 1;
user www-data;
pid $ngx/nginx.pid;
error_log $ngx/error.log;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path $ngx/body; proxy_temp_path $ngx/proxy;
  fastcgi_temp_path $ngx/fcgi; uwsgi_temp_path $ngx/uwsgi; scgi_temp_path $ngx/scgi;
  server { listen 127.0.0.1:$port; root $ngx/www; }
}
CONF
"$NGINX" -c "$ngx/nginx.conf" -g 'daemon on;' 2>"$work/nginx.err" || fail_ "nginx: $(cat "$work/nginx.err")"
master=$(cat "$ngx/nginx.pid")
trap 'kill -QUIT "$master" 2>/dev/null; cleanup_' EXIT INT TERM
n=0
until worker=$(pgrep -P "$master") && [ -n "$worker" ]; do
	n=$((n + 1)); [ $n -le 100 ] || fail_ "no nginx worker"; sleep 0.1
done
curl -sf "http://127.0.0.1:$port/" >/dev/null || fail_ "nginx does not answer"
bpftrace -q -e "$(bt_prog "$NGINX" ngx_http_process_request ngx_http_free_request "$worker")" \
	>"$work/nbt.txt" 2>"$work/nbt.err" &
bt=$!
cleanup_pids="$bt"
wait_for "$work/nbt.txt" ready 30
"$OT" -v --json -o "$work/ngx.json" -p "$worker" \
	-f 'ngx_http_process_request..ngx_http_free_request@arg1' 2>"$work/ngx.err" &
ot=$!
cleanup_pids="$bt $ot"
wait_for "$work/ngx.err" 'armed 2 functions'
for i in $(seq 50); do curl -sf "http://127.0.0.1:$port/" >/dev/null || fail_ "request $i"; done
kill -INT "$ot"
wait "$ot" || fail_ "nginx: exit status $?: $(cat "$work/ngx.err")"
kill -INT "$bt"
wait "$bt" || fail_ "bpftrace on nginx: $(cat "$work/nbt.err")"
btn=$(sed -n 's/^@pairs: //p' "$work/nbt.txt")
[ "$btn" = 50 ] || fail_ "bpftrace paired $btn nginx requests: $(cat "$work/nbt.txt")"
json_check "$work/ngx.json" \
	"[(f['scopes'], f['orphans'], f['unclosed']) for f in j['functions'] if f['name'] == 'ngx_http_process_request..ngx_http_free_request'] == [($btn, 0, 0)]" \
	"fn['ngx_http_process_request']['hits'] == $btn" 'j["status"] == "ok"'
pass_
