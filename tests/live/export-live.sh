#!/bin/sh
# Exports of real kernel stacks. A recording of this kernel (trace.dat) gives
# the same totals in every format, as each format's own reader sees them, with
# the labels pprof carries; a live batch run with -o writes one file per
# refresh, and --json/--folded streams keep refreshes apart.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/export-tools.sh"
command -v trace-cmd > /dev/null || fail "trace-cmd is not installed (scripts/deps.sh installs it)"
go_tool
npm_tools

record_sched_switch stacktop-exporttest
want=$(trace-cmd report -i "$WORK/trace.dat" 2>/dev/null | grep -c 'kernel_stack:')
[ "$want" -gt 10 ] || fail "the recording has only $want stacks"

R() { "$STACKTOP" -r "$WORK/trace.dat" "$@"; }
R -o "$WORK/r.json" && R -o "$WORK/r.pb.gz" && R -o "$WORK/r.speedscope.json" &&
	R -o "$WORK/r.folded" && R --format folded --folded-root pid > "$WORK/rp.folded" ||
	fail "replay exports failed"

validate_snapshot "$WORK/r.json"
# a wrapped per-CPU buffer can begin with the stack half of a pair whose event
# was overwritten: trace-cmd shows that stack, stacktop counts it as an orphan
orphans=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["orphans"])' "$WORK/r.json") ||
	fail "no orphans count in the JSON snapshot"
want=$((want - orphans))
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert sum(s["total"] for s in d["stacks"]) == int(sys.argv[2]), "json total"
assert d["events"] and all(b["event"] in d["events"] for s in d["stacks"] for b in s["by"])
assert any(b["pid"] > 0 and b["comm"] not in ("", "?") for s in d["stacks"] for b in s["by"])
' "$WORK/r.json" "$want" || fail "JSON snapshot of the recording"

go tool pprof -top -sample_index=hits "$WORK/r.pb.gz" > "$WORK/top" 2>&1 || { cat "$WORK/top"; fail "pprof -top"; }
head -12 "$WORK/top"
grep -q "of $want total" "$WORK/top" || fail "pprof total is not $want"
grep -Eq ' (__schedule|schedule)$' "$WORK/top" || fail "pprof lacks __schedule"
go tool pprof -raw "$WORK/r.pb.gz" > "$WORK/raw" 2>&1 || fail "pprof -raw"
grep -Eq 'event:\[sched:sched_switch\]' "$WORK/raw" || fail "no event label"
grep -Eq 'comm:\[[^]]+\]' "$WORK/raw" || fail "no comm label"
grep -Eq 'pid:\[[0-9]+\]' "$WORK/raw" || fail "no pid label"
grep -Eq 'cpu:\[[0-9]+\]' "$WORK/raw" || fail "no cpu label"
# every CPU, CPU 0 too, in -tags (a numeric label of 0 is dropped by Go's
# reader: "cpu: Total" was CPU 1's alone) and selectable with -tagfocus
go tool pprof -tags -sample_index=hits "$WORK/r.pb.gz" > "$WORK/tags" 2>&1 || fail "pprof -tags"
python3 - "$WORK/tags" "$want" << 'PY' || { cat "$WORK/tags"; fail "pprof: the cpu tag does not count every sample"; }
import re, sys
text = open(sys.argv[1]).read()
m = re.search(r"^ *cpu: Total ([0-9.]+)", text, re.M)
assert m and int(float(m.group(1))) == int(sys.argv[2]), (m and m.group(1), sys.argv[2])
PY
if grep -Eq '^ +[0-9]+ +\([ 0-9.]+%\): 0$' "$WORK/tags"; then
	go tool pprof -top -sample_index=hits -tagfocus cpu=0 "$WORK/r.pb.gz" > "$WORK/cpu0" 2>&1 ||
		{ cat "$WORK/cpu0"; fail "pprof -tagfocus cpu=0"; }
	grep -q "of $want total" "$WORK/cpu0" && ! grep -q 'Showing nodes accounting for [1-9]' "$WORK/cpu0" &&
		fail "-tagfocus cpu=0 selects nothing"
fi

"$AJV" validate -s "$SS_SCHEMA" -d "$WORK/r.speedscope.json" > "$WORK/ajv" 2>&1 ||
	{ cat "$WORK/ajv"; fail "speedscope schema"; }
speedscope_import "$WORK/r.speedscope.json" > "$WORK/ss" || fail "speedscope import"
# a recording that overflowed its buffer (a busy machine) says so in the
# profile's name, with the share the snapshot of the same file gives
python3 -c '
import json, sys
g = json.load(open(sys.argv[1]))
snap = json.load(open(sys.argv[3]))
assert sum(p["total"] for p in g["profiles"]) == int(sys.argv[2]), g["profiles"][0]["total"]
name = "sched:sched_switch"
if snap["lost"]:
    name += " (about %.1f%% of the events lost)" % (
        100.0 * snap["lost"] / (snap["lost"] + snap["events_read"]))
assert name in [p["name"] for p in g["profiles"]], (name, [p["name"] for p in g["profiles"]])
assert any(f in ("__schedule", "schedule") for p in g["profiles"] for f in p["selfByFrame"])
' "$WORK/ss" "$want" "$WORK/r.json" || fail "speedscope totals or names differ"

sum=$(awk '{t += $NF} END {print t}' "$WORK/r.folded")
[ "$sum" = "$want" ] || fail "folded total $sum, want $want"
sum=$(awk '{t += $NF} END {print t}' "$WORK/rp.folded")
[ "$sum" = "$want" ] || fail "rooted folded total $sum, want $want"
grep -Eq '^[^;]+;[0-9]+;[^ ]+_\[k\] [0-9]+$' "$WORK/rp.folded" || fail "no comm;pid root"
grep -Eq "^sleep;[0-9]+;" "$WORK/rp.folded" || fail "the workload's sleep not a root"

# live: one file per refresh with -o; refreshes apart on stdout
"$STACKTOP" -b -n 2 -d 0.5 -e sched:sched_switch -o "$WORK/live.pb.gz" 2> "$WORK/err" ||
	{ cat "$WORK/err"; fail "live -o failed"; }
for i in 1 2; do
	go tool pprof -top "$WORK/live.$i.pb.gz" > "$WORK/lt" 2>&1 || fail "live.$i.pb.gz unreadable"
	grep -Eq ' (__schedule|schedule)$' "$WORK/lt" || fail "live.$i.pb.gz lacks __schedule"
done
[ ! -e "$WORK/live.pb.gz" ] || fail "-o FILE written as well as FILE.N"
"$STACKTOP" -b -n 2 -d 0.5 -e sched:sched_switch --json > "$WORK/live.jsonl" || fail "--json -n 2"
[ "$(wc -l < "$WORK/live.jsonl")" = 2 ] || fail "not one snapshot per refresh"
validate_snapshot "$WORK/live.jsonl"
python3 -c '
import json, sys, socket, os
a, b = (json.loads(l) for l in open(sys.argv[1]))
assert (a["iteration"], b["iteration"]) == (1, 2)
assert b["timestamp"] > a["timestamp"]
assert a["host"] == socket.gethostname() and a["kernel"] == os.uname().release
assert a["events"] == ["sched:sched_switch"], a["events"]
' "$WORK/live.jsonl" || fail "live snapshots"
"$STACKTOP" -b -n 2 -d 0.5 -e sched:sched_switch --folded > "$WORK/live.folded" || fail "--folded -n 2"
[ "$(grep -c '^$' "$WORK/live.folded")" = 1 ] || fail "refreshes not separated by one blank line"
echo "ok: exports of a recording agree with trace-cmd ($want stacks) in every reader"
