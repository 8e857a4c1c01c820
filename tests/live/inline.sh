#!/bin/sh
# Inlined frames and source lines from DWARF (issue 38): a -O2 -g program
# whose hot code is mix_step(), inlined into hot_loop() (tests/ustack/
# inline.c), under `--oncpu -u`. In text, folded, JSON and pprof mix_step
# is a frame of its own, marked inlined, at its source line, under hot_loop
# at the line of the call - each address's chain as `addr2line -i` gives it
# from the same file. Then the same from a stripped copy whose DWARF is in
# a separate file: found by build-id under /usr/lib/debug/.build-id (put
# there for the test, removed at exit), and by .gnu_debuglink next to the
# copy. Last, perf beside it on the same run: each source line's self
# share (perf report --sort srcline) against stacktop's innermost frame's.
. "$(dirname "$0")/lib.sh"
[ -n "${INLINE_BIN:-}" ] && [ -x "$INLINE_BIN" ] || fail "no INLINE_BIN test program"
command -v objcopy > /dev/null && command -v addr2line > /dev/null ||
	skip "binutils is not installed (scripts/deps.sh installs it)"

BIN=${INLINE_BIN##*/}
DEBUG_LINK=

MADE_DIRS= # the directories of /usr/lib/debug this test made, innermost first

cleanup_inline() {
	[ -n "$DEBUG_LINK" ] && rm -f "$DEBUG_LINK"
	for d in $MADE_DIRS; do
		rmdir "$d" 2> /dev/null
	done
	cleanup
}
trap cleanup_inline EXIT
trap 'exit 1' INT TERM HUP

# check OUT.json FILE: the JSON's chains against addr2line -i on FILE (the
# program with its DWARF), mix_step inlined in hot_loop with its lines
check_json() {
	python3 - "$1" "$2" "${3:-$BIN}" << 'PY' || fail "JSON of $2: wrong inlined frames or lines"
import json, re, subprocess, sys
snap = None
for line in open(sys.argv[1]):
    d = json.loads(line)
    if isinstance(d, dict) and "stacks" in d:
        snap = d
syms = {}
for l in subprocess.run(["nm", sys.argv[2]], capture_output=True, text=True).stdout.split("\n"):
    f = l.split()
    if len(f) == 3:
        syms[f[2]] = int(f[0], 16)
seen = checked = others = 0
for s in snap["stacks"]:
    fr = s.get("user_frames", [])
    i = 0
    while i < len(fr):
        f = fr[i]
        # the program's (the C library may have its debug file installed too)
        if not f.get("inlined") or not f["symbol"].endswith("(%s)" % sys.argv[3]):
            i += 1
            continue
        # the frames of one address: the inlined calls, innermost first,
        # then the function they were inlined into, named by its offset
        j = i
        while fr[j].get("inlined"):
            assert fr[j + 1]["addr"] == f["addr"], (fr[j], fr[j + 1])
            j += 1
        chain = fr[i:j + 1]
        m = re.match(r"([A-Za-z_][A-Za-z0-9_]*)\+0x([0-9a-f]+) ", chain[-1]["symbol"])
        assert m, chain
        # addr2line -i at the same address of the file: innermost first
        out = subprocess.run(["addr2line", "-i", "-f", "-e", sys.argv[2],
                              hex(syms[m.group(1)] + int(m.group(2), 16))],
                             capture_output=True, text=True).stdout.split("\n")
        want = [(out[k], out[k + 1].split(" ")[0]) for k in range(0, len(out) - 1, 2)]
        got = [(c["symbol"].split(" ")[0] if c.get("inlined") else m.group(1), c.get("line", ""))
               for c in chain]
        assert [w[0] for w in want] == [g[0] for g in got], (want, got)
        for (wn, wl), (gn, gl) in zip(want, got):
            assert gl.endswith("/" + wl.split("/")[-1]) and gl.split(":")[-1] == wl.split(":")[-1], (want, got)
        if f["symbol"].startswith("mix_step (inlined)"):
            # mix_step inlined in hot_loop alone, at the line of the call
            assert [g[0] for g in got] == ["mix_step", "hot_loop"], got
            assert chain[-1]["line"].endswith("inline.c:35"), chain
            seen += s["total"]
            checked += 1
        else:
            # the start-up's (atof inlined in main): checked, not counted
            others += s["total"]
        i = j + 1
total = sum(s["total"] for s in snap["stacks"])
print("  %d of %d samples in mix_step (inlined), %d in other inlined calls; %d mix_step chains checked against addr2line -i"
      % (seen, total, others, checked))
assert total > 100 and seen > total / 3 and checked >= 3, (seen, total, checked)
PY
}

run_st() { # out file, program, then stacktop options
	out=$1
	prog=$2
	shift 2
	"$STACKTOP" --oncpu -u -b "$@" -- "$prog" 1.5 > "$out" 2> "$out.err" ||
		{ cat "$out.err"; fail "stacktop --oncpu -u $* -- $prog failed"; }
}

# check_views PROG TAG: text, folded, JSON and pprof of a run of PROG show
# mix_step inlined at its line under hot_loop at the line of the call
check_views() {
	prog=$1
	tag=$2
	run_st "$WORK/text$tag" "$prog" --top 3 --expand 3
	grep -Eq "^    mix_step \\(inlined\\) \\($BIN\\)  inline\\.c:2[0-4]\$" "$WORK/text$tag" ||
		{ cat "$WORK/text$tag"; fail "text$tag: no inlined mix_step with its line"; }
	grep -Eq "^    hot_loop\\+0x[0-9a-f]+ \\($BIN\\)  inline\\.c:35\$" "$WORK/text$tag" ||
		{ cat "$WORK/text$tag"; fail "text$tag: hot_loop not at the line of the call"; }
	run_st "$WORK/folded$tag" "$prog" --format folded
	grep -q ';main;hot_loop;mix_step_\[i\] [0-9]' "$WORK/folded$tag" ||
		{ cat "$WORK/folded$tag"; fail "folded$tag: no mix_step_[i] frame"; }
	run_st "$WORK/json$tag" "$prog" --json
	check_json "$WORK/json$tag" "$INLINE_BIN"
	command -v go > /dev/null 2>&1 || return 0
	run_st "$WORK/out" "$prog" -o "$WORK/p$tag.pb.gz"
	go tool pprof -lines -top "$WORK/p$tag.pb.gz" > "$WORK/top$tag" 2>&1 ||
		{ cat "$WORK/top$tag"; fail "pprof cannot read the profile$tag"; }
	grep -Eq ' mix_step [^ ]*inline\.c:2[0-4] \(inline\)$' "$WORK/top$tag" ||
		{ cat "$WORK/top$tag"; fail "pprof -lines$tag: no inlined mix_step with its line"; }
	grep -Eq ' hot_loop [^ ]*inline\.c:3[45]$' "$WORK/top$tag" ||
		{ cat "$WORK/top$tag"; fail "pprof -lines$tag: no hot_loop line"; }
	go tool pprof -raw "$WORK/p$tag.pb.gz" 2> /dev/null | grep -A1 -E ' mix_step .*inline\.c:2[0-4]' |
		grep -Eq '^ +hot_loop .*inline\.c:35' ||
		fail "pprof$tag: mix_step's Location has no hot_loop Line after it"
	sed -n '/flat%/,+4p' "$WORK/top$tag"
}

echo "== the program's own DWARF"
check_views "$INLINE_BIN" ""
# -r: read back, the same frames and lines
"$STACKTOP" -r "$WORK/json" --json --cumulative > "$WORK/json2" 2> "$WORK/rerr" ||
	{ cat "$WORK/rerr"; fail "-r of the snapshot failed"; }
check_json "$WORK/json2" "$INLINE_BIN"
"$STACKTOP" -r "$WORK/json" --format folded --cumulative | grep -q 'hot_loop;mix_step_\[i\] ' ||
	fail "folded of the read-back snapshot lost the inlined frame"
# the flame page: mix_step a frame of its own, its line in the tooltip's "where"
run_st "$WORK/out" "$INLINE_BIN" -o "$WORK/f.html"
grep -Eq '\["mix_step \(inlined\)",[0-9]+,"'"$BIN"', inline\.c:2[0-4]"\]' "$WORK/f.html" ||
	fail "the flame page has no inlined mix_step with its line"

echo "== a stripped copy, its DWARF in /usr/lib/debug/.build-id"
objcopy --only-keep-debug "$INLINE_BIN" "$WORK/$BIN.debug" || fail "objcopy --only-keep-debug"
# as Debian's packages ship it: no .symtab either (the names come from the debug file too)
mkdir -p "$WORK/bid"
objcopy --strip-unneeded "$INLINE_BIN" "$WORK/bid/$BIN" || fail "objcopy --strip-unneeded"
if readelf -S "$WORK/bid/$BIN" | grep -Eq ' \.(debug_info|debug_line|symtab) '; then
	fail "the stripped copy still has DWARF or a .symtab"
fi
bid=$(readelf -n "$INLINE_BIN" | awk '/Build ID/ { print $3 }')
[ -n "$bid" ] || fail "the test program has no build-id"
# stacktop reads root's /usr/lib/debug alone (no option points it elsewhere):
# the file is put there for the run and removed at exit, even by a signal
dir=/usr/lib/debug/.build-id/$(echo "$bid" | cut -c1-2)
DEBUG_LINK=$dir/$(echo "$bid" | cut -c3-).debug
[ ! -e "$DEBUG_LINK" ] || fail "$DEBUG_LINK exists already"
for d in /usr/lib/debug /usr/lib/debug/.build-id "$dir"; do
	[ -d "$d" ] || { mkdir "$d" && MADE_DIRS="$d $MADE_DIRS"; } || fail "mkdir $d"
done
cp "$WORK/$BIN.debug" "$DEBUG_LINK"
check_views "$WORK/bid/$BIN" "-bid"
rm -f "$DEBUG_LINK"
DEBUG_LINK=
# the same copy without its debug file: no inlined frame, no line
run_st "$WORK/json-none" "$WORK/bid/$BIN" --json
if grep -q 'mix_step (inlined)' "$WORK/json-none"; then
	fail "an inlined frame without the debug file"
fi

echo "== a stripped copy with a .gnu_debuglink to its debug file beside it"
mkdir -p "$WORK/link/.debug"
cp "$WORK/$BIN.debug" "$WORK/link/.debug/$BIN.debug"
objcopy --strip-debug --add-gnu-debuglink="$WORK/$BIN.debug" "$INLINE_BIN" "$WORK/link/$BIN" ||
	fail "objcopy --add-gnu-debuglink"
run_st "$WORK/json-link" "$WORK/link/$BIN" --json
check_json "$WORK/json-link" "$INLINE_BIN"
# a debug file that is not the one linked (its CRC differs): not used
printf 'x' >> "$WORK/link/.debug/$BIN.debug"
run_st "$WORK/json-bad" "$WORK/link/$BIN" --json
if grep -q 'mix_step (inlined)' "$WORK/json-bad"; then
	fail "a debug file whose CRC is not the link's was read"
fi

if command -v perf > /dev/null; then
	echo "== beside perf on the same run: each source line's self share"
	# one run of the program sampled by both at once: perf's srcline of each
	# sampled address (addr2line's innermost line) against the line of
	# stacktop's innermost user frame (mix_step's, inlined, or hot_loop's)
	"$INLINE_BIN" 30 &
	WORKLOAD_PID=$!
	sleep 0.3
	perf record -F 999 -p "$WORKLOAD_PID" -o "$WORK/perf.data" -- sleep 2 > "$WORK/perf.log" 2>&1 &
	PERF=$!
	EXTRA_PIDS=$PERF
	"$STACKTOP" --oncpu -u -p "$WORKLOAD_PID" -b -n 1 -d 2 --json > "$WORK/same.json" 2> "$WORK/same.err" ||
		{ cat "$WORK/same.err"; fail "stacktop --oncpu -u -p failed"; }
	wait "$PERF" || { cat "$WORK/perf.log"; fail "perf record failed"; }
	EXTRA_PIDS=
	end_pids "$WORKLOAD_PID"
	WORKLOAD_PID=
	perf report -i "$WORK/perf.data" --no-children --sort srcline --stdio -q 2> /dev/null \
		> "$WORK/perf.lines"
	python3 - "$WORK/same.json" "$WORK/perf.lines" << 'PY' || fail "stacktop's source lines disagree with perf's"
import json, math, re, sys
snap = None
for line in open(sys.argv[1]):
    d = json.loads(line)
    if isinstance(d, dict) and "stacks" in d:
        snap = d
n, st = 0, {}
for s in snap["stacks"]:
    n += s["total"]
    fr = s.get("user_frames", [])
    if fr and fr[0].get("line") and not s.get("symbols"):
        key = "inline.c:" + fr[0]["line"].split(":")[-1] if fr[0]["line"].split(":")[0].endswith("inline.c") else None
        if key:
            st[key] = st.get(key, 0) + s["total"]
perf = {}
for l in open(sys.argv[2]):
    m = re.match(r"\s*([0-9.]+)%\s+(\S*inline\.c:[0-9]+)", l)
    if m:
        k = "inline.c:" + m.group(2).split(":")[-1]
        perf[k] = perf.get(k, 0) + float(m.group(1))
assert n > 200 and perf, (n, perf)
mix_p = sum(v for k, v in perf.items() if 20 <= int(k.split(":")[1]) <= 24)
mix_s = 100.0 * sum(v for k, v in st.items() if 20 <= int(k.split(":")[1]) <= 24) / n
print("  mix_step's lines (20-24): perf %.2f%%, stacktop %.2f%% of %d samples" % (mix_p, mix_s, n))
assert mix_p > 30, perf
checked = 0
for k, p in sorted(perf.items(), key=lambda kv: -kv[1]):
    if p < 5:
        continue
    s = 100.0 * st.get(k, 0) / n
    tol = max(2.0, 400 * math.sqrt(2 * (p / 100) * (1 - p / 100) / n))
    print("  %-14s perf %5.2f%%  stacktop %5.2f%%  (within %.1f)" % (k, p, s, tol))
    assert abs(s - p) <= tol, (k, p, s)
    checked += 1
tol = max(2.0, 400 * math.sqrt(2 * (mix_p / 100) * (1 - mix_p / 100) / n))
assert abs(mix_s - mix_p) <= tol, (mix_p, mix_s)
assert checked >= 2, perf
PY
fi
echo "PASS: inlined frames and source lines in text, folded, JSON, pprof, by build-id and debuglink"
