#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The cost of user stacks (doc/performance.md, "User stacks (dwarf)").

A workload (uprog: main -> a -> b -> c -> write(/dev/null) in a loop,
-fomit-frame-pointer) runs SECONDS alone and under each tool, in interleaved
rounds (alone, tool, alone, next tool, ...). Tools:

  stacktop     stacktop -b without -u (the ring buffer's record and kernel
               stack: the baseline)
  st-fp        --user=fp (ftrace's userstacktrace)
  st-dwarf     --user=dwarf (the whole program: ring buffer, perf samples,
               unwind, join, symbols)
  st-dwarf2k   --user=dwarf,2K (2 KiB of stack copied per sample)
  st-sample10  --user=dwarf --user-sample 10 (one event in 10)
  ours         bench/unwind-bench (perfsamp + dwunwind alone)
  perf         perf record --call-graph dwarf,8192 (default ring) + perf report
  perf-m16     the same with -m 16M (a ring the size stacktop's grow to)
  before       $STACKTOP_BEFORE --user=dwarf: another build (the commit
               before a change), in the same rounds

Reported per round: the calls/s the workload kept (against the alone run
just before), what each traced call cost the workload (ns of its CPU:
user + system from wait4, the copy of the stack is made in its context),
the events the tool counted, the share of the workload's calls that got a
user stack (stacktop: the header's "with a user stack"; perf: samples
written, each with its stack, of the calls made), the tool's CPU seconds
(perf: record + report) and per event.

    bench/unwind.py BUILD_DIR [ROUNDS [SECONDS [MODE [TOOLS]]]]   (root)

MODE: busy (as fast as it can), paced (a 1 ms pause every 64 calls),
rate:N (N calls a second, a batch each millisecond; rate:50000 is issue
18's case). TOOLS: comma-separated (default all).
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
ALL = "stacktop,st-fp,st-dwarf,st-dwarf2k,st-sample10,ours,perf,perf-m16"
TOOLS = (sys.argv[5] if len(sys.argv) > 5 else ALL).split(",")
STACKTOP = os.path.join(B, "stacktop")
UPROG = os.path.join(B, "tests/unwind/uprog")
BENCH = os.path.join(B, "bench/unwind-bench")
UPROG_ARGS = ["rate", MODE.split(":")[1]] if MODE.startswith("rate:") else [MODE]


def cpu_of(ru):
    return ru.ru_utime + ru.ru_stime


def held_workload():
    """uprog started but waiting on stdin until released"""
    return subprocess.Popen(["sh", "-c", 'read x; exec "$@"', "sh", UPROG, str(S)] + UPROG_ARGS,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


WCPU = []  # the workload's CPU per call (user + system: the tracing runs in its context)
CALLS = []


def finish(p):
    p.stdin.close()
    out = p.stdout.read()
    _, _, ru = os.wait4(p.pid, 0)
    p.returncode = 0
    calls = int(out.split()[1])
    WCPU.append(cpu_of(ru) / max(calls, 1))
    CALLS.append(calls)
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
    unwound = int(f[f.index("unwound") + 1])
    info = "unwound %s failed %s lost %s frames %s walked %s replayed %s" % (
        f[f.index("unwound") + 1], f[f.index("failed") + 1], f[f.index("lost") + 1],
        f[f.index("frames") + 1], f[f.index("walked") + 1], f[f.index("replayed") + 1])
    return rate, samples, unwound, cpu_of(ru), 0.0, info


def with_perf(tmp, mmap=None):
    w = held_workload()
    data = os.path.join(tmp, "perf.data")
    args = ["perf", "record", "-q", "--call-graph", "dwarf,8192",
            "-e", "syscalls:sys_enter_write", "-p", str(w.pid), "-o", data]
    if mmap:
        args[2:2] = ["-m", mmap]
    t = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
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
    r.stdout.read()
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
    return rate, samples, samples, rec_cpu, cpu_of(ru), "lost %d" % lost


def with_stacktop(opts, binary=STACKTOP):
    """the whole stacktop, one report after the run"""
    w = held_workload()
    args = [binary, "-b", "-n", "1", "-d", str(S + 1.5), "--top", "1", "--expand", "0",
            "-e", "syscalls:sys_enter_write", "-p", str(w.pid)] + opts
    t = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1)  # no "ready" line either
    w.stdin.write("go\n")
    w.stdin.flush()
    rate = finish(w)
    out = t.stdout.read()
    err = t.stderr.read()
    _, _, ru = os.wait4(t.pid, 0)
    t.returncode = 0
    hits = with_stack = 0
    if "hits:" not in out:
        print("stacktop:", err.strip()[:300], file=sys.stderr)
    info = ""
    for line in out.splitlines():
        f = line.replace(";", " ").replace(",", " ").split()
        if line.startswith("hits:"):
            hits = int(f[1])
        if line.startswith("user stacks: dwarf"):
            i = f.index("events")
            with_stack = int(f[i - 1])
            info = line[len("user stacks: "):][:200]
    if not any(o.startswith("--user") or o == "-u" for o in opts):
        with_stack = 0
    return rate, hits, with_stack, cpu_of(ru), 0.0, info


def main():
    if os.geteuid() != 0:
        sys.exit("unwind.py: needs root")
    rows = {t: [] for t in TOOLS}
    st_opts = {"stacktop": [], "st-fp": ["--user=fp"], "st-dwarf": ["--user=dwarf"],
               "st-dwarf2k": ["--user=dwarf,2K"],
               "st-sample10": ["--user=dwarf", "--user-sample", "10"]}
    with tempfile.TemporaryDirectory(prefix="stacktop-unwind.") as tmp:
        for r in range(ROUNDS):
            for tool in TOOLS:
                base = alone()
                if tool == "ours":
                    res = with_ours()
                elif tool == "perf":
                    res = with_perf(tmp)
                elif tool == "perf-m16":
                    res = with_perf(tmp, "16M")
                elif tool == "before":
                    res = with_stacktop(["--user=dwarf"], os.environ["STACKTOP_BEFORE"])
                else:
                    res = with_stacktop(st_opts[tool])
                rate, n, ustacks, cpu, cpu2, info = res
                calls = CALLS[-1]
                wadd = 1e9 * (WCPU[-1] - WCPU[-2])  # ns of the workload's CPU a call
                share = ustacks / max(calls, 1)
                rows[tool].append((rate / base, n, cpu, cpu2, wadd, share, rate))
                print("round %d %-11s alone %.0f/s with %.0f/s (%.1f%%) workload cpu %.0f -> "
                      "%.0f ns a call (+%.0f) events %d, with a user stack %.1f%% of %d calls, "
                      "tool cpu %.2fs + %.2fs = %.2f us/event (%.1f%% of a CPU)  %s" % (
                          r + 1, tool, base, rate, 100 * rate / base, 1e9 * WCPU[-2],
                          1e9 * WCPU[-1], wadd, n, 100 * share, calls, cpu, cpu2,
                          1e6 * (cpu + cpu2) / max(n, 1), 100 * (cpu + cpu2) / S, info),
                      flush=True)
    print("medians over %d rounds of %d s, mode %s:" % (ROUNDS, S, MODE))
    for tool, v in rows.items():
        print("%-11s: calls/s kept %.0f (%.1f%%), workload +%.0f ns CPU a call, user stacks on "
              "%.1f%% of calls, tool CPU %.2f us/event (%.2f record + %.2f report/unwind), "
              "%.1f%% of a CPU" % (
                  tool, statistics.median(x[6] for x in v),
                  100 * statistics.median(x[0] for x in v),
                  statistics.median(x[4] for x in v),
                  100 * statistics.median(x[5] for x in v),
                  statistics.median(1e6 * (x[2] + x[3]) / max(x[1], 1) for x in v),
                  statistics.median(1e6 * x[2] / max(x[1], 1) for x in v),
                  statistics.median(1e6 * x[3] / max(x[1], 1) for x in v),
                  statistics.median(100 * (x[2] + x[3]) / S for x in v)))


main()
