#!/bin/sh
# stacktop [OPTION]... -- CMD: the command's process tree only, from its
# first event (it is released once tracing is on), even its processes that
# lived a moment; its exit status is stacktop's; run through sudo, it runs
# as the sudo user; a ^C reaches both, and the report is still written.
. "$(dirname "$0")/lib.sh"

snapshot "$WORK/before"

# json_hits FILE EVENT [COMM]: the hits of EVENT (of comm COMM) in a JSON report
json_hits() {
	python3 - "$@" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
n = 0
for s in d["stacks"]:
    for r in s["by"]:
        if r["event"] == sys.argv[2] and (len(sys.argv) < 4 or r["comm"] == sys.argv[3]):
            n += r["total"]
print(n)
EOF
}

# json_pids FILE: the pids of every record in a JSON report, one a line
json_pids() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print("\n".join(sorted({str(r["pid"]) for s in d["stacks"] for r in s["by"]})))
' "$1"
}

command -v python3 > /dev/null || skip "python3 is not installed"
[ -d "$T/events/syscalls/sys_enter_exit_group" ] || skip "no syscalls:sys_enter_exit_group event (CONFIG_FTRACE_SYSCALLS)"

# the JSON's field names, as this stacktop writes them
"$STACKTOP" -b -n 1 -d 0.1 --json --top 3 > "$WORK/probe.json" 2> "$WORK/probe.err" ||
	{ cat "$WORK/probe.err"; fail "a plain JSON run failed"; }
python3 -c 'import json,sys; r = json.load(open(sys.argv[1]))["stacks"][0]["by"][0]; [r[k] for k in ("event", "comm", "pid", "total")]' \
	"$WORK/probe.json" || fail "the JSON breakdown (by) lacks event/comm/pid/total"

# 1. the first events: the exec itself, and the one syscall true makes last
"$STACKTOP" -b --json -e sched:sched_process_exec -e syscalls:sys_enter_exit_group -- /bin/true \
	> "$WORK/first.json" 2> "$WORK/first.err"
st=$?
[ "$st" = 0 ] || { cat "$WORK/first.err"; fail "-- /bin/true: status $st"; }
# (by pid: true may be gone before its name is read, and show as "?")
[ "$(json_hits "$WORK/first.json" sched:sched_process_exec)" = 1 ] ||
	{ cat "$WORK/first.json"; fail "the command's exec was not seen"; }
[ "$(json_hits "$WORK/first.json" syscalls:sys_enter_exit_group)" = 1 ] ||
	{ cat "$WORK/first.json"; fail "true's exit_group was not seen"; }
[ "$(json_pids "$WORK/first.json" | wc -l)" = 1 ] || { cat "$WORK/first.json"; fail "more than the command's pid"; }
echo "ok: the command's first event (its exec) and its last syscall are counted"

# 2. processes of the tree that lived a moment: five trues, each gone long
# before stacktop reads, each counted (the tree follows forks as they happen)
"$STACKTOP" -b --json -e syscalls:sys_enter_exit_group -- \
	sh -c 'for i in 1 2 3 4 5; do /bin/true; done' > "$WORK/short.json" 2> "$WORK/short.err"
st=$?
[ "$st" = 0 ] || { cat "$WORK/short.err"; fail "the short children run: status $st"; }
# (their names may be unknown: gone before stacktop could read them)
n=$(json_hits "$WORK/short.json" syscalls:sys_enter_exit_group)
np=$(json_pids "$WORK/short.json" | wc -l)
[ "$n" = 6 ] && [ "$np" = 6 ] ||
	{ cat "$WORK/short.err" "$WORK/short.json"; fail "$n exit_group of $np pids counted, 6 of 6 expected (sh and five trues)"; }
grep -q "proc connector" "$WORK/short.err" && cat "$WORK/short.err"
echo "ok: five short-lived children of the command are counted (6 exits of 6 pids with sh's)"

# 3. only the tree: a busy process outside it, on the same CPU as the
# command, switches to the command's tasks all the time (the kernel records
# those switches: either side filtered in); none of its records count
( exec taskset -c 0 sh -c 'while :; do :; done' ) &
BUSY=$!
EXTRA_PIDS="$EXTRA_PIDS $BUSY"
mkdir -m 0777 "$WORK/tree"
# (every process of the tree writes its pid: builtins only, exec for the rest)
"$STACKTOP" -b --json --top 100000 -- taskset -c 0 sh -c '
	echo $$ >> '"$WORK"'/tree/pids
	i=0
	while [ $i -lt 20 ]; do
		sh -c "echo \$\$ >> '"$WORK"'/tree/pids; exec sleep 0.01"
		i=$((i + 1))
	done' \
	> "$WORK/tree.json" 2> "$WORK/tree.err"
st=$?
[ "$st" = 0 ] || { cat "$WORK/tree.err"; fail "the tree run: status $st"; }
# the text report says what -- CMD counts by default, and what counts CPU time
"$STACKTOP" -b -- sleep 0.1 > "$WORK/what.txt" 2> "$WORK/what.err" || { cat "$WORK/what.err"; fail "-- sleep failed"; }
grep -q '^events: sched:sched_switch (default): context switches, where tasks block or yield (--oncpu counts CPU time)$' "$WORK/what.txt" ||
	fail "-- CMD does not say what it counts: $(grep '^events' "$WORK/what.txt")"
json_pids "$WORK/tree.json" > "$WORK/tree.seen"
[ -s "$WORK/tree.seen" ] || fail "nothing counted of the command's tree"
sort -u "$WORK/tree/pids" > "$WORK/tree.want"
outside=$(comm -23 "$WORK/tree.seen" "$WORK/tree.want" | tr '\n' ' ')
grep -q -x "$BUSY" "$WORK/tree.seen" && fail "the busy process outside the tree ($BUSY) was counted"
[ -z "$outside" ] || fail "pids outside the tree were counted: $outside (tree: $(tr '\n' ' ' < "$WORK/tree.want"))"
[ "$(wc -l < "$WORK/tree.seen")" -ge 10 ] || fail "too few of the tree's processes counted: $(tr '\n' ' ' < "$WORK/tree.seen")"
# the control: without the tree, the busy process's switches are there to
# leave out. Alone on CPU 0 (a quiet machine) the spinner may not switch at
# all in the control's time: a sleeper on CPU 0 wakes every 10 ms and takes
# the CPU from it, as the command's tree did
( exec taskset -c 0 sh -c 'while :; do sleep 0.01; done' ) &
WAKER=$!
EXTRA_PIDS="$EXTRA_PIDS $WAKER"
"$STACKTOP" -b -n 1 -d 0.5 --json --top 100000 -C 0 > "$WORK/all.json" 2> "$WORK/all.err"
kill "$WAKER"
wait "$WAKER" 2>/dev/null
grep -q -x "$BUSY" "$(json_pids "$WORK/all.json" > "$WORK/all.seen"; echo "$WORK/all.seen")" ||
	fail "control: the busy process ($BUSY) is not in an unfiltered run: the check above proves nothing"
kill "$BUSY"
wait "$BUSY" 2> /dev/null
echo "ok: only the command's tree is counted ($(wc -l < "$WORK/tree.seen") of its pids; the busy pid $BUSY left out)"

# 4. the exit status is the command's
"$STACKTOP" -b --top 1 -- sh -c 'exit 3' > /dev/null 2> "$WORK/st.err"
st=$?
[ "$st" = 3 ] || { cat "$WORK/st.err"; fail "exit 3: stacktop's status $st"; }
"$STACKTOP" -b --top 1 -- sh -c 'kill -TERM $$' > /dev/null 2> "$WORK/st.err"
st=$?
[ "$st" = 143 ] || { cat "$WORK/st.err"; fail "killed by SIGTERM: stacktop's status $st, expected 143"; }
"$STACKTOP" -b --top 1 -- "$WORK/no-such-command" > /dev/null 2> "$WORK/st.err"
st=$?
[ "$st" = 127 ] || { cat "$WORK/st.err"; fail "a missing command: status $st, expected 127"; }
grep -q "cannot run .*no-such-command: No such file or directory" "$WORK/st.err" ||
	{ cat "$WORK/st.err"; fail "a missing command: no clear error"; }
echo "ok: exit status 3 -> 3, SIGTERM -> 143, not found -> 127"

# 5. as the sudo user: uid, gid and groups of SUDO_UID, the environment reset
# but for what --preserve-env=VAR names
chmod 0711 "$WORK"
mkdir -m 0777 "$WORK/nobody"
nobody_gid=$(id -g nobody) || skip "no user nobody"
SUDO_UID=$(id -u nobody) SUDO_GID=$nobody_gid SUDO_MARK=kept SUDO_GONE=gone \
	"$STACKTOP" -b --top 1 --preserve-env=SUDO_MARK -- sh -c "id -u > $WORK/nobody/uid; id -g > $WORK/nobody/gid; id -G > $WORK/nobody/groups; echo \$SUDO_MARK\$SUDO_GONE > $WORK/nobody/env" \
	> /dev/null 2> "$WORK/sudo.err"
st=$?
[ "$st" = 0 ] || { cat "$WORK/sudo.err"; fail "SUDO_UID run: status $st"; }
[ "$(cat "$WORK/nobody/uid")" = "$(id -u nobody)" ] || fail "the command ran as uid $(cat "$WORK/nobody/uid"), not nobody's"
[ "$(cat "$WORK/nobody/gid")" = "$nobody_gid" ] || fail "the command ran as gid $(cat "$WORK/nobody/gid")"
[ "$(tr ' ' '\n' < "$WORK/nobody/groups" | sort -n | tr '\n' ' ')" = "$(id -G nobody | tr ' ' '\n' | sort -n | tr '\n' ' ')" ] ||
	fail "the command's groups $(cat "$WORK/nobody/groups") are not nobody's ($(id -G nobody))"
[ "$(cat "$WORK/nobody/env")" = kept ] || fail "--preserve-env=SUDO_MARK: the environment was '$(cat "$WORK/nobody/env")', not 'kept'"
[ "$(stat -c %u "$WORK/nobody/uid")" = "$(id -u nobody)" ] || fail "the file is not nobody's"
echo "ok: SUDO_UID=$(id -u nobody): the command ran as nobody (uid, gid, groups), environment reset but for --preserve-env's"

# 6. -n ends the trace first: the command gets SIGTERM, its status is stacktop's
t0=$(ms_now)
"$STACKTOP" -b -n 1 -d 0.3 --top 1 -- sleep 30 > "$WORK/n.out" 2> "$WORK/n.err"
st=$?
el=$(($(ms_now) - t0))
[ "$st" = 143 ] || { cat "$WORK/n.err"; fail "-n 1 -- sleep 30: status $st, expected 143 (SIGTERM)"; }
[ "$el" -lt 10000 ] || fail "-n 1 -- sleep 30 took $el ms"
grep -q '^stacktop ' "$WORK/n.out" || fail "-n 1 -- sleep 30: no report"
echo "ok: -n 1: one report, then the command gets SIGTERM (status 143, $el ms)"

# 7. ^C: the whole foreground process group gets it; the report is written
# (a job of a shell without job control starts with SIGINT ignored: not a terminal's)
python3 -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.setsid(); os.execv(sys.argv[1], sys.argv[1:])' \
	"$STACKTOP" -b --top 3 -- sleep 30 > "$WORK/int.out" 2> "$WORK/int.err" &
pid=$!
tries=100
while [ -z "$(pgrep -P "$pid" -x sleep)" ] && [ $tries -gt 0 ]; do sleep 0.05; tries=$((tries - 1)); done
[ -n "$(pgrep -P "$pid" -x sleep)" ] || { kill -9 "$pid"; fail "the command did not start"; }
sleep 0.3
kill -INT "-$pid"
wait "$pid"
st=$?
[ "$st" = 130 ] || { cat "$WORK/int.err"; fail "^C: status $st, expected 130 (the command's SIGINT)"; }
grep -q '^stacktop ' "$WORK/int.out" || { cat "$WORK/int.err"; fail "^C: no report"; }
echo "ok: ^C to the process group: the report, then the command's status (130)"

# a command that ignores ^C and takes a second to end on SIGTERM: its status
# is still waited for (the signals' watchdog, which ends a run 700 ms after a
# stop signal, is told tracefs is restored and waits longer)
python3 -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.setsid(); os.execv(sys.argv[1], sys.argv[1:])' \
	"$STACKTOP" -b --top 3 -- sh -c 'trap "" INT; trap "sleep 1; exit 7" TERM; while :; do sleep 0.1; done' \
	> "$WORK/slow.out" 2> "$WORK/slow.err" &
pid=$!
tries=100
while [ -z "$(pgrep -P "$pid" -x sh)" ] && [ $tries -gt 0 ]; do sleep 0.05; tries=$((tries - 1)); done
[ -n "$(pgrep -P "$pid" -x sh)" ] || { kill -9 "$pid"; fail "the slow command did not start"; }
sleep 0.5 # its traps set
kill -INT "-$pid"
wait "$pid"
st=$?
[ "$st" = 7 ] || { cat "$WORK/slow.err"; fail "^C, a command that ends 1 s after SIGTERM: status $st, expected 7"; }
grep -q '^stacktop ' "$WORK/slow.out" || fail "^C (slow command): no report"
echo "ok: ^C, the command ignoring it and ending 1 s after SIGTERM: its status (7) waited for"

# 8. the command keeps stacktop's stdout in batch mode; what does not go with --
"$STACKTOP" -b --top 1 -o "$WORK/rep.txt" -- sh -c 'echo out-of-the-command' > "$WORK/io.out" 2>&1 ||
	fail "-o with a command failed"
grep -q -x out-of-the-command "$WORK/io.out" || fail "the command's output is not on stacktop's stdout"
grep -q '^stacktop ' "$WORK/rep.txt" || fail "no report in the -o file"
for bad in "-p 1" "--tid 1" "--mode passive" "--tracefs /tmp"; do
	# shellcheck disable=SC2086
	"$STACKTOP" -b $bad -- /bin/true > /dev/null 2> "$WORK/bad.err"
	st=$?
	[ "$st" = 2 ] || fail "$bad -- CMD: status $st, expected 2"
	grep -q -- "-- CMD: not with" "$WORK/bad.err" || { cat "$WORK/bad.err"; fail "$bad -- CMD: no clear error"; }
done
"$STACKTOP" -b -- > /dev/null 2> "$WORK/bad.err"
[ $? = 2 ] || fail "a bare --: not a usage error"
echo "ok: batch keeps the command's stdio; -p, --tid, --mode passive, --tracefs and a bare -- refused"

# 9. -u: the command's user stacks, named from its exec on (the maps the
# waiting child had were stacktop's own)
if [ -n "${CHAIN_FP:-}" ] && [ -x "$CHAIN_FP" ]; then
	(sleep 1.5) | "$STACKTOP" -b -u -e syscalls:sys_enter_write --top 3 --expand 12 -- "$CHAIN_FP" \
		> "$WORK/u.out" 2> "$WORK/u.err"
	st=$?
	[ "$st" = 0 ] || { cat "$WORK/u.err"; fail "-u -- chain: status $st"; }
	for f in ustack_c ustack_b ustack_a main; do
		grep -q "^ *$f+0x[0-9a-f]* (ustack-chain-fp)" "$WORK/u.out" ||
			{ cat "$WORK/u.out" "$WORK/u.err"; fail "-u -- chain: no $f frame"; }
	done
	echo "ok: -u -- CMD: the command's frames named (ustack_c < ustack_b < ustack_a < main)"
else
	echo "(no CHAIN_FP: the -u case is left out)"
fi

# every run above left tracefs as it was, and no process behind
snapshot "$WORK/after"
diff -u "$WORK/before" "$WORK/after" || fail "tracefs state changed"
echo "ok: tracefs as before"
