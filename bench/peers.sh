#!/bin/sh
# stacktop side by side with its peers (issue 13, doc/performance.md).
#
# A fixed workload runs alone and with each tool collecting kernel stacks of
# the same event, in interleaved rounds (alone, tool, alone, tool, ...), so
# that the noise of a shared machine hits both sides of each pair alike.
# Rounds are interleaved across tools too (round r of every tool, then
# round r + 1). Reported per tool: the median share of the workload's rate it keeps (the
# ratio to the alone run just before it), the median of its own CPU (user +
# system of its processes, % of one core) and the events it reports lost.
#
# Workloads:
#   pingpong  two processes ping-pong one byte over pipes; event
#             sched:sched_switch (every switch carries a kernel stack)
#   syscall   one process reads 1 byte from /dev/zero in a loop; event
#             raw_syscalls:sys_enter (system-wide, like the others)
# Tools:
#   stacktop  stacktop -b --mode stacks (full kernel_stack records)
#   bpftrace  @[kstack] = count() on the tracepoint
#   perf      perf record -g -a -e EVENT (to a file in a private tmp dir)
#   stackcount  bcc's stackcount-bpfcc, where Debian's bpfcc-tools installs
#   drain     an instance with options/stacktrace, every per_cpu/*/trace_pipe_raw
#             copied to /dev/null by cat (the floor of any ftrace reader)
#
# Run as root:  bench/peers.sh [BUILD_DIR [ROUNDS [SECONDS [WORKLOADS [TOOLS]]]]]
#   defaults:   build-rel 5 5 "pingpong syscall" "stacktop bpftrace perf stackcount drain"
# Installs bpftrace, linux-perf and bpfcc-tools with apt-get when missing
# (set PEERS_NO_INSTALL=1 to skip). Kills only the processes it started and
# removes only the instance it created.
set -eu

B=${1:-build-rel}
ROUNDS=${2:-5}
S=${3:-5}
WORKLOADS=${4:-pingpong syscall}
TOOLS=${5:-stacktop bpftrace perf stackcount drain}
T=/sys/kernel/tracing
ST=$B/stacktop
HZ=$(getconf CLK_TCK)

[ "$(id -u)" = 0 ] || { echo "peers.sh: needs root" >&2; exit 1; }
[ -x "$ST" ] || { echo "peers.sh: no $ST (meson setup $B --buildtype=release && ninja -C $B)" >&2; exit 1; }

W=$(mktemp -d /tmp/stacktop-peers.XXXXXX)
I=$T/instances/stacktop-peers.$$
PIDS=

cleanup() {
	stop_pids TERM $PIDS
	for p in $PIDS; do
		wait "$p" 2>/dev/null || true
	done
	if [ -d "$I" ]; then
		echo 0 > "$I/tracing_on" 2>/dev/null || true
		rmdir "$I" 2>/dev/null || true
	fi
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- packages ---------------------------------------------------------------

have() { command -v "$1" > /dev/null 2>&1; }

if [ -z "${PEERS_NO_INSTALL:-}" ]; then
	need=
	have bpftrace || need="$need bpftrace"
	have perf || need="$need linux-perf"
	have stackcount-bpfcc || {
		apt-cache show bpfcc-tools > /dev/null 2>&1 && need="$need bpfcc-tools"
	}
	if [ -n "$need" ]; then
		echo "peers.sh: apt-get install$need" >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q $need > "$W/apt.log" 2>&1 ||
			echo "peers.sh: apt-get failed (see below); tools missing are skipped" >&2
	fi
fi

# ---- workloads ----------------------------------------------------------------

# run workload $1 for $S seconds; prints operations per second
workload() {
	S=$S python3 -c '
import os, sys, time
s = float(os.environ["S"])
if sys.argv[1] == "pingpong":
    r1, w1 = os.pipe(); r2, w2 = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(w1); os.close(r2)
        while True:
            if not os.read(r1, 1):
                os._exit(0)
            os.write(w2, b"x")
    os.close(r1); os.close(w2)
    n = 0
    end = time.monotonic() + s
    while time.monotonic() < end:
        for _ in range(100):
            os.write(w1, b"x"); os.read(r2, 1)
        n += 100
    os.close(w1); os.waitpid(child, 0)
else:
    fd = os.open("/dev/zero", os.O_RDONLY)
    n = 0
    end = time.monotonic() + s
    while time.monotonic() < end:
        for _ in range(1000):
            os.read(fd, 1)
        n += 1000
print(n / s)
' "$1"
}

event_of() {
	case $1 in
	pingpong) echo sched:sched_switch ;;
	syscall) echo raw_syscalls:sys_enter ;;
	esac
}

# ---- tools --------------------------------------------------------------------

# utime + stime of the listed pids, of their children that ended (cutime,
# cstime) and of those still running, in clock ticks
ticks() {
	t=0
	for p in "$@"; do
		v=$(awk '{print $14 + $15 + $16 + $17}' "/proc/$p/stat" 2>/dev/null || echo 0)
		t=$((t + v))
		for k in $(pgrep -P "$p"); do
			v=$(awk '{print $14 + $15}' "/proc/$k/stat" 2>/dev/null || echo 0)
			t=$((t + v))
		done
	done
	echo "$t"
}

# end the processes started (by pid) and the children they still have
stop_pids() { # signal pids...
	sig=$1
	shift
	for p in "$@"; do
		ch=$(pgrep -P "$p" || true)
		kill "-$sig" "$p" 2>/dev/null || true
		for k in $ch; do
			kill "-$sig" "$k" 2>/dev/null || true
		done
	done
}

# wait (up to 30 s) until file $1 contains $2
wait_for() {
	i=0
	while ! grep -q "$2" "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 300 ] || return 1
		sleep 0.1
	done
}

TPIDS= # the processes of the running tool (their CPU is the tool's)

tool_start() { # tool event
	TPIDS=
	case $1 in
	stacktop)
		"$ST" -b --mode stacks -d "$((S + 2))" -n 1 -e "$2" --top 5 --expand 0 \
			> "$W/out" 2> "$W/err" &
		TPIDS=$!
		sleep 1 # instance created, buffers armed
		;;
	bpftrace)
		bpftrace -e "tracepoint:${2%%:*}:${2#*:} { @[kstack] = count(); }" \
			> "$W/out" 2> "$W/err" &
		TPIDS=$!
		wait_for "$W/out" Attaching || return 1
		;;
	perf)
		perf record -q -g -a -e "$2" -o "$W/perf.data" > "$W/out" 2> "$W/err" &
		TPIDS=$!
		sleep 1.5
		;;
	stackcount)
		stackcount-bpfcc "t:$2" > "$W/out" 2> "$W/err" &
		TPIDS=$!
		wait_for "$W/out" Tracing || return 1
		;;
	drain)
		mkdir "$I"
		echo 1 > "$I/options/stacktrace"
		echo 1 > "$I/events/${2%%:*}/${2#*:}/enable"
		# a loop: on this kernel a read of trace_pipe_raw under overrun
		# sometimes returns 0 and cat ends
		for c in "$I"/per_cpu/cpu*; do
			sh -c 'while :; do cat "$1"; done' sh "$c/trace_pipe_raw" > /dev/null &
			TPIDS="$TPIDS $!"
		done
		sleep 0.5
		;;
	esac
	PIDS="$PIDS $TPIDS"
}

# stop the tool; sets LOST to the events it reports lost
tool_stop() { # tool
	lost=0
	case $1 in
	stacktop)
		wait $TPIDS 2>/dev/null || true
		# events: lost is overrun + dropped (issue 35)
		lost=$(sed -n 's/.*lost: \([^ ]*\) .*/\1/p' "$W/out" | head -n 1)
		;;
	bpftrace | stackcount | perf)
		# INT makes them print and exit, but a background job of a
		# script may have INT ignored: then TERM, then KILL
		for sig in INT TERM KILL; do
			kill "-$sig" $TPIDS 2>/dev/null || true
			i=0
			while kill -0 $TPIDS 2>/dev/null && [ $i -lt 100 ]; do
				sleep 0.1
				i=$((i + 1))
			done
			kill -0 $TPIDS 2>/dev/null || break
		done
		wait $TPIDS 2>/dev/null || true
		if [ "$1" = perf ]; then
			lost=$(sed -n 's/.*lost \([0-9]*\) chunks.*/\1 chunks/p' "$W/err" | head -1)
			lost=${lost:-0}
		fi
		[ "$1" = stackcount ] &&
			lost=$(grep -c -i "lost\|missed" "$W/err" || true)
		rm -f "$W/perf.data"
		;;
	drain)
		echo 0 > "$I/tracing_on"
		# the kernel counts records: an event and its stack are two
		lost=$(cat "$I"/per_cpu/cpu*/stats |
			awk '/^overrun:/ {o += $NF} /^dropped events:|^commit overrun:/ {n += $NF}
			     END {printf "%d\n", o / 2 + n}')
		stop_pids TERM $TPIDS
		wait $TPIDS 2>/dev/null || true
		# busy until the killed readers have closed their files
		i=0
		while ! rmdir "$I" 2> /dev/null; do
			i=$((i + 1))
			[ $i -lt 100 ] || { rmdir "$I"; break; }
			sleep 0.1
		done
		;;
	esac
	new=
	for p in $PIDS; do
		case " $TPIDS " in *" $p "*) ;; *) new="$new $p" ;; esac
	done
	PIDS=$new
	LOST=${lost:-?}
}

available() {
	case $1 in
	stacktop | drain) return 0 ;;
	perf) have perf && perf --version > /dev/null 2>&1 ;;
	stackcount) have stackcount-bpfcc ;;
	*) have "$1" ;;
	esac
}

median() { sort -n | awk '{a[NR] = $1} END {if (NR) print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

# ---- rounds -------------------------------------------------------------------

echo "# bench/peers.sh $B rounds=$ROUNDS seconds=$S on $(uname -r), $(nproc) CPUs, $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "| workload (event) | tool | rate kept (median, min-max) | tool CPU (median) | lost (per round) |"
echo "|---|---|---|---|---|"
# rounds outside, tools inside: every tool's round r runs within a minute of
# the others', so a change in the machine's load hits them all alike
for wl in $WORKLOADS; do
	ev=$(event_of "$wl")
	run=
	for tool in $TOOLS; do
		: > "$W/share.$tool"
		: > "$W/cpu.$tool"
		: > "$W/lost.$tool"
		: > "$W/why.$tool"
		if available "$tool"; then
			run="$run $tool"
		else
			echo "not installed" > "$W/why.$tool"
		fi
	done
	base=
	r=0
	while [ $r -lt "$ROUNDS" ]; do
		r=$((r + 1))
		for tool in $run; do
			[ ! -s "$W/why.$tool" ] || continue
			alone=$(workload "$wl")
			base="$base ${alone%.*}"
			if ! tool_start "$tool" "$ev"; then
				echo "peers.sh: $tool did not start: $(head -c 300 "$W/err")" >&2
				tool_stop "$tool"
				why=$(grep -v '^$' "$W/err" | tail -n 1 | tr -d '|' | cut -c 1-80)
				echo "did not start: ${why:-?}" > "$W/why.$tool"
				continue
			fi
			c0=$(ticks $TPIDS)
			[ -z "${PEERS_DEBUG:-}" ] || ps -o pid,stat,cmd -p "$(echo $TPIDS | tr " " ,)" >&2
			with=$(workload "$wl")
			c1=$(ticks $TPIDS)
			echo "$with $alone" | awk '{printf "%.1f\n", 100 * $1 / $2}' >> "$W/share.$tool"
			echo "$c0 $c1" | awk -v hz="$HZ" -v s="$S" '{printf "%.1f\n", 100 * ($2 - $1) / hz / s}' >> "$W/cpu.$tool"
			tool_stop "$tool"
			printf ' %s' "$LOST" >> "$W/lost.$tool"
		done
	done
	for tool in $TOOLS; do
		if [ ! -s "$W/share.$tool" ]; then
			echo "| $wl ($ev) | $tool | $(cat "$W/why.$tool") | | |"
			continue
		fi
		sh_med=$(median < "$W/share.$tool")
		sh_min=$(sort -n "$W/share.$tool" | head -1)
		sh_max=$(sort -n "$W/share.$tool" | tail -1)
		cpu_med=$(median < "$W/cpu.$tool")
		echo "| $wl ($ev) | $tool | ${sh_med}% (${sh_min}-${sh_max}) | ${cpu_med}% | $(sed 's/^ //' "$W/lost.$tool") |"
	done
	echo "peers.sh: $wl alone ran at$base ops/s" >&2
done
