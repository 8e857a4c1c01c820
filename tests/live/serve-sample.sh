#!/bin/sh
# --serve with --sample: /metrics gives each event's exact count (perf's,
# every hit, most without a stack) apart from the hits that carry a stack
# (estimates). A command of exactly 1,000,000 getpid() calls, then a sleep,
# traced with --sample 100 (-- CMD: its process tree only): during the
# sleep, stacktop_event_count_total of syscalls:sys_enter_getpid is the
# JSON report's exact_events of the same refresh and at least 1,000,000
# (the shell around it adds its own few); the stacks' estimate is a family
# of its own (stacktop_event_hits_total).
. "$(dirname "$0")/lib.sh"
command -v perf > /dev/null || skip "perf is not installed (scripts/deps.sh installs it)"
[ -x "${GETPID_LOOP:-}" ] || fail "no GETPID_LOOP helper"
command -v curl > /dev/null || fail "curl is not installed"

"$STACKTOP" --serve 127.0.0.1:0 --sample 100 -e syscalls:sys_enter_getpid -b -d 0.5 --json -- \
	sh -c "\"$GETPID_LOOP\" 1000000 fixed; sleep 4" > "$WORK/s.json" 2> "$WORK/err" &
ST=$!
EXTRA_PIDS=$ST
wait_for "$WORK/err" "serving http://127.0.0.1:" 150 || { cat "$WORK/err"; fail "no server"; }
PORT=$(sed -n 's|.*serving http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$WORK/err")
# until the loop's million is counted (bounded: 60 s)
tries=600
while [ $tries -gt 0 ]; do
	curl -s -m 5 "http://127.0.0.1:$PORT/metrics" > "$WORK/m" 2> /dev/null
	n=$(sed -n 's/^stacktop_event_count_total{event="syscalls:sys_enter_getpid"} //p' "$WORK/m")
	[ "${n:-0}" -ge 1000000 ] 2> /dev/null && break
	kill -0 $ST 2> /dev/null || { cat "$WORK/err"; fail "stacktop ended before the count"; }
	sleep 0.1
	tries=$((tries - 1))
done
[ $tries -gt 0 ] || { grep getpid "$WORK/m"; fail "the exact count never reached 1,000,000"; }
sleep 1.2 # the next refresh, and its JSON report written
curl -s -m 5 "http://127.0.0.1:$PORT/metrics" > "$WORK/m"
wait $ST
python3 - "$WORK/m" "$WORK/s.json" << 'PY' || fail "/metrics's exact count is not the run's"
import json, sys
m = {}
for line in open(sys.argv[1]):
    if line.strip() and not line.startswith("#"):
        k, v = line.rsplit(" ", 1)
        m[k] = float(v)
ev = 'event="syscalls:sys_enter_getpid"'
count = m['stacktop_event_count_total{%s}' % ev]
hits = m['stacktop_event_hits_total{%s}' % ev]
refresh = int(m["stacktop_refresh"])
snaps = {}
for line in open(sys.argv[2]):
    if line.endswith("\n") and line.strip():
        d = json.loads(line)
        snaps[d["iteration"]] = d
assert refresh in snaps, (refresh, sorted(snaps)[-3:])
d = snaps[refresh]
print("refresh %d: /metrics count %d, stacks' estimate %d; the report's exact_events %d, hits %d"
      % (refresh, count, hits, d["exact_events"], d["hits"]))
assert m["stacktop_sample_period"] == 100, m["stacktop_sample_period"]
assert count == d["exact_events"], (count, d["exact_events"])
assert 1000000 <= count <= 1000100, count
# the stacks' estimate is --sample's own business (tests/live/sample.sh
# holds it): here it is only the other family, counted apart
assert hits > 0 and 'stacktop_event_hits_total{%s}' % ev != 'stacktop_event_count_total{%s}' % ev
PY
no_instance_of "$ST"
echo "PASS: --sample's exact count per event in /metrics"
