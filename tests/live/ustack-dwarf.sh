#!/bin/sh
# -u / --user=dwarf: perf samples of the event unwound with the binaries'
# .eh_frame, joined to the instance's records. A build without frame
# pointers shows main -> ustack_a -> ustack_b -> ustack_c in order below the
# write's kernel stack (text, folded, JSON); the header says how many events
# got a user stack; a process that lived a few milliseconds and exited
# before stacktop read its samples is unwound and named all the same (its
# maps from perf's MMAP2 records); the frame-pointer build works too; a
# stripped copy gives [unknown] with file offsets, never a wrong name.
. "$(dirname "$0")/lib.sh"

[ -n "${CHAIN_FP:-}" ] && [ -x "$CHAIN_FP" ] || fail "no CHAIN_FP test program"
[ -n "${CHAIN_NOFP:-}" ] && [ -x "$CHAIN_NOFP" ] || fail "no CHAIN_NOFP test program"
[ "$(uname -m)" = x86_64 ] || skip "the chain program makes its syscall in x86-64 assembly"
"$STACKTOP" --user=dwarf -e syscalls:sys_enter_write -b -n 1 -d 0.1 > "$WORK/probe" 2>&1 ||
	{
		cat "$WORK/probe"
		grep -q 'built without libunwind\|perf_event_open' "$WORK/probe" && skip "no dwarf mode here"
		fail "--user=dwarf does not start"
	}

CHAIN_PID=
# a chain program writes from ustack_c every 10 ms until its stdin closes
start_chain() {
	rm -f "$WORK/fifo" "$WORK/chain.out"
	mkfifo "$WORK/fifo"
	"$@" < "$WORK/fifo" > "$WORK/chain.out" &
	CHAIN_PID=$!
	exec 9> "$WORK/fifo"
	wait_for "$WORK/chain.out" ready 100 || fail "$1 did not start"
}

stop_chain() {
	exec 9>&-
	wait "$CHAIN_PID" 2> /dev/null
	rm -f "/tmp/perf-$CHAIN_PID.map" # chain jit leaves it
	CHAIN_PID=
}

cleanup_chain() {
	[ -n "$CHAIN_PID" ] && kill "$CHAIN_PID" 2> /dev/null && wait "$CHAIN_PID" 2> /dev/null
	[ -n "$CHAIN_PID" ] && rm -f "/tmp/perf-$CHAIN_PID.map"
	[ -n "${ST_PID:-}" ] && kill "$ST_PID" 2> /dev/null && wait "$ST_PID" 2> /dev/null
	cleanup
}
trap cleanup_chain EXIT

run_u() { # output file, then stacktop options
	out=$1
	shift
	"$STACKTOP" -e syscalls:sys_enter_write -p "$CHAIN_PID" "$@" > "$out" 2> "$out.err" ||
		{ cat "$out.err"; fail "stacktop $* failed"; }
}

# the user frames of the top stack of a text report, names without offsets
user_chain() {
	awk '/^#1 /{p=1} p' "$1" | awk '/ --$/{u=1; next} u && NF {print $1}' |
		sed 's/+0x[0-9a-f]*$//' | head -4 | tr '\n' ' '
}

# 1. -u on the build without frame pointers: dwarf by default, the chain in
#    order after the "--" separator, below the syscall's kernel frames
start_chain "$CHAIN_NOFP"
run_u "$WORK/text" -u -b -n 1 -d 0.5 --expand 1 --top 5
cat "$WORK/text"
grep -q '^events: .*user stacks (dwarf)' "$WORK/text" || fail "-u did not take the dwarf mode"
grep -Eq '^user stacks: dwarf; [1-9][0-9]* events with a user stack' "$WORK/text" ||
	fail "the header does not count the events with a user stack"
awk '/^#1 /{p=1} p' "$WORK/text" > "$WORK/top"
awk '/ --$/{exit} /entry_SYSCALL_64/{k=1} END{exit !k}' "$WORK/top" ||
	fail "no syscall kernel stack above the user frames"
[ "$(user_chain "$WORK/text")" = "ustack_c ustack_b ustack_a main " ] ||
	fail "user frames are not c, b, a, main: $(user_chain "$WORK/text")"
grep -q "ustack_c+0x[0-9a-f]* (${CHAIN_NOFP##*/})" "$WORK/top" || fail "no 'func+0xoff (file)' frame"

# folded: user frames root-side, kernel frames _[k]
run_u "$WORK/folded" --user=dwarf -n 1 -d 0.5 --folded
grep -q 'main;ustack_a;ustack_b;ustack_c;[^ ]*entry_SYSCALL_64[^;]*_\[k\]' "$WORK/folded" ||
	{ cat "$WORK/folded"; fail "folded user part wrong"; }

# JSON: user_frames, and the join's counters under "user"
run_u "$WORK/json" --user=dwarf -n 1 -d 0.5 --json
python3 - "$WORK/json" "$CHAIN_PID" << 'PY' || fail "JSON user part wrong"
import json, sys
d = json.loads(open(sys.argv[1]).read())
u = d["user"]
assert u["mode"] == "dwarf", u
assert u["with_stack"] > 0, u
for k in ("no_sample", "sample_lost", "unwind_failed", "no_maps", "duplicates", "unclaimed"):
    assert k in u, k
s = max(d["stacks"], key=lambda s: s["total"])
names = [f["symbol"].split("+")[0] for f in s["user_frames"]]
assert names[:4] == ["ustack_c", "ustack_b", "ustack_a", "main"], names
assert s["tgid"] == int(sys.argv[2]), s["tgid"]
assert not any(x.startswith("ustack") for x in s["symbols"]), "user frames in kernel symbols"
PY
stop_chain

# a 40-level recursion: each level returns to the same address, and the
# walk still goes on to main (it once stopped at the second repeat)
start_chain "$CHAIN_NOFP" deep
run_u "$WORK/deep" --user=dwarf -b -n 1 -d 0.5 --expand 1 --top 5
# the user frames of the first expanded stack, up to the blank line after it
deep=$(awk '/^#1 /{p=1; next} p && !NF {exit} p && / --$/{u=1; next} p && u {print $1}' "$WORK/deep" |
	sed 's/+0x[0-9a-f]*$//' | tr '\n' ' ')
[ "$(echo "$deep" | tr ' ' '\n' | grep -c '^ustack_deep$')" -ge 41 ] &&
	case $deep in "ustack_c ustack_b ustack_a ustack_deep "*"ustack_deep main "*) true ;; *) false ;; esac ||
	{ cat "$WORK/deep"; fail "recursion under dwarf: $deep"; }
stop_chain

# a JIT region (anonymous memory named by perf-PID.map): its frame is named,
# the walk stops there with the cut mark, no guessed frames after it; the
# mark says the unwind failed (no table), not that the depth ran out
start_chain "$CHAIN_NOFP" jit
run_u "$WORK/jit" --user=dwarf -b -n 1 -d 0.5 --expand 1 --top 5
jit=$(awk '/^#1 /{p=1; next} p && !NF {exit} p && / --$/{u=1; next} p && u {print $1}' "$WORK/jit" |
	tr '\n' ' ')
case $jit in
"ustack_c+0x"*" ustack_jit_fn+0x"*" [cut: "*) ;;
*) cat "$WORK/jit"; fail "JIT frame under dwarf: $jit" ;;
esac
grep -q '^ *\[cut: unwind failed: no unwind table\]$' "$WORK/jit" ||
	{ cat "$WORK/jit"; fail "the JIT stack's cut mark does not say the unwind failed"; }
grep -q "ustack_jit_fn+0x[0-9a-f]* (perf-$CHAIN_PID.map)" "$WORK/jit" || fail "JIT frame not named from the map"
stop_chain

# 2. the frame-pointer build unwinds in the dwarf mode too
start_chain "$CHAIN_FP"
run_u "$WORK/fp" --user=dwarf -b -n 1 -d 0.5 --expand 1 --top 5
[ "$(user_chain "$WORK/fp")" = "ustack_c ustack_b ustack_a main " ] ||
	{ cat "$WORK/fp"; fail "fp build under dwarf: $(user_chain "$WORK/fp")"; }
# perf refused (no CAP_PERFMON/CAP_SYS_ADMIN: what perf_event_paranoid
# leaves a user): plain -u takes the frame-pointer way and says why;
# --user=dwarf is a clear error
command -v capsh > /dev/null || fail "capsh is not installed (scripts/deps.sh installs libcap2-bin)"
nocap() { capsh --drop=cap_sys_admin,cap_perfmon -- -c '"$@"' nocap "$@"; }
nocap "$STACKTOP" -u -e syscalls:sys_enter_write -p "$CHAIN_PID" -b -n 1 -d 0.5 --expand 1 --top 5 \
	> "$WORK/nocap" 2> "$WORK/nocap.err" || { cat "$WORK/nocap.err"; fail "-u without perf failed"; }
grep -q '^user stacks: fp .*dwarf unavailable (perf_event_open .*Permission denied' "$WORK/nocap" ||
	{ cat "$WORK/nocap" "$WORK/nocap.err"; fail "-u without perf: no fallback note"; }
[ "$(user_chain "$WORK/nocap")" = "ustack_c ustack_b ustack_a main " ] ||
	{ cat "$WORK/nocap"; fail "-u without perf (fp): $(user_chain "$WORK/nocap")"; }
nocap "$STACKTOP" --user=dwarf -e syscalls:sys_enter_write -p "$CHAIN_PID" -b -n 1 -d 0.5 \
	> "$WORK/nocap2" 2>&1 && fail "--user=dwarf without perf did not fail"
grep -q '^stacktop: .*--user=dwarf: .*Permission denied' "$WORK/nocap2" ||
	{ cat "$WORK/nocap2"; fail "--user=dwarf without perf: no clear error"; }
stop_chain

# 3. processes that live a few milliseconds: started after stacktop, gone
#    before their samples are read; the instance runs on the mono clock;
#    the kernel filter applies to perf's samples too (as many as events).
#    The filter is on the comm, machine-wide: the name is this run's own
#    (the test's pid and 16 random bits, 15 characters at most: a comm is
#    cut there), so a run of this test next to another counts only its own
SHORT="dws$$$(od -An -N2 -tx2 /dev/urandom | tr -d ' \n')"
cp "$CHAIN_NOFP" "$WORK/$SHORT"
# (the kernel filter applies to perf's samples too: no 8 KiB copies of
# every other write on the machine)
"$STACKTOP" -u -e "syscalls:sys_enter_write if comm == \"$SHORT\"" -n 6 -d 0.5 --cumulative \
	--json -o "$WORK/sh.json" 2> "$WORK/sh.err" &
ST_PID=$!
wait_for "$WORK/sh.1.json" '"hits"' 100 || { cat "$WORK/sh.err"; fail "no first report"; }
clk=$(cat "$T/instances/stacktop.$ST_PID/trace_clock")
case $clk in *"[mono]"*) ;; *) fail "the instance's trace_clock is not mono: $clk" ;; esac
for i in 1 2 3 4 5; do
	"$WORK/$SHORT" < /dev/null > /dev/null || fail "$SHORT failed"
done
wait "$ST_PID" || { cat "$WORK/sh.err"; fail "the run across the exits failed"; }
no_instance_of "$ST_PID"
ST_PID=
python3 - "$WORK/sh.6.json" "$SHORT" << 'PY' || fail "the exited processes' chains are not named"
import json, sys
d = json.loads(open(sys.argv[1]).read())
want = ["%s (%s)" % (f, sys.argv[2]) for f in ("ustack_c", "ustack_b", "ustack_a", "main")]
got = []
for s in d["stacks"]:
    names = [f["symbol"].split("+")[0] + " " + f["symbol"].split(" ")[-1] for f in s.get("user_frames", [])]
    if names[:4] == want:
        got.append(s["top"]["pid"])
print("processes with the whole chain:", got)
assert len(set(got)) == 5, (d["user"], [s.get("user_frames") for s in d["stacks"]])
assert d["user"]["samples"] == d["user"]["with_stack"] == d["hits"], d["user"]
PY

# 4. a stripped copy: the unwind works (.eh_frame stays), names do not
cp "$CHAIN_NOFP" "$WORK/chain-stripped"
strip "$WORK/chain-stripped"
start_chain "$WORK/chain-stripped"
run_u "$WORK/strip" -u -b -n 1 -d 0.5 --expand 1 --top 5
awk '/^#1 /{p=1} p' "$WORK/strip" > "$WORK/striptop"
cat "$WORK/striptop"
grep -q 'ustack_' "$WORK/striptop" && fail "a stripped binary got names"
awk '/ --$/{u=1; next} u && NF' "$WORK/striptop" | grep -Eo 'chain-stripped\+0x[0-9a-f]+' |
	head -4 | sed 's/.*+//' > "$WORK/offs"
[ "$(wc -l < "$WORK/offs")" = 4 ] || fail "not four [unknown] frames with file offsets"
# they fall in ustack_c, ustack_b, ustack_a and main of the unstripped file
python3 - "$CHAIN_NOFP" "$WORK/offs" << 'PY' || fail "stripped frames are not c, b, a, main"
import subprocess, sys
syms = {}
for line in subprocess.run(["nm", "-S", sys.argv[1]], capture_output=True, text=True).stdout.splitlines():
    f = line.split()
    if len(f) == 4 and f[2] in "tT":
        syms[f[3]] = (int(f[0], 16), int(f[1], 16))
offs = [int(x, 16) for x in open(sys.argv[2]).read().split()]
want = ["ustack_c", "ustack_b", "ustack_a", "main"]
for off, name in zip(offs, want):
    a, n = syms[name]
    # a return address may be one past its call at the very end of a function
    assert a <= off <= a + n, (name, hex(off), hex(a), n)
PY
stop_chain

# 5. where dwarf cannot work, -u says so and takes fp; --user=dwarf is an
#    error: a --tracefs (the simulator) is not this machine's kernel
if [ -n "${SIM_BIN:-}" ] && [ -n "${SIM_LIB:-}" ] && [ -c /dev/fuse ]; then
	. "$SIM_LIB"
	sim_start v4 --rate 200 || fail "sim_start"
	"$STACKTOP" --tracefs "$SIM_MNT" --kallsyms "$SIM_KALLSYMS" --mode stacks -u \
		-e sched:sched_switch -b -n 1 -d 0.3 --top 1 > "$WORK/sim" 2> "$WORK/sim.err" ||
		{ cat "$WORK/sim.err"; fail "-u on the simulator failed"; }
	grep -q '^user stacks: fp .*; fp: dwarf samples this machine' "$WORK/sim" ||
		{ cat "$WORK/sim"; fail "-u does not say it fell back to fp"; }
	"$STACKTOP" --tracefs "$SIM_MNT" --kallsyms "$SIM_KALLSYMS" --mode stacks --user=dwarf \
		-e sched:sched_switch -b -n 1 -d 0.3 > "$WORK/sim2" 2> "$WORK/sim2.err" &&
		fail "--user=dwarf with --tracefs accepted"
	grep -q 'user=dwarf samples this machine' "$WORK/sim2.err" ||
		fail "--user=dwarf --tracefs message: $(cat "$WORK/sim2.err")"
	sim_stop
fi
echo "ok: ustack-dwarf"
