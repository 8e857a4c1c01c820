#!/usr/bin/env python3
# diff-pair.py BEFORE AFTER: write a constructed pair of stacktop snapshots
# with known shares, for --diff in batch (tests/live/diff.sh, checked
# against the JSON Schema) and on the screen (tests/tui/diff.sh).
#   BEFORE: A 50, B 30, C 20 (of 100); AFTER: A 40, B 60, D 100 (of 200)
#   shares: A 50 -> 20 (-30), B 30 -> 30 (0), C 20 -> 0 (-20, GONE),
#   D 0 -> 50 (+50, NEW)
# AFTER's addresses are moved (KASLR): stacks match by their symbols.
import json, sys
def snap(counts, shift, host):
    stacks = []
    for i, (name, n) in enumerate(sorted(counts.items(), key=lambda x: -x[1])):
        base = 0xffffffff81000000 + 0x1000 * (ord(name) - 64) + shift
        stacks.append({"key": "%016x" % (0x1000 + i), "total": n, "delta": n, "depth": 2,
            "ids": [], "more_ids": False, "fallback": False, "mapped": False,
            "merged64": False, "cut": False,
            "frames": ["0x%x" % (base + 0x10), "0x%x" % (base + 0x800)],
            "symbols": ["leaf_%s+0x10/0x100" % name, "caller_%s+0x0/0x80" % name],
            "by": [{"event": "sched:sched_switch", "cpu": 0, "pid": 100, "comm": "w",
                    "total": n, "delta": n}]})
    hits = sum(counts.values())
    return {"schema": "stacktop-snapshot", "version": 2, "stacktop": "0.1.0",
            "timestamp": 1.0, "time": "1970-01-01T00:00:01.000Z", "host": host,
            "kernel": "6.18.0", "source": "/sys/kernel/tracing", "iteration": 1,
            "mode": "stacks", "interval": 1.0, "events": ["sched:sched_switch"],
            "traced": "sched:sched_switch",
            "view": {"sort": "hits", "ascending": False, "counts": "delta", "event": None,
                     "pid": None, "cpu": None, "filter": None, "hide_idle": False, "top": 0},
            "hits": hits, "hits_delta": hits, "unique": len(counts), "matched": len(counts),
            "matched_total": hits, "matched_delta": hits, "lost": 0, "overrun": 0,
            "dropped": 0, "orphans": 0, "bad_pages": 0, "fallbacks": 0, "unresolved": 0,
            "generation": 0, "tracing_on": True, "stackmap_on": False, "stacks": stacks}
open(sys.argv[1], "w").write(json.dumps(snap({"A": 50, "B": 30, "C": 20}, 0, "one")) + "\n")
open(sys.argv[2], "w").write(json.dumps(snap({"A": 40, "B": 60, "D": 100}, 0x200000, "two")) + "\n")
