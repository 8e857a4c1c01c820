#!/bin/sh
# --format html (and svg): the flame graph page opened in a real browser (Debian's
# chromium, headless, driven by puppeteer-core: tests/live/flame-browser.js),
# from a saved stack map and a constructed snapshot (known counts, checked
# against stacktop's own folded output) and from live runs: frames with
# widths proportional to their counts (model and pixels, within a pixel),
# click zooms and the reset, hover tooltips, search highlights with the
# right share, the keyboard, kinds coloured apart, the tracing machinery
# hidden until asked, no request leaving the page, a screenshot that is
# not blank, names holding </script> and markup shown as text. The static
# svg image of the same views: every frame where the stacks put it, its
# tooltip, no script, no request.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/export-tools.sh"
browser_tools

MAP="$SRCDIR/tests/fixtures/export/stack_map"
KSYMS="$SRCDIR/tests/fixtures/ksym/kallsyms"
st() { "$STACKTOP" --map "$MAP" --kallsyms "$KSYMS" "$@"; }

# folded lines -> EXPECT.json: the stacks (kernel frames lose their _[k]),
# then the extra keys given as JSON
expect_from_folded() { # FOLDED EXTRA-JSON OUT
	python3 - "$1" "$2" "$3" <<'PY'
import json, sys
stacks = []
for line in open(sys.argv[1]):
    line = line.rstrip("\n")
    if not line:
        continue
    path, count = line.rsplit(" ", 1)
    stacks.append([[f[:-4] if f.endswith("_[k]") else f for f in path.split(";")], int(count)])
e = json.loads(sys.argv[2])
e["stacks"] = stacks
json.dump(e, open(sys.argv[3], "w"))
PY
}

# --- the saved stack map: 3 stacks, 15 hits -------------------------------------
st -o "$WORK/map.html" 2> "$WORK/err" || { cat "$WORK/err"; fail "-o map.html failed"; }
[ "$(stat -c %a "$WORK/map.html")" = 600 ] || fail "page not mode 0600"
head -c 15 "$WORK/map.html" | grep -q '<!DOCTYPE html>' || fail ".html is not the page"
st --format folded > "$WORK/map.folded" || fail "folded failed"
expect_from_folded "$WORK/map.folded" '{
	"search": [{"q": "schedule", "share": 0.6666667},
		{"q": "^sched.*out$", "regex": true, "share": 0.4666667},
		{"q": "nvme", "share": 0.3333333}, {"q": "no_such_function", "share": 0}],
	"kinds": {"nvme_queue_rq": "module", "schedule_timeout": "kernel"},
	"apart": [["nvme_queue_rq", "schedule_timeout"]]}' "$WORK/map.json"
flame_check "$WORK/map.html" "$WORK/map.json" map

# a large profile (12,000 stacks of 24 frames, two events): written
# as binary columns, compressed (gzip, base64: a third of the bytes for the
# HTML parser, no number parsed as text) and
# read back by the page: the same frames, widths and pixels; a filter by
# event reads the compressed records
python3 "$SRCDIR/bench/snapshot-gen.py" "$WORK/big.json" 12000 24 8 > /dev/null
"$STACKTOP" -r "$WORK/big.json" -o "$WORK/big.html" || fail "-o big.html failed"
grep -q '<script id="stacktop-data-cols" type="application/octet-stream">' "$WORK/big.html" ||
	fail "a large profile is not compressed"
grep -q '<script id="stacktop-splits-cols" type="application/octet-stream">' "$WORK/big.html" ||
	fail "a large profile's records are not compressed"
"$STACKTOP" -r "$WORK/big.json" --format folded > "$WORK/big.folded" || fail "big folded failed"
# the first event's hits of the last interval, as the view counts them (the
# snapshot's counts are "delta")
ev0=$(python3 -c '
import json, sys
d = json.loads(open(sys.argv[1]).readline())
print(sum(b["delta"] for s in d["stacks"] for b in s["by"] if b["event"] == d["events"][0]))' "$WORK/big.json")
expect_from_folded "$WORK/big.folded" "{\"filter_event\": {\"value\": 0, \"total\": $ev0}}" "$WORK/big-e.json"
flame_check "$WORK/big.html" "$WORK/big-e.json" big

# the same page altered: its columns cut short, a self count placed past
# the last node, not gzip at all, a name id past the names, 64 MiB of zeros
# after the columns: the page says it cannot read the profile (and draws
# nothing, throws nothing, holds no 64 MiB)
python3 - "$WORK/big.html" "$WORK" <<'PY' || fail "cannot alter the large page"
import base64, gzip, json, re, struct, sys
page = open(sys.argv[1]).read()
m = re.search(r'(<script id="stacktop-data-cols"[^>]*>)([^<]*)(</script>)', page)
doc = gzip.decompress(base64.b64decode(m.group(2)))
n = struct.unpack_from("<I", doc)[0]
head = json.loads(doc[4:4 + n])
at = (4 + n + 7) // 8 * 8
size = {"u8": 1, "u16": 2, "u32": 4, "f64": 8}
for name, ty, k in head["columns"]:
    if name == "self_gap":
        gap = bytearray(doc)
        gap[at:at + size[ty]] = b"\xff" * size[ty]
    if name == "name":
        nm = bytearray(doc)
        nm[at + size[ty]:at + 2 * size[ty]] = b"\xff" * size[ty]
    at += (k * size[ty] + 7) // 8 * 8
def write(name, data):
    b = base64.b64encode(data).decode() if isinstance(data, (bytes, bytearray)) else data
    open(sys.argv[2] + "/" + name + ".html", "w").write(page[:m.start(2)] + b + page[m.end(2):])
write("cut", gzip.compress(doc[:len(doc) // 2]))
write("gap", gzip.compress(bytes(gap)))
write("junk", "bm90IGd6aXA=")
write("name", gzip.compress(bytes(nm)))
# zeros past the last column: 64 MiB from 64 KiB
write("bomb", gzip.compress(doc + bytes(64 << 20)))
PY
for bad in cut gap junk name bomb; do
	mkdir -p "$WORK/$bad"
	node "$SRCDIR/tests/live/flame-browser.js" "$MODULES" "$CHROMIUM" damaged \
		"$WORK/$bad.html" "$WORK/$bad" > "$WORK/$bad.out" 2> "$WORK/$bad.err" ||
		{ cat "$WORK/$bad.err"; fail "the page with its profile $bad"; }
	echo "$bad: $(cat "$WORK/$bad.out")"
done
grep -q 'cannot read the profile in this file: its column [a-z_]* is damaged' "$WORK/cut.out" ||
	fail "columns cut short not explained: $(cat "$WORK/cut.out")"
grep -q 'the profile in this file is damaged (self count [0-9]*)' "$WORK/gap.out" ||
	fail "a self count past the last node not explained: $(cat "$WORK/gap.out")"
grep -q 'cannot read the profile in this file: its compressed data is damaged' "$WORK/junk.out" ||
	fail "a profile that is not gzip not explained: $(cat "$WORK/junk.out")"
grep -q 'the profile in this file is damaged (the name of node 1)' "$WORK/name.out" ||
	fail "a name id past the names not explained: $(cat "$WORK/name.out")"
grep -q 'cannot read the profile in this file: it inflates past the end of its columns' "$WORK/bomb.out" ||
	fail "a profile inflating past its columns not refused: $(cat "$WORK/bomb.out")"

# the static image of the same view
st -o "$WORK/map.svg" || fail "-o map.svg failed"
head -c 5 "$WORK/map.svg" | grep -q '<?xml' || fail ".svg is not the image"
flame_check "$WORK/map.svg" "$WORK/map.json" map-svg svg

# rooted at the command, as folded is
st --format html --folded-root comm -o "$WORK/rooted.html" || fail "--folded-root comm html failed"
st --format folded --folded-root comm > "$WORK/rooted.folded" || fail "rooted folded failed"
expect_from_folded "$WORK/rooted.folded" '{"kinds": {"[unknown]": "command"}}' "$WORK/rooted.json"
flame_check "$WORK/rooted.html" "$WORK/rooted.json" rooted

# --- a constructed snapshot: user, kernel, module and tracing frames; names
#     and commands that try to break out of the page -------------------------------
python3 - "$WORK/evil.json" "$WORK/evil-expect.json" <<'PY'
import json, sys
EVIL_SYM = "</script><script>window.stacktopInjected=1;alert(1)</script>"
EVIL_COMM = "<svg onload=x>&"  # a comm has 15 characters at most
EVIL_HOST = "host</title><script>alert(3)</script>"
mach = ["trace_event_raw_event_sched_switch+0x10/0x80", "__traceiter_sched_switch+0x8/0x40"]
# leaf first, as a snapshot stores them; (kernel, user (leaf first), comm, count)
stacks = [
    (mach + ["__schedule+0x20/0x400", "schedule+0x10/0xc0", "do_nanosleep+0x30/0x100",
             "x64_sys_call+0x40/0x200"], ["nanosleep+0x10 (libc.so.6)", "main+0x20 (sleeper)"],
     "sleeper", 60),
    (mach + ["__schedule+0x20/0x400", "schedule+0x10/0xc0", EVIL_SYM + "+0x4/0x10 [evilmod]",
             "x64_sys_call+0x40/0x200"], ["<b>ufunc</b>+0x4 (app)", "main+0x20 (app)"],
     EVIL_COMM, 30),
    (mach + ["__schedule+0x20/0x400", "schedule+0x10/0xc0", "worker_thread+0x60/0x300",
             "kthread+0x80/0x120"], [], "kworker/0:1", 10),
]
syms = {}
out = []
for i, (kern, user, comm, n) in enumerate(stacks):
    frames = []
    for s in kern:
        name = s.split("+")[0]
        syms.setdefault(name, 0xffffffff81000000 + 0x1000 * (len(syms) + 1))
        frames.append("0x%x" % (syms[name] + 0x10))
    st = {"key": "%016x" % (i + 1), "total": n, "delta": n, "depth": len(kern), "ids": [],
          "more_ids": False, "fallback": False, "mapped": False, "merged64": False,
          "cut": False, "frames": frames, "symbols": kern,
          "top": {"pid": 100 + i, "comm": comm, "hits": n, "pids": 1},
          "by": [{"event": "sched:sched_switch", "cpu": 0, "pid": 100 + i, "comm": comm,
                  "total": n, "delta": n}]}
    if user:
        st["tgid"] = 100 + i
        st["user_frames"] = [{"addr": "0x%x" % (0x401000 + 0x10 * k), "symbol": u}
                             for k, u in enumerate(user)]
        st["user_cut"] = False
    out.append(st)
snap = {"schema": "stacktop-snapshot", "version": 2, "stacktop": "0.1.0", "timestamp": 1.0,
        "time": "1970-01-01T00:00:01.000Z", "host": EVIL_HOST, "kernel": "6.18.0",
        "source": "/sys/kernel/tracing", "iteration": 1, "mode": "stacks", "interval": 1.0,
        "events": ["sched:sched_switch"], "traced": "sched:sched_switch",
        "view": {"sort": "hits", "ascending": False, "counts": "delta", "event": None,
                 "pid": None, "cpu": None, "filter": None, "hide_idle": False, "top": 0},
        "hits": 100, "hits_delta": 100, "unique": 3, "matched": 3, "matched_total": 100,
        "matched_delta": 100, "lost": 7, "overrun": 7, "dropped": 0, "lost_delta": 7,
        "overrun_delta": 7, "dropped_delta": 0, "records": 193, "records_delta": 193,
        "orphans": 0,
        "bad_pages": 0, "fallbacks": 0, "unresolved": 0, "generation": 0,
        "tracing_on": True, "stackmap_on": False, "stacks": out}
open(sys.argv[1], "w").write(json.dumps(snap) + "\n")
# what the graph must show, rooted at the command: command, user root..leaf,
# kernel root..leaf without the tracing machinery
expect = {"stacks": [], "tracing": True,
          "literal": [EVIL_SYM, EVIL_COMM, "<b>ufunc</b>"],
          "header": [EVIL_HOST, "lost records: 7",
                     "lost 7, overrun 7, dropped 0 ring-buffer records in the last interval "
                     "(193 read): about 3.5% of the events are missing from the counts"],
          "kinds": {"main": "user", "nanosleep": "user", "schedule": "kernel",
                    EVIL_SYM: "module", "sleeper": "command"},
          "apart": [["main", "x64_sys_call"], ["x64_sys_call", EVIL_SYM], ["main", "sleeper"]],
          "search": [{"q": "schedule", "share": 1.0}, {"q": "libc", "share": 0.6},
                     {"q": "^(nanosleep|worker_thread)$", "regex": True, "share": 0.7}]}
for kern, user, comm, n in stacks:
    names = [comm] + [u.split("+")[0] for u in reversed(user)] + \
        [k.split("+")[0] for k in reversed(kern[len(mach):])]
    expect["stacks"].append([names, n])
json.dump(expect, open(sys.argv[2], "w"))
PY
"$STACKTOP" -r "$WORK/evil.json" --folded-root comm -o "$WORK/evil.html" 2> "$WORK/err" ||
	{ cat "$WORK/err"; fail "the constructed snapshot as html"; }
grep -q '</script><script>window' "$WORK/evil.html" && fail "a name broke out of the data element"
flame_check "$WORK/evil.html" "$WORK/evil-expect.json" evil
"$STACKTOP" -r "$WORK/evil.json" --folded-root comm -o "$WORK/evil.svg" 2> "$WORK/err" ||
	{ cat "$WORK/err"; fail "the constructed snapshot as svg"; }
grep -q '<script' "$WORK/evil.svg" && fail "markup from a name in the image"
flame_check "$WORK/evil.svg" "$WORK/evil-expect.json" evil-svg svg

# --- live: what the issue asks for, stacktop -b -n 1 -o x.html ---------------------
start_workload
(cd "$WORK" && "$STACKTOP" -b -n 1 -o x.html) > "$WORK/live.log" 2>&1 ||
	{ cat "$WORK/live.log"; fail "stacktop -b -n 1 -o x.html failed"; }
echo '{"kinds": {"schedule": "kernel"}, "header": ["kernel '"$(uname -r)"'", "mode stacks"]}' \
	> "$WORK/live.json"
flame_check "$WORK/x.html" "$WORK/live.json" live

# live, weighted (--offcpu): widths by time, the tooltip in its unit
"$STACKTOP" --offcpu -b -n 1 -d 1 -o "$WORK/offcpu.html" > "$WORK/offcpu.log" 2>&1 ||
	{ cat "$WORK/offcpu.log"; fail "--offcpu -o offcpu.html failed"; }
echo '{"header": ["off-CPU"]}' > "$WORK/offcpu.json"
flame_check "$WORK/offcpu.html" "$WORK/offcpu.json" offcpu
grep -q 'off-CPU: [0-9.]* [nµm]*s, ' "$WORK/offcpu.out" || fail "the off-CPU tooltip has no time: $(cat "$WORK/offcpu.out")"

# the bad combinations are refused
"$STACKTOP" -b --format html > "$WORK/o" 2> "$WORK/e" && fail "--format html to stdout without -n 1 succeeded"
grep -q "writes one profile" "$WORK/e" || fail "no 'writes one profile': $(cat "$WORK/e")"
echo "ok: the flame graph page in chromium"
