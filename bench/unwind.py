#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The cost of dwarf user stacks (doc/performance.md, "User stacks (dwarf)").

A workload (uprog: main -> a -> b -> c -> write(/dev/null) in a loop,
-fomit-frame-pointer) runs SECONDS alone, with unwind-bench (perfsamp +
dwunwind, every sample unwound while read) and with `perf record
--call-graph dwarf,8192` (+ `perf report` to unwind what it wrote), in
interleaved rounds. Reported per round: the calls/s the workload keeps
(against the alone run just before), the tool's CPU seconds and per sample.

    bench/unwind.py BUILD_DIR [ROUNDS [SECONDS [busy|paced]]]     (root)

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
UPROG = os.path.join(B, "tests/unwind/uprog")
BENCH = os.path.join(B, "bench/unwind-bench")


def cpu_of(ru):
    return ru.ru_utime + ru.ru_stime


def held_workload():
    """uprog started but waiting on stdin until released"""
    p = subprocess.Popen(["sh", "-c", 'read x; exec "$0" "$1" "$2"', UPROG, str(S), MODE],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    return p


def finish(p):
    out, _ = p.communicate()
    return int(out.split()[1]) / S


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


def main():
    if os.geteuid() != 0:
        sys.exit("unwind.py: needs root")
    rows = {"ours": [], "perf": []}
    with tempfile.TemporaryDirectory(prefix="stacktop-unwind.") as tmp:
        for r in range(ROUNDS):
            for tool in ("ours", "perf"):
                base = alone()
                if tool == "ours":
                    rate, n, cpu, cpu2, info = with_ours()
                else:
                    rate, n, cpu, cpu2, info = with_perf(tmp)
                rows[tool].append((rate / base, n, cpu, cpu2))
                print("round %d %-4s alone %.0f/s with %.0f/s (%.1f%%) samples %d "
                      "cpu %.2fs + %.2fs = %.2f us/sample  %s" % (
                          r + 1, tool, base, rate, 100 * rate / base, n, cpu, cpu2,
                          1e6 * (cpu + cpu2) / max(n, 1), info), flush=True)
    for tool, v in rows.items():
        print("%s: rate kept median %.1f%%, tool CPU per sample median %.2f us "
              "(record %.2f us + unwind/report %.2f us)" % (
                  tool, 100 * statistics.median(x[0] for x in v),
                  statistics.median(1e6 * (x[2] + x[3]) / max(x[1], 1) for x in v),
                  statistics.median(1e6 * x[2] / max(x[1], 1) for x in v),
                  statistics.median(1e6 * x[3] / max(x[1], 1) for x in v)))


main()
