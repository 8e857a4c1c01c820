#!/bin/sh
# The layering rules of doc/design.md, checked on the sources:
#  - curses is used in ui/ only (src/ and include/ never mention it);
#  - the core never prints: no stdout/stderr output in src/ except main.c
#    (the command line) and export.c (writes to the FILE * it is given).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
rc=0
if cat "$top"/src/*.c "$top"/include/*.h |
	grep -n -E '#[[:space:]]*include[[:space:]]*[<"](n?curses|ncursesw/|term)|\b(initscr|newterm|endwin|wrefresh|mvwprintw|wattron)\b'; then
	echo "FAIL: curses outside ui/" >&2
	rc=1
fi
for f in "$top"/src/*.c; do
	case ${f##*/} in main.c | export.c) continue ;; esac
	if grep -n -E '\b(printf|puts|perror|putchar)\(|\b(stdout|stderr)\b' "$f"; then
		echo "FAIL: ${f##*/} prints (the core reports through log.h or return values)" >&2
		rc=1
	fi
done
[ $rc = 0 ] && echo "ok: layering"
exit $rc
