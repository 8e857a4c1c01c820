#!/bin/sh
# The layering rules of doc/design.md, checked on the sources:
#  - curses is used in src/ui/ only;
#  - the core never prints: no stdout/stderr output outside src/ui/ except
#    cli/ (the command line) and output/export.c (writes to the
#    FILE * it is given);
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
rc=0
nonui=$(ls "$top"/src/*/*.[ch] | grep -v "^$top/src/ui/")
[ -n "$nonui" ] || { echo "FAIL: no sources found under $top/src" >&2; exit 1; }
# shellcheck disable=SC2086
if cat $nonui |
	grep -n -E '#[[:space:]]*include[[:space:]]*[<"](n?curses|ncursesw/|term)|\b(initscr|newterm|endwin|wrefresh|mvwprintw|wattron)\b'; then
	echo "FAIL: curses outside ui/" >&2
	rc=1
fi
for f in $nonui; do
	case $f in *.h | */cli/*.c | */output/export.c) continue ;; esac
	if grep -n -E '\b(printf|puts|perror|putchar)\(|\b(stdout|stderr)\b' "$f"; then
		echo "FAIL: ${f#"$top"/} prints (the core reports through log.h or return values)" >&2
		rc=1
	fi
done
[ $rc = 0 ] && echo "ok: layering"
exit $rc
