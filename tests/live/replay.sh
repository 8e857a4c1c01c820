#!/bin/sh
# Replay: a trace.dat made from this kernel (a private instance with
# stacktrace, saved by trace-cmd extract) gives the same stacks and counts
# that trace-cmd report shows.
. "$(dirname "$0")/lib.sh"
command -v trace-cmd > /dev/null || fail "trace-cmd is not installed (scripts/deps.sh installs it)"

record_sched_switch stacktop-replaytest

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
# A wrapped per-CPU buffer can begin with the kernel_stack half of a pair
# whose event was overwritten: trace-cmd report lists that stack, stacktop
# rightly counts it as an orphan (a stack with no event before it).
orphans=$(sed -n 's/^damaged data: .* \([0-9]*\) stack records with no event before them.*/\1/p' "$WORK/out")
orphans=${orphans:-0}
[ "$((hits + orphans))" = "$want" ] ||
	fail "stacktop counted $hits stacks and $orphans orphans, trace-cmd report shows $want"
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
assert total + d["orphans"] == int(sys.argv[2]), (total, d["orphans"], sys.argv[2])
assert d["mode"] == "replay"
' "$WORK/json" "$want" || fail "JSON totals differ from trace-cmd report"

# errors: not a trace.dat, a missing file; nothing needs root
expect() {
	"$STACKTOP" "$@" > /dev/null 2> "$WORK/err2" && fail "'$*' succeeded"
	cat "$WORK/err2"
}
expect -r /etc/passwd
grep -q 'neither a trace-cmd trace.dat nor a stacktop JSON snapshot' "$WORK/err2" ||
	fail "bad file not explained"
expect -r "$WORK/nope.dat"
grep -q 'No such file' "$WORK/err2" || fail "missing file not explained"
expect -r "$WORK/trace.dat" -e sched:sched_switch
grep -q 'do not apply' "$WORK/err2" || fail "-e with -r not refused"

# a saved stack_map text whose frames name symbols the kallsyms in use does
# not have (another kernel, a module since unloaded): shown as written, and
# stacks that differ only there stay apart
cat > "$WORK/map.txt" <<'MAP'
stack_id 1 [ref 5, depth 2]
  [0] gone_a+0x1c/0x30 [gonemod]
  [1] caller+0x8/0x40

stack_id 2 [ref 3, depth 2]
  [0] gone_b+0x10/0x40 [gonemod]
  [1] caller+0x8/0x40

stack_id 3 [ref 2, depth 2]
  [0] gone_a+0x20/0x30 [gonemod]
  [1] caller+0x8/0x40
MAP
printf 'ffffffff81000000 T caller\nffffffff81000040 T next\n' > "$WORK/ks"
# the same file as a user without root reads it: every address 0
printf '0000000000000000 T caller\n0000000000000000 T next\n' > "$WORK/ks0"
for ks in ks ks0; do
	"$STACKTOP" --map "$WORK/map.txt" --kallsyms "$WORK/$ks" -b --top 10 --expand 2 \
		> "$WORK/mapout" 2> "$WORK/maperr" || { cat "$WORK/maperr"; fail "--map failed"; }
	cat "$WORK/mapout" "$WORK/maperr"
	rows=$(grep -Ec '^ +[0-9]+ +[0-9]+ +[0-9]+ ' "$WORK/mapout")
	[ "$rows" = 3 ] || fail "$ks: $rows rows for 3 stacks that differ in unresolved frames"
	grep -q '^    gone_a+0x1c/0x30 \[gonemod\]$' "$WORK/mapout" || fail "$ks: frame not shown as written"
	grep -q '^    gone_b+0x10/0x40 \[gonemod\]$' "$WORK/mapout" || fail "$ks: frame not shown as written"
	grep -q '0x0$\|< 0x0 ' "$WORK/mapout" && fail "$ks: a frame shown as 0x0"
	n=3
	[ $ks = ks0 ] && n=6
	grep -q "map.txt: $n frames name symbols not in" "$WORK/maperr" ||
		fail "$ks: the unresolved frames are not counted"
done
echo "ok: replay matches trace-cmd report ($want stacks)"
