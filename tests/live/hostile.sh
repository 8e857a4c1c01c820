#!/bin/sh
# No unprivileged user may hang, crash, steer or blow up root's `stacktop -u`
# (issue 18). Each case is an attack made as nobody (setpriv --reuid=nobody
# --regid=nogroup --clear-groups) on the files and processes stacktop reads,
# with --user=dwarf and --user=fp:
#
#   fifo-lib   the victim's library deleted, a FIFO where /proc/PID/maps
#              names it ("libhv.so (deleted)") and at its old name
#   fifo-debug a stripped binary whose .gnu_debuglink names a FIFO in the
#              attacker's directory and a socket in its .debug/ (places
#              gdb looks): looked up by a reader process only (O_PATH,
#              then its type), never opened for reading, never read
#   fifo-perf  /tmp/perf-PID.map replaced by a FIFO
#   fifo-rec   a FIFO handed to -r or --diff as the recording
#   truncate   the victim's library cut short (to the end of its code)
#              while stacktop reads it: no SIGBUS
#   secret     /tmp/perf-PID.map a symlink to a root-only file, and
#              the host's /tmp/perf-PID.map made one after the process
#              exited: the file's line never appears in any output
#   xz-bomb    .gnu_debugdata decompressing to 512 MiB, --max-memory 16M
#   mangled    a 254-byte C++ name demangling to 109 MB, --max-memory 16M
#   perf-big   a 60 MiB perf map, --max-memory 16M: peak memory bounded,
#              the header's `user symbols` the memory really held
#   fuse       the victim's library on a FUSE mount whose daemon never
#              answers root: stacktop sends it nothing; and stacktop's own
#              output on such a mount: SIGTERM still ends the run (the
#              watchdog of src/kernel/signals.c)
#
# SIGTERM during each ends the run within 1.5 s (the normal exit, or the
# watchdog's after 800 ms), and no instance or journal is left.
# HOSTILE_ONLY="case ..." runs some cases only, HOSTILE_MODES="fp" one mode.
. "$(dirname "$0")/lib.sh"

[ -n "${HOSTILE_VICTIM:-}" ] && [ -x "$HOSTILE_VICTIM" ] || fail "no HOSTILE_VICTIM test program"
[ -n "${HOSTILE_LIB:-}" ] && [ -f "$HOSTILE_LIB" ] || fail "no HOSTILE_LIB test library"
[ "$(uname -m)" = x86_64 ] || skip "the victim makes its syscalls in x86-64 assembly"
for t in setpriv python3 objcopy strip xz strace readelf; do
	command -v $t > /dev/null || fail "$t is not installed (scripts/deps.sh test installs it)"
done
id nobody > /dev/null 2>&1 && getent group nogroup > /dev/null || skip "no user nobody / group nogroup"

# the quarantine keeps freed memory resident: the peaks measured are stacktop's own
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0:detect_leaks=0"

att() { setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"; }
now_ms() { date +%s%3N; }
want() { [ -z "${HOSTILE_ONLY:-}" ] || case " $HOSTILE_ONLY " in *" $1 "*) true ;; *) false ;; esac; }

chmod 711 "$WORK"
A=$WORK/att # the attacker's directory
mkdir "$A" && chown nobody:nogroup "$A" && chmod 755 "$A" || fail "cannot make the attacker's directory"

MODES=fp
if "$STACKTOP" --user=dwarf -e syscalls:sys_enter_write -b -n 1 -d 0.1 > "$WORK/probe" 2>&1; then
	MODES="dwarf fp"
elif [ "${CI:-}" = true ]; then
	cat "$WORK/probe"
	fail "--user=dwarf does not work here: its cases cannot run"
else
	echo "note: no dwarf mode here ($(tail -1 "$WORK/probe")): fp cases only"
fi
MODES=${HOSTILE_MODES:-$MODES}

VICTIM_PID= FUSE_PID= ST_PID=
hostile_cleanup() {
	# the daemon first: what waits on it is freed
	[ -n "$FUSE_PID" ] && kill -KILL "$FUSE_PID" 2> /dev/null && wait "$FUSE_PID" 2> /dev/null
	[ -n "$ST_PID" ] && kill -KILL "$ST_PID" 2> /dev/null
	[ -n "$VICTIM_PID" ] && kill -KILL "$VICTIM_PID" 2> /dev/null
	rm -f /tmp/perf-"$VICTIM_PID".map
	cleanup
}
trap hostile_cleanup EXIT

# start_victim COMMAND: the victim (run as nobody by COMMAND), until it is ready
start_victim() {
	rm -f "$WORK/vin" "$WORK/victim.out"
	mkfifo "$WORK/vin"
	"$@" < "$WORK/vin" > "$WORK/victim.out" 2>&1 &
	VICTIM_SH=$!
	exec 8> "$WORK/vin"
	wait_for "$WORK/victim.out" '^ready ' 100 || { cat "$WORK/victim.out"; fail "victim $* did not start"; }
	VICTIM_PID=$(awk '/^ready / {print $2; exit}' "$WORK/victim.out")
}

stop_victim() {
	exec 8>&-
	kill "$VICTIM_PID" 2> /dev/null
	wait "$VICTIM_SH" 2> /dev/null
	rm -f /tmp/perf-"$VICTIM_PID".map
	VICTIM_PID=
}

# run NAME MODE ARGS: stacktop -u on the victim, bounded; fails on a crash or a
# hang (after 30 s; a FUSE daemon is killed first: a request it has read holds
# even SIGKILL off)
run() {
	name=$1 mode=$2
	shift 2
	t0=$(now_ms)
	"$STACKTOP" --user="$mode" -e syscalls:sys_enter_write -p "$VICTIM_PID" \
		-b "$@" > "$WORK/$name.$mode" 2> "$WORK/$name.$mode.err" &
	ST_PID=$!
	while kill -0 "$ST_PID" 2> /dev/null && [ $(($(now_ms) - t0)) -lt 30000 ]; do
		sleep 0.05
	done
	if kill -0 "$ST_PID" 2> /dev/null; then
		[ -n "$FUSE_PID" ] && kill -KILL "$FUSE_PID"
		kill -KILL "$ST_PID"
		wait "$ST_PID"
		ST_PID=
		fail "$name ($mode): hung, killed after 30 s"
	fi
	wait "$ST_PID"
	rc=$?
	ST_PID=
	ms=$(($(now_ms) - t0))
	[ $rc = 0 ] || { cat "$WORK/$name.$mode.err"; fail "$name ($mode): exit status $rc"; }
	echo "ok: $name ($mode): ran in $ms ms"
}

# term NAME MODE ARGS: a long run signalled after 1.5 s must end within 1.5 s
term() {
	name=$1 mode=$2
	shift 2
	"$STACKTOP" --user="$mode" -e syscalls:sys_enter_write -p "$VICTIM_PID" -b -d 0.5 "$@" \
		> "$WORK/$name.$mode.term" 2>&1 &
	ST_PID=$!
	# its instance (an ASan build starts in 0.3-2 s on a busy host), then 1.5 s of run
	tries=0
	until [ -d "$T/instances/stacktop.$ST_PID" ] || [ $tries -ge 200 ]; do
		sleep 0.05
		tries=$((tries + 1))
	done
	[ -d "$T/instances/stacktop.$ST_PID" ] || { cat "$WORK/$name.$mode.term"; fail "$name ($mode): no instance after 10 s"; }
	sleep 1.5
	term_wait "$name ($mode)"
}

# term_wait WHAT: SIGTERM to ST_PID; gone within 1.5 s with its instance and journal
term_wait() {
	t0=$(now_ms)
	kill -TERM "$ST_PID"
	while kill -0 "$ST_PID" 2> /dev/null && [ $(($(now_ms) - t0)) -lt 10000 ]; do
		sleep 0.02
	done
	ms=$(($(now_ms) - t0))
	if kill -0 "$ST_PID" 2> /dev/null; then
		kill -KILL "$ST_PID"
		wait "$ST_PID" 2> /dev/null
		fail "$1: still running 10 s after SIGTERM"
	fi
	wait "$ST_PID" 2> /dev/null
	TERM_RC=$?
	no_instance_of "$ST_PID"
	ST_PID=
	[ $ms -le 1500 ] || fail "$1: SIGTERM ended the run after $ms ms"
	echo "ok: $1: SIGTERM ended it in $ms ms (status $TERM_RC)"
}

# peak KIB_VAR NAME MODE ARGS: stacktop's VmHWM (KiB) after its second report,
# its header in $WORK/NAME.MODE.peak; then SIGTERM (term_wait)
peak() {
	name=$1 mode=$2
	shift 2
	"$STACKTOP" --user="$mode" -e syscalls:sys_enter_write -p "$VICTIM_PID" -b -d 0.5 \
		--max-memory 16M "$@" > "$WORK/$name.$mode.peak" 2>&1 &
	ST_PID=$!
	tries=0
	while n=$(grep -sc '^memory: ' "$WORK/$name.$mode.peak"); [ "${n:-0}" -lt 2 ] && [ $tries -lt 300 ]; do
		sleep 0.1
		tries=$((tries + 1))
	done
	[ $tries -lt 300 ] || { cat "$WORK/$name.$mode.peak"; fail "$name ($mode): no second report"; }
	PEAK=$(awk '/^VmHWM:/ {print $2}' "/proc/$ST_PID/status")
	term_wait "$name ($mode)"
	echo "$name ($mode): peak $PEAK KiB, $(grep '^memory: ' "$WORK/$name.$mode.peak" | tail -1)"
}

# the text segment's end in a library, page-rounded: what its code needs
text_end() {
	readelf -lW "$1" | awk '$1 == "LOAD" && / R?W?E / { print $2, $5 }' | tail -1 | {
		read -r off size
		[ -n "$off" ] && echo $(((off + size + 4095) / 4096 * 4096))
	}
}

# ---- fifo-lib ----------------------------------------------------------------
if want fifo-lib; then
	att cp "$HOSTILE_LIB" "$A/libhv.so"
	start_victim att "$HOSTILE_VICTIM" lib "$A/libhv.so"
	att rm "$A/libhv.so"
	att mkfifo "$A/libhv.so" "$A/libhv.so (deleted)"
	grep -q "libhv.so (deleted)" "/proc/$VICTIM_PID/maps" || fail "the library is not shown deleted"
	for mode in $MODES; do
		run fifo-lib $mode -n 2 -d 0.5 --expand 1 --top 3
		# the deleted file itself, through /proc/PID/map_files
		grep -q 'hv_a+0x[0-9a-f]* (libhv.so (deleted))' "$WORK/fifo-lib.$mode" ||
			{ cat "$WORK/fifo-lib.$mode"; fail "fifo-lib ($mode): the deleted library's frames are not named"; }
		term fifo-lib $mode
	done
	stop_victim
fi

# ---- fifo-debug --------------------------------------------------------------
if want fifo-debug; then
	att objcopy --only-keep-debug "$HOSTILE_VICTIM" "$A/hvstrip.debug"
	att objcopy --strip-all --add-gnu-debuglink="$A/hvstrip.debug" "$HOSTILE_VICTIM" "$A/hvstrip"
	readelf -S "$A/hvstrip" | grep -q '\.gnu_debuglink' || fail "no debuglink made"
	readelf -S "$A/hvstrip" | grep -q '\.symtab' && fail "hvstrip is not stripped"
	att rm "$A/hvstrip.debug"
	att mkfifo "$A/hvstrip.debug"
	att mkdir "$A/.debug"
	att /usr/bin/python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' \
		"$A/.debug/hvstrip.debug"
	[ -S "$A/.debug/hvstrip.debug" ] || fail "no socket made"
	start_victim att "$A/hvstrip" mangled
	for mode in $MODES; do
		run fifo-debug $mode -n 2 -d 0.5 --expand 1 --top 3
		# -y: each descriptor with its path, whatever name opened it
		timeout -s KILL 60 strace -f -qq -y -e trace=%file,read,pread64,readv,preadv \
			-o "$WORK/strace.$mode" \
			"$STACKTOP" --user=$mode -e syscalls:sys_enter_write -p "$VICTIM_PID" -b -n 2 \
			-d 0.5 --expand 1 > "$WORK/fifo-debug.strace.out" 2>&1 ||
			fail "fifo-debug ($mode): the run under strace failed"
		grep -q 'map_files' "$WORK/strace.$mode" || fail "fifo-debug ($mode): strace saw no file"
		main=$(awk '{print $1; exit}' "$WORK/strace.$mode")
		# the link's places: a name in a call, or a descriptor's path
		grep -E '"hvstrip\.debug"|/hvstrip\.debug[">]' "$WORK/strace.$mode" > "$WORK/dbg.$mode"
		if grep -E "^$main +" "$WORK/dbg.$mode"; then
			fail "fifo-debug ($mode): root's run itself looked the debug link up"
		fi
		if grep -E '^[0-9]+ +open' "$WORK/dbg.$mode" | grep -v 'O_PATH'; then
			fail "fifo-debug ($mode): the attacker's FIFO or socket was opened for reading"
		fi
		if grep -E '^[0-9]+ +(p?readv?|pread64)\([0-9]+<[^>]*/hvstrip\.debug>' "$WORK/dbg.$mode"; then
			fail "fifo-debug ($mode): the attacker's FIFO or socket was read"
		fi
		n=$(grep -cE '^[0-9]+ +open.*O_PATH' "$WORK/dbg.$mode")
		# -u dwarf reads the binary's lines: both places were looked at
		[ $mode = fp ] || [ "$n" -ge 2 ] ||
			fail "fifo-debug ($mode): the debug link was not looked for ($n lookups)"
		echo "ok: fifo-debug ($mode): $n lookups by a reader (O_PATH), none opened or read"
		term fifo-debug $mode
	done
	echo "ok: fifo-debug: the debug link's FIFO and socket refused unopened"
	stop_victim
fi

# ---- fifo-perf ---------------------------------------------------------------
if want fifo-perf; then
	start_victim att "$HOSTILE_VICTIM" jit
	att rm "/tmp/perf-$VICTIM_PID.map"
	att mkfifo "/tmp/perf-$VICTIM_PID.map"
	for mode in $MODES; do
		run fifo-perf $mode -n 2 -d 0.5 --expand 1 --top 3
		grep -q hostile_jit_fn "$WORK/fifo-perf.$mode" && fail "fifo-perf ($mode): a name from a FIFO"
		term fifo-perf $mode
	done
	stop_victim
fi

# ---- truncate ----------------------------------------------------------------
if want truncate; then
	for mode in $MODES; do
		att cp "$HOSTILE_LIB" "$A/libtr.so"
		cut=$(text_end "$A/libtr.so")
		[ -n "$cut" ] && [ "$cut" -lt "$(stat -c %s "$A/libtr.so")" ] || fail "no text end in the library"
		start_victim att "$HOSTILE_VICTIM" lib "$A/libtr.so"
		"$STACKTOP" --user=$mode -e syscalls:sys_enter_write -p "$VICTIM_PID" -b -n 4 -d 0.5 \
			--expand 1 --top 3 > "$WORK/truncate.$mode" 2> "$WORK/truncate.$mode.err" &
		ST_PID=$!
		wait_for "$WORK/truncate.$mode" 'hv_a+0x' 100 ||
			{ cat "$WORK/truncate.$mode"*; fail "truncate ($mode): no first report"; }
		# the file cut short behind both: its symbols, unwind tables, section headers gone
		att truncate -s "$cut" "$A/libtr.so"
		att kill -USR1 "$VICTIM_PID"
		wait "$ST_PID"
		rc=$?
		ST_PID=
		[ $rc = 0 ] || { cat "$WORK/truncate.$mode.err"; fail "truncate ($mode): exit status $rc"; }
		[ "$(grep -c '^stacktop ' "$WORK/truncate.$mode")" = 4 ] || fail "truncate ($mode): not four reports"
		kill -0 "$VICTIM_PID" || fail "truncate ($mode): the victim died"
		grep -q 'hv_b+0x' "$WORK/truncate.$mode" ||
			{ cat "$WORK/truncate.$mode"; fail "truncate ($mode): no frame of hv_b (read before the cut)"; }
		echo "ok: truncate ($mode): four reports, hv_b named from what was read"
		term truncate $mode
		stop_victim
	done
fi

# ---- secret ------------------------------------------------------------------
if want secret; then
	token="SECRET_$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')"
	for mode in $MODES; do
		# a symlink to a root-only file while the process runs
		start_victim att "$HOSTILE_VICTIM" jit
		read -r jit size _ < "/tmp/perf-$VICTIM_PID.map"
		printf '%s %s %s\n' "$jit" "$size" "$token" > "$WORK/secret"
		chmod 600 "$WORK/secret"
		att ln -sf "$WORK/secret" "/tmp/perf-$VICTIM_PID.map"
		run secret $mode -n 2 -d 0.5 --expand 1 --top 3
		run secret-json $mode -n 1 -d 0.5 --json
		if grep -l "$token" "$WORK"/secret.$mode* "$WORK"/secret-json.$mode*; then
			fail "secret ($mode): the root-only file's line reached an output"
		fi
		term secret $mode
		stop_victim
		# the host's /tmp/perf-PID.map made a symlink after the process exited
		start_victim att "$HOSTILE_VICTIM" jit
		pid=$VICTIM_PID
		read -r jit size _ < "/tmp/perf-$pid.map"
		printf '%s %s %s\n' "$jit" "$size" "$token" > "$WORK/secret"
		"$STACKTOP" --user=$mode -e syscalls:sys_enter_write -p "$pid" -b -n 2 -d 1 --expand 1 \
			--top 3 > "$WORK/secret-gone.$mode" 2>&1 &
		ST_PID=$!
		sleep 0.5
		exec 8>&-
		wait "$VICTIM_SH" 2> /dev/null
		VICTIM_PID=
		att ln -sf "$WORK/secret" "/tmp/perf-$pid.map"
		wait "$ST_PID" || { cat "$WORK/secret-gone.$mode"; fail "secret ($mode): run across the exit failed"; }
		ST_PID=
		rm -f "/tmp/perf-$pid.map"
		# read while it lived: the process's own map named its code
		grep -q "hostile_jit_fn+0x[0-9a-f]* (perf-$pid.map)" "$WORK/secret-gone.$mode" ||
			{ cat "$WORK/secret-gone.$mode"; fail "secret ($mode): the JIT frame was not named while the process lived"; }
	done
	if grep -l "$token" "$WORK"/secret*.* "$WORK"/secret-*; then
		fail "secret: the root-only file's line reached an output"
	fi
	echo "ok: secret: the root-only line never shown"
fi

# ---- xz-bomb, mangled, perf-big: memory ------------------------------------
if want xz-bomb || want mangled || want perf-big; then
	# the reference: the same runs on a victim with nothing hostile
	att cp "$HOSTILE_LIB" "$A/libok.so"
	start_victim att "$HOSTILE_VICTIM" lib "$A/libok.so"
	for mode in $MODES; do
		peak base $mode --expand 1 --top 3
		eval "BASE_$mode=$PEAK"
	done
	stop_victim
	# the bound: the limit itself above the reference (16M; what the bombs
	# asked for was 512 MiB, 109 MB and 226 MB)
	bound=16384
fi
# check_peak NAME MODE: $PEAK within the bound above the reference
check_peak() {
	base=$(eval echo "\$BASE_$2")
	[ $((PEAK - base)) -le $bound ] ||
		fail "$1 ($2): peak $PEAK KiB, $((PEAK - base)) KiB above the reference (bound $bound KiB)"
	echo "ok: $1 ($2): peak $((PEAK - base)) KiB above the reference"
}

if want xz-bomb; then
	head -c 512M /dev/zero | xz -0 -T1 > "$WORK/bomb.xz" || fail "cannot make the bomb"
	chmod 644 "$WORK/bomb.xz"
	att objcopy --strip-all --add-section .gnu_debugdata="$WORK/bomb.xz" "$HOSTILE_VICTIM" "$A/hvbomb"
	start_victim att "$A/hvbomb" mangled
	for mode in $MODES; do
		peak xz-bomb $mode --expand 1 --top 3
		check_peak xz-bomb $mode
	done
	stop_victim
fi

if want mangled; then
	start_victim att "$HOSTILE_VICTIM" mangled
	for mode in $MODES; do
		peak mangled $mode --expand 1 --top 3 -vv
		check_peak mangled $mode
		# shown as in the symbol table, refused once, not at every refresh
		grep -q '_Z1f1pI1aS_ES0_IS1_S1_E' "$WORK/mangled.$mode.peak" ||
			fail "mangled ($mode): the frame does not show the mangled name"
		n=$(grep -c 'not demangled (over the bound)' "$WORK/mangled.$mode.peak")
		[ "$n" = 1 ] || fail "mangled ($mode): refused $n times (once is enough)"
	done
	stop_victim
fi

if want perf-big; then
	start_victim att "$HOSTILE_VICTIM" jit
	att /usr/bin/python3 - "/tmp/perf-$VICTIM_PID.map" << 'PY' || fail "cannot grow the perf map"
import sys
with open(sys.argv[1], "a") as f:
    line = 0
    while f.tell() < 60 << 20:
        f.write("".join("%x 10 jit_filler_%d\n" % (0x100000000 + (line + i) * 16, line + i)
                        for i in range(4096)))
        line += 4096
PY
	for mode in $MODES; do
		peak perf-big $mode --expand 1 --top 3
		check_peak perf-big $mode
		grep -q "hostile_jit_fn+0x[0-9a-f]* (perf-$VICTIM_PID.map)" "$WORK/perf-big.$mode.peak" ||
			fail "perf-big ($mode): the JIT frame (the map's first line) is not named"
		# what the header says is what the map took: the symbolizer's quarter, nearly full
		us=$(grep '^memory: ' "$WORK/perf-big.$mode.peak" | tail -1 | sed 's/.*user symbols \([0-9.]*[KMG]\?\).*/\1/')
		python3 - "$us" << 'PY' || fail "perf-big ($mode): header says user symbols $us"
import sys
v = sys.argv[1]
n = float(v.rstrip("KMG")) * {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(v[-1:], 1)
assert 2 << 20 <= n <= 4 << 20, n
PY
		echo "ok: perf-big ($mode): header user symbols $us"
	done
	stop_victim
fi

# ---- fuse --------------------------------------------------------------------
# In a mount namespace of its own: a daemon that never answers root must not
# be where other root processes walk (find /tmp would wait on it forever).
if want fuse; then
	if [ -z "${BLOCKFS:-}" ] || [ ! -c /dev/fuse ] || ! command -v nsenter > /dev/null; then
		[ "${CI:-}" = true ] && fail "fuse: no blockfs (fuse3), /dev/fuse or nsenter"
		echo "note: no blockfs, /dev/fuse or nsenter: fuse cases skipped"
	else
		mkdir "$WORK/mnt"
		chmod 755 "$WORK/mnt"
		unshare --mount --propagation private sleep 3600 &
		NS_PID=$!
		EXTRA_PIDS="$EXTRA_PIDS $NS_PID"
		sleep 0.2
		nsenter -t "$NS_PID" -m -- "$BLOCKFS" "$WORK/mnt" "$HOSTILE_LIB" "$WORK/fuse.log" \
			-o allow_other > "$WORK/blockfs.err" 2>&1 &
		FUSE_PID=$!
		tries=0
		until grep -qs " $WORK/mnt fuse" "/proc/$NS_PID/mounts" || [ $tries -ge 100 ]; do
			sleep 0.05
			tries=$((tries + 1))
		done
		[ $tries -lt 100 ] || { cat "$WORK/blockfs.err"; fail "fuse: blockfs did not mount"; }
		grep -qs " $WORK/mnt fuse" /proc/mounts && fail "fuse: the mount is not private"
		# the victim in that namespace, stacktop outside it: the victim's mount
		# table (/proc/PID/mountinfo) says FUSE
		start_victim nsenter -t "$NS_PID" -m -- setpriv --reuid=nobody --regid=nogroup \
			--clear-groups -- "$HOSTILE_VICTIM" lib "$WORK/mnt/lib.so"
		for mode in $MODES; do
			run fuse $mode -n 2 -d 0.5 --expand 1 --top 3
			grep -q '\[unknown\] (lib.so+0x[0-9a-f]*)\|\[unknown\] 0x[0-9a-f]* (lib.so+0x' \
				"$WORK/fuse.$mode" || { cat "$WORK/fuse.$mode"; fail "fuse ($mode): no lib.so frame"; }
			grep -q 'mapped files not read' "$WORK/fuse.$mode" ||
				fail "fuse ($mode): the header does not say a file was not read"
			term fuse $mode
		done
		if awk '$3 == 0' "$WORK/fuse.log" | grep .; then
			fail "fuse: stacktop sent the FUSE daemon requests"
		fi
		echo "ok: fuse: no request from root reached the daemon"
		stop_victim
		# stacktop's own output there (root's choice): its lookup waits for
		# an answer that never comes, and nothing, not even SIGKILL, ends a
		# request the daemon has read. After SIGTERM the watchdog restores
		# the kernel's state and starts the exit, which completes when the
		# daemon goes.
		nsenter -t "$NS_PID" -m -- "$STACKTOP" -b -d 0.3 -n 100 --json -o "$WORK/mnt/out.json" \
			> "$WORK/fuse-out" 2>&1 &
		ST_PID=$!
		wait_for "$WORK/fuse.log" " $ST_PID 0 /out" 100 ||
			{ cat "$WORK/fuse-out" "$WORK/fuse.log"; fail "fuse: the output was not looked up"; }
		[ -d "$T/instances/stacktop.$ST_PID" ] || fail "fuse: no instance"
		t0=$(now_ms)
		kill -TERM "$ST_PID"
		while { [ -e "$T/instances/stacktop.$ST_PID" ] || [ -e "/run/stacktop/$ST_PID.journal" ]; } &&
			[ $(($(now_ms) - t0)) -lt 10000 ]; do
			sleep 0.02
		done
		ms=$(($(now_ms) - t0))
		no_instance_of "$ST_PID"
		[ $ms -le 1500 ] || fail "fuse output: the state was restored $ms ms after SIGTERM"
		sleep 0.2
		if [ -e "/proc/$ST_PID" ]; then
			[ "$(ls "/proc/$ST_PID/task" | wc -l)" = 1 ] ||
				fail "fuse output: not exiting (the watchdog still there)"
		fi
		kill -KILL "$FUSE_PID"
		wait "$FUSE_PID" 2> /dev/null
		FUSE_PID=
		wait "$ST_PID"
		rc=$?
		ST_PID=
		[ $rc = 143 ] || fail "fuse output: status $rc, not 143 (the watchdog's SIGTERM)"
		echo "ok: fuse output: state restored $ms ms after SIGTERM, the run ended with the daemon"
		kill "$NS_PID"
		wait "$NS_PID" 2> /dev/null
	fi
fi
# replay: a FIFO in the attacker's directory handed to -r (a recording
# root was told is there) or as --diff's BEFORE: refused at once, not a hang
att mkfifo "$A/rec.json" "$A/rec.dat" || fail "mkfifo as nobody"
for f in rec.json rec.dat; do
	timeout 20 "$STACKTOP" -r "$A/$f" -b -n 1 > /dev/null 2> "$WORK/fifo-r.err"
	rc=$?
	[ "$rc" -ne 124 ] || fail "-r on a FIFO ($f) hangs"
	[ "$rc" -ne 0 ] && grep -q "cannot read $A/$f" "$WORK/fifo-r.err" ||
		fail "-r on a FIFO ($f) not refused: rc $rc, $(cat "$WORK/fifo-r.err")"
done
timeout 20 "$STACKTOP" --diff "$A/rec.json" "$A/rec.dat" \
	> /dev/null 2> "$WORK/fifo-d.err"
[ $? -ne 124 ] || fail "--diff with a FIFO as BEFORE hangs"
echo "ok: a FIFO given to -r or --diff is refused"
echo "ok: hostile"
