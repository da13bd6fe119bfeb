#!/usr/bin/python3.11
"""Every orbit-trace command line of the README's code blocks and the man
page's .EX blocks, run (issue 34): a doc example cannot rot.

Usage: examples.py OT WORK STANDIN MAN README...  Each command, as written
but for what names this machine lacks: "sudo" dropped (root runs it), a
pid (4242, $(pgrep ...), $(pidof ...)) is a fresh stand-in's that printed
"ready PID", ./game ./server ./app ./vm are copies of the stand-in in WORK
(the directory the commands run in), -d N is -d 1, the part before a pipe
(| jq ...) runs, a systemd unit's cgroup is the stand-in's, node_exporter's
directory WORK.  Each must exit 0 and no message may say an option is
unknown, ambiguous or misplaced; a few are not run, each with why (SKIP).
Prints one line per command; exits 1 if one failed.
"""
import os
import re
import subprocess
import sys
import time

OT, WORK, STANDIN = sys.argv[1:4]
DOCS = sys.argv[4:]

# Commands that cannot run here, by a piece of them, and why.
NOT_RUN = {
    "DEBUGINFOD_URLS=https://debuginfod.debian.net":
        "needs debuginfod.debian.net (no network here): debuginfod.sh runs a local server",
}
# What an example's failure to parse says.
BAD = re.compile(r"unknown option|is ambiguous|invalid option|unrecognized option|"
                 r"not an option|goes before|is an orbit-trace option")
CMD = re.compile(r"^(?:[A-Z_]+=\S+ )*(?:sudo (?:-E )?)?(?:[A-Z_]+=\S+ )*orbit-trace (?!report)")


def unman(s):
    for a, b in (("\\-", "-"), ("\\(dq", '"'), ("\\(aq", "'"), ("\\e", "\\"),
                 ("\\(mu", "x"), ("\\&", "")):
        s = s.replace(a, b)
    return s


def man_lines(path):
    lines, out, ex, i = open(path).read().split("\n"), [], False, 0
    while i < len(lines):
        line = lines[i]
        if line.startswith(".EX"):
            ex = True
        elif line.startswith(".EE"):
            ex = False
        elif ex and not line.startswith("."):
            t = unman(line)
            while t.endswith("\\") and i + 1 < len(lines):
                i += 1
                t = t[:-1] + unman(lines[i]).lstrip()
            out.append(t.strip())
        i += 1
    return out


def readme_lines(path):
    out, fence = [], False
    for line in open(path).read().split("\n"):
        if line.startswith("```"):
            fence = not fence
        elif fence or line.startswith("    "):
            out.append(line.strip())
    return out


def examples():
    seen, per = [], {}
    for d in DOCS:
        got = [l for l in (man_lines(d) if d.endswith(".1") else readme_lines(d)) if CMD.match(l)]
        per[d] = len(got)
        seen += [l for l in got if l not in seen]
    return seen, per


def start_standin():
    p = subprocess.Popen([STANDIN, "ready"], stdout=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    assert line.startswith("ready "), line
    return p


def cgroup2():
    for line in open("/proc/self/mountinfo"):
        f = line.split()
        if f[f.index("-") + 1] == "cgroup2":
            return f[4]
    return None


def into_cgroup(pid):
    """A transient cgroup v2 directory holding the stand-in alone: a
    systemd unit's, for --cgroup (as services.sh makes one)."""
    root = cgroup2()
    if not root:
        return None, None
    d = os.path.join(root, "orbit-e2e-examples.%d" % os.getpid())
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "cgroup.procs"), "w") as f:
        f.write("%d\n" % pid)
    return d, os.path.relpath(d, root)


def node_exporter():
    """Debian's node exporter on a port of its own: the Go example's -p."""
    port = 20000 + os.getpid() % 20000
    log = open(os.path.join(WORK, "node-exporter.log"), "w")
    p = subprocess.Popen(["prometheus-node-exporter", "--web.listen-address=127.0.0.1:%d" % port],
                         stdout=log, stderr=subprocess.STDOUT)
    for _ in range(100):
        if "Listening on" in open(log.name).read():
            return p
        time.sleep(0.1)
    p.kill()
    return None


def prepare(cmd, pid, cgroup):
    c = re.sub(r"\s{2,}#.*$", "", cmd)              # the comment
    c = re.split(r"\s\|\s", c)[0]                   # before a pipe
    c = re.sub(r"\bsudo (-E )?", "", c)
    c = re.sub(r"\$\((pgrep|pidof)[^)]*\)", str(pid), c)
    c = re.sub(r"\b4242\b", str(pid), c)
    c = re.sub(r"(^|\s)-d [0-9.]+", r"\1-d 1", c)
    c = c.replace("/var/lib/prometheus/node-exporter/", WORK + "/")
    if cgroup:
        c = c.replace("system.slice/nginx.service", cgroup)
    return re.sub(r"(^|\s)orbit-trace ", r"\1'%s' " % OT, c, count=1)


def run(cmd, i):
    skip = [why for k, why in NOT_RUN.items() if k in cmd]
    if skip:
        print("SKIP %s: %s" % (cmd, skip[0]))
        return True
    go = None
    standin = None
    if "prometheus-node-exporter" in cmd:
        go = node_exporter()
        if not go:
            print("FAIL %s: the node exporter did not start" % cmd)
            return False
        pid = go.pid
    else:
        standin = start_standin()
        pid = standin.pid
    cgdir, cgroup = into_cgroup(pid) if "--cgroup" in cmd else (None, None)
    c = prepare(cmd, pid, cgroup)
    out = os.path.join(WORK, "ex%02d" % i)
    with open(out + ".out", "w") as o, open(out + ".err", "w") as e:
        o.write("# %s\n# %s\n" % (cmd, c))
        o.flush()
        try:
            rc = subprocess.run(["sh", "-c", c], cwd=WORK, stdout=o, stderr=e, timeout=60).returncode
        except subprocess.TimeoutExpired:
            rc = "timeout"
    if go:
        go.kill()
        go.wait()
    if standin:
        standin.kill()
        standin.wait()
    if cgdir:
        os.rmdir(cgdir)
    err = open(out + ".err").read()
    if rc != 0 or BAD.search(err):
        print("FAIL %s: exit status %s: %s" % (cmd, rc, err.strip()[-600:]))
        return False
    print("ok   %s" % cmd)
    return True


def main():
    cmds, per = examples()
    ok = True
    for d, n in per.items():
        if n < 10:
            print("FAIL %s: only %d examples found: the extraction is broken" % (d, n))
            ok = False
    for i, c in enumerate(cmds):
        ok = run(c, i) and ok
    print("%d examples from %s" % (len(cmds), ", ".join("%s (%d)" % (os.path.basename(d), n)
                                                      for d, n in per.items())))
    sys.exit(0 if ok else 1)


main()
