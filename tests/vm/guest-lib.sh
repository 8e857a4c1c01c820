# guest-lib.sh - helpers of the guest side of the VM tier (sourced by the
# guest-*.sh scripts, which vm-tier.py concatenates after a header of
# variables and boots in the stackmap kernel with run-in-vm.sh).
#
# The guest only runs things and keeps what they printed: each case writes
# its files under $OUT/CASE (stacktop's output, exit status, tracefs state
# dumps, copies of stack_map*), and case_end sends them to the host as one
# tar (vm-export), where vm-tier.py checks them. A case whose guest side
# went wrong says so in $OUT/CASE/guest-errors. Everything that could hang
# runs under a timeout, so one bad case cannot keep the others from being
# reported. busybox sh: no bash-isms.
#
# From the header: ST (stacktop), W (vm-work), CHAIN (ustack-chain-fp),
# ASAN_OPTIONS & co.
T=/sys/kernel/tracing
OUT=/tmp/out
C=
mkdir -p "$OUT" /run/stacktop
chmod 700 /run/stacktop

now() { cut -d' ' -f1 /proc/uptime; }

# case_begin NAME: files go to $C=$OUT/NAME from here on
case_begin() {
	C=$OUT/$1
	mkdir -p "$C"
	: > "$C/guest-errors"
	now > "$C/t0"
	echo "== case $1 (guest uptime $(now) s)"
}

# case_end: send the case's files to the host (through a serial port, so
# a stacktop output above 256 KiB keeps only its last two reports: what the
# checks read)
case_end() {
	_name=${C##*/}
	now > "$C/t1"
	for _f in "$C"/*.out; do
		[ -f "$_f" ] && [ "$(wc -c < "$_f")" -gt 262144 ] || continue
		grep -c . "$_f" > "$_f.lines"
		# (not busybox tail: it cuts lines of megabytes)
		awk '{ a = b; b = $0 } END { if (NR > 1) print a; print b }' "$_f" > "$_f.tail" &&
			mv "$_f.tail" "$_f"
	done
	tar -cf "/tmp/$_name.tar" -C "$OUT" "$_name" &&
		vm-export "/tmp/$_name.tar" "$_name.tar" > /dev/null ||
		echo "guest: cannot export $_name"
	rm -f "/tmp/$_name.tar"
	echo "== end $_name ($(awk -v a="$(cat "$C/t0")" -v b="$(cat "$C/t1")" 'BEGIN { printf "%.1f", b - a }') s)"
}

# gerr TEXT: a guest-side failure of the current case (checked on the host)
gerr() {
	echo "$*" >> "$C/guest-errors"
	echo "guest: $*"
}

# state_dump FILE: everything stacktop may change in tracefs and must put back
state_dump() {
	{
		for f in "$T"/options/*; do echo "options/${f##*/}=$(cat "$f")"; done
		for f in tracing_on current_tracer trace_clock buffer_size_kb buffer_percent \
			tracing_cpumask set_ftrace_pid set_ftrace_notrace_pid set_event_pid \
			set_event_notrace_pid; do
			[ -e "$T/$f" ] && echo "$f=$(cat "$T/$f" | tr '\n' ' ')"
		done
		echo "set_event=$(sort "$T/set_event" | tr '\n' ' ')"
		echo "set_ftrace_filter=$(grep -v '^#' "$T/set_ftrace_filter" | sort | tr '\n' ' ')"
		echo "set_ftrace_notrace=$(grep -v '^#' "$T/set_ftrace_notrace" | sort | tr '\n' ' ')"
		echo "kprobe_events=$(tr '\n' ' ' < "$T/kprobe_events")"
		echo "dynamic_events=$(tr '\n' ' ' < "$T/dynamic_events")"
		echo "instances=$(ls "$T/instances" | tr '\n' ' ')"
		# triggers and filters of every event that has one
		grep -H -v '^#' "$T"/events/*/*/trigger 2> /dev/null | sed "s|^$T/||"
		grep -H -v '^none$' "$T"/events/*/*/filter 2> /dev/null | sed "s|^$T/||"
		echo "journals=$(ls /run/stacktop | tr '\n' ' ')"
	} > "$1"
}

# st_run NAME [ARGS...]: stacktop in the foreground (killed after 120 s);
# NAME.out, NAME.err, NAME.rc
st_run() {
	_n=$1
	shift
	timeout -s KILL 120 "$ST" "$@" > "$C/$_n.out" 2> "$C/$_n.err"
	echo $? > "$C/$_n.rc"
}

# st_bg NAME [ARGS...]: stacktop in the background; $STPID
st_bg() {
	_n=$1
	shift
	"$ST" "$@" > "$C/$_n.out" 2> "$C/$_n.err" &
	STPID=$!
	echo "$STPID" > "$C/$_n.pid"
}

# st_stop NAME SIGNAL: signal the background stacktop, wait for it (20 s,
# then SIGKILL and a guest error), keep its exit status in NAME.rc
st_stop() {
	kill -"$2" "$STPID" 2> /dev/null
	( sleep 20 && kill -KILL "$STPID" 2> /dev/null && echo hang > "$C/$1.hang" ) &
	_wd=$!
	wait "$STPID"
	echo $? > "$C/$1.rc"
	kill "$_wd" 2> /dev/null
	wait "$_wd" 2> /dev/null
	[ -e "$C/$1.hang" ] && gerr "$1: stacktop did not exit within 20 s of SIG$2"
	STPID=
}

# Every wait below has a deadline in seconds of the clock, not a number of
# polls: under TCG, with the function tracer on, a poll's few processes can
# take a second.
deadline() { echo $(($(date +%s) + $1)); }
before() { [ "$(date +%s)" -le "$1" ]; }

# wait_lines FILE N [SECONDS]: until FILE has at least N lines (the JSON
# reports of a background stacktop), else a guest error
wait_lines() {
	_d=$(deadline "${3:-30}")
	while before "$_d"; do
		[ -f "$1" ] && [ "$(grep -c . "$1")" -ge "$2" ] && return 0
		sleep 0.1
	done
	gerr "timed out waiting for $2 lines in ${1##*/}"
	return 1
}

# hits_of FILE: the top-level "hits" of each JSON report in FILE
hits_of() { sed -e 's/,"hits_delta".*//' -e 's/.*"hits"://' "$1"; }

# wait_settled FILE [SECONDS]: after tracing was turned off, until stacktop
# has read everything: the kernel's buffers hold no record on any CPU (a
# report that read nothing is no proof: under TCG with ASan a big report
# leaves a cycle's drain little time), then three more reports, the last
# two with the same hits
wait_settled() {
	_d=$(deadline "${2:-60}")
	while before "$_d" && grep -q '^entries: *[1-9]' "$T"/per_cpu/cpu*/stats; do
		sleep 0.5
	done
	_n0=$(grep -c . "$1")
	while before "$_d"; do
		if [ "$(grep -c . "$1")" -ge $((_n0 + 3)) ] &&
			[ "$(hits_of "$1" | tail -n 2 | sort -u | grep -c .)" = 1 ]; then
			return 0
		fi
		sleep 0.2
	done
	gerr "stacktop's hits did not settle in ${2:-60} s after tracing stopped (${1##*/}; left:" \
		"$(grep -h '^entries' "$T"/per_cpu/cpu*/stats | tr '\n' ' '))"
	return 1
}

# pool_full_wait SECONDS: the busy loop below until the map is full, and
# once more (drops), at most SECONDS
pool_full_wait() {
	_d=$(deadline "$1")
	while before "$_d"; do
		busy_once
		grep -q '^entries: *\([0-9]*\) / \1$' "$T/stack_map_stat" && { busy_once; return 0; }
	done
	gerr "the pool did not fill in $1 s: $(grep entries "$T/stack_map_stat")"
	return 1
}

# one round of a workload that enters many functions: file system walks,
# /proc reads, allocations
busy_once() {
	ls -lR "$T/events" > /dev/null 2>&1
	cat /proc/self/maps /proc/meminfo > /dev/null
}

# wait_file_re FILE REGEX [SECONDS]: until a line of FILE matches
wait_file_re() {
	_d=$(deadline "${3:-30}")
	while before "$_d"; do
		grep -q -E -- "$2" "$1" 2> /dev/null && return 0
		sleep 0.1
	done
	gerr "timed out waiting for /$2/ in ${1##*/}"
	return 1
}

# save_map PREFIX: copies of the map files (tracing should be off, so that
# the three agree)
save_map() {
	cat "$T/stack_map_stat" > "$C/$1.stat"
	cat "$T/stack_map" > "$C/$1.map"
	cat "$T/stack_map_bin" > "$C/$1.bin"
}

# cpu_stats NAME: every CPU's ring-buffer counters (entries left unread,
# read events: what the kernel handed to readers), one "cpuN key: value" a line
cpu_stats() {
	for _f in "$T"/per_cpu/cpu*/stats; do
		_c=${_f%/stats}
		sed "s/^/${_c##*/} /" "$_f"
	done > "$C/$1"
}

# workload KIND SECONDS: vm-work in the background; $WPID
workload() {
	"$W" "$1" "$2" > "$C/work-$1.out" 2>&1 &
	WPID=$!
}

# other_tool_record EVENT SECONDS: what a tool other than stacktop does on
# this kernel: stackmap + stacktrace at the top level and EVENT, for a
# while, then everything off again (the map keeps its stacks)
other_tool_record() {
	echo 1 > "$T/options/stackmap"
	echo 1 > "$T/options/stacktrace"
	echo 1 > "$T/events/$1/enable"
	"$W" pingpong "$2" > /dev/null
	echo 0 > "$T/events/$1/enable"
	echo 0 > "$T/options/stacktrace"
	echo 0 > "$T/options/stackmap"
}

# ebusy_on / ebusy_off: another tool's traceon trigger on every write(2):
# stacktop's reset stops tracing, and its own write to stack_map turns it
# on again before the kernel looks, so the kernel refuses with EBUSY (what
# happens when another tool restarts tracing during a reset), every time
ebusy_on() { echo traceon > "$T/events/syscalls/sys_enter_write/trigger"; }
ebusy_off() {
	echo '!traceon' >> "$T/events/syscalls/sys_enter_write/trigger"
	echo 1 > "$T/tracing_on"
}

# per_cpu stats without the clock lines: what reading the buffer changes
buffer_stats() {
	cat "$T"/per_cpu/cpu*/stats | grep -v -E '^(oldest event ts|now ts):'
}

# reset_map: an empty map and buffer, tracing on (between cases)
reset_map() {
	echo 0 > "$T/tracing_on"
	echo 0 > "$T/stack_map" || echo "guest: cannot reset the map"
	echo 1 > "$T/tracing_on"
}

# ---- the screen: stacktop in tmux (copied in with its terminfo) ----

TMX="tmux -L vmtier"

tui_start() { # COLS LINES
	mkdir -p /dev/pts
	grep -q ' /dev/pts ' /proc/mounts || mount -t devpts devpts /dev/pts
	$TMX -f /dev/null new-session -d -s tui -x "$1" -y "$2" \
		"env -i PATH=$PATH HOME=/root TERM=screen TERMINFO=/test/terminfo LANG=C.UTF-8 LC_ALL=C.UTF-8 ASAN_OPTIONS=$ASAN_OPTIONS LSAN_OPTIONS=$LSAN_OPTIONS UBSAN_OPTIONS=$UBSAN_OPTIONS PS1='tui\$ ' sh" ||
		{ gerr "cannot start tmux"; return 1; }
	$TMX set-option -g status off > /dev/null
	tui_wait 'tui\$' 10
}

tui_stop() { $TMX kill-server 2> /dev/null; }

tui_capture() { $TMX capture-pane -p -t tui; }

# tui_wait REGEX [SECONDS]: until a line of the pane matches, else a guest
# error with the pane kept as pane-timeout-N
tui_wait() {
	_d=$(deadline "${2:-10}")
	while before "$_d"; do
		tui_capture > /tmp/pane 2> /dev/null
		grep -q -E -- "$1" /tmp/pane && return 0
		sleep 0.1
	done
	_k=$(ls "$C" | grep -c '^pane-timeout')
	cp /tmp/pane "$C/pane-timeout-$_k"
	gerr "screen: timed out after ${2:-10} s waiting for /$1/ (pane-timeout-$_k)"
	return 1
}

tui_keys() { $TMX send-keys -t tui "$@"; }

# tui_save NAME: the pane as it is now
tui_save() { tui_capture > "$C/$1"; }
