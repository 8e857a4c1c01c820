#!/bin/sh
# The simulator's event rate at which stacktop starts losing events
# (issue 13, doc/performance.md). For each rate (events/s per simulated CPU)
# the simulator generates stack_id-carrying events on CPUS CPUs and stacktop
# (-b --json, stackmap mode) reads them for SECONDS; printed: the rate asked,
# the events the simulator's truth says were written, read and lost, and what
# stacktop reports (hits, lost and of them overrun, both in events: the
# kernel counts records, two an event, and stacktop turns them into events),
# and the CPU (% of one core over the run's 2 x
# SECONDS) of stacktop and of the simulator (generating and serving reads).
#
# Run as root:  bench/sim-loss.sh BUILD_DIR [SECONDS [CPUS [RATES...]]]
#   defaults:   build-rel 4 2 100000 250000 500000 1000000
# Needs /dev/fuse; mounts under a private temporary directory.
set -eu
B=${1:-build-rel}
S=${2:-4}
C=${3:-2}
shift $(($# < 3 ? $# : 3))
RATES=${*:-100000 250000 500000 1000000}
SIM=$B/tests/sim/stackmap-sim
ST=$B/stacktop
[ -x "$SIM" ] && [ -x "$ST" ] || { echo "sim-loss.sh: build $B first" >&2; exit 1; }
W=$(mktemp -d /tmp/stacktop-simloss.XXXXXX)
SP=
cleanup() {
	[ -z "$SP" ] || { kill "$SP" 2>/dev/null || true; wait "$SP" 2>/dev/null || true; }
	fusermount3 -u -q "$W/t" 2>/dev/null || true
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
echo "| rate asked (per CPU) | written | read | lost (truth) | stacktop hits | stacktop lost (overrun) | stacktop CPU | simulator CPU |"
echo "|---|---|---|---|---|---|---|---|"
for r in $RATES; do
	mkdir -p "$W/t"
	"$SIM" "$W/t" --abi v4 --cpus "$C" --rate "$r" --kallsyms-out "$W/ks" > "$W/sim.log" 2>&1 &
	SP=$!
	i=0
	while [ ! -e "$W/t/tracing_on" ] && [ $i -lt 500 ]; do sleep 0.01; i=$((i + 1)); done
	# stacktop's CPU time (user + system) from its rusage
	python3 -c '
import resource, subprocess, sys
with open(sys.argv[1], "w") as o, open(sys.argv[2], "w") as e:
    subprocess.run(sys.argv[4:], stdout=o, stderr=e)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[3], "w").write("%.2f" % (r.ru_utime + r.ru_stime))
' "$W/out" "$W/err" "$W/cpu" "$ST" -b --json -n 2 -d "$S" --top 1 --tracefs "$W/t" \
		--kallsyms "$W/ks" --rundir "$W"
	simcpu=$(awk -v hz="$(getconf CLK_TCK)" '{printf "%.2f", ($14 + $15) / hz}' "/proc/$SP/stat")
	tail -n 1 "$W/out" > "$W/last"
	awk '!/^#/ && $1 == "top" { w += $4; rd += $5; l += $6 } END { print w, rd, l }' "$W/t/.sim/truth" > "$W/truth"
	python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
w, rd, l = open(sys.argv[2]).read().split()
print("| %s | %s | %s | %s | %d | %d (%d) | %.0f%% | %.0f%% |" % (sys.argv[3], w, rd, l, j["hits"],
      j["lost"], j["overrun"], 100 * float(sys.argv[4]) / (2 * float(sys.argv[6])),
      100 * float(sys.argv[5]) / (2 * float(sys.argv[6]))))
' "$W/last" "$W/truth" "$r" "$(cat "$W/cpu")" "$simcpu" "$S"
	kill "$SP"; wait "$SP" 2>/dev/null || true
	SP=
	fusermount3 -u -q "$W/t" 2>/dev/null || true
done
