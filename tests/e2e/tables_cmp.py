#!/usr/bin/env python3
"""Compare the tables of two orbit-trace JSON reports of the same program
(issue 33, item 6: figures gathered two ways must agree).

Usage: tables_cmp.py A.json B.json [--durations]

Always compared, exactly: each function's scopes, depths, duplicates,
unclosed, orphans and outside_parent, and the call tree (every path with
its calls; call_tree_dropped).  With --durations (both reports from
programs timed alike: the same backend, one gathered in the process and
one from records, in one run: two runs' durations differ by more than
the bound): the longest calls' paths per function as sets, and
p50/p90/p99 within the histogram's bound (lib/scopes/hist.h: a value is
read at its bucket's midpoint, within 1/128 of it; two readings of one
distribution may sit a bucket apart: 1/32 relative, at least 64 ns).  Prints each difference; exits 1 if there is any.
"""
import json, sys

COUNTS = ("scopes", "duplicates", "unclosed", "orphans", "outside_parent")


def load(path):
    j = json.load(open(path))
    return j, {f["name"]: f for f in j["functions"]}


def tree(j):
    return {" > ".join(n["path"]): n["calls"] for n in j.get("call_tree") or []}


def near(a, b):
    return abs(a - b) <= max(64, max(a, b) / 32.0)


def compare(a, b, durations):
    (ja, fa), (jb, fb) = a, b
    diffs = []
    if set(fa) != set(fb):
        diffs.append("functions: %s against %s" % (sorted(fa), sorted(fb)))
    for name in sorted(set(fa) & set(fb)):
        x, y = fa[name], fb[name]
        for k in COUNTS:
            if x.get(k) != y.get(k):
                diffs.append("%s: %s %s against %s" % (name, k, x.get(k), y.get(k)))
        if x.get("depths") != y.get("depths"):
            diffs.append("%s: depths %s against %s" % (name, x.get("depths"), y.get("depths")))
        if not durations:
            continue
        px = {tuple(s["path"]) for s in x.get("slowest") or []}
        py = {tuple(s["path"]) for s in y.get("slowest") or []}
        if px != py:
            diffs.append("%s: longest calls' paths %s against %s" % (name, sorted(px), sorted(py)))
        dx, dy = x.get("duration_ns") or {}, y.get("duration_ns") or {}
        for q in ("p50", "p90", "p99"):
            if q in dx and q in dy and not near(dx[q], dy[q]):
                diffs.append("%s: %s %d against %d" % (name, q, dx[q], dy[q]))
    ta, tb = tree(ja), tree(jb)
    for path in sorted(set(ta) | set(tb)):
        if ta.get(path) != tb.get(path):
            diffs.append("call tree %s: %s against %s" % (path, ta.get(path), tb.get(path)))
    if ja.get("call_tree_dropped") != jb.get("call_tree_dropped"):
        diffs.append("call_tree_dropped %s against %s" % (ja.get("call_tree_dropped"),
                                                         jb.get("call_tree_dropped")))
    return diffs


def main():
    args = [a for a in sys.argv[1:] if a != "--durations"]
    if len(args) != 2:
        sys.exit(__doc__)
    diffs = compare(load(args[0]), load(args[1]), "--durations" in sys.argv[1:])
    for d in diffs:
        print("  %s" % d, file=sys.stderr)
    sys.exit(1 if diffs else 0)


if __name__ == "__main__":
    main()
