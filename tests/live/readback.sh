#!/bin/sh
# Read-back: a live run written as a JSON snapshot and opened with -r gives
# the same ranking, counts and view; several -r snapshots merge into one
# view with an ORIGIN column; bad snapshots get a clear error.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/export-tools.sh"
npm_tools

start_workload
"$STACKTOP" -b -n 1 -d 1 -o "$WORK/live.json" 2> "$WORK/err" || { cat "$WORK/err"; fail "live run failed"; }
validate_snapshot "$WORK/live.json"

# 1. -r gives back the same snapshot: ranking, counts, breakdown, view
"$STACKTOP" -r "$WORK/live.json" --json > "$WORK/back.json" 2> "$WORK/err" ||
	{ cat "$WORK/err"; fail "-r live.json failed"; }
validate_snapshot "$WORK/back.json"
python3 - "$WORK/live.json" "$WORK/back.json" << 'PY' || fail "the snapshot read back differs"
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
assert len(a["stacks"]) > 3, "the live run recorded only %d stacks" % len(a["stacks"])
for k in ("hits", "hits_delta", "unique", "matched", "matched_total", "matched_delta",
          "events", "view", "host", "interval"):
    assert a[k] == b[k], "%s: %r, read back %r" % (k, a[k], b[k])
def rows(d):
    return [(s["key"], s["total"], s["delta"], s["frames"], s["symbols"], s["ids"],
             sorted(json.dumps(r, sort_keys=True) for r in s["by"])) for s in d["stacks"]]
ra, rb = rows(a), rows(b)
for i, (x, y) in enumerate(zip(ra, rb)):
    assert x == y, "rank %d: %r != %r" % (i + 1, x[:3], y[:3])
assert len(ra) == len(rb), "%d stacks, read back %d" % (len(ra), len(rb))
PY

# the text report of the read-back ranks the same rows with the same counts
"$STACKTOP" -r "$WORK/live.json" --top 5 --expand 0 > "$WORK/back.txt" || fail "-r text failed"
cat "$WORK/back.txt"
python3 - "$WORK/live.json" "$WORK/back.txt" << 'PY' || fail "text ranking differs from the snapshot"
import json, re, sys
a = json.load(open(sys.argv[1]))
rows = [l.split() for l in open(sys.argv[2]) if re.match(r"^ +[0-9]+ ", l)]
assert len(rows) == min(5, len(a["stacks"])), rows
for r, s in zip(rows, a["stacks"]):
    # HITS and TOTAL as fmt_count prints them (exact below 10000)
    if s["total"] < 10000:
        assert int(r[2]) == s["delta"] and int(r[3]) == s["total"], (r, s["delta"], s["total"])
PY
grep -q "hits: $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["hits"])' "$WORK/live.json") total" \
	"$WORK/back.txt" || fail "hits differ in the text header"

# 2. the view comes back: a cumulative, total-sorted snapshot ranks by total
"$STACKTOP" -b -n 1 -d 0.5 --cumulative -o "$WORK/cum.json" 2> /dev/null || fail "cumulative run failed"
"$STACKTOP" -r "$WORK/cum.json" --expand 0 > "$WORK/cum.txt" || fail "-r cum.json failed"
grep -q 'ranked by total hits' "$WORK/cum.txt" || fail "the snapshot's sort was not kept"
"$STACKTOP" -r "$WORK/cum.json" --sort hits --expand 0 > "$WORK/cum2.txt" || fail "-r --sort failed"
grep -q 'ranked by hits in the interval' "$WORK/cum2.txt" || fail "--sort does not override the view"

# 3. several snapshots merge; ORIGIN is the host, or the file when hosts collide
python3 - "$WORK/live.json" "$WORK/a.json" "$WORK/b.json" << 'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for path, host in ((sys.argv[2], "alpha"), (sys.argv[3], "beta")):
    d["host"] = host
    open(path, "w").write(json.dumps(d) + "\n")
    # beta's kernel sits elsewhere (KASLR): its stacks match alpha's by symbols
    for st in d["stacks"]:
        st["frames"] = ["0x%x" % (int(f, 16) + 0x200000) for f in st["frames"]]
PY
"$STACKTOP" -r "$WORK/a.json" -r "$WORK/b.json" --top 3 --expand 0 > "$WORK/m.txt" || fail "merge failed"
cat "$WORK/m.txt"
grep -q '^origins: alpha, beta' "$WORK/m.txt" || fail "no origins line"
grep -Eq '^RANK .* ORIGIN +STACK' "$WORK/m.txt" || fail "no ORIGIN column"
grep -Eq '^ +1 .* (alpha|beta)\+ ' "$WORK/m.txt" || fail "row 1 does not name its origins"
"$STACKTOP" -r "$WORK/a.json" -r "$WORK/b.json" --json > "$WORK/m.json" || fail "merge --json failed"
validate_snapshot "$WORK/m.json"
python3 - "$WORK/live.json" "$WORK/m.json" << 'PY' || fail "merged counts are not the sum"
import json, sys
a = json.load(open(sys.argv[1])); m = json.load(open(sys.argv[2]))
assert m["origins"] == ["alpha", "beta"], m["origins"]
assert m["hits"] == 2 * a["hits"], (m["hits"], a["hits"])
tot = {s["key"]: s["total"] for s in a["stacks"]}
for s in m["stacks"]:
    assert s["total"] == 2 * tot[s["key"]], s["key"]
    per = {}
    for r in s["by"]:
        per[r["origin"]] = per.get(r["origin"], 0) + r["total"]
    assert per == {0: tot[s["key"]], 1: tot[s["key"]]}, per
assert len(m["stacks"]) == len(a["stacks"])
PY
cp "$WORK/live.json" "$WORK/c.json"
"$STACKTOP" -r "$WORK/live.json" -r "$WORK/c.json" --top 1 --expand 0 > "$WORK/m2.txt" || fail "same-host merge failed"
grep -q '^origins: live.json, c.json' "$WORK/m2.txt" || fail "same hosts: origins are not the file names"
# a merged snapshot reads back with its origins
"$STACKTOP" -r "$WORK/m.json" --json > "$WORK/m3.json" || fail "-r merged failed"
python3 - "$WORK/m.json" "$WORK/m3.json" << 'PY' || fail "a merged snapshot does not read back the same"
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
assert a["origins"] == b["origins"]
for s in a["stacks"] + b["stacks"]:
    s["by"] = sorted(json.dumps(r, sort_keys=True) for r in s["by"])
assert a["stacks"] == b["stacks"]
PY

# 4. --top limits the rows shown, never the snapshot (issue 35): -o x.json
# --top 3 holds every stack, and read back each row's share is of the whole
# interval; a snapshot an older stacktop cut to its --top reads back with
# the others' hits as one row, so that its shares are still the interval's
"$STACKTOP" -b -n 1 -d 1 --top 3 -o "$WORK/top3.json" 2> /dev/null || fail "--top 3 -o json failed"
"$STACKTOP" -r "$WORK/top3.json" --expand 0 > "$WORK/top3.txt" 2> "$WORK/err" || fail "-r top3.json failed"
cat "$WORK/top3.txt"
python3 - "$WORK/top3.json" "$WORK/top3.txt" << 'PY' || fail "--top cut the snapshot, or the shares read back are not the interval's"
import json, re, sys
d = json.load(open(sys.argv[1]))
assert d["view"]["top"] == 3, d["view"]
assert len(d["stacks"]) == d["matched"] > 3, (len(d["stacks"]), d["matched"])
assert sum(s["delta"] for s in d["stacks"]) == d["matched_delta"]
rows = [l.split() for l in open(sys.argv[2]) if re.match(r"^ +[0-9]+ ", l)]
assert len(rows) == 3, rows
def pct(part, whole):  # as fmt_percent() prints it: tenths, truncated
    t = part * 1000 // whole
    return str(t // 10) if t >= 1000 else "%d.%d" % (t // 10, t % 10)
for r, s in zip(rows, d["stacks"]):
    assert r[4] == pct(s["delta"], d["matched_delta"]), (r, s["delta"], d["matched_delta"])
# what an older stacktop wrote: the first 3 stacks only
d["stacks"] = d["stacks"][:3]
open(sys.argv[1].replace("top3", "cut3"), "w").write(json.dumps(d) + "\n")
PY
"$STACKTOP" -r "$WORK/cut3.json" --top 5 --expand 0 > "$WORK/cut3.txt" 2> "$WORK/err" ||
	{ cat "$WORK/err"; fail "-r cut3.json failed"; }
cat "$WORK/err" "$WORK/cut3.txt"
grep -q 'cut3.json holds 3 of the [0-9]* stacks its view matched (written with --top 3)' "$WORK/err" ||
	fail "reading a cut snapshot does not say so"
python3 - "$WORK/top3.json" "$WORK/cut3.txt" << 'PY' || fail "a cut snapshot's shares are not the interval's"
import json, re, sys
d = json.load(open(sys.argv[1]))
rows = [l for l in open(sys.argv[2]) if re.match(r"^ +[0-9]+ ", l)]
assert len(rows) == 4, rows
other = [r.split() for r in rows if "[stacks not in the snapshot]" in r]
kept = [r.split() for r in rows if "[stacks not in the snapshot]" not in r]
assert len(other) == 1, rows
def pct(part, whole):  # as fmt_percent() prints it: tenths, truncated
    t = part * 1000 // whole
    return str(t // 10) if t >= 1000 else "%d.%d" % (t // 10, t % 10)
rest = d["matched_delta"] - sum(s["delta"] for s in d["stacks"][:3])
assert other[0][4] == pct(rest, d["matched_delta"]), (other, rest)
for r, s in zip(kept, d["stacks"][:3]):
    assert r[4] == pct(s["delta"], d["matched_delta"]), (r, s["delta"], d["matched_delta"])
PY

# 5. -r --by-func names the functions, as --depth 1 and a live --by-func do:
# a function's start is no frame of the snapshot, and was printed as a raw
# address (issue 35); every frame it shows is a function the snapshot named
"$STACKTOP" -r "$WORK/live.json" --by-func --top 5 --expand 5 > "$WORK/func.txt" 2>&1 ||
	{ cat "$WORK/func.txt"; fail "-r --by-func failed"; }
sed -n '1,20p' "$WORK/func.txt"
python3 - "$WORK/live.json" "$WORK/func.txt" << 'PY' || fail "-r --by-func does not name the functions"
import json, re, sys
d = json.load(open(sys.argv[1]))
names = {y.split("+")[0] for s in d["stacks"] for y in s["symbols"]}
text = open(sys.argv[2]).read()
assert "grouped by function" in text, text[:300]
assert not re.search(r"0x[0-9a-f]{8,}", text), re.search(r".*0x[0-9a-f]{8,}.*", text).group(0)
frames = re.findall(r"^    ([A-Za-z_][A-Za-z0-9_.]*)\+0x0/0x[0-9a-f]+", text, re.M)
assert len(frames) >= 5, text
assert set(frames) <= names, set(frames) - names
PY

# 6. bad snapshots: a clear error, exit 1
expect() {
	"$STACKTOP" "$@" > /dev/null 2> "$WORK/err2" && fail "'$*' succeeded"
	cat "$WORK/err2"
}
printf '{"schema": "stacktop-snapshot", "version": 2, "stacks": [' > "$WORK/cut.json"
expect -r "$WORK/cut.json"
grep -q 'not valid JSON' "$WORK/err2" || fail "truncated JSON not explained"
printf '{"a": 1}\n' > "$WORK/other.json"
expect -r "$WORK/other.json"
grep -q 'not a stacktop snapshot' "$WORK/err2" || fail "foreign JSON not explained"
sed 's/"version":2/"version":3/' "$WORK/live.json" > "$WORK/v3.json"
expect -r "$WORK/v3.json"
grep -q 'snapshot version 3: this stacktop reads version 2' "$WORK/err2" || fail "version not explained"
sed 's/"hits_delta":[0-9]*,//' "$WORK/live.json" > "$WORK/nohd.json"
expect -r "$WORK/nohd.json"
grep -q '"hits_delta" is missing' "$WORK/err2" || fail "missing field not named"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["stacks"][0]["frames"][0]="0xzz"; print(json.dumps(d))' \
	"$WORK/live.json" > "$WORK/badframe.json"
expect -r "$WORK/badframe.json"
grep -q 'stack 1: "frames"\[0\] is not a hex address' "$WORK/err2" || fail "bad frame not located"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["stacks"][0]["by"][0]["comm"]="\u001b[2Jevil"; print(json.dumps(d))' \
	"$WORK/live.json" > "$WORK/esc.json"
"$STACKTOP" -r "$WORK/esc.json" --top 100 > "$WORK/esc.txt" 2>&1 || fail "-r esc.json failed"
if grep -q "$(printf '\033')" "$WORK/esc.txt"; then fail "an escape sequence from a snapshot reached the output"; fi
echo "ok: snapshots read back as they were seen, merge, and bad ones are refused"
