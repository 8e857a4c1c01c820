#!/bin/sh
# tui-pool: issue 20 on the screen, against the stackmap simulator with a
# 1024-entry pool (--bits 10): the pool line (fill, growth, time until full),
# its warning (the alert colour, the advice: r and ftrace_stackmap.bits=N)
# once the map fills within minutes at a rate measured over its window,
# then full (since when, the fallback share, the advice), r empties it;
# long function-tracer event names are cut with '~' in the EVENT column
# without moving COMM(PID), and whole in the header and the breakdown.
. "$(dirname "$0")/lib.sh"

[ -n "${SIM_BIN:-}" ] && [ -x "$SIM_BIN" ] || fail "no simulator (set SIM_BIN)"
[ -n "${SIM_LIB:-}" ] && [ -r "$SIM_LIB" ] || fail "no sim-lib.sh (set SIM_LIB)"
. "$SIM_LIB"

sim_start v4 --step --bits 10 --seed 9 --stacks 2000 || fail "the simulator did not start"
trap 'tui_cleanup; _sim_trap' EXIT
tfs_snapshot "$SIM_MNT" "$TUI_WORK/before"

# the 4th line with its colours: red (31) is the alert colour
pool_line() {
	tui_stable -e | sed -n 4p
}

pool_alert() {
	pool_line | grep -q -E '31m[^ ]' || fail "the pool line is not an alert: $(pool_line | sed 's/\x1b\[[0-9;]*m//g')"
}

pool_calm() {
	pool_line | grep -q '31m' && fail "the pool line is an alert: $(pool_line | sed 's/\x1b\[[0-9;]*m//g')"
	return 0
}

tui_start 130 40
LONG=__x64_sys_clock_nanosleep
tui_run --tracefs "$SIM_MNT" --kallsyms "$SIM_KALLSYMS" -d 0.5 --function "$LONG" \
	--function schedule -e sched:sched_switch
START=$(date +%s)

say "the pool line of an empty map"
tui_wait '^ pool 0% 0/1024  growth [-+]' 10
pool_calm

say "filling, the rate measured over its whole window: a warning and the advice"
sim_ctl "emit 200"
tui_wait '^ pool [0-9]+% [0-9]+/1024  growth \+[0-9.]+/s  full in (<|[0-9])' 10
# the window is 10 s: then the rate is the workload's, not a start's burst
while [ $(($(date +%s) - START)) -lt 12 ]; do sleep 0.5; done
sim_ctl "emit 300"
tui_wait '^ pool [0-9]+% [0-9]+/1024  growth \+[0-9.]+/s  full in (<1s|[0-9ms]+)  fix r resets it; boot ftrace_stackmap\.bits=1[1-8] \(' 10
pool_alert

say "full: since when, the fallback share, the advice"
sim_ctl "fill-pool 0"
sim_ctl "emit 3000"
tui_wait '^ pool FULL since [0-9]{2}:[0-9]{2}:[0-9]{2} \((<1|[0-9]+)s\)  fallback ([0-9]+%|-) now, [0-9]+% since start  fix r empties it; boot ftrace_stackmap\.bits=1[1-8] \(' 10
pool_alert
tui_wait '^ stackmap on v4  entries 1024/1024 .* drops [1-9]' 5

say "EVENT: a long name is cut with ~, COMM(PID) does not move"
tui_wait "function __x64_sys_c[a-z_]*~ " 10
tui_stable | tui_one_col > "$TUI_WORK/pane"
awk -v re="$ROW_RE" '
	/^ +# / { t = $0; gsub(/\342\226[\262\274]/, "v", t)   # the sort mark: one column, three bytes
		  c = index(t, "COMM(PID)"); e = index(t, "EVENT") }
	c && $0 ~ re {
		rows++
		if (substr($0, c - 1, 1) != " " || substr($0, c, 1) == " ") { print "moved: " $0; bad = 1 }
		cell = substr($0, e, c - e)
		if (cell ~ /__x64_sys/) { long++; if (cell !~ /~ *$/) { print "not cut: " $0; bad = 1 } }
	}
	END { if (!c || !rows || !long) { print "no COMM column, rows or long names"; bad = 1 }; exit bad }
' "$TUI_WORK/pane" || fail "the EVENT column pushed COMM(PID)"

say "whole in the header and the breakdown"
tui_keys f
tui_wait 'Filter by event' 3
tui_type nanosleep
tui_keys Enter
tui_wait "event ftrace:function $LONG  " 5
tui_keys z
tui_wait "^ +[0-9]+ +100% ftrace:function $LONG +[0-9]+ " 5
tui_keys x z

say "r empties the map: the pool is calm again"
tui_keys r
tui_wait 'press r again to reset the kernel stack map' 3
tui_keys r
tui_wait 'reset: kernel map and counts start from zero' 5
tui_wait '^ pool 0% 0/1024  growth ' 5
pool_calm

tui_keys q
tui_quit_restored
tfs_snapshot "$SIM_MNT" "$TUI_WORK/after"
diff "$TUI_WORK/before" "$TUI_WORK/after" || fail "the simulated tracefs was not restored"
echo "PASS"
