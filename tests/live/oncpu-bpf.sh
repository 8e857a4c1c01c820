#!/bin/sh
# --oncpu beside BPF programs (issue 40): kernel code kallsyms does not name
# costs one read of kallsyms, not one a refresh (each sample of it lands at
# a new address); a BPF program loaded during the run still gets its name.
#  1. bpftrace on raw_syscalls:sys_enter and a read() loop running it, with
#     a copy of kallsyms without the [bpf] lines (the program unnamed, as
#     with bpf_jit_kallsyms off, without changing that setting): the
#     samples in the program (the loop's, -p) are unnamed frames, and the symbol table is
#     read again at most once (JSON ksym_reloads);
#  2. the real kallsyms, a bpftrace program on raw_syscalls:sys_exit
#     started after the third refresh: a later refresh names its frames;
#  3. the change is seen without reading kallsyms (ksym-watch: a BPF
#     program loaded after the baseline).
. "$(dirname "$0")/lib.sh"
command -v bpftrace > /dev/null || fail "bpftrace is not installed (scripts/deps.sh installs it)"
[ -x "${KSYM_WATCH:-}" ] || fail "no KSYM_WATCH helper"
command -v taskset > /dev/null || fail "taskset is not installed (util-linux)"

BT_PIDS=
# bpftrace prints its maps when asked to stop (minutes for a map of
# stacks): SIGKILL, by pid, waited for
end_bpftrace() {
	for _p in $BT_PIDS; do
		kill -9 "$_p" 2> /dev/null
		wait "$_p" 2> /dev/null
	done
	BT_PIDS=
}
trap 'end_bpftrace; cleanup' EXIT

snapshot "$WORK/before"
grep -v '\[bpf\]' /proc/kallsyms > "$WORK/kallsyms"

# bpftrace PROBE OUT: a program on PROBE counting stacks, attached (its pid in BT)
bpftrace_on() {
	bpftrace -e "tracepoint:$1 { @[kstack] = count(); }" > "$2" 2>&1 &
	BT=$!
	BT_PIDS="$BT_PIDS $BT"
	for _ in $(seq 100); do
		grep -q '^Attaching' "$2" && break
		kill -0 "$BT" 2> /dev/null || { cat "$2"; fail "bpftrace $1 did not start"; }
		sleep 0.1
	done
	sleep 0.5 # attached after it says so
}

# the read() loop on CPU 0: every call runs the programs
taskset -c 0 python3 -c '
import os
fd = os.open("/dev/zero", os.O_RDONLY)
while True:
    os.read(fd, 1)
' &
WORKLOAD_PID=$!

# --- 1. an unnamed program: one reload at most --------------------------------------
bpftrace_on raw_syscalls:sys_enter "$WORK/bt1"
"$STACKTOP" --oncpu -p "$WORKLOAD_PID" -b --json -d 0.5 -n 8 --kallsyms "$WORK/kallsyms" > "$WORK/one.json" 2> "$WORK/err" ||
	{ cat "$WORK/err"; fail "stacktop --oncpu failed"; }
python3 - "$WORK/one.json" << 'PY' || fail "code kallsyms does not name cost more than one reload"
import json, sys
reps = [json.loads(l) for l in open(sys.argv[1])]
unnamed = set()
for r in reps:
    for st in r["stacks"]:
        for f, s in zip(st["frames"], st["symbols"]):
            if int(f, 16) >= 0xffff800000000000 and not s[:1].isalpha() and not s.startswith("_"):
                unnamed.add(f)
print("reloads by refresh:", [r["ksym_reloads"] for r in reps], "unnamed kernel frames:",
      len(unnamed), sorted(unnamed)[:3])
assert unnamed, "no sample landed in unnamed kernel code: the test is void"
assert reps[-1]["ksym_reloads"] <= 1, "kallsyms read %d times" % reps[-1]["ksym_reloads"]
PY

# --- 2. a program loaded during the run is named -------------------------------------
"$STACKTOP" --oncpu -p "$WORKLOAD_PID" -b --json -d 0.5 -n 10 > "$WORK/two.json" 2> "$WORK/err2" &
ST=$!
EXTRA_PIDS="$EXTRA_PIDS $ST"
wait_for "$WORK/two.json" '"iteration":3,' 100 || { kill "$ST"; fail "no third refresh"; }
bpftrace_on raw_syscalls:sys_exit "$WORK/bt2"
wait "$ST" || { cat "$WORK/err2"; fail "stacktop --oncpu failed"; }
python3 - "$WORK/two.json" << 'PY' || fail "a BPF program loaded during the run was not named"
import json, re, sys
reps = [json.loads(l) for l in open(sys.argv[1])]
named = [r["iteration"] for r in reps
         if any(re.match(r"bpf_prog_[0-9a-f]+_sys_exit\+", s) for st in r["stacks"] for s in st["symbols"])]
print("refreshes naming bpf_prog_*_sys_exit:", named, "reloads:", reps[-1]["ksym_reloads"])
assert named and named[-1] == reps[-1]["iteration"], named
PY

# --- 3. the change, seen without reading kallsyms -------------------------------------
"$KSYM_WATCH" || fail "ksym_watch_changed() missed a BPF program loaded after the baseline"

end_bpftrace
end_pids $EXTRA_PIDS $WORKLOAD_PID
EXTRA_PIDS= WORKLOAD_PID=
snapshot "$WORK/after"
diff "$WORK/before" "$WORK/after" || fail "tracefs state changed"
echo "PASS"
