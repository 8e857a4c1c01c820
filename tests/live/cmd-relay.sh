#!/bin/sh
# stacktop -b -- CMD against a command that forges or hides root's report
# (issue 36, items 2, 5 and 6), the command run as nobody (SUDO_UID and
# SUDO_GID of nobody, as sudo from nobody's shell would set them), the
# helper tests/live/cmd-forge.c:
#  1. trunc: `> report.txt`: the command ftruncate()s and rewrites its
#     stdout and stderr, at once and on the SIGTERM after the report: the
#     file holds root's report and no forgery (also with 2>&1);
#  2. forge, on a real terminal (tmux): the command leaves SGR 8 (concealed)
#     and a line begun, ignores SIGHUP, and on the SIGTERM that follows the
#     report writes CSI H, CSI 2J, CSI 3J and a fake report to the pty and
#     /dev/tty: root's pane and scrollback hold root's report, not
#     concealed, on a line of its own, and no forgery; status 0;
#  3. c1: raw C1 controls (0x9b 'c' CSI DA, 0x9d OSC, 0x90 DCS, 0x9c ST)
#     never reach root's terminal (the pty's raw bytes, recorded by
#     script(1)), in a UTF-8 locale and in the C locale (where any byte
#     0x80-0x9f is one to an 8-bit terminal);
#  4. pass: the command hands its pty (SCM_RIGHTS) to a process of nobody's
#     outside its tree, which writes to it for ever, and exits; stacktop on
#     a slow terminal (script(1) read 25 KB/s) still ends at once, its
#     report last. Before: it relayed as long as the outsider wrote.
# RELAY_ONLY="case ..." runs some cases only (trunc forge c1 pass).
. "$(dirname "$0")/lib.sh"
want() { [ -z "${RELAY_ONLY:-}" ] || case " $RELAY_ONLY " in *" $1 "*) true ;; *) false ;; esac; }

for t in setpriv setsid script tmux; do
	command -v $t > /dev/null || fail "$t is not installed (scripts/deps.sh test installs it)"
done
[ -n "${CMD_FORGE:-}" ] && [ -x "$CMD_FORGE" ] || fail "no CMD_FORGE helper"
nobody_uid=$(id -u nobody) || skip "no user nobody"
nobody_gid=$(getent group nogroup | cut -d: -f3)
[ -n "$nobody_gid" ] || skip "no group nogroup"
setpriv --reuid=nobody --regid=nogroup --clear-groups -- true || skip "setpriv cannot become nobody"

chmod 711 "$WORK"
A=$WORK/att
mkdir -m 0777 "$A" || fail "cannot make the attacker's directory"
F=$WORK/cmd-forge
cp "$CMD_FORGE" "$F" && chmod 755 "$F" || fail "cannot copy the helper"
TMUX_SOCK="stacktop-relay-$$" OUT_PID=
relay_cleanup() {
	tmux -L "$TMUX_SOCK" kill-server 2> /dev/null
	[ -n "$OUT_PID" ] && kill "$OUT_PID" 2> /dev/null
	cleanup
}
trap relay_cleanup EXIT
export SUDO_UID=$nobody_uid SUDO_GID=$nobody_gid
EV="-e syscalls:sys_enter_write"

snapshot "$WORK/before"

# 1. the report in a file: the command's descriptors are not that file's
for redir in plain both; do
	want trunc || break
	rm -f "$WORK/report.txt" "$WORK/err.txt"
	if [ $redir = plain ]; then
		setsid -w "$STACKTOP" -b -n 1 -d 1 $EV -- "$F" trunc < /dev/null \
			> "$WORK/report.txt" 2> "$WORK/err.txt"
	else
		setsid -w "$STACKTOP" -b -n 1 -d 1 $EV -- "$F" trunc < /dev/null \
			> "$WORK/report.txt" 2>&1
	fi
	st=$?
	[ $st = 0 ] || { cat "$WORK/report.txt" "$WORK/err.txt"; fail "trunc ($redir): status $st"; }
	out=$WORK/report.txt
	[ $redir = plain ] && out=$WORK/err.txt
	grep -q FORGED "$out" || { cat "$out"; fail "trunc ($redir): the command's output is not relayed"; }
	grep -q 'ftruncate worked' "$WORK/report.txt" "$WORK/err.txt" 2> /dev/null &&
		fail "trunc ($redir): the command truncated one of stacktop's files"
	[ $redir = plain ] && grep -q FORGED "$WORK/report.txt" &&
		{ cat "$WORK/report.txt"; fail "trunc: the forgery is in the report's file"; }
	# root's report whole, last
	last=$(grep -n '^stacktop ' "$WORK/report.txt" | tail -1 | cut -d: -f1)
	[ -n "$last" ] || { cat "$WORK/report.txt"; fail "trunc ($redir): no report in the file"; }
	tail -n +"$last" "$WORK/report.txt" | grep -q FORGED &&
		{ cat "$WORK/report.txt"; fail "trunc ($redir): a forgery after or in the report"; }
	tail -n +"$last" "$WORK/report.txt" | grep -q '^RANK ' ||
		{ cat "$WORK/report.txt"; fail "trunc ($redir): the report is cut"; }
	echo "ok: trunc ($redir): the report's file untouched by the command (ftruncate, lseek, reopen)"
done

# 2. on a terminal: no forgery over or after the report, its attributes reset
if want forge; then
tmux -L "$TMUX_SOCK" -f /dev/null new-session -d -s relay -x 200 -y 50 \
	"env LANG=C.UTF-8 TERM=screen SUDO_UID=$nobody_uid SUDO_GID=$nobody_gid sh -c \"'$STACKTOP' -b -n 1 -d 1 $EV --top 5 -- '$F' forge; echo __RC=\\\$?__; sleep 100\"" ||
	fail "cannot start tmux"
tmux -L "$TMUX_SOCK" set-option -g history-limit 10000 > /dev/null
pane() { tmux -L "$TMUX_SOCK" capture-pane -p -J -S - -t relay "$@"; }
tries=0
until pane | grep -q '__RC=' || [ $tries -ge 200 ]; do
	sleep 0.1
	tries=$((tries + 1))
done
[ $tries -lt 200 ] || { pane; fail "forge: stacktop did not end"; }
sleep 1.2 # the forgery's second round, had it a way out
pane > "$WORK/pane.txt"
pane -e > "$WORK/pane.esc"
grep -q '__RC=0__' "$WORK/pane.txt" || { cat "$WORK/pane.txt"; fail "forge: status not 0"; }
grep -q FORGED "$WORK/pane.txt" && { cat "$WORK/pane.txt"; fail "forge: the forgery reached root's terminal"; }
grep -q 'forge-start' "$WORK/pane.txt" || { cat "$WORK/pane.txt"; fail "forge: the command's output was not relayed"; }
grep -q '^stacktop ' "$WORK/pane.txt" || { cat "$WORK/pane.txt"; fail "forge: root's report does not start a line"; }
grep -q '^RANK ' "$WORK/pane.txt" || { cat "$WORK/pane.txt"; fail "forge: root's report is not on the terminal"; }
esc=$(printf '\033')
if grep "RANK " "$WORK/pane.esc" | grep -q "${esc}\[\([0-9]*;\)*8\(;[0-9]*\)*m"; then
	fail "forge: root's report is concealed (SGR 8 left set)"
fi
tmux -L "$TMUX_SOCK" kill-server 2> /dev/null
echo "ok: forge: root's report on the terminal, visible, nothing forged after it"
fi

# 3. raw C1 controls, in the pty's raw bytes (script records them)
for loc in C.UTF-8 C; do
	want c1 || break
	LANG=$loc LC_ALL= LC_CTYPE= script -q -e -c \
		"'$STACKTOP' -b -n 1 -d 0.5 $EV --top 3 -- '$F' c1" "$WORK/c1.$loc" > /dev/null 2>&1
	grep -q c1-end "$WORK/c1.$loc" || fail "c1 ($loc): the command's output not relayed"
	if [ $loc = C ]; then
		want=$(printf 'AcB0;ownedCqD\304E')
	else
		want=$(printf 'AcB0;ownedCqD\304\233E')
	fi
	grep -a -q -F "$want" "$WORK/c1.$loc" ||
		{ grep -a c1- -A2 "$WORK/c1.$loc" | od -c | head; fail "c1 ($loc): not what was expected"; }
	# no C1 byte but inside the UTF-8 character (\304\233)
	n=$(sed 's/\xc4\x9b//g' "$WORK/c1.$loc" | od -An -v -tx1 | tr ' ' '\n' | grep -c '^\(9b\|9d\|90\|9c\)$')
	[ "$n" = 0 ] || fail "c1 ($loc): $n raw C1 bytes reached the terminal"
	echo "ok: c1 ($loc): no raw C1 control relayed"
done

# 4. the pty handed to a process outside the tree, a slow terminal
if want pass; then
setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$F" outside "$A/sock" > "$WORK/outside.out" 2>&1 &
OUT_PID=$!
wait_for "$WORK/outside.out" listening 50 || fail "the outside process did not listen"
t0=$(ms_now)
# (timeout's status through the pipe: 124 when the relay ran on)
{
	timeout 60 script -q -f -e -c "'$STACKTOP' -b $EV --top 3 -- '$F' pass '$A/sock'" /dev/null
	echo $? > "$WORK/pass.rc"
} | "$F" slow > "$WORK/leak.out"
ms=$(($(ms_now) - t0))
[ "$(cat "$WORK/pass.rc")" != 124 ] || fail "pass: still relaying after 60 s (the outsider's writes kept it)"
grep -q 'got it' "$WORK/outside.out" || fail "pass: the outside process never got the pty"
grep -q '^LEAK' "$WORK/leak.out" || fail "pass: nothing of the outsider relayed (the case proves nothing)"
# (the SGR 0 the relay owed may come first, through the report's stream)
rep=$(sed 's/\x1b\[[0-9;]*m//g' "$WORK/leak.out" | grep -an '^stacktop ' | tail -1 | cut -d: -f1)
[ -n "$rep" ] || fail "pass: no report"
tail -n +"$rep" "$WORK/leak.out" | grep -aq 'LEAK' && fail "pass: the outsider's text after root's report"
echo "ok: pass: the pty held outside the tree, a slow terminal: the run ended in $ms ms, its report last ($(grep -ac '^LEAK' "$WORK/leak.out") lines relayed before it)"
kill "$OUT_PID"
wait "$OUT_PID" 2> /dev/null
OUT_PID=
fi

snapshot "$WORK/after"
diff -u "$WORK/before" "$WORK/after" || fail "tracefs state changed"
echo "ok: cmd-relay"
