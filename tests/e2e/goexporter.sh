# A Go program nobody here wrote (issue 29, item 7): Debian's
# prometheus-node-exporter (Go, stripped: no .symtab, its names only in
# .gopclntab; cgo), on 127.0.0.1 with a free port and one collector,
# traced with -p while curl scrapes it N times: its HTTP handler runs N
# times, each inside the connection's goroutine (depth 1 under
# net/http.(*conn).serve, which goroutines of its own run), nothing
# unclosed, no orphan; it keeps serving, and what it serves is what it
# served untraced (but the collector's own duration).  The capture ends
# when orbit-trace's own /metrics (--listen) has counted the N returns.
. "$(dirname "$0")/lib.sh"
require_uprobes
NE=/usr/bin/prometheus-node-exporter
[ -x "$NE" ] && command -v curl >/dev/null || skip_ "needs prometheus-node-exporter and curl"
PY=/usr/bin/python3.11
[ -x $PY ] || PY=python3
N=13
H='main.(*handler).ServeHTTP'
S='net/http.(*conn).serve'

free_port() { $PY -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
mkdir -p "$work/text"
printf '# HELP orbit_go_test A fixed metric.\n# TYPE orbit_go_test gauge\norbit_go_test{k="v"} 42\n' \
	>"$work/text/fixed.prom"
port=$(free_port)
"$NE" --web.listen-address="127.0.0.1:$port" --web.disable-exporter-metrics \
	--collector.disable-defaults --collector.textfile \
	--collector.textfile.directory="$work/text" >"$work/ne.log" 2>&1 &
nepid=$!
cleanup_pids=$nepid
# Its own ready line.
wait_for "$work/ne.log" 'Listening on'
url="http://127.0.0.1:$port/metrics"
scrape() { curl -sf "$url" | grep -v '^node_scrape_collector_duration_seconds'; }
scrape >"$work/before" || fail_ "untraced scrape failed"
grep -q '^orbit_go_test{k="v"} 42$' "$work/before" || fail_ "untraced: $(cat "$work/before")"

otport=$(free_port)
"$OT" -v --json -o "$work/r.json" --listen "127.0.0.1:$otport" --expect "$H=$N@1,$S=$N@0" -f "$H,$S" -p $nepid \
	>/dev/null 2>"$work/err" &
otpid=$!
cleanup_pids="$nepid $otpid"
wait_for "$work/err" 'armed 2 functions'
grep -q "prometheus-node-exporter: a Go binary (go1\.[0-9.]*), [0-9]* functions in .gopclntab" \
	"$work/err" || fail_ "not read from .gopclntab: $(head -5 "$work/err")"
i=0
while [ $i -lt $N ]; do
	scrape >"$work/during" || fail_ "scrape $i failed while traced"
	cmp -s "$work/during" "$work/before" || fail_ "scrape $i: other metrics while traced"
	i=$((i + 1))
done
# curl has its answer before the server's goroutine returns from
# net/http.(*conn).serve (it closes the connection first): the capture ends
# once orbit-trace's own /metrics has seen the N returns.
served() {
	curl -sf "http://127.0.0.1:$otport/metrics" |
		grep -q '^orbit_trace_calls_total{function="net/http.(\*conn).serve"[^}]*} '$N'$'
}
i=0
until served; do
	i=$((i + 1))
	[ $i -le 300 ] || fail_ "orbit-trace's /metrics never counted $N returns of $S"
	sleep 0.1
done
kill -INT $otpid
wait $otpid || fail_ "orbit-trace exit status $?: $(cat "$work/err")"
json_check "$work/r.json" 'j["status"] == "ok"' 'j["records"]["lost"] == 0' \
	'fn["'"$H"'"]["scopes"] == '$N' and fn["'"$H"'"]["depths"] == {"1": '$N'}' \
	'fn["'"$S"'"]["scopes"] == '$N' and fn["'"$S"'"]["depths"] == {"0": '$N'}' \
	'all(f["unclosed"] == 0 and f["orphans"] == 0 and f["duplicates"] == 0 for f in j["functions"])'
# Still serving, the same, after the probes are gone.
scrape >"$work/after" || fail_ "scrape after the capture failed"
cmp -s "$work/after" "$work/before" || fail_ "other metrics after the capture"
kill -0 $nepid || fail_ "node_exporter is gone"
pass_
