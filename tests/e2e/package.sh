# make deb: a package lintian accepts, with its runtime dependencies; its
# contents, unpacked into a scratch root, run --version and a capture.
. "$(dirname "$0")/lib.sh"
command -v dpkg-buildpackage >/dev/null && command -v dh >/dev/null && command -v lintian >/dev/null ||
	skip_ "needs dpkg-dev, debhelper and lintian (make deps installs them)"

make -s -C "$top" deb >"$work/build.log" 2>&1 || fail_ "make deb: $(tail -20 "$work/build.log")"
deb=$(ls "$top"/orbit-trace_*_*.deb)
lintian --fail-on error "$deb" >"$work/lintian" 2>&1 || fail_ "lintian: $(cat "$work/lintian")"
dpkg-deb -f "$deb" Depends | grep -q 'libelf1' || fail_ "no libelf1 in Depends"
dpkg-deb -f "$deb" Depends | grep -q 'libcap2' || fail_ "no libcap2 in Depends"
dpkg -x "$deb" "$work/root"
"$work/root/usr/bin/orbit-trace" --version >"$work/version" || fail_ "packaged --version"
head -1 "$work/version" | grep -qx "orbit-trace $(dpkg-deb -f "$deb" Version)" ||
	fail_ "version mismatch: $(cat "$work/version")"
[ -f "$work/root/usr/share/man/man1/orbit-trace.1.gz" ] || fail_ "no man page in the package"
require_uprobes
"$work/root/usr/bin/orbit-trace" --json -o "$work/report.json" -f outer,inner -- \
	"$work/root/usr/libexec/orbit-trace/orbit-stress" --stress-hz 1000 --stress-calls 200 \
	>/dev/null || fail_ "packaged capture failed"
json_check "$work/report.json" 'fn["outer"]["scopes"] == 200 and fn["inner"]["scopes"] == 1200'
pass_
