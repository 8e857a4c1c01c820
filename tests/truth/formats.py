#!/usr/bin/env python3
# formats.py REC.json DIR: every output format of one recording read back
# (stacktop -r REC.json, tests/truth/formats.sh writes them into DIR) holds
# the recording's numbers: the same hits and totals per stack, the same
# shares of the same whole (the view's hits, whatever the rows shown), the
# same header total. The recording is the truth; each format is read as its
# reader reads it (pprof's protobuf decoded here, speedscope's samples and
# weights, folded lines, csv rows by key, the text report's expanded stacks
# and rows, a JSON written again).
#
# A stack is compared by its path: its function names, root first, from
# the first frame after the tracing machinery (as folded, pprof, speedscope
# and the flame graphs write it: src/sym/brief.c's prefixes), two stacks of
# one path added up (their offsets told them apart).
import csv
import gzip
import json
import re
import sys

MACHINERY = ("trace_event_raw_event_", "perf_trace_", "__traceiter_", "__do_trace_",
             "__bpf_trace_", "trace_event_buffer_", "__trace_stack", "__ftrace_trace_stack",
             "ftrace_", "trace_buffer_unlock_commit", "trace_")


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def check(ok, msg):
    if not ok:
        fail(msg)


def name(sym):
    """a frame's function: its symbol without offset, size or module"""
    return sym.split("+")[0] if re.search(r"\+0x[0-9a-f]+/0x[0-9a-f]+", sym) else sym


def path_of(symbols):
    names = [name(s) for s in symbols]
    skip = 0
    while skip < len(names) and names[skip].startswith(MACHINERY):
        skip += 1
    if skip == len(names):
        skip = 0  # all machinery: kept whole (brief_skip())
    return tuple(reversed(names[skip:]))


def clean(p):
    """as a folded line spells a frame: no spaces, no semicolons"""
    return tuple(f.replace(" ", "_").replace(";", "_") for f in p)


def pct(part, whole):
    """as fmt_percent() prints a share: tenths, truncated; 100 alone"""
    if not whole:
        return "-"
    t = part * 1000 // whole
    return str(t // 10) if t >= 1000 else "%d.%d" % (t // 10, t % 10)


def add(d, k, v):
    d[k] = d.get(k, 0) + v


# ---------------------------------------------------------------- the truth
rec = json.loads(open(sys.argv[1]).read().splitlines()[-1])
out = sys.argv[2]
check(not any(s.get("user_frames") for s in rec["stacks"]),
      "the recording has user frames: compare it by key only")
# a stack's key hashes its frames after the machinery: stacks that differ
# only there (another tracer's trampoline) are one stack read back
delta, total, keys = {}, {}, {}
for s in rec["stacks"]:
    p = path_of(s["symbols"])
    add(delta, p, s["delta"])
    add(total, p, s["total"])
    k = keys.setdefault(s["key"], {"delta": 0, "total": 0})
    k["delta"] += s["delta"]
    k["total"] += s["total"]
hits_d, hits_t = rec["matched_delta"], rec["matched_total"]
check(sum(s["delta"] for s in rec["stacks"]) == hits_d and
      sum(s["total"] for s in rec["stacks"]) == hits_t,
      "the recording's stacks do not add up to its matched hits")
check(hits_d != hits_t, "the recording's interval is its whole run: a weak check")
# what the flame graph page must draw: each path, named as the page names it
json.dump({"stacks": [[list(p), n] for p, n in sorted(delta.items()) if n]},
          open(out + "/expect.json", "w"))
print("recording: %d stacks, %d paths, %d hits in the interval, %d in all" %
      (len(rec["stacks"]), len(delta), hits_d, hits_t))

# ---------------------------------------------------------- json, read back
back = json.loads(open(out + "/back.json").read().splitlines()[-1])
for k in ("hits", "hits_delta", "matched_total", "matched_delta", "lost", "overrun", "dropped"):
    check(back[k] == rec[k], "json: %s %r, the recording %r" % (k, back[k], rec[k]))
check(back["matched"] == len(keys), "json: %d stacks, the recording %d keys" %
      (back["matched"], len(keys)))
got = {s["key"]: (s["delta"], s["total"]) for s in back["stacks"]}
want = {k: (s["delta"], s["total"]) for k, s in keys.items()}
check(got == want, "json: stacks differ (%d against %d)" % (len(got), len(want)))

# ------------------------------------------------------------------- folded
fold = {}
for line in open(out + "/out.folded"):
    line = line.rstrip("\n")
    if line:
        p, n = line.rsplit(" ", 1)
        add(fold, tuple(re.sub(r"_\[[a-z]\]$", "", f) for f in p.split(";")), int(n))
want = {clean(p): n for p, n in delta.items() if n}
check(fold == want, "folded: %d paths, %s differ" %
      (len(fold), sorted(set(fold.items()) ^ set(want.items()))[:4]))

# ---------------------------------------------------------------------- csv
rows = list(csv.DictReader(open(out + "/out.csv")))
check(len(rows) == len(keys), "csv: %d rows of %d stacks" % (len(rows), len(keys)))
for r in rows:
    s = keys.get(r["key"])
    check(s is not None, "csv: key %s is no stack of the recording" % r["key"])
    check(int(r["hits"]) == s["delta"] and int(r["hits_total"]) == s["total"],
          "csv %s: %s/%s, the recording %d/%d" % (r["key"], r["hits"], r["hits_total"],
                                                   s["delta"], s["total"]))
    check(r["percent"] == "%.2f" % (100.0 * s["delta"] / hits_d),
          "csv %s: %s%%, %d of %d" % (r["key"], r["percent"], s["delta"], hits_d))


# -------------------------------------------------------------------- pprof
def varint(b, i):
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7f) << s
        s += 7
        if c < 0x80:
            return v, i


def fields(b):
    i = 0
    while i < len(b):
        k, i = varint(b, i)
        f, t = k >> 3, k & 7
        if t == 0:
            v, i = varint(b, i)
        elif t == 2:
            n, i = varint(b, i)
            v, i = b[i:i + n], i + n
        elif t == 1:
            v, i = b[i:i + 8], i + 8
        elif t == 5:
            v, i = b[i:i + 4], i + 4
        else:
            fail("pprof: wire type %d" % t)
        yield f, t, v


def packed(t, v):
    if t == 0:
        return [v]
    out, i = [], 0
    while i < len(v):
        x, i = varint(v, i)
        out.append(x)
    return out


prof = gzip.open(out + "/out.pb.gz").read()
strings, samples, locs, funcs, types = [], [], {}, {}, []
for f, t, v in fields(prof):
    if f == 6:
        strings.append(v.decode())
    elif f == 1:
        types.append(dict((g, x) for g, _, x in fields(v)))
    elif f == 2:
        ids, vals = [], []
        for g, tt, x in fields(v):
            if g == 1:
                ids += packed(tt, x)
            elif g == 2:
                vals += packed(tt, x)
        samples.append((ids, vals))
    elif f == 4:
        loc = {"lines": []}
        for g, tt, x in fields(v):
            if g == 1:
                loc["id"] = x
            elif g == 4:
                loc["lines"].append(dict((h, y) for h, _, y in fields(x)).get(1, 0))
        locs[loc["id"]] = loc["lines"]
    elif f == 5:
        fn = dict((g, x) for g, _, x in fields(v))
        funcs[fn[1]] = fn.get(2, 0)
tnames = [strings[t.get(1, 0)] for t in types]
check(tnames[:2] == ["hits", "hits_interval"], "pprof: sample types %s" % tnames)
pp_t, pp_d = {}, {}
for ids, vals in samples:
    # a location's lines: its inlined calls, the outermost last
    p = tuple(strings[funcs[fid]] for lid in reversed(ids) for fid in reversed(locs[lid]))
    add(pp_t, p, vals[0])
    add(pp_d, p, vals[1])
check({p: n for p, n in pp_t.items() if n} == {p: n for p, n in total.items() if n},
      "pprof: the totals differ")
check({p: n for p, n in pp_d.items() if n} == {p: n for p, n in delta.items() if n},
      "pprof: the interval's hits differ")

# --------------------------------------------------------------- speedscope
ss = json.load(open(out + "/out.speedscope.json"))
frames = [f["name"] for f in ss["shared"]["frames"]]
sp = {}
for prof in ss["profiles"]:
    check(prof["type"] == "sampled", "speedscope: a %s profile" % prof["type"])
    for smp, w in zip(prof["samples"], prof["weights"]):
        add(sp, tuple(frames[i] for i in smp), w)
check({p: n for p, n in sp.items() if n} == {p: n for p, n in delta.items() if n},
      "speedscope: %s differ" % sorted(set(sp.items()) ^ set(delta.items()))[:4])

# --------------------------------------------------------------------- text
text = open(out + "/out.txt").read()
m = re.search(r"^hits: ([0-9]+) total, ([0-9]+) in interval", text, re.M)
check(m and int(m.group(1)) == rec["hits"] and int(m.group(2)) == rec["hits_delta"],
      "text: the header's hits: %s" % (m and m.group(0)))
tx_d, tx_t = {}, {}
for blk in re.finditer(r"^#[0-9]+ +hits ([0-9]+) +total ([0-9]+) .*\n((?: {4}\S.*\n)+)", text, re.M):
    p = path_of([l.strip().split(" (")[0] for l in blk.group(3).splitlines()])
    add(tx_d, p, int(blk.group(1)))
    add(tx_t, p, int(blk.group(2)))
check(tx_d == delta and tx_t == total, "text: the expanded stacks differ (%d paths of %d)" %
      (len(tx_d), len(delta)))
# the table's rows: HITS, TOTAL and the share of the interval's hits
rows = re.findall(r"^ +[0-9]+ +\S+ +([0-9]+) +([0-9]+) +(\S+) ", text, re.M)
check(len(rows) == len(keys), "text: %d rows of %d stacks" % (len(rows), len(keys)))
for d, t, p in rows:
    check(p == pct(int(d), hits_d), "text: a row of %s hits says %s%%, of %d" % (d, p, hits_d))
check(sorted((int(d), int(t)) for d, t, _ in rows) ==
      sorted((s["delta"], s["total"]) for s in keys.values()), "text: the rows' counts differ")
print("ok: json, folded, csv, pprof, speedscope and text hold the recording's numbers")
