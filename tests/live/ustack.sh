#!/bin/sh
# --user=fp: user frames below the kernel ones, in call order, named from the
# binary; still named after the process exited; the cut mark past the
# kernel's 8 frames; a stripped copy gives [unknown] with file offsets, not
# wrong names; a perf-<pid>.map names a JIT region; folded and JSON carry
# the user part.
. "$(dirname "$0")/lib.sh"

[ -n "${CHAIN_FP:-}" ] && [ -x "$CHAIN_FP" ] || fail "no CHAIN_FP test program"
[ -e "$T/instances" ] && [ -e "$T/events/ftrace/user_stack" ] || skip "no ftrace user_stack event"
probe="$T/instances/stacktop-ustack-probe.$$"
mkdir "$probe" 2> /dev/null || skip "cannot create an instance"
have=no
[ -e "$probe/options/userstacktrace" ] && have=yes
rmdir "$probe"
[ $have = yes ] || skip "no options/userstacktrace in instances"
[ "$(uname -m)" = x86_64 ] || skip "the chain program makes its syscall in x86-64 assembly"

# bad values are clear errors
"$STACKTOP" --user=bogus -b -n 1 > "$WORK/o" 2> "$WORK/e" && fail "--user=bogus accepted"
grep -q "bad --user 'bogus' (fp, dwarf or dwarf,SIZE)" "$WORK/e" || fail "--user=bogus message: $(cat "$WORK/e")"

CHAIN_PID=
# start a chain program; it writes from the chain every 10 ms until its stdin
# closes (fd 9 here), and says "ready PID" after the first write
start_chain() {
	rm -f "$WORK/fifo" "$WORK/chain.out"
	mkfifo "$WORK/fifo"
	"$@" < "$WORK/fifo" > "$WORK/chain.out" &
	CHAIN_PID=$!
	exec 9> "$WORK/fifo"
	wait_for "$WORK/chain.out" ready 100 || fail "$1 did not start"
}

stop_chain() {
	exec 9>&-
	wait "$CHAIN_PID" 2> /dev/null
	rm -f "/tmp/perf-$CHAIN_PID.map"
	CHAIN_PID=
}

cleanup_chain() {
	[ -n "$CHAIN_PID" ] && kill "$CHAIN_PID" 2> /dev/null && wait "$CHAIN_PID" 2> /dev/null
	[ -n "$CHAIN_PID" ] && rm -f "/tmp/perf-$CHAIN_PID.map"
	cleanup
}
trap cleanup_chain EXIT

run_u() { # output file, then stacktop options
	out=$1
	shift
	"$STACKTOP" --user=fp -e syscalls:sys_enter_write -p "$CHAIN_PID" "$@" > "$out" 2> "$out.err" ||
		{ cat "$out.err"; fail "stacktop --user=fp $* failed"; }
}

# 1. the frame-pointer build: the whole chain, in order, under the syscall's
#    kernel stack, after the "--" separator
start_chain "$CHAIN_FP"
run_u "$WORK/text" -b -n 1 -d 0.5 --expand 1 --top 5
cat "$WORK/text"
awk '/^#1 /{p=1} p' "$WORK/text" > "$WORK/top"
grep -q 'entry_SYSCALL_64' "$WORK/top" || fail "no syscall kernel stack"
grep -q "^user stacks: fp" "$WORK/text" || fail "the header does not say fp"
awk '/ --$/{u=1; next} u && NF {print $1}' "$WORK/top" | sed 's/+0x[0-9a-f]*$//' |
	head -4 | tr '\n' ' ' > "$WORK/chain"
[ "$(cat "$WORK/chain")" = "ustack_c ustack_b ustack_a main " ] ||
	fail "user frames are not c, b, a, main: $(cat "$WORK/chain")"
grep -q "ustack_c+0x[0-9a-f]* (${CHAIN_FP##*/})" "$WORK/top" || fail "no 'func+0xoff (file)' frame"
# kernel frames come first, then the separator
awk '/ --$/{exit} /^    /{k++} END{exit !(k > 0)}' "$WORK/top" || fail "no kernel frames above --"

# folded: user frames root-side without a suffix, kernel frames with _[k]
run_u "$WORK/folded" -n 1 -d 0.5 --folded
grep -q 'main;ustack_a;ustack_b;ustack_c;[^ ]*entry_SYSCALL_64[^;]*_\[k\]' "$WORK/folded" ||
	{ cat "$WORK/folded"; fail "folded user part wrong"; }

# JSON: user_frames with addresses and symbols, tgid
run_u "$WORK/json" -n 1 -d 0.5 --json
python3 - "$WORK/json" "$CHAIN_PID" << 'PY' || fail "JSON user part wrong"
import json, sys
d = json.loads(open(sys.argv[1]).read())
s = max(d["stacks"], key=lambda s: s["total"])
names = [f["symbol"].split("+")[0] for f in s["user_frames"]]
assert names[:4] == ["ustack_c", "ustack_b", "ustack_a", "main"], names
assert s["tgid"] == int(sys.argv[2]), s["tgid"]
assert not s["user_cut"]
assert all(f["addr"].startswith("0x") for f in s["user_frames"])
assert len(s["frames"]) == len(s["symbols"]) == s["depth"]
assert not any(x.startswith("ustack") for x in s["symbols"]), "user frames in kernel symbols"
PY

# read back: the same stacks (kernel part and user part), keys, counts and
# user frames; folded from the snapshot as folded from the live run of it.
# A stack's key leaves out the tracing machinery at the leaf (whether
# __traceiter_sys_enter is there depends on whether another tool has a probe
# on sys_enter: one probe is called directly), and -r merges the stacks of a
# key: when another tracer came or went during the run, the snapshot has two
# stacks of one key (with and without __traceiter_*) and reads back as one,
# their hits summed, the first's frames kept.
"$STACKTOP" -r "$WORK/json" --json --cumulative > "$WORK/json2" 2> "$WORK/rerr" ||
	{ cat "$WORK/rerr"; fail "-r of a -u snapshot failed"; }
python3 - "$WORK/json" "$WORK/json2" << 'PY' || fail "a -u snapshot does not read back as it was"
import json, sys
a, b = (json.loads(open(p).read().splitlines()[-1]) for p in sys.argv[1:3])
def stacks(d):
    by = {}
    for s in d["stacks"]:
        user = (s.get("tgid"), tuple((f["addr"], f["symbol"]) for f in s.get("user_frames", [])),
                s.get("user_cut"))
        e = by.setdefault(s["key"], [0, user, []])
        assert e[1] == user, ("one key, two user parts", s["key"], e[1], user)
        e[0] += s["total"]
        e[2].append(tuple(s["symbols"]))
    return by
sa, sb = stacks(a), stacks(b)
assert set(sa) == set(sb), (sorted(set(sa) ^ set(sb)))
for k in sa:
    assert sa[k][:2] == sb[k][:2] and len(sb[k][2]) == 1 and sb[k][2][0] in sa[k][2], (k, sa[k], sb[k])
merged = [k for k in sa if len(sa[k][2]) > 1]
if merged:
    print("note: %d key(s) with stacks of other tracing machinery, merged by -r" % len(merged))
assert sum(1 for v in sa.values() if v[1][1]) > 0, "no stack with user frames"
PY
"$STACKTOP" -r "$WORK/json" --folded --cumulative | sort > "$WORK/f1"
"$STACKTOP" -r "$WORK/json2" --folded --cumulative | sort > "$WORK/f2"
grep -q 'main;ustack_a;ustack_b;ustack_c;' "$WORK/f1" || { cat "$WORK/f1"; fail "folded of a -u snapshot lacks the user part"; }
cmp -s "$WORK/f1" "$WORK/f2" || { diff "$WORK/f1" "$WORK/f2"; fail "folded differs after a round trip"; }

# pprof: user frames are locations of their own mapping, named, with the file
if command -v go > /dev/null 2>&1; then
	run_u "$WORK/u.pb.gz" -n 1 -d 0.5 -o "$WORK/u.pb.gz"
	go tool pprof -traces "$WORK/u.pb.gz" > "$WORK/traces" 2>&1 ||
		{ cat "$WORK/traces"; fail "pprof cannot read the -u profile"; }
	grep -q 'ustack_b' "$WORK/traces" || { cat "$WORK/traces"; fail "pprof lacks user frames"; }
	go tool pprof -raw "$WORK/u.pb.gz" > "$WORK/raw" 2>&1
	grep -Eq '^2: 0x[0-9a-f]+/0x[0-9a-f]+/0x0 \[user\]' "$WORK/raw" ||
		{ cat "$WORK/raw"; fail "pprof lacks the user mapping"; }
fi

# speedscope: the user frames root-side, no separator frame in the samples
run_u "$WORK/u.speedscope.json" -n 1 -d 0.5 -o "$WORK/u.speedscope.json"
python3 - "$WORK/u.speedscope.json" << 'PY' || fail "speedscope user frames wrong"
import json, sys
d = json.load(open(sys.argv[1]))
frames = [f["name"] for f in d["shared"]["frames"]]
files = {f["name"]: f.get("file") for f in d["shared"]["frames"]}
assert "--" not in frames, "the separator is a frame"
# a user frame's file is its binary or library, never the kernel's
assert files.get("ustack_b") and "kernel" not in files["ustack_b"], files.get("ustack_b")
assert files.get("__libc_start_call_main", "").startswith("libc"), files.get("__libc_start_call_main")
ok = False
for p in d["profiles"]:
    for s in p["samples"]:
        names = [frames[i] for i in s]
        assert "--" not in names, names
        if names[:4] == ["__libc_start_call_main", "main", "ustack_a", "ustack_b"]:
            ok = True
assert ok, "no sample rooted at the user chain"
PY

# 2. after the process has exited: the maps read at first sight still name
#    its frames (the last report is written after the exit; the first one,
#    waited for, proves the process was seen while it ran)
"$STACKTOP" --user=fp -e syscalls:sys_enter_write -p "$CHAIN_PID" -n 3 -d 0.5 --cumulative \
	--expand 1 -o "$WORK/ex.txt" 2> "$WORK/exited.err" &
st=$!
wait_for "$WORK/ex.1.txt" ustack_c 100 || { kill $st; fail "no first report with the chain"; }
stop_chain
wait $st || { cat "$WORK/exited.err"; fail "run across the exit failed"; }
[ -f "$WORK/ex.3.txt" ] || fail "no report after the exit"
cat "$WORK/ex.3.txt"
awk '/^#1 /{p=1} p' "$WORK/ex.3.txt" | grep -q 'ustack_b+0x[0-9a-f]* (' ||
	fail "frames of an exited process are not named"

# 3. deep recursion: the kernel's walk stops at 8 frames: the cut mark
start_chain "$CHAIN_FP" deep
run_u "$WORK/deep" -b -n 1 -d 0.5 --expand 1 --top 5
awk '/^#1 /{p=1} p' "$WORK/deep" > "$WORK/deeptop"
grep -q 'ustack_deep+' "$WORK/deeptop" || fail "no recursion frames"
grep -q '\[cut: more user frames\]' "$WORK/deeptop" || fail "no cut mark on a deep stack"
run_u "$WORK/deepjson" -n 1 -d 0.5 --json
python3 -c '
import json, sys
d = json.loads(open(sys.argv[1]).read())
assert any(s.get("user_cut") for s in d["stacks"]), "user_cut not set"
' "$WORK/deepjson" || fail "JSON lacks user_cut"
stop_chain

# 4. a stripped copy: [unknown] with file offsets, never a wrong name
cp "$CHAIN_FP" "$WORK/chain-stripped"
strip "$WORK/chain-stripped"
start_chain "$WORK/chain-stripped"
run_u "$WORK/strip" -b -n 1 -d 0.5 --expand 1 --top 5
awk '/^#1 /{p=1} p' "$WORK/strip" > "$WORK/striptop"
cat "$WORK/striptop"
grep -Eq '\[unknown\] 0x[0-9a-f]+ \(chain-stripped\+0x[0-9a-f]+\)' "$WORK/striptop" ||
	fail "no [unknown] frame with a file offset"
grep -q 'ustack_' "$WORK/striptop" && fail "a stripped binary got names"
# the leaf's file offset is inside ustack_c of the unstripped file
off=$(grep -Eo 'chain-stripped\+0x[0-9a-f]+' "$WORK/striptop" | head -1 | sed 's/.*+//')
python3 - "$CHAIN_FP" "$off" << 'PY' || fail "the leaf offset $off is not in ustack_c"
import subprocess, sys
off = int(sys.argv[2], 16)
for line in subprocess.run(["nm", "-S", sys.argv[1]], capture_output=True, text=True).stdout.splitlines():
    f = line.split()
    if len(f) == 4 and f[3] == "ustack_c":
        a, n = int(f[0], 16), int(f[1], 16)
        sys.exit(0 if a <= off < a + n else 1)  # non-PIE or PIE: vaddr == offset in .text here
sys.exit(1)
PY
stop_chain

# 5. a JIT region named from /tmp/perf-<pid>.map
start_chain "$CHAIN_FP" jit
[ -s "/tmp/perf-$CHAIN_PID.map" ] || fail "the chain wrote no perf map"
run_u "$WORK/jit" -b -n 1 -d 0.5 --expand 1 --top 5
awk '/^#1 /{p=1} p' "$WORK/jit" > "$WORK/jittop"
cat "$WORK/jittop"
grep -q "ustack_jit_fn+0x[0-9a-f]* (perf-$CHAIN_PID.map)" "$WORK/jittop" ||
	fail "the JIT frame is not named from the perf map"
stop_chain

# 6. the build without frame pointers: the walk cannot go past the leaf's
#    caller, but what it shows is right (never another function's name)
start_chain "$CHAIN_NOFP"
run_u "$WORK/nofp" -b -n 1 -d 0.5 --expand 1 --top 5
awk '/^#1 /{p=1} p' "$WORK/nofp" | awk '/ --$/{u=1; next} u && NF {print $1}' > "$WORK/nofpu"
head -1 "$WORK/nofpu" | grep -q '^ustack_c+' || fail "no-fp build: leaf is not ustack_c"
stop_chain
echo "ok: ustack"
