#!/bin/bash
# vm-bench.sh - the cost of stacktop on the real stackmap kernel (issue 20;
# doc/performance.md, "On the real stackmap kernel"). Runs by hand, not in
# CI; needs root and the project's shared rfc-kernel/ folder (found as the
# VM tier finds it, doc/vm-tier.md).
#
# Boots the kernel of ../shared/rfc-kernel (built by its build.sh when the
# image is missing) once, and inside it runs each workload in interleaved
# rounds: alone, under stacktop's stackmap mode, alone, under its stacks
# mode, alone, under a bare drain (an instance with options/stacktrace whose
# per-CPU buffers one process per CPU reads into nothing, as `cat` would).
# Each traced run is compared with the alone run just before it, so that a
# change of the machine's load hits both sides of a pair alike. Reported per
# workload and mode: the median share of its rate the workload keeps
# (min-max), the reader's CPU (% of one CPU while the workload ran), the
# ring-buffer bytes per traced event (every record: the event and its stack),
# the stack record's bytes, what full stacks (stackmap) or stack ids (stacks)
# would have taken, and what the readers lost.
#
# Workloads (tests/vm/vm-work.c):
#   pingpong  two processes pass one byte over pipes (sched:sched_switch)
#   syscall   read(2) of one byte of /dev/zero in a loop (raw_syscalls:sys_enter)
#
# Usage (root): bench/vm-bench.sh [BUILD_DIR [ROUNDS [SECONDS [WORKLOADS]]]]
#   defaults:   build-rel 7 3 "pingpong syscall"
#   BUILD_DIR must hold a release build (meson setup build-rel
#   --buildtype=release && ninja -C build-rel): its stacktop and
#   tests/vm/vm-work are copied into the guest.
# Environment: VM_ACCEL=multi (default: qemu's multi-threaded TCG, 2 vCPUs
#   on 2 host threads, as the shared harness runs it) or single (one host
#   thread: no code-patching oops, see tests/vm/vm-tier.py, but the guest's
#   two CPUs then share one host CPU); SMP, MEM as run-in-vm.sh takes them;
#   VM_KEEP=FILE keeps the guest's console output.
# Multi-threaded TCG can oops the guest when tracing is turned on or off
# under load ("Oops: int3", about once in 500 toggles): the RESULT lines
# printed before are kept and the run says the guest died; run it again.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-build-rel}
ROUNDS=${2:-7}
S=${3:-3}
WORKLOADS=${4:-pingpong syscall}
ACCEL_MODE=${VM_ACCEL:-multi}

[ "$(id -u)" = 0 ] || { echo "vm-bench.sh: needs root" >&2; exit 1; }
ST=$B/stacktop
W=$B/tests/vm/vm-work
for f in "$ST" "$W"; do
	[ -x "$f" ] || { echo "vm-bench.sh: no $f (meson setup $B --buildtype=release && ninja -C $B)" >&2; exit 1; }
done
shared=$(SOURCE_ROOT=$ROOT python3 "$ROOT/tests/vm/vm-tier.py" shared) || {
	echo "vm-bench.sh: no shared rfc-kernel folder (doc/vm-tier.md)" >&2
	exit 1
}
image=${IMAGE:-${VMWORK:-/var/tmp/stackmap-kernel}/bzImage-stackmap}
if [ ! -f "$image" ]; then
	echo "vm-bench.sh: building the kernel ($shared/rfc-kernel/build.sh, about 6 minutes)" >&2
	(cd "$ROOT" && bash "$shared/rfc-kernel/build.sh") >&2
fi

work=$(mktemp -d /tmp/stacktop-vmbench.XXXXXX)
trap 'rm -rf "$work"' EXIT
harness=$shared/rfc-kernel/run-in-vm.sh
if [ "$ACCEL_MODE" = single ]; then
	sed 's/^tcg) accel=(-accel tcg -cpu max) ;;$/tcg) accel=(-accel tcg,thread=single -cpu max) ;;/' \
		"$harness" > "$work/run-in-vm.sh"
	chmod +x "$work/run-in-vm.sh"
	grep -q 'thread=single' "$work/run-in-vm.sh" || { echo "vm-bench.sh: cannot make a single-threaded harness" >&2; exit 1; }
	harness=$work/run-in-vm.sh
fi
{
	echo "#!/bin/sh"
	echo "ST=/test/stacktop W=/test/vm-work ROUNDS=$ROUNDS SECONDS=$S WORKLOADS='$WORKLOADS'"
	cat "$ROOT/bench/vm-bench-guest.sh"
	echo
} > "$work/guest.sh"
runs=$(( ROUNDS * $(echo "$WORKLOADS" | wc -w) * 6 ))
echo "vm-bench.sh: $runs runs of $S s ($ROUNDS rounds, workloads: $WORKLOADS; TCG $ACCEL_MODE-threaded)" >&2
rc=0
TIMEOUT=$(( runs * (S + 8) + 300 )) "$harness" "$image" "$work/guest.sh" \
	"$ST:/test/stacktop" "$W:/test/vm-work" > "$work/console" 2>&1 || rc=$?
[ -n "${VM_KEEP:-}" ] && cp "$work/console" "$VM_KEEP"
grep -v '^RESULT ' "$work/console" | grep -E '^bench:|Oops|run-in-vm' >&2 || true
[ $rc = 0 ] || echo "vm-bench.sh: the guest ended with status $rc (an oops? see above); the rounds it finished follow" >&2

python3 - "$work/console" "$S" <<'PY'
import statistics, sys

runs = []
for line in open(sys.argv[1]):
    if line.startswith("RESULT "):
        runs.append(dict(kv.split("=", 1) for kv in line.split()[1:]))
secs = float(sys.argv[2])
if not runs:
    sys.exit("vm-bench.sh: no RESULT line from the guest")


def num(x):
    try:
        return float(x)
    except ValueError:
        return None


def med(xs):
    xs = [x for x in xs if x is not None]
    return (statistics.median(xs), min(xs), max(xs)) if xs else (None, None, None)


print("| workload | mode | rate kept (median, min-max) | reader CPU | ring-buffer B per event "
      "| stack record B | the other way | lost (per round) |")
print("|---|---|---|---|---|---|---|---|")
for work in dict.fromkeys(r["work"] for r in runs):
    alone = [num(r["alone"]) for r in runs if r["work"] == work]
    m, lo, hi = med(alone)
    print("| %s | alone | %.0f/s (%.0f-%.0f) | | 0 | | | |" % (work, m, lo, hi))
    for mode in ("stackmap", "stacks", "drain"):
        rs = [r for r in runs if r["work"] == work and r["mode"] == mode]
        if not rs:
            continue
        kept = med([100 * num(r["rate"]) / num(r["alone"]) for r in rs
                    if num(r["rate"]) and num(r["alone"])])
        cpu = med([100 * num(r["cpu"]) / secs for r in rs])
        bpe = med([num(r["bytes"]) / num(r["events"]) for r in rs
                   if num(r["bytes"]) and num(r["events"])])
        sb = med([num(r["stackbytes"]) / num(r["stackrecs"]) for r in rs
                  if num(r["stackbytes"]) and num(r["stackrecs"])])
        alt = med([num(r["altbytes"]) / num(r["stackrecs"]) for r in rs
                   if num(r["altbytes"]) and num(r["stackrecs"])])
        other = "-"
        if alt[0] is not None and sb[0] is not None:
            other = "%.1f B (%s %.0f%%)" % (alt[0], "map saves" if mode == "stackmap"
                                            else "an id would save",
                                            100 * abs(alt[0] - sb[0]) / max(alt[0], sb[0]))
        print("| %s | %s | %.1f%% (%.1f-%.1f) | %.1f%% | %.1f | %s | %s | %s |" % (
            work, mode, kept[0], kept[1], kept[2], cpu[0], bpe[0],
            "%.1f" % sb[0] if sb[0] is not None else "-", other,
            " ".join(r["lost"] for r in rs)))
print("\n%d runs; rate kept: the traced run's rate over the alone run's just before it; "
      "reader CPU: %% of one CPU over the workload's %.0f s" % (len(runs), secs))
PY
exit $rc
