#!/bin/sh
# The layering rules of doc/design.md ("Layers"), checked on the code:
#  - tests/layering.py: each folder of src/ is a layer (core, sym, kernel,
#    ingest, source, session, output, ui, cli, bottom first); an include
#    names its layer and reaches only its own layer and those below; no
#    call (read from the objects of the build directory, $1) goes from a
#    lower layer to a higher one; no circle of includes or calls between
#    files or modules; no .c file over 700 lines (one concern a file);
#  - curses is used in src/ui/ only;
#  - the core never prints: no stdout/stderr output outside src/ui/ except
#    src/cli/ (the command line) and output/export.c (writes to the
#    FILE * it is given).
#   check-layering.sh [BUILDDIR [--left-out=A.c,B.c]]   (meson passes its
#   build directory, and the files its configuration leaves out on purpose)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
rc=0
command -v python3 > /dev/null || { echo "FAIL: python3 is needed (scripts/deps.sh test)" >&2; exit 1; }
if [ $# -ge 1 ]; then
	python3 "$top/tests/layering.py" "$top/src" "$@" || rc=1
else
	echo "note: no build directory given: calls are not checked" >&2
	python3 "$top/tests/layering.py" "$top/src" || rc=1
fi
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
