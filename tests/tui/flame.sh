#!/bin/sh
# tui-flame: the flame graph view (v) and the TREND column in tmux.
#
# Against the stackmap simulator (known stacks, counted once: --step, then
# --cumulative): the boxes of a level are exactly those the view's own
# folded stacks (P) give, column for column (siblings by name, edges the
# counts scaled and rounded, so each box is within a column of its
# share), at 100 columns, zoomed, filtered by event, at 80x24 and back;
# the selected box's line gives the folded count; the search's summed
# share is the folded stacks'; the mouse selects and zooms; colours tell
# kernel, module and machinery frames apart. TREND: three intervals of
# rising load, the busiest stack's sparkline rises (block characters, and
# ASCII levels when the locale is not UTF-8).
#
# Live: a known workload (st-threads -1, one thread napping in a loop),
# filtered to its pid: its frames are boxes whose widths match the shares
# the screen's own selected-box line gives, within a column.
. "$(dirname "$0")/lib.sh"

CHECK="$(dirname "$0")/flame-check.py"
[ -n "${SIM_BIN:-}" ] && [ -x "$SIM_BIN" ] || fail "no simulator (set SIM_BIN)"
[ -n "${SIM_LIB:-}" ] && [ -r "$SIM_LIB" ] || fail "no sim-lib.sh (set SIM_LIB)"
[ -n "${THREADS:-}" ] && [ -x "$THREADS" ] || fail "no st-threads helper (set THREADS)"
command -v python3 >/dev/null 2>&1 || skip "python3 is not installed"
. "$SIM_LIB"

sim_start v4 --step --stacks 40 --seed 11 || fail "the simulator did not start"
trap 'tui_cleanup; _sim_trap' EXIT

# save the view as folded stacks (P): the newest such file
save_folded() {
	rm -f "$TUI_WORK"/stacktop-*.folded
	tui_keys P
	tui_wait 'Save the view as' 3
	tui_type folded
	tui_keys Enter
	tui_wait 'wrote [0-9]+ folded stacks' 5
	FOLDED=$(ls "$TUI_WORK"/stacktop-*.folded 2>/dev/null | head -n 1)
	[ -s "$FOLDED" ] || fail "no folded file saved"
}

# the pane with its attributes and its trailing blanks (a box's), settled
pane_e() {
	tui_stable "-e -N" > "$TUI_WORK/pane.e"
}

# flame_line LEVEL: the pane's line (0-based, as check_level and tui_click
# take it) of a level of the graph: the header's height varies by mode (the
# stackmap mode has its pool line), so count from the graph's title
flame_line() {
	_t=$(tui_stable | grep -n -m 1 '^FLAME GRAPH' | cut -d: -f1)
	[ -n "$_t" ] || fail "no FLAME GRAPH title on the screen"
	echo $((_t + $1))
}

# check_level LINE LEVEL WIDTH [ZOOM-FRAME...]
check_level() {
	pane_e
	python3 "$CHECK" layout "$TUI_WORK/pane.e" "$FOLDED" "$@" ||
		fail "the flame graph's boxes differ from the folded stacks"
}

tui_start 100 30
tui_run --tracefs "$SIM_MNT" --kallsyms "$SIM_KALLSYMS" -d 0.5 --cumulative --no-color \
	-e sched:sched_switch -e kmem:kmalloc
tui_wait 'No events yet' 10
sim_ctl "emit 6000"
tui_wait_count "$ROW_RE" 5 10
# the simulator's nested interrupts come on top of the 6000: the header says how many
sleep 1
N=$(tui_stable | sed -n 's/.* events \([0-9][0-9]*\)  cpu.*/\1/p' | head -n 1)
[ -n "$N" ] && [ "$N" -ge 6000 ] || fail "the header does not count the 6000 events: '$N'"

say "v: the flame graph, every box as wide as its share"
tui_keys v
tui_wait 'FLAME GRAPH  \(roots on top, callees below; by name; width: share of cumulative\)' 5
tui_wait 'view flame' 3
tui_wait "^all \\($N hits\\)" 5
save_folded
[ "$(awk '{ s += $NF } END { print s }' "$FOLDED")" = "$N" ] || fail "the folded stacks do not add up to $N"
check_level "$(flame_line 1)" 1 100
check_level "$(flame_line 2)" 2 100
check_level "$(flame_line 4)" 4 100
tui_wait "^all  \\[every stack\\]  $N hits  100% of all" 3

say "the selected box's line: its name and the folded count"
tui_keys Down
sleep 0.3
NAME=$(tui_stable | grep -E '\[kernel(| module)\]  [0-9]+ hits' | sed 's/  \[.*//')
[ -n "$NAME" ] || fail "no selected box line after Down"
FUNC=${NAME% \[*}
WANT=$(python3 "$CHECK" share "$FOLDED" - "$FUNC")
tui_wait "^$NAME  \\[kernel( module)?\\]  $WANT hits" 3

say "Enter zooms into it: full width, its callees share the width"
tui_keys Enter
tui_wait "zoom: $NAME" 3
tui_wait 'Backspace or Esc zooms out' 3
check_level "$(flame_line 2)" 2 100 "$FUNC"
check_level "$(flame_line 4)" 4 100 "$FUNC"
# one level deeper, then back one step at a time
tui_keys Down Enter
tui_wait 'zoomed into ' 3
tui_wait_gone "zoom: $NAME " 3
tui_keys BSpace
tui_wait "zoom: $NAME " 3
tui_keys BSpace
tui_wait_gone 'zoom:' 3
tui_wait 'zoomed out to all' 3

say "/ highlights the matches and sums their share"
# a frame of the heaviest stack, two levels down, not a tracing frame
TERM_=$(sort -t' ' -k2 -n -r "$FOLDED" | head -n 1 | cut -d' ' -f1 | cut -d';' -f3 | sed 's/_\[k\]$//')
[ -n "$TERM_" ] || fail "no frame to search"
case $TERM_ in *trace*|*sched_switch*|*kmalloc*) fail "search term '$TERM_' names the machinery too";; esac
SHARE=$(python3 "$CHECK" share "$FOLDED" "$TERM_")
tui_keys /
tui_type "$TERM_"
tui_keys Enter
tui_wait "match '$TERM_': $SHARE% \\([0-9]+\\) in [0-9]+ frames" 3
tui_keys n
tui_wait "search '$TERM_'|$TERM_" 3
tui_stable | sed -n '29p' | grep -q -F "$TERM_" || fail "n did not select a match: $(tui_stable | sed -n '29p')"
tui_keys Escape
tui_wait_gone "match '" 3
tui_keys Home Escape
sleep 0.3

say "f filters by event: the graph is the event's"
tui_keys f
tui_wait 'Filter by event' 3
tui_type kmalloc
tui_keys Enter
tui_wait 'event kmem:kmalloc' 3
save_folded
KM=$(awk '{ s += $NF } END { print s }' "$FOLDED")
[ "$KM" -gt 0 ] && [ "$KM" -lt "$N" ] || fail "kmalloc has $KM of $N hits"
tui_wait "^all \\($KM hits\\)" 3
check_level "$(flame_line 1)" 1 100

say "80x24: readable, the boxes at 80 columns; and back"
tui_resize 80 24
tui_wait 'FLAME GRAPH' 5
sleep 0.5
check_level "$(flame_line 1)" 1 80
check_level "$(flame_line 4)" 4 80
tui_stable | sed -n '23p' | grep -q -E '^all  \[every stack\]' || fail "no selected box line at 80x24"
# every row a level: the header is the rates and the view line, the title on
# line 3, so 19 levels between it and the selected box's line (issue 27)
tui_stable | sed -n '3p' | grep -q '^FLAME GRAPH' || fail "the flame graph's title is not on line 3 at 80x24"
tui_stable | sed -n '2p' | grep -q -E '^ ?view flame' || fail "no view line above the flame graph at 80x24"
tui_resize 100 30
sleep 0.5
check_level "$(flame_line 1)" 1 100
check_level "$(flame_line 4)" 4 100

say "colours: kernel and module frames apart (no --no-color)"
tui_keys q
tui_quit_restored
tui_run --tracefs "$SIM_MNT" --kallsyms "$SIM_KALLSYMS" -d 0.5 --cumulative \
	-e sched:sched_switch -e kmem:kmalloc
tui_wait 'mode stackmap' 10
sleep 0.5
sim_ctl "emit 3000"
tui_wait_count "$ROW_RE" 5 10
tui_keys v
tui_wait 'FLAME GRAPH' 5
# End: down the widest boxes to a leaf (the machinery), Up: its caller, so the leaf shows unselected
tui_keys End
sleep 0.3
tui_keys Up
sleep 0.6
pane_e
tui_stable | sed -n '29p' | grep -q '  \[kernel' || fail "Up from the leaf did not select a kernel frame"
# black on yellow: kernel; black on magenta: modules; white on blue: the machinery
grep -q '43m' "$TUI_WORK/pane.e" || fail "no kernel frame in yellow"
grep -q '45m' "$TUI_WORK/pane.e" || fail "no module frame in magenta"

say "the mouse: a click selects a box, a double click zooms into it"
# level 1's first box starts at column 0
L1=$(flame_line 1)
tui_click 1 "$L1"
sleep 0.3
LINE1=$(tui_stable | sed -n "$((L1 + 1))p" | cut -c 1-20 | sed 's/~.*//; s/ .*//')
tui_stable | sed -n '29p' | grep -q "^$LINE1" || fail "a click did not select the box under it: $(tui_stable | sed -n '29p')"
tui_click 1 "$L1"
tui_click 1 "$L1"
tui_wait "zoom: $LINE1" 3
tui_keys Escape
tui_wait_gone 'zoom:' 3
tui_keys q
tui_quit_restored

# trend_of: the TREND cell of the first ranked row (characters, not bytes)
trend_of() {
	tui_stable | python3 -c '
import sys
lines = sys.stdin.read().split("\n")
t = next(l for l in lines if " TREND" in l and "DELTA" in l)
x = t.index("TREND")
e = x + 5
while e < len(t) and t[e] == " ":
    e += 1
row = next(l for l in lines[lines.index(t) + 1:] if l.strip())
print(row[x:e - 1].rstrip())
'
}

# three intervals of 300, 900 and 2700 events (idle ones between them are
# blanks): the busiest stack of the last rises
trend_run() {
	TM send-keys -t tui "cd $TUI_WORK && clear && LANG=$1 LC_ALL=$1 $STACKTOP --tracefs $SIM_MNT --kallsyms $SIM_KALLSYMS -d 1 -e sched:sched_switch; echo __RC=\$?__" Enter
	tui_wait 'TREND' 10
	sleep 1.2
	total=$(tui_stable | sed -n 's/.* events \([0-9][0-9]*\)  cpu.*/\1/p' | head -n 1)
	for k in 300 900 2700; do
		sim_ctl "emit $k"
		total=$((total + k))
		tui_wait " events $total " 5
		# the next tick closes the interval: its DELTA shows
		sleep 1.1
	done
}

say "TREND: what rises shows rising"
trend_run C.UTF-8
T1=$(trend_of)
echo "TREND of row 1: '$T1'"
python3 -c '
import sys
bars = " \u2581\u2582\u2583\u2584\u2585\u2586\u2587\u2588"
t = sys.argv[1]
lv = [bars.index(c) for c in t if c in bars and c != " "]
# rising: the last interval the highest, the first lower; on a busy host a
# burst the drain takes past a tick is split over two intervals ([2, 4, 3, 8]
# was seen), so the middle need not rise step by step
assert len(lv) >= 3 and lv[-1] == 8 and max(lv[:-1]) < 8 and lv[0] < lv[-2], (t, lv)
' "$T1" || fail "the busiest stack's trend does not rise: '$T1'"
tui_keys q
tui_quit_restored
say "TREND without UTF-8: ASCII levels"
trend_run C
T2=$(trend_of)
echo "TREND of row 1: '$T2'"
python3 -c '
import sys
lv = ["._-=+*#@".index(c) + 1 for c in sys.argv[1] if c in "._-=+*#@"]
assert len(lv) >= 3 and lv[-1] == 8 and max(lv[:-1]) < 8 and lv[0] < lv[-2], (sys.argv[1], lv)
' "$T2" || fail "the ASCII trend does not rise: '$T2'"
tui_keys q
tui_quit_restored
sim_stop

say "live: a known workload's box is as wide as the screen says its share is"
"$THREADS" -1 &
HOT=$!
TUI_PIDS="$TUI_PIDS $HOT"
tui_run -d 1 --cumulative --no-color
tui_wait 'mode stacks' 10
tui_keys p
tui_type "$HOT"
tui_keys Enter
tui_wait "pid $HOT" 3
tui_keys v
tui_wait 'FLAME GRAPH' 5
tui_wait '^all \([0-9.]+k? hits\)' 10
# the nap's frame: the search finds it in every stack of the workload
tui_keys /
tui_type do_nanosleep
tui_keys Enter
tui_wait "match 'do_nanosleep': (9[0-9](\\.[0-9])?|100)% " 5
# every process: the workload's nap is one box among others; select it,
# freeze (Z) and measure it against its share
tui_keys p C-u Enter
tui_wait_gone "pid $HOT" 3
sleep 1.5
tui_keys n Z
tui_wait 'PAUSED' 3
sleep 0.3
pane_e
SEL=$(python3 "$CHECK" selected "$TUI_WORK/pane.e") || fail "no selected box"
W=$(echo "$SEL" | cut -d' ' -f3)
INFO=$(tui_stable | sed -n '29p')
echo "$INFO" | grep -q '^do_nanosleep  \[kernel\]' || fail "the selection is not do_nanosleep: $INFO"
PCT=$(echo "$INFO" | sed -n 's/.*  \([0-9.]*\)% of all.*/\1/p')
[ -n "$PCT" ] || fail "no share on the selected box's line: $INFO"
python3 -c '
import sys
w, pct, cols = int(sys.argv[1]), float(sys.argv[2]), 100
assert abs(w - pct * cols / 100) <= 1.05, ("box", w, "columns, share", pct)
print("ok: do_nanosleep: %d columns for %.1f%% of 100" % (w, pct))
' "$W" "$PCT" || { echo "$SEL"; echo "$INFO"; cat "$TUI_WORK/pane.e" | sed 's/\x1b\[[0-9;]*m//g' | head -32; fail "the box's width is not its share"; }
tui_keys Z q
tui_quit_restored

say "live, in colour: the tracing machinery's frames are the leaves, in blue"
tui_run -d 1 --cumulative
tui_wait 'mode stacks' 10
tui_keys p
tui_type "$HOT"
tui_keys Enter
tui_wait "pid $HOT" 3
tui_keys v
tui_wait '^all \([0-9.]+k? hits\)' 10
tui_keys End
sleep 0.3
tui_stable | sed -n '29p' | grep -q '\[tracing machinery\]' ||
	fail "End did not reach a tracing machinery frame: $(tui_stable | sed -n '29p')"
tui_keys Up
sleep 0.5
pane_e
grep -q '44m' "$TUI_WORK/pane.e" || fail "no tracing machinery frame in blue"
grep -q '43m' "$TUI_WORK/pane.e" || fail "no kernel frame in yellow"
tui_keys q
tui_quit_restored
kill "$HOT" 2>/dev/null
exit 0
