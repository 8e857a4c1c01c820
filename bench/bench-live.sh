#!/bin/sh
# stacktop's own CPU on the live kernel against merely draining the same
# per-CPU raw buffers into /dev/null, under the same workload and events.
# Run as root:  bench/bench-live.sh BUILD_DIR [SECONDS]
set -eu
B=${1:?build dir}
S=${2:-10}
T=/sys/kernel/tracing
ST=$B/stacktop

workload() {
	# a steady stream of context switches: two processes ping-pong over pipes
	python3 -c '
import os, time
r1, w1 = os.pipe(); r2, w2 = os.pipe()
if os.fork() == 0:
    while True:
        os.read(r1, 1); os.write(w2, b"x")
end = time.time() + float(os.environ["S"]) + 2
while time.time() < end:
    os.write(w1, b"x"); os.read(r2, 1)
' &
	WL=$!
}

cpu_of() { # pid -> utime+stime in clock ticks
	awk '{print $14 + $15}' "/proc/$1/stat"
}

export S
workload
sleep 0.5
# 1. stacktop itself
"$ST" -b -d "$S" -n 1 -e sched:sched_switch --top 5 --expand 0 > /tmp/bench-live.out &
P=$!
sleep "$S"
sleep 0.3
wait $P || true
events=$(sed -n 's/^hits: \([0-9]*\) total.*/\1/p' /tmp/bench-live.out)
st_ticks=$(sed -n 's/.*self cpu \([0-9.]*\)%.*/\1/p' /tmp/bench-live.out)
kill $WL 2>/dev/null || true
wait $WL 2>/dev/null || true

# 2. drain only: the same instance setup, cat per CPU into /dev/null
workload
sleep 0.5
I=$T/instances/bench-drain.$$
mkdir "$I"
trap 'rmdir "$I" 2>/dev/null || true' EXIT
echo 1 > "$I/options/stacktrace"
echo 1 > "$I/events/sched/sched_switch/enable"
pids=
for c in "$I"/per_cpu/cpu*; do
	cat "$c/trace_pipe_raw" > /dev/null &
	pids="$pids $!"
done
sleep 0.2
t0=0
for p in $pids; do t0=$((t0 + $(cpu_of "$p" 2>/dev/null || echo 0))); done
sleep "$((S - 1))"
t1=0
for p in $pids; do t1=$((t1 + $(cpu_of "$p" 2>/dev/null || echo 0))); done
kill $pids 2>/dev/null || true
wait $pids 2>/dev/null || true
echo 0 > "$I/tracing_on"
kill $WL 2>/dev/null || true
wait $WL 2>/dev/null || true
hz=$(getconf CLK_TCK)
echo "events counted by stacktop: $events in ${S}s ($((events / S))/s)"
echo "stacktop self cpu (its own header): ${st_ticks}%"
echo "drain-only cpu (cat trace_pipe_raw > /dev/null, all CPUs): $(( (t1 - t0) * 100 / hz / (S - 1) )).$(( ((t1 - t0) * 1000 / hz / (S - 1)) % 10 ))%"
