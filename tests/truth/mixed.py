#!/usr/bin/env python3
"""mixed.py S.json E.json P.txt STAT: tests/truth/mixed.sh's check.

S.json: stacktop --sample 100's report, E.json: stacktop with every stack
(the truth), P.txt: perf script of perf record -c 100 (a peer, printed),
STAT: perf stat's count of the event in the same run (printed).

Asserted: the sampled header's hits are its exact count, its rows add up
to it; the every-stack run lost nothing (else it is no truth); the shares
of io_schedule and of tar in the sampled run lie within twice the stated
95% half width of the every-stack run's. The stated half width of a group
of h hits out of H is the ratio estimator's, 1.96 sqrt(h (1 - h/H)
sample_var / H) (export_sample_ci95(), doc/performance.md "Sampled
stacks"); twice it misses about once in 15,000 (two checks a run: a 95%
interval alone would fail one run in ten), and whether each lies within
the interval itself is printed. io_schedule must hold 0.5% of the
switches at least, or the check would say nothing."""
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mixedlib import below_schedule, perf_shares  # noqa: E402


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def snapshot(path):
    """a report's rows, io_schedule's and tar's hits; the other stacktop's
    own switches (comm stacktop) are not the workload's: left out"""
    d = json.loads(open(path).read().splitlines()[-1])
    io = tar = rows = 0
    for s in d["stacks"]:
        own = sum(b["total"] for b in s.get("by", []) if b.get("comm") == "stacktop")
        n = s["total"] - min(own, s["total"])
        rows += n
        if below_schedule(s.get("symbols", [])) == "io_schedule":
            io += n
        tar += sum(b["total"] for b in s.get("by", []) if b.get("comm") == "tar")
    return d, rows, io, tar


s, sh, sio, star = snapshot(sys.argv[1])
e, eh, eio, etar = snapshot(sys.argv[2])
pn, pio, ptar = perf_shares(sys.argv[3])
stat = 0
for line in open(sys.argv[4]):
    if "sched_switch" in line:
        stat = int(line.split(",")[0])
print("perf stat %d; every stack %d hits (lost %d); sampled: hits %d, exact %d, rows %d, "
      "%d samples, design effect %.2f; perf record -c 100: %d samples" %
      (stat, e["hits"], e.get("lost", 0), s["hits"], s["exact_events"],
       sum(x["total"] for x in s["stacks"]), s["samples"], s.get("sample_deff_milli", 0) / 1000.0, pn))
if s["mode"] != "sampled" or s.get("sample_period") != 100:
    fail("the sampled run is %s, 1 in %s" % (s["mode"], s.get("sample_period")))
if s["hits"] != s["exact_events"] or sum(x["total"] for x in s["stacks"]) != s["hits"]:
    fail("header hits %d, rows %d, exact %d: not one number" %
         (s["hits"], sum(x["total"] for x in s["stacks"]), s["exact_events"]))
if e.get("lost", 0) or e.get("overrun", 0) or e.get("dropped", 0):
    fail("the every-stack run lost %d, overran %d, dropped %d: it is no truth" %
         (e.get("lost", 0), e.get("overrun", 0), e.get("dropped", 0)))
if not s.get("sample_var") or not s["samples"]:
    fail("no sample_var or samples in the sampled report")
if eio < 0.005 * eh:
    fail("io_schedule holds %d of %d switches: tar read no disk, the check says nothing" % (eio, eh))
for what, sv, ev, pv in (("io_schedule", sio, eio, pio), ("tar", star, etar, ptar)):
    half = 1.96 * math.sqrt(sv * max(0.0, 1 - sv / sh) * s["sample_var"] / s["hits"])
    es, ss, hp = 100.0 * ev / eh, 100.0 * sv / sh, 100.0 * half / sh
    print("  %-11s every stack %5.2f%%  sampled %5.2f%% +-%.2f (95%%)%s  perf -c 100 %5.2f%%" % (
        what, es, ss, hp, "" if abs(ss - es) <= hp else "  (outside the 95% interval)",
        100.0 * pv / pn if pn else 0))
    if abs(ss - es) > 2 * hp:
        fail("%s: sampled %.2f%% +-%.2f, every stack %.2f%%" % (what, ss, hp, es))
