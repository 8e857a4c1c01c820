#!/bin/sh
# stacktop -- CMD against a hostile command, and leftovers against a
# hostile process name (issue 25, findings 1 and 6), as nobody through
# setpriv (SUDO_UID/SUDO_GID of a root shell: the command runs as nobody):
#  1. batch, no terminal: the command has no controlling tty (TIOCSTI on
#     /dev/tty cannot be tried), root's exported secret is not in its
#     environment (--preserve-env=VAR keeps VAR), and its grandchildren that
#     outlive it (one setsid()s and forks again) are dead when stacktop is;
#  2. a dead run's journal and instance, their lock file missing, whose pid
#     a process of nobody's called "stacktop-x" now has (started after them,
#     as a pid cycled to would be): --cleanup undoes both.
# The terminal cases (tmux) are tests/tui/cmd-pty.sh.
. "$(dirname "$0")/lib.sh"

for t in setpriv setsid; do
	command -v $t > /dev/null || skip "$t is not installed"
done
[ -n "${CMD_ATTACK:-}" ] && [ -x "$CMD_ATTACK" ] || skip "no CMD_ATTACK helper"
[ -n "${CMD_PIDAT:-}" ] && [ -x "$CMD_PIDAT" ] || skip "no CMD_PIDAT helper"
nobody_uid=$(id -u nobody) || skip "no user nobody"
nobody_gid=$(getent group nogroup | cut -d: -f3)
[ -n "$nobody_gid" ] || skip "no group nogroup"
att() { setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"; }

chmod 711 "$WORK"
A=$WORK/att
mkdir -m 0777 "$A" || fail "cannot make the attacker's directory"
cp "$CMD_ATTACK" "$WORK/cmd-attack" && chmod 755 "$WORK/cmd-attack" || fail "cannot copy the helper"
att true || skip "setpriv cannot become nobody"

# alive_pid FILE: the pid in FILE when that process still runs (as nobody, the attacker's)
alive_pid() {
	[ -s "$1" ] || return 1
	p=$(head -n 1 "$1")
	[ -d "/proc/$p" ] && [ "$(stat -c %u "/proc/$p")" = "$nobody_uid" ] && echo "$p"
}

snapshot "$WORK/before"

# 1. batch with pipes and no terminal at all (setsid -w: no controlling tty)
STACKTOP_SECRET=root-only-$$ STACKTOP_KEPT=kept-$$ SUDO_UID=$nobody_uid SUDO_GID=$nobody_gid \
	setsid -w "$STACKTOP" -b --top 1 --preserve-env=STACKTOP_KEPT -- "$WORK/cmd-attack" "$A" MARK$$ \
	< /dev/null > "$WORK/b.out" 2> "$WORK/b.err"
st=$?
[ "$st" = 0 ] || { cat "$WORK/b.err"; fail "-- cmd-attack: status $st"; }
[ -s "$A/env" ] || fail "the command wrote no environment"
grep -q "STACKTOP_SECRET" "$A/env" && { cat "$A/env"; fail "root's exported STACKTOP_SECRET reached the command's environment"; }
grep -q "^STACKTOP_KEPT=kept-$$\$" "$A/env" || { cat "$A/env"; fail "--preserve-env=STACKTOP_KEPT did not keep it"; }
grep -q "^SUDO_UID=" "$A/env" && fail "SUDO_UID reached the command (not a reset environment)"
grep -q "^HOME=$(getent passwd nobody | cut -d: -f6)\$" "$A/env" || { cat "$A/env"; fail "HOME is not nobody's"; }
grep -q "^USER=nobody\$" "$A/env" || { cat "$A/env"; fail "USER is not nobody"; }
grep -q "^PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\$" "$A/env" ||
	{ cat "$A/env"; fail "PATH is not the safe default"; }
echo "ok: the command's environment is reset (no STACKTOP_SECRET, SUDO_UID; nobody's HOME, USER; a safe PATH); --preserve-env=VAR keeps VAR"

# root without SUDO_UID: the command runs as root, its environment reset all the same
env -u SUDO_UID -u SUDO_GID STACKTOP_SECRET=root-only-$$ "$STACKTOP" -b --top 1 -o "$WORK/root.rep" -- \
	sh -c 'id -u; tr "\0" "\n" < /proc/self/environ' < /dev/null > "$WORK/root.out" 2> "$WORK/root.err" ||
	{ cat "$WORK/root.err"; fail "-- sh as root: failed"; }
[ "$(head -n 1 "$WORK/root.out")" = 0 ] || { cat "$WORK/root.out"; fail "without SUDO_UID the command did not run as root"; }
grep -q "STACKTOP_SECRET" "$WORK/root.out" && fail "without SUDO_UID: STACKTOP_SECRET reached the command"
grep -q "^HOME=$(getent passwd root | cut -d: -f6)\$" "$WORK/root.out" || { cat "$WORK/root.out"; fail "without SUDO_UID: HOME is not root's"; }
echo "ok: without SUDO_UID the command runs as root, its environment reset too"

# its grandchildren: both dead once stacktop has returned (A in its session, B a setsid'd daemon)
for g in a b; do
	tries=50
	while [ ! -s "$A/$g.pid" ] && [ $tries -gt 0 ]; do sleep 0.1; tries=$((tries - 1)); done
	[ -s "$A/$g.pid" ] || fail "grandchild $g never started"
	p=$(alive_pid "$A/$g.pid") && { EXTRA_PIDS="$EXTRA_PIDS $p"; fail "grandchild $g (pid $p) outlived stacktop"; }
done
echo "ok: both grandchildren that would outlive the command (one setsid and double-forked) ended with the run"
# A tried /dev/tty at 0.3 s (the run was on): there was none
grep -q "early: open /dev/tty: No such device or address" "$A/a.log" ||
	{ cat "$A/a.log"; fail "the command had a controlling terminal (batch, none given)"; }
sleep 3.5
[ ! -e "$A/a.late" ] && ! grep -q "^late" "$A/a.log" || { cat "$A/a.log"; fail "a grandchild still acted 3 s in"; }
echo "ok: no controlling terminal for the command without one (open /dev/tty: ENXIO)"

# 2. liveness by lock (or start time), never by comm: a journal and an instance
# of dead runs, no lock file, their pids taken by nobody's "stacktop-x"
RUN=$WORK/run
mkdir -m 0700 "$RUN" || fail "cannot make the run directory"
cp "$(command -v sleep)" "$A/stacktop-x" && chmod 755 "$A/stacktop-x" || fail "cannot copy sleep"
hex() { printf '%s' "$1" | od -An -tx1 | tr -d ' \n'; }
# free_pid: a pid nothing has now
free_pid() {
	p=$(( $(cat /proc/sys/kernel/pid_max) - 1000 - $(od -An -N2 -tu2 /dev/urandom | tr -d ' ') % 3000 ))
	while [ -d "/proc/$p" ]; do p=$((p - 1)); done
	echo "$p"
}
# fake_pid PID: nobody's stacktop-x at PID (clone3 set_tid), started now
fake_pid() {
	"$CMD_PIDAT" "$1" setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$A/stacktop-x" 60 || return 1
	tries=50
	while [ "$(cat "/proc/$1/comm" 2>/dev/null)" != stacktop-x ] && [ $tries -gt 0 ]; do sleep 0.05; tries=$((tries - 1)); done
	[ "$(cat "/proc/$1/comm" 2>/dev/null)" = stacktop-x ] && EXTRA_PIDS="$EXTRA_PIDS $1"
}
J=; I=
for try in 1 2 3 4 5; do
	J=$(free_pid)
	mkdir "$T/instances/stacktop.$J" 2>/dev/null || continue
	printf 'stacktop-journal 1\npid %s\nroot %s\nD %s\n' "$J" "$(hex "$T")" "$(hex "instances/stacktop.$J")" \
		> "$RUN/$J.journal"
	sleep 0.05
	fake_pid "$J" && break
	rmdir "$T/instances/stacktop.$J"; rm -f "$RUN/$J.journal"; J=
done
[ -n "$J" ] || fail "no pid for the journal's fake process"
for try in 1 2 3 4 5; do
	I=$(free_pid)
	mkdir "$T/instances/stacktop.$I" 2>/dev/null || continue
	sleep 0.05
	fake_pid "$I" && break
	rmdir "$T/instances/stacktop.$I"; I=
done
[ -n "$I" ] || { rmdir "$T/instances/stacktop.$J" 2>/dev/null; fail "no pid for the instance's fake process"; }
[ "$(stat -c %u "/proc/$J")" = "$nobody_uid" ] && [ "$(cat "/proc/$J/comm")" = stacktop-x ] ||
	fail "pid $J is not nobody's stacktop-x"
"$STACKTOP" --cleanup --rundir "$RUN" > "$WORK/clean.out" 2>&1
st=$?
left=
[ -d "$T/instances/stacktop.$J" ] && left="$left stacktop.$J(journal)"
[ -d "$T/instances/stacktop.$I" ] && left="$left stacktop.$I"
rmdir "$T/instances/stacktop.$J" "$T/instances/stacktop.$I" 2>/dev/null
[ -z "$left" ] || { cat "$WORK/clean.out"; fail "--cleanup kept$left: pids now of nobody's stacktop-x judged alive"; }
[ ! -e "$RUN/$J.journal" ] || { cat "$WORK/clean.out"; fail "the dead run's journal was kept"; }
[ "$st" = 1 ] || { cat "$WORK/clean.out"; fail "--cleanup: status $st, expected 1 (something was left)"; }
grep -q "removed instance stacktop.$I (it had no journal)" "$WORK/clean.out" || { cat "$WORK/clean.out"; fail "the instance's removal not said"; }
echo "ok: a journal and an instance without lock files, their pids now nobody's stacktop-x: both undone"

snapshot "$WORK/after"
diff -u "$WORK/before" "$WORK/after" || fail "tracefs state changed"
echo "ok: tracefs as before"
