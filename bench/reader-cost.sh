#!/bin/sh
# reader-cost.sh BUILD [ROUNDS] [SECS] - what stacktop's ring-buffer reader
# costs at a high event rate (issue 40), beside bpftrace and perf stat in
# interleaved rounds of one run; doc/performance.md "The reader's cost".
#
# Workloads: read (dd copying /dev/zero to /dev/null a byte at a time,
# pinned to CPU 0: a read() and a write() a byte; event
# raw_syscalls:sys_enter) and pingpong (perf bench sched pipe -T, event
# sched:sched_switch). Collectors, in each round: none (the baseline),
# every (stacktop -b --json -d 1: a stack for every event), sample100
# (--sample 100), bpftrace (@[kstack] = count()), perfstat (perf stat -a
# -e EVENT: counting only). Printed per collector, the medians over the
# rounds: the workload's rate kept (share of the baseline of its round),
# the collector's own CPU (% of one core, utime + stime over the load),
# and for stacktop the events/s it read, its read() calls a second and the
# events a read, from its JSON ringbuf counters between the reports that
# bracket the load, and its losses. Root.
set -u
BUILD=${1:?usage: reader-cost.sh BUILD [ROUNDS] [SECS]}
ROUNDS=${2:-5}
SECS=${3:-4}
[ "$(id -u)" = 0 ] || { echo "reader-cost.sh: needs root" >&2; exit 1; }
PYTHONPATH="$(dirname "$0")${PYTHONPATH:+:$PYTHONPATH}" exec python3 - "$BUILD/stacktop" "$ROUNDS" "$SECS" << 'PY'
import json, os, re, signal, statistics, subprocess, sys, tempfile, time

from benchlib import cpu_of

st, rounds, secs = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
tmp = tempfile.mkdtemp(prefix="reader-cost.")
EV = {"read": "raw_syscalls:sys_enter", "pingpong": "sched:sched_switch"}


def load(wl):
    """the workload's rate: bytes/s of dd, or round trips/s of perf bench"""
    if wl == "pingpong":
        out = subprocess.run(["perf", "bench", "sched", "pipe", "-T", "-l", "100000"],
                             capture_output=True, text=True).stdout
        m = re.search(r"([\d.]+) ops/sec", out)
        return float(m.group(1)) if m else 0.0
    p = subprocess.run(["timeout", "--foreground", "-s", "INT", str(secs), "taskset", "-c", "0",
                        "dd", "if=/dev/zero", "of=/dev/null", "bs=1"], capture_output=True, text=True)
    m = re.search(r"^(\d+) bytes", p.stderr, re.M)
    return float(m.group(1)) / secs if m else 0.0


def run(wl, c):
    ev = EV[wl]
    js = os.path.join(tmp, "st.json")
    cmd = {"every": [st, "-b", "--json", "-d", "1", "-e", ev],
           "sample100": [st, "-b", "--json", "-d", "1", "--sample", "100", "-e", ev],
           "bpftrace": ["bpftrace", "-e", "tracepoint:%s { @[kstack] = count(); }" % ev],
           "perfstat": ["perf", "stat", "-a", "-e", ev]}.get(c)
    if not cmd:
        return {"rate": load(wl)}
    out = open(js if c in ("every", "sample100") else os.devnull, "w")
    p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.DEVNULL,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(2 if c == "bpftrace" else 1.2)  # set up
    c0, t0 = cpu_of(p.pid), time.time()
    rate = load(wl)
    c1, t1 = cpu_of(p.pid), time.time()
    p.send_signal(signal.SIGINT)
    p.wait()
    out.close()
    r = {"rate": rate, "cpu": 100 * (c1 - c0) / (t1 - t0)}
    if c in ("every", "sample100"):
        lines = [json.loads(l) for l in open(js) if l.strip()]
        inside = [d for d in lines if t0 <= d["timestamp"] <= t1 + 0.2]
        if len(inside) >= 2:
            a, b = inside[0], inside[-1]
            dt = b["timestamp"] - a["timestamp"]
            reads = b["ringbuf"]["reads"] - a["ringbuf"]["reads"]
            evs = b["events_read"] - a["events_read"]
            if c == "sample100":
                evs = b["exact_events"] - a["exact_events"]
            r.update(evps=evs / dt, readps=reads / dt, per_read=evs / reads if reads else 0)
        last = lines[-1]
        r["lost"] = last["lost"] + last["overrun"] + last["dropped"]
    return r


COLL = os.environ.get("COLLECTORS", "none every sample100 bpftrace perfstat").split()
res = {}
for wl in os.environ.get("WORKLOADS", "read pingpong").split():
    for rnd in range(1, rounds + 1):
        for c in COLL:
            r = run(wl, c)
            res.setdefault((wl, c), []).append((rnd, r))
            print("%s round %d %-9s %s" % (wl, rnd, c, " ".join(
                "%s=%.1f" % kv for kv in sorted(r.items()))), flush=True)
print()
for (wl, c), rows in res.items():
    if c == "none":
        continue
    base = dict((rnd, r["rate"]) for rnd, r in res[(wl, "none")])
    kept = [r["rate"] / base[rnd] for rnd, r in rows if base.get(rnd)]
    med = lambda k: statistics.median([r[k] for _, r in rows if k in r]) if any(
        k in r for _, r in rows) else float("nan")
    line = "%-8s %-9s kept %.2f (%.2f-%.2f), own CPU %5.1f%%" % (
        wl, c, statistics.median(kept), min(kept), max(kept), med("cpu"))
    if c in ("every", "sample100"):
        line += ", events/s %.0f, reads/s %.0f, events/read %.1f, lost %d" % (
            med("evps"), med("readps"), med("per_read"), max(r.get("lost", 0) for _, r in rows))
    print(line)
PY
