#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# sim-lib-test.sh - the shell helper works: start, control, stop, no leftovers.
#	sim-lib-test.sh PATH-TO-stackmap-sim
set -u
. "$(dirname "$0")/../lib/common.sh"
[ -c /dev/fuse ] || skip "no /dev/fuse"
SIM_BIN=$1
. "$(dirname "$0")/sim-lib.sh"


sim_start v4 --step --seed 3 --nest 0 || fail "sim_start"
[ -s "$SIM_KALLSYMS" ] || fail "no kallsyms"
grep -q ' T do_syscall_64$' "$SIM_KALLSYMS" || fail "kallsyms content"
echo 1 > "$SIM_MNT/options/stacktrace" || fail "stacktrace"
echo 1 > "$SIM_MNT/options/stackmap" || fail "stackmap"
echo sched:sched_switch > "$SIM_MNT/set_event" || fail "set_event"
sim_ctl "emit 20" || fail "emit"
grep -q 'last: emitted 20' "$SIM_MNT/.sim/control" || fail "emitted"
grep -q '^successes:    20$' "$SIM_MNT/stack_map_stat" || fail "successes"
[ "$(sim_truth | awk '!/^#/ { n += $4 } END { print n }')" = 20 ] || fail "truth"
if echo 0 > "$SIM_MNT/stack_map" 2>/dev/null; then fail "reset while tracing"; fi
sim_ctl "bogus" 2>/dev/null && fail "bad command accepted"
mnt=$SIM_MNT
pid=$SIM_PID
sim_stop
grep -q " $mnt fuse" /proc/mounts && fail "still mounted"
kill -0 "$pid" 2>/dev/null && fail "still running"
[ -e "$mnt" ] && fail "temp dir left"

# The trap: a subshell that exits without sim_stop leaves nothing behind.
out=$( (sim_start v2 --rate 100 >/dev/null || exit 1; echo "$SIM_MNT $SIM_PID"; exit 0) )
set -- $out
[ $# = 2 ] || fail "subshell start"
grep -q " $1 fuse" /proc/mounts && fail "trap left a mount"
kill -0 "$2" 2>/dev/null && fail "trap left the simulator running"
echo "sim-lib ok"
