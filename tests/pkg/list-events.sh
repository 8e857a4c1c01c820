#!/bin/sh
# stacktop --list-events and the bash completion, against a tracefs tree made
# here (no root, no kernel): what a script or a user pressing Tab would get.
set -u
STACKTOP=${STACKTOP:?}
SRC=${SRC:?}
. "$SRC/tests/lib/common.sh"

W=$(mktemp -d /tmp/stacktop-listev.XXXXXX)
trap 'rm -rf "$W"' EXIT

# a kernel that can record stacks: options/stacktrace and ftrace/kernel_stack
T=$W/tracefs
mkdir -p "$T/options" "$T/events/ftrace/kernel_stack" "$T/events/sched/sched_switch" \
	"$T/events/sched/sched_wakeup" "$T/events/kmem/kmalloc" "$T/events/odd/gone"
echo 0 > "$T/options/stacktrace"
for e in sched/sched_switch sched/sched_wakeup kmem/kmalloc; do
	echo 0 > "$T/events/$e/enable"
done
# odd:gone is listed but has no enable file; a line with an escape is sanitized
printf 'sched:sched_switch\nsched:sched_wakeup\nkmem:kmalloc\nodd:gone\nodd:e\033[31mvil\nnot-an-event\n' \
	> "$T/available_events"

out=$("$STACKTOP" --list-events --tracefs "$T") || fail "--list-events exited $?"
exp=$(printf 'sched:sched_switch\tyes\nsched:sched_wakeup\tyes\nkmem:kmalloc\tyes\nodd:gone\tno\nodd:e?[31mvil\tno')
[ "$out" = "$exp" ] || fail "--list-events printed:
$out
expected:
$exp"

out=$("$STACKTOP" --tracefs "$T" --list-events 'sched:*wak*') || fail "glob exited $?"
[ "$out" = "$(printf 'sched:sched_wakeup\tyes')" ] || fail "glob sched:*wak* gave '$out'"
out=$("$STACKTOP" --tracefs "$T" --list-events=kmalloc) || fail "--list-events=GLOB exited $?"
[ "$out" = "$(printf 'kmem:kmalloc\tyes')" ] || fail "event-name glob gave '$out'"

# no stacktrace option: nothing can carry stacks
rm "$T/options/stacktrace"
out=$("$STACKTOP" --list-events --tracefs "$T" sched:sched_switch)
[ "$out" = "$(printf 'sched:sched_switch\tno')" ] || fail "without options/stacktrace: '$out'"

# errors: a glob that matches nothing, a directory that is not a tracefs
err=$("$STACKTOP" --list-events --tracefs "$T" nosuch 2>&1 >/dev/null) && fail "no match exited 0"
echo "$err" | grep -q "no event matches 'nosuch'" || fail "no-match message: $err"
err=$("$STACKTOP" --list-events --tracefs "$W/nope" 2>&1 >/dev/null) && fail "missing tracefs exited 0"
echo "$err" | grep -q "cannot open tracefs" || fail "missing tracefs message: $err"
err=$("$STACKTOP" --list-events --tracefs "$T/options" 2>&1 >/dev/null) && fail "not a tracefs exited 0"
echo "$err" | grep -q "no available_events" || fail "not-a-tracefs message: $err"
"$STACKTOP" --help | grep -q -- '--list-events' || fail "--help does not list --list-events"
echo 0 > "$T/options/stacktrace"

# the completion script, as bash calls it: COMP_LINE up to the cursor, and
# COMP_WORDS split at COMP_WORDBREAKS (which holds ':' by default)
complete_line() {
	bash --norc --noprofile -c '
		. "$1/completion/stacktop"
		COMP_LINE=$3 COMP_POINT=${#3}
		read -ra COMP_WORDS <<< "$3"
		COMP_WORDS[0]=$2 COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		[ -n "$4" ] && COMP_WORDBREAKS=$4
		_stacktop
		printf "%s\n" "${COMPREPLY[@]}"' sh "$SRC" "$STACKTOP" "$1" "${2:-}"
}
out=$(complete_line "stacktop --tracefs $T -e sched:sched_sw" ' ')
[ "$out" = sched:sched_switch ] || fail "-e sched:sched_sw completed to '$out'"
# with ':' a word break, bash replaces only what follows it
out=$(complete_line "stacktop --tracefs $T -e sched:sched_sw")
[ "$out" = sched_switch ] || fail "-e sched:sched_sw (':' breaks words) completed to '$out'"
out=$(complete_line "stacktop --tracefs $T --event=sch" ' ')
[ "$out" = --event=sched: ] || fail "--event=sch completed to '$out' (systems first)"
out=$(complete_line "stacktop --tracefs $T -e " ' ' | tr '\n' ' ')
[ "$out" = "kmem: odd: sched: " ] || fail "-e <Tab> offered '$out'"
out=$(complete_line "stacktop --mo")
[ "$out" = --mode ] || fail "--mo completed to '$out'"
out=$(complete_line "stacktop --mode " | tr '\n' ' ')
[ "$out" = "auto stackmap stacks passive " ] || fail "--mode values: '$out'"
out=$(complete_line "stacktop --sort t")
[ "$out" = total ] || fail "--sort t completed to '$out'"
echo "ok"
