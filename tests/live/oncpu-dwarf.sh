#!/bin/sh
# --oncpu -u: user stacks unwound by dwarf from each cpu-clock sample's copy
# of the user stack, beside `perf record -F 999 --call-graph dwarf` of the
# same run. Debian's python3 (no frame pointers, no .symtab) in a CPU loop,
# sampled by both at once: stacktop's stacks reach main (Py_RunMain,
# _start) on at least as large a share of the samples as perf's (less 4
# standard deviations of the difference of two binomial shares), and the
# leaf functions' self shares agree with `perf report --sort sym` within 2
# points (or 4 standard deviations when the machine gave few samples). -- CMD
# takes dwarf by default (-u), says so in the header and its JSON; a third
# run at the same time, --group-by ksym,sym (a row per kernel leaf and user
# leaf function), agrees with perf report --sort sym the same way; --by-func
# merges the user frames by function (a few dozen rows); --user=fp still
# takes perf's frame-pointer chains.
. "$(dirname "$0")/lib.sh"
command -v perf > /dev/null || skip "perf is not installed (scripts/deps.sh installs it)"
PY=/usr/bin/python3 # Debian's, not one on PATH (pyenv)
[ -x "$PY" ] || skip "no /usr/bin/python3"

cat > "$WORK/loop.py" << 'EOF'
import sys, time
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
end = time.time() + float(sys.argv[1])
s = 0
while time.time() < end:
    s += fib(16)
    s += sum(i * i for i in range(2000))
    s += len(str(s))
EOF

snapshot "$WORK/before"
# the loop runs until ended below: on a timer it could end before perf's
# `sleep 5` did on a loaded machine, and perf then ends by SIGTERM (143)
"$PY" "$WORK/loop.py" 3600 &
WORKLOAD_PID=$!
sleep 0.5
# perf's timer: a sleep of a name of its own (a plain `sleep` of this test was
# killed by SIGTERM once, perf's status then 143: someone's cleanup by name)
cp "$(command -v sleep)" "$WORK/odsleep$$"
perf record -F 999 --call-graph dwarf -p "$WORKLOAD_PID" -o "$WORK/p.data" -- "$WORK/odsleep$$" 5 \
	> "$WORK/perf.log" 2>&1 &
PERF=$!
# the rows perf's --sort sym makes: the kernel leaf, else the user leaf
"$STACKTOP" --oncpu -u -p "$WORKLOAD_PID" -b -n 1 -d 5 --group-by ksym,sym --json \
	> "$WORK/gb.json" 2> "$WORK/gb.err" &
GB=$!
EXTRA_PIDS="$PERF $GB"
"$STACKTOP" --oncpu -u -p "$WORKLOAD_PID" -b -n 1 -d 5 --format folded > "$WORK/st.folded" \
	2> "$WORK/st.err" || { cat "$WORK/st.err"; fail "stacktop --oncpu -u failed"; }
wait "$PERF" || { rc=$?; cat "$WORK/perf.log"; fail "perf record failed ($rc)"; }
wait "$GB" || { cat "$WORK/gb.err"; fail "stacktop --group-by ksym,sym failed"; }
EXTRA_PIDS=
kill "$WORKLOAD_PID"
wait "$WORKLOAD_PID" 2> /dev/null
WORKLOAD_PID=
snapshot "$WORK/after"
diff "$WORK/before" "$WORK/after" || fail "--oncpu -u changed tracefs"

perf report -i "$WORK/p.data" --no-children --sort sym -g none --stdio -q 2> /dev/null |
	awk '/%/ { p = $1; sub(/%/, "", p); print $3, p }' > "$WORK/perf.shares"
[ -s "$WORK/perf.shares" ] || fail "perf report gave no shares"
perf script -i "$WORK/p.data" -F ip,sym 2> /dev/null > "$WORK/perf.script"

python3 - "$WORK/st.folded" "$WORK/perf.shares" "$WORK/perf.script" "$WORK/gb.json" << 'PY' || fail "stacktop and perf disagree"
import json, math, sys
ROOTS = {"main", "Py_BytesMain", "Py_RunMain", "_start", "__libc_start_main", "__libc_start_call_main"}
leaf, total, reach = {}, 0, 0
for line in open(sys.argv[1]):
    frames, n = line.rstrip("\n").rsplit(" ", 1)
    f = frames.split(";")
    n = int(n)
    total += n
    reach += n if ROOTS & set(f) else 0
    name = f[-1][:-4] if f[-1].endswith("_[k]") else f[-1]
    leaf[name] = leaf.get(name, 0) + n
pn = preach = 0
for s in open(sys.argv[3]).read().split("\n\n"):
    frames = [l.split() for l in s.strip().split("\n") if l.strip()]
    if not frames:
        continue
    pn += 1
    syms = {fr[1].split("+")[0] for fr in frames if len(fr) > 1}
    preach += 1 if ROOTS & syms else 0
assert total > 200 and pn > 200, "too few samples: stacktop %d, perf %d" % (total, pn)
sp, pp = reach / total, preach / pn
sd = math.sqrt(pp * (1 - pp) / pn + sp * (1 - sp) / total) + 1e-9
print("samples reaching main: stacktop %d of %d (%.1f%%), perf %d of %d (%.1f%%)"
      % (reach, total, 100 * sp, preach, pn, 100 * pp))
assert sp >= pp - 4 * sd, "stacktop reaches main on fewer samples than perf"
assert not any(f.startswith("[user stack") for f in leaf if leaf[f] > total / 50), leaf
perf = {}
for line in open(sys.argv[2]):
    sym, p = line.split()
    perf[sym] = perf.get(sym, 0) + float(p)
# the named functions (perf names an unknown address 0x..., stacktop by file+offset)
top = [kv for kv in sorted(perf.items(), key=lambda kv: -kv[1]) if not kv[0].startswith("0x")][:4]
for sym, p in top:
    if p < 1:
        continue
    s = 100.0 * leaf.get(sym, 0) / total
    sd = 100 * math.sqrt((p / 100) * (1 - p / 100) * (1.0 / total + 1.0 / pn))
    tol = max(2.0, 4 * sd)
    print("  %-30s perf %5.2f%%  stacktop %5.2f%%  (within %.1f)" % (sym, p, s, tol))
    assert abs(s - p) <= tol, "%s: perf %.2f%%, stacktop %.2f%%" % (sym, p, s)
assert top and top[0][0] == "_PyEval_EvalFrameDefault", top
# --group-by ksym,sym: a row per (kernel leaf, user leaf function), as
# perf's --sort sym puts a sample under its kernel leaf, else its user one
g = None
for line in open(sys.argv[4]):
    d = json.loads(line)
    if isinstance(d, dict) and "stacks" in d:
        g = d
assert g["group_by"] == ["ksym", "sym"], g.get("group_by")
rows, gt = {}, 0
for st in g["stacks"]:
    # a kernel function's row is named by its start: "func+0x0/0xsize"
    k = st["symbols"][0].split("+")[0] if st["symbols"] else "[user space]"
    u = st["user_frames"][0]["symbol"].split(" (")[0] if st.get("user_frames") else None
    name = u if k == "[user space]" and u else k
    rows[name] = rows.get(name, 0) + st["total"]
    gt += st["total"]
assert gt > 200 and len(g["stacks"]) < len(leaf) + 40, (gt, len(g["stacks"]))
for sym, p in top:
    if p < 1:
        continue
    s = 100.0 * rows.get(sym, 0) / gt
    sd = 100 * math.sqrt((p / 100) * (1 - p / 100) * (1.0 / gt + 1.0 / pn))
    tol = max(2.0, 4 * sd)
    print("  --group-by ksym,sym %-20s perf %5.2f%%  stacktop %5.2f%%  (within %.1f)" % (sym, p, s, tol))
    assert abs(s - p) <= tol, "--group-by %s: perf %.2f%%, stacktop %.2f%%" % (sym, p, s)
PY

# -- CMD: dwarf is -u's default here, the header and the JSON say so
"$STACKTOP" --oncpu -u -b --json -- "$PY" "$WORK/loop.py" 2 > "$WORK/cmd.json" 2> "$WORK/cmd.err" ||
	{ cat "$WORK/cmd.err"; fail "--oncpu -u -- CMD failed"; }
python3 - "$WORK/cmd.json" << 'PY' || fail "--oncpu -u -- CMD: wrong report"
import json, sys
d = json.loads(open(sys.argv[1]).readlines()[-1])
assert d["mode"] == "oncpu", d["mode"]
assert d["user"]["mode"] == "dwarf", d["user"]
n = sum(s["total"] for s in d["stacks"])
roots = ("Py_RunMain", "main", "_start")
reach = sum(s["total"] for s in d["stacks"]
            if any(f["symbol"].split("+")[0] in roots for f in s.get("user_frames", [])))
print("-- CMD: %d of %d samples reach main" % (reach, n))
assert n > 100 and reach >= 0.9 * n, (reach, n)
# the C library's frames are named too: it was mapped after the first sample
libc = {f["symbol"].split("+")[0] for s in d["stacks"] for f in s.get("user_frames", [])
        if "(libc.so.6)" in f["symbol"]}
assert "__libc_start_call_main" in libc, libc
PY
# --by-func: user frames merged by function, as kernel ones (a function no
# symbol names by its start in the unwind tables): a few dozen rows
"$STACKTOP" --oncpu -u --by-func -b --json -- "$PY" "$WORK/loop.py" 2 > "$WORK/func.json" \
	2> "$WORK/func.err" || { cat "$WORK/func.err"; fail "--oncpu -u --by-func failed"; }
python3 - "$WORK/func.json" << 'PY' || fail "--by-func: user frames not merged by function"
import json, sys
d = json.loads(open(sys.argv[1]).readlines()[-1])
user = [s for s in d["stacks"] if s.get("user_frames")]
n = sum(s["total"] for s in user)
heavy = [s for s in user if s["total"] * 200 >= n]
print("--by-func: %d rows with user frames (%d with 0.5%% of the samples or more), %d samples"
      % (len(user), len(heavy), n))
# the rows of the loop are few; the start-up's paths (the loader, imports)
# add rare ones, more in a longer run
assert n > 100 and len(user) <= 72 and len(heavy) <= 30, (len(user), len(heavy))
# a function's frames carry no offset: one per function
offs = [f["symbol"] for s in user for f in s["user_frames"] if "+0x" in f["symbol"].split(" (")[0]]
assert not offs, offs[:5]
PY
# a JIT: node writing its perf map. The sampled instruction in JIT code has
# no file and no unwind table: the frame alone, named by the perf map (as
# perf --call-graph dwarf shows it), and --group-by sym ranks the functions
# as `perf report --sort sym` of the same run does (perf -a beside it, its
# samples of node's pid). hot() is kept a function of its own: V8 compiles
# the script's loop on the stack (OSR) at a moment of its choosing and may
# inline hot() into it; from then on the samples are the script's
# ("JS:* busy.js:1:1", perf names them so too: 71% of CI's run of 5388d49).
if command -v node > /dev/null 2>&1; then
	cat > "$WORK/busy.js" << 'EOF'
function hot(n) { let s = 0; for (let i = 0; i < n; i++) s += Math.sqrt(i) * (i % 7); return s; }
const end = Date.now() + 2000; let t = 0; while (Date.now() < end) t += hot(100000);
EOF
	perf record -a -F 999 -o "$WORK/node.data" > "$WORK/perf-node.log" 2>&1 &
	PERF=$!
	EXTRA_PIDS=$PERF
	# perf samples once its file has its header
	i=0
	while [ ! -s "$WORK/node.data" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -s "$WORK/node.data" ] || { cat "$WORK/perf-node.log"; fail "perf record -a did not start"; }
	"$STACKTOP" --oncpu -u -b --group-by sym --json -- \
		node --perf-basic-prof --no-turbo-inlining "$WORK/busy.js" \
		> "$WORK/node.json" 2> "$WORK/node.err" || { cat "$WORK/node.err"; fail "--oncpu -u -- node failed"; }
	kill -INT "$PERF"
	wait "$PERF"
	rc=$?
	EXTRA_PIDS=
	[ "$rc" = 0 ] || [ "$rc" = 130 ] || { cat "$WORK/perf-node.log"; fail "perf record -a failed ($rc)"; }
	npid=$(python3 -c 'import json, sys
d = [json.loads(l) for l in open(sys.argv[1])]
d = [x for x in d if isinstance(x, dict) and "stacks" in x][-1]
print(max(d["stacks"], key=lambda s: s["total"])["top"]["pid"])' "$WORK/node.json") ||
		fail "no stacks in node's JSON"
	perf report -i "$WORK/node.data" --pid "$npid" --percentage relative --no-children \
		--sort sym --stdio -q 2> /dev/null > "$WORK/node.perf"
	python3 - "$WORK/node.json" "$WORK/node.perf" > "$WORK/node.out" << 'PY' || { cat "$WORK/node.out"; fail "node's JIT frames are not named from its perf map as perf names them"; }
import json, math, re, sys
d = [json.loads(l) for l in open(sys.argv[1])]
d = [x for x in d if isinstance(x, dict) and "stacks" in x][-1]
n = sum(s["total"] for s in d["stacks"])
rows = {}
for s in d["stacks"]:
    if s.get("user_frames"):
        m = re.match(r"(JS:.*) \(perf-[0-9]+\.map\)$", s["user_frames"][0]["symbol"])
        if m:
            rows[m.group(1)] = rows.get(m.group(1), 0) + s["total"]
# perf's rows: "22.49%  [.] JS:*hot /tmp/.../busy.js:1:13" (a function
# compiled twice is two rows of one name)
perf = {}
for l in open(sys.argv[2]):
    m = re.match(r"\s*([0-9.]+)%\s+\[\.\] (JS:.*\S)\s*$", l)
    if m:
        perf[m.group(2)] = perf.get(m.group(2), 0) + float(m.group(1))
top = max(d["stacks"], key=lambda s: s["total"])
sym = top["user_frames"][0]["symbol"]
print("node: %d samples, the top row %s %d" % (n, sym, top["total"]))
for name in sorted(set(rows) | set(perf), key=lambda k: -perf.get(k, 0))[:6]:
    print("  %-50s perf %5.2f%%  stacktop %5.2f%%" % (name, perf.get(name, 0), 100.0 * rows.get(name, 0) / n))
assert n > 200, n
assert re.match(r"JS:\*?hot .*busy\.js:1:[0-9]+ \(perf-[0-9]+\.map\)$", sym), sym
assert top["total"] > n / 2, (top["total"], n)
assert d["user"]["no_maps"] < n / 20, d["user"]
assert perf, "perf named no JS frame"
for name, p in perf.items():
    if p < 1:
        continue
    # two binomial shares of about n samples each, 4 standard deviations
    s = 100.0 * rows.get(name, 0) / n
    tol = max(2.0, 400 * math.sqrt(2 * (p / 100) * (1 - p / 100) / n))
    assert abs(s - p) <= tol, "%s: perf %.2f%%, stacktop %.2f%% (within %.1f)" % (name, p, s, tol)
PY
	cat "$WORK/node.out"
	# the perf map node left (ours: this test ran it)
	rm -f "/tmp/perf-$npid.map"
fi
# --user=fp: perf's frame-pointer chains, as before
"$STACKTOP" --oncpu --user=fp -b -- "$PY" "$WORK/loop.py" 1 > "$WORK/fp.txt" 2>&1 ||
	{ cat "$WORK/fp.txt"; fail "--oncpu --user=fp failed"; }
grep -q "user stacks: fp (perf's call chains" "$WORK/fp.txt" || fail "--user=fp: $(head -5 "$WORK/fp.txt")"
echo "PASS: --oncpu -u unwinds by dwarf as perf --call-graph dwarf does"
