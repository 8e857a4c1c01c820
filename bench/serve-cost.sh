#!/bin/sh
# What --serve's scrapes cost the collection (issue 39, doc/performance.md
# "--serve"): the FUSE simulator writes stack_id events of 10^4 distinct
# stacks (--stacks 25000, about 10^4 of them hit) on CPUS CPUs at RATE
# events/s each into per-CPU buffers of BUFKB KiB, and stacktop reads them
# in stackmap mode (-b -d 1 -n SECONDS, the text report of the top stack:
# a report that costs the collector next to nothing, so that what the
# scrapes cost shows) in five ways, one after the other, ROUNDS times
# (interleaved: side by side in time; "stacks" is how many distinct ones
# the run counted):
#   plain     no --serve
#   prom      --serve, one /metrics a second (Prometheus's fastest usual
#             interval; the copy it is written from taken at each refresh:
#             -d 1)
#   metrics   --serve, 4 scrapers each asking /metrics every 50 ms
#   profiles  the same, and /debug/pprof/profile?seconds=1 one after
#             another (the worst case: Parca and Alloy ask one every 15 s)
#   profiles4 the same with 4 profile scrapers, each asking one after another
# Printed for each: what the simulator's truth says was lost, what stacktop
# says it lost (lost + overrun), its CPU (% of one core over the run, the
# server's thread included), the distinct stacks it counted, and with
# scrapers the scrapes answered and their time (median, slowest), the
# profiles and their size, and the collector's own time on the server's
# behalf (stacktop_serve_collector_seconds_total at the last scrape: the
# copies, the windows opened, the profiles' copies) and that time a
# profile; where the build counts them apart, the profiles' part alone,
# the collector's CPU, and the server's thread's CPU writing the profiles.
# KINDS="plain profiles4 ..." chooses the runs of a round; a kind ending
# in "-old" ("profiles4-old") runs the stacktop OLD_ST names instead (an
# older build: before and after, interleaved on the same load).
#
# Run as root:  bench/serve-cost.sh BUILD_DIR [SECONDS [RATE [CPUS [ROUNDS [STACKS [BUFKB]]]]]]
#   defaults:   build-rel 4 20000 2 3 25000 1408 (the simulator's stacks, drawn
#               unevenly: about 10^4 of them are hit in a run; its buffer size)
set -eu
B=${1:-build-rel}
S=${2:-4}
R=${3:-20000}
C=${4:-2}
N=${5:-3}
K=${6:-25000}
KB=${7:-1408}
SIM=$B/tests/sim/stackmap-sim
ST=${ST:-$B/stacktop}
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
	label=$1
	kind=${1%-old}
	st=$ST
	[ "$kind" = "$label" ] || st=${OLD_ST:?"OLD_ST=BINARY for the -old runs"}
	mkdir -p "$W/t"
	"$SIM" "$W/t" --abi v4 --cpus "$C" --rate "$R" --stacks "$K" --bits 16 --buffer-kb "$KB" \
		--kallsyms-out "$W/ks" > "$W/sim.log" 2>&1 &
	SP=$!
	i=0
	while [ ! -e "$W/t/tracing_on" ] && [ $i -lt 3000 ]; do sleep 0.01; i=$((i + 1)); done
	serve=
	[ "$kind" = plain ] || serve="--serve 127.0.0.1:0"
	python3 - "$kind" "$W" "$S" "$st" $serve -b -n "$S" -d 1 --top 1 --tracefs "$W/t" \
		--kallsyms "$W/ks" --rundir "$W" << 'PY'
import json, resource, re, statistics, subprocess, sys, threading, time, urllib.request
kind, w, secs, argv = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4:]
err = open(w + "/err", "w+")
p = subprocess.Popen(argv, stdout=open(w + "/out", "w"), stderr=err)
times, profiles, failed, stop = [], [], [], threading.Event()
fig = {}
def scraper(url, every):
    while not stop.is_set():
        t0 = time.monotonic()
        try:
            body = urllib.request.urlopen(url + "metrics", timeout=5).read()
            times.append(time.monotonic() - t0)
            for line in body.decode().splitlines():
                if line.startswith("stacktop_serve_"):
                    k, v = line.rsplit(" ", 1)
                    fig[k] = float(v)
        except Exception as e:
            if p.poll() is None:  # not the end of the run
                failed.append(time.monotonic())
        time.sleep(every)
def profiler(url):
    while not stop.is_set():
        try:
            body = urllib.request.urlopen(url + "debug/pprof/profile?seconds=1", timeout=10).read()
            profiles.append(len(body))
        except Exception:
            if p.poll() is None:
                profiles.append(-1)
threads = []
if kind in ("prom", "metrics", "profiles", "profiles4"):
    url = None
    for _ in range(3000):
        err.seek(0)
        m = re.search(r"serving (http://\S+)", err.read())
        if m:
            url = m.group(1)
            break
        time.sleep(0.01)
    assert url, "no server"
    if kind == "prom":
        threads = [threading.Thread(target=scraper, args=(url, 1.0))]
    else:
        threads = [threading.Thread(target=scraper, args=(url, 0.05)) for _ in range(4)]
    for _ in range({"profiles": 1, "profiles4": 4}.get(kind, 0)):
        threads.append(threading.Thread(target=profiler, args=(url,)))
    for t in threads:
        t.start()
p.wait()
# refused once the run stops (the server stops first, then the last refresh): not failures
end = time.monotonic() - 1.0
times += [float("inf") for t in failed if t < end]
stop.set()
for t in threads:
    t.join()
r = resource.getrusage(resource.RUSAGE_CHILDREN)
open(w + "/cpu", "w").write("%.3f" % (r.ru_utime + r.ru_stime))
open(w + "/scrapes", "w").write(json.dumps({"times": times, "profiles": profiles, "fig": fig}))
PY
	awk '!/^#/ && $1 == "top" { w += $4; rd += $5; l += $6 } END { print w, rd, l }' "$W/t/.sim/truth" > "$W/truth"
	# the last report's header: its "hits:" line
	grep '^hits: ' "$W/out" | tail -n 1 > "$W/last"
	[ -s "$W/last" ] || { cat "$W/err" "$W/sim.log" >&2; exit 1; }
	python3 - "$label" "$W" "$S" << 'PY'
import json, re, statistics, sys
kind, w, secs = sys.argv[1], sys.argv[2], float(sys.argv[3])
head = open(w + "/last").read()
j = {"unique": int(re.search(r"stacks: (\d+) unique", head).group(1)),
     "lost": int(re.search(r"lost: (\d+)", head).group(1)),
     "overrun": int(re.search(r"overrun: (\d+)", head).group(1))}
wr, rd, lost = open(w + "/truth").read().split()
cpu = float(open(w + "/cpu").read())
sc = json.load(open(w + "/scrapes"))
t = sorted(sc["times"])
if t:
    ok = [x for x in t if x != float("inf")]
    scr = "%d (%d failed), %.1f ms median, %.1f ms slowest" % (len(t), len(t) - len(ok),
        1000 * statistics.median(ok), 1000 * max(ok))
    pr = [x for x in sc["profiles"] if x > 0]
    if pr:
        scr += "; %d profiles of %d KB" % (len(pr), (sum(pr) // len(pr)) // 1024)
    f = sc["fig"]
    if f:
        g = lambda k: f.get("stacktop_serve_" + k, 0)
        scr += "; collector: %.1f ms on %d copies, %d profiles (%.2f%% of the run)" % (
            1000 * g("collector_seconds_total"), g("copies_total"), g("profiles_total"),
            100 * g("collector_seconds_total") / secs)
        np = g("profiles_total")
        if np and "stacktop_serve_profile_seconds_total" in f:
            # the profiles' part, counted apart (a build that writes them from a copy)
            scr += "; %.1f ms a profile (%.1f ms CPU of the collector's thread in all)" % (
                1000 * g("profile_seconds_total") / np, 1000 * g("collector_cpu_seconds_total"))
        elif np:
            # an older build: the copies' time included (a few ms), an upper bound
            scr += "; <= %.1f ms a profile" % (1000 * g("collector_seconds_total") / np)
        if "stacktop_serve_writer_cpu_seconds_total" in f:
            scr += "; the server's thread writing them: %.1f ms CPU a profile" % (
                1000 * g("writer_cpu_seconds_total") / max(np, 1))
else:
    scr = "-"
print("| %s | %s | %s | %d+%d | %.1f%% | %d | %s |" % (kind, wr, lost, j["lost"], j["overrun"],
      100 * cpu / secs, j["unique"], scr))
PY
	kill "$SP"
	wait "$SP" 2>/dev/null || true
	SP=
	fusermount3 -u -q "$W/t" 2>/dev/null || true
}

echo "$N rounds, $C CPUs at $R events/s each into $KB KiB buffers, $K stacks in the simulator, $S s a run"
echo
echo "| run | written (truth) | lost (truth) | stacktop lost+overrun | stacktop CPU | stacks | scrapes |"
echo "|---|---|---|---|---|---|---|"
k=0
while [ $k -lt "$N" ]; do
	for kind in ${KINDS:-plain prom metrics profiles profiles4}; do
		run "$kind"
	done
	k=$((k + 1))
done
