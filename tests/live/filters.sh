#!/bin/sh
# -p and -C narrow what is counted; globs pick several events; --folded prints
# flame-graph input.
. "$(dirname "$0")/lib.sh"

start_workload
"$STACKTOP" -b -n 1 -d 1 -p "$WORKLOAD_PID" --top 50 --expand 0 > "$WORK/pid" 2>&1 ||
	fail "stacktop -p failed"
cat "$WORK/pid"
rows=$(grep -Ec '^ +[0-9]+ +- ' "$WORK/pid")
[ "$rows" -gt 0 ] || fail "no rows for the workload pid"
others=$(grep -E '^ +[0-9]+ +- ' "$WORK/pid" | grep -vc "/$WORKLOAD_PID ")
[ "$others" = 0 ] || fail "-p $WORKLOAD_PID shows other pids"

"$STACKTOP" -b -n 1 -d 1 -e 'sched:sched_wak*' -e sched:sched_switch --top 50 --expand 0 \
	> "$WORK/glob" 2>&1 || fail "glob run failed"
grep -q 'sched:sched_waking\|sched:sched_wakeup' "$WORK/glob" || fail "glob did not enable sched_wak*"

"$STACKTOP" -b -n 1 -d 1 --folded > "$WORK/folded" 2>&1 || fail "--folded failed"
grep -Eq '^[^ ]+_\[k\](;[^ ]+_\[k\])* [0-9]+$' "$WORK/folded" || fail "no folded line"
grep -q '__schedule_\[k\]' "$WORK/folded" || fail "folded lacks __schedule"

"$STACKTOP" -b -n 1 -d 0.5 -C 0 --top 50 --expand 0 > "$WORK/cpu" 2>&1 || fail "-C 0 failed"
grep -q '^hits: [1-9]' "$WORK/cpu" || fail "-C 0 counted nothing"
# every hit counted under -C N is from CPU N (the JSON names each hit's CPU);
# a sleeper pinned to each CPU makes sure the other CPUs have events to leave out
cpu=$(($(nproc) - 1))
pinned=
if command -v taskset > /dev/null && [ "$cpu" -gt 0 ]; then
	for c in $(seq 0 "$cpu"); do
		taskset -c "$c" sh -c 'while :; do sleep 0.01; done' &
		pinned="$pinned $!"
	done
fi
"$STACKTOP" -n 1 -d 0.5 -C "$cpu" --json --top 100000 > "$WORK/cpujson" 2> "$WORK/cpuerr"
rc=$?
"$STACKTOP" -n 1 -d 0.5 --json --top 100000 > "$WORK/alljson" 2>> "$WORK/cpuerr"
rc2=$?
for p in $pinned; do kill "$p"; wait "$p" 2> /dev/null; done
[ $rc = 0 ] && [ $rc2 = 0 ] || { cat "$WORK/cpuerr"; fail "--json runs failed"; }
python3 -c '
import json, sys
want = int(sys.argv[3])
cpus = {b["cpu"] for s in json.load(open(sys.argv[1]))["stacks"] for b in s["by"]}
assert cpus == {want}, ("-C %d counted CPUs %s" % (want, sorted(cpus)))
if want > 0:
    every = {b["cpu"] for s in json.load(open(sys.argv[2]))["stacks"] for b in s["by"]}
    assert len(every) > 1, ("without -C only CPUs %s: the check above proves nothing" % sorted(every))
' "$WORK/cpujson" "$WORK/alljson" "$cpu" || fail "-C $cpu is not obeyed"
# stacktop's own events (its reads of tracefs allocate) stay out unless asked for
# (other stacktops may be running: look for this one's pid)
"$STACKTOP" -b -n 2 -d 0.5 -e kmem:kmalloc --top 1000 --expand 0 > "$WORK/self" 2>&1 &
me=$!
wait $me || fail "kmalloc run failed"
grep -E '^ +[0-9]+ +- ' "$WORK/self" | grep -q " stacktop/$me " && fail "stacktop's own events shown"
"$STACKTOP" -b -n 2 -d 0.5 -e kmem:kmalloc --top 1000 --expand 0 --show-self > "$WORK/self2" 2>&1 &
me=$!
wait $me || fail "--show-self run failed"
grep -E '^ +[0-9]+ +- ' "$WORK/self2" | grep -q " stacktop/$me " || fail "--show-self hides stacktop"
# the same for every thread of it: sched_switch, where a thread that wakes
# on its own (the signals' watchdog once polled ten times a second) would
# rank as stacktop's own row
"$STACKTOP" -b -n 3 -d 0.5 --json --top 100000 > "$WORK/selfthreads" 2> "$WORK/selfthreads.err" &
me=$!
sleep 0.5
ls "/proc/$me/task" > "$WORK/selftids" 2>/dev/null
wait $me || fail "sched_switch run failed: $(cat "$WORK/selfthreads.err")"
[ "$(wc -l < "$WORK/selftids")" -ge 2 ] || fail "stacktop has no second thread to look for: $(cat "$WORK/selftids")"
python3 -c '
import json, sys
tids = {int(t) for t in open(sys.argv[2]).read().split()}
seen = set()
for l in open(sys.argv[1]):
    if l.startswith("{"):
        for s in json.loads(l)["stacks"]:
            seen |= {b["pid"] for b in s["by"]}
assert not (tids & seen), ("stacktop threads counted", sorted(tids & seen))
' "$WORK/selfthreads" "$WORK/selftids" || fail "a thread of stacktop is counted in its own sched_switch view"

# the processes stacktop forks to read users' files for -u (stacktop-files:
# the zygote and each reader, not its children: a double fork) are stacktop
# too: no row of theirs without --show-self, theirs with it (not void)
helper_rows() { # $1: extra option or "", $2: name
	# shellcheck disable=SC2086 # $1: no option or one
	"$STACKTOP" -b -n 3 -d 0.5 -u $1 --json --top 100000 > "$WORK/$2" 2> "$WORK/$2.err" &
	me=$!
	python3 "$(dirname "$0")/helpers.py" "$me" "$WORK/$2.pids"
	wait $me || fail "-u $1 run failed: $(tail -3 "$WORK/$2.err")"
	[ "$(wc -w < "$WORK/$2.pids")" -ge 1 ] ||
		fail "-u $1: no stacktop-files process found to look for"
	python3 -c '
import json, sys
helpers = {int(t) for t in open(sys.argv[2]).read().split()}
seen = set()
for l in open(sys.argv[1]):
    if l.startswith("{"):
        for s in json.loads(l)["stacks"]:
            seen |= {b["pid"] for b in s["by"]}
print(sys.argv[3], "helpers", sorted(helpers), "counted", sorted(helpers & seen))
sys.exit(3 if helpers & seen else 0)
' "$WORK/$2" "$WORK/$2.pids" "$2"
}
r=0
helper_rows "" helpers || r=$?
[ "$r" = 0 ] || fail "a stacktop-files process of stacktop is counted without --show-self ($r)"
r=0
helper_rows --show-self helpers-self || r=$?
[ "$r" = 3 ] || fail "--show-self hides stacktop's stacktop-files processes ($r)"
echo "ok: filters"
