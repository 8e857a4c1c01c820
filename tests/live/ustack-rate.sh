#!/bin/sh
# -u dwarf at a high rate (issue 18): one program writing 50,000 times a
# second (tests/unwind/uprog rate 50000).
#  1. Every event it makes is counted with a user stack, or with a mark
#     that says why not, never as its kernel stack alone; the events
#     without one are the samples perf dropped (its own count, or a ring
#     found full) or came after stacktop gave up on them (counted
#     unclaimed), and of the rest at least 99% carry their stack; where
#     perf dropped samples the rings grew. The share of all its events is
#     printed, not asserted (bench/unwind.py measures it): on a machine
#     too busy to let stacktop read in time perf drops samples and says
#     so, which is what is asserted.
#  2. --user-buffer 64K: the ring holds 7 samples, stacktop sleeps 2 ms
#     between reads: samples are lost for sure; the row of the events
#     without their stack is marked in the text, JSON and folded reports,
#     and its count is the header's "sample lost".
#  3. --user-sample 10: one event in 10 gets its stack, the others are
#     "not sampled"; the share is stated (header, JSON), and is right: the
#     kernel takes the first hit after each (re)start of its count and then
#     every 10th, so the samples are within one per count restart (each CPU,
#     each refresh) of a tenth of the events - a bound from the counts, not
#     from time.
#  4. Bad sizes are clear errors.
. "$(dirname "$0")/lib.sh"

[ -n "${UPROG:-}" ] && [ -x "$UPROG" ] || fail "no UPROG test program"
[ "$(uname -m)" = x86_64 ] || skip "the dwarf mode unwinds x86-64 only"
"$STACKTOP" --user=dwarf -e syscalls:sys_enter_write -b -n 1 -d 0.1 > "$WORK/probe" 2>&1 ||
	{
		cat "$WORK/probe"
		grep -q 'built without libunwind\|perf_event_open' "$WORK/probe" && skip "no dwarf mode here"
		fail "--user=dwarf does not start"
	}
NCPU=$(getconf _NPROCESSORS_CONF)

# 4. bad sizes first (no workload needed)
bad() { # expected message, then options
	want=$1
	shift
	"$STACKTOP" "$@" -e syscalls:sys_enter_write -b -n 1 -d 0.1 > "$WORK/bad" 2>&1 &&
		fail "stacktop $* was accepted"
	grep -q -- "$want" "$WORK/bad" || { cat "$WORK/bad"; fail "stacktop $*: not '$want'"; }
}
bad "bad --user-buffer '12x' (bytes with K, M or G, 64K to 1G)" -u --user-buffer 12x
bad "bad --user-buffer '16K'" -u --user-buffer 16K
bad "bad --user-buffer '2G'" -u --user-buffer 2G
bad "bad --user-sample '0'" -u --user-sample 0
bad "bad --user-sample 'x'" -u --user-sample x
bad "bad --user 'dwarf,16'" --user=dwarf,16
bad "bad --user 'dwarf,70000'" --user=dwarf,70000
bad "--user-buffer sets the dwarf mode's perf samples: give -u or --user=dwarf" \
	--user=fp --user-buffer 4M
bad "--user-sample sets the dwarf mode's perf samples" --user-sample 10

"$UPROG" 60 rate 50000 > /dev/null &
WORKLOAD_PID=$!
sleep 0.3
kill -0 "$WORKLOAD_PID" || fail "uprog did not start"

run_u() { # output, then options
	out=$1
	shift
	"$STACKTOP" -e syscalls:sys_enter_write -p "$WORKLOAD_PID" "$@" > "$out" 2> "$out.err" ||
		{ cat "$out.err"; fail "stacktop $* failed"; }
}

# the last JSON line's user object and stacks: every one of uprog's events
# is a stack with its user frames or with a user_missing mark, and the
# stacks add up to the user object's counters exactly
check_json() { # file, then what to check
	python3 - "$@" << 'PY'
import json, sys
lines = [l for l in open(sys.argv[1]) if l.strip()]
d = json.loads(lines[-1])
u = d["user"]
what = sys.argv[2]
assert u["mode"] == "dwarf", u
reasons = ("no_sample", "sample_lost", "unwind_failed", "no_maps", "not_sampled")
events = u["with_stack"] + sum(u[k] for k in reasons)
words = {"no sample": "no_sample", "sample lost": "sample_lost", "unwind failed": "unwind_failed",
         "no maps": "no_maps", "not sampled": "not_sampled"}
got = dict.fromkeys(reasons, 0)
with_frames = 0
for s in d["stacks"]:
    if "tgid" not in s:
        raise SystemExit("a stack of uprog's events without its user part (kernel frames alone): %r"
                         % s["symbols"][:3])
    if "user_missing" in s:
        assert s["tgid"] == 0 and not s["user_frames"], s
        got[words[s["user_missing"]]] += s["total"]
    else:
        names = [f["symbol"].split("+")[0] for f in s["user_frames"]]
        assert names[1:6] == ["c", "b", "a", "paced_rate", "main"], names
        with_frames += s["total"]
assert with_frames == u["with_stack"], (with_frames, u)
for k in reasons:
    assert got[k] == u[k], (k, got[k], u)
assert events == d["hits"], (events, d["hits"], u)
rate = d["hits_delta"] / d["interval"]
share = u["with_stack"] / events
print("%s: %d events, %.0f/s, %.1f%% with a user stack; %s" % (
    what, events, rate, 100 * share,
    ", ".join("%s %d" % (k, u[k]) for k in reasons + ("samples_lost", "ring_full", "ring_bytes",
                                                    "ring_grown", "period") if u[k])))
if what == "rate":
    # what is missing is what perf dropped (its LOST count, or a ring found
    # full), or a record given up before its sample was read: stacktop kept
    # off the CPU for over half a second (PU_TIMEOUT_NS) reads the
    # instance's records ahead of perf's samples (SIGSTOP for 0.8 s: some
    # 1,000 such, as many samples then came "unclaimed"). Each such record
    # has its sample counted unclaimed; a record the join's full queue
    # pushed out early is counted in overflow (a host whose both cores are
    # busy leaves stacktop a third of one: 47,819 of them at 30k events/s);
    # the rest is asserted.
    late = min(u["no_sample"], u["unclaimed"] + u["overflow"])
    other = u["no_sample"] - late + u["unwind_failed"] + u["no_maps"]
    assert other <= events // 200 + 10, ("events without a stack perf did not drop", u)
    assert not u["sample_lost"] or u["samples_lost"] or u["ring_full"], u
    # of what perf kept, every event has its stack
    kept = events - u["sample_lost"] - late
    assert u["with_stack"] >= 0.99 * kept, (u["with_stack"], kept)
    assert u["ring_auto"] and u["period"] == 1 and u["stack_bytes"] == 8192, u
    # the rings followed the rate: perf's LOST records made them grow
    # (4x, up to 64M a CPU, 256M in all; a kernel that refused the memory
    # fails here)
    assert not u["samples_lost"] or u["ring_grown"] or u["ring_bytes"] >= 64 << 20 or \
        u["ring_bytes_total"] >= 256 << 20, ("samples lost and no ring grew", u)
elif what == "small":
    assert u["ring_bytes"] == 65536 and not u["ring_auto"] and u["ring_grown"] == 0, u
    assert u["sample_lost"] > 0 and (u["samples_lost"] or u["ring_full"]), u
elif what == "sampled":
    n = 10
    assert u["period"] == n, u
    # perf took the first hit after each start of its count, then one in n:
    # per count (a thread on a CPU) and refresh, at most one more than a tenth
    # (and more on a busy host: a thread that moves between CPUs more often
    # starts more counts; 15147 of 151310 with 13 restarts allowed was seen
    # beside a CPU hog on each core): within half a percent more; and
    # where the join's queue overflowed or samples came too late to be
    # claimed (stacktop starved of CPU), each such entry may be either
    taken = u["with_stack"] + u["sample_lost"]
    restarts = int(sys.argv[3]) * (int(sys.argv[4]) + 3) + u["ring_full"] + events // n // 200
    restarts += u["overflow"] + u["unclaimed"]
    assert events / n - restarts - 1 <= taken <= events / n + restarts + 1, (taken, events,
                                                                           restarts, u)
    assert u["no_sample"] + u["unwind_failed"] + u["no_maps"] <= events // 200 + 10, u
PY
}

# 1. the ring follows the rate: three refreshes of a second, JSON lines
run_u "$WORK/rate.json" -u -n 3 -d 1 --json
check_json "$WORK/rate.json" rate || fail "at 50k writes/s: the user stacks are not all there or not all said"
run_u "$WORK/rate.txt" -u -n 1 -d 1 --expand 1
grep -Eq '^user stacks: dwarf; [0-9]+ events with a user stack \([0-9.]+%\)' "$WORK/rate.txt" ||
	{ cat "$WORK/rate.txt"; fail "the header does not give the share with a user stack"; }
grep -Eq '; 8192 bytes of stack a sample, perf ring [0-9.]+[KM] a CPU' "$WORK/rate.txt" ||
	{ cat "$WORK/rate.txt"; fail "the header does not give the perf ring"; }

# 2. a ring too small: the row of the events without their stack says so
run_u "$WORK/small.txt" -u --user-buffer 64K -n 1 -d 1 --top 5
cat "$WORK/small.txt"
grep -q '; 8192 bytes of stack a sample, perf ring 64K a CPU (--user-buffer)' "$WORK/small.txt" ||
	fail "the header does not say --user-buffer 64K"
lost=$(sed -n 's/^user stacks: dwarf;.*: \([0-9]*\) sample lost.*/\1/p' "$WORK/small.txt")
[ -n "$lost" ] && [ "$lost" -gt 0 ] || fail "a 64K ring at 50k samples/s lost nothing?"
# the marked rows' hits are the header's count
row=$(awk '/\[user stack lost: perf ring full\] /{n += $3} END {print n + 0}' "$WORK/small.txt")
[ "$row" = "$lost" ] || fail "the marked row has $row hits, the header $lost sample lost"
awk '/^ *[0-9]+ / && / uprog\// && !/ -- / && !/\[user stack/' "$WORK/small.txt" | grep . &&
	fail "a row of uprog with its kernel frames alone"
run_u "$WORK/small.json" -u --user-buffer 64K -n 1 -d 1 --json
check_json "$WORK/small.json" small || fail "--user-buffer 64K: JSON"
run_u "$WORK/small.folded" -u --user-buffer 64K -n 1 -d 1 --folded
grep -q '^\[user_stack_lost:_perf_ring_full\];[^ ]*_\[k\] [0-9]*$' "$WORK/small.folded" ||
	{ cat "$WORK/small.folded"; fail "folded: no marked line of uprog's lost user stacks"; }
grep -q '^_start;.*;main;paced_rate;a;b;c;__write;' "$WORK/small.folded" ||
	{ cat "$WORK/small.folded"; fail "folded: no line with uprog's user frames"; }

# 3. one event in ten (the reasons in the header's order: on a busy host
# "N sample lost" comes before "N not sampled")
run_u "$WORK/sampled.json" -u --user-sample 10 -n 3 -d 1 --json
check_json "$WORK/sampled.json" sampled "$NCPU" 3 || fail "--user-sample 10: the share is not a tenth"
run_u "$WORK/sampled.txt" -u --user-sample 10 -n 1 -d 1 --top 5
grep -Eq '^user stacks: dwarf, 1 event in 10 sampled \(--user-sample\); [0-9]+ events with a user stack \([0-9.]+%\), [0-9]+ without: ([0-9]+ [a-z ]+, )*[0-9]+ not sampled' \
	"$WORK/sampled.txt" || { cat "$WORK/sampled.txt"; fail "the header does not state the sampling"; }
grep -q '\[user stack not sampled\] ' "$WORK/sampled.txt" ||
	{ cat "$WORK/sampled.txt"; fail "no row of the events not sampled"; }
echo "ok: ustack-rate"
