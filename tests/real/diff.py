#!/usr/bin/env python3
"""Differential test on programs nobody here wrote (issue 12, item 6).

For each case: run the program untraced, then under orbit-trace, then
under bpftrace counting entries of the same uprobes.  The traced program's
output (a checksum of the files it writes and of stdout) and exit status
must equal the untraced run's, and every function's scope count must
equal bpftrace's entry count.  A verdict on exact, deterministic facts
only: no duration, rate or accuracy.

Usage: diff.py OT WORKDIR [OPTION...]   (root; bpftrace in PATH)

OPTIONs are given to every orbit-trace run in place of a case's own
(e.g. --backend inject: the same programs traced in their own memory).
"""
import hashlib, json, os, random, re, shutil, subprocess, sys

OT, WORK, OPTS = sys.argv[1], sys.argv[2], sys.argv[3:]
LIBDIR = "/lib/x86_64-linux-gnu"
failed = []


def data(name, size, seed):
    """A deterministic, compressible file."""
    rnd = random.Random(seed)
    words = ["orbit", "trace", "uprobe", "scope", "ring", "drain", "pair", "report", "%d" % seed]
    path = os.path.join(WORK, name)
    with open(path, "w") as f:
        n = 0
        while n < size:
            line = " ".join(rnd.choice(words) for _ in range(12)) + " %d\n" % rnd.randrange(1 << 30)
            f.write(line)
            n += len(line)
    return path


def digest(outputs, stdout):
    h = hashlib.sha256(stdout)
    for p in outputs:
        h.update(open(p, "rb").read())
    return h.hexdigest()


def run(cmd, outputs, env):
    for p in outputs:
        if os.path.exists(p):
            os.unlink(p)
    # stdout and stderr are pipes in every run, as under bpftrace: CPython
    # sets its streams up differently for a pipe and for /dev/null.
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    return p.returncode, digest(outputs, p.stdout)


def case(name, cmd, funcs, outputs=(), env=None, extra=(), calls=False):
    """funcs: (orbit-trace -f term, file, bpftrace function or glob) each;
    counts are compared by function name, a function neither saw is 0.
    calls: compare calls (scopes + unclosed: calls an exception left)
    rather than scopes with bpftrace's count of entries."""
    # The same small environment for all three runs: CPython hashes every
    # variable's name at start-up, so one variable more is a call more.
    env = dict({"PATH": "/usr/bin:/bin", "LC_ALL": "C"}, **(env or {}))
    cmd = [shutil.which(cmd[0], path=env["PATH"])] + cmd[1:]
    status, want = run(cmd, outputs, env)
    rep = os.path.join(WORK, name + ".json")
    st, got = run([OT, "-q", "--json", "-o", rep] + list(OPTS or extra) +
                  ["-f", ",".join(f[0] for f in funcs), "--"] + cmd, outputs, env)
    j = json.load(open(rep))
    if st != 0 or j["target"]["exit_status"] != status or got != want:
        failed.append("%s: traced run differs (orbit-trace exit %d, target exit %s vs %d, output %s)"
                      % (name, st, j["target"]["exit_status"], status, "same" if got == want else "changed"))
    ot = {f["symbol"]: f["scopes"] + (f["unclosed"] if calls else 0) for f in j["functions"]}
    script = "".join("uprobe:%s:%s /pid == cpid/ { @[probe] = count(); }\n" % (f[1], f[2])
                     for f in funcs)
    p = subprocess.run(["bpftrace", "-e", script, "-c", " ".join(cmd)], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, env=env)
    bt = {m.group(1).split(":")[-1]: int(m.group(2))
          for m in re.finditer(r'@\[(uprobe:.*?)\]: (\d+)', p.stdout)}
    if p.returncode != 0 or not bt:
        failed.append("%s: bpftrace counted nothing (exit %d): %s" % (name, p.returncode, p.stderr.strip()))
    rows = []
    for fname in sorted(set(ot) | set(bt)):
        rows.append("%-32s orbit-trace %8s  bpftrace %8s" % (fname, ot.get(fname), bt.get(fname, 0)))
        if ot.get(fname, 0) != bt.get(fname, 0):
            failed.append("%s: %s: orbit-trace %s scopes, bpftrace %d calls"
                          % (name, fname, ot.get(fname), bt.get(fname, 0)))
    if j["status"] != "ok" or j["records"]["lost"]:
        failed.append("%s: status %s, %d records lost: %s"
                      % (name, j["status"], j["records"]["lost"], j["reasons"]))
    print("%s (backend %s, returns %s, status %s):\n  %s" % (name, j["arming"]["backend"],
          j["arming"]["returns"], j["status"], "\n  ".join(rows)))


def main():
    lz = LIBDIR + "/liblzma.so.5"
    src = data("xz.in", 400000, 1)
    case("xz", ["xz", "-k", "-f", "-T1", src],
         [("liblzma.so.5:lzma_crc64", lz, "lzma_crc64"), ("liblzma.so.5:lzma_code", lz, "lzma_code")],
         outputs=[src + ".xz"])
    libc = LIBDIR + "/libc.so.6"
    src = data("gz.in", 300000, 2)
    case("gzip", ["gzip", "-k", "-f", src],
         [("libc.so.6:read", libc, "read"), ("libc.so.6:write", libc, "write")],
         outputs=[src + ".gz"])
    py = os.path.realpath("/usr/bin/python3")
    prog = os.path.join(WORK, "py.py")
    open(prog, "w").write("d = {}\nfor i in range(20000):\n    d[str(i)] = hash((i, str(i)))\n"
                          "print(sum(d.values()) % 1000003, len(d))\n")
    case("python3", [py, prog],
         [("PyObject_Hash", py, "PyObject_Hash"), ("PyDict_SetItem", py, "PyDict_SetItem"),
          ("PyLong_FromLong", py, "PyLong_FromLong"), ("PyDict_GetItem", py, "PyDict_GetItem")],
         env={"PYTHONHASHSEED": "0"})
    # A glob, in CPython's own functions.
    case("python3-glob", [py, prog], [("PyDict_*Item", py, "PyDict_*Item")],
         env={"PYTHONHASHSEED": "0"})
    # libz's crc32 tail-calls crc32_z through the PLT: closed by crc32_z's
    # return instructions (--returns insn), as pigz's calls would be.
    z = os.path.realpath(LIBDIR + "/libz.so.1")
    zprog = os.path.join(WORK, "z.py")
    open(zprog, "w").write("import zlib\nprint(sum(zlib.crc32(b'orbit' * i) for i in range(321)))\n")
    case("python3-zlib", [py, zprog], [("libz.so.1:crc32", z, "crc32"), ("libz.so.1:adler32", z, "adler32")],
         extra=["--returns", "insn"])
    sq = LIBDIR + "/libsqlite3.so.0"
    sql = os.path.join(WORK, "s.sql")
    open(sql, "w").write("create table t(a integer, b text);\n"
                         "with recursive c(x) as (select 1 union all select x + 1 from c where x < 3000)\n"
                         "insert into t select x, hex(x * 7919) from c;\n"
                         "select count(*), sum(a), max(b) from t;\n"
                         "select b from t where a % 500 = 0 order by a;\n")
    case("sqlite3", ["sqlite3", "-batch", "-init", sql, ":memory:", ".quit"],
         [("libsqlite3.so.0:sqlite3_step", sq, "sqlite3_step"),
          ("libsqlite3.so.0:sqlite3_prepare_v2", sq, "sqlite3_prepare_v2")])
    # CPython's hottest functions, with default settings (sized to fit the
    # default ring: the count is exact however the tracer is scheduled;
    # how fast a drain keeps up with it is make bench's).
    hot = os.path.join(WORK, "hot.py")
    open(hot, "w").write("d = {}\ns = 0\nfor i in range(4000):\n    for k in range(20):\n"
                         "        d[k] = i + k\n    s += hash(i) + len(d)\nprint(s)\n")
    case("python3-hot", [py, hot], [("PyObject_Hash", py, "PyObject_Hash"),
                                    ("PyLong_FromLong", py, "PyLong_FromLong")],
         env={"PYTHONHASHSEED": "0"})
    # A program that forks: CPython's os.fork(); the child's calls are
    # another process's, the parent's counted.
    fk = os.path.join(WORK, "fork.py")
    open(fk, "w").write("import os\nd = {}\nfor i in range(3000):\n    d[str(i)] = hash(str(i))\n"
                        "pid = os.fork()\nif pid == 0:\n    print(len({i: hash(i) for i in range(5000)}))\n"
                        "    os._exit(0)\nos.waitpid(pid, 0)\nprint(len(d))\n")
    case("python3-fork", [py, fk], [("PyObject_Hash", py, "PyObject_Hash")], env={"PYTHONHASHSEED": "0"})
    # A program that execs another: env, then gzip, through libc.
    src = data("env.in", 200000, 3)
    case("env-gzip", ["env", "gzip", "-k", "-f", src],
         [("libc.so.6:read", libc, "read"), ("libc.so.6:write", libc, "write")], outputs=[src + ".gz"])
    # pigz compresses on two threads (32 KiB blocks) through libz.
    src = data("pigz.in", 400000, 4)
    case("pigz", ["pigz", "-k", "-f", "-p", "2", "-b", "32", src],
         [("libz.so.1:deflate", z, "deflate"), ("libz.so.1:crc32", z, "crc32")], outputs=[src + ".gz"])
    # C++ on two threads, throwing through traced functions (ours: the one
    # program here written for it; the calls an exception leaves count).
    cx = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../build/targets/cxxthreads")
    cx = os.path.realpath(cx)
    case("cxx-threads", [cx, "20000"], [("check", cx, "_Z5checkl"), ("parse", cx, "_Z5parsel")],
         calls=True)
    # xz on two threads (64 KiB blocks): its workers write each block's
    # header, the main thread indexes each block.  Not compared: lzma_crc64
    # and lzma_code, whose counts follow the threads' timing (lzma_code
    # 516-546 in four runs of the same file).
    src = data("xzt.in", 400000, 5)
    case("xz-threads", ["xz", "-k", "-f", "-T2", "--block-size=64KiB", src],
         [("liblzma.so.5:lzma_block_header_encode", lz, "lzma_block_header_encode"),
          ("liblzma.so.5:lzma_index_append", lz, "lzma_index_append")], outputs=[src + ".xz"])
    for f in failed:
        print("FAIL real: " + f, file=sys.stderr)
    sys.exit(1 if failed else 0)


main()
