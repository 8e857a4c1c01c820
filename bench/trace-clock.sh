#!/bin/sh
# What the trace clock costs the traced workload (issue 13, doc/performance.md).
#
# An instance records WORKLOAD's event with options/stacktrace and no reader
# (the ring buffer overwrites itself: only the kernel's side is measured);
# PAIRS times, the workload runs SECONDS with CLOCK_A and with CLOCK_B, in
# the order A B, B A, A B, ... Prints the median and quartiles of rate(B) /
# rate(A). The syscall loop's rate is per CPU second of its own (the load of
# a shared machine mostly cancels); pingpong's is per wall second.
#
# Run as root:  bench/trace-clock.sh [PAIRS [SECONDS [CLOCK_A [CLOCK_B [WORKLOAD]]]]]
#   defaults:   30 0.5 local x86-tsc syscall     (WORKLOAD: syscall | pingpong)
# A/A (the same clock twice) shows the noise. Removes only its own instance.
set -eu
N=${1:-30}
S=${2:-0.5}
A=${3:-local}
B=${4:-x86-tsc}
WL=${5:-syscall}
T=/sys/kernel/tracing
I=$T/instances/stacktop-clock.$$

[ "$(id -u)" = 0 ] || { echo "trace-clock.sh: needs root" >&2; exit 1; }
case $WL in
syscall) EV=raw_syscalls/sys_enter ;;
pingpong) EV=sched/sched_switch ;;
*) echo "trace-clock.sh: workload syscall or pingpong" >&2; exit 1 ;;
esac
trap 'echo 0 > "$I/tracing_on" 2>/dev/null; rmdir "$I" 2>/dev/null || true' EXIT
trap 'exit 130' INT TERM
mkdir "$I"
echo 1 > "$I/options/stacktrace"
echo 1 > "$I/events/$EV/enable"
S=$S N=$N A=$A B=$B I=$I WL=$WL python3 -c '
import os, statistics, time
s, I, wl = float(os.environ["S"]), os.environ["I"], os.environ["WL"]
A, B = os.environ["A"], os.environ["B"]
def clock(c):
    with open(I + "/trace_clock", "w") as f:
        f.write(c)
if wl == "pingpong":
    r1, w1 = os.pipe(); r2, w2 = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(w1); os.close(r2)
        while os.read(r1, 1):
            os.write(w2, b"x")
        os._exit(0)
    os.close(r1); os.close(w2)
else:
    fd = os.open("/dev/zero", os.O_RDONLY)
def rate():
    n = 0
    c0, t0 = time.process_time(), time.monotonic()
    while time.monotonic() < t0 + s:
        if wl == "pingpong":
            for _ in range(100):
                os.write(w1, b"x"); os.read(r2, 1)
            n += 100
        else:
            for _ in range(1000):
                os.read(fd, 1)
            n += 1000
    dt = time.monotonic() - t0 if wl == "pingpong" else time.process_time() - c0
    return n / dt
r = []
for i in range(int(os.environ["N"])):
    v = [0, 0]
    for k in ((0, 1) if i % 2 == 0 else (1, 0)):
        clock((A, B)[k])
        v[k] = rate()
    r.append(v[1] / v[0])
if wl == "pingpong":
    os.close(w1); os.waitpid(child, 0)
r.sort()
print("%s: %s vs %s: median %.3f, quartiles %.3f-%.3f, %d pairs of %.1f s" %
      (wl, B, A, statistics.median(r), r[len(r) // 4], r[3 * len(r) // 4], len(r), s))
'
