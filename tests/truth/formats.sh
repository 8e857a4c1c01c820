#!/bin/sh
# Every output format and the screen show the same numbers for the same run
# (issue 35). Two recordings of the live kernel (every stack of two events,
# and --oncpu without -u: the [user space] rows of each command), each of
# two intervals so that an interval's hits and the totals differ, are read
# back with -r in every format: JSON, folded, csv, pprof, speedscope, text
# (tests/truth/formats.py checks each against the recording, stack by
# stack), html (in chromium: every frame's count and width its path's)
# and the screen in tmux (each row's DELTA, TOTAL and % the recording's).
# Then one live run on the screen, of a workload stopped once shown: the
# rows it shows against the JSON and folded views it saves (P).
. "$(dirname "$0")/../tui/lib.sh"
WORK=$TUI_WORK
. "$(dirname "$0")/../live/export-tools.sh"
browser_tools
T=$(tfs_root) || skip "no tracefs mounted"
HERE=$(cd "$(dirname "$0")" && pwd)

# screen_rows FILE: the ranked rows of the pane: "DELTA TOTAL %" a line
screen_rows() {
	tui_stable | tui_one_col |
		sed -n 's/^[-+ ] \{1,\}[0-9]\{1,\} \{1,\}[-0-9,+]\{1,\} \{1,\}\([0-9]\{1,\}\) \{1,\}\([0-9]\{1,\}\) \{1,\}\([0-9.]\{1,\}\|-\) .*/\1 \2 \3/p' \
		> "$1"
}

# screen_check ROWS REC.json [total]: the rows shown are the recording's
# first ones (by the interval's hits, or the totals), with its shares of
# the interval's hits (of all of them)
screen_check() {
	python3 - "$1" "$2" "${3:-delta}" << 'PY' || fail "the screen shows other numbers than the recording"
import json, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
rec = json.loads(open(sys.argv[2]).read().splitlines()[-1])
by = 0 if sys.argv[3] == "delta" else 1
whole = rec["matched_delta" if by == 0 else "matched_total"]
def pct(part):
    t = part * 1000 // whole
    return str(t // 10) if t >= 1000 else "%d.%d" % (t // 10, t % 10)
assert len(rows) >= min(5, len(rec["stacks"])), rows
# stacks that differ only in the tracing machinery are one stack read back
keys = {}
for s in rec["stacks"]:
    k = keys.setdefault(s["key"], [0, 0])
    k[0] += s["delta"]
    k[1] += s["total"]
want = sorted((tuple(v) for v in keys.values()), key=lambda v: v[by], reverse=True)
want = sorted(want[:len(rows)])
got = sorted((int(d), int(t)) for d, t, _ in rows)
# (a tie at the last row shown: either stack of it)
cut = sorted(keys.values(), key=lambda v: v[by], reverse=True)[len(rows) - 1][by]
assert [g for g in got if g[by] != cut] == [w for w in want if w[by] != cut], \
    "screen %s, recording %s" % (got[:5], want[:5])
for r in rows:
    assert r[2] == pct(int(r[by])), "a row of %s says %s%%, of %d" % (r[by], r[2], whole)
print("screen: %d rows as the recording has them (%s)" % (len(rows), sys.argv[3]))
PY
}

tui_start 160 50
start_workload
for kind in stacks oncpu; do
	say "$kind: a recording read back in every format"
	R="$WORK/$kind.json"
	D="$WORK/$kind"
	mkdir -p "$D"
	if [ "$kind" = stacks ]; then
		"$STACKTOP" -b -n 2 -d 0.5 -e sched:sched_switch -e sched:sched_wakeup --json > "$R" \
			2> "$WORK/err" || { cat "$WORK/err"; fail "the recording failed"; }
	else
		"$STACKTOP" --oncpu -b -n 2 -d 0.5 --json > "$R" 2> "$WORK/err" ||
			{ cat "$WORK/err"; fail "the --oncpu recording failed"; }
		grep -q '"\[user space\]"' "$R" || fail "the --oncpu recording has no [user space] row"
	fi
	"$STACKTOP" -r "$R" --json > "$D/back.json" || fail "-r --json failed"
	"$STACKTOP" -r "$R" --folded > "$D/out.folded" || fail "-r --folded failed"
	"$STACKTOP" -r "$R" -o "$D/out.csv" || fail "-r -o out.csv failed"
	"$STACKTOP" -r "$R" -o "$D/out.pb.gz" || fail "-r -o out.pb.gz failed"
	"$STACKTOP" -r "$R" -o "$D/out.speedscope.json" || fail "-r -o out.speedscope.json failed"
	"$STACKTOP" -r "$R" --top 100000 --expand 100000 > "$D/out.txt" || fail "-r text failed"
	"$STACKTOP" -r "$R" -o "$D/out.html" || fail "-r -o out.html failed"
	python3 "$HERE/formats.py" "$R" "$D" || fail "$kind: a format holds other numbers"
	# html: every frame's count (and width) its path's (formats.py wrote them)
	flame_check "$D/out.html" "$D/expect.json" "$kind-html"
	# the screen
	tui_run -r "$R"
	tui_wait '^[-+ ] +1 ' 15
	screen_rows "$D/screen"
	screen_check "$D/screen" "$R"
	tui_keys q
	tui_quit_restored
done

say "a live run: what the screen shows against what it saves"
# a workload of ours (-p: it and what it starts), stopped once the screen
# shows it, so that its numbers hold still while the screen shows them
# and P saves them: its totals, in the cumulative view
start_sleeper
TUI_PIDS="$TUI_PIDS $SLEEPER_PID"
tui_run --mode stacks -d 0.5 -p "$SLEEPER_PID"
tui_wait '^[-+ ] +3 ' 15
kill -STOP "$SLEEPER_PID"
sleep 1.5
tui_keys z
tui_wait '\[CUMULATIVE\]' 3
sleep 1
screen_rows "$WORK/live.rows"
for fmt in json folded; do
	tui_keys P
	tui_wait 'Save the view as' 3
	tui_type $fmt
	tui_keys Enter
	tui_wait "wrote .* to \\./stacktop-[0-9]{8}-[0-9]{6}(-[0-9]+)?\\.$fmt" 5
done
kill -CONT "$SLEEPER_PID"
J=$(ls "$TUI_WORK"/stacktop-*.json | head -n 1)
F=$(ls "$TUI_WORK"/stacktop-*.folded | head -n 1)
[ -f "$J" ] && [ -f "$F" ] || fail "the screen saved no json or folded view"
screen_check "$WORK/live.rows" "$J" total
python3 - "$J" "$F" << 'PY' || fail "the live view's JSON and folded differ"
import json, sys
j = json.loads(open(sys.argv[1]).read().splitlines()[-1])
n = sum(int(l.rsplit(" ", 1)[1]) for l in open(sys.argv[2]) if l.strip())
assert n == j["matched_total"] == sum(s["total"] for s in j["stacks"]), \
    (n, j["matched_total"], sum(s["total"] for s in j["stacks"]))
print("live: %d hits on the screen, the same in its JSON and folded views" % n)
PY
tui_keys q
tui_quit_restored
echo "PASS: every format and the screen show the recording's numbers"
