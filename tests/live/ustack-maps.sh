#!/bin/sh
# --user=dwarf on processes with many mappings, run as nobody (issue 25):
# 65,000 file mappings and 6 children that fork and map an executable page
# after stacktop started (each child's table was copied from its parent a
# memmove per entry: `-n 4 -d 1` took 50 s, the children's stacks mostly
# lost), and 4000 mappings of a 3.6 KB path in 40 children (every table
# had its own copy of every path, uncounted: 327 MB under --max-memory
# 16M). Each run ends its four reports long before a hang catcher, the
# process's user frames are there, and the second run's peak RSS stays
# within --max-memory of a control run (40 children, 10 mappings) made
# with the same build and ring size in this test.
. "$(dirname "$0")/lib.sh"

[ -n "${MANYMAPS:-}" ] && [ -x "$MANYMAPS" ] || fail "no MANYMAPS test program"
command -v setpriv > /dev/null || fail "setpriv is missing (util-linux)"
id nobody > /dev/null 2>&1 || skip "no user nobody"
[ -x /usr/bin/time ] || fail "/usr/bin/time is missing (scripts/deps.sh installs time)"
[ "$(cat /proc/sys/vm/max_map_count)" -gt 65100 ] || skip "vm.max_map_count is below 65,100"
"$STACKTOP" --user=dwarf -b -n 1 -d 0.1 > "$WORK/probe" 2>&1 ||
	{
		cat "$WORK/probe"
		grep -q 'built without libunwind\|perf_event_open' "$WORK/probe" && skip "no dwarf mode here"
		fail "--user=dwarf does not start"
	}
chmod 0755 "$WORK"
mkdir -m 0777 "$WORK/maps"
cp "$MANYMAPS" "$WORK/manymaps"
chmod 0755 "$WORK/manymaps"

# run NAME MAXMEM NMAPS NCHILD PATHLEN: the program as nobody, stacktop on
# it from its "ready" (the children fork a second later); sets RSS (KB)
run() {
	name=$1 maxmem=$2
	shift 2
	rm -f "$WORK/fifo"
	mkfifo "$WORK/fifo"
	setpriv --reuid nobody --regid "$(id -g nobody)" --clear-groups \
		"$WORK/manymaps" "$WORK/maps" "$@" < "$WORK/fifo" > "$WORK/$name.prog" 2>&1 &
	WORKLOAD_PID=$!
	exec 9> "$WORK/fifo"
	i=0
	until grep -q ready "$WORK/$name.prog" 2> /dev/null; do
		i=$((i + 1))
		[ $i -lt 600 ] || { cat "$WORK/$name.prog"; fail "$name: the program did not start"; }
		sleep 0.05
	done
	rc=0
	# a hang is what this catches: 30 s for what takes 5 (50 before the fix)
	ASAN_OPTIONS="${ASAN_OPTIONS:-}:quarantine_size_mb=4" /usr/bin/time -f '%M' \
		-o "$WORK/$name.rss" timeout -s KILL 30 "$STACKTOP" -b --user=dwarf \
		-p "$WORKLOAD_PID" -n 4 -d 1 --max-memory "$maxmem" --user-buffer 4M --top 50 --expand 50 \
		> "$WORK/$name.out" 2> "$WORK/$name.err" || rc=$?
	exec 9>&-
	wait "$WORKLOAD_PID" 2> /dev/null
	WORKLOAD_PID=
	[ $rc = 0 ] || { tail -5 "$WORK/$name.err"; fail "$name: stacktop ended with status $rc (137: it hung)"; }
	[ "$(grep -c '^stacktop .* iteration ' "$WORK/$name.out")" = 4 ] || fail "$name: not four reports"
	RSS=$(tail -1 "$WORK/$name.rss")
	echo "$name: peak RSS $RSS KB; $(grep '^memory' "$WORK/$name.out" | tail -1)"
}

run many 256M 65000 6 100
# the process's own stacks unwound through its 65,000-entry table (-p
# counts the process, not its children; their FORK and MMAP2 records made
# the copies all the same)
grep -q 'main+0x[0-9a-f]* (manymaps)' "$WORK/many.out" ||
	{ grep '^user stacks' "$WORK/many.out"; fail "many: the process's user stack is not unwound"; }

run control 16M 10 40 3783
control_rss=$RSS
run paths 16M 4000 40 3783
[ "$RSS" -lt $((control_rss + 16384)) ] ||
	fail "paths: peak RSS $RSS KB, more than --max-memory (16M) over the control's $control_rss KB"
echo "ok: 65,000 mappings and 6 forks on time; 40 forks of 4000 mappings: $RSS KB (control $control_rss KB)"
