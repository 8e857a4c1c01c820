# SPDX-License-Identifier: GPL-2.0-or-later
# sim-lib.sh - start and stop stackmap-sim from shell tests.
#
#	. tests/sim/sim-lib.sh
#	SIM_BIN=/path/to/stackmap-sim	# default: stackmap-sim in $PATH
#	sim_start v4 --rate 500		# mounts, exports SIM_MNT SIM_KALLSYMS SIM_PID
#	sim_ctl "emit 100"
#	stacktop --tracefs "$SIM_MNT" --kallsyms "$SIM_KALLSYMS" ...
#	sim_stop
#
# sim_start installs an EXIT/INT/TERM trap that stops the simulator, so a
# failing test never leaves a mount behind (a trap the caller set earlier is
# kept and run after it).  Only the simulator's own pid is ever killed.

SIM_BIN=${SIM_BIN:-stackmap-sim}
SIM_MNT=
SIM_DIR=
SIM_PID=
SIM_KALLSYMS=

# sim_start ABI [extra stackmap-sim options]
sim_start()
{
	_abi=${1:?sim_start: ABI (v1..v4) missing}
	shift
	[ -c /dev/fuse ] || { echo "sim_start: no /dev/fuse" >&2; return 77; }
	SIM_DIR=$(mktemp -d /tmp/stackmap-sim.XXXXXX) || return 1
	SIM_MNT=$SIM_DIR/tracing
	SIM_KALLSYMS=$SIM_DIR/kallsyms
	mkdir "$SIM_MNT" || return 1
	_sim_prev_trap=$(trap | sed -n "s/^trap -- '\(.*\)' EXIT\$/\1/p")
	trap '_sim_trap' EXIT
	trap '_sim_trap; exit 130' INT
	trap '_sim_trap; exit 143' TERM
	"$SIM_BIN" "$SIM_MNT" --abi "$_abi" --kallsyms-out "$SIM_KALLSYMS" "$@" \
		>"$SIM_DIR/sim.log" 2>&1 &
	SIM_PID=$!
	export SIM_MNT SIM_KALLSYMS SIM_PID SIM_DIR
	_i=0
	while [ $_i -lt 500 ]; do
		if [ -e "$SIM_MNT/tracing_on" ]; then
			return 0
		fi
		if ! kill -0 "$SIM_PID" 2>/dev/null; then
			echo "sim_start: stackmap-sim exited:" >&2
			cat "$SIM_DIR/sim.log" >&2
			sim_stop
			return 1
		fi
		sleep 0.01
		_i=$((_i + 1))
	done
	echo "sim_start: $SIM_MNT not mounted after 5s" >&2
	sim_stop
	return 1
}

# sim_stop: unmount, wait for the simulator, remove the temp dir
sim_stop()
{
	[ -n "$SIM_DIR" ] || return 0
	if [ -n "$SIM_MNT" ] && grep -q " $SIM_MNT fuse" /proc/mounts 2>/dev/null; then
		fusermount3 -u "$SIM_MNT" 2>/dev/null ||
			fusermount3 -u -z "$SIM_MNT" 2>/dev/null
	fi
	if [ -n "$SIM_PID" ]; then
		_i=0
		while kill -0 "$SIM_PID" 2>/dev/null && [ $_i -lt 200 ]; do
			sleep 0.01
			_i=$((_i + 1))
		done
		kill -TERM "$SIM_PID" 2>/dev/null
		wait "$SIM_PID" 2>/dev/null
	fi
	rmdir "$SIM_MNT" 2>/dev/null
	rm -f "$SIM_KALLSYMS" "$SIM_DIR/sim.log"
	rmdir "$SIM_DIR" 2>/dev/null
	SIM_DIR= SIM_MNT= SIM_PID= SIM_KALLSYMS=
	return 0
}

# sim_ctl CMD...: one command to .sim/control (fails like the write does)
sim_ctl()
{
	printf '%s\n' "$*" > "$SIM_MNT/.sim/control"
}

# sim_truth: the ground truth file (see doc/simulator.md)
sim_truth()
{
	cat "$SIM_MNT/.sim/truth"
}

_sim_trap()
{
	sim_stop
	if [ -n "$_sim_prev_trap" ]; then
		eval "$_sim_prev_trap"
	fi
}
