#!/bin/sh
# selfexcl.sh - issue 20's self-exclusion on the real stackmap kernel (RFC
# v4 on 6.12, in qemu):
#
#   /work/shared/rfc-kernel/run-in-vm.sh bzImage-stackmap selfexcl.sh stacktop
#
# The user's set-up: the function tracer with func_stack_trace at the top
# level on vfs_*, *lookup*, kfree, mutex_lock (173 functions on this
# tinyconfig; set while the tracer is nop) and a workload through them.
# stacktop -b -d 3 -n 4 runs twice: with --show-self (stacktop's own read()s
# are traced: the feedback of the issue) and without (its pid in the notrace
# lists). Printed per refresh: hits in the interval, the map's successes in
# the same interval, self cpu. Checked without --show-self: from the second
# refresh on, hits are within 5% of the map's successes; the user's notrace
# lists (a planted pid) are as before afterwards. Exit 0 when both hold.
T=/sys/kernel/tracing
BIN=${BIN:-/test/stacktop}
fails=0
cd $T || exit 1
echo 0 > tracing_on
echo nop > current_tracer
: > set_ftrace_filter
for g in 'vfs_*' '*lookup*' kfree mutex_lock; do echo "$g" >> set_ftrace_filter 2>/dev/null; done
echo "filter: $(grep -c . set_ftrace_filter) functions"
echo 1 > options/func_stack_trace
echo 4242 > set_event_notrace_pid
cat set_event_notrace_pid set_ftrace_notrace_pid > /tmp/before
echo function > current_tracer
echo 1 > tracing_on
( while :; do ls -l /proc/self/ /sys/kernel/tracing >/dev/null 2>&1; cat /proc/meminfo >/dev/null; done ) &
W=$!

# refresh N: hits +H, map successes +S (H/S), self cpu C
per_refresh() {
	awk '/^hits:/ { split($0, h, /, | in interval/); hd = h[2]; c = $0; sub(/.*self cpu /, "", c) }
	     /^stack map:/ { match($0, /successes [0-9]+/); su = substr($0, RSTART + 10, RLENGTH - 10)
		n++; d = su - s; printf "refresh %d: hits +%s, map successes +%d (%.3f), self cpu %s\n", n, hd, d, d ? hd / d : 0, c
		s = su }' "$1"
}

for run in show-self excluded; do
	echo 0 > stack_map 2>/dev/null || { echo 0 > tracing_on; echo 0 > stack_map; echo 1 > tracing_on; }
	opt=
	[ $run = show-self ] && opt=--show-self
	$BIN -b -d 3 -n 4 --top 5 --expand 0 --mode stackmap $opt > /tmp/$run.txt 2>/tmp/$run.err
	echo "== $run (rc $?)"
	head -c 300 /tmp/$run.err
	per_refresh /tmp/$run.txt | tee /tmp/$run.ratios
done
kill $W
awk 'NR > 1 { split($0, a, /[()]/); r = a[2] + 0; if (r < 0.95 || r > 1.05) bad = 1 } END { exit bad }' /tmp/excluded.ratios &&
	echo "ok: hits track the map's successes" || { echo "FAIL: hits do not track the map's successes"; fails=1; }
cat set_event_notrace_pid set_ftrace_notrace_pid > /tmp/after
cmp -s /tmp/before /tmp/after && echo "ok: the user's notrace lists as before" ||
	{ echo "FAIL: notrace lists: $(tr '\n' ' ' < /tmp/after)"; fails=1; }
echo 0 > tracing_on
echo nop > current_tracer
exit $fails
