#!/bin/sh
# oncpu-dwarf-callgrind.sh BUILD [SECONDS...] - the instructions a DWARF user
# stack of an on-CPU sample costs, stacktop's path against perf report
# (issue 38; doc/performance.md, "On-CPU user stacks by dwarf"). Root,
# valgrind; BUILD a release build without LTO (callgrind needs the
# function on_sample by its name).
#
# For each SECONDS (default 3 9), Debian's python3 in a CPU loop that long:
#   - bench/unwind-bench PID 8192 oncpu under callgrind, counting only the
#     work on each sample after its first 100 (--collect-atstart=no and the
#     bench's CALLGRIND_TOGGLE_COLLECT: each sample unwound by dwunwind and
#     its frames interned with their inlined calls; the files' symbols and
#     DWARF were read by the first samples): instructions, samples counted;
#   - perf record -F 999 --call-graph dwarf of the same program, then perf
#     report --stdio under callgrind (the unwinding, naming and report
#     perf does after the run): instructions, samples.
# Then instructions a sample: stacktop's over the samples counted (its
# start-up left out by the toggle); perf report's over the whole run, and
# marginal: the difference between the longest and the shortest run over
# the samples they differ by (its start-up, reading symbols and DWARF,
# taken out). Under valgrind
# unwind-bench reads more slowly than the kernel samples: it loses part of
# them (it says how many), the instructions are those of the ones read.
set -u
BUILD=${1:?usage: oncpu-dwarf-callgrind.sh BUILD [SECONDS...]}
shift
[ $# -gt 0 ] || set -- 3 9
UB=$BUILD/bench/unwind-bench
PY=/usr/bin/python3
TMP=$(mktemp -d /tmp/oncpu-dwarf-cg.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
command -v valgrind > /dev/null || { echo "valgrind is not installed" >&2; exit 77; }

cat > "$TMP/loop.py" << 'EOF'
import sys, time
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
end = time.time() + float(sys.argv[1])
s = 0
while time.time() < end:
    s += fib(16)
    s += sum(i * i for i in range(2000))
EOF

for secs; do
	# the program starts once unwind-bench is ready: its maps come from perf's records
	rm -f "$TMP/go"
	mkfifo "$TMP/go"
	sh -c "read x < '$TMP/go'; exec $PY '$TMP/loop.py' $secs" &
	t=$!
	valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file="$TMP/cg.ub" \
		"$UB" "$t" 8192 oncpu > "$TMP/ub.out" 2> "$TMP/ub.vg" &
	v=$!
	i=0
	until grep -q ready "$TMP/ub.out" 2> /dev/null || [ $i -ge 300 ]; do
		sleep 0.2
		i=$((i + 1))
	done
	echo go > "$TMP/go"
	wait "$t"
	wait "$v"
	ir=$(awk '/Collected/ { print $4 }' "$TMP/ub.vg")
	n=$(awk '/measured/ { print $NF }' "$TMP/ub.out")
	echo "stacktop $secs s: $(awk '/^samples/ { print $2 }' "$TMP/ub.out") samples read ($(awk '/^samples/ { print $8 }' "$TMP/ub.out") lost under valgrind), $n counted: $ir instructions"
	echo "st $secs $n $ir" >> "$TMP/rows"

	perf record -q -F 999 --call-graph dwarf -o "$TMP/p.data" -- "$PY" "$TMP/loop.py" "$secs" \
		2> /dev/null
	n=$(perf script -i "$TMP/p.data" -F period 2> /dev/null | wc -l)
	valgrind --tool=callgrind --callgrind-out-file="$TMP/cg.pr" perf report -i "$TMP/p.data" \
		--stdio --no-children -g caller > /dev/null 2> "$TMP/pr.vg"
	ir=$(awk '/Collected/ { print $4 }' "$TMP/pr.vg")
	echo "perf     $secs s: $n samples, perf report $ir instructions"
	echo "perf $secs $n $ir" >> "$TMP/rows"
done
python3 - "$TMP/rows" << 'PY'
import sys
rows = {}
for l in open(sys.argv[1]):
    who, secs, n, ir = l.split()
    rows.setdefault(who, []).append((int(n), int(ir.replace(",", ""))))
for who, v in rows.items():
    v.sort()
    (n0, i0), (n1, i1) = v[0], v[-1]
    if who == "st":
        print("stacktop %d instructions a sample (%d samples after the first 100)"
              % (i1 // max(n1, 1), n1))
    else:
        print("perf     %d instructions a sample over the whole report of %d; marginal %d"
              % (i1 // max(n1, 1), n1, (i1 - i0) // max(n1 - n0, 1)))
PY
