#!/bin/sh
# stacks mode on the live kernel: real, symbolized, ranked stacks of
# sched:sched_switch while a workload sleeps in a loop.
. "$(dirname "$0")/lib.sh"

start_workload
snapshot "$WORK/before"
"$STACKTOP" -b -n 2 -d 1 -e sched:sched_switch --top 500 --expand 3 \
	> "$WORK/out" 2> "$WORK/err" || { cat "$WORK/err"; fail "stacktop exited $?"; }
cat "$WORK/out"

grep -q '^stacktop .* mode stacks ' "$WORK/out" || fail "no header with the mode"
grep -q 'iteration 2' "$WORK/out" || fail "did not run 2 iterations"
grep -q '^events: sched:sched_switch' "$WORK/out" || fail "event not named in the header"
# a ranked row: rank 1 with the event and a symbolized stack through __schedule
# (__schedule is in the row, or said once for every row when all share it)
grep -Eq '^ +1 +- +[0-9.kM]+ +[0-9.kM]+ +[0-9.]+ .*sched:sched_switch .*(__schedule|\.\.\. )' "$WORK/out" ||
	fail "no ranked sched_switch row"
grep -Eq '^ +1 +- .*sched:sched_switch .*__schedule|^every stack below starts with: __schedule' "$WORK/out" ||
	fail "no ranked sched_switch row through __schedule"
# expanded frames in the kernel's %pS form, and schedule among them
grep -Eq '^    schedule\+0x[0-9a-f]+/0x[0-9a-f]+$' "$WORK/out" ||
	fail "no symbolized 'schedule+0xoff/0xsize' frame"
# the workload's own stacks (sleep -> do_nanosleep) show up (every row is
# listed: on a busy machine they need not be among the top 10)
grep -Eq 'do_nanosleep|hrtimer_nanosleep|clock_nanosleep' "$WORK/out" ||
	fail "the sleeping workload's stack is missing"
hits=$(sed -n 's/^hits: \([0-9]*\) total.*/\1/p' "$WORK/out" | tail -1)
[ "${hits:-0}" -gt 10 ] || fail "too few hits ($hits)"
# what the stack map would save: full stacks of at least one frame (28 B)
# against 16-byte ids, a share of all the ring buffer read (events too)
rb=$(grep -E '^ring buffer: [0-9.]+ B of stack per event, 16\.0 B as stack ids: stackmap would cut ring-buffer use by [0-9]+%$' "$WORK/out" | tail -1)
[ -n "$rb" ] || fail "no ring-buffer line in the stacks-mode header"
echo "$rb" | awk '{ n = $NF; sub("%", "", n); if ($3 < 28 || n + 0 < 1 || n + 0 > 99) exit 1 }' ||
	fail "implausible ring-buffer line: $rb"
snapshot "$WORK/after"
diff -u "$WORK/before" "$WORK/after" || fail "top-level tracefs state changed"
echo "ok: live batch shows ranked, symbolized stacks"
