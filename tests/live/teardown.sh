#!/bin/sh
# The teardown after the last report (issue 40: 0.13 s, part of it the
# instance's trace_clock written back right before the instance was
# removed). Traced with strace: after the last report the run writes no
# file of its instance (the rmdir takes them along: no clock, no event, no
# pid list written back), and the instance's own pid list was emptied
# before that report (-n: the end is known; the kernel's grace periods of
# emptying it are not in the teardown). The instance and the journal are
# gone, tracefs is as before. The last report is whole: calls made after
# the list was emptied are all in it. (How long
# the teardown takes is measured by bench/teardown.sh, not here.)
. "$(dirname "$0")/lib.sh"
command -v strace > /dev/null || fail "strace is not installed (scripts/deps.sh installs it)"
[ -e "$T/set_event_notrace_pid" ] || skip "no set_event_notrace_pid (kernels before 5.10)"

snapshot "$WORK/before"
# LeakSanitizer does not work under ptrace
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -o "$WORK/trace" -e trace=openat,openat2,write,unlinkat "$STACKTOP" -b -n 2 -d 1 \
	-e sched:sched_switch > "$WORK/out" 2> "$WORK/err" ||
	{ cat "$WORK/err"; fail "stacktop failed"; }
pid=$(sed -n 's/^\([0-9]*\) .*unlinkat([0-9]*, "stacktop\.\([0-9]*\)", AT_REMOVEDIR).*/\2/p' "$WORK/trace" | head -n 1)
[ -n "$pid" ] || fail "no rmdir of the instance in the trace"
python3 - "$WORK/trace" "$pid" << 'PY' || fail "the teardown wrote into the instance it removes"
import re, sys
lines = open(sys.argv[1]).read().splitlines()
inst = "instances/stacktop.%s/" % sys.argv[2]
reports = [i for i, l in enumerate(lines) if re.search(r"\bwrite\(1, ", l)]
assert len(reports) >= 2, "%d writes of reports" % len(reports)
last = reports[-1]
after = [l for l in lines[last + 1:] if inst in l and re.search(r"O_WRONLY|O_RDWR", l)]
print("writes into the instance after the last report:", len(after))
assert not after, after[:3]
# the pid list emptied (an open with O_TRUNC) before the last report, after the first
trunc = [i for i, l in enumerate(lines)
         if inst + "set_event_notrace_pid" in l and "O_TRUNC" in l]
print("set_event_notrace_pid written at lines", trunc, "reports at", reports)
assert len(trunc) == 2, "the pid list written %d times, not twice (set, emptied)" % len(trunc)
assert reports[0] < trunc[1] < last, "not emptied during the last interval"
PY
no_instance_of "$pid"

# --- the last report whole: calls made after the pid list was emptied --------------
# getpgid(434343) in the filter: nobody else's calls match. The list is
# emptied SESSION_LET_GO_MS (500 ms) before the end of the last interval;
# 2,000 calls right after it (a few ms) are all in the last report.
[ -e "$T/events/syscalls/sys_enter_getpgid" ] || skip "no syscalls:sys_enter_getpgid event"
python3 - "$STACKTOP" "$T" << 'PY' || fail "the last report missed calls of its interval"
import json, os, subprocess, sys, time
K = 2000
p = subprocess.Popen([sys.argv[1], "-b", "--json", "-d", "2", "-n", "2",
                      "-e", "syscalls:sys_enter_getpgid if pid == 434343"],
                     stdout=subprocess.PIPE, text=True)
lst = "%s/instances/stacktop.%d/set_event_notrace_pid" % (sys.argv[2], p.pid)
seen = False
while p.poll() is None:
    try:
        cur = open(lst).read().split()
    except OSError:
        cur = None
    if cur:
        seen = True
    elif seen and cur == []:
        break
    time.sleep(0.002)
assert seen and p.poll() is None, "the pid list was never set, or never emptied before the end"
for _ in range(K):
    try:
        os.getpgid(434343)
    except ProcessLookupError:
        pass
lines = p.stdout.read().splitlines()
assert p.wait() == 0, "stacktop exited %d" % p.returncode
last = json.loads(lines[-1])
print("reports", len(lines), "last: hits", last["hits"], "delta", last["hits_delta"],
      "lost", last["lost"])
assert len(lines) == 2 and last["iteration"] == 2, lines
assert last["hits"] == K and last["hits_delta"] == K and last["lost"] == 0, last
PY
snapshot "$WORK/after"
diff "$WORK/before" "$WORK/after" || fail "tracefs state changed"
echo "PASS"
