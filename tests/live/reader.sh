#!/bin/sh
# The ring-buffer reader (source/cpubufs.c) on the real kernel:
#  - every record read exactly once, whole pages: exactly N getpid() calls
#    of a command traced with a buffer that holds them all are N hits, none
#    lost, and the reader made about one read() a page: of the pages read,
#    at most two a CPU at each wakeup were pages the kernel still wrote
#    (the reader stops at that page; it used to read it again and again,
#    1.5 events a read at 320,000 events a second);
#  - fresh: a few records on a page still being written are in the next
#    refresh (the drain before each refresh takes the partial pages too),
#    and the refresh after it counts none of them again;
#  - the instance's buffer_percent is the reader's watermark, the top
#    level's is left alone.
. "$(dirname "$0")/lib.sh"
[ -x "${GETPID_LOOP:-}" ] || fail "no GETPID_LOOP helper"
[ -e "$T/events/syscalls/sys_enter_getpid" ] || skip "no syscalls:sys_enter_getpid event"

snapshot "$WORK/before"
top_pct=$(cat "$T/buffer_percent")

# --- every record once, a read() a page ------------------------------------------
N=200000
"$STACKTOP" -b --json -e syscalls:sys_enter_getpid --buffer-kb 32768 -- "$GETPID_LOOP" "$N" \
	> "$WORK/exact.json" 2> "$WORK/err" || { cat "$WORK/err"; fail "stacktop -- getpid-loop failed"; }
python3 - "$WORK/exact.json" "$N" "$(nproc)" << 'PY' || fail "the reader lost, repeated or re-read records"
import json, sys
d = json.loads(open(sys.argv[1]).read().splitlines()[-1])
n, ncpu = int(sys.argv[2]), int(sys.argv[3])
rb = d["ringbuf"]
print("hits", d["hits"], "lost", d["lost"], "overrun", d["overrun"], "reads", rb["reads"],
      "partial", rb["partial_pages"], "drains", rb["drains"],
      "events/read %.1f" % (d["records"] / max(rb["reads"], 1)))
assert d["hits"] == n, "%d hits for %d getpid() calls" % (d["hits"], n)
assert d["lost"] == 0 and d["overrun"] == 0 and d["dropped"] == 0, d
# a 24-frame-or-less getpid stack and its event: some 30 records a page
assert d["records"] >= 2 * n and rb["reads"] > 0
assert rb["reads"] * 8 <= d["records"], "%d reads for %d records" % (rb["reads"], d["records"])
assert rb["partial_pages"] <= 2 * ncpu * rb["drains"], \
    "%d pages read while written in %d drains" % (rb["partial_pages"], rb["drains"])
PY

# --- fresh: a partial page in the next refresh, once -------------------------------
# getpgid(424242) in the filter: nobody else's calls match
python3 - "$STACKTOP" << 'PY' || fail "a record on a page still written missed its refresh"
import json, os, subprocess, sys, time
p = subprocess.Popen([sys.argv[1], "-b", "--json", "-d", "1", "-n", "4",
                      "-e", "syscalls:sys_enter_getpgid if pid == 424242"],
                     stdout=subprocess.PIPE, text=True)
done, calls_at = False, None
for line in p.stdout:
    d = json.loads(line)
    print("refresh", d["iteration"], "hits", d["hits"], "delta", d["hits_delta"])
    if calls_at is not None and not done:
        # the refresh after the calls: its drain came after them unless this
        # process was held longer than the interval (then the next one is)
        if d["timestamp"] - 0.5 < calls_at:
            print("the calls came too late for this refresh: the next one")
            calls_at = None
        else:
            assert d["hits_delta"] == 7 and d["hits"] == 7, d
            done = True
            continue
    if done:
        assert d["hits_delta"] == 0 and d["hits"] == 7, d
    elif calls_at is None:
        for _ in range(7):
            try:
                os.getpgid(424242)
            except ProcessLookupError:
                pass
        calls_at = time.time()
p.wait()
assert p.returncode == 0 and done, "no refresh after the calls"
PY

# --- the watermark: the instance's, not the top level's ------------------------------
"$STACKTOP" -b -d 5 -n 1 -e sched:sched_switch > /dev/null 2> "$WORK/err" &
pid=$!
WORKLOAD_PID=$pid
pct=
for _ in $(seq 50); do
	pct=$(cat "$T/instances/stacktop.$pid/buffer_percent" 2> /dev/null) && [ "$pct" != 50 ] && break
	sleep 0.1
done
[ -n "$pct" ] && [ "$pct" != 50 ] || fail "the instance's buffer_percent stayed at the kernel's 50 ($pct)"
[ "$(cat "$T/buffer_percent")" = "$top_pct" ] || fail "the top level's buffer_percent changed"
kill -INT "$pid"
wait "$pid" || fail "stacktop exited $?"
WORKLOAD_PID=
echo "instance buffer_percent $pct, top level $top_pct"
no_instance_of "$pid"
snapshot "$WORK/after"
diff "$WORK/before" "$WORK/after" || fail "tracefs state changed"
echo "PASS"
