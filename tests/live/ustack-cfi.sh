#!/bin/sh
# --user=dwarf on a user binary whose call frame information is made to
# hurt the unwinder (tests/ustack/cfi-hostile.c), run as nobody (issue 25):
# a CFA expression that jumps to itself (libunwind evaluated it forever:
# no report, ever), an FDE opening with 1.2M DW_CFA_remember_state
# (libunwind's pool grew to 256 MB under --max-memory 16M), 20 of them
# (past the nesting bound), a chain of 40 FDEs of 15,000 DW_CFA_nop each
# (past a walk's read budget, walked all the same over a few walks). Each run gives its three reports, the
# stack says why it was not walked, and peak RSS stays near the same
# build's run on the control (ordinary CFI), measured in this run.
. "$(dirname "$0")/lib.sh"

[ -n "${CFI_HOSTILE:-}" ] && [ -x "$CFI_HOSTILE" ] || fail "no CFI_HOSTILE test program"
[ "$(uname -m)" = x86_64 ] || skip "the hostile program is x86-64 assembly"
command -v setpriv > /dev/null || fail "setpriv is missing (util-linux)"
id nobody > /dev/null 2>&1 || skip "no user nobody"
[ -x /usr/bin/time ] || fail "/usr/bin/time is missing (scripts/deps.sh installs time)"
"$STACKTOP" --user=dwarf -b -n 1 -d 0.1 > "$WORK/probe" 2>&1 ||
	{
		cat "$WORK/probe"
		grep -q 'built without libunwind\|perf_event_open' "$WORK/probe" && skip "no dwarf mode here"
		fail "--user=dwarf does not start"
	}
# nobody runs its own copy, from a directory it can read
chmod 0755 "$WORK"
cp "$CFI_HOSTILE" "$WORK/cfi-hostile"
chmod 0755 "$WORK/cfi-hostile"

# run MODE: the hostile program as nobody, stacktop on it; sets RSS (KB)
run() {
	mode=$1
	rm -f "$WORK/fifo"
	mkfifo "$WORK/fifo"
	setpriv --reuid nobody --regid "$(id -g nobody)" --clear-groups \
		"$WORK/cfi-hostile" "$mode" < "$WORK/fifo" > "$WORK/$mode.prog" &
	WORKLOAD_PID=$!
	exec 9> "$WORK/fifo"
	i=0
	until grep -q ready "$WORK/$mode.prog" 2> /dev/null; do
		i=$((i + 1))
		[ $i -lt 100 ] || fail "the $mode program did not start"
		sleep 0.05
	done
	# a hang is what this catches: 60 s for what takes 3 s
	rc=0
	# ASan (the test build) keeps freed memory in a quarantine of 256 MB: a
	# small one, so that peak RSS is what stacktop holds, not what it freed
	ASAN_OPTIONS="${ASAN_OPTIONS:-}:quarantine_size_mb=4" /usr/bin/time -f '%M' -o "$WORK/$mode.rss" timeout -s KILL 60 \
		"$STACKTOP" -b --user=dwarf -p "$WORKLOAD_PID" -n 3 -d 1 --max-memory 16M \
		--top 20 --expand 20 > "$WORK/$mode.out" 2> "$WORK/$mode.err" || rc=$?
	exec 9>&-
	wait "$WORKLOAD_PID" 2> /dev/null
	WORKLOAD_PID=
	[ $rc = 0 ] || { tail -5 "$WORK/$mode.err"; fail "$mode: stacktop ended with status $rc (137: it hung)"; }
	[ "$(grep -c '^stacktop .* iteration ' "$WORK/$mode.out")" = 3 ] ||
		fail "$mode: not three reports"
	grep -q "hostile_" "$WORK/$mode.out" || fail "$mode: the program's frame is not there"
	RSS=$(tail -1 "$WORK/$mode.rss")
	echo "$mode: peak RSS ${RSS} KB"
}

run plain
plain_rss=$RSS
grep -q 'cut: unwind info refused' "$WORK/plain.out" && fail "plain: ordinary CFI was refused"

run loop
grep -q '\[cut: unwind info refused: CFA expression loop\]' "$WORK/loop.out" ||
	{ grep -A12 '^#1 ' "$WORK/loop.out"; fail "loop: the stack does not say why it was not walked"; }

run nest
grep -q '\[cut: unwind info refused: call frame program too long\]' "$WORK/nest.out" ||
	fail "nest: the stack does not say why it was not walked"
# the audit: 256 MB more than the control (1.2M register states of ~200
# bytes); 32 MB more would be 160,000 of them
[ "$RSS" -lt $((plain_rss + 32768)) ] ||
	fail "nest: peak RSS $RSS KB against $plain_rss KB for the control"
nest_rss=$RSS

run nest20
grep -q '\[cut: unwind info refused: remember_state nested too deep\]' "$WORK/nest20.out" ||
	fail "nest20: the stack does not say why it was not walked"

# the budget: the first walks through the 40 new FDEs stop at it (600,000
# table bytes; those are the samples taken before the first record, not
# counted), libunwind caches the state each one computed, so the later
# walks get through: the bound is per walk, never a ban on deep stacks
run deep
n=$(awk '/^#1 /{p++} p == 1' "$WORK/deep.out" | grep -c 'hostile_deep')
[ "$n" -ge 41 ] || fail "deep: the top stack has $n of the chain's 41 frames"
echo "ok: loop, nest, nest20 and deep reported on time; nest's peak RSS $nest_rss KB (control $plain_rss KB)"
