#!/bin/sh
# --oncpu: on-CPU profiling by perf's cpu-clock, beside perf itself. The same
# process (a dd reading /dev/zero: known kernel leaves) sampled at the same
# time by `perf record -F 999 -g -p` and `stacktop --oncpu -p`: the leaf
# functions' shares agree (within 3 points, or 4 standard deviations of the
# difference of two binomial shares when the machine gave the process few
# samples); the leaf is the interrupted function (no timer-interrupt frame,
# no __pfx_ padding symbol); nothing in tracefs changes; -- CMD profiles the
# command; user-mode samples are a row of each command's own, [user space]
# < COMMAND, in the JSON, the text and the folded lines. --oncpu=tick (the
# kernel's tick traced in a private instance, cut at the interrupt entry)
# runs at the same time and agrees with perf the same way, with no frame of
# the interrupt's own left in any stack.
. "$(dirname "$0")/lib.sh"
command -v perf > /dev/null || skip "perf is not installed (scripts/deps.sh installs it)"

snapshot "$WORK/before"
dd if=/dev/zero of=/dev/null bs=64k 2> /dev/null &
WORKLOAD_PID=$!
sleep 0.3

perf record -F 999 -g -p "$WORKLOAD_PID" -o "$WORK/p.data" -- sleep 5 > "$WORK/perf.log" 2>&1 &
PERF=$!
"$STACKTOP" --oncpu=tick -p "$WORKLOAD_PID" -b -n 1 -d 5 --json > "$WORK/tick.json" 2> "$WORK/tick.err" &
TICK=$!
EXTRA_PIDS="$PERF $TICK"
"$STACKTOP" --oncpu -p "$WORKLOAD_PID" -b -n 1 -d 5 --format folded > "$WORK/st.folded" 2> "$WORK/st.err" ||
	{ cat "$WORK/st.err"; fail "stacktop --oncpu failed"; }
wait "$PERF" || { cat "$WORK/perf.log"; fail "perf record failed"; }
wait "$TICK" || { cat "$WORK/tick.err"; fail "stacktop --oncpu=tick failed"; }
EXTRA_PIDS=
snapshot "$WORK/after"
diff "$WORK/before" "$WORK/after" > /dev/null || fail "--oncpu changed tracefs: $(diff "$WORK/before" "$WORK/after")"

perf report -i "$WORK/p.data" --no-children --sort sym -g none --stdio -q 2> /dev/null |
	awk '/%/ { p = $1; sub(/%/, "", p); sym = $2 == "[k]" ? $3 : "[user_space]"; print sym, p }' \
		> "$WORK/perf.shares"
[ -s "$WORK/perf.shares" ] || fail "perf report gave no shares"
perf_n=$(perf script -i "$WORK/p.data" -F period 2> /dev/null | wc -l)

python3 - "$WORK/st.folded" "$WORK/perf.shares" "$perf_n" "$WORK/tick.json" << 'PY' || fail "stacktop and perf disagree"
import json, math, sys
leaf, total = {}, 0
for line in open(sys.argv[1]):
    frames, n = line.rstrip("\n").rsplit(" ", 1)
    f = frames.split(";")[-1]
    f = f[:-4] if f.endswith("_[k]") else f  # "[user space]" is "[user_space]" here
    leaf[f] = leaf.get(f, 0) + int(n)
    total += int(n)
assert total > 200, "stacktop has %d samples of dd" % total
# --oncpu=tick: the same leaves from the tick event, no interrupt frame at all
d = json.loads(open(sys.argv[4]).readline())
assert d["mode"] in ("stacks", "stackmap"), d["mode"]
assert len(d["events"]) == 1 and d["events"][0].split()[0] in (
    "timer:hrtimer_expire_entry", "irq_vectors:local_timer_entry"), d["events"]
tleaf, ttotal = {}, 0
for s in d["stacks"]:
    syms = [f.split("+")[0] for f in s["symbols"]]
    # the tick's own frames: none at the leaf, none of its tracepoint anywhere
    # (an outer interrupt's entry may stay at the root: a task the tick caught
    # scheduling on its way out of that interrupt). Another tracepoint is
    # the task's own: a task the tick caught while another tracer saved a
    # stack of its system call (trace_event_raw_event_sys_enter <
    # stack_trace_save < ...) is on the CPU in that code
    bad = [f for f in syms[:1] if f.startswith("asm_sysvec") or "apic_timer_interrupt" in f or
           f.startswith("hrtimer_interrupt")]
    bad += [f for f in syms if f.startswith(("trace_event_raw_event_hrtimer",
                                             "trace_event_raw_event_x86_irq_vector",
                                             "__hrtimer_run_queues"))]
    assert not bad, "--oncpu=tick kept interrupt frames: %s" % syms
    f = "[user_space]" if syms[0] == "[user space]" else syms[0]
    f = "[trampoline]" if "trampoline" in f.lower() else f
    tleaf[f] = tleaf.get(f, 0) + s["total"]
    ttotal += s["total"]
assert ttotal > 100, "--oncpu=tick has %d ticks of dd" % ttotal
assert not d.get("tick_whole"), "%s tick stacks were not cut" % d.get("tick_whole")
perf = {}
for line in open(sys.argv[2]):
    sym, p = line.split()
    # another tool's ftrace trampoline (a test beside this one, bpftrace):
    # perf names it ftrace_ops_trampoline, stacktop by its kallsyms entry
    if "trampoline" in sym.lower():
        sym = "[trampoline]"
    perf[sym] = perf.get(sym, 0) + float(p)
for d in (leaf,):
    for f in [f for f in d if "trampoline" in f.lower()]:
        d["[trampoline]"] = d.get("[trampoline]", 0) + d.pop(f)
pn = max(int(sys.argv[3]), 1)
bad = [f for f in leaf if f.startswith("__pfx_") or f.startswith("asm_sysvec") or
       "apic_timer_interrupt" in f]
assert not bad, "interrupt or padding leaves: %s" % bad
# the kernel's top three leaves, and the user-mode samples' share ([.] in perf)
top = sorted(perf.items(), key=lambda kv: -kv[1])[:4]
print("stacktop %d samples, perf %d" % (total, pn))
for sym, p in top:
    if p < 5:
        continue
    s = 100.0 * leaf.get(sym, 0) / total
    sd = 100 * math.sqrt((p / 100) * (1 - p / 100) * (1.0 / total + 1.0 / pn))
    tol = max(3.0, 4 * sd)
    print("  %-30s perf %5.2f%%  stacktop %5.2f%%  (within %.1f)" % (sym, p, s, tol))
    assert abs(s - p) <= tol, "%s: perf %.2f%%, stacktop %.2f%%" % (sym, p, s)
    t = 100.0 * tleaf.get(sym, 0) / ttotal
    sd = 100 * math.sqrt((p / 100) * (1 - p / 100) * (1.0 / ttotal + 1.0 / pn))
    tol = max(3.0, 4 * sd)
    print("  %-30s perf %5.2f%%  tick     %5.2f%%  (within %.1f, %d ticks)" % (sym, p, t, tol, ttotal))
    assert abs(t - p) <= tol, "%s: perf %.2f%%, --oncpu=tick %.2f%%" % (sym, p, t)
PY

# -- CMD: the command's CPU time, its user-mode samples a row of their own
# for each command (issue 35: one [user space] row held every process's):
# two shells named apart (copies of sh) loop in user space beside a dd;
# both modes, perf's samples and the tick's
cp "$(command -v sh)" "$WORK/stbusya"
cp "$(command -v sh)" "$WORK/stbusyb"
LOOP='i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done'
for mode in oncpu oncpu=tick; do
	"$STACKTOP" --$mode -b --json -- sh -c "$WORK/stbusya -c '$LOOP' & $WORK/stbusyb -c '$LOOP'; wait; \
		dd if=/dev/zero of=/dev/null bs=64k count=50000 2>/dev/null" > "$WORK/cmd.json" 2> "$WORK/cmd.err" ||
		{ cat "$WORK/cmd.err"; fail "--$mode -- CMD failed"; }
	"$STACKTOP" -r "$WORK/cmd.json" --top 50 --expand 0 > "$WORK/cmd.txt" 2>&1 || fail "-r cmd.json failed"
	"$STACKTOP" -r "$WORK/cmd.json" --folded > "$WORK/cmd.folded" 2>&1 || fail "-r cmd.json --folded failed"
	grep -E '^ +[0-9]+ .*\[user space\]' "$WORK/cmd.txt"
	python3 - "$WORK/cmd.json" "$mode" "$WORK/cmd.txt" "$WORK/cmd.folded" << 'PY' || fail "--$mode -- CMD: wrong report"
import json, re, sys
d = json.loads(open(sys.argv[1]).readline())
if sys.argv[2] == "oncpu":
    assert d["mode"] == "oncpu", d["mode"]
    assert d["events"] == ["perf:cpu-clock"], d["events"]
comms = {b["comm"] for s in d["stacks"] for b in s["by"]}
assert comms <= {"sh", "dd", "stbusya", "stbusyb"} and "stbusya" in comms, comms
leaves = {s["symbols"][0].split("+")[0] for s in d["stacks"]}
assert "[user space]" in leaves, leaves
assert "read_zero" in leaves or any(l.startswith("clear_user") for l in leaves), leaves
# each command's user time is a row of its own: [user space] < COMMAND,
# every hit of it that command's
user = {}
for s in d["stacks"]:
    if s["symbols"][0] != "[user space]":
        continue
    assert len(s["symbols"]) == 2, s["symbols"]
    who = {b["comm"] for b in s["by"]}
    assert who == {s["symbols"][1]}, (s["symbols"], who)
    user[s["symbols"][1]] = s["total"]
print("[user space] by command:", user)
assert {"stbusya", "stbusyb"} <= set(user), user
rows = {}
for line in open(sys.argv[3]):
    m = re.match(r"^ +[0-9]+ +\S+ +\S+ +([0-9]+) .*\[user space\] < (\S+)\s*$", line)
    if m:
        rows[m.group(2)] = int(m.group(1))
assert rows == user, (rows, user)
folded = {}
for line in open(sys.argv[4]):
    m = re.match(r"^(\S+);\[user_space\] ([0-9]+)$", line.strip())
    if m:
        folded[m.group(1)] = int(m.group(2))
assert folded == user, (folded, user)
PY
done
"$STACKTOP" --oncpu -e sched:sched_switch -b -n 1 2> "$WORK/err" && fail "--oncpu with -e was accepted"
grep -q "oncpu samples the CPUs: not with -e" "$WORK/err" || fail "no clear refusal: $(cat "$WORK/err")"
"$STACKTOP" --oncpu=0 -b -n 1 2> "$WORK/err" && fail "--oncpu=0 was accepted"
grep -q "bad --oncpu '0'" "$WORK/err" || fail "no clear refusal: $(cat "$WORK/err")"
"$STACKTOP" --oncpu=tick -e sched:sched_switch -b -n 1 2> "$WORK/err" && fail "--oncpu=tick with -e was accepted"
grep -q "oncpu=tick traces the kernel's tick: not with -e" "$WORK/err" || fail "no clear refusal: $(cat "$WORK/err")"
echo "PASS: --oncpu agrees with perf record -F 999 -g, leaves are the interrupted functions"
