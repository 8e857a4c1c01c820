#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The cost of user stacks (doc/performance.md, "User stacks (dwarf)").

A workload (uprog: main -> a -> b -> c -> write(/dev/null) in a loop,
-fomit-frame-pointer) runs SECONDS alone and under each tool, in interleaved
rounds: stacktop without -u, stacktop --user=fp, stacktop --user=dwarf (the
whole program: ring buffer, perf samples, unwind, join, symbols),
unwind-bench (perfsamp + dwunwind alone) and `perf record --call-graph
dwarf,8192` (+ `perf report` to unwind what it wrote). Reported per round:
the calls/s the workload keeps (against the alone run just before), what
each traced call costs the workload (ns), the tool's CPU seconds and per
event.

    bench/unwind.py BUILD_DIR [ROUNDS [SECONDS [busy|paced [TOOLS]]]]   (root)

TOOLS: comma-separated among stacktop,st-fp,st-dwarf,ours,perf (default all)

busy: as fast as it can (both tools lose most samples: the per-sample CPU
is the number to compare); paced: a 1 ms pause every 64 calls (nothing
lost: the rate kept is the number to compare).
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

B = sys.argv[1] if len(sys.argv) > 1 else "build-rel"
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
S = int(sys.argv[3]) if len(sys.argv) > 3 else 4
MODE = sys.argv[4] if len(sys.argv) > 4 else "busy"
TOOLS = (sys.argv[5] if len(sys.argv) > 5 else "stacktop,st-fp,st-dwarf,ours,perf").split(",")
STACKTOP = os.path.join(B, "stacktop")
UPROG = os.path.join(B, "tests/unwind/uprog")
BENCH = os.path.join(B, "bench/unwind-bench")


def cpu_of(ru):
    return ru.ru_utime + ru.ru_stime


def held_workload():
    """uprog started but waiting on stdin until released"""
    p = subprocess.Popen(["sh", "-c", 'read x; exec "$0" "$1" "$2"', UPROG, str(S), MODE],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    return p


WCPU = []  # the workload's CPU per call (user + system: the tracing runs in its context)


def finish(p):
    p.stdin.close()
    out = p.stdout.read()
    _, _, ru = os.wait4(p.pid, 0)
    p.returncode = 0
    calls = int(out.split()[1])
    WCPU.append(cpu_of(ru) / max(calls, 1))
    return calls / S


def alone():
    p = held_workload()
    p.stdin.write("go\n")
    p.stdin.flush()
    return finish(p)


def with_ours():
    w = held_workload()
    t = subprocess.Popen([BENCH, str(w.pid)], stdout=subprocess.PIPE, text=True)
    assert t.stdout.readline().strip() == "ready"
    w.stdin.write("go\n")
    w.stdin.flush()
    rate = finish(w)
    out = t.stdout.read()
    _, status, ru = os.wait4(t.pid, 0)
    t.returncode = status
    f = out.split()
    samples = int(f[f.index("samples") + 1])
    info = "unwound %s failed %s lost %s frames %s" % (
        f[f.index("unwound") + 1], f[f.index("failed") + 1], f[f.index("lost") + 1],
        f[f.index("frames") + 1])
    return rate, samples, cpu_of(ru), 0.0, info


def with_perf(tmp):
    w = held_workload()
    data = os.path.join(tmp, "perf.data")
    t = subprocess.Popen(["perf", "record", "-q", "--call-graph", "dwarf,8192",
                          "-e", "syscalls:sys_enter_write", "-p", str(w.pid), "-o", data],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1)  # perf has no "ready" line; a bench, not a test
    w.stdin.write("go\n")
    w.stdin.flush()
    rate = finish(w)
    _, _, ru = os.wait4(t.pid, 0)
    t.returncode = 0
    rec_cpu = cpu_of(ru)
    r = subprocess.Popen(["perf", "report", "-i", data, "--stdio", "--no-children", "-g", "caller",
                          "--sort", "sym"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         text=True)
    out = r.stdout.read()
    _, _, ru = os.wait4(r.pid, 0)
    r.returncode = 0
    st = subprocess.run(["perf", "report", "-i", data, "--stats"], capture_output=True,
                        text=True).stdout
    samples = lost = 0
    for line in st.splitlines():
        f = line.split()
        if line.strip().startswith("SAMPLE events:") and not samples:
            samples = int(f[2])
        if line.strip().startswith("LOST_SAMPLES events:"):
            lost = int(f[2])
    return rate, samples, rec_cpu, cpu_of(ru), "lost %d" % lost


def with_stacktop(user):
    """the whole stacktop: -u off, fp or dwarf, one report after the run"""
    w = held_workload()
    args = [STACKTOP, "-b", "-n", "1", "-d", str(S + 1.5), "--top", "1", "--expand", "0",
            "-e", "syscalls:sys_enter_write", "-p", str(w.pid)]
    if user:
        args.insert(1, "--user=" + user)
    t = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1)  # no "ready" line either
    w.stdin.write("go\n")
    w.stdin.flush()
    rate = finish(w)
    out = t.stdout.read()
    err = t.stderr.read()
    _, _, ru = os.wait4(t.pid, 0)
    t.returncode = 0
    hits = lost = 0
    if "hits:" not in out:
        print("stacktop:", err.strip()[:300], file=sys.stderr)
    info = ""
    for line in out.splitlines():
        f = line.replace(";", " ").replace(",", " ").split()
        if line.startswith("hits:"):
            hits = int(f[1])
        if line.startswith("user stacks: dwarf"):
            info = "with user stack %s, without %s" % (f[3], f[9])
    return rate, hits, cpu_of(ru), 0.0, info


def main():
    if os.geteuid() != 0:
        sys.exit("unwind.py: needs root")
    rows = {t: [] for t in TOOLS}
    with tempfile.TemporaryDirectory(prefix="stacktop-unwind.") as tmp:
        for r in range(ROUNDS):
            for tool in TOOLS:
                base = alone()
                if tool == "ours":
                    rate, n, cpu, cpu2, info = with_ours()
                elif tool == "perf":
                    rate, n, cpu, cpu2, info = with_perf(tmp)
                else:
                    rate, n, cpu, cpu2, info = with_stacktop(
                        {"stacktop": None, "st-fp": "fp", "st-dwarf": "dwarf"}[tool])
                wadd = 1e9 * (WCPU[-1] - WCPU[-2])  # ns of the workload's CPU a call
                rows[tool].append((rate / base, n, cpu, cpu2, wadd))
                print("round %d %-8s alone %.0f/s with %.0f/s (%.1f%%) workload cpu %.0f -> "
                      "%.0f ns a call (+%.0f) events %d tool cpu %.2fs + %.2fs = %.2f us/event  %s" % (
                          r + 1, tool, base, rate, 100 * rate / base, 1e9 * WCPU[-2],
                          1e9 * WCPU[-1], wadd, n, cpu, cpu2, 1e6 * (cpu + cpu2) / max(n, 1),
                          info), flush=True)
    for tool, v in rows.items():
        print("%-8s: rate kept median %.1f%%, workload +%.0f ns CPU a traced call, tool CPU per event "
              "median %.2f us (record %.2f us + unwind/report %.2f us)" % (
                  tool, 100 * statistics.median(x[0] for x in v),
                  statistics.median(x[4] for x in v),
                  statistics.median(1e6 * (x[2] + x[3]) / max(x[1], 1) for x in v),
                  statistics.median(1e6 * x[2] / max(x[1], 1) for x in v),
                  statistics.median(1e6 * x[3] / max(x[1], 1) for x in v)))


main()
