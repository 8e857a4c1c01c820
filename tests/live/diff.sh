#!/bin/sh
# --diff: two constructed snapshots with known shares give the known
# ranking, changes and NEW/GONE marks, in text and in JSON (checked against
# its schema); a snapshot against the live kernel (AFTER '-') runs.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/export-tools.sh"
npm_tools

# BEFORE: A 50, B 30, C 20 (of 100); AFTER: A 40, B 60, D 100 (of 200)
# shares: A 50 -> 20 (-30), B 30 -> 30 (0), C 20 -> 0 (-20, GONE), D 0 -> 50 (+50, NEW)
# AFTER's addresses are moved (KASLR): stacks match by their symbols
python3 "$(dirname "$0")/../diff-pair.py" "$WORK/before.json" "$WORK/after.json" ||
	fail "cannot write the snapshot pair"
validate_snapshot "$WORK/before.json"
validate_snapshot "$WORK/after.json"

"$STACKTOP" --diff "$WORK/before.json" "$WORK/after.json" > "$WORK/d.txt" 2> "$WORK/err" ||
	{ cat "$WORK/err"; fail "--diff failed"; }
cat "$WORK/d.txt"
grep -q '^4 stacks: 1 new, 1 gone' "$WORK/d.txt" || fail "new/gone counts"
rows=$(grep -E '^ +[0-9]+ ' "$WORK/d.txt" | awk '{ print $1, $2, $3, $4, $5, $6 }')
want='1 0.00% 50.00% +50.00 NEW leaf_D
2 50.00% 20.00% -30.00 leaf_A <
3 20.00% 0.00% -20.00 GONE leaf_C
4 30.00% 30.00% +0.00 leaf_B <'
[ "$rows" = "$want" ] || fail "diff rows:
$rows
wanted:
$want"

"$STACKTOP" --diff "$WORK/before.json" "$WORK/after.json" --json > "$WORK/d.json" ||
	fail "--diff --json failed"
"$AJV" validate --spec=draft2020 -s "$SRCDIR/doc/stacktop-diff.schema.json" -d "$WORK/d.json" \
	> "$WORK/ajv.log" 2>&1 || { cat "$WORK/ajv.log"; fail "the diff does not match its schema"; }
python3 - "$WORK/d.json" << 'PY' || fail "diff JSON"
import json, sys
d = json.load(open(sys.argv[1]))
got = [(s["symbols"][0].split("+")[0], s["mark"], s["share_before"], s["share_after"], s["change"])
       for s in d["stacks"]]
assert got == [("leaf_D", "new", 0, 50, 50), ("leaf_A", None, 50, 20, -30),
               ("leaf_C", "gone", 20, 0, -20), ("leaf_B", None, 30, 30, 0)], got
assert d["before"]["hits"] == 100 and d["after"]["hits"] == 200, (d["before"], d["after"])
assert d["new"] == 1 and d["gone"] == 1
PY

# one path recorded with and without the tracepoint's iterator frame (the
# kernel goes through __traceiter_* when another tracer, perf or bpftrace,
# is attached to the event too): the same stack, not one NEW and one GONE;
# folded leaves the tracing frames out either way
python3 - "$WORK/kb.json" "$WORK/ka.json" << 'PY'
import json, sys
d = json.load(open(sys.argv[1].replace("kb.json", "before.json")))
def with_frames(syms):
    d2 = json.loads(json.dumps(d))
    s = d2["stacks"][0]
    s["symbols"] = syms
    s["frames"] = ["0x%x" % (0xffffffff81100000 + 0x1000 * i) for i in range(len(syms))]
    s["depth"] = len(syms)
    d2["stacks"] = [s]
    d2["hits"] = d2["hits_delta"] = d2["matched_total"] = d2["matched_delta"] = s["total"]
    d2["unique"] = d2["matched"] = 1
    return d2
base = ["__kmalloc_noprof+0x2b6/0x4c0", "seq_open+0x2c/0x90", "do_sys_openat2+0x91/0xd0"]
open(sys.argv[1], "w").write(json.dumps(with_frames(
    ["trace_event_raw_event_kmalloc+0xe4/0x130"] + base)) + "\n")
open(sys.argv[2], "w").write(json.dumps(with_frames(
    ["trace_event_raw_event_kmalloc+0xe4/0x130", "__traceiter_kmalloc+0x58/0x90"] + base)) + "\n")
PY
"$STACKTOP" --diff "$WORK/kb.json" "$WORK/ka.json" > "$WORK/dk.txt" 2> "$WORK/err" ||
	{ cat "$WORK/err"; fail "--diff (iterator frame) failed"; }
grep -q '^1 stacks: 0 new, 0 gone' "$WORK/dk.txt" ||
	{ cat "$WORK/dk.txt"; fail "a stack with __traceiter_* is another stack to --diff"; }
"$STACKTOP" -r "$WORK/ka.json" --folded > "$WORK/ka.folded" || fail "-r --folded failed"
grep -q '^do_sys_openat2_\[k\];seq_open_\[k\];__kmalloc_noprof_\[k\] ' "$WORK/ka.folded" ||
	{ cat "$WORK/ka.folded"; fail "folded keeps the tracing frames"; }

# two stacks that share their first three functions (finish_task_switch <
# __schedule < schedule) and part at the fourth read apart: each row shows
# the frames that tell it from the others (issue 35: two identical rows);
# the text report does the same, a row alone keeps its three
python3 - "$WORK/sb.json" "$WORK/sa.json" << 'PY'
import json, sys
d = json.load(open(sys.argv[1].replace("sb.json", "before.json")))
head = ["finish_task_switch.isra.0+0x97/0x2e0", "__schedule+0x628/0xf60", "schedule+0x23/0xa0"]
tails = {"p": ["do_nanosleep+0x62/0x160", "hrtimer_nanosleep+0xd6/0x1c0"],
         "q": ["schedule_timeout+0xb6/0x150", "rcu_gp_fqs_loop+0x103/0x530"],
         "r": ["worker_thread+0x193/0x350", "kthread+0xfa/0x240"]}
names = sorted({f for t in tails.values() for f in t} | set(head) | {"worker_leaf+0x10/0x100"})
def snap(counts):
    d2 = json.loads(json.dumps(d))
    one = d2["stacks"][0]
    d2["stacks"] = []
    for i, (k, n) in enumerate(counts.items()):
        s = json.loads(json.dumps(one))
        s["symbols"] = (head if k != "r" else ["worker_leaf+0x10/0x100"]) + tails[k]
        s["frames"] = ["0x%x" % (0xffffffff81200000 + 0x1000 * names.index(f) + 0x10)
                       for f in s["symbols"]]
        s["depth"] = len(s["symbols"])
        s["key"] = "%016x" % (0x3000 + i)
        s["total"] = s["delta"] = n
        s["by"] = [dict(s["by"][0], total=n, delta=n)]
        d2["stacks"].append(s)
    d2["hits"] = d2["hits_delta"] = d2["matched_total"] = d2["matched_delta"] = sum(counts.values())
    d2["unique"] = d2["matched"] = len(counts)
    return d2
open(sys.argv[1], "w").write(json.dumps(snap({"p": 60, "q": 30, "r": 10})) + "\n")
open(sys.argv[2], "w").write(json.dumps(snap({"p": 20, "q": 70, "r": 10})) + "\n")
PY
"$STACKTOP" --diff "$WORK/sb.json" "$WORK/sa.json" > "$WORK/ds.txt" 2> "$WORK/err" ||
	{ cat "$WORK/err"; fail "--diff (shared start) failed"; }
cat "$WORK/ds.txt"
grep -q ' finish_task_switch.isra.0 < __schedule < schedule < schedule_timeout$' "$WORK/ds.txt" &&
	grep -q ' finish_task_switch.isra.0 < __schedule < schedule < do_nanosleep$' "$WORK/ds.txt" &&
	grep -q ' worker_leaf < worker_thread < kthread$' "$WORK/ds.txt" ||
	fail "the diff's rows do not show the frames that tell them apart"
"$STACKTOP" -r "$WORK/sa.json" --expand 0 > "$WORK/rs.txt" 2> "$WORK/err" || fail "-r sa.json failed"
grep -q ' finish_task_switch.isra.0 < __schedule < schedule < schedule_timeout$' "$WORK/rs.txt" &&
	grep -q ' finish_task_switch.isra.0 < __schedule < schedule < do_nanosleep$' "$WORK/rs.txt" ||
	{ cat "$WORK/rs.txt"; fail "the report's rows do not show the frames that tell them apart"; }

# a snapshot against the live kernel: one diff per refresh
start_workload
"$STACKTOP" -b -n 1 -d 0.5 -o "$WORK/live.json" 2> /dev/null || fail "live snapshot failed"
"$STACKTOP" --diff "$WORK/live.json" - -n 2 -d 0.3 --json > "$WORK/dl.json" 2> "$WORK/err" ||
	{ cat "$WORK/err"; fail "--diff SNAPSHOT - failed"; }
[ "$(wc -l < "$WORK/dl.json")" = 2 ] || fail "not one diff per refresh"
python3 - "$WORK/dl.json" << 'PY' || fail "live diff"
import json, sys
for line in open(sys.argv[1]):
    d = json.loads(line)
    assert d["after"]["mode"] in ("stacks", "stackmap"), d["after"]
    assert d["before"]["mode"] == "replay"
    assert d["after"]["hits"] > 0 and d["stacks"], "live side empty"
    assert any(s["mark"] is None for s in d["stacks"]), "no stack in common with the snapshot"
PY

# usage errors
"$STACKTOP" --diff "$WORK/before.json" > /dev/null 2> "$WORK/err" && fail "--diff with one side succeeded"
grep -q 'AFTER is missing' "$WORK/err" || fail "missing AFTER not explained"
"$STACKTOP" --diff "$WORK/nope.json" "$WORK/after.json" > /dev/null 2> "$WORK/err" && fail "missing BEFORE succeeded"
grep -q -- '--diff BEFORE: cannot read' "$WORK/err" || fail "missing BEFORE not explained: $(cat "$WORK/err")"
echo "ok: --diff ranks by the change of share, marks NEW and GONE"
