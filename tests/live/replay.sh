#!/bin/sh
# Replay: a trace.dat made from this kernel (a private instance with
# stacktrace, saved by trace-cmd extract) gives the same stacks and counts
# that trace-cmd report shows.
. "$(dirname "$0")/lib.sh"
command -v trace-cmd > /dev/null || fail "trace-cmd is not installed (scripts/deps.sh installs it)"

I=stacktop-replaytest.$$
mkdir "$T/instances/$I" || fail "cannot create an instance"
# trace-cmd extract -B removes the instance it extracted; remove it ourselves otherwise
trap 'rmdir "$T/instances/$I" 2>/dev/null; cleanup' EXIT
echo 1 > "$T/instances/$I/options/stacktrace"
echo 1 > "$T/instances/$I/events/sched/sched_switch/enable"
start_workload
sleep 1
echo 0 > "$T/instances/$I/tracing_on"
(cd "$WORK" && trace-cmd extract -B "$I" -o "$WORK/trace.dat" > "$WORK/extract.log" 2>&1) ||
	{ cat "$WORK/extract.log"; fail "trace-cmd extract failed"; }

want=$(trace-cmd report -i "$WORK/trace.dat" 2>/dev/null | grep -c 'kernel_stack:')
[ "$want" -gt 10 ] || fail "the recording has only $want stacks"

"$STACKTOP" -r "$WORK/trace.dat" --top 5 --expand 2 > "$WORK/out" 2> "$WORK/err" ||
	{ cat "$WORK/err"; fail "stacktop -r failed"; }
cat "$WORK/out"
grep -q '^stacktop .* mode replay - ' "$WORK/out" || fail "no replay header"
# the events the recording's stacks came with, not its buffer names
grep -q '^events: sched:sched_switch$' "$WORK/out" || fail "the header does not name the recorded event"
# comms from the recording (saved cmdlines, and the scheduler events for the rest)
grep -Eq '^ +1 +- .* [^ ?][^ ]*/[0-9]+ ' "$WORK/out" || fail "the top row has no comm"
hits=$(sed -n 's/^hits: \([0-9]*\) total.*/\1/p' "$WORK/out")
[ "$hits" = "$want" ] || fail "stacktop counted $hits stacks, trace-cmd report shows $want"
grep -Eq '^ +1 +- .*sched:sched_switch ' "$WORK/out" || fail "no ranked sched_switch row"
grep -Eq '^ +1 +- .*sched:sched_switch .*__schedule|^every stack below starts with: __schedule' "$WORK/out" ||
	fail "the top row is not through __schedule"
grep -Eq '^    __schedule\+0x[0-9a-f]+/0x[0-9a-f]+$' "$WORK/out" ||
	fail "frames not symbolized from the recording's kallsyms"

# the JSON form adds up to the same
"$STACKTOP" -r "$WORK/trace.dat" --json --top 100000 > "$WORK/json" || fail "--json failed"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
total = sum(s["total"] for s in d["stacks"])
assert total == int(sys.argv[2]), (total, sys.argv[2])
assert d["mode"] == "replay"
' "$WORK/json" "$want" || fail "JSON totals differ from trace-cmd report"

# errors: not a trace.dat, a missing file; nothing needs root
expect() {
	"$STACKTOP" "$@" > /dev/null 2> "$WORK/err2" && fail "'$*' succeeded"
	cat "$WORK/err2"
}
expect -r /etc/passwd
grep -q 'not a trace-cmd trace.dat' "$WORK/err2" || fail "bad file not explained"
expect -r "$WORK/nope.dat"
grep -q 'No such file' "$WORK/err2" || fail "missing file not explained"
expect -r "$WORK/trace.dat" -e sched:sched_switch
grep -q 'do not apply' "$WORK/err2" || fail "-e with -r not refused"
echo "ok: replay matches trace-cmd report ($want stacks)"
