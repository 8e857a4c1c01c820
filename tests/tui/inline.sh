#!/bin/sh
# tui-inline: an inlined call on the screen (issue 38). The -O2 -g program
# of tests/ustack/inline.c spends its time in mix_step(), inlined into
# hot_loop(): under `--oncpu -u` the top stack, expanded, shows mix_step as
# a frame of its own marked inlined with its source line, then hot_loop at
# the line of the call; the caller tree has it as a node of its own; o
# keys the rows by the leaf user function (mix_step, inlined), then by
# library. Then the same expanded stack from a stripped copy whose DWARF
# is in a separate debug file, found by its build-id.
. "$(dirname "$0")/lib.sh"

[ -n "${INLINE_BIN:-}" ] && [ -x "$INLINE_BIN" ] || fail "no INLINE_BIN test program"
BIN=${INLINE_BIN##*/}

"$INLINE_BIN" 60 &
PROG=$!
TUI_PIDS="$TUI_PIDS $PROG"

tui_start 150 40
tui_run --oncpu -u -d 0.5 -p "$PROG"
say "the top stack: mix_step inlined, at its line, in hot_loop at the call"
tui_wait 'mode oncpu' 10
# the first row: mix_step's (the program's first samples may rank first at the start)
tui_wait '^[-+ ] +1 .*mix_step \(inlined\)' 15
tui_keys Home Enter
tui_wait "#[0-9]+ +mix_step \\(inlined\\) \\($BIN\\)  inline\\.c:2[0-4]" 5
tui_wait "#[0-9]+ +hot_loop\\+0x[0-9a-f]+ \\($BIN\\)  inline\\.c:35" 5
mline=$(tui_capture | grep -n -E '#[0-9]+ +mix_step \(inlined\)' | head -1 | cut -d: -f1)
hline=$(tui_capture | grep -n -E '#[0-9]+ +hot_loop\+' | head -1 | cut -d: -f1)
[ "$mline" -lt "$hline" ] || fail "the inlined frame is not above the frame it was inlined into"

say "the breakdown pane: by the library of the leaf too"
tui_capture | grep -q 'breakdown of' || tui_keys b
tui_wait 'breakdown of .* by event, comm\(pid\), CPU, library' 5
tui_wait "[0-9.]+% $BIN\$" 5

say "the caller tree: the inlined call a node of its own"
tui_keys t
tui_keys E
tui_wait "mix_step \\(inlined\\) \\($BIN\\)" 5
tui_wait "hot_loop \\($BIN\\)" 5
say "o: rows by the leaf user function, the inlined one"
tui_keys t t
tui_keys o
tui_wait 'rows by sym' 5
tui_wait 'group sym' 5
tui_wait "^[-+ ] +1 .* -- < mix_step \\(inlined\\) \\($BIN\\)" 10
tui_keys o
tui_wait 'rows by dso' 5
tui_wait "^[-+ ] +1 .* -- < $BIN\$" 10
# a comm row: its hits by the library of the stacks it merged
tui_keys o o
tui_wait 'rows by comm' 5
tui_keys Home
tui_wait "[0-9.]+% $BIN\$" 10
tui_keys q
tui_wait '__RC=0__' 10
end_pids "$PROG"

say "a stripped copy, its DWARF in a debug file found by build-id"
command -v objcopy > /dev/null || fail "objcopy is not installed (scripts/deps.sh installs binutils)"
mkdir "$TUI_WORK/bid"
objcopy --only-keep-debug "$INLINE_BIN" "$TUI_WORK/$BIN.debug" || fail "objcopy --only-keep-debug"
objcopy --strip-unneeded "$INLINE_BIN" "$TUI_WORK/bid/$BIN" || fail "objcopy --strip-unneeded"
bid=$(readelf -n "$INLINE_BIN" | awk '/Build ID/ { print $3 }')
[ -n "$bid" ] || fail "the test program has no build-id"
# stacktop reads root's /usr/lib/debug alone: the file is there for this
# run, removed at exit (and the directories this test made)
dir=/usr/lib/debug/.build-id/$(echo "$bid" | cut -c1-2)
DEBUG_LINK=$dir/$(echo "$bid" | cut -c3-).debug
MADE_DIRS=
[ ! -e "$DEBUG_LINK" ] || fail "$DEBUG_LINK exists already"
trap 'rm -f "$DEBUG_LINK"; for d in $MADE_DIRS; do rmdir "$d" 2> /dev/null; done; tui_cleanup' EXIT
for d in /usr/lib/debug /usr/lib/debug/.build-id "$dir"; do
	[ -d "$d" ] || { mkdir "$d" && MADE_DIRS="$d $MADE_DIRS"; } || fail "mkdir $d"
done
cp "$TUI_WORK/$BIN.debug" "$DEBUG_LINK"
"$TUI_WORK/bid/$BIN" 60 &
PROG=$!
TUI_PIDS="$TUI_PIDS $PROG"
tui_run --oncpu -u -d 0.5 -p "$PROG"
tui_wait 'mode oncpu' 10
tui_wait '^[-+ ] +1 .*mix_step \(inlined\)' 15
tui_keys Home Enter
tui_wait "#[0-9]+ +mix_step \\(inlined\\) \\($BIN\\)  inline\\.c:2[0-4]" 5
tui_wait "#[0-9]+ +hot_loop\\+0x[0-9a-f]+ \\($BIN\\)  inline\\.c:35" 5
tui_keys q
tui_wait '__RC=0__' 10
echo "PASS: tui-inline"
