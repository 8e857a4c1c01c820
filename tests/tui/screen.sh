#!/bin/sh
# tui-screen: the screen defects of issue 8, each as a user sees it, on the
# real kernel (stacks mode). SECTIONS="mouse breakdown ..." runs only those
# (to check one against an older binary); all by default.
. "$(dirname "$0")/lib.sh"

T=$(tfs_root) || skip "no tracefs mounted"
[ -d "$T/instances" ] || skip "tracefs without instances"

SECTIONS=${SECTIONS:-"mouse breakdown search columns sort help"}
want() {
	case " $SECTIONS " in *" $1 "*) return 0 ;; esac
	return 1
}

start_workload
# a second program hitting the very same stacks under another comm
cp "$(command -v sleep)" "$TUI_WORK/zzsleeper" || fail "cannot copy sleep"
( while :; do "$TUI_WORK/zzsleeper" 0.01; done ) > /dev/null 2>&1 &
TUI_PIDS="$TUI_PIDS $!"

# header_events: the "events N" counter of the header (line 2), as a number
header_events() {
	tui_capture | sed -n 2p | grep -o -E 'events [0-9.]+[kMG]?' | tail -n 1 | cut -d' ' -f2 | tui_num
}

tui_start 120 40
tui_run --mode stacks -d 0.5 -e sched:sched_switch -e sched:sched_wakeup
tui_wait 'mode stacks' 10
tui_wait 'events/s [0-9]' 5
tui_wait '^\+ +1 ' 15

if want mouse; then
	say "mouse: a click and its release never stop the screen"
	tui_wait ' events [0-9]' 5
	tui_wait '^ +# ' 2
	Y=$(tui_capture | grep -n -E '^ +# ' | head -n 1 | cut -d: -f1)
	# press and release on the third row, then no key at all
	tui_click 10 $((Y + 2))
	sleep 0.3
	E1=$(header_events)
	[ -n "$E1" ] || fail "no event counter in the header"
	n=100
	while [ "$n" -gt 0 ]; do
		E2=$(header_events)
		[ -n "$E2" ] && [ "$E2" -gt "$E1" ] && break
		sleep 0.1
		n=$((n - 1))
	done
	[ "$n" -gt 0 ] || fail "the event counter stopped at $E1 after a click (screen frozen)"
	# twice more: the counter goes on each time
	E1=$E2
	n=100
	while [ "$n" -gt 0 ]; do
		E2=$(header_events)
		[ "$E2" -gt "$E1" ] && break
		sleep 0.1
		n=$((n - 1))
	done
	[ "$n" -gt 0 ] || fail "the event counter stopped at $E1"
	tui_keys Home
fi

if want breakdown; then
	say "breakdown: only the hits the row counts (comm filter)"
	tui_keys p
	tui_wait 'Pid or comm' 3
	tui_type zzsleeper
	tui_keys Enter
	tui_wait 'comm zzsleeper' 3
	tui_wait '^\+ +1 .*zzsleeper\([0-9]+\)' 10
	tui_wait 'breakdown of ' 5
	tui_wait '% zzsleeper\([0-9]+\)' 10
	tui_keys Z
	tui_wait ' PAUSED ' 3
	tui_stable > "$TUI_WORK/bd"
	# the comm(pid) entries of the pane: every one is zzsleeper
	sed -n '/breakdown of /,$p' "$TUI_WORK/bd" | grep -o -E '%[^%]*\([0-9]+\)' |
		sed 's/^% *//; s/^[^ ]* //' > "$TUI_WORK/bdcomms"
	[ -s "$TUI_WORK/bdcomms" ] || fail "no comm(pid) in the breakdown"
	grep -v -E '^zzsleeper\([0-9]+\)$' "$TUI_WORK/bdcomms" &&
		fail "the breakdown under comm zzsleeper lists other programs"
	# and its sum is the selected row's count
	ROWN=$(tui_selected | awk '{ print $4 }')
	BDN=$(sed -n 's/.*breakdown of .* (interval \([0-9.kMG]*\),.*/\1/p' "$TUI_WORK/bd")
	[ -n "$ROWN" ] && [ "$ROWN" = "$BDN" ] ||
		fail "the row counts $ROWN, the breakdown $BDN"
	tui_keys Space
	tui_wait_gone ' PAUSED ' 3
	tui_keys x
	tui_wait 'event all' 3
	tui_wait_gone 'comm zzsleeper' 3
fi

if want search; then
	say "search: Esc restores folds, selection and scroll"
	tui_keys Z
	tui_wait ' PAUSED ' 3
	tui_keys C Home Down
	tui_wait_gone '#[0-9]+ ' 3
	tui_rows > "$TUI_WORK/s1"
	SEL1=$(tui_selected)
	tui_keys /
	tui_wait 'Search \(' 3
	for c in s c h e d; do
		tui_type "$c"
	done
	tui_wait "sched +$|#[0-9]+ +[a-z_]*sched" 3
	tui_wait '#[0-9]+ ' 3
	tui_keys Escape
	tui_wait_gone 'Search \(' 3
	tui_wait_gone '#[0-9]+ ' 3
	tui_rows > "$TUI_WORK/s2"
	cmp -s "$TUI_WORK/s1" "$TUI_WORK/s2" || { diff "$TUI_WORK/s1" "$TUI_WORK/s2"; fail "rows differ after Esc"; }
	[ "$(tui_selected)" = "$SEL1" ] || fail "selection moved: '$SEL1' -> '$(tui_selected)'"

	say "search: Enter keeps the match, and only the match, unfolded"
	tui_keys /
	tui_wait 'Search \(' 3
	for c in d o _ n a n o; do
		tui_type "$c"
	done
	tui_keys Enter
	tui_wait "search 'do_nano'" 3
	tui_wait '#[0-9]+ +do_nanosleep' 3
	[ "$(tui_rows | grep -c '^-')" = 1 ] || fail "more than the match's stack unfolded"
	tui_keys n
	tui_wait '#[0-9]+ +do_nanosleep' 3
	[ "$(tui_rows | grep -c '^-')" = 1 ] || fail "n left the previous match unfolded"
	tui_keys Escape C Space
	tui_wait_gone ' PAUSED ' 3
fi

tui_keys q
tui_quit_restored
echo "PASS"
