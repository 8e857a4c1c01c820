# Shared helpers of the tui tests (sourced): the real stacktop binary in a
# real tmux, driven with send-keys and checked with capture-pane.
#
# Every check polls the pane until the expected text shows up, with a bounded
# timeout, and fails printing the pane. Each test uses its own tmux socket
# (stacktop-test-<pid>) and kills only that server, and ends only the
# processes it started, by pid. Exit 77 (skip) only when tmux or root is
# missing. fail, skip, tfs_root, tfs_snapshot: tests/lib/common.sh.
. "$(dirname "$0")/../lib/common.sh"

TUI_SOCK="stacktop-test-$$"
TUI_WORK=$(mktemp -d /tmp/stacktop-tui.XXXXXX)
TUI_PIDS=""
TUI_UP=0

tui_dump() {
	if [ "$TUI_UP" = 1 ]; then
		echo "---- pane (${1:-now}) ----"
		tmux -L "$TUI_SOCK" capture-pane -p -t tui 2>/dev/null
		echo "---- end of pane ----"
	fi
}

# fail() prints the pane after its message
tui_dump_failure() {
	tui_dump "at failure"
}
COMMON_FAIL_HOOK=tui_dump_failure

say() {
	echo "== $*"
}

tui_cleanup() {
	[ "$TUI_UP" = 1 ] && tmux -L "$TUI_SOCK" kill-server 2>/dev/null
	# shellcheck disable=SC2086 # one pid a word
	end_pids $TUI_PIDS
	rm -rf "$TUI_WORK"
}
trap tui_cleanup EXIT
trap 'exit 1' INT TERM HUP

command -v tmux >/dev/null 2>&1 || skip "tmux is not installed"
need_root "tui tests (stacktop traces the kernel)"
need_stacktop

TM() {
	tmux -L "$TUI_SOCK" "$@"
}

# tui_start COLS LINES: a tmux server with one pane running a plain shell
tui_start() {
	TM -f /dev/null new-session -d -s tui -x "$1" -y "$2" \
		"env -i PATH=$PATH HOME=$TUI_WORK TERM=screen LANG=C.UTF-8 LC_ALL=C.UTF-8 PS1='tui\$ ' sh" ||
		fail "cannot start tmux"
	TUI_UP=1
	TM set-option -g status off >/dev/null
	TM set-option -g history-limit 0 >/dev/null
	TM resize-window -t tui -x "$1" -y "$2" >/dev/null 2>&1
	tui_wait 'tui\$' 10
}

# tui_run ARGS...: run stacktop in the pane (cwd: the work dir); the shell
# prints __RC=<status>__ when it exits
tui_run() {
	TM send-keys -t tui "cd $TUI_WORK && clear && $STACKTOP $*; echo __RC=\$?__" Enter
}

tui_capture() {
	TM capture-pane -p -t tui
}

# tui_stable [-e]: the pane once two captures 50 ms apart agree (a capture
# can catch the terminal halfway through a redraw)
tui_stable() {
	_n=40
	TM capture-pane -p ${1:-} -t tui > "$TUI_WORK/st1"
	while [ "$_n" -gt 0 ]; do
		sleep 0.05
		TM capture-pane -p ${1:-} -t tui > "$TUI_WORK/st2"
		cmp -s "$TUI_WORK/st1" "$TUI_WORK/st2" && { cat "$TUI_WORK/st2"; return 0; }
		mv "$TUI_WORK/st2" "$TUI_WORK/st1"
		_n=$((_n - 1))
	done
	cat "$TUI_WORK/st1"
}

# tui_wait_count REGEX N [SECONDS]: until at least N lines match
tui_wait_count() {
	_n=$(( ${3:-10} * 10 ))
	while [ "$_n" -gt 0 ]; do
		[ "$(tui_capture | grep -c -E -- "$1")" -ge "$2" ] && return 0
		sleep 0.1
		_n=$((_n - 1))
	done
	fail "timed out waiting for $2 lines matching /$1/"
}

# tui_wait REGEX [SECONDS]: until a line of the pane matches (grep -E)
tui_wait() {
	_pat=$1
	_n=$(( ${2:-10} * 10 ))
	while [ "$_n" -gt 0 ]; do
		tui_capture > "$TUI_WORK/pane" 2>/dev/null
		grep -q -E -- "$_pat" "$TUI_WORK/pane" && return 0
		sleep 0.1
		_n=$((_n - 1))
	done
	fail "timed out after ${2:-10}s waiting for /$_pat/"
}

# tui_wait_gone REGEX [SECONDS]: until no line of the pane matches
tui_wait_gone() {
	_pat=$1
	_n=$(( ${2:-10} * 10 ))
	while [ "$_n" -gt 0 ]; do
		tui_capture > "$TUI_WORK/pane" 2>/dev/null
		grep -q -E -- "$_pat" "$TUI_WORK/pane" || return 0
		sleep 0.1
		_n=$((_n - 1))
	done
	fail "timed out after ${2:-10}s waiting for /$_pat/ to go away"
}

# tui_keys KEY...: tmux key names (Enter, Left, F4, C-l, ...)
tui_keys() {
	TM send-keys -t tui "$@"
}

# tui_type TEXT: literal text
tui_type() {
	TM send-keys -t tui -l -- "$1"
}

# tui_flag NAME: a tmux pane flag (alternate_on, mouse_any_flag, cursor_flag)
tui_flag() {
	TM display-message -p -t tui "#{$1}"
}

tui_resize() {
	TM resize-window -t tui -x "$1" -y "$2" || fail "cannot resize to $1x$2"
	_n=50
	while [ "$_n" -gt 0 ]; do
		[ "$(TM display-message -p -t tui '#{pane_width}x#{pane_height}')" = "$1x$2" ] && return 0
		sleep 0.1
		_n=$((_n - 1))
	done
	fail "pane did not become $1x$2"
}

# tui_click X Y: a left click at 0-based cell (X, Y), X10 mouse encoding
# (what TERM=screen announces), written to the pane as if typed
tui_click() {
	_b=$(printf "\\$(printf %o $((32 + $1 + 1)))")
	_c=$(printf "\\$(printf %o $((32 + $2 + 1)))")
	TM send-keys -t tui -l -- "$(printf '\033[M ')$_b$_c"
	TM send-keys -t tui -l -- "$(printf '\033[M#')$_b$_c"
}

# tui_wheel down|up X Y
tui_wheel() {
	_k='`'
	[ "$1" = down ] && _k=a
	_b=$(printf "\\$(printf %o $((32 + $2 + 1)))")
	_c=$(printf "\\$(printf %o $((32 + $3 + 1)))")
	TM send-keys -t tui -l -- "$(printf '\033[M')$_k$_b$_c"
}

# a ranked row: "+   1 -      49    82 ..." (fold mark, rank, ids, delta, total)
ROW_RE='^[-+ ] +[0-9]+ +(-|[0-9,+]+) +[0-9.]+[kMGT]? +[0-9.]+[kMGT]? '

# the TREND column's block characters take one column but three bytes:
# one byte each, so that cut -c and awk's columns are the screen's
tui_one_col() {
	LC_ALL=C sed 's/\xe2\x96[\x81-\x88]/#/g'
}

# tui_cut_col N: each line of stdin from screen column N (1-based) on,
# counted in display columns, not bytes: other processes' comms may be wide
# characters (CJK: 3 bytes, 2 columns), and a cut by bytes (cut -c, C
# locale) then lands elsewhere on their rows (issue 25: tui-live on a busy
# host with a 漢字テスト process)
tui_cut_col() {
	python3 -c '
import sys, unicodedata
n = int(sys.argv[1])
for raw in sys.stdin.buffer:
    line = raw.decode("utf-8", "replace").rstrip("\n")
    col, out = 1, ""
    for i, c in enumerate(line):
        if col >= n:
            out = line[i:]
            break
        col += 2 if unicodedata.east_asian_width(c) in "WF" else 1
    sys.stdout.buffer.write((out + "\n").encode("utf-8", "replace"))
' "$1"
}

# tui_func_col: the screen column (1-based) where the ranked table's
# FUNCTION/STACK column starts: what identifies a stack on its row (COMM(PID)
# before it ends in a "+N other pids" count that changes every refresh)
tui_func_col() {
	tui_stable | tui_one_col |
		awk '/^ +# / && (i = index($0, "FUNCTION") + index($0, "STACK")) { print i; exit }'
}

# tui_rows: the ranked rows on screen
tui_rows() {
	tui_stable | tui_one_col | grep -E "$ROW_RE"
}

# tui_selected: text of the selected row (drawn black on cyan)
tui_selected() {
	tui_stable -e |
		awk 'f && match($0, /^(\033\[[0-9;]*m)+/) && substr($0, 1, RLENGTH) ~ /[[;]46m/ { print; exit }
		     /DELTA|TOTAL/ { f = 1 }' |
		sed 's/\x1b\[[0-9;]*m//g' | tui_one_col
}

# tui_column TITLE: the values under a column title in the ranked rows
tui_column() {
	tui_stable | tui_one_col > "$TUI_WORK/colpane"
	awk -v t="$1" -v re="$ROW_RE" '
		!x && /^ +# / && index($0, t) { x = index($0, t); w = length(t) + 1; next }
		x && $0 ~ re { s = substr($0, 1, x + w - 1); n = split(s, a, " "); print a[n] }
	' "$TUI_WORK/colpane"
}

# count "1.23k" -> 1230 (what fmt_count prints)
tui_num() {
	awk '{ v = $1; m = 1; s = substr(v, length(v));
		if (s == "k") m = 1e3; else if (s == "M") m = 1e6; else if (s == "G") m = 1e9;
		if (m > 1) v = substr(v, 1, length(v) - 1);
		printf "%.0f\n", v * m }'
}

# tui_sorted desc|asc TITLE: the column reads in that order
tui_sorted() {
	tui_column "$2" | tui_num > "$TUI_WORK/col"
	[ -s "$TUI_WORK/col" ] || fail "no values under $2"
	if [ "$1" = desc ]; then
		sort -n -r -c "$TUI_WORK/col" 2>/dev/null || fail "column $2 is not descending: $(tr '\n' ' ' < "$TUI_WORK/col")"
	else
		sort -n -c "$TUI_WORK/col" 2>/dev/null || fail "column $2 is not ascending: $(tr '\n' ' ' < "$TUI_WORK/col")"
	fi
}

# tui_quit_restored [RC]: after q (or a signal), the shell is back with exit
# status RC (default 0), cooked mode, no alt screen, no mouse reporting,
# visible cursor
tui_quit_restored() {
	tui_wait "__RC=${1:-0}__" 15
	[ "$(tui_flag alternate_on)" = 0 ] || fail "still on the alternate screen after quit"
	[ "$(tui_flag mouse_any_flag)" = 0 ] || fail "mouse reporting left on after quit"
	[ "$(tui_flag mouse_standard_flag)" = 0 ] || fail "mouse reporting left on after quit"
	[ "$(tui_flag cursor_flag)" = 1 ] || fail "cursor left hidden after quit"
	TM send-keys -t tui "clear; stty -a | tr ' ;' '\\n\\n' | grep -E -x -- '-?(icanon|echo|icrnl|opost)' | tr '\\n' ' '; echo __STTY__" Enter
	tui_wait '__STTY__$' 10
	grep -q -E -- '^icanon echo icrnl opost __STTY__|icanon.*echo' "$TUI_WORK/pane" ||
		fail "terminal not in cooked mode after quit"
	grep -q -E -- '-icanon|-echo |-icrnl|-opost' "$TUI_WORK/pane" &&
		fail "terminal modes not restored after quit"
	return 0
}

# tui_app_pid: pid of the stacktop running in the pane (by its name: the
# shell runs `clear` first, a child of the pane's shell too for a moment)
tui_app_pid() {
	_sh=$(TM display-message -p -t tui '#{pane_pid}')
	_n=50
	while [ "$_n" -gt 0 ]; do
		# the pane's shell runs `clear` first: under load the first child
		# found can still be that one, so look for stacktop by name
		# the shell's children from /proc, not ps: ps reads every
		# process's /proc files, and on a shared host one stuck in the
		# kernel hung it for minutes (tui-live timed out here)
		_p=
		for _c in $(cat /proc/"$_sh"/task/*/children 2>/dev/null); do
			[ "$(cat /proc/"$_c"/comm 2>/dev/null)" = "$(basename "$STACKTOP" | cut -c 1-15)" ] &&
				{ _p=$_c; break; }
		done
		[ -n "$_p" ] && { echo "$_p"; return 0; }
		sleep 0.1
		_n=$((_n - 1))
	done
	fail "stacktop is not running in the pane"
}

# a workload that context-switches (its pid is ended by the cleanup)
start_workload() {
	start_sleeper
	TUI_PIDS="$TUI_PIDS $SLEEPER_PID"
}
