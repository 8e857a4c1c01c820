#!/bin/sh
# screen-refresh.sh BUILD [ROUNDS] [SECS] - the screen at a high event rate
# (issue 40: "the screen at that rate shows cpu under 10% and refreshes on
# time"), doc/performance.md "The screen at a high rate".
#
# In each round: stacktop's screen (-d 1 -e raw_syscalls:sys_enter) in a
# tmux pane of its own, dd copying /dev/zero to /dev/null a byte at a time
# pinned to CPU 0 for SECS seconds (as bench/reader-cost.sh), the pane
# captured every 20 ms. A refresh is a capture whose header (its first two
# lines: rates, counts, cpu) differs from the one before (`events N` alone
# is rounded: 12M stays 12M over a refresh); printed per round: the intervals
# between refreshes while dd ran (median, max; -d 1 asks for 1.000 s), the
# header's events/s, `cpu` and lost/overrun as the screen showed them, and
# stacktop's own CPU from /proc over the load. Root, tmux.
set -eu
BUILD=${1:?usage: screen-refresh.sh BUILD [ROUNDS] [SECS]}
ROUNDS=${2:-3}
SECS=${3:-8}
[ "$(id -u)" = 0 ] || { echo "screen-refresh.sh: needs root" >&2; exit 1; }
command -v tmux > /dev/null || { echo "screen-refresh.sh: needs tmux" >&2; exit 1; }
PYTHONPATH="$(dirname "$0")${PYTHONPATH:+:$PYTHONPATH}" exec python3 - "$BUILD/stacktop" "$ROUNDS" "$SECS" << 'PY'
import os, re, statistics, subprocess, sys, time

from benchlib import cpu_of

st, rounds, secs = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
sock = "screen-refresh.%d" % os.getpid()
tm = ["tmux", "-L", sock]


def num(s):
    m = re.match(r"([\d.]+)([kM]?)", s)
    return float(m.group(1)) * {"": 1, "k": 1e3, "M": 1e6}[m.group(2)]


def header(text):
    m = re.search(r"events/s (\S+) +lost (\d+).*?overrun (\d+).*?events (\d+).*?cpu ([\d.]+)%", text)
    return m and (num(m.group(1)), int(m.group(2)), int(m.group(3)), int(m.group(4)),
                  float(m.group(5)))


summary = []
for rnd in range(1, rounds + 1):
    subprocess.run(tm + ["new-session", "-d", "-s", "r", "-x", "200", "-y", "40",
                         "%s -d 1 -e raw_syscalls:sys_enter" % st], check=True)
    pid = int(subprocess.run(tm + ["display-message", "-p", "-t", "r", "#{pane_pid}"],
                             capture_output=True, text=True).stdout)
    time.sleep(2.5)  # set up, a first refresh
    dd = subprocess.Popen(["taskset", "-c", "0", "dd", "if=/dev/zero", "of=/dev/null", "bs=1"],
                          stderr=subprocess.DEVNULL)
    c0, t0 = cpu_of(pid), time.monotonic()
    seen, last = [], None
    while time.monotonic() - t0 < secs:
        text = subprocess.run(tm + ["capture-pane", "-p", "-t", "r"],
                              capture_output=True, text=True).stdout
        h = header(text)
        now = time.monotonic()
        # the header's two lines: its counts are rounded (events 12M), the
        # rates and the cpu change at every refresh
        top = "\n".join(text.splitlines()[:2])
        if h and top != last:
            seen.append((now, h))
        last = top if h else last
        time.sleep(0.02)
    c1, t1 = cpu_of(pid), time.monotonic()
    dd.kill()
    dd.wait()
    subprocess.run(tm + ["send-keys", "-t", "r", "q"])
    for _ in range(100):
        if subprocess.run(tm + ["has-session", "-t", "r"], stderr=subprocess.DEVNULL).returncode:
            break
        time.sleep(0.05)
    subprocess.run(tm + ["kill-server"], stderr=subprocess.DEVNULL)
    # the first change is the refresh that found dd running: intervals after it
    gaps = [b[0] - a[0] for a, b in zip(seen[1:], seen[2:])]
    rates = [h[0] for _, h in seen[2:]]
    cpus = [h[4] for _, h in seen[2:]]
    lost = (seen[-1][1][1] + seen[-1][1][2]) if seen else -1
    own = 100 * (c1 - c0) / (t1 - t0)
    if not gaps:
        print("round %d: fewer than 3 refreshes seen in %.0f s" % (rnd, secs))
        continue
    print("round %d: %d refreshes, interval median %.3f s (%.3f-%.3f), events/s %.0f-%.0f, "
          "header cpu %.1f-%.1f%%, own CPU %.1f%%, lost+overrun %d" % (
              rnd, len(gaps), statistics.median(gaps), min(gaps), max(gaps), min(rates),
              max(rates), min(cpus), max(cpus), own, lost), flush=True)
    summary.append((gaps, rates, cpus, own, lost))
if summary:
    g = [x for s in summary for x in s[0]]
    print("all rounds: %d refreshes, interval median %.3f s, max %.3f s; events/s median %.0f; "
          "header cpu median %.1f%% (max %.1f%%); own CPU median %.1f%%; lost+overrun %s" % (
              len(g), statistics.median(g), max(g),
              statistics.median([x for s in summary for x in s[1]]),
              statistics.median([x for s in summary for x in s[2]]),
              max(x for s in summary for x in s[2]),
              statistics.median([s[3] for s in summary]), [s[4] for s in summary]))
PY
