#!/bin/sh
# -u: a frame in the vdso (clock_gettime, which never enters the kernel) is
# named from the vdso image: the local timer interrupt samples a process
# looping on clock_gettime, and the user leaf of most samples is there.
# Both walks: --user=fp (the kernel's frame-pointer walk, ftrace's
# user_stack) and --user=dwarf (perf's copy of the stack, unwound through the
# vdso's own .eh_frame from a copy of its image: main must be reached below
# the vdso leaf).
. "$(dirname "$0")/lib.sh"

[ -n "${VDSO_LOOP:-}" ] && [ -x "$VDSO_LOOP" ] || fail "no VDSO_LOOP test program"
[ -e "$T/events/irq_vectors/local_timer_entry" ] || skip "no irq_vectors:local_timer_entry (x86 only)"
grep -q '\[vdso\]' /proc/self/maps || skip "processes have no vdso here"

modes=
fp_why=
if [ ! -e "$T/events/ftrace/user_stack" ]; then
	fp_why="no ftrace user_stack event"
else
	probe="$T/instances/stacktop-vdso-probe.$$"
	if mkdir "$probe" 2> /dev/null; then
		[ -e "$probe/options/userstacktrace" ] || fp_why="no options/userstacktrace in instances"
		rmdir "$probe"
	else
		fp_why="cannot create an instance"
	fi
fi
[ -z "$fp_why" ] && modes="fp"
if "$STACKTOP" --user=dwarf -e irq_vectors:local_timer_entry -b -n 1 -d 0.1 > "$WORK/probe" 2>&1; then
	modes="$modes dwarf"
else
	cat "$WORK/probe"
	grep -q 'built without libunwind\|perf_event_open' "$WORK/probe" ||
		fail "--user=dwarf does not start"
	echo "no dwarf mode here"
fi
[ -n "$modes" ] || skip "neither walk works here ($fp_why; no dwarf mode)"
[ -n "$fp_why" ] && echo "--user=fp not tested: $fp_why"

"$VDSO_LOOP" > "$WORK/loop.out" &
WORKLOAD_PID=$!
n=100
until grep -q ready "$WORK/loop.out" 2> /dev/null; do
	n=$((n - 1))
	[ $n -gt 0 ] || fail "the loop did not start"
	sleep 0.05
done

for mode in $modes; do
	echo "--user=$mode:"
	"$STACKTOP" --user=$mode -e irq_vectors:local_timer_entry -p "$WORKLOAD_PID" -b -n 1 -d 1 \
		--json > "$WORK/json.$mode" 2> "$WORK/err" || { cat "$WORK/err"; fail "stacktop --user=$mode failed"; }
	python3 - "$WORK/json.$mode" "$WORKLOAD_PID" "$mode" << 'PY' || fail "--user=$mode: the vdso frames"
import json, re, sys
d = json.loads(open(sys.argv[1]).read())
mode = sys.argv[3]
leaves = {}
in_vdso = below = 0
for s in d["stacks"]:
    if s.get("user_frames"):
        assert s["tgid"] == int(sys.argv[2]), s["tgid"]
        syms = [f["symbol"] for f in s["user_frames"]]
        leaves[syms[0]] = leaves.get(syms[0], 0) + s["total"]
        if "([vdso])" in syms[0]:
            in_vdso += s["total"]
            # the caller's frames below the vdso: main of the loop program
            if any(re.match(r"main\+0x[0-9a-f]+ \(", f) for f in syms[1:]):
                below += s["total"]
total = sum(leaves.values())
print("user leaves:", sorted(leaves.items(), key=lambda x: -x[1])[:5])
print("user stacks:", d.get("user"))
assert total > 0, "no user stack sampled"
# never a wrong name: clock_gettime or its __vdso_ alias, with an offset, or
# an offset in the image for the vdso's own internal functions, which it
# exports no symbol for (6.18's reads the clock in one at +0x7a0: a busy
# host's samples land there most, a quiet one's in clock_gettime)
named = r"(__vdso_)?clock_gettime\+0x[0-9a-f]+ \(\[vdso\]\)"
inner = r"\[unknown\] 0x[0-9a-f]+ \(\[vdso\]\+0x[0-9a-f]+\)"
assert all(re.fullmatch(named, leaf) or re.fullmatch(inner, leaf)
           for leaf in leaves if "[vdso]" in leaf), leaves
assert in_vdso > 0, "no sample with its leaf in the vdso: %s" % leaves
if mode == "dwarf":
    # unwound through the vdso's .eh_frame: main below it on most of them
    print("vdso leaves with main below: %d of %d" % (below, in_vdso))
    assert below * 2 > in_vdso, "main below the vdso leaf on %d of %d" % (below, in_vdso)
PY
done
echo PASS
