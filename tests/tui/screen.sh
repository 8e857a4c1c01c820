#!/bin/sh
# tui-screen: the screen defects of issue 8, each as a user sees it, on the
# real kernel (stacks mode). SECTIONS="mouse breakdown ..." runs only those
# (to check one against an older binary); all by default.
. "$(dirname "$0")/lib.sh"

T=$(tfs_root) || skip "no tracefs mounted"
[ -d "$T/instances" ] || skip "tracefs without instances"

SECTIONS=${SECTIONS:-"mouse breakdown search columns sort filtercount help"}
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
		{ cat "$TUI_WORK/bd"; tui_selected; fail "the row counts $ROWN, the breakdown $BDN"; }
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

if want columns; then
	say "80x24: short event labels, whole pids, the distinguishing frame in view"
	tui_resize 80 24
	tui_keys Home
	tui_wait '^ +# .*EVENT +COMM\(PID\)' 5
	tui_wait '^[-+ ] +1 ' 5
	tui_rows > "$TUI_WORK/c1"
	# two events: "switch" and "wakeup" (the header names them in full)
	grep -q -E ' (switch|wakeup) ' "$TUI_WORK/c1" || fail "no short event labels"
	grep -q -E 'sched_(swi|wak)~|sched:' "$TUI_WORK/c1" && fail "event names cut or in full"
	# the pid is never cut; the comm is
	grep -q -E '\([0-9]*~' "$TUI_WORK/c1" && fail "a pid is cut"
	[ "$(grep -c -E '[^ ]\([0-9]+\) ' "$TUI_WORK/c1")" = "$(wc -l < "$TUI_WORK/c1")" ] ||
		fail "a row without a whole comm(pid)"
	# the stack text survives the resize (no Ctrl-L needed)
	[ "$(grep -c ' < ' "$TUI_WORK/c1")" -ge 3 ] || fail "no stack text after the resize"
	# one event: no EVENT column, and the frames every row shares are said once
	tui_keys f
	tui_wait 'Filter by event' 3
	tui_type switch
	tui_keys Enter
	tui_wait 'event sched:sched_switch' 3
	tui_wait_gone '^ +# .*EVENT' 5
	tui_wait '^ +# .*FUNCTION < CALLERS \(\.\.\. = ' 5
	tui_wait '^[-+ ] +1 .*\.\.\. [a-z_]' 5
	# expanded, a stack still shows every frame
	tui_keys Home Enter
	tui_wait '#0 +trace_event_raw_event_sched_switch' 5
	tui_wait '#[0-9]+ +__schedule\+' 5
	tui_keys Enter x
	tui_wait 'event all' 3
	tui_resize 120 40
fi

if want sort; then
	say "sort: the ID mark is whole; EVENT and COMM sort"
	tui_keys F6
	tui_wait 'Sort by' 3
	tui_type ' id '
	tui_keys Enter
	tui_wait 'sort ID desc' 3
	tui_wait '^ +# +ID(▼|v) ' 3
	tui_wait '^ +# ' 2
	Y=$(tui_capture | grep -n -E '^ +# ' | head -n 1 | cut -d: -f1)
	X=$(tui_capture | sed -n "${Y}p" | awk '{ print index($0, "COMM(PID)") }')
	[ "$X" -gt 0 ] || fail "no COMM(PID) title"
	tui_click "$X" "$((Y - 1))"
	tui_wait 'sort COMM desc' 3
	tui_keys Z
	tui_wait ' PAUSED ' 3
	# a comm cut to fit ("ser~": room for the pid and "+N") is compared by
	# the letters it shows, so "ser" may stand between two "serv"; the cut
	# to four letters is made by characters (python), never by bytes: other
	# processes' comms may be CJK (3 bytes a character) or carry escapes
	comms() {
		tui_rows | grep -o -E '[^ ]+\([0-9]+\) ' | sed 's/([0-9]*) $//; s/~$//'
	}
	tui_keys Home
	comms > "$TUI_WORK/comms"
	tui_keys End
	tui_wait_gone '^[-+ ] +1 ' 10
	comms >> "$TUI_WORK/comms"
	[ "$(sort -u "$TUI_WORK/comms" | wc -l)" -ge 2 ] || fail "fewer than two comms to order"
	python3 - "$TUI_WORK/comms" << 'PY' || fail "COMM is not in order: $(tr '\n' ' ' < "$TUI_WORK/comms")"
import sys
# stacktop orders COMM by strcasecmp: bytes, ASCII letters folded; compare
# the first four characters of each name the same way
def key(name):
    return name[:4].encode("utf-8", "surrogateescape").lower()
names = [key(n) for n in
         open(sys.argv[1], encoding="utf-8", errors="surrogateescape").read().split()]
for a, b in zip(names, names[1:]):
    n = min(len(a), len(b))
    if a[:n] > b[:n]:
        sys.exit(1)
PY
	tui_keys Home
	tui_keys Space
	tui_wait_gone ' PAUSED ' 3
	tui_keys F6
	tui_type event
	tui_keys Enter
	tui_wait 'sort EVENT desc' 3
	tui_keys Z
	tui_wait ' PAUSED ' 3
	# A to Z: switch rows first, wakeup rows last
	tui_keys Home
	tui_rows | grep -o -E ' (switch|wakeup) ' > "$TUI_WORK/evs"
	[ -s "$TUI_WORK/evs" ] && ! grep -q wakeup "$TUI_WORK/evs" || fail "wakeup rows before switch rows"
	tui_keys End
	tui_wait '^[-+ ] +[0-9]+ .* wakeup ' 3
	tui_rows | grep -q ' switch ' && fail "switch rows after wakeup rows"
	tui_keys Home Space
	tui_wait_gone ' PAUSED ' 3
	tui_keys F6
	tui_type delta
	tui_keys Enter
	tui_wait 'sort DELTA desc' 3
fi

if want filtercount; then
	say "the filter's status line and the header count the same stacks"
	tui_keys Z
	tui_wait ' PAUSED ' 3
	tui_keys '\'
	tui_wait 'Filter frames/comm' 3
	tui_type schedule
	tui_keys Enter
	tui_wait "filter 'schedule': [0-9]+ stacks match" 3
	N1=$(tui_capture | sed -n "s/.*filter 'schedule': \([0-9]*\) stacks match.*/\1/p")
	N2=$(tui_capture | sed -n 's/.*shown [0-9]* of \([0-9]*\).*/\1/p' | head -n 1)
	[ "$N1" = "$N2" ] || fail "the status says $N1 stacks, the header $N2"
	tui_keys x Space
	tui_wait_gone ' PAUSED ' 3
fi

if want help; then
	say "help: every word of the screen explained, scrollable at 80x24"
	tui_resize 80 24
	tui_keys h
	tui_wait 'help - keys' 5
	tui_wait 'lines 1-22 of [0-9]+' 5
	: > "$TUI_WORK/help"
	n=30
	while [ "$n" -gt 0 ]; do
		tui_stable > "$TUI_WORK/page"
		cat "$TUI_WORK/page" >> "$TUI_WORK/help"
		grep -q -E 'lines [0-9]+-([0-9]+) of \1 ' "$TUI_WORK/page" && break
		# the next page once the key is drawn: a capture taken before
		# its redraw would read this page twice and skip the next one
		_at=$(grep -o -E 'lines [0-9]+-[0-9]+ of ' "$TUI_WORK/page" | head -1)
		tui_keys NPage
		[ -z "$_at" ] || tui_wait_gone "$_at" 5
		n=$((n - 1))
	done
	[ "$n" -gt 0 ] || fail "the help does not scroll to its end"
	for w in 'Counts are hits' 'never time' 'total \(\+n\)' '^ +mode ' '^ +delay ' 'PAUSED' \
		'\[DELTA\]' '\[CUMULATIVE\]' 'events/s' '^ +lost ' '^ +dropped ' '^ +overrun ' \
		'^ +stacks ' '^ +cpu ' 'tracing OFF' '^ +stackmap ' '^ +entries ' '^ +successes ' \
		'^ +drops ' 'fallbacks' 'unresolved' '^ +gen ' '^ +view ' '^ +sort ' \
		'event pid comm filter search' '^ +shown ' 'order held' '^ +mapped ' 'full-stack' \
		'CUT' 'DEP .*\+ when' 'SELF'; do
		grep -q -E -- "$w" "$TUI_WORK/help" || fail "the help does not explain /$w/"
	done
	tui_keys q
	tui_wait_gone 'help - keys' 3
	tui_resize 120 40
fi

tui_keys q
tui_quit_restored
echo "PASS"
