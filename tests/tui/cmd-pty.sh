#!/bin/sh
# tui-cmd-pty: stacktop -- CMD run by root on a terminal (tmux) from a shell
# with SUDO_UID/SUDO_GID of nobody (issue 25, finding 1), the command a
# hostile one (tests/live/cmd-attack.c): it and a grandchild that outlives
# it push "echo MARK-X..." into /dev/tty's and fd 0's input (TIOCSTI) and
# write to the terminal, while the run lasts and 3 s later. Nothing is
# typed into the screen nor into root's shell afterwards, nothing written
# reaches the screen, the grandchildren are dead when stacktop returns:
#  1. on the screen; 2. batch on the terminal (the pty relays the command's
#  output and what is typed); 3. batch with stdio redirected, stacktop's
#  controlling terminal still the pane's (the command has none).
. "$(dirname "$0")/lib.sh"

T=$(tfs_root) || skip "no tracefs mounted"
[ -d "$T/instances" ] || skip "tracefs without instances"
command -v setpriv > /dev/null || skip "setpriv is not installed"
[ -n "${CMD_ATTACK:-}" ] && [ -x "$CMD_ATTACK" ] || skip "no CMD_ATTACK helper"
nobody_uid=$(id -u nobody) || skip "no user nobody"
nobody_gid=$(getent group nogroup | cut -d: -f3)
[ -n "$nobody_gid" ] || skip "no group nogroup"
setpriv --reuid=nobody --regid=nogroup --clear-groups -- true || skip "setpriv cannot become nobody"
legacy=$(cat /proc/sys/dev/tty/legacy_tiocsti 2>/dev/null || echo "?")
say "(dev.tty.legacy_tiocsti=$legacy: with 0 the kernel refuses TIOCSTI anyway)"

chmod 711 "$TUI_WORK"
cp "$CMD_ATTACK" "$TUI_WORK/cmd-attack" && chmod 755 "$TUI_WORK/cmd-attack" || fail "cannot copy the helper"
SUDO="SUDO_UID=$nobody_uid SUDO_GID=$nobody_gid"

# dead_after DIR: the command's grandchildren (a.pid, b.pid) are gone
dead_after() {
	for _g in a b; do
		_t=50
		while [ ! -s "$1/$_g.pid" ] && [ $_t -gt 0 ]; do sleep 0.1; _t=$((_t - 1)); done
		[ -s "$1/$_g.pid" ] || fail "grandchild $_g never started"
		_p=$(head -n 1 "$1/$_g.pid")
		if [ -d "/proc/$_p" ] && [ "$(stat -c %u "/proc/$_p")" = "$nobody_uid" ]; then
			kill -9 "$_p"
			fail "grandchild $_g (pid $_p) outlived stacktop"
		fi
	done
}

# untouched MARK: neither typed nor written: no MARK-X (typed), no MARK-late
untouched() {
	tui_capture > "$TUI_WORK/pane"
	grep -q -- "$1-X" "$TUI_WORK/pane" && fail "the command typed into the terminal ($1-X...)"
	grep -q -- "$1-late" "$TUI_WORK/pane" && fail "a grandchild wrote to the terminal after the run"
	return 0
}

tui_start 120 40

say "1. the screen: TIOCSTI and writes go to the command's own pty"
A=$TUI_WORK/s1
mkdir -m 0777 "$A"
TM send-keys -t tui "cd $TUI_WORK && clear && $SUDO STACKTOP_SECRET=root-only $STACKTOP -d 0.5 -- $TUI_WORK/cmd-attack $A S1M; echo __RC=\$?__" Enter
APP=$(tui_app_pid)
tui_wait 'cmd-attack: its input is /dev/null, its output goes to' 10
tui_wait 'cmd-attack exited with status 0' 15
# the grandchild's late attempt comes 3 s after the start: it is dead by then
sleep 3.5
kill -0 "$APP" 2>/dev/null || fail "stacktop ended without q (something typed q into it)"
tui_wait 'cmd-attack exited with status 0' 1
tui_capture | grep -q "S1M-early" && fail "the command's writes to /dev/tty reached the screen"
untouched S1M
grep -q STACKTOP_SECRET "$A/env" && fail "root's STACKTOP_SECRET reached the command's environment"
tui_keys q
tui_wait '__RC=0__' 10
# (the run ends at q: its last view stays until then)
dead_after "$A"
sleep 0.5
untouched S1M
grep -q "early: open /dev/tty: ok" "$A/a.log" || { cat "$A/a.log"; fail "the command had no terminal of its own on the screen"; }
say "ok: screen: nothing typed into the screen or the shell, nothing written on it, grandchildren dead, no secret in the environment"

say "2. batch on the terminal: the pty relays output and what is typed"
A=$TUI_WORK/s2
mkdir -m 0777 "$A"
TM send-keys -t tui "clear; $SUDO $STACKTOP -b --top 1 -- $TUI_WORK/cmd-attack $A S2M >/dev/null; echo __RC=\$?__" Enter
tui_wait '__RC=0__' 20
sleep 3.5
untouched S2M
dead_after "$A"
TM send-keys -t tui "clear; $SUDO $STACKTOP -b --top 1 -o $TUI_WORK/r.txt -- sh -c 'echo RELAYED-\$((6*7)); read x; echo GOT-\$x'; echo __RC=\$?__" Enter
tui_wait '^RELAYED-42' 10
tui_type "typed-line"
tui_keys Enter
tui_wait '^GOT-typed-line' 10
tui_wait '__RC=0__' 10
# the pty follows the terminal's size
TM send-keys -t tui "clear; $STACKTOP -b --top 1 -o $TUI_WORK/r2.txt -- sh -c 'stty size; echo RESIZE-NOW; sleep 2; stty size'; echo __RC=\$?__" Enter
tui_wait '^40 120' 10
tui_wait '^RESIZE-NOW' 10
tui_resize 100 30
tui_wait '^30 100' 10
tui_wait '__RC=0__' 10
tui_resize 120 40
say "ok: batch on the terminal: nothing typed into the shell, the grandchildren dead, the command's output, input and terminal size relayed"

say "2b. the command's escape sequences: its colours pass; a title, a query, a reset do not"
# (relayed raw, as sudo does, they were the user's hold on root's terminal:
# a title it sets, a query whose answer the terminal types in)
cat > "$TUI_WORK/esc.sh" << 'EOF2'
#!/bin/sh
printf '\033]2;PWNED-TITLE\007\033[6n\033[31mRED-TEXT\033[0m \033]52;c;cHduZWQ=\007OSC-DONE\n'
EOF2
chmod 755 "$TUI_WORK/esc.sh"
TM select-pane -t tui -T root-title
TM send-keys -t tui "clear; $SUDO $STACKTOP -b --top 1 -o $TUI_WORK/r3.txt -- $TUI_WORK/esc.sh; echo __RC=\$?__" Enter
tui_wait '^RED-TEXT OSC-DONE' 10
tui_wait '__RC=0__' 10
title=$(TM display-message -p -t tui '#{pane_title}')
[ "$title" = root-title ] || fail "the command set root's terminal title: '$title'"
TM capture-pane -e -p -t tui | grep -q "$(printf '\033')\[31mRED-TEXT" ||
	fail "the command's colours did not pass"
# the answer a cursor-position query makes would be typed into the shell
tui_capture | grep -q -E '\^\[\[[0-9]+;[0-9]+R|[0-9]+;[0-9]+R' && fail "the terminal answered the command's query"
say "ok: colours relayed, the title and the clipboard untouched, no query answered"

say "3. batch, stdio redirected: the command has no controlling terminal"
A=$TUI_WORK/s3
mkdir -m 0777 "$A"
TM send-keys -t tui "clear; $SUDO $STACKTOP -b --top 1 -- $TUI_WORK/cmd-attack $A S3M </dev/null >$TUI_WORK/s3.out 2>&1; echo __RC=\$?__" Enter
tui_wait '__RC=0__' 20
sleep 3.5
untouched S3M
dead_after "$A"
grep -q "early: open /dev/tty: No such device or address" "$A/a.log" || { cat "$A/a.log"; fail "the command had a controlling terminal"; }
say "ok: batch without terminal stdio: no controlling terminal (ENXIO), nothing typed"
