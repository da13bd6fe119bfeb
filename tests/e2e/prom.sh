# Prometheus: --prom-textfile and --listen, read by the real parts.
# For each backend: the file exists from the start (status running), is
# rewritten at -I's ticks with the counts so far, and ends with the JSON
# report's counts and verdict; /metrics serves text 0.0.4 to curl and
# OpenMetrics to a scraper that asks, fresh (a burst's calls all there once
# the burst is over), and stops with the capture.  promtool checks every
# text it is shown.  Then Debian's node_exporter (textfile collector only)
# reads the file inject wrote, and Debian's Prometheus scrapes --listen:
# its query API returns the report's calls and a p99 in the report's p99
# bucket.  A scraper stuck mid-request blocks neither the other scrapes
# nor the capture's end.  Every service is on 127.0.0.1 and stopped here.  Nothing waits
# for a time: each step waits for what it needs to see, bounded.
. "$(dirname "$0")/lib.sh"
require_uprobes
T="$top/build/targets"
[ -x "$T/burst" ] || fail_ "$T/burst is not built (make targets)"
for tool in promtool prometheus prometheus-node-exporter curl; do
	command -v "$tool" >/dev/null || skip_ "$tool is not installed (make deps)"
done
PY=/usr/bin/python3.11
[ -x $PY ] || PY=python3

# metric FILE NAME: the value of tick's sample NAME (labels in any order:
# node_exporter sorts them).
metric() { awk -v p="$2{" 'index($0, p) == 1 && index($0, "function=\"tick\"") { print $NF; exit }' "$1"; }
calls_line=orbit_trace_calls_total
free_port() { $PY -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# wait_metric FILE-OR-URL SERIES VALUE: until the series has that value (30 s at most).
wait_metric() {
	i=0
	while :; do
		case $1 in
		http*) curl -sf "$1" >"$work/scrape" 2>/dev/null || true; f="$work/scrape" ;;
		*) f=$1 ;;
		esac
		[ "$(metric "$f" "$2" 2>/dev/null)" = "$3" ] && return 0
		i=$((i + 1))
		[ $i -le 300 ] || fail_ "$1: '$2' never reached $3 (last: $(metric "$f" "$2" 2>/dev/null))"
		sleep 0.1
	done
}

start_burst() {	# start_burst TAG: the burst program waiting, $spid
	"$T/burst" 5000 wait >"$work/$1.out" &
	spid=$!
	cleanup_pids="$cleanup_pids $spid"
	wait_for "$work/$1.out" '^ready '
}

for b in multi inject; do
	start_burst "$b"
	mkdir -p "$work/tf-$b"
	prom="$work/tf-$b/orbit.prom"
	pidlab=
	[ "$b" = inject ] && pidlab=--prom-pid	# one process, labelled as asked
	"$OT" -v --backend "$b" -I 0.1 --json -o "$work/$b.json" --prom-textfile "$prom" \
		--listen 127.0.0.1:0 $pidlab -p "$spid" -f tick 2>"$work/$b.err" &
	otpid=$!
	cleanup_pids="$cleanup_pids $otpid"
	wait_for "$work/$b.err" 'armed 1 functions'
	wait_for "$prom" 'orbit_trace_status{status="running"} 1'
	url=$(sed -n 's/^orbit-trace: serving metrics at //p' "$work/$b.err")
	case $url in http://127.0.0.1:*/metrics) ;; *) fail_ "$b: no URL said: $(cat "$work/$b.err")" ;; esac
	[ "$(metric "$prom" "$calls_line")" = 0 ] || fail_ "$b: calls before the burst: $(cat "$prom")"
	if [ -n "$pidlab" ]; then
		grep -q "^orbit_trace_calls_total{function=\"tick\",file=\"[^\"]*\",pid=\"$spid\",comm=\"burst\"} 0\$" "$prom"
	else
		! grep -q 'pid="' "$prom"
	fi || fail_ "$b: pid labels ${pidlab:-not asked}: $(grep calls_total "$prom")"
	promtool check metrics <"$prom" >"$work/lint-$b" 2>&1 || fail_ "$b: promtool: $(cat "$work/lint-$b")"

	# A scraper stuck in the middle of its request holds its own
	# connection only: the others are served, and the capture ends.
	hostport=${url#http://}
	$PY - "${hostport%/metrics}" >"$work/stuck-$b" 2>&1 <<'PY' &
import socket, sys
host, port = sys.argv[1].rsplit(":", 1)
s = socket.create_connection((host, int(port)))
s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")	# the headers never end
print("holding", flush=True)
s.settimeout(120)
try:
    while s.recv(4096):
        pass
    print("closed by the server")
except socket.timeout:
    sys.exit(1)
PY
	stuck=$!
	cleanup_pids="$cleanup_pids $stuck"
	wait_for "$work/stuck-$b" holding
	kill -USR1 "$spid"
	wait_for "$work/$b.out" '^calls 5000 '
	wait_metric "$prom" "$calls_line" 5000	# rewritten at a tick, while it runs
	grep -q 'orbit_trace_status{status="running"} 1' "$prom" || fail_ "$b: not running: $(cat "$prom")"
	wait_metric "$url" "$calls_line" 5000
	promtool check metrics <"$work/scrape" >"$work/lint-$b" 2>&1 ||
		fail_ "$b: promtool on /metrics: $(cat "$work/lint-$b")"
	curl -sf -D "$work/om-$b.head" -H 'Accept: application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5' \
		"$url" >"$work/om-$b" || fail_ "$b: OpenMetrics scrape failed"
	grep -qi '^Content-Type: application/openmetrics-text; version=1.0.0' "$work/om-$b.head" ||
		fail_ "$b: OpenMetrics content type: $(cat "$work/om-$b.head")"
	[ "$(tail -n 1 "$work/om-$b")" = "# EOF" ] || fail_ "$b: OpenMetrics without # EOF at the end"
	grep -q '^# TYPE orbit_trace_calls counter$' "$work/om-$b" &&
		grep -q '^# UNIT orbit_trace_call_duration_seconds seconds$' "$work/om-$b" &&
		grep -q '^orbit_trace_calls_created{function="tick",' "$work/om-$b" ||
		fail_ "$b: OpenMetrics families: $(head -20 "$work/om-$b")"
	[ "$(curl -s -o /dev/null -w '%{http_code}' "${url%/metrics}/nothing")" = 404 ] ||
		fail_ "$b: a path other than /metrics is not 404"

	kill -TERM "$spid"
	wait "$otpid" || fail_ "$b: exit status $?: $(cat "$work/$b.err")"
	! curl -s "$url" >/dev/null 2>&1 || fail_ "$b: /metrics still served after the capture"
	wait "$stuck" || fail_ "$b: the stuck scraper's connection was never closed: $(cat "$work/stuck-$b")"
	promtool check metrics <"$prom" >"$work/lint-$b" 2>&1 || fail_ "$b: promtool: $(cat "$work/lint-$b")"
	[ ! -e "$work/tf-$b/.orbit.prom.tmp" ] || fail_ "$b: the temporary file was left"
	$PY - "$work/$b.json" "$prom" <<'PY' || fail_ "$b: the file disagrees with the report"
import json, re, sys
j = json.loads(open(sys.argv[1]).read().splitlines()[-1])	# NDJSON with -I: the report last
m = {}
for line in open(sys.argv[2]):
    if not line.startswith("#"):
        k, v = line.rsplit(" ", 1)
        m[re.sub(r',pid="\d+",comm="[^"]*"', '', k)] = float(v)	# --prom-pid's
f = j["functions"][0]
lab = '{function="tick",file="%s"' % f["binary"]
assert j["status"] == "ok", j["status"]
assert m['orbit_trace_calls_total' + lab + '}'] == f["scopes"] == 5000, f
assert m['orbit_trace_call_duration_seconds_count' + lab + '}'] == 5000
assert m['orbit_trace_call_duration_seconds_bucket' + lab + ',le="+Inf"}'] == 5000
assert m['orbit_trace_records_lost_total'] == j["records"]["lost"] == 0
assert m['orbit_trace_records_total'] == j["records"]["samples"]
assert m['orbit_trace_status{status="ok"}'] == 1 and m['orbit_trace_status{status="running"}'] == 0
assert 'orbit_trace_disarm_seconds' in m
# Cumulative buckets, never decreasing, on log2 bounds in seconds.
b = [(float(re.search(r',le="([^"]+)"', k).group(1)), v) for k, v in m.items()
     if k.startswith('orbit_trace_call_duration_seconds_bucket' + lab)]
assert [v for _, v in b] == sorted(v for _, v in b), b
assert all(abs(le / 2 ** round(__import__("math").log2(le * 1e9)) * 1e9 - 1) < 1e-9
           for le, _ in b if le != float("inf")), b
PY
done

# node_exporter's textfile collector reads the file inject left.
port=$(free_port)
prometheus-node-exporter --web.listen-address="127.0.0.1:$port" --collector.disable-defaults \
	--collector.textfile --collector.textfile.directory="$work/tf-inject" >"$work/ne.log" 2>&1 &
cleanup_pids="$cleanup_pids $!"
nepid=$!
wait_metric "http://127.0.0.1:$port/metrics" "$calls_line" 5000
grep -q '^node_textfile_scrape_error 0$' "$work/scrape" || fail_ "node_exporter: $(grep textfile "$work/scrape")"
grep -q '^orbit_trace_status{status="ok"} 1$' "$work/scrape" || fail_ "node_exporter: no status"
kill "$nepid"

# Prometheus scrapes --listen (it asks for OpenMetrics first).
start_burst prom
"$OT" -v --listen 127.0.0.1:0 --json -o "$work/prom.json" -p "$spid" -f tick 2>"$work/prom.err" &
otpid=$!
cleanup_pids="$cleanup_pids $otpid"
wait_for "$work/prom.err" 'armed 1 functions'
target=$(sed -n 's|^orbit-trace: serving metrics at http://\(.*\)/metrics$|\1|p' "$work/prom.err")
pport=$(free_port)
cat >"$work/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: orbit-trace
    static_configs:
      - targets: ['$target']
EOF
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
	--web.listen-address="127.0.0.1:$pport" >"$work/prometheus.log" 2>&1 &
ppid_=$!
cleanup_pids="$cleanup_pids $ppid_"
kill -USR1 "$spid"
wait_for "$work/prom.out" '^calls 5000 '
api="http://127.0.0.1:$pport/api/v1/query"
# query EXPR: the first result's value, or nothing.
query() {
	curl -sf --data-urlencode "query=$1" "$api" 2>/dev/null | $PY -c '
import json, sys
r = json.load(sys.stdin)["data"]["result"]
print(r[0]["value"][1] if r else "")' 2>/dev/null || true
}
i=0
while [ "$(query 'orbit_trace_calls_total{function="tick"}')" != 5000 ]; do
	i=$((i + 1))
	[ $i -le 600 ] || fail_ "Prometheus never saw 5000 calls: $(curl -s "http://127.0.0.1:$pport/api/v1/targets")"
	sleep 0.1
done
p99=$(query 'histogram_quantile(0.99, orbit_trace_call_duration_seconds_bucket{function="tick"})')
kill -TERM "$spid"
wait "$otpid" || fail_ "prom: exit status $?: $(cat "$work/prom.err")"
kill "$ppid_"
$PY - "$work/prom.json" "$p99" <<'PY' || fail_ "Prometheus' p99 $p99 is not in the report's p99 bucket"
import json, math, sys
f = json.load(open(sys.argv[1]))["functions"][0]
assert f["scopes"] == 5000, f["scopes"]
p99_ns = f["duration_ns"]["p99"]
k = max(7, math.floor(math.log2(p99_ns)) + 1)	# the first bound above it
lo, hi = (2 ** (k - 1) if k > 7 else 0) / 1e9, 2 ** k / 1e9
q = float(sys.argv[2])
assert lo <= q <= hi, (lo, q, hi, p99_ns)
PY
pass_
