# guest-pool.sh - the VM tier's second boot, with ftrace_stackmap.bits=10 (a
# 1024-stack pool that the function tracer fills in seconds): the pool-full
# case and issue 20's (self-exclusion under another tool's function tracer,
# the pool's health in the header and on the screen, long event names in
# the table). Sourced after guest-lib.sh; vm-tier.py checks the files on
# the host.

# the function tracer on a few hundred functions (on all of them it livelocks
# TCG); set while the tracer is nop (changing it under the running tracer can
# oops this guest)
POOL_GLOBS="vfs_* *alloc* *free*"
pool_function_args() {
	for g in $POOL_GLOBS; do printf -- '--function %s ' "$g"; done
}

# busy SECONDS: busy_once (guest-lib.sh) for that long
busy() {
	_end=$(($(date +%s) + $1))
	while [ "$(date +%s)" -lt "$_end" ]; do busy_once; done
}

# the top-level buffer of a user who expects bursts: 32 MiB per CPU, so
# that nothing is overwritten while the ASan build under TCG reads
BIG_BUFFER=32768

# ---- probe-pool: the stat of a full pool, as the simulator shows it ------
case_begin probe-pool
sh /test/probe-tracefs.sh "$T" "$W" pool > "$C/probe.out" 2>&1 || gerr "probe-tracefs.sh failed"
reset_map
case_end

# ---- pool-full: drops, fallbacks, the trampoline marker, every id resolved
case_begin pool-full
old_size=$(sed 's/ .*//' "$T/buffer_size_kb")
echo $BIG_BUFFER > "$T/buffer_size_kb"
state_dump "$C/before"
# (-d 2: each report, 3 MB under ASan in TCG, takes seconds; the drain
# between two gets a fair share of the time)
# shellcheck disable=SC2046  # one word per argument
st_bg pool --reset-first -b --json -d 2 --top 100000 $(pool_function_args)
wait_lines "$C/pool.out" 1
cat "$T/set_ftrace_filter" > "$C/filter-during"
pool_full_wait 60
# freeze, let stacktop read it all, keep the map as the kernel has it
echo 0 > "$T/tracing_on"
cpu_stats frozen-cpu0
wait_settled "$C/pool.out" 240
cpu_stats frozen-cpu1
save_map frozen
st_stop pool TERM
state_dump "$C/after"
echo "$old_size" > "$T/buffer_size_kb"
reset_map
case_end

# ---- self-exclusion: stacktop's own reads run through the functions another
# tool traces at the top level (issue 20). The other tool's function tracer
# with func_stack_trace on 600 functions, the read path among them; the
# user's notrace lists hold a pid of theirs each. Each stacktop run is paired
# with a bare reader of the same buffers (vm-work poll: stacktop's reads,
# every 50 ms each CPU until empty, nothing done with the pages, its pid in
# the notrace lists as stacktop puts its own): what reading costs anyway.
case_begin self-exclusion
old_size=$(sed 's/ .*//' "$T/buffer_size_kb")
echo $BIG_BUFFER > "$T/buffer_size_kb"
grep -E '^(vfs_|ksys_|__x64_sys_|do_sys_|.*_poll|.*pipe|.*fault|schedule|.*read|.*write)' \
	"$T/available_filter_functions" | cut -d' ' -f1 | sort -u | head -n 600 > "$C/functions"
tr '\n' ' ' < "$C/functions" > /tmp/flist
echo >> /tmp/flist
"$W" writeall "$T/set_ftrace_filter" "$(cat /tmp/flist)" trunc > "$C/filter-write"
grep -vc '^#' "$T/set_ftrace_filter" > "$C/nfiltered"
echo 1 > "$T/options/func_stack_trace"
echo 4242 > "$T/set_event_notrace_pid"
echo 4243 > "$T/set_ftrace_notrace_pid"
echo function > "$T/current_tracer"
state_dump "$C/before"

# bare NAME SECONDS: the bare reader, with the stackmap option on as
# stacktop has it; the stacks the kernel wrote meanwhile; the user's lists
# put back as they were
bare() {
	echo 0 > "$T/tracing_on"
	echo 0 > "$T/stack_map"
	echo 1 > "$T/options/stackmap"
	echo 1 > "$T/tracing_on"
	cat "$T/stack_map_stat" > "$C/$1.stat0"
	"$W" poll "$T" "$2" 50 > "$C/$1.out" 2>&1
	cat "$T/stack_map_stat" > "$C/$1.stat1"
	echo 0 > "$T/options/stackmap"
	echo 4242 > "$T/set_event_notrace_pid"
	echo 4243 > "$T/set_ftrace_notrace_pid"
}

# 1. nothing running but the other tool's tracer: before the fix stacktop's
# reads were the whole workload, and fed themselves
bare bare-idle 6
reset_map
st_run idle -b -n 4 -d 2 --top 5 --expand 0
reset_map
# the same with --show-self (no exclusion): the feedback this set-up makes
st_bg show-idle -b --json -n 3 -d 2 --show-self --top 100000
wait "$STPID"
echo $? > "$C/show-idle.rc"

# 2. under a ping-pong through the traced pipe functions: 6 s of it in a
# 10 s run, so that the last reports, idle, show whether stacktop read
# everything the kernel wrote (an ASan build under TCG falls behind while
# the load lasts, by as much as the host gives the guest)
workload pingpong 8
sleep 1
bare bare-load 6
wait "$WPID" 2> /dev/null
reset_map
# JSON for its counts (filtered: stacktop's own records the kernel wrote);
# no stack matches the comm, so the five reports stay under the 256 KiB
# that case_end sends whole (the counts are the run's whatever the view)
st_bg load -b -n 5 -d 2 --reset-first --json --comm =no-such-comm
# the ping-pong starts once stacktop traces (its first report), as the sys
# run's loop below: started with stacktop, most of its 6 s went by while
# the ASan build started under TCG (CI: 5,872 hits, where 10,000 make
# the case; a quiet host 30,067)
wait_file_re "$C/load.out" '^[{]' 30
workload pingpong 6
cat "$T/set_event_notrace_pid" > "$C/during-event-notrace"
cat "$T/set_ftrace_notrace_pid" > "$C/during-ftrace-notrace"
wait "$STPID"
echo $? > "$C/load.rc"
kill "$WPID" 2> /dev/null
wait "$WPID" 2> /dev/null
state_dump "$C/after"
echo nop > "$T/current_tracer"
echo 0 > "$T/options/func_stack_trace"
"$W" write "$T/set_ftrace_filter" '' trunc > /dev/null
"$W" write "$T/set_event_notrace_pid" '' trunc > /dev/null
"$W" write "$T/set_ftrace_notrace_pid" '' trunc > /dev/null
reset_map

# 3. no tracer: an event stacktop's own reads are, raw_syscalls:sys_enter
# (each read(2) of trace_pipe_raw), under a read(2) loop (4 s of 10)
st_bg sys -b -n 5 -d 2 --reset-first --json --comm =no-such-comm -e raw_syscalls:sys_enter
# the loop starts once stacktop traces (its first report): on a busy host an
# ASan build under TCG took longer to start than the loop ran, and the
# workload made 0 hits (issue 25)
wait_file_re "$C/sys.out" '^[{]' 60
workload syscall 4
wait "$STPID"
echo $? > "$C/sys.rc"
kill "$WPID" 2> /dev/null
wait "$WPID" 2> /dev/null
reset_map
echo "$old_size" > "$T/buffer_size_kb"
case_end

# ---- pool-health: the header says how full the pool is, how fast it fills,
# when it will be full, and once full since when, the fallback share and the
# ftrace_stackmap.bits to boot with; the JSON and the screen the same
case_begin pool-health
old_size=$(sed 's/ .*//' "$T/buffer_size_kb")
echo $BIG_BUFFER > "$T/buffer_size_kb"
state_dump "$C/before"
# filling slowly (the guest idle: a process's first fork and exec alone
# makes hundreds of new stacks with these globs, so the wait is one sleep
# and one grep), then fast until full
# shellcheck disable=SC2046  # one word per argument
st_bg fill --reset-first -b -d 1 -n 60 --top 5 --expand 0 $(pool_function_args)
wait_file_re "$C/fill.out" '^map pool: ' 30
sleep 5
grep '^map pool: ' "$C/fill.out" > "$C/quiet-pool-lines"
pool_full_wait 60
wait_file_re "$C/fill.out" '^map advice: the map is full' 30
busy 3
st_stop fill TERM
state_dump "$C/after"
# the JSON on the full pool
# shellcheck disable=SC2046
st_bg json -b --json -d 1 -n 2 --top 5 $(pool_function_args)
busy 3
wait "$STPID"
echo $? > "$C/json.rc"
# the screen once full
if tui_start 180 40; then
	tui_keys "cd /tmp && $ST $(pool_function_args); echo __RC=\$?__" Enter
	tui_wait 'mode stackmap' 30
	busy 2
	tui_wait 'pool FULL since' 15
	tui_wait 'boot ftrace_stackmap\.bits=' 10
	tui_save pane-full
	$TMX capture-pane -e -p -t tui > "$C/pane-full-colour"
	tui_keys q
	tui_wait '__RC=[0-9]+__' 20
	tui_stop
fi
echo "$old_size" > "$T/buffer_size_kb"
reset_map
case_end

# ---- long-names: ftrace:function __x64_sys_newfstatat in the table -------
case_begin long-names
( while :; do "$W" fstat 2000 > /dev/null; "$W" pingpong 0.2 > /dev/null; done ) &
loop=$!
st_run text -b -n 1 -d 2 --expand 5 -e sched:sched_switch --function __x64_sys_newfstatat --function vfs_read
if tui_start 160 40; then
	tui_keys "cd /tmp && $ST -e sched:sched_switch --function __x64_sys_newfstatat --function vfs_read; echo __RC=\$?__" Enter
	# a row of the long name (the header names it at once)
	# (the screen's EVENT column drops the system: function __x64_s~)
	tui_wait '^[-+ ] +[0-9]+ .* function __x64_s' 30
	tui_save pane
	tui_keys q
	tui_wait '__RC=[0-9]+__' 20
	tui_stop
fi
kill "$loop"
wait "$loop" 2> /dev/null
reset_map
case_end
