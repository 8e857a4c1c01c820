#!/bin/sh
# --serve scraped by Debian's real Prometheus server: stacktop serves on
# loopback (port 0: the one it took is on standard error) while its batch
# run writes a JSON snapshot each refresh; prometheus (its own port, a
# private data directory, a 1 s scrape interval) scrapes it. After two
# scrapes its HTTP API (/api/v1/query) is asked for one scrape's samples:
# the refresh they were taken at names the JSON snapshot of that same
# refresh, and each event's count there (the snapshot's records of that
# event added up), the run's count and losses are the scrape's, exactly;
# the top stack's labels are the snapshot's: its key, its hits, and its
# leaf function (its first frame past the tracing machinery).
. "$(dirname "$0")/lib.sh"
command -v prometheus > /dev/null || fail "prometheus is not installed (scripts/deps.sh installs it)"
command -v curl > /dev/null || fail "curl is not installed"

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start_workload
"$STACKTOP" --serve 127.0.0.1:0 -b -d 1 --format json -e sched:sched_switch \
	-e sched:sched_wakeup > "$WORK/snaps.json" 2> "$WORK/err" &
ST_PID=$!
EXTRA_PIDS="$ST_PID"
wait_for "$WORK/err" "serving http://127.0.0.1:" 100 || { cat "$WORK/err"; fail "stacktop did not say where it serves"; }
PORT=$(sed -n 's|.*serving http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$WORK/err")
[ -n "$PORT" ] && [ "$PORT" != 0 ] || fail "no port in: $(cat "$WORK/err")"

PROM_PORT=$(free_port)
cat > "$WORK/prom.yml" << EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: stacktop
    static_configs:
      - targets: ['127.0.0.1:$PORT']
EOF
prometheus --config.file="$WORK/prom.yml" --storage.tsdb.path="$WORK/tsdb" \
	--web.listen-address="127.0.0.1:$PROM_PORT" > "$WORK/prom.log" 2>&1 &
PROM_PID=$!
EXTRA_PIDS="$PROM_PID $ST_PID"

# two scrapes of stacktop (bounded: 60 s)
query() { # query PROMQL [TIME]: an instant query, at TIME (the API's time=) if given
	curl -s -m 5 --get "http://127.0.0.1:$PROM_PORT/api/v1/query" --data-urlencode "query=$1" \
		${2:+--data-urlencode "time=$2"}
}
tries=600
while [ $tries -gt 0 ]; do
	n=$(query 'count_over_time(stacktop_refresh[5m])' 2> /dev/null |
		python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)' 2> /dev/null)
	[ "${n:-0}" -ge 2 ] 2> /dev/null && break
	kill -0 $ST_PID 2> /dev/null || { cat "$WORK/err"; fail "stacktop ended"; }
	kill -0 $PROM_PID 2> /dev/null || { tail -5 "$WORK/prom.log"; fail "prometheus ended"; }
	sleep 0.1
	tries=$((tries - 1))
done
[ $tries -gt 0 ] || { tail -5 "$WORK/prom.log"; fail "prometheus did not scrape stacktop twice in 60 s"; }

# one scrape's samples: every series of one timestamp (the instant query's last scrape)
# the last scrape's time (its samples' timestamp), then every query at it
query 'timestamp(stacktop_refresh)' > "$WORK/q0.json"
at=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["data"]["result"][0]["value"][1])' "$WORK/q0.json") ||
	fail "no answer from prometheus: $(cat "$WORK/q0.json")"
SEL='{__name__=~"stacktop_refresh|stacktop_event_hits_total|stacktop_events_total|stacktop_lost_total"}'
query "$SEL" "$at" > "$WORK/q1.json"
# (timestamp() drops the names: one query a family)
for f in stacktop_refresh stacktop_event_hits_total stacktop_events_total stacktop_lost_total; do
	query "timestamp($f)" "$at" > "$WORK/q1t.$f.json"
done
query 'topk(1, stacktop_stack_hits_total)' "$at" > "$WORK/q2.json"
query 'up{job="stacktop"}' "$at" > "$WORK/q3.json"
# the snapshot of that refresh is written a moment after the copy: wait for it
sleep 1.5
python3 - "$WORK/q1.json" "$WORK/q2.json" "$WORK/q3.json" "$WORK/snaps.json" "$WORK"/q1t.*.json << 'PY' || fail "prometheus's figures are not stacktop's"
import json, sys
for p in sys.argv[1:4] + sys.argv[5:]:
    if json.load(open(p)).get("status") != "success":
        sys.exit("prometheus: %s: %s" % (p, open(p).read()[:300]))
q1, q2, q3 = (json.load(open(p))["data"]["result"] for p in sys.argv[1:4])
snaps = {}
for line in open(sys.argv[4]):
    if not line.endswith("\n"):
        break  # the refresh being written
    if line.strip():
        d = json.loads(line)
        snaps[d["iteration"]] = d
assert q3 and q3[0]["value"][1] == "1", "target not up: %s" % q3
byname = {}
for r in q1:
    byname.setdefault(r["metric"]["__name__"], []).append(r)
# every sample's own timestamp: one scrape's
ts = set(r["value"][1] for p in sys.argv[5:] for r in json.load(open(p))["data"]["result"])
refresh = int(byname["stacktop_refresh"][0]["value"][1])
print("prometheus: refresh %d, timestamps %s" % (refresh, sorted(ts)))
assert len(ts) == 1, "the samples are not of one scrape: %s" % ts
# refresh 0 is the copy before the first refresh, which no snapshot is of
if refresh == 0:
    sys.exit("the scrape read the copy before the first refresh; the wait for two scrapes is too short")
assert refresh in snaps, "no snapshot of refresh %d (have %s)" % (refresh, sorted(snaps)[-3:])
snap = snaps[refresh]
want = {}
for s in snap["stacks"]:
    for b in s["by"]:
        want[b["event"]] = want.get(b["event"], 0) + b["total"]
got = {r["metric"]["event"]: int(r["value"][1]) for r in byname["stacktop_event_hits_total"]}
print("events: prometheus %s, snapshot %s" % (got, want))
assert set(got) == set(snap["events"]), (got, snap["events"])
for ev in snap["events"]:
    assert got[ev] == want.get(ev, 0), "%s: prometheus %d, stacktop %d" % (ev, got[ev], want.get(ev, 0))
assert sum(got.values()) > 0, "no event counted"
total = int(byname["stacktop_events_total"][0]["value"][1])
assert total == snap["hits"], "events: prometheus %d, stacktop %d" % (total, snap["hits"])
lost = int(byname["stacktop_lost_total"][0]["value"][1])
assert lost == snap["lost"], "lost: prometheus %d, stacktop %d" % (lost, snap["lost"])
# the top stack: the snapshot's stack of most hits (its key), its leaf
assert len(q2) == 1, q2
top = q2[0]["metric"]
hits = int(q2[0]["value"][1])
best = max(snap["stacks"], key=lambda s: (s["total"], s["key"]))
bykey = {s["key"]: s for s in snap["stacks"]}
assert top["stack"] in bykey, "top stack %s not in the snapshot" % top["stack"]
mine = bykey[top["stack"]]
assert mine["total"] == hits and hits == best["total"], \
    "top stack: prometheus %d hits, the snapshot %d (its best %d)" % (hits, mine["total"], best["total"])
machinery = ("trace_event_raw_event_", "__traceiter_", "trace_", "__trace_", "ftrace_", "perf_trace_")
leaf = None
for sym in mine["symbols"]:
    name = sym.split("+")[0]
    if not name.startswith(machinery):
        leaf = name
        break
print("top stack %s: %d hits, leaf %s (the snapshot's %s), path %s" % (top["stack"], hits, top["leaf"], leaf, top.get("path")))
assert top["leaf"] == leaf, "leaf label %r, the snapshot's leaf %r" % (top["leaf"], leaf)
assert top.get("path", "").startswith(leaf), top
PY
kill "$ST_PID"
wait "$ST_PID"
st=$?
[ $st = 0 ] || { cat "$WORK/err"; fail "stacktop exited $st on SIGTERM"; }
no_instance_of "$ST_PID"
echo "PASS: prometheus's scrape agrees with stacktop's snapshot of the same refresh"
