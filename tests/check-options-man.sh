#!/bin/sh
# options-man: the OPTIONS section of stacktop(8) lists exactly the options
# of the option table (src/cli/options_*.c), in its order: the tag line of
# each entry (the line after .TP) is what `stacktop --print-options=man`
# prints for it. An option added to the table without its man entry, an
# entry left for an option that is gone, or a different order fails. The
# entries' text is the man page's own; only the list is the table's.
#   check-options-man.sh STACKTOP MAN
set -u
ST=$1
MAN=$2

[ -x "$ST" ] || { echo "FAIL: no stacktop at $ST" >&2; exit 1; }
[ -f "$MAN" ] || { echo "FAIL: no man page at $MAN" >&2; exit 1; }
grep -q -x '\.SH OPTIONS' "$MAN" || { echo "FAIL: $MAN has no OPTIONS section" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$ST" --print-options=man > "$tmp/want" || { echo "FAIL: stacktop --print-options=man failed" >&2; exit 1; }
[ -s "$tmp/want" ] || { echo "FAIL: the option table printed nothing" >&2; exit 1; }
# the line after each .TP between .SH OPTIONS and the next .SH
awk '/^\.SH / { p = ($0 == ".SH OPTIONS"); next }
	p && tp { print; tp = 0; next }
	p && /^\.TP$/ { tp = 1 }' "$MAN" > "$tmp/have"

if ! diff -u "$tmp/have" "$tmp/want"; then
	echo "FAIL: the OPTIONS entries of $MAN (-) are not the option table's (+, src/cli/options_*.c):" >&2
	echo "      add, remove or move the man page's entries, or fix the table's .man lines" >&2
	exit 1
fi
# and --help lists the same options (every table entry with help text)
n=$(wc -l < "$tmp/want")
m=$("$ST" --help | grep -c -E '^  (-[a-zA-Z], |    )--[a-z]')
[ "$n" = "$m" ] || { echo "FAIL: $n options in the table's man lines, $m in --help" >&2; exit 1; }
echo "PASS: $n options in the man page match the option table"
