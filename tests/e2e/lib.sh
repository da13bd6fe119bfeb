# Sourced by every end-to-end test: strict shell, a work directory kept on
# failure, and the helpers fail_/skip_/require_uprobes/json_check/held.
set -eu
export LC_ALL=C
# The scripts' Python checks are asserts: never optimized away.
unset PYTHONOPTIMIZE
top=$(cd "$(dirname "$0")/../.." && pwd)
OT=${OT:-$top/orbit-trace}
STRESS="$top/tests/stress/orbit-stress"
name=$(basename "$0" .sh)
work="$top/tests/e2e/$name.dir"
rm -rf "$work"
mkdir -p "$work"
cleanup_pids=""
# What another user (nobody) runs or writes lives here, not in the checkout:
# a clone in a 0700 home (Debian 12's default) is out of that user's reach.
pub=$(mktemp -d "${TMPDIR:-/tmp}/orbit-e2e-$name.XXXXXX")
chmod 0755 "$pub"

cleanup_() {
	for p in $cleanup_pids; do kill -KILL "$p" 2>/dev/null || true; done
	rm -rf "$pub"
}
trap cleanup_ EXIT INT TERM

fail_() { echo "FAIL $name: $*" >&2; echo "  (logs in $work)" >&2; exit 1; }
skip_() {
	# In CI a test that cannot run is a failure, not a skip.
	if [ "${CI:-}" = true ]; then fail_ "cannot run in CI: $*"; fi
	echo "SKIP $name: $*" >&2; exit 77
}
pass_() { rm -rf "$work"; echo "PASS $name"; exit 0; }

require_uprobes() {
	[ "$(id -u)" = 0 ] || skip_ "needs root (CAP_SYS_ADMIN) for the uprobe PMU"
	[ -r /sys/bus/event_source/devices/uprobe/type ] || skip_ "no uprobe PMU in this kernel"
}

# json_check FILE PYTHON-EXPR...: each expression, with the report as j,
# must be true; the failing one is printed.
json_check() {
	f=$1; shift
	python3 - "$f" "$@" <<'PY' || fail_ "report check failed on $f"
import json, sys
j = json.load(open(sys.argv[1]))
fn = {f["name"]: f for f in j["functions"]}
for expr in sys.argv[2:]:
    if not eval(expr):
        print("  false: %s" % expr, file=sys.stderr)
        print(json.dumps(j, indent=1), file=sys.stderr)
        sys.exit(1)
PY
}

# expect_rc STATUS OUT ERR CMD...: run CMD, its output to OUT and ERR;
# fail unless it exits with STATUS.
expect_rc() {
	want=$1 out=$2 err=$3
	shift 3
	set +e
	"$@" >"$out" 2>"$err"
	got=$?
	set -e
	[ "$got" = "$want" ] || fail_ "$*: exit status $got, expected $want: $(cat "$err")"
}

# wait_for FILE PATTERN [SECONDS]: until grep finds PATTERN in FILE.
wait_for() {
	n=0
	while ! grep -q "$2" "$1" 2>/dev/null; do
		n=$((n + 1))
		[ $n -le $((${3:-20} * 10)) ] || fail_ "timed out waiting for '$2' in $1"
		sleep 0.1
	done
}

cap_eff() { awk '/^CapEff:/ { print $2 }' "/proc/$1/status"; }
uid_of() { awk '/^Uid:/ { print $2 }' "/proc/$1/status"; }

# public FILE...: copies of FILEs (a program and the libraries beside it
# that its RUNPATH $ORIGIN finds) in $pub; prints the first copy's path.
public() {
	for f; do cp -p "$f" "$pub/"; done
	echo "$pub/$(basename "$1")"
}

# held N ARGS...: orbit-trace ARGS -f outer -- the stress program held
# before work, as under "sudo" by user nobody, its report in $work/rN.txt;
# sets otpid and spid once armed.
held() {
	run=$1
	shift
	SUDO_UID=65534 SUDO_GID=65534 "$OT" -v -o "$work/r$run.txt" "$@" -f outer -- "$(public "$STRESS")" \
		--stress-calls 100 --wait-go >"$work/out$run" 2>"$work/err$run" &
	otpid=$!
	cleanup_pids=$otpid
	wait_for "$work/out$run" '^ready '
	wait_for "$work/err$run" 'armed 1 functions'
	spid=$(sed -n 's/^ready //p' "$work/out$run")
}
