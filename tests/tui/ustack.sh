#!/bin/sh
# tui-ustack: user stacks on the screen, as a user sees it: user frames
# after a "--" row in an expanded stack, the frame filter matching a user
# function, the caller tree rooted at the user frames, and `u` turning them
# off and on. USER_OPT (default --user=fp) and CHAIN (default $CHAIN_FP)
# choose the mode and the program: tui-ustack-dwarf runs `-u` on the build
# without frame pointers.
. "$(dirname "$0")/lib.sh"

USER_OPT=${USER_OPT:---user=fp}
CHAIN=${CHAIN:-${CHAIN_FP:-}}

T=/sys/kernel/tracing
[ -d "$T/instances" ] || skip "no tracefs instances"
if [ "$USER_OPT" = --user=fp ]; then
	[ -e "$T/events/ftrace/user_stack" ] || skip "no ftrace user_stack event"
	probe="$T/instances/stacktop-tui-ustack.$$"
	mkdir "$probe" 2> /dev/null || skip "cannot create an instance"
	have=no
	[ -e "$probe/options/userstacktrace" ] && have=yes
	rmdir "$probe"
	[ $have = yes ] || skip "no options/userstacktrace in instances"
fi
[ "$(uname -m)" = x86_64 ] || skip "the chain program makes its syscall in x86-64 assembly"
[ -n "$CHAIN" ] && [ -x "$CHAIN" ] || fail "no chain test program"
BIN=${CHAIN##*/}

# the chain writes every 10 ms until its stdin closes (at exit: the fifo's
# writer, fd 9, goes away with this shell; tui_cleanup also kills it)
mkfifo "$TUI_WORK/fifo"
"$CHAIN" < "$TUI_WORK/fifo" > "$TUI_WORK/chain.out" &
CHAIN_PID=$!
TUI_PIDS="$TUI_PIDS $CHAIN_PID"
exec 9> "$TUI_WORK/fifo"
n=100
until grep -q ready "$TUI_WORK/chain.out" 2> /dev/null; do
	n=$((n - 1))
	[ $n -gt 0 ] || fail "the chain program did not start"
	sleep 0.1
done

tui_start 140 40
tui_run "$USER_OPT" -d 0.5 -e syscalls:sys_enter_write -p "$CHAIN_PID"

say "user frames below the kernel ones"
tui_wait 'mode stacks' 10
[ "$USER_OPT" = --user=fp ] || tui_wait 'user dwarf' 10
tui_wait '^[-+ ] +1 ' 15
tui_keys Home Enter
tui_wait '#[0-9]+ +--$' 5
tui_wait "#[0-9]+ +ustack_b\\+0x[0-9a-f]+ \\($BIN\\)" 5
tui_wait '#[0-9]+ +entry_SYSCALL_64' 2
kline=$(tui_capture | grep -n -E '#[0-9]+ +entry_SYSCALL_64' | head -1 | cut -d: -f1)
uline=$(tui_capture | grep -n -E '#[0-9]+ +ustack_c\+' | head -1 | cut -d: -f1)
[ "$kline" -lt "$uline" ] || fail "user frames are not below the kernel ones"

say "the frame filter matches user functions"
tui_keys '\'
tui_wait 'Filter frames/comm' 3
tui_type 'zz_no_such_function_zz'
tui_keys Enter
tui_wait 'No stack matches the filters' 5
tui_keys x
tui_wait 'filters and the search cleared' 3
tui_keys '\'
tui_wait 'Filter frames/comm' 3
tui_type 'ustack_b'
tui_keys Enter
tui_wait 'filter ustack_b' 3
tui_wait '^[-+ ] +1 ' 10
tui_keys x
tui_wait 'filters and the search cleared' 3

say "caller tree: rooted at the user frames, merged per function"
tui_keys t
tui_wait "ustack_a \\($BIN\\)" 5
tui_keys E
tui_wait "ustack_b \\($BIN\\)" 5
tui_wait 'entry_SYSCALL_64' 5
# t cycles list -> caller tree -> callee tree -> list
tui_keys t
tui_wait 'CALLEE TREE' 5
tui_keys t
tui_wait 'FUNCTION (\[module\] )?< CALLERS' 5

say "u turns user stacks off and on"
tui_keys u
tui_wait 'user stacks off' 3
tui_keys u
tui_wait 'user stacks on' 3

say "the program exits: the screen stays idle"
# (dwarf: perf's per-task fds hang up when their task exits; polled, they
# woke the loop at once for ever: 50-70% of a CPU. A spin that load slows
# may pass; an idle screen never fails.)
ST_PID=$(pgrep -n -f -- "-p $CHAIN_PID\$") || ST_PID=$(pgrep -n -f -- "-p $CHAIN_PID")
[ -n "$ST_PID" ] || fail "cannot find the stacktop process"
# (the tmux server holds the fifo's other end too: end the program by pid)
kill "$CHAIN_PID"
wait "$CHAIN_PID" 2> /dev/null
sleep 1.5
t0=$(awk '{print $14 + $15}' "/proc/$ST_PID/stat")
sleep 2
t1=$(awk '{print $14 + $15}' "/proc/$ST_PID/stat")
hz=$(getconf CLK_TCK)
echo "stacktop used $((t1 - t0)) ticks of $((2 * hz)) in 2 s after the program exited"
[ $((t1 - t0)) -lt $((2 * hz * 40 / 100)) ] || fail "the screen spins after the program exited"
tui_wait '-p +all exited' 5

tui_keys q
tui_wait '__RC=0__' 10
echo "ok: tui-ustack ($USER_OPT)"
