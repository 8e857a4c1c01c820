# vm-bench-guest.sh - the guest side of bench/vm-bench.sh (sourced after a
# header with ST, W, ROUNDS, SECONDS, WORKLOADS; busybox sh). For every
# round and workload, each tracing mode runs right after a run of the
# workload alone ("alone, stackmap, alone, stacks, alone, drain"), and one
# RESULT line per run goes to the console at once, so that what was
# measured survives a guest that dies later.
#
#   RESULT round=R work=W mode=M rate=OPS/S alone=OPS/S cpu=SECONDS
#          events=N bytes=N stackrecs=N stackbytes=N altbytes=N lost=N
#
# bytes: ring-buffer bytes read (every record: the event and its stack);
# events: the traced events counted; stackrecs/stackbytes: the stack records
# and their bytes; altbytes: the same events with full stacks (stackmap) or
# as stack ids (stacks); cpu: the reader's CPU time while the workload ran.
T=/sys/kernel/tracing
mkdir -p /run/stacktop
chmod 700 /run/stacktop

event_of() {
	case $1 in
	pingpong) echo sched:sched_switch ;;
	syscall) echo raw_syscalls:sys_enter ;;
	esac
}

# ticks PID: utime + stime of a process, in clock ticks
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2> /dev/null || echo 0; }

# the workload runs on CPU 0 (pingpong: both processes, so that every
# switch is a local one); the readers have CPU 1
alone() { "$W" "$1" "$SECONDS" 0 | awk '{ print $4 }'; }

# json_field FILE KEY [OBJECT]: a number from the last JSON report, at the
# top level or in OBJECT (ringbuf)
json_field() {
	tail -n 1 "$1" | sed 's/,"stacks":\[.*//' |
		if [ -n "${3:-}" ]; then sed -e "s/.*\"$3\":{//" -e 's/}.*//'; else cat; fi |
		tr ',{' '\n\n' | sed -n "s/^\"$2\":\\([0-9.]*\\)}*$/\\1/p" | head -n 1
}

# with_stacktop MODE WORK: the workload under stacktop in MODE
with_stacktop() {
	_ev=$(event_of "$2")
	"$ST" -b --json -d 600 --mode "$1" -e "$_ev" > /tmp/st.out 2> /tmp/st.err &
	_st=$!
	# set up once its event is on (stackmap: the top level; stacks: its instance)
	_i=0
	while [ $_i -lt 300 ]; do
		if [ "$1" = stackmap ]; then
			grep -q "^$_ev\$" "$T/set_event" && [ "$(cat "$T/options/stacktrace")" = 1 ] && break
		else
			_in=$(ls "$T/instances" | grep '^stacktop\.' | head -n 1)
			[ -n "$_in" ] && grep -q "^$_ev\$" "$T/instances/$_in/set_event" 2> /dev/null &&
				[ "$(cat "$T/instances/$_in/tracing_on")" = 1 ] && break
		fi
		sleep 0.05
		_i=$((_i + 1))
	done
	sleep 0.3
	_t0=$(ticks $_st)
	_rate=$("$W" "$2" "$SECONDS" 0 | awk '{ print $4 }')
	_t1=$(ticks $_st)
	kill -TERM $_st
	wait $_st
	_hz=$(getconf CLK_TCK 2> /dev/null || echo 100)
	_cpu=$(awk -v a="$_t0" -v b="$_t1" -v hz="$_hz" 'BEGIN { printf "%.3f", (b - a) / hz }')
	_lost=$(json_field /tmp/st.out lost) # events: overrun + dropped (issue 35)
	echo "rate=$_rate cpu=$_cpu events=$(json_field /tmp/st.out hits)" \
		"bytes=$(json_field /tmp/st.out bytes ringbuf)" \
		"stackrecs=$(json_field /tmp/st.out sized_records ringbuf)" \
		"stackbytes=$(json_field /tmp/st.out sized_bytes ringbuf)" \
		"altbytes=$(json_field /tmp/st.out alt_bytes ringbuf)" \
		"lost=$_lost"
}

# with_drain WORK: an instance with options/stacktrace and the event, its
# per-CPU buffers read by one process per CPU into nothing
with_drain() {
	_ev=$(event_of "$1")
	_d=$T/instances/bench-drain
	mkdir "$_d"
	echo 1 > "$_d/options/stacktrace"
	echo 1 > "$_d/events/${_ev%%:*}/${_ev#*:}/enable"
	"$W" drain "$_d" "$(awk -v s="$SECONDS" 'BEGIN { print s + 0.6 }')" > /tmp/drain.out &
	_dp=$!
	sleep 0.3
	_rate=$("$W" "$1" "$SECONDS" 0 | awk '{ print $4 }')
	wait $_dp
	_ovr=0
	for _c in "$_d"/per_cpu/cpu*/stats; do
		_o=$(sed -n 's/^overrun: //p' "$_c")
		_ovr=$((_ovr + _o))
	done
	echo 0 > "$_d/events/${_ev%%:*}/${_ev#*:}/enable"
	echo 0 > "$_d/tracing_on"
	rmdir "$_d"
	# drain PAGES BYTES RECORDS EVENTS STACKS CPU
	set -- $(cat /tmp/drain.out)
	echo "rate=$_rate cpu=$7 events=$5 bytes=$3 stackrecs=$6 stackbytes=- altbytes=- lost=$_ovr"
}

echo "bench: $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs, $ROUNDS rounds of $SECONDS s"
r=1
while [ $r -le "$ROUNDS" ]; do
	for w in $WORKLOADS; do
		for m in stackmap stacks drain; do
			a=$(alone "$w")
			if [ $m = drain ]; then
				res=$(with_drain "$w")
			else
				res=$(with_stacktop $m "$w")
			fi
			echo "RESULT round=$r work=$w mode=$m alone=$a $res"
		done
	done
	r=$((r + 1))
done
echo "bench: done"
