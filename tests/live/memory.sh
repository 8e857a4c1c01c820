#!/bin/sh
# A process storm under a small --max-memory: thousands of short-lived
# processes each hit sched:sched_process_exit, stacktop folds the records of
# the exited ones into their command, every report stays under the limit,
# and no hit is lost on the way (stack totals = the hits; a hit missing from
# its stack's breakdown is one the header counts as over the limit).
. "$(dirname "$0")/lib.sh"
command -v python3 > /dev/null || skip "python3 needed to read the JSON"

N=4000
"$STACKTOP" -b --json -d 0.3 --max-memory 256K -e sched:sched_process_exit \
	> "$WORK/out" 2> "$WORK/err" &
ST=$!
WORKLOAD_PID=$ST # killed by pid at exit if the test fails half-way
wait_for "$WORK/out" '"iteration":1' 100 || { cat "$WORK/err"; fail "no first report"; }

# the storm: N children that exit at once, each reaped (a zombie still exists)
python3 - "$N" <<'PY' || fail "the storm failed"
import os, sys
for _ in range(int(sys.argv[1])):
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
PY
# two more reports after the storm, then stop
n0=$(wc -l < "$WORK/out")
tries=100
while [ "$(wc -l < "$WORK/out")" -lt $((n0 + 2)) ] && [ $tries -gt 0 ]; do
	sleep 0.1
	tries=$((tries - 1))
done
kill -TERM "$ST"
wait "$ST" || { cat "$WORK/err"; fail "stacktop exited $?"; }
WORKLOAD_PID=

python3 - "$WORK/out" "$N" <<'PY' || fail "memory or totals wrong (above)"
import json, sys
reps = [json.loads(l) for l in open(sys.argv[1])]
n = int(sys.argv[2])
bad = [r["memory"] for r in reps if r["memory"]["bytes"] > r["memory"]["limit"]]
if bad:
    sys.exit("over the limit: %s" % bad[:3])
last = reps[-1]
m = last["memory"]
print("memory: %d of %d bytes, %d records folded, %d stacks / %d hits over the limit, "
      "rss %d, %d reports" % (m["bytes"], m["limit"], m["folded"], m["over_stacks"],
                              m["over_hits"], m["rss"], len(reps)))
if m["limit"] != 256 << 10:
    sys.exit("limit %d, wanted 256K" % m["limit"])
if m["folded"] < n // 2:
    sys.exit("only %d records folded after %d processes exited" % (m["folded"], n))
if last["hits"] < n:
    sys.exit("%d hits, but %d processes exited" % (last["hits"], n))
tot = sum(s["total"] for s in last["stacks"])
if tot != last["hits"]:
    sys.exit("stacks add up to %d, hits %d" % (tot, last["hits"]))
exited = 0
# a hit past the limit may be counted without a breakdown record (when not
# even the stack's over-the-limit record fits): the header's over_hits
# counts each such hit, so none is lost without being declared
missing = 0
for s in last["stacks"]:
    by = sum(b["total"] for b in s["by"])
    if by > s["total"]:
        sys.exit("stack %s: breakdown adds up to %d, total %d" % (s["symbols"][:2], by, s["total"]))
    missing += s["total"] - by
    exited += sum(b["total"] for b in s["by"] if b.get("exited"))
    for b in s["by"]:
        if b.get("exited") and (b["pid"] != -1 or not b["comm"]):
            sys.exit("a folded record shows pid %d comm %r" % (b["pid"], b["comm"]))
if missing > m["over_hits"]:
    sys.exit("%d hits are in no breakdown record, only %d declared over the limit" %
             (missing, m["over_hits"]))
print("hits in no breakdown record: %d (over the limit: %d)" % (missing, m["over_hits"]))
if exited < n // 2:
    sys.exit("only %d hits on folded records" % exited)
PY
grep -q '"exited":true' "$WORK/out" || fail "no folded record in the JSON"
echo "ok: a process storm stays under --max-memory, totals kept"
