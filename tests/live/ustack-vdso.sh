#!/bin/sh
# -u: a frame in the vdso (clock_gettime, which never enters the kernel) is
# named from the vdso image: the local timer interrupt samples a process
# looping on clock_gettime, and the user leaf of most samples is there.
. "$(dirname "$0")/lib.sh"

[ -n "${VDSO_LOOP:-}" ] && [ -x "$VDSO_LOOP" ] || fail "no VDSO_LOOP test program"
[ -e "$T/events/ftrace/user_stack" ] || skip "no ftrace user_stack event"
[ -e "$T/events/irq_vectors/local_timer_entry" ] || skip "no irq_vectors:local_timer_entry (x86 only)"
grep -q '\[vdso\]' /proc/self/maps || skip "processes have no vdso here"
probe="$T/instances/stacktop-vdso-probe.$$"
mkdir "$probe" 2> /dev/null || skip "cannot create an instance"
have=no
[ -e "$probe/options/userstacktrace" ] && have=yes
rmdir "$probe"
[ $have = yes ] || skip "no options/userstacktrace in instances"

"$VDSO_LOOP" > "$WORK/loop.out" &
WORKLOAD_PID=$!
n=100
until grep -q ready "$WORK/loop.out" 2> /dev/null; do
	n=$((n - 1))
	[ $n -gt 0 ] || fail "the loop did not start"
	sleep 0.05
done

"$STACKTOP" --user=fp -e irq_vectors:local_timer_entry -p "$WORKLOAD_PID" -b -n 1 -d 1 --json \
	> "$WORK/json" 2> "$WORK/err" || { cat "$WORK/err"; fail "stacktop -u failed"; }
python3 - "$WORK/json" "$WORKLOAD_PID" << 'PY' || fail "no user leaf named in the vdso"
import json, re, sys
d = json.loads(open(sys.argv[1]).read())
leaves = {}
for s in d["stacks"]:
    if s.get("user_frames"):
        assert s["tgid"] == int(sys.argv[2]), s["tgid"]
        leaf = s["user_frames"][0]["symbol"]
        leaves[leaf] = leaves.get(leaf, 0) + s["total"]
total = sum(leaves.values())
vdso = sum(n for leaf, n in leaves.items() if "([vdso])" in leaf)
print("user leaves:", sorted(leaves.items(), key=lambda x: -x[1])[:5])
assert total > 0, "no user stack sampled"
# named, not [unknown]: clock_gettime or its __vdso_ alias, with an offset
assert all(re.fullmatch(r"(__vdso_)?clock_gettime\+0x[0-9a-f]+ \(\[vdso\]\)", leaf)
           for leaf in leaves if "[vdso]" in leaf), leaves
assert vdso > 0, "no sample with its leaf in the vdso: %s" % leaves
PY
echo PASS
