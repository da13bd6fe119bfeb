# The differential run of every program shape (issue 30, item 8:
# scripts/shapes-diff.sh; 20 runs by hand, 2 here): on each backend a
# shape concerns, output and exit status as untraced, counts exact or the
# status not ok.
. "$(dirname "$0")/lib.sh"
require_uprobes
OT="$OT" sh "$top/scripts/shapes-diff.sh" 2 >"$work/diff" 2>&1 || fail_ "shapes-diff.sh: $(cat "$work/diff")"
pass_
