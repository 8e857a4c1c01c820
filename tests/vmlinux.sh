#!/bin/sh
# vmlinux: kernel frames' source lines from a vmlinux with DWARF (--vmlinux,
# issue 38). A small "kernel" (tests/ustack/fakekernel.c, built -O2 -g at
# 0xffffffff81000000) stands in for a real one: its symbols are the
# kallsyms and its addresses the kernel frames of a snapshot read back
# (-r), a leaf in do_idle under schedule under start_kernel. Each frame's
# line is its call's (the byte before the return address) as addr2line
# gives it, in the batch text, JSON "lines", pprof and the flame page's
# tooltip; a file with no DWARF, or none, is a clear error. Not tested
# here: a real kernel's vmlinux (the VM tier's RFC kernel is built without
# CONFIG_DEBUG_INFO) and its KASLR offset on a live run.
set -u
. "$(dirname "$0")/lib/common.sh"
ST=${STACKTOP:?}
FK=${FAKE_KERNEL:?}
W=$(mktemp -d /tmp/stacktop-vmlinux.XXXXXX)
trap 'rm -rf "$W"' EXIT
command -v addr2line > /dev/null || skip "no addr2line (scripts/deps.sh installs binutils)"

nm "$FK" | awk '$2 == "T" { print $1, "T", $3 }' > "$W/kallsyms"
a=$(awk '$3 == "do_idle" { print $1 }' "$W/kallsyms")
b=$(awk '$3 == "schedule" { print $1 }' "$W/kallsyms")
c=$(awk '$3 == "start_kernel" { print $1 }' "$W/kallsyms")
[ -n "$a" ] && [ -n "$b" ] && [ -n "$c" ] || fail "the fake kernel's symbols: $(cat "$W/kallsyms")"
# return addresses: after the store in do_idle, after each call
hexadd() { python3 -c 'import sys; print(hex(int(sys.argv[1], 16) + int(sys.argv[2])))' "$1" "$2"; }
leaf=$(hexadd "$a" 14)
ret1=$(objdump -d "$FK" | awk '/call.*<do_idle>/ { getline; sub(":", "", $1); print "0x" $1; exit }')
ret2=$(objdump -d "$FK" | awk '/call.*<schedule>/ { getline; sub(":", "", $1); print "0x" $1; exit }')
[ -n "$ret1" ] && [ -n "$ret2" ] || fail "no call in the fake kernel"
cat > "$W/snap.json" << JSON
{"schema":"stacktop-snapshot","version":2,"stacktop":"0.1.0","timestamp":1796549733.7,"host":"t",
"kernel":"fake","mode":"stacks","interval":1.0,"events":["sched:sched_switch"],"hits":10,
"hits_delta":10,"lost":0,"overrun":0,"dropped":0,"orphans":0,"bad_pages":0,"fallbacks":0,
"unresolved":0,"view":{"sort":"hits","ascending":false,"counts":"delta","event":null,"pid":null,
"cpu":null,"filter":null,"comm":null,"hide_idle":false,"top":0},
"stacks":[{"key":"0000000000000001","total":10,"delta":10,"depth":3,"ids":[],
"frames":["$leaf","$ret1","$ret2"],
"symbols":["do_idle+0xe/0x16","schedule+0xc/0x1f","start_kernel+0x5/0x7"],
"by":[{"event":"sched:sched_switch","cpu":0,"pid":1,"comm":"init","total":10,"delta":10}]}]}
JSON
want() { # address: the line of the byte before it, "file.c:N"
	addr2line -e "$FK" "$(hexadd "$1" -1)" | sed 's|.*/||; s| .*||'
}
w1=$(want "$leaf")
w2=$(want "$ret1")
w3=$(want "$ret2")
echo "addr2line: $w1 $w2 $w3"
[ "$w1" = fakekernel.c:14 ] && [ "$w2" = fakekernel.c:20 ] && [ "$w3" = fakekernel.c:28 ] ||
	fail "addr2line disagrees with the source's marks: $w1 $w2 $w3"

"$ST" -r "$W/snap.json" --vmlinux "$FK" --kallsyms "$W/kallsyms" -b --expand 1 > "$W/text" \
	2> "$W/err" || { cat "$W/err"; fail "stacktop -r --vmlinux failed"; }
cat "$W/text"
for l in "do_idle\\+0x[0-9a-f/x]+  $w1" "schedule\\+0x[0-9a-f/x]+  $w2" "start_kernel\\+0x[0-9a-f/x]+  $w3"; do
	grep -Eq "^    $l\$" "$W/text" || fail "text: no frame '$l'"
done
"$ST" -r "$W/snap.json" --vmlinux "$FK" --kallsyms "$W/kallsyms" --json > "$W/json" 2> "$W/err" ||
	{ cat "$W/err"; fail "--json failed"; }
python3 - "$W/json" "$w1" "$w2" "$w3" << 'PY' || fail "JSON lines wrong"
import json, sys
d = [json.loads(l) for l in open(sys.argv[1])]
d = [x for x in d if isinstance(x, dict) and "stacks" in x][-1]
lines = [l.split("/")[-1] for l in d["stacks"][0]["lines"]]
assert lines == sys.argv[2:5], (lines, sys.argv[2:5])
PY
if command -v go > /dev/null 2>&1; then
	"$ST" -r "$W/snap.json" --vmlinux "$FK" --kallsyms "$W/kallsyms" -o "$W/p.pb.gz" 2> "$W/err" ||
		{ cat "$W/err"; fail "pprof failed"; }
	go tool pprof -lines -top "$W/p.pb.gz" > "$W/top" 2>&1
	grep -Eq " do_idle .*fakekernel\\.c:14" "$W/top" || { cat "$W/top"; fail "pprof -lines: no do_idle line"; }
fi
"$ST" -r "$W/snap.json" --vmlinux "$FK" --kallsyms "$W/kallsyms" -o "$W/f.html" 2> "$W/err" ||
	{ cat "$W/err"; fail "html failed"; }
# the flame page's names table carries the lines (its tooltip's "where")
grep -q '\["schedule",[0-9]*,"fakekernel.c:20"\]' "$W/f.html" ||
	fail "the flame page's tooltip has no line for schedule"
# no DWARF, no file: clear errors
objcopy --strip-debug "$FK" "$W/nodebug"
"$ST" -r "$W/snap.json" --vmlinux "$W/nodebug" -b > /dev/null 2> "$W/err" && fail "a vmlinux without DWARF was taken"
grep -q -- "--vmlinux .*no DWARF" "$W/err" || fail "no clear error: $(cat "$W/err")"
"$ST" -r "$W/snap.json" --vmlinux "$W/none" -b > /dev/null 2> "$W/err" && fail "a missing vmlinux was taken"
grep -q -- "--vmlinux $W/none" "$W/err" || fail "no clear error: $(cat "$W/err")"
echo "PASS: kernel frames' lines from --vmlinux"
