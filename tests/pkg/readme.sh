#!/bin/sh
# The README's first command, pasted verbatim into a fresh clone, as root on
# a machine without sudo: it must install what is missing, build, and show
# stacktop's report of the live kernel (one batch report: no terminal here).
# A `sudo` that records being called comes first in PATH: as root the
# scripts must not use it.
set -u
SRC=${SRC:?}
. "$SRC/tests/lib/common.sh"

[ "$(id -u)" = 0 ] || skip "the README command runs as root here"
command -v git > /dev/null || skip "no git"
[ -d "$SRC/.git" ] || [ -f "$SRC/.git" ] || skip "$SRC is not a git checkout"

# the first command of the README's first sh block
cmd=$(sed -n '/^```sh$/,/^```$/p' "$SRC/README.md" | grep -v '^```' | grep -v '^#' | grep . | head -n1)
[ -n "$cmd" ] || fail "no command in README.md"
echo "README's first command: $cmd"
case $cmd in *sudo*) fail "the README's first command uses sudo: $cmd" ;; esac

W=$(mktemp -d /tmp/stacktop-readme.XXXXXX)
trap 'rm -rf "$W"' EXIT
trap 'exit 1' INT TERM HUP
mkdir "$W/bin"
cat > "$W/bin/sudo" <<EOS
#!/bin/sh
echo "sudo \$*" >> "$W/sudo-called"
exit 1
EOS
chmod +x "$W/bin/sudo"

git clone -q "$SRC" "$W/stacktop" || fail "git clone failed"
(cd "$W/stacktop" && PATH="$W/bin:$PATH" timeout 900 sh -c "$cmd") \
	< /dev/null > "$W/out" 2> "$W/err"
rc=$?
[ ! -e "$W/sudo-called" ] || fail "run as root, it called: $(cat "$W/sudo-called")"
[ $rc = 0 ] || { tail -30 "$W/err"; fail "'$cmd' exited $rc"; }
grep -q '^stacktop .* - mode ' "$W/out" || { cat "$W/out" "$W/err"; fail "no report header"; }
grep -q '^RANK ' "$W/out" || { cat "$W/out"; fail "no stack table"; }
grep -q 'not on a terminal: one report' "$W/err" || fail "run.sh did not say it prints one report"
echo "ok: '$cmd' in a fresh clone, as root without sudo"
