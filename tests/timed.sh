#!/bin/sh
# timed.sh PHASE CMD...: runs CMD, then says what PHASE cost ("check: PHASE:
# N s", ", FAILED" after it when CMD failed) on stdout and, when CHECK_TIMES
# names a file, appends the line there too (make check's summary); exits
# with CMD's status.
phase=$1
shift
t0=$(date +%s)
"$@"
rc=$?
line="check: $phase: $(($(date +%s) - t0)) s$([ $rc = 0 ] || echo ", FAILED")"
echo "$line"
[ -z "${CHECK_TIMES:-}" ] || echo "$line" >>"$CHECK_TIMES"
exit $rc
