# guest-pool.sh - the VM tier's second boot, with ftrace_stackmap.bits=10 (a
# 1024-stack pool that the function tracer fills in seconds): the pool-full
# case, and the reproductions of the issues the lead fixes next (self
# exclusion at the top level, pool health on screen, long event names).
# Sourced after guest-lib.sh; vm-tier.py checks the files on the host.

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
# shellcheck disable=SC2046  # one word per argument
st_bg pool --reset-first -b --json -d 0.5 --top 100000 $(pool_function_args)
wait_lines "$C/pool.out" 1
cat "$T/set_ftrace_filter" > "$C/filter-during"
pool_full_wait 60
# freeze, let stacktop read it all, keep the map as the kernel has it
echo 0 > "$T/tracing_on"
wait_settled "$C/pool.out" 90
save_map frozen
st_stop pool TERM
state_dump "$C/after"
echo "$old_size" > "$T/buffer_size_kb"
reset_map
case_end

# ---- issue-self: stacktop's own reads run through the functions another
# tool traces at the top level (the function tracer is not stacktop's, so
# set_ftrace_notrace_pid is not set): what stacktop shows against what the
# kernel recorded, and how much of that is stacktop itself (--show-self)
case_begin issue-self
grep -E '^(vfs_|ksys_|__x64_sys_|do_sys_|.*_poll|.*pipe|.*fault|schedule|.*read|.*write)' \
	"$T/available_filter_functions" | cut -d' ' -f1 | sort -u | head -n 600 > "$C/functions"
wc -l < "$C/functions" > "$C/nfunctions"
tr '\n' ' ' < "$C/functions" > /tmp/flist
echo >> /tmp/flist
"$W" writeall "$T/set_ftrace_filter" "$(cat /tmp/flist)" trunc > "$C/filter-write"
grep -vc '^#' "$T/set_ftrace_filter" > "$C/nfiltered"
echo 1 > "$T/options/func_stack_trace"
echo function > "$T/current_tracer"
state_dump "$C/before"
workload pingpong 30
st_run self -b -n 3 -d 2 --reset-first
cat "$T/stack_map_stat" > "$C/stat-self"
st_bg show -b --json -n 3 -d 2 --reset-first --show-self --top 100000
wait "$STPID"
echo $? > "$C/show.rc"
cat "$T/stack_map_stat" > "$C/stat-show"
kill "$WPID"
wait "$WPID" 2> /dev/null
echo nop > "$T/current_tracer"
echo 0 > "$T/options/func_stack_trace"
"$W" write "$T/set_ftrace_filter" '' trunc > /dev/null
state_dump "$C/after"
reset_map
# the same with an event stacktop's reads hit themselves, no function tracer:
# raw_syscalls:sys_enter (each read(2) of trace_pipe_raw is one)
workload syscall 30
st_run sys -b -n 3 -d 2 --reset-first -e raw_syscalls:sys_enter
cat "$T/stack_map_stat" > "$C/stat-sys"
kill "$WPID"
wait "$WPID" 2> /dev/null
reset_map
case_end

# ---- issue-pool: how the pool fills and what the screen says about it ----
case_begin issue-pool
old_size=$(sed 's/ .*//' "$T/buffer_size_kb")
echo $BIG_BUFFER > "$T/buffer_size_kb"
# shellcheck disable=SC2046
st_bg health --reset-first -b --json -d 0.5 -n 16 --top 5 $(pool_function_args)
wait_lines "$C/health.out" 1
busy 8
wait "$STPID"
echo $? > "$C/health.rc"
# the batch text and the screen's header once the pool is full
# shellcheck disable=SC2046
st_bg text -b -n 1 -d 2 $(pool_function_args)
busy 3
wait "$STPID"
echo $? > "$C/text.rc"
if tui_start 160 40; then
	tui_keys "cd /tmp && $ST $(pool_function_args); echo __RC=\$?__" Enter
	tui_wait 'mode stackmap' 30
	busy 3
	tui_wait 'entries 1024/1024' 10
	tui_save pane-full
	tui_keys q
	tui_wait '__RC=[0-9]+__' 20
	tui_stop
fi
echo "$old_size" > "$T/buffer_size_kb"
reset_map
case_end

# ---- issue-names: ftrace:function __x64_sys_newfstatat in the table ------
case_begin issue-names
( while :; do "$W" fstat 2000 > /dev/null; "$W" pingpong 0.2 > /dev/null; done ) &
loop=$!
st_run text -b -n 1 -d 2 -e sched:sched_switch --function __x64_sys_newfstatat --function vfs_read
if tui_start 160 40; then
	tui_keys "cd /tmp && $ST -e sched:sched_switch --function __x64_sys_newfstatat --function vfs_read; echo __RC=\$?__" Enter
	tui_wait 'ftrace:function|newfstatat' 30
	sleep 2
	tui_save pane
	tui_keys q
	tui_wait '__RC=[0-9]+__' 20
	tui_stop
fi
kill "$loop"
wait "$loop" 2> /dev/null
reset_map
case_end
