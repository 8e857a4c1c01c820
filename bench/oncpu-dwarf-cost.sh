#!/bin/sh
# oncpu-dwarf-cost.sh BUILD [ROUNDS [SECONDS]] - what a DWARF user stack of
# an on-CPU sample costs, stacktop against perf (issue 38;
# doc/performance.md, "On-CPU user stacks by dwarf"). Root.
#
# The workload: Debian's python3 (/usr/bin/python3: no frame pointers) in
# a CPU loop, counting its iterations. Interleaved rounds, each running in
# turn, SECONDS long and 3 x SECONDS long ("-3x"):
#   none      the workload alone
#   stacktop  stacktop --oncpu -u -p PID -b -n 1 -d SECONDS --json: the
#             samples read, unwound, symbolized, counted, the report
#   perf      perf record -F 999 --call-graph dwarf -p PID -- sleep
#             SECONDS, then perf report --stdio (the unwinding and naming
#             perf does after the run)
# Per round: the iterations the workload kept (of the round's alone run),
# the samples each counted, the collector's CPU (user + system, from
# /usr/bin/time: stacktop's whole run; perf: record + report) and that CPU
# per sample. The medians over the rounds, then each collector's marginal
# cost of a sample: the CPU the longer runs took more, over the samples
# they had more (what start-up costs, reading symbol tables and DWARF,
# taken out).
set -u
BUILD=${1:?usage: oncpu-dwarf-cost.sh BUILD [ROUNDS [SECONDS]]}
ROUNDS=${2:-5}
SECS=${3:-5}
ST=$BUILD/stacktop
PY=/usr/bin/python3
TMP=$(mktemp -d /tmp/oncpu-dwarf-cost.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

cat > "$TMP/loop.py" << 'EOF'
import sys, time
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
end = time.time() + float(sys.argv[1])
s = n = 0
while time.time() < end:
    s += fib(16)
    s += sum(i * i for i in range(2000))
    n += 1
print(n, file=sys.stderr)
EOF

# CPU seconds (user + system) of a command run under /usr/bin/time, its output to $2
cpu_of() { # file
	awk 'END { print $1 + $2 }' "$1"
}

round() { # name [x3]
	secs=$SECS
	[ "${2:-}" = x3 ] && secs=$((SECS * 3))
	"$PY" "$TMP/loop.py" "$secs" 2> "$TMP/iters" &
	py=$!
	sleep 0.2
	case $1 in
	none)
		wait "$py"
		echo "$(cat "$TMP/iters") 0 0 0"
		return
		;;
	stacktop)
		/usr/bin/time -f '%U %S' -o "$TMP/t1" "$ST" --oncpu -u -p "$py" -b -n 1 \
			-d "$secs" --json > "$TMP/st.json" 2> "$TMP/st.err"
		n=$(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    d = json.loads(l)
    if isinstance(d, dict) and "stacks" in d:
        print(sum(s["total"] for s in d["stacks"]))' "$TMP/st.json")
		c=$(cpu_of "$TMP/t1")
		;;
	perf)
		/usr/bin/time -f '%U %S' -o "$TMP/t1" perf record -F 999 --call-graph dwarf -p "$py" \
			-o "$TMP/p.data" -- sleep "$secs" > /dev/null 2>&1
		/usr/bin/time -f '%U %S' -o "$TMP/t2" perf report -i "$TMP/p.data" --stdio \
			--no-children -g caller > /dev/null 2>&1
		n=$(perf script -i "$TMP/p.data" -F period 2> /dev/null | wc -l)
		c=$(echo "$(cpu_of "$TMP/t1") $(cpu_of "$TMP/t2")" | awk '{ print $1 + $2 }')
		;;
	esac
	wait "$py"
	echo "$(cat "$TMP/iters") $n $c $(echo "$c $n" | awk '{ printf "%.1f", $2 ? 1e6 * $1 / $2 : 0 }')"
}

r=1
while [ "$r" -le "$ROUNDS" ]; do
	for c in none stacktop none perf; do
		echo "round $r $c $(round "$c")"
		[ "$c" = none ] && continue
		echo "round $r none-3x $(round none x3)"
		echo "round $r $c-3x $(round "$c" x3)"
	done
	r=$((r + 1))
done | tee "$TMP/rounds"
python3 - "$TMP/rounds" << 'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
base, kept = {}, {}
for r in rows:
    name, iters = r[2], float(r[3])
    if name.startswith("none"):
        base[name.endswith("-3x")] = iters
        continue
    b = base.get(name.endswith("-3x"))
    kept.setdefault(name, []).append((100 * iters / b if b else 0, int(r[4]), float(r[5]),
                                      float(r[6]), int(r[1])))
print("%-12s %14s %9s %10s %12s" % ("collector", "workload kept", "samples", "CPU s", "us/sample"))
for name, v in kept.items():
    print("%-12s %13.1f%% %9d %10.3f %12.1f" % (name, statistics.median(x[0] for x in v),
          statistics.median(x[1] for x in v), statistics.median(x[2] for x in v),
          statistics.median(x[3] for x in v)))
# the marginal cost of a sample, round by round: (CPU 3x - CPU 1x) / (samples 3x - samples 1x)
for name in ("stacktop", "perf"):
    m = []
    for a, b in zip(kept.get(name, []), kept.get(name + "-3x", [])):
        if b[1] > a[1]:
            m.append(1e6 * (b[2] - a[2]) / (b[1] - a[1]))
    if m:
        print("%-12s marginal %.1f us/sample (median of %d rounds, %.1f-%.1f)"
              % (name, statistics.median(m), len(m), min(m), max(m)))
PY
