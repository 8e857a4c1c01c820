#!/bin/sh
# teardown.sh BUILD [ROUNDS] - the time from stacktop's last report to its
# exit (issue 40: 0.13 s; target 30 ms), doc/performance.md "Teardown".
#
# A batch run of the stacks mode (-b -d 1, -e sched:sched_switch) ends two
# ways in alternating rounds of one run: -n 2 (the end is known: the
# instance's own pid list is emptied before it, session_ending()) and
# SIGINT during its second interval (the end is not known: the list goes in
# the teardown). Measured from the moment the last byte of the report
# reaches the pipe to the exit seen by waitpid(); the instance is removed and
# the kernel's state restored by then (tests/live/teardown.sh checks that).
# Beside them, the floor: the rmdir of an empty instance (mkdir, then rmdir
# timed), which waits for the kernel's RCU grace periods as stacktop's does.
# Prints each round, then the median, min and max of each way. Root.
set -eu
BUILD=${1:?usage: teardown.sh BUILD [ROUNDS]}
ROUNDS=${2:-10}
[ "$(id -u)" = 0 ] || { echo "teardown.sh: needs root" >&2; exit 1; }
exec python3 - "$BUILD/stacktop" "$ROUNDS" << 'PY'
import os, select, signal, statistics, subprocess, sys, time

st, rounds = sys.argv[1], int(sys.argv[2])


def one(way):
    if way == "rmdir":
        d = "/sys/kernel/tracing/instances/stacktop-bench.%d" % os.getpid()
        os.mkdir(d)
        t0 = time.monotonic()
        os.rmdir(d)
        return 1000 * (time.monotonic() - t0)
    args = [st, "-b", "-d", "1", "-e", "sched:sched_switch"]
    args += ["-n", "2"] if way == "n" else ["-n", "100"]
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    fd = p.stdout.fileno()
    start = time.monotonic()
    last = None
    sent = False
    while True:
        if way == "int" and not sent and time.monotonic() - start > 1.5:
            p.send_signal(signal.SIGINT)
            sent = True
        r, _, _ = select.select([fd], [], [], 0.05)
        if not r:
            continue
        b = os.read(fd, 65536)
        if not b:
            break
        last = time.monotonic()
    p.wait()
    end = time.monotonic()
    assert p.returncode == 0, "stacktop exited %d" % p.returncode
    return 1000 * (end - last)


res = {"n": [], "int": [], "rmdir": []}
for r in range(rounds):
    for way in ("n", "rmdir", "int") if r % 2 == 0 else ("int", "rmdir", "n"):
        ms = one(way)
        res[way].append(ms)
        print("round %d %-3s teardown %.1f ms" % (r + 1, way, ms), flush=True)
for way, name in (("n", "-n 2 (end known)"), ("int", "SIGINT"), ("rmdir", "empty rmdir")):
    v = res[way]
    print("%-17s teardown (after the last report): median %.1f ms (min %.1f, max %.1f, %d rounds)"
          % (name, statistics.median(v), min(v), max(v), len(v)))
PY
