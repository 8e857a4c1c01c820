#!/bin/sh
# Every output format, from a saved stack map with known counts (no kernel
# needed), read back by the real readers: go tool pprof, speedscope's own
# importer, ajv against the published snapshot schema.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/export-tools.sh"
go_tool
npm_tools

MAP="$SRCDIR/tests/fixtures/export/stack_map"
KSYMS="$SRCDIR/tests/fixtures/ksym/kallsyms"
st() { "$STACKTOP" --map "$MAP" --kallsyms "$KSYMS" "$@"; }

# --- pprof: totals and names as go tool pprof reads them -------------------------
st -o "$WORK/out.pb.gz" 2> "$WORK/err" || { cat "$WORK/err"; fail "-o out.pb.gz failed"; }
[ "$(stat -c %a "$WORK/out.pb.gz")" = 600 ] || fail "profile not mode 0600"
gzip -t "$WORK/out.pb.gz" || fail "the profile is not gzip'd"
go tool pprof -raw "$WORK/out.pb.gz" > "$WORK/raw" 2>&1 || { cat "$WORK/raw"; fail "pprof -raw failed"; }
cat "$WORK/raw"
grep -q '^hits/count hits_interval/count' "$WORK/raw" || fail "sample types hits, hits_interval missing"
# the three stacks, their counts, leaf first
sum=$(awk '/^Samples:/ {s = 1; next} /^Locations/ {s = 0} s && /:/ {t += $1} END {print t}' "$WORK/raw")
[ "$sum" = 15 ] || fail "pprof samples add up to $sum, the map holds 15"
for fn in schedule schedule_timeout _text nvme_queue_rq ext4_file_write_iter weak_func; do
	grep -Eq "^ +[0-9]+: 0x[0-9a-f]+ M=1 $fn " "$WORK/raw" || fail "location of $fn missing"
done
grep -q 'nvme_queue_rq \[nvme\]' "$WORK/raw" || fail "module not the function's file"
grep -q '\[kernel.kallsyms\]' "$WORK/raw" || fail "no [kernel.kallsyms] mapping"
go tool pprof -top -sample_index=hits "$WORK/out.pb.gz" > "$WORK/top" 2>&1 || fail "pprof -top failed"
cat "$WORK/top"
grep -q 'accounting for 15, 100% of 15 total' "$WORK/top" || fail "pprof -top total is not 15"
grep -Eq '^ +10 +66\.67% .* schedule$' "$WORK/top" || fail "schedule is not 10 flat"
grep -Eq '^ +5 +33\.33% .* nvme_queue_rq$' "$WORK/top" || fail "nvme_queue_rq is not 5 flat"

# --- speedscope: its importer and its schema -------------------------------------
st -o "$WORK/out.speedscope.json" || fail "-o out.speedscope.json failed"
"$AJV" validate -s "$SS_SCHEMA" -d "$WORK/out.speedscope.json" > "$WORK/ajv" 2>&1 ||
	{ cat "$WORK/ajv"; fail "speedscope file does not match speedscope's schema"; }
speedscope_import "$WORK/out.speedscope.json" > "$WORK/ss" || fail "speedscope cannot import it"
cat "$WORK/ss"
python3 - "$WORK/ss" <<'PY' || fail "speedscope reads other totals"
import json, sys
g = json.load(open(sys.argv[1]))
assert [p["name"] for p in g["profiles"]] == ["stack_map"], g
p = g["profiles"][0]
assert p["total"] == 15, p
assert p["selfByFrame"]["schedule"] == 10 and p["selfByFrame"]["nvme_queue_rq"] == 5, p
assert p["selfByFrame"]["_text"] == 0, "frames not root first: %s" % p
PY

# --- JSON snapshot: the schema, the stable key -----------------------------------
st -o "$WORK/a.json" || fail "-o a.json failed"
st --json > "$WORK/b.json" || fail "--json failed"
validate_snapshot "$WORK/a.json"
validate_snapshot "$WORK/b.json"
python3 - "$WORK/a.json" "$WORK/b.json" <<'PY' || fail "snapshot content"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert a["schema"] == "stacktop-snapshot" and a["version"] == 2
assert a["events"] == ["stack_map"], a["events"]
assert sum(s["total"] for s in a["stacks"]) == 15
def fnv(symbols):
    h = 0xcbf29ce484222325
    for s in symbols:
        for c in s.encode() + b"\n":
            h = ((h ^ c) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h
for s in a["stacks"]:
    assert s["key"] == fnv(s["symbols"]), s
assert [s["key"] for s in a["stacks"]] == [s["key"] for s in b["stacks"]], "keys not stable"
assert len(set(s["key"] for s in a["stacks"])) == 3
PY

# --- folded, with and without a root; the suffix picks the format -----------------
st -o "$WORK/out.folded" || fail "-o out.folded failed"
grep -qx '_text_\[k\];schedule_timeout_\[k\];schedule_\[k\] 7' "$WORK/out.folded" ||
	{ cat "$WORK/out.folded"; fail "folded line wrong"; }
st --format folded --folded-root comm > "$WORK/rooted" || fail "--folded-root comm failed"
grep -qx '\[unknown\];ext4_file_write_iter_\[k\];nvme_queue_rq_\[k\] 5' "$WORK/rooted" ||
	{ cat "$WORK/rooted"; fail "folded root frame missing"; }
st -o "$WORK/out.txt" && grep -q '^RANK ' "$WORK/out.txt" || fail ".txt is not the text report"
st -o "$WORK/noext" && grep -q '^RANK ' "$WORK/noext" || fail "no suffix: not text"
st -o "$WORK/forced.json" --format folded && grep -q '_\[k\] 7$' "$WORK/forced.json" ||
	fail "--format does not override the suffix"

# --- losses: a snapshot whose interval lost a third of its records ---------------
# (tests/fixtures/export/lost.json: 30 hits; 30 records overrun, 60 read: the
# view misses 30 * 30 / 60 = 15 events, --folded-lost's stack)
LOST="$SRCDIR/tests/fixtures/export/lost.json"
"$STACKTOP" -r "$LOST" --folded-lost -o "$WORK/lost.speedscope.json" ||
	fail "-r lost.json -o .speedscope.json failed"
"$AJV" validate -s "$SS_SCHEMA" -d "$WORK/lost.speedscope.json" > "$WORK/ajv" 2>&1 ||
	{ cat "$WORK/ajv"; fail "speedscope file with the lost stack does not match speedscope's schema"; }
speedscope_import "$WORK/lost.speedscope.json" > "$WORK/ss" || fail "speedscope cannot import the lost stack"
cat "$WORK/ss"
python3 - "$WORK/ss" <<'PY' || fail "speedscope reads other losses"
import json, sys
g = json.load(open(sys.argv[1]))
assert "about 33.3% of the events are missing from the counts" in g["name"], g["name"]
p = g["profiles"][0]
assert p["name"] == "sched:sched_switch (about 33.3% of the events lost)", p["name"]
assert p["total"] == 45 and p["selfByFrame"]["[lost events]"] == 15, p
PY
"$STACKTOP" -r "$LOST" --folded-lost -o "$WORK/lost.pb.gz" || fail "-r lost.json -o .pb.gz failed"
go tool pprof -top "$WORK/lost.pb.gz" > "$WORK/top" 2>&1 || { cat "$WORK/top"; fail "pprof -top failed"; }
cat "$WORK/top"
grep -qx 'losses: lost 5, overrun 30, dropped 0 ring-buffer records in the last interval (60 read): about 33.3% of the events are missing from the counts' "$WORK/top" ||
	fail "pprof -top does not show the losses"
grep -Eq '^ +15 +33\.33% .* \[lost events\]$' "$WORK/top" || fail "pprof -top: [lost events] is not 15"
"$STACKTOP" -r "$LOST" --json > "$WORK/lost.json" || fail "-r lost.json --json failed"
validate_snapshot "$WORK/lost.json"
grep -q '"lost_delta":5,"overrun_delta":30,"dropped_delta":0,"records":200,"records_delta":60,' \
	"$WORK/lost.json" || fail "the snapshot read back lost its losses"

# --- bad combinations are refused before anything runs --------------------------
expect2() {
	"$STACKTOP" "$@" > "$WORK/o" 2> "$WORK/e" && fail "'$*' succeeded"
	grep -q -- "$pat" "$WORK/e" || { cat "$WORK/e"; fail "'$*' did not say '$pat'"; }
}
pat="bad --format" expect2 -b --format xml
pat="choose one" expect2 -b --json --folded
pat="applies to --format folded" expect2 -b --json --folded-root comm
pat="writes one profile" expect2 -b --format pprof
pat="bad --folded-root" expect2 -b --folded --folded-root tid
pat="--folded-lost applies to" expect2 -b --json --folded-lost
echo "ok: export formats read back by pprof, speedscope and ajv"
