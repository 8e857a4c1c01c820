#!/bin/sh
# Damaged recordings: a real trace.dat (a private instance with stacktrace,
# saved by trace-cmd extract), cut short and bit-flipped in many places, must
# each end in a clear error or a report: never a crash, an abort or a
# sanitizer report (run under the ASan build). A format that puts common_pid
# past any record is refused; a page dated 13 days late is counted as damaged
# data and left out of the recorded duration.
. "$(dirname "$0")/lib.sh"
command -v trace-cmd > /dev/null || fail "trace-cmd is not installed (scripts/deps.sh installs it)"
command -v python3 > /dev/null || fail "python3 is not installed"
TDAT="$(dirname "$0")/tdat.py"

# (the sched and ftrace systems' formats only: a run below that passes the
# structural checks parses them twice, the probe child's open and its own,
# 2 s of CPU under ASan with all 2,000 formats, 0.5 s with these; with all
# of them the test did not end within 600 s at load 20)
record_sched_switch stacktop-damagedtest few
trace-cmd convert --compression none -i "$WORK/trace.dat" -o "$WORK/plain.dat" \
	> "$WORK/convert.log" 2>&1 || { cat "$WORK/convert.log"; fail "trace-cmd convert failed"; }

# one run: exit 0 with a report or exit 1 with "stacktop: ...", nothing else
run() {
	"$STACKTOP" -r "$1" -b --top 3 --expand 1 > "$WORK/out" 2> "$WORK/err"
	rc=$?
	if grep -q 'Sanitizer\|runtime error\|double free\|Segmentation' "$WORK/err" ||
		{ [ $rc != 0 ] && [ $rc != 1 ]; }; then
		head -20 "$WORK/err"
		fail "$1: exit $rc"
	fi
	if [ $rc = 0 ]; then
		grep -q '^stacktop .* mode replay - ' "$WORK/out" || fail "$1: exit 0 without a report"
	else
		grep -q '^stacktop: ' "$WORK/err" || { cat "$WORK/err"; fail "$1: exit 1 without a reason"; }
	fi
}

for src in trace plain; do
	which=all
	[ $src = plain ] && which=data
	n=$(python3 "$TDAT" corpus "$WORK/$src.dat" "$WORK/c-$src" $which) || fail "corpus not made"
	refused=0
	for f in "$WORK/c-$src"/*.dat; do
		run "$f"
		[ $rc = 1 ] && refused=$((refused + 1))
	done
	echo "$src: $n damaged copies, $refused refused with a reason, the rest reported"
done

# version 6 (trace-cmd convert --file-version 6), cut in its sections and data
trace-cmd convert --file-version 6 -i "$WORK/trace.dat" -o "$WORK/v6.dat" \
	> "$WORK/convert6.log" 2>&1 || { cat "$WORK/convert6.log"; fail "trace-cmd convert -v6 failed"; }
run "$WORK/v6.dat"
[ $rc = 0 ] || fail "the version 6 file was refused"
size=$(wc -c < "$WORK/v6.dat")
for cut in 20 30 1000 $((size / 4)) $((size / 2)) $((size - 1)); do
	head -c "$cut" "$WORK/v6.dat" > "$WORK/v6cut.dat"
	run "$WORK/v6cut.dat"
	[ $rc = 1 ] || fail "version 6 cut at $cut was not refused"
done

# the first 25 to 30 bytes made libtracecmd free a string twice
head -c 30 "$WORK/trace.dat" > "$WORK/head30.dat"
run "$WORK/head30.dat"
[ $rc = 1 ] || fail "30 bytes of a trace.dat were not refused"
grep -q 'cut short' "$WORK/err" || { cat "$WORK/err"; fail "truncation not explained"; }

python3 "$TDAT" badformat "$WORK/plain.dat" "$WORK/badformat.dat" || fail "badformat not made"
run "$WORK/badformat.dat"
cat "$WORK/err"
[ $rc = 1 ] || fail "a format with common_pid past the record was accepted"
grep -q 'impossible format of ftrace:kernel_stack: field common_pid' "$WORK/err" ||
	fail "the impossible format is not named"

python3 "$TDAT" timejump "$WORK/plain.dat" "$WORK/timejump.dat" || fail "timejump not made"
run "$WORK/timejump.dat"
cat "$WORK/out"
[ $rc = 0 ] || fail "a recording with one late page was refused"
grep -Eq '^damaged data: .* [1-9][0-9]* damaged records' "$WORK/out" || fail "no damaged data line"
secs=$(sed -n 's/^stacktop .* - \([0-9.]*\)s recorded$/\1/p' "$WORK/out")
python3 -c 'import sys; assert 0 < float(sys.argv[1]) < 600, sys.argv[1]' "$secs" ||
	fail "recorded duration $secs s for a recording of about a second"
"$STACKTOP" -r "$WORK/timejump.dat" --json > "$WORK/json" || fail "--json failed"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["damaged"] > 0, d["damaged"]
assert d["interval"] < 600, d["interval"]
' "$WORK/json" || fail "JSON does not report the damage"
echo "ok: damaged recordings end in an error or a report"
