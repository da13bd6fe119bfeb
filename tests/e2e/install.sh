# make install / uninstall with PREFIX and DESTDIR: files where a Linux
# tool's belong, the installed binary and man page work, the installed
# sweep script finds the installed stress program; uninstall removes all.
. "$(dirname "$0")/lib.sh"

root="$work/root"
make -s -C "$top" install DESTDIR="$root" PREFIX=/opt/ot >"$work/log" 2>&1 ||
	fail_ "make install: $(cat "$work/log")"
for f in bin/orbit-trace share/man/man1/orbit-trace.1 libexec/orbit-trace/orbit-stress \
	libexec/orbit-trace/stress-sweep.sh share/bash-completion/completions/orbit-trace; do
	[ -f "$root/opt/ot/$f" ] || fail_ "not installed: /opt/ot/$f"
done
"$root/opt/ot/bin/orbit-trace" --version | grep -qx 'orbit-trace [0-9.]*' || fail_ "installed --version"
command -v man >/dev/null || skip_ "man is not installed (make deps installs man-db)"
MANPATH="$root/opt/ot/share/man" man -w orbit-trace 2>"$work/man" | grep -q "^$root/opt/ot/share/man/" ||
	fail_ "man -w does not find the installed page: $(cat "$work/man")"
LC_ALL=C groff -man -ww -z "$root/opt/ot/share/man/man1/orbit-trace.1" 2>"$work/groff" &&
	[ ! -s "$work/groff" ] || fail_ "installed man page: $(cat "$work/groff")"
if [ "$(id -u)" = 0 ] && [ -r /sys/bus/event_source/devices/uprobe/type ]; then
	PATH="$root/opt/ot/bin:$PATH" "$root/opt/ot/libexec/orbit-trace/stress-sweep.sh" 1x1000x200 \
		>"$work/sweep" 2>&1 || fail_ "installed sweep: $(cat "$work/sweep")"
	grep -Eq '^1 x 1000 x 200 +1800 +1800 +0 ' "$work/sweep" || fail_ "sweep row: $(cat "$work/sweep")"
fi
# install-caps: the binary for one group, 0750, with the capability.
if [ "$(id -u)" = 0 ] && command -v setcap >/dev/null; then
	make -s -C "$top" install-caps DESTDIR="$root" PREFIX=/opt/ot TRACE_GROUP=nogroup \
		>>"$work/log" 2>&1 || fail_ "make install-caps: $(cat "$work/log")"
	[ "$(stat -c '%a %G' "$root/opt/ot/bin/orbit-trace")" = "750 nogroup" ] ||
		fail_ "install-caps: $(stat -c '%a %G' "$root/opt/ot/bin/orbit-trace")"
	getcap "$root/opt/ot/bin/orbit-trace" | grep -q 'cap_sys_admin[=+]ep' ||
		fail_ "install-caps: $(getcap "$root/opt/ot/bin/orbit-trace")"
	expect_rc 2 /dev/null "$work/nogroup.err" make -s -C "$top" install-caps DESTDIR="$root" \
		PREFIX=/opt/ot TRACE_GROUP=no-such-group-ot
	grep -qF "install-caps: no group 'no-such-group-ot': create it" "$work/nogroup.err" ||
		fail_ "install-caps without the group: $(cat "$work/nogroup.err")"
fi
make -s -C "$top" uninstall DESTDIR="$root" PREFIX=/opt/ot >>"$work/log" 2>&1 || fail_ "make uninstall"
left=$(find "$root" -type f)
[ -z "$left" ] || fail_ "left after uninstall: $left"
pass_
