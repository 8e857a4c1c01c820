#!/bin/sh
# Bad input gets a clear error, a non-zero exit, and changes nothing.
. "$(dirname "$0")/lib.sh"

snapshot "$WORK/before"

expect_fail() {
	code=$1 pat=$2
	shift 2
	"$@" > "$WORK/out" 2> "$WORK/err"
	rc=$?
	[ "$rc" = "$code" ] || { cat "$WORK/err"; fail "'$*' exited $rc, expected $code"; }
	grep -q -- "$pat" "$WORK/err" || { cat "$WORK/err"; fail "'$*' did not say '$pat'"; }
}

expect_fail 1 "unknown event 'nosuch:event'" "$STACKTOP" -b -n 1 -e nosuch:event
expect_fail 1 "no CPU to read: -C names none of the CPUs this instance has (0" \
	"$STACKTOP" -b -n 1 -C 4000
expect_fail 1 "unknown event 'sched:nosuch\*'" "$STACKTOP" -b -n 1 -e 'sched:nosuch*'
# a typo gets the closest names
expect_fail 1 "unknown event 'sched:sched_swich': did you mean sched:sched_switch?" \
	"$STACKTOP" -b -n 1 -e sched:sched_swich
expect_fail 1 "unknown event 'sched_swtich': did you mean sched:sched_switch?" \
	"$STACKTOP" -b -n 1 -e sched_swtich
expect_fail 1 "cannot open tracefs at /nonexistent" "$STACKTOP" -b -n 1 --tracefs /nonexistent
expect_fail 1 "does not look like tracefs" "$STACKTOP" -b -n 1 --tracefs "$WORK"
expect_fail 1 "needs a kernel with the ftrace stackmap series" "$STACKTOP" -b -n 1 --mode stackmap
expect_fail 2 "bad delay" "$STACKTOP" -b -d abc
expect_fail 2 "bad --mode" "$STACKTOP" -b --mode fast
expect_fail 2 "bad CPU list" "$STACKTOP" -b -C 3-1
expect_fail 2 "unrecognized option" "$STACKTOP" --bogus
# -u=WAY as --help writes it (-u, --user[=fp|dwarf...]): the word, not "=word"
expect_fail 2 "bad --user 'bogus' (fp, dwarf or dwarf,SIZE)" "$STACKTOP" -b -u=bogus
expect_fail 2 "too many pids in '1-2000' (at most 1024 in all)" "$STACKTOP" -b -p 1-2000
expect_fail 2 "too many CPUs in '0-5000' (at most 1024 in all)" "$STACKTOP" -b -C 0-5000
# an argument's escape sequence is never replayed on the terminal, in
# stacktop's messages or getopt's: shown inert, as ?[2J
esc=$(printf '\033')
for args in "-p|1${esc}[2J" "-C|0${esc}[2J" "-d|${esc}[2J" "--max-memory|${esc}[2J" \
	"--format|${esc}[2J" "--weight|${esc}[2J" "--filter|${esc}[2J" "--bog${esc}[2J" \
	"--batch=${esc}[2J" "-b|x${esc}[2J" "--list-events|nosuch${esc}[2J" "-d"; do
	old_ifs=$IFS
	IFS='|'
	# shellcheck disable=SC2086 # split on | on purpose
	set -- $args
	IFS=$old_ifs
	"$STACKTOP" "$@" > "$WORK/out" 2> "$WORK/err"
	rc=$?
	[ "$rc" != 0 ] || fail "'$*' exited 0"
	if grep -q "$esc" "$WORK/err"; then
		od -c "$WORK/err" | head -5
		fail "'$*': the escape sequence reached stderr raw"
	fi
	case $* in
	*"$esc"*) grep -q '?\[2J' "$WORK/err" || { cat "$WORK/err"; fail "'$*': argument not shown"; } ;;
	*) grep -q "requires an argument -- 'd'" "$WORK/err" || { cat "$WORK/err"; fail "-d: no message"; } ;;
	esac
	grep -q "Try 'stacktop --help'\|stacktop: " "$WORK/err" || fail "'$*': no message"
done

# a --tracefs tree another user controls, with a symlink planted towards a
# root-owned file: refused before anything is read or written
victim=$WORK/victim
mkdir -p "$victim/events/sched/sched_switch" "$WORK/evil/events"
echo "root-owned original" > "$victim/events/sched/sched_switch/enable"
cp "$T/events/header_page" "$WORK/evil/events/header_page"
ln -s "$victim/events/sched" "$WORK/evil/events/sched"
chown -R 65534:65534 "$WORK/evil"
expect_fail 1 "refusing --tracefs $WORK/evil: neither tracefs nor a root-owned directory only root can write" \
	"$STACKTOP" -b -n 1 -e sched:sched_switch --tracefs "$WORK/evil"
chown -R 0:0 "$WORK/evil"
chmod 0777 "$WORK/evil"
expect_fail 1 "refusing --tracefs" "$STACKTOP" -b -n 1 -e sched:sched_switch --tracefs "$WORK/evil"
[ "$(cat "$victim/events/sched/sched_switch/enable")" = "root-owned original" ] ||
	fail "a refused --tracefs tree still wrote through its symlink"

# a refused journal directory: one clear error, no "could not undo" line
mkdir -m 0777 "$WORK/openrun"
chmod 0777 "$WORK/openrun"
expect_fail 1 "cannot keep a restore journal in $WORK/openrun: Operation not permitted" \
	"$STACKTOP" -b -n 1 --rundir "$WORK/openrun"
! grep -q "could not undo" "$WORK/err" || { cat "$WORK/err"; fail "a refused rundir reads as a failed recovery"; }

# a full disk says so, and leaves nothing behind
mkdir -m 0700 "$WORK/fullrun"
if mount -t tmpfs -o size=64k,mode=0700 tmpfs "$WORK/fullrun" 2>/dev/null; then
	dd if=/dev/zero of="$WORK/fullrun/fill" bs=4k 2>/dev/null
	"$STACKTOP" -b -n 1 --rundir "$WORK/fullrun" > "$WORK/out" 2> "$WORK/err"
	rc=$?
	left=$(ls "$WORK/fullrun" | grep -v '^fill$')
	umount "$WORK/fullrun" # before any fail: the cleanup removes $WORK
	[ "$rc" = 1 ] || { cat "$WORK/err"; fail "full rundir: exit $rc, expected 1"; }
	grep -q "cannot keep a restore journal in $WORK/fullrun: No space left on device" "$WORK/err" ||
		{ cat "$WORK/err"; fail "a full rundir does not say so"; }
	[ -z "$left" ] || fail "a failed start left $left in the journal directory"
	echo "ok: a full journal directory says 'No space left on device'"
fi

# --kallsyms that never ends or never opens: a warning at once, no hang
mkfifo "$WORK/fifo"
for ks in /dev/zero "$WORK/fifo"; do
	timeout 60 "$STACKTOP" -b -n 1 -d 0.1 --top 1 --kallsyms "$ks" > "$WORK/out" 2> "$WORK/err"
	rc=$?
	[ "$rc" = 0 ] || { cat "$WORK/err"; fail "--kallsyms $ks: exit $rc (124: it hung)"; }
	grep -q "cannot read $ks: not a regular file" "$WORK/err" ||
		{ cat "$WORK/err"; fail "--kallsyms $ks: no clear warning"; }
done

# not root: a clear message, nothing touched
if command -v setpriv > /dev/null; then
	expect_fail 1 "needs root" setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$STACKTOP" -b -n 1
fi

snapshot "$WORK/after"
diff -u "$WORK/before" "$WORK/after" || fail "a failed start changed tracefs"
ls "$T/instances" | grep -q '^stacktop\.' && {
	for i in "$T"/instances/stacktop.*; do
		p=${i##*.}
		kill -0 "$p" 2>/dev/null || fail "failed start left $i"
	done
}
"$STACKTOP" --help | grep -q -- '--tracefs DIR' || fail "--help lacks --tracefs"
"$STACKTOP" --version | grep -q '^stacktop [0-9]' || fail "--version"
echo "ok: errors are clear and change nothing"
