#!/bin/sh
# Command names: a process cannot rename another pid on stacktop's output by
# putting a newline in its own name (saved_cmdlines is one entry a line; issue 7).
. "$(dirname "$0")/lib.sh"

start_workload
target=$WORKLOAD_PID
name=$(cat /proc/$target/comm)
# the name "z\n<target> EVILCOMM" (cut to 15 bytes by the kernel) makes
# saved_cmdlines hold a line "<target> EVILCO..."; a second one aims at pid 15
sh -c 'printf "z\n%s EVILCOMM" "$1" > /proc/$$/task/$$/comm; while :; do sleep 0.01; done' \
	evil "$target" &
EXTRA_PIDS="$!"
sh -c 'printf "z\n15 EVILCOMM" > /proc/$$/task/$$/comm; while :; do sleep 0.01; done' &
EXTRA_PIDS="$EXTRA_PIDS $!"
# many short-lived children: their pids are gone before stacktop names them,
# so it falls back to saved_cmdlines for them
sh -c 'while :; do /bin/true; sleep 0.005; done' &
EXTRA_PIDS="$EXTRA_PIDS $!"

# The injected lines reach saved_cmdlines while something traces
# sched_switch (stacktop's own instance does; the kernel records a task's
# name at each of its switches, the evil ones 100 times a second). What the
# kernel holds is read every 50 ms while stacktop runs, as stacktop reads
# it: a later read can find them evicted by other pids (a busy host) or
# never recorded (options/record-cmd off), and the test would test nothing.
( while :; do grep -a -E "^($target|15) EVILCO" "$T/saved_cmdlines"; sleep 0.05; done ) \
	> "$WORK/seen" 2>/dev/null &
SEEN_PID=$!
EXTRA_PIDS="$EXTRA_PIDS $SEEN_PID"
"$STACKTOP" -b -n 3 -d 0.5 --top 1000 --expand 0 > "$WORK/text" 2>&1 ||
	fail "stacktop failed"
"$STACKTOP" -b -n 2 -d 0.5 --top 1000 --json > "$WORK/json" 2>&1 ||
	fail "stacktop --json failed"
end_pids "$SEEN_PID"
[ -s "$WORK/seen" ] ||
	skip "the injected names never reached saved_cmdlines while stacktop ran" \
		"(options/record-cmd $(cat "$T/options/record-cmd" 2>/dev/null)," \
		"saved_cmdlines_size $(cat "$T/saved_cmdlines_size" 2>/dev/null)): nothing to test"
echo "saved_cmdlines held an injected line $(wc -l < "$WORK/seen") times while stacktop ran"

if grep -E "^ +[0-9]+ " "$WORK/text" | grep -Eq "EVILCO[^ ]*/($target|15) "; then
	grep EVILCO "$WORK/text"
	fail "a process renamed pid $target or 15 on the report"
fi
if grep -Eq "\"pid\":($target|15),\"comm\":\"EVILCO" "$WORK/json"; then
	grep -Eo "\"pid\":($target|15),\"comm\":\"[^\"]*\"" "$WORK/json" | sort | uniq -c
	fail "a process renamed pid $target or 15 in the JSON"
fi
grep -Fq "\"pid\":$target,\"comm\":\"$name\"" "$WORK/json" ||
	fail "the JSON does not name pid $target $name"

# A process renamed after its first events (sh, then its exec: pingpong,
# then its prctl: a name of its own) is named as it is now, in every mode:
# --sample kept the first name perf reported (issue 35: perf bench sched
# pipe was "perf" in a sampled run, "sched-pipe" beside it with every stack)
[ -x "${PINGPONG:-}" ] || fail "no PINGPONG helper"
NAME=stren$$
for mode in every "--sample 10"; do
	[ "$mode" = every ] && mode=
	# shellcheck disable=SC2086 # the mode is one or two words
	"$STACKTOP" $mode -e sched:sched_switch -b --json -- \
		sh -c "sleep 0.3; exec $PINGPONG $NAME 20000" > "$WORK/ren.json" 2> "$WORK/ren.err" ||
		{ cat "$WORK/ren.err"; fail "stacktop $mode -- CMD failed"; }
	python3 - "$WORK/ren.json" "$NAME" "$mode" << 'PY' || fail "stacktop ${mode:-(every stack)} kept a name the process left"
import json, sys
d = json.loads(open(sys.argv[1]).readline())
hits = {}
for s in d["stacks"]:
    for b in s["by"]:
        k = (b["pid"], b["comm"])
        hits[k] = hits.get(k, 0) + b["total"]
print(sys.argv[3] or "every stack", sorted(hits.items()))
# the ping-pong's two processes, the first the shell's pid: 20000 rounds each
mine = {p: n for (p, c), n in hits.items() if c == sys.argv[2]}
assert len(mine) == 2 and all(n > 10000 for n in mine.values()), hits
assert not [k for k, n in hits.items() if k[1] in ("sh", "pingpong") and n > 100], hits
PY
done
echo "ok: comm"
