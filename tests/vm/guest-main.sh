# guest-main.sh - the VM tier's first boot (the default 2^14 pool): the
# guest side of the cases that vm-tier.py checks on the host (see there for
# what each one asserts). Sourced after guest-lib.sh; cases run in this
# order on one kernel, each leaving tracefs as it found it.

# ---- fresh: on the freshly booted kernel, the top-level ring buffer is
# not expanded (buffer_size_kb "7 (expanded: 1408)") and the modes that
# trace in an instance or with perf leave it so (issue 27 #7: a write to the
# top level's set_event_notrace_pid alone expands it, 1408 KiB a CPU); the
# stackmap mode, which traces at the top level, expands it: what it costs
# there, measured last (issue 36 #7) ----------------------------------------
case_begin fresh
cat "$T/buffer_size_kb" > "$C/boot"
st_run stacks --mode stacks -b -n 1 -d 0.5
cat "$T/buffer_size_kb" > "$C/after-stacks"
st_run oncpu --oncpu -b -n 1 -d 0.5
cat "$T/buffer_size_kb" > "$C/after-oncpu"
st_run tick --oncpu=tick --mode stacks -b -n 1 -d 0.5
cat "$T/buffer_size_kb" > "$C/after-tick"
st_run sample --sample 10 -b -n 1 -d 0.5
cat "$T/buffer_size_kb" > "$C/after-sample"
st_run passive --mode passive -b -n 1 -d 0.5
cat "$T/buffer_size_kb" > "$C/after-passive"
st_run stackmap --mode stackmap -b -n 1 -d 0.5
cat "$T/buffer_size_kb" > "$C/after-stackmap"
cat "$T/buffer_total_size_kb" > "$C/total-after-stackmap" 2> /dev/null
reset_map # the probe that follows wants the boot's empty map
case_end

# ---- probe: the tracefs facts the simulator must agree with -------------
# first, on the freshly booted kernel (an empty map)
case_begin probe
sh /test/probe-tracefs.sh "$T" "$W" > "$C/probe.out" 2>&1 || gerr "probe-tracefs.sh failed"
reset_map
case_end

# ---- auto: stackmap mode chosen on its own, default events ---------------
case_begin auto
state_dump "$C/before"
# the ping-pong starts at stacktop's first report: on a busy host an ASan
# build under TCG took longer to start than the 3 s the ping-pong ran, and
# the report held only its exit's stacks (issue 25)
st_bg auto -b --json -n 2 -d 1
wait_lines "$C/auto.out" 1 120
workload pingpong 3
wait "$STPID"
echo $? > "$C/auto.rc"
wait "$WPID"
state_dump "$C/after"
case_end

# ---- tick: --oncpu=tick through the stack map (the periodic kernel's
# tick is irq_vectors:local_timer_entry), cut at the interrupt entry ------
case_begin tick
state_dump "$C/before"
st_bg tick --oncpu=tick -b --json -n 2 -d 1 --top 100000
wait_lines "$C/tick.out" 1 120
workload pingpong 3
wait "$STPID"
echo $? > "$C/tick.rc"
wait "$WPID"
state_dump "$C/after"
reset_map
case_end

# ---- sample: --sample on the stack map's kernel (perf's path: the map is
# not used) and what each mode costs the ping-pong here (informational: TCG)
case_begin sample
state_dump "$C/before"
cat "$T/stack_map_stat" > "$C/stat-before"
st_bg sample --sample 100 -e sched:sched_switch -b --json -n 2 -d 1 --top 100000
wait_lines "$C/sample.out" 1 120
workload pingpong 3
wait "$STPID"
echo $? > "$C/sample.rc"
wait "$WPID"
cat "$T/stack_map_stat" > "$C/stat-after"
for r in 1 2; do
	for m in none stackmap stacks sample100; do
		P=
		case $m in
		stackmap) "$ST" -e sched:sched_switch -b -d 60 -n 1 > /dev/null 2> "$C/cost-$m-$r.err" & P=$! ;;
		stacks) "$ST" --mode stacks -e sched:sched_switch -b -d 60 -n 1 > /dev/null 2> "$C/cost-$m-$r.err" & P=$! ;;
		sample100) "$ST" --sample 100 -e sched:sched_switch -b -d 60 -n 1 > /dev/null 2> "$C/cost-$m-$r.err" & P=$! ;;
		esac
		[ -n "$P" ] && sleep 4
		"$W" pingpong 2 > "$C/cost-$m-$r"
		if [ -n "$P" ]; then
			kill -INT "$P"
			wait "$P"
		fi
	done
done
state_dump "$C/after"
reset_map
case_end

# ---- refcounts: hits and ids against the kernel's ref counts -------------
case_begin refcounts
state_dump "$C/before"
st_bg refcounts --reset-first --show-self -b --json -d 0.5 --top 100000
wait_lines "$C/refcounts.out" 1
"$W" pingpong 2 > "$C/work.out"
# freeze the kernel's side, let stacktop read everything, then compare
echo 0 > "$T/tracing_on"
n=$(grep -c . "$C/refcounts.out")
wait_lines "$C/refcounts.out" $((n + 3)) 20
save_map frozen
st_stop refcounts TERM
state_dump "$C/after"
case_end

# ---- reset-first: --reset-first empties a map another tool filled --------
case_begin reset-first
other_tool_record kmem/kmalloc 1
save_map old
state_dump "$C/before"
workload pingpong 3
st_run reset -b --json -n 2 -d 1 --reset-first
wait "$WPID"
echo 0 > "$T/tracing_on"
save_map new
echo 1 > "$T/tracing_on"
state_dump "$C/after"
case_end

# ---- reset-ebusy: the kernel refuses the reset (tracing turned on again
# under stacktop's feet): said, not fatal, nothing left changed ------------
case_begin reset-ebusy
state_dump "$C/before"
ebusy_on
st_run ebusy -b --json -n 1 -d 0.5 --reset-first
ebusy_off
state_dump "$C/after"
reset_map
case_end

# ---- screen: r (twice), r refused (EBUSY), s off/on in stackmap mode; s in
# the stacks mode's instance (EINVAL); q restores -------------------------
case_begin screen
other_tool_record kmem/kmalloc 1
state_dump "$C/before"
workload pingpong 60
if tui_start 160 40; then
	tui_keys "cd /tmp && $ST; echo __RC=\$?__" Enter
	tui_wait 'mode stackmap' 30 && tui_wait ' gen 0 ' 10
	tui_save pane-start
	cat "$T/stack_map" > "$C/map-before-r"
	tui_keys r
	tui_wait 'press r again to reset the kernel stack map' 5
	tui_keys r
	tui_wait 'reset: kernel map and counts start from zero' 10 && tui_wait ' gen 1 ' 10
	tui_save pane-reset
	# the map right after the reset: the other tool's kmalloc stacks are gone
	cat "$T/stack_map" > "$C/map-after-r"
	ebusy_on
	tui_keys r
	tui_keys r
	tui_wait 'reset refused: EBUSY' 10
	tui_save pane-ebusy
	ebusy_off
	tui_keys s
	tui_wait 'kernel stackmap option turned off' 5 && tui_wait 'stackmap off' 5
	tui_save pane-s-off
	echo "$(cat "$T/options/stackmap")" > "$C/option-after-s-off"
	tui_keys s
	tui_wait 'kernel stackmap option turned on' 5 && tui_wait 'stackmap on' 5
	tui_save pane-s-on
	echo "$(cat "$T/options/stackmap")" > "$C/option-after-s-on"
	tui_keys q
	tui_wait '__RC=[0-9]+__' 20
	tui_save pane-quit
	state_dump "$C/after-stackmap"
	# the stacks mode: the option lives at the top level only
	tui_keys "clear; $ST --mode stacks; echo __RC=\$?__" Enter
	tui_wait 'mode stacks' 30
	ls "$T/instances" > "$C/instances-stacks"
	tui_keys s
	tui_wait 'cannot turn stackmap on: EINVAL' 5
	tui_save pane-stacks-s
	echo "$(cat "$T/options/stackmap")" > "$C/option-after-stacks-s"
	tui_keys q
	tui_wait '__RC=[0-9]+__' 20
	tui_save pane-stacks-quit
	tui_stop
fi
kill "$WPID" 2> /dev/null
wait "$WPID" 2> /dev/null
state_dump "$C/after"
reset_map
case_end

# ---- passive: ref_count deltas, nothing consumed, nothing changed --------
case_begin passive
other_tool_record sched/sched_switch 1
# the other tool's records stay in the buffer: passive mode must not read them
echo 0 > "$T/tracing_on"
save_map frozen
buffer_stats > "$C/stats-before"
state_dump "$C/before"
st_run frozen --mode passive -b --json -n 2 -d 0.5 --top 100000
buffer_stats > "$C/stats-after"
state_dump "$C/after"
# and while the other tool records: the growth of ref_count
echo 1 > "$T/tracing_on"
echo 1 > "$T/options/stackmap"
echo 1 > "$T/options/stacktrace"
echo 1 > "$T/events/sched/sched_switch/enable"
save_map live0
workload pingpong 4
st_run live --mode passive -b --json -n 3 -d 1 --top 100000
echo 0 > "$T/tracing_on"
save_map live1
wait "$WPID"
echo 0 > "$T/events/sched/sched_switch/enable"
echo 0 > "$T/options/stacktrace"
echo 0 > "$T/options/stackmap"
reset_map
case_end

# ---- user-fp: -u in stackmap mode is the top-level userstacktrace --------
case_begin user-fp
state_dump "$C/before"
mkfifo /tmp/chain.fifo
"$CHAIN" < /tmp/chain.fifo > "$C/chain.out" &
chain=$!
exec 9> /tmp/chain.fifo
wait_file_re "$C/chain.out" '^ready' 10
echo "$chain" > "$C/chain.pid"
st_bg user -u -e syscalls:sys_enter_write -p "$chain" -b --json -n 2 -d 1 --top 100000
wait_lines "$C/user.out" 1
cat "$T/options/userstacktrace" > "$C/userstacktrace-during"
wait "$STPID"
echo $? > "$C/user.rc"
exec 9>&-
wait "$chain"
rm -f /tmp/chain.fifo
state_dump "$C/after"
reset_map
case_end

# ---- trigger: stacks only where the stacktrace trigger fires -------------
case_begin trigger
state_dump "$C/before"
workload pingpong 60
st_bg count --trigger sched:sched_switch:40 --show-self -b --json -d 0.5
wait_lines "$C/count.out" 1
cat "$T/events/sched/sched_switch/trigger" > "$C/trigger-during"
cat "$T/options/stacktrace" > "$C/stacktrace-during"
n=$(grep -c . "$C/count.out")
wait_lines "$C/count.out" $((n + 3)) 20
st_stop count TERM
state_dump "$C/between"
st_run filtered -b --json -n 2 -d 1 --trigger 'sched:sched_switch if prev_comm == "vm-work"' \
	--top 100000
kill "$WPID"
wait "$WPID" 2> /dev/null
state_dump "$C/after"
reset_map
case_end

# ---- trace-cmd: recordings made here (trace-cmd's default file version 7,
# compressed, and version 6), replayed here and on the host -------------
case_begin trace-cmd
state_dump "$C/before"
echo 1 > "$T/options/stackmap"
for v in 7 6; do
	mkdir -p "$C/rec$v"
	( cd /tmp && timeout -s KILL 60 trace-cmd record -q -T --file-version $v -e sched:sched_switch \
		-o "$C/rec$v/trace.dat" "$W" pingpong 0.3 ) > "$C/record$v.log" 2>&1 ||
		gerr "trace-cmd record (file version $v) failed"
done
echo 0 > "$T/options/stackmap"
echo 0 > "$T/options/stacktrace"
echo 0 > "$T/tracing_on"
cat "$T/stack_map_bin" > "$C/rec7/stack_map_bin"
cat "$T/stack_map_bin" > "$C/stack_map_bin.saved"
cat "$T/stack_map" > "$C/stack_map.saved"
cat "$T/stack_map_stat" > "$C/stack_map_stat.saved"
echo 1 > "$T/tracing_on"
cat /proc/kallsyms > "$C/kallsyms"
st_run replay-bin -r "$C/rec7/trace.dat" --json --top 100000 --cumulative
st_run map-bin --map "$C/stack_map_bin.saved" --json --top 100000 --cumulative
rm "$C/rec7/stack_map_bin"
state_dump "$C/after"
reset_map
case_end

# ---- restore: SIGTERM, then SIGKILL and the next run ---------------------
# last: a restore in the wrong order (the function tracer's filter changed
# while it runs) can oops this guest
case_begin restore
state_dump "$C/before"
workload pingpong 30
for sig in TERM KILL; do
	st_bg "$sig" -b --json -d 0.5 -u -e sched:sched_switch -e 'sched:sched_wakeup if prio < 200' \
		--trigger kmem:kmalloc:5 --kprobe do_sys_openat2 --function vfs_read --function 'ksys_*'
	wait_lines "$C/$sig.out" 2
	state_dump "$C/during-$sig"
	# its guardian, where this stacktop has one (a process whose command
	# line is stacktop-guard --guardian PID RUNDIR; the brackets keep grep's own out)
	grep -la '[s]tacktop-guard' /proc/[0-9]*/cmdline 2> /dev/null | wc -l > "$C/guardians-$sig"
	_pid=$STPID
	st_stop "$sig" "$sig"
	state_dump "$C/after-$sig"
	if [ "$sig" = KILL ]; then
		# what the guardian (if any) restores without a next run: until
		# nothing of that pid is left in /run/stacktop, at most 20 s
		_d=$(deadline 20)
		while before "$_d" && ls /run/stacktop | grep -q "^$_pid\."; do
			sleep 0.1
		done
		state_dump "$C/after-KILL-wait"
		st_run next -b -n 1 -d 0.2
		state_dump "$C/after-next"
	fi
done
kill "$WPID" 2> /dev/null
wait "$WPID" 2> /dev/null
case_end
