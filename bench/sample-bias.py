#!/usr/bin/env python3
"""sample-bias.py S.json E.json P.txt STAT ROUND: one round of sample-bias.sh.

The shares of io_schedule (the first frame below schedule) and of tar's
switches in the sampled run (with its 95% interval), the every-stack run
and perf record -c N; the sampled rows' hits against the exact count."""
import json
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "truth"))
from mixedlib import below_schedule, perf_shares  # noqa: E402


def snapshot(path):
    d = json.loads(open(path).readline())
    io = tar = 0
    io_var = 0.0
    for s in d["stacks"]:
        own = sum(b["total"] for b in s.get("by", []) if b.get("comm") == "stacktop")
        s["total"] -= min(own, s["total"])  # the other stacktop's switches: not the workload's
        if below_schedule(s.get("symbols", [])) == "io_schedule":
            io += s["total"]
            io_var += (s.get("total_ci95", 0) / 1.96) ** 2
        for b in s.get("by", []):
            if b.get("comm") == "tar":
                tar += b["total"]
    return d, io, tar, io_var


def group_ci(d, hits, var=None, of=None):
    """The 95% half width of a group of rows' estimate, as the tool states it."""
    if d.get("sample_var"):  # the ratio estimator's (export_sample_ci95())
        of = of or d["hits"]
        return 1.96 * math.sqrt(hits * max(0.0, 1 - hits / of) * d["sample_var"] / d["hits"])
    if var is not None:
        return 1.96 * math.sqrt(var)
    w = d["hits"] / d["samples"] if d.get("samples") else d["sample_period"]
    deff = max(1.0, d.get("sample_deff_milli", 1000) / 1000.0)
    return 1.96 * math.sqrt(hits * 1.5 * w * deff)


s, sio, star, sio_var = snapshot(sys.argv[1])
e, eio, etar, _ = snapshot(sys.argv[2])
pn, pio, ptar = perf_shares(sys.argv[3])
stat = 0
for line in open(sys.argv[4]):
    if "sched_switch" in line:
        stat = int(line.split(",")[0])
rnd = sys.argv[5]
sh, eh = sum(x["total"] for x in s["stacks"]), sum(x["total"] for x in e["stacks"])
print("round %s: perf stat %d, every stack %d (lost %d), sampled rows %d (all: %d), exact %d (%+.1f%%), "
      "%d samples, deff %.2f" % (rnd, stat, eh, e.get("lost", 0), sh, s["hits"], s["exact_events"],
                                  100.0 * (s["hits"] - s["exact_events"]) / s["exact_events"],
                                  s["samples"], s.get("sample_deff_milli", 0) / 1000.0))
for what, sv, var, ev, pv in (("io_schedule", sio, sio_var, eio, pio),
                              ("tar", star, None, etar, ptar)):
    ci = group_ci(s, sv, var, sh)
    es, ss = 100.0 * ev / eh, 100.0 * sv / sh
    half = 100.0 * ci / sh
    print("  %-11s perf %5.2f%%  every %5.2f%%  sampled %5.2f%% +-%.2f  %s" % (
        what, 100.0 * pv / pn if pn else 0, es, ss, half,
        "inside" if abs(ss - es) <= half else "OUTSIDE"))

# each row against the every-stack run's (by key): is the every-stack share
# inside the sampled row's stated 95% interval? Rows where the sampled run
# expects 5 samples or more (share x samples), the other collector's own
# switches (comm stacktop) out of both
ek = {x["key"]: x for x in e["stacks"]}
sk = {x["key"]: x for x in s["stacks"]}
sall = s["hits"]
inside = rows = 0
for k in set(ek) | set(sk):
    es = ek[k]["total"] / eh if k in ek else 0.0
    ss = sk[k]["total"] / sh if k in sk else 0.0
    if max(es, ss) * s["samples"] < 5:
        continue
    half = (sk[k].get("total_ci95", 0) / sall) if k in sk else 0.0
    rows += 1
    inside += abs(ss - es) <= half
print("  rows: %d of %d inside their 95%% interval" % (inside, rows))
if len(sys.argv) > 6:
    for k in set(ek) | set(sk):
        es = ek[k]["total"] / eh if k in ek else 0.0
        ss = sk[k]["total"] / sh if k in sk else 0.0
        if max(es, ss) * s["samples"] < 5:
            continue
        half = (sk[k].get("total_ci95", 0) / sall) if k in sk else 0.0
        x = ek.get(k) or sk.get(k)
        print("    %s %6.3f%% %6.3f%% +-%.3f %s" % ("  " if abs(ss - es) <= half else "XX", 100 * es, 100 * ss, 100 * half,
              " < ".join(f.split("+")[0] for f in x.get("symbols", [])[3:7])))
