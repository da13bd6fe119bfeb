# Debian's PostgreSQL under --backend inject (issue 30, item 4): the
# postmaster forks a backend per connection; one forked while inject
# traces the postmaster is taken back at its fork, so after the capture
# nothing of orbit-trace's is in it, the report says so, and a capture
# of that backend with the default backend counts its calls exactly -
# postgres never restarts (a backend killed by a signal would make it).
. "$(dirname "$0")/lib.sh"
[ "$(uname -m)" = x86_64 ] || skip_ "inject is for x86-64"
require_uprobes
PG=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -x "$PG/postgres" ] && command -v psql >/dev/null || skip_ "no PostgreSQL (apt-get install postgresql)"
id postgres >/dev/null 2>&1 || skip_ "no user postgres"

mkdir "$pub/data" "$pub/sock"
chown postgres "$pub/data" "$pub/sock"
runuser -u postgres -- "$PG/initdb" -D "$pub/data" -A trust -U postgres >"$work/initdb.log" 2>&1 ||
	fail_ "initdb: $(tail -n 5 "$work/initdb.log")"
port=$((20000 + $$ % 20000))
runuser -u postgres -- "$PG/postgres" -D "$pub/data" -k "$pub/sock" -c listen_addresses=127.0.0.1 \
	-p "$port" >"$work/pg.log" 2>&1 &
wait_for "$work/pg.log" 'database system is ready to accept connections' 60
pm=$(head -n 1 "$pub/data/postmaster.pid")
cleanup_pids="$pm"
# A session kept open through a FIFO: its backend lives on after the capture.
mkfifo "$pub/q"
sleep 100000 >"$pub/q" &
holder=$!
cleanup_pids="$pm $holder"
sql() { echo "$*" >"$pub/q"; }

"$OT" -v --backend inject --json -o "$work/pm.json" -p "$pm" -f pg_advisory_lock_int8,pg_parse_query \
	2>"$work/pm.err" &
otpid=$!
cleanup_pids="$pm $holder $otpid"
wait_for "$work/pm.err" 'armed 2 functions' 60
psql -h 127.0.0.1 -p "$port" -U postgres -At <"$pub/q" >"$work/psql.out" 2>&1 &
psql=$!
cleanup_pids="$pm $holder $otpid $psql"
sql "select pg_backend_pid();"
wait_for "$work/psql.out" '^[0-9][0-9]*$' 60
be=$(head -n 1 "$work/psql.out")
kill -INT "$otpid"
wait "$otpid" || fail_ "inject on the postmaster: exit status $?: $(cat "$work/pm.err")"
json_check "$work/pm.json" 'j["status"] == "ok"' \
	'fn["pg_advisory_lock_int8"]["scopes"] == 0 and fn["pg_parse_query"]["scopes"] == 0' \
	'j["inject"]["children"]["taken_back"] >= 1 and j["inject"]["children"]["kept"] == 0'
! grep -q orbit-trace "/proc/$be/maps" || { cp /proc/$be/maps $work/be.maps; cat /proc/$be/status > $work/be.status; fail_ "backend $be keeps orbit-trace memory"; }

"$OT" -v --json -o "$work/be.json" -p "$be" -f pg_advisory_lock_int8 2>"$work/be.err" &
otpid=$!
cleanup_pids="$pm $holder $otpid $psql"
wait_for "$work/be.err" 'armed 1 functions' 60
i=0
while [ $i -lt 100 ]; do
	sql "select pg_advisory_lock(1); select pg_advisory_unlock(1);"
	i=$((i + 1))
done
sql "select 'done';"
wait_for "$work/psql.out" '^done$' 60
kill -INT "$otpid"
wait "$otpid" || fail_ "the backend's capture: exit status $?: $(cat "$work/be.err")"
json_check "$work/be.json" 'j["status"] == "ok" and fn["pg_advisory_lock_int8"]["scopes"] == 100'
[ "$(grep -c '^t$' "$work/psql.out")" = 100 ] || fail_ "psql: $(cat "$work/psql.out")"
kill "$holder"
wait "$psql" || fail_ "psql exited with $?"
! grep -Eq 'terminated by signal|server process .* was terminated' "$work/pg.log" ||
	fail_ "a backend died: $(grep -E 'terminated' "$work/pg.log")"
kill -INT "$pm"
n=0
while kill -0 "$pm" 2>/dev/null; do n=$((n + 1)); [ $n -le 300 ] || fail_ "postgres does not stop"; sleep 0.1; done
pass_
