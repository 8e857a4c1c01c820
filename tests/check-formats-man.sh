#!/bin/sh
# formats-man: everything that lists the output formats lists the formats'
# table (src/output/export.c), in its order: the man page's FORMATS entries
# (the tag line of each, the line after .TP, is what `stacktop
# --print-options=formats` prints for it: the name, its suffixes, "one
# profile"), the lines of --help under --format, and the words the bash
# completion offers for --format. A format added to the table without its
# man entry, an entry left for a format that is gone, a suffix or a flag
# the man page does not say, or a different order fails.
#   check-formats-man.sh STACKTOP MAN
set -u
ST=$1
MAN=$2

[ -x "$ST" ] || { echo "FAIL: no stacktop at $ST" >&2; exit 1; }
[ -f "$MAN" ] || { echo "FAIL: no man page at $MAN" >&2; exit 1; }
grep -q -x '\.SH FORMATS' "$MAN" || { echo "FAIL: $MAN has no FORMATS section" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$ST" --print-options=formats > "$tmp/want" ||
	{ echo "FAIL: stacktop --print-options=formats failed" >&2; exit 1; }
[ -s "$tmp/want" ] || { echo "FAIL: the formats' table printed nothing" >&2; exit 1; }
awk '/^\.SH / { p = ($0 == ".SH FORMATS"); next }
	p && tp { print; tp = 0; next }
	p && /^\.TP$/ { tp = 1 }' "$MAN" > "$tmp/have"
if ! diff -u "$tmp/have" "$tmp/want"; then
	echo "FAIL: the FORMATS entries of $MAN (-) are not the formats' table's (+, src/output/export.c):" >&2
	echo "      add, remove or move the man page's entries, or fix their tag lines" >&2
	exit 1
fi

# the names, in the table's order
sed 's/^\.BR \([a-z0-9]*\) .*/\1/' "$tmp/want" > "$tmp/names"
n=$(wc -l < "$tmp/names")

# --help: a line each under --format, in the same order
"$ST" --help | sed -n '/^      --format /,/^  *--[a-z]/p' |
	sed -n 's/^                          \([a-z0-9][a-z0-9]*\)  .*/\1/p' > "$tmp/help"
if ! diff -u "$tmp/help" "$tmp/names"; then
	echo "FAIL: --help's lines under --format (-) are not the formats' table (+)" >&2
	exit 1
fi

# the completion's words for --format
"$ST" --print-options=complete | awk -F '\t' '$1 == "--format" { print $4 }' | tr ' ' '\n' > "$tmp/words"
if ! diff -u "$tmp/words" "$tmp/names"; then
	echo "FAIL: the completion's words for --format (-) are not the formats' table (+)" >&2
	exit 1
fi

# and --format takes each of them (-n 1 on a file that is not there: refused
# for the file, not for the format)
while read -r f; do
	"$ST" --format "$f" -n 1 --map /nonexistent/stack_map > /dev/null 2> "$tmp/err"
	if grep -q "bad --format" "$tmp/err"; then
		echo "FAIL: --format $f is refused: $(cat "$tmp/err")" >&2
		exit 1
	fi
done < "$tmp/names"
echo "PASS: $n formats in the man page, --help and the completion match the formats' table"
