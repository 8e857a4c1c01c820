#!/bin/sh
# probe-tracefs.sh - what a stackmap tracefs answers, in lines that can be
# compared: run on the real kernel (inside the VM, tests/vm/guest-main.sh)
# and on the simulator (tests/sim, by tests/vm/vm-tier.py on the host), the
# two outputs must be equal line for line. Where they differ, the kernel is
# right and the simulator is fixed (doc/simulator.md).
#
#   probe-tracefs.sh ROOT VM_WORK [PART]
#
# ROOT: the tracefs (fresh: nothing enabled, an empty map, 2 CPUs, 2^14
# pool); VM_WORK: the vm-work binary (its "write" reports the errno of one
# write). PART: "all" (default) or "pool" (a full 2^10 pool: the stat's
# shape only). Events are made by the kernel's own activity or the
# simulator's generator (--rate): only their presence is compared, never
# counts. Every probe leaves the tracefs as it found it.
# POSIX sh (busybox in the guest, dash on the host).
set -u
T=$1
W=$2
PART=${3:-all}

w() { # FILE TEXT [trunc|append]: "FILE <- TEXT: ok N | ERRNO"
	printf '%s <- %s: %s\n' "$1" "$2" "$("$W" write "$T/$1" "$2" ${3:-})"
}

# the permission bits of a file, as ls -l prints them
mode() { ls -l "$T/$1" 2> /dev/null | cut -c1-10; }

stat_shape() { # stack_map_stat with its numbers replaced by N, except the
	# capacity numbers that the pool size fixes
	sed -e 's/^\(entries: *\)[0-9]* \//\1N \//' \
		-e 's/^\(successes: *\)[0-9]*$/\1N/' -e 's/^\(drops: *\)[0-9]*$/\1N/' \
		-e 's/^\(success_rate: *\)[0-9]*%$/\1N%/' "$T/stack_map_stat"
}

# facts that hold of any map with entries: the ref counts add up to the
# successes, ids are below table_size and come in ascending order, each
# record's depth is its number of frame lines, success_rate is the floor
map_facts() {
	awk -v stat="$T/stack_map_stat" '
		BEGIN { while ((getline l < stat) > 0) { split(l, a, ":"); gsub(/[ %]/, "", a[2]); v[a[1]] = a[2] }
			ts = v["table_size"] + 0 }
		/^stack_id / { id = $2 + 0; ref = $4; sub(/,/, "", ref); refs += ref
			if (n && id <= last) order = 1; last = id; n++
			if (id >= ts) big = 1
			if (want != "" && frames != want) depth = 1
			want = $6; sub(/\]/, "", want); frames = 0; next }
		/^  \[[0-9]+\] / { frames++ }
		END { if (want != "" && frames != want) depth = 1
			s = v["successes"] + 0; d = v["drops"] + 0
			print "map facts: refs " (refs == s ? "= successes" : "!= successes (" refs " vs " s ")") \
				", ids " (big ? "NOT " : "") "below table_size" \
				", " (order ? "NOT " : "") "ascending" \
				", depth " (depth ? "!= frame lines" : "= frame lines")
			if ("success_rate" in v)
				print "success_rate: " (v["success_rate"] + 0 == int(100 * s / (s + d)) ? "the floor" : "NOT the floor (" v["success_rate"] ")")
			else
				print "success_rate: absent" }' "$T/stack_map"
}

settle() { # let some events happen (kernel activity or the sim's generator)
	i=0
	while [ $i -lt 10 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

if [ "$PART" = pool ]; then
	echo "== pool: filling a 2^10 pool"
	echo 1 > "$T/options/stackmap"
	if [ -e "$T/.sim/control" ]; then
		echo "fill-pool 0" > "$T/.sim/control"
	else
		# many distinct stacks: the function tracer on a few hundred functions
		for g in 'vfs_*' '*alloc*' '*free*'; do
			"$W" write "$T/set_ftrace_filter" "$g\n" append > /dev/null
		done
		echo 1 > "$T/options/func_stack_trace"
		echo function > "$T/current_tracer"
		i=0
		while [ $i -lt 30 ] && ! grep -q '^entries: *1024 / 1024' "$T/stack_map_stat"; do
			ls -lR "$T/events" > /dev/null 2>&1
			i=$((i + 1))
		done
		echo nop > "$T/current_tracer"
		echo 0 > "$T/options/func_stack_trace"
		"$W" write "$T/set_ftrace_filter" '' trunc > /dev/null
	fi
	grep -q '^entries: *1024 / 1024$' "$T/stack_map_stat" && echo "pool: full" ||
		echo "pool: not full ($(grep entries "$T/stack_map_stat"))"
	stat_shape
	echo 0 > "$T/tracing_on"
	map_facts
	echo "== pool: a recording into the full pool"
	echo 1 > "$T/tracing_on"
	: > "$T/trace"
	ovr0=0
	for c in "$T"/per_cpu/cpu*/stats; do
		n=$(sed -n 's/^overrun: //p' "$c")
		ovr0=$((ovr0 + n))
	done
	s0=$(sed -n 's/^successes: *//p' "$T/stack_map_stat")
	d0=$(sed -n 's/^drops: *//p' "$T/stack_map_stat")
	echo 1 > "$T/options/stacktrace"
	echo 1 > "$T/events/sched/sched_switch/enable"
	settle
	echo 0 > "$T/tracing_on"
	s1=$(sed -n 's/^successes: *//p' "$T/stack_map_stat")
	d1=$(sed -n 's/^drops: *//p' "$T/stack_map_stat")
	ovr=$((0 - ovr0))
	for c in "$T"/per_cpu/cpu*/stats; do
		n=$(sed -n 's/^overrun: //p' "$c")
		ovr=$((ovr + n))
	done
	set -- $("$W" count "$T")
	# count events N kernel_stack N stack_id N user_stack N
	echo "overrun in the window: $ovr"
	[ "$7" = $((s1 - s0)) ] && echo "stack_id records = new successes" ||
		echo "stack_id records $7, new successes $((s1 - s0))"
	[ "$5" = $((d1 - d0)) ] && echo "kernel_stack records = new drops" ||
		echo "kernel_stack records $5, new drops $((d1 - d0))"
	[ "$5" -gt 0 ] && echo "drops: some" || echo "drops: none"
	echo 0 > "$T/events/sched/sched_switch/enable"
	echo 0 > "$T/options/stacktrace"
	echo 0 > "$T/options/stackmap"
	echo 0 > "$T/stack_map"
	echo 1 > "$T/tracing_on"
	stat_shape
	echo "== done"
	exit 0
fi

echo "== files"
for f in stack_map stack_map_stat stack_map_bin; do
	echo "$f $(mode $f)"
done
echo "options/stackmap $(mode options/stackmap) = $(cat "$T/options/stackmap")"
# (hist: only with CONFIG_HIST_TRIGGERS, which the simulated kernel has not)
echo "events/ftrace/stack_id: $(ls "$T/events/ftrace/stack_id" | grep -v '^hist$' | tr '\n' ' ')"
grep -E '^(name|ID|print fmt):|field:int stack_id' "$T/events/ftrace/stack_id/format"
echo "trace_options: $(grep -E 'stack' "$T/trace_options" | tr '\n' ' ')"

echo "== empty map"
stat_shape
echo "stack_map bytes: $(wc -c < "$T/stack_map" | tr -d ' ')"
echo "stack_map_bin bytes: $(wc -c < "$T/stack_map_bin" | tr -d ' ')"
od -An -tx1 "$T/stack_map_bin" | tr -s ' ' | sed 's/^ //'

echo "== writes to stack_map, tracing on"
echo "tracing_on: $(cat "$T/tracing_on")"
w stack_map 0
w stack_map reset
echo "== writes to stack_map, tracing off"
echo 0 > "$T/tracing_on"
for v in '0' '0\n' 'reset' 'reset\n' '1' 'foo' ' 0' '0 ' 'reset0' '00' 'RESET' '\n'; do
	w stack_map "$v"
done
w stack_map_stat 0
w stack_map_bin 0
echo 1 > "$T/tracing_on"

echo "== instance"
mkdir "$T/instances/probe"
echo "options: $(ls "$T/instances/probe/options" | grep -c stackmap) stackmap file(s)"
echo "stack_map files: $(ls "$T/instances/probe" | grep -c '^stack_map')"
echo "trace_options: $(grep -E 'stack' "$T/instances/probe/trace_options" | tr '\n' ' ')"
w instances/probe/trace_options stackmap
w instances/probe/trace_options nostackmap
w instances/probe/trace_options stacktrace
echo "after: $(grep -E 'stack' "$T/instances/probe/trace_options" | tr '\n' ' ')"
w instances/probe/trace_options nostacktrace
rmdir "$T/instances/probe"

echo "== the option at the top level"
w trace_options stackmap
echo "options/stackmap = $(cat "$T/options/stackmap")"
echo "trace_options: $(grep -E 'stack' "$T/trace_options" | tr '\n' ' ')"
w trace_options nostackmap
w options/stackmap 2
w options/stackmap 1
w options/stackmap 0

echo "== recording"
echo 1 > "$T/options/stackmap"
echo 1 > "$T/options/stacktrace"
echo 1 > "$T/events/sched/sched_switch/enable"
settle
echo 0 > "$T/tracing_on"
echo "stat keys: $(cut -d: -f1 "$T/stack_map_stat" | tr '\n' ' ')"
if grep -q '^entries: *0 /' "$T/stack_map_stat"; then echo "map: empty"; else echo "map: entries"; fi
echo "stack_map header: $(grep -c -E '^stack_id [0-9]+ \[ref [0-9]+, depth [0-9]+\]$' "$T/stack_map" | sed 's/^[1-9][0-9]*$/many/')"
echo "stack_map frames: $(grep -c -E '^  \[[0-9]+\] ' "$T/stack_map" | sed 's/^[1-9][0-9]*$/many/')"
map_facts
od -An -tx1 -N8 "$T/stack_map_bin" | tr -s ' ' | sed 's/^ //'
# the same bytes, read 7 at a time
a=$(md5sum < "$T/stack_map_bin")
b=$(dd if="$T/stack_map_bin" bs=7 2> /dev/null | md5sum)
[ "$a" = "$b" ] && echo "bin in 7-byte reads: same bytes" || echo "bin in 7-byte reads: DIFFERENT"
e=0
for c in "$T"/per_cpu/cpu*/stats; do
	n=$(sed -n 's/^entries: //p' "$c")
	e=$((e + n))
done
[ $e -gt 0 ] && echo "buffer: records" || echo "buffer: empty"
echo 1 > "$T/tracing_on"
w stack_map 0
echo 0 > "$T/tracing_on"
w stack_map 0
e=0
for c in "$T"/per_cpu/cpu*/stats; do
	n=$(sed -n 's/^entries: //p' "$c")
	e=$((e + n))
done
echo "after the reset: buffer $e records, $(grep -c . "$T/stack_map") stack_map lines"
stat_shape
echo 1 > "$T/tracing_on"

# kinds TITLE [DIR]: the kinds of record DIR's buffers got in a second
# ("some" or 0 of each), then the buffers are emptied
kinds() {
	: > "${2:-$T}/trace"
	settle
	echo "$1: $("$W" count "${2:-$T}" | sed -e 's/^count //' -e 's/ [1-9][0-9]*/ some/g')"
}
echo "== record kinds"
kinds "top, stackmap + stacktrace"
echo 0 > "$T/options/stackmap"
kinds "top, stacktrace alone"
echo 1 > "$T/options/stackmap"
mkdir "$T/instances/probe"
echo 1 > "$T/instances/probe/options/stacktrace"
echo 1 > "$T/instances/probe/events/sched/sched_switch/enable"
kinds "instance, stacktrace (top: stackmap)" "$T/instances/probe"
rmdir "$T/instances/probe"
echo 1 > "$T/options/userstacktrace"
kinds "top, stackmap + stacktrace + userstacktrace"
echo 0 > "$T/options/userstacktrace"
echo 0 > "$T/options/stacktrace"
kinds "top, stackmap alone"
echo 0 > "$T/events/sched/sched_switch/enable"

echo "== the function tracer"
# a function both this kernel and the simulated one have and call often;
# the filter is set while the tracer is nop (changing it under the running
# tracer can oops this guest, see the rfc-kernel README)
w set_ftrace_filter schedule trunc
echo "filter: $(cat "$T/set_ftrace_filter")"
echo 1 > "$T/options/stacktrace"
echo function > "$T/current_tracer"
kinds "function tracer, stacktrace"
echo 1 > "$T/options/func_stack_trace"
kinds "function tracer, func_stack_trace"
echo 0 > "$T/tracing_on"
echo "trampoline marker in stack_map: $(grep -c -F '[FTRACE TRAMPOLINE]' "$T/stack_map" | sed 's/^[1-9][0-9]*$/some/')"
echo 1 > "$T/tracing_on"
echo nop > "$T/current_tracer"
echo 0 > "$T/options/func_stack_trace"
w set_ftrace_filter '' trunc
echo "filter: $(cat "$T/set_ftrace_filter")"

echo "== a trigger: soft mode"
E=events/sched/sched_switch
ev_state() {
	echo "$1: enable $(cat "$T/$E/enable"), sched/enable $(cat "$T/events/sched/enable"), events/enable $(cat "$T/events/enable"), set_event [$(tr '\n' ' ' < "$T/set_event")], trigger [$(grep -v '^#' "$T/$E/trigger" | sed 's/count=[0-9]*/count=N/')]"
}
ev_state "no trigger"
w $E/trigger 'stacktrace:5'
ev_state "trigger, event off"
w $E/enable '0*'
w $E/enable 1
ev_state "trigger, event on"
w $E/trigger '' trunc
ev_state "after an O_TRUNC open"
w $E/trigger '!stacktrace' append
ev_state "trigger removed"
w $E/enable 0
w $E/trigger 'stacktrace if prev_pid > 0'
ev_state "filtered trigger, event off"
w $E/trigger '!stacktrace' append
ev_state "removed"

echo "== set_ftrace_filter: one token a write"
f() { # HOW TEXT (printf: busybox's echo keeps a backslash, dash's interprets it)
	printf '[%s] %s -> %s | %s\n' "$1" "$2" "$("$W" write "$T/set_ftrace_filter" "$2" "$1")" \
		"$(grep -v '^#' "$T/set_ftrace_filter" | sort | tr '\n' ' ')"
}
f trunc 'schedule vfs_read'
f trunc 'schedule nosuchfunc\n'
f trunc 'nosuchfunc\n'
f trunc 'nosuchfunc'
f trunc '   vfs_read\n'
f append '!vfs_read\n'
f append 'vfs_read'
f append '!nosuchfunc\n'
f append '\n'
f trunc 'schedule\tvfs_read\n'
f trunc 'nosuch*\n'
echo "writeall 'schedule vfs_read nosuchfunc': $("$W" writeall "$T/set_ftrace_filter" 'schedule vfs_read nosuchfunc' trunc) | $(grep -v '^#' "$T/set_ftrace_filter" | sort | tr '\n' ' ')"
echo "writeall 'schedule nosuchfunc vfs_read': $("$W" writeall "$T/set_ftrace_filter" 'schedule nosuchfunc vfs_read' trunc) | $(grep -v '^#' "$T/set_ftrace_filter" | sort | tr '\n' ' ')"
f trunc ''
echo "filter: $(cat "$T/set_ftrace_filter")"

echo 0 > "$T/options/stacktrace"
echo 0 > "$T/options/stackmap"
: > "$T/trace"
echo 0 > "$T/tracing_on"
echo 0 > "$T/stack_map"
echo 1 > "$T/tracing_on"
echo "== formats"
# (not ftrace/function: 6.18, whose format the simulator copies, added args[])
for e in ftrace/kernel_stack ftrace/user_stack ftrace/stack_id sched/sched_switch; do
	echo "$e:"
	grep -v '^ID:' "$T/events/$e/format"
done
echo "== done"
