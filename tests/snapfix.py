"""snapfix.py: stacktop snapshots with known counts, for the tests.

One writer of the snapshot's JSON (schema stacktop-snapshot, version 2),
shared by the fixtures that construct known workloads (tests/diff-pair.py,
tests/fixtures/flame/gen-*.py, tests/tui/flame-snap.py): a change of the
schema is made here once.
"""
import json

VIEW = {"sort": "hits", "ascending": False, "counts": "delta", "event": None,
        "pid": None, "cpu": None, "filter": None, "hide_idle": False, "top": 0}


def stack(i, frames, symbols, n, by=None, ids=None, key=None):
    """One stack: frames (addresses) and symbols leaf first, n hits."""
    if by is None:
        by = [{"event": "sched:sched_switch", "cpu": 0, "pid": 100, "comm": "w",
               "total": n, "delta": n}]
    return {"key": key or "%016x" % (0x1000 + i), "total": n, "delta": n,
            "depth": len(frames), "ids": ids or [], "more_ids": False,
            "fallback": False, "mapped": False, "merged64": False, "cut": False,
            "frames": ["0x%x" % a for a in frames], "symbols": symbols, "by": by}


def snapshot(stacks, host, events=("sched:sched_switch",), counts="delta"):
    """The whole snapshot of STACKS (from stack()), as stacktop -o x.json."""
    hits = sum(s["total"] for s in stacks)
    view = dict(VIEW, counts=counts)
    return {"schema": "stacktop-snapshot", "version": 2, "stacktop": "0.1.0",
            "timestamp": 1.0, "time": "1970-01-01T00:00:01.000Z", "host": host,
            "kernel": "6.18.0", "source": "/sys/kernel/tracing", "iteration": 1,
            "mode": "stacks", "interval": 1.0, "events": list(events),
            "traced": ",".join(events), "view": view,
            "hits": hits, "hits_delta": hits, "unique": len(stacks),
            "matched": len(stacks), "matched_total": hits, "matched_delta": hits,
            "lost": 0, "overrun": 0, "dropped": 0, "orphans": 0, "bad_pages": 0,
            "fallbacks": 0, "unresolved": 0, "generation": 0, "tracing_on": True,
            "stackmap_on": False, "stacks": stacks}


def write(path, snap):
    """Write SNAP to PATH as one line of JSON."""
    with open(path, "w") as f:
        f.write(json.dumps(snap) + "\n")


def two_frame(counts, shift, host):
    """caller_N < leaf_N stacks of COUNTS {N: hits}, most hits first; SHIFT
    moves every address (KASLR: frames then match by their symbols)."""
    out = []
    for i, (name, n) in enumerate(sorted(counts.items(), key=lambda x: -x[1])):
        base = 0xffffffff81000000 + 0x1000 * (ord(name) - 64) + shift
        out.append(stack(i, [base + 0x10, base + 0x800],
                         ["leaf_%s+0x10/0x100" % name, "caller_%s+0x0/0x80" % name], n))
    return snapshot(out, host)


def write_pair(before, after, counts_before, counts_after):
    """The known pair of a differential test: AFTER's addresses moved."""
    write(before, two_frame(counts_before, 0, "one"))
    write(after, two_frame(counts_after, 0x200000, "two"))
