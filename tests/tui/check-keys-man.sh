#!/bin/sh
# tui-keys-man: the KEYS section of stacktop(8), between the lines
# '.\" KEYS-BEGIN' and '.\" KEYS-END', is exactly what the key table
# generates (print-keys --man). To refresh the man page after changing
# src/ui/keys.c:  check-keys-man.sh PRINT_KEYS MAN --update
set -u
PK=$1
MAN=$2

[ -x "$PK" ] || { echo "FAIL: no print-keys at $PK" >&2; exit 1; }
[ -f "$MAN" ] || { echo "FAIL: no man page at $MAN" >&2; exit 1; }
grep -q -x '\.\\" KEYS-BEGIN' "$MAN" && grep -q -x '\.\\" KEYS-END' "$MAN" ||
	{ echo "FAIL: $MAN lacks the KEYS-BEGIN/KEYS-END markers" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$PK" --man > "$tmp/want" || { echo "FAIL: print-keys --man failed" >&2; exit 1; }
awk '/^\.\\" KEYS-END$/ { p = 0 } p { print } /^\.\\" KEYS-BEGIN$/ { p = 1 }' "$MAN" > "$tmp/have"

if [ "${3:-}" = --update ]; then
	awk -v f="$tmp/want" '
		/^\.\\" KEYS-END$/ { while ((getline l < f) > 0) print l; p = 0 }
		!p { print }
		/^\.\\" KEYS-BEGIN$/ { p = 1 }' "$MAN" > "$tmp/man" && cat "$tmp/man" > "$MAN"
	echo "updated $MAN"
	exit 0
fi

if ! diff -u "$tmp/have" "$tmp/want"; then
	echo "FAIL: the KEYS section of $MAN differs from the key table (src/ui/keys.c);" >&2
	echo "      run: $0 $PK $MAN --update" >&2
	exit 1
fi
# and every binding's keys appear in the section
n=$("$PK" | grep -c '^  ')
m=$(grep -c '^\.TP$' "$tmp/have")
[ "$n" = "$m" ] || { echo "FAIL: $n bindings in the table, $m in the man page" >&2; exit 1; }
echo "PASS: $n key bindings in the man page match the table"
