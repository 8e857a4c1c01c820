#!/bin/sh
# What --serve's scrapes cost the collection (issue 39, doc/performance.md
# "--serve"): the FUSE simulator writes stack_id events of 10^4 distinct
# stacks (--stacks 10000) on CPUS CPUs at RATE events/s each, and
# stacktop reads them in stackmap mode (-b --json -n 2 -d SECONDS) in
# three ways, one after the other, ROUNDS times (side by side in time):
#   plain     no --serve
#   served    --serve, nothing asks
#   scraped   --serve, 4 scrapers each asking /metrics every 50 ms, and one
#             /debug/pprof/profile?seconds=1 after another
# Printed for each: what the simulator's truth says was lost, what stacktop
# says it lost (lost + overrun), its CPU (% of one core over the run), and
# for "scraped" the scrapes answered and their time (median, slowest), the
# profiles and their size.
#
# Run as root:  bench/serve-cost.sh BUILD_DIR [SECONDS [RATE [CPUS [ROUNDS]]]]
#   defaults:   build-rel 4 100000 2 3
set -eu
B=${1:-build-rel}
S=${2:-4}
R=${3:-100000}
C=${4:-2}
N=${5:-3}
SIM=$B/tests/sim/stackmap-sim
ST=$B/stacktop
[ -x "$SIM" ] && [ -x "$ST" ] || { echo "serve-cost.sh: build $B first" >&2; exit 1; }
W=$(mktemp -d /tmp/stacktop-servecost.XXXXXX)
SP=
cleanup() {
	[ -z "$SP" ] || { kill "$SP" 2>/dev/null || true; wait "$SP" 2>/dev/null || true; }
	fusermount3 -u -q "$W/t" 2>/dev/null || true
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

run() { # run KIND: one run of stacktop on a fresh simulator; a table row
	kind=$1
	mkdir -p "$W/t"
	"$SIM" "$W/t" --abi v4 --cpus "$C" --rate "$R" --stacks 10000 --bits 15 \
		--kallsyms-out "$W/ks" > "$W/sim.log" 2>&1 &
	SP=$!
	i=0
	while [ ! -e "$W/t/tracing_on" ] && [ $i -lt 500 ]; do sleep 0.01; i=$((i + 1)); done
	serve=
	[ "$kind" = plain ] || serve="--serve 127.0.0.1:0"
	python3 - "$kind" "$W" "$S" "$ST" $serve -b --json -n 2 -d "$S" --top 1 --tracefs "$W/t" \
		--kallsyms "$W/ks" --rundir "$W" << 'PY'
import json, resource, re, statistics, subprocess, sys, threading, time, urllib.request
kind, w, secs, argv = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4:]
err = open(w + "/err", "w+")
p = subprocess.Popen(argv, stdout=open(w + "/out", "w"), stderr=err)
times, profiles, stop = [], [], threading.Event()
def scraper(url):
    while not stop.is_set():
        t0 = time.monotonic()
        try:
            body = urllib.request.urlopen(url + "metrics", timeout=5).read()
            times.append(time.monotonic() - t0)
        except Exception as e:
            times.append(float("inf"))
        time.sleep(0.05)
def profiler(url):
    while not stop.is_set():
        try:
            body = urllib.request.urlopen(url + "debug/pprof/profile?seconds=1", timeout=10).read()
            profiles.append(len(body))
        except Exception:
            profiles.append(-1)
threads = []
if kind == "scraped":
    url = None
    for _ in range(500):
        err.seek(0)
        m = re.search(r"serving (http://\S+)", err.read())
        if m:
            url = m.group(1)
            break
        time.sleep(0.01)
    assert url, "no server"
    threads = [threading.Thread(target=scraper, args=(url,)) for _ in range(4)]
    threads.append(threading.Thread(target=profiler, args=(url,)))
    for t in threads:
        t.start()
p.wait()
stop.set()
for t in threads:
    t.join()
r = resource.getrusage(resource.RUSAGE_CHILDREN)
open(w + "/cpu", "w").write("%.3f" % (r.ru_utime + r.ru_stime))
open(w + "/scrapes", "w").write(json.dumps({"times": times, "profiles": profiles}))
PY
	awk '!/^#/ && $1 == "top" { w += $4; rd += $5; l += $6 } END { print w, rd, l }' "$W/t/.sim/truth" > "$W/truth"
	tail -n 1 "$W/out" > "$W/last"
	python3 - "$kind" "$W" "$S" << 'PY'
import json, statistics, sys
kind, w, secs = sys.argv[1], sys.argv[2], float(sys.argv[3])
j = json.load(open(w + "/last"))
wr, rd, lost = open(w + "/truth").read().split()
cpu = float(open(w + "/cpu").read())
sc = json.load(open(w + "/scrapes"))
t = sorted(sc["times"])
if t:
    ok = [x for x in t if x != float("inf")]
    scr = "%d (%d failed), %.1f ms median, %.1f ms slowest" % (len(t), len(t) - len(ok),
        1000 * statistics.median(ok), 1000 * max(ok))
    pr = [x for x in sc["profiles"] if x > 0]
    scr += "; %d profiles of %d KB" % (len(pr), (sum(pr) // max(len(pr), 1)) // 1024)
else:
    scr = "-"
print("| %s | %s | %s | %d+%d | %.1f%% | %d | %s |" % (kind, wr, lost, j["lost"], j["overrun"],
      100 * cpu / (2 * secs), j["unique"], scr))
PY
	kill "$SP"
	wait "$SP" 2>/dev/null || true
	SP=
	fusermount3 -u -q "$W/t" 2>/dev/null || true
}

echo "$N rounds, $C CPUs at $R events/s each, 10^4 stacks, 2 x $S s a run"
echo
echo "| run | written (truth) | lost (truth) | stacktop lost+overrun | stacktop CPU | stacks | scrapes |"
echo "|---|---|---|---|---|---|---|"
k=0
while [ $k -lt "$N" ]; do
	run plain
	run served
	run scraped
	k=$((k + 1))
done
