#!/bin/sh
# tui-pause-save: P on a paused screen writes the numbers the screen shows.
# The view is frozen while collection goes on: seconds after the pause the
# table holds newer counts, and P wrote those (the rows' DELTA and TOTAL,
# the header's events, the shares' whole all newer than on the screen).
# Each format saved paused (json, folded, csv, text) holds the screen's
# rows, its header's events and stacks, its shares; saved again after the
# resume the counts have moved on (the check above would have caught it).
. "$(dirname "$0")/lib.sh"

T=$(tfs_root) || skip "no tracefs mounted"
[ -d "$T/instances" ] || skip "tracefs without instances"
[ -e "$T/events/sched/sched_wakeup" ] || skip "no sched:sched_wakeup event"

# save FMT [SUFFIX]: P, the format typed, Enter; prints the file written
save() {
	tui_keys P
	tui_wait 'Save the view as' 3
	tui_type "$1"
	tui_keys Enter
	tui_wait "wrote .* to \\./stacktop-[0-9]{8}-[0-9]{6}(-[0-9]+)?\\.${2:-$1}" 10
	sed -n "s|.*wrote .* to \\./\\(stacktop-[0-9]\\{8\\}-[0-9]\\{6\\}\\(-[0-9]\\{1,\\}\\)\\{0,1\\}\\.${2:-$1}\\).*|\\1|p" \
		"$TUI_WORK/pane" | tail -n 1
}

start_workload
tui_start 160 50
tui_run --mode stacks -d 0.5 -e sched:sched_switch -e sched:sched_wakeup
APP=$(tui_app_pid)
tui_wait '^[-+ ] +5 ' 15
sleep 1

say "paused: the screen's rows and header"
tui_keys Z
tui_wait ' PAUSED ' 3
tui_stable | tui_one_col > "$TUI_WORK/paused.pane"
# "DELTA TOTAL %" a row (counts under a million are printed whole)
sed -n 's/^[-+ ] \{1,\}[0-9]\{1,\} \{1,\}[-0-9,+]\{1,\} \{1,\}\([0-9]\{1,\}\) \{1,\}\([0-9]\{1,\}\) \{1,\}\([0-9.]\{1,\}\|-\) .*/\1 \2 \3/p' \
	"$TUI_WORK/paused.pane" > "$TUI_WORK/rows"
[ "$(wc -l < "$TUI_WORK/rows")" -ge 5 ] || fail "fewer than 5 rows on the paused screen"
HEAD_EVENTS=$(sed -n 's/.* events \([0-9]\{1,\}\) .*/\1/p' "$TUI_WORK/paused.pane" | head -n 1)
HEAD_STACKS=$(sed -n 's/.* stacks \([0-9]\{1,\}\) .*/\1/p' "$TUI_WORK/paused.pane" | head -n 1)
[ -n "$HEAD_EVENTS" ] && [ -n "$HEAD_STACKS" ] ||
	fail "no events or stacks count in the header: $(sed -n 2p "$TUI_WORK/paused.pane")"
# four refreshes on: the table has moved on, the screen has not
sleep 2
tui_stable | tui_one_col > "$TUI_WORK/paused2.pane"
cmp -s "$TUI_WORK/paused.pane" "$TUI_WORK/paused2.pane" ||
	{ diff "$TUI_WORK/paused.pane" "$TUI_WORK/paused2.pane"; fail "the paused screen changed"; }
J=$(save json)
F=$(save folded)
C=$(save csv)
X=$(save text txt)
tui_wait 'wrote .*, paused, ' 3
for f in "$J" "$F" "$C" "$X"; do
	[ -n "$f" ] && [ -s "$TUI_WORK/$f" ] || fail "P wrote no file ($f)"
	[ "$(stat -c %a "$TUI_WORK/$f")" = 600 ] || fail "$f is mode $(stat -c %a "$TUI_WORK/$f")"
done
ls -d /tmp/stacktop-paused."$APP".* > /dev/null 2>&1 || fail "no paused view kept while paused"

say "resumed: the counts have moved on"
tui_keys Space
tui_wait_gone ' PAUSED ' 3
sleep 1.2
J2=$(save json)

python3 - "$TUI_WORK" "$J" "$F" "$C" "$X" "$J2" "$HEAD_EVENTS" "$HEAD_STACKS" << 'PY' ||
import csv, json, re, sys
work, jf, ff, cf, xf, j2f = sys.argv[1:7]
head_events, head_stacks = int(sys.argv[7]), int(sys.argv[8])
rows = [l.split() for l in open(work + "/rows") if l.strip()]
j = json.loads(open(work + "/" + jf).read().splitlines()[-1])
j2 = json.loads(open(work + "/" + j2f).read().splitlines()[-1])


def pct(part, whole):
    """as fmt_percent() prints a share: tenths, truncated; 100 alone"""
    t = part * 1000 // whole
    return str(t // 10) if t >= 1000 else "%d.%d" % (t // 10, t % 10)


# the header: the events and stacks the screen shows
assert j["hits"] == head_events, "json: %d events, the paused header %d" % (j["hits"], head_events)
assert j["unique"] == head_stacks, "json: %d stacks, the paused header %d" % (j["unique"], head_stacks)
# the rows: the screen's first rows are the file's first (by the interval's
# hits), with the same interval and total counts and the same shares
keys = {}
for s in j["stacks"]:
    k = keys.setdefault(s["key"], [0, 0])
    k[0] += s["delta"]
    k[1] += s["total"]
ranked = sorted((tuple(v) for v in keys.values()), reverse=True)
got = sorted((int(d), int(t)) for d, t, _ in rows)
cut = ranked[len(rows) - 1][0]  # a tie at the last row shown: either stack of it
want = sorted(ranked[:len(rows)])
assert [g for g in got if g[0] != cut] == [w for w in want if w[0] != cut], \
    "screen %s, json %s" % (got[-5:], want[-5:])
for d, t, p in rows:
    assert p == pct(int(d), j["matched_delta"]), \
        "a row of %s says %s%%, the json's whole %d" % (d, p, j["matched_delta"])
# every format saved paused: the same counts
fold = sum(int(l.rsplit(" ", 1)[1]) for l in open(work + "/" + ff) if l.strip())
assert fold == j["matched_delta"] == sum(s["delta"] for s in j["stacks"]), \
    "folded %d, json %d" % (fold, j["matched_delta"])
cs = list(csv.DictReader(open(work + "/" + cf)))
assert sum(int(r["hits"]) for r in cs) == j["matched_delta"] and \
    sum(int(r["hits_total"]) for r in cs) == j["matched_total"], "csv and json differ"
m = re.search(r"^hits: ([0-9]+) total, ([0-9]+) in interval", open(work + "/" + xf).read(), re.M)
assert m and int(m.group(1)) == j["hits"] and int(m.group(2)) == j["hits_delta"], \
    "text: %s, json %d/%d" % (m and m.group(0), j["hits"], j["hits_delta"])
# after the resume: more events (the table moved on while paused)
assert j2["hits"] > j["hits"], "resumed: %d events, paused %d" % (j2["hits"], j["hits"])
print("paused: %d rows, %d events, %d stacks in every format; resumed: %d events" %
      (len(rows), j["hits"], j["unique"], j2["hits"]))
PY
	fail "P on the paused screen wrote other numbers than the screen shows"
tui_keys q
tui_quit_restored
ls -d /tmp/stacktop-paused."$APP".* > /dev/null 2>&1 && fail "the paused view's snapshot was left in /tmp"
echo "PASS: P on a paused screen writes the screen's numbers"
