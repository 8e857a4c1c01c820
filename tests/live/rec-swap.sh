#!/bin/sh
# A recording root reads from a user's directory (issue 36, items 3 and 4),
# the user (nobody) attacking it as it is read:
#  1. fifo: a FIFO renamed over DIR/trace.dat at its first open (inotify,
#     tests/live/swapper.c): the report is the recording's. Before: the
#     probe child's tracecmd_open() of the name opened the FIFO and waited.
#  2. crash: a damaged copy (one libtracecmd crashes on, which the probe
#     child alone refuses) renamed over it after the probe's open: the
#     report is the recording's. Before: root's stacktop died of SIGSEGV.
#  3. map: DIR/stack_map_bin (read as the map saved with the recording) a
#     FIFO, a symlink to /dev/zero, a file over --max-memory: each said and
#     left out, the report made; --map on the FIFO refused at once.
#     Before: the FIFO hung the run, /dev/zero was read to 1 GB.
. "$(dirname "$0")/lib.sh"

command -v setpriv > /dev/null || fail "setpriv is not installed (scripts/deps.sh test installs it)"
command -v python3 > /dev/null || fail "python3 is not installed"
[ -n "${SWAPPER:-}" ] && [ -x "$SWAPPER" ] || fail "no SWAPPER helper"
id nobody > /dev/null 2>&1 && getent group nogroup > /dev/null || skip "no user nobody / group nogroup"
att() { setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"; }
TDAT="$(dirname "$0")/tdat.py"

# (trace-cmd extract on a loaded machine now and then writes a file trace-cmd
# itself cannot read: 0 CPUs at the top, report empty; such a recording proves
# nothing here, and is made again)
for try in 1 2 3; do
	record_sched_switch "stacktop-recswap$try"
	"$STACKTOP" -r "$WORK/trace.dat" -b --top 1 > /dev/null 2> "$WORK/direct.err" && break
	echo "note: the recording is unreadable ($(cat "$WORK/direct.err")): recorded again"
	[ $try = 3 ] && fail "three recordings unreadable"
done
chmod 711 "$WORK"
A=$WORK/att
mkdir "$A" && chown nobody:nogroup "$A" && chmod 755 "$A" || fail "cannot make the attacker's directory"
cp "$SWAPPER" "$WORK/swapper" && chmod 755 "$WORK/swapper" || fail "cannot copy the helper"
SW_PID=
swap_cleanup() {
	[ -n "$SW_PID" ] && kill "$SW_PID" 2> /dev/null
	cleanup
}
trap swap_cleanup EXIT

# fresh: the recording, nobody's, in nobody's directory, alone
fresh() {
	att rm -f "$A"/* || fail "rm as nobody"
	att cp "$WORK/trace.dat" "$A/trace.dat" || fail "cp as nobody"
}

# swap NEW K: nobody renames NEW over trace.dat at its K-th open
swap() {
	att "$WORK/swapper" "$A" trace.dat "$1" "$2" > "$WORK/swap.out" 2>&1 &
	SW_PID=$!
	wait_for "$WORK/swap.out" watching 50 || fail "the swapper did not start"
}

# run ARGS: -r nobody's trace.dat, bounded; rc, out, err
run() {
	t0=$(ms_now)
	timeout 60 "$STACKTOP" -r "$A/trace.dat" -b --top 3 "$@" > "$WORK/out" 2> "$WORK/err"
	rc=$?
	ms=$(($(ms_now) - t0))
}

# the recording's report
reported() {
	[ $rc = 0 ] || { cat "$WORK/err"; fail "$1: status $rc (124: it hung)"; }
	grep -q '^stacktop .* mode replay - ' "$WORK/out" || { cat "$WORK/out"; fail "$1: no report"; }
	grep -q 'sched:sched_switch' "$WORK/out" || { cat "$WORK/out"; fail "$1: not the recording's report"; }
}

# the attack made: the swapper swapped (else it is ended)
swapped() {
	tries=0
	while kill -0 "$SW_PID" 2> /dev/null && [ $tries -lt 20 ]; do
		sleep 0.1
		tries=$((tries + 1))
	done
	kill "$SW_PID" 2> /dev/null
	wait "$SW_PID" 2> /dev/null
	SW_PID=
	grep -q swapped "$WORK/swap.out" || fail "$1: the file was not swapped (the case proves nothing)"
}

# 1. a FIFO at the first open
fresh
att mkfifo "$A/fifo"
swap fifo 1
run
swapped fifo
reported fifo
echo "ok: fifo: a FIFO renamed over the recording at its first open: its report, in $ms ms"

# 2. a copy libtracecmd crashes on, after the probe child opened the file
python3 "$TDAT" corpus "$WORK/trace.dat" "$WORK/corpus" data > /dev/null || fail "corpus not made"
crash=
for f in "$WORK/corpus"/*.dat; do
	"$STACKTOP" -r "$f" -b --top 1 > /dev/null 2> "$WORK/probe.err"
	if grep -q 'the trace-cmd library crashed opening it' "$WORK/probe.err"; then
		crash=$f
		break
	fi
done
if [ -z "$crash" ]; then
	[ "${CI:-}" = true ] && fail "no damaged copy libtracecmd crashes on: the crash case cannot run"
	echo "note: no damaged copy libtracecmd crashes on here: crash case skipped"
else
	fresh
	att cp "$crash" "$A/bad.dat" || fail "cp as nobody"
	swap bad.dat 3
	run
	swapped crash
	reported crash
	grep -q 'Segmentation\|Sanitizer' "$WORK/err" && fail "crash: $(head -3 "$WORK/err")"
	echo "ok: crash: $(basename "$crash") renamed over the recording after the probe: its report, in $ms ms"
fi

# 3. the map saved next to the recording
fresh
att mkfifo "$A/stack_map_bin"
run
reported "map fifo"
grep -q "stack_map_bin next to the recording not used: not a regular file" "$WORK/err" ||
	{ cat "$WORK/err"; fail "map fifo: not said"; }
echo "ok: map fifo: left out and said, the report in $ms ms"
fresh
att ln -s /dev/zero "$A/stack_map_bin"
run --max-memory 16M
reported "map /dev/zero"
grep -q "stack_map_bin next to the recording not used: a symlink" "$WORK/err" ||
	{ cat "$WORK/err"; fail "map /dev/zero: not said"; }
echo "ok: map /dev/zero: a symlink, left out and said, the report in $ms ms"
fresh
att dd if=/dev/zero of="$A/stack_map_bin" bs=1M count=24 status=none || fail "dd as nobody"
run --max-memory 16M
reported "map big"
grep -q "stack_map_bin next to the recording not used: larger than --max-memory" "$WORK/err" ||
	{ cat "$WORK/err"; fail "map big: not said"; }
echo "ok: map big: 24 MiB under --max-memory 16M left out and said, the report in $ms ms"
# --map given a FIFO: refused at once
fresh
att mkfifo "$A/map.fifo"
run --map "$A/map.fifo"
[ $rc = 1 ] && grep -q "cannot read the stack map $A/map.fifo: not a regular file" "$WORK/err" ||
	{ cat "$WORK/err"; fail "--map on a FIFO: status $rc"; }
echo "ok: --map on a FIFO refused in $ms ms"
echo "ok: rec-swap"
