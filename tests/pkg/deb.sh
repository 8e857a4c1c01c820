#!/bin/sh
# The Debian package, as a user gets it: debian/control agrees with
# scripts/deps.sh, dpkg-buildpackage builds a .deb from a copy of the tree
# (optimised, no sanitizers, its own build dir), lintian has nothing to say,
# and the installed package runs, has its man page and completion, its
# agent's unit verifies (not enabled), and `dpkg -r` then `-P` leave
# nothing behind. Needs root (dpkg -i); the package is
# removed again whatever happens.
set -u
SRC=${SRC:?}
. "$SRC/tests/lib/common.sh"

# debian/control's Build-Depends is scripts/deps.sh's list (plus debhelper)
want=$(sh "$SRC/scripts/deps.sh" --list debian | tr ' ' '\n' | sort)
have=$(sed -n '/^Build-Depends:/,/^[A-Z]/p' "$SRC/debian/control" | sed '$d' |
	sed 's/^Build-Depends://; s/([^)]*)//g' | tr ',' '\n' | tr -d ' \t' | grep . |
	grep -v '^debhelper-compat$' | sort)
[ "$want" = "$have" ] || fail "Build-Depends and scripts/deps.sh disagree:
deps.sh: $(echo $want)
control: $(echo $have)"

[ "$(id -u)" = 0 ] || skip "installing a package needs root"
for t in dpkg-buildpackage dh lintian fakeroot man; do
	command -v $t > /dev/null || skip "no $t (scripts/deps.sh package installs it)"
done
if dpkg-query -W -f='${Status}' stacktop 2>/dev/null | grep -q 'ok installed'; then
	skip "a stacktop package is already installed here; not touching it"
fi

W=$(mktemp -d /tmp/stacktop-deb.XXXXXX)
INSTALLED=
cleanup() {
	[ -n "$INSTALLED" ] && dpkg -P stacktop > /dev/null 2>&1
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# a copy of the tree (tracked and new files, no build dirs): the package
# build writes obj-*/ and debian/ files there, never in the source tree
mkdir "$W/stacktop"
(cd "$SRC" && { git ls-files -co --exclude-standard 2>/dev/null || find . -path ./build\* -prune -o -type f -print; } |
	tar -cf - -T -) | tar -xf - -C "$W/stacktop" || fail "cannot copy the tree"
(cd "$W/stacktop" && DEB_BUILD_OPTIONS="parallel=$(nproc)" dpkg-buildpackage -us -uc -b) \
	> "$W/build.log" 2>&1 || { tail -40 "$W/build.log"; fail "dpkg-buildpackage failed"; }
deb=$(ls "$W"/stacktop_*.deb) || fail "no .deb built"
echo "built ${deb##*/}"

lintian --fail-on error,warning "$deb" > "$W/lintian.log" 2>&1 ||
	{ cat "$W/lintian.log"; fail "lintian: $(grep -c '^[EW]:' "$W/lintian.log") errors/warnings"; }
grep '^[EW]:' "$W/lintian.log" && fail "lintian reports problems"

INSTALLED=1
dpkg -i "$deb" > "$W/dpkg.log" 2>&1 || { cat "$W/dpkg.log"; fail "dpkg -i failed"; }
files=$(dpkg -L stacktop)

bin=$(command -v stacktop) || fail "stacktop is not in PATH after installing"
[ "$bin" = /usr/sbin/stacktop ] || fail "stacktop installed as $bin, not /usr/sbin/stacktop"
stacktop --version | grep -q '^stacktop [0-9]' || fail "stacktop --version: $(stacktop --version 2>&1)"
man -w stacktop | grep -q '/man8/stacktop\.8' || fail "man -w stacktop: $(man -w stacktop 2>&1)"
comp=/usr/share/bash-completion/completions/stacktop
[ -f "$comp" ] || fail "no bash completion at $comp"

# a batch report from the installed binary on the live kernel
out=$(timeout 60 stacktop -b -n 1 -d 0.5 2> "$W/err") || { cat "$W/err"; fail "installed stacktop -b exited $?"; }
echo "$out" | grep -q '^stacktop .* - mode ' || fail "no report header from the installed binary: $out"
echo "$out" | grep -q '^RANK ' || fail "no table from the installed binary: $out"

# the installed completion, in a non-interactive bash, on the live events
out=$(bash --norc --noprofile -c '
	. "$1"
	line="stacktop -e sched:sched_sw"
	COMP_LINE=$line COMP_POINT=${#line} COMP_WORDBREAKS=" "
	COMP_WORDS=(stacktop -e sched:sched_sw) COMP_CWORD=2
	_stacktop
	printf "%s\n" "${COMPREPLY[@]}"' sh "$comp")
echo "$out" | grep -qx 'sched:sched_switch' ||
	fail "completion of '-e sched:sched_sw' offered: $(echo $out)"
# after --, a command (stacktop -- CMD)
out=$(bash --norc --noprofile -c '
	. "$1"
	line="stacktop -b -- sle"
	COMP_LINE=$line COMP_POINT=${#line} COMP_WORDBREAKS=" "
	COMP_WORDS=(stacktop -b -- sle) COMP_CWORD=3
	_stacktop
	printf "%s\n" "${COMPREPLY[@]}"' sh "$comp")
echo "$out" | grep -qx 'sleep' || fail "completion of '-- sle' offered: $(echo $out)"

# the agent (doc/serve.md): its unit verifies as installed (its binary, its
# man page), its options are a conffile, and it is neither enabled nor started
unit=/lib/systemd/system/stacktop.service
[ -f "$unit" ] || fail "no unit at $unit"
systemd-analyze verify "$unit" > "$W/verify.log" 2>&1 || { cat "$W/verify.log"; fail "systemd-analyze verify $unit"; }
[ -s "$W/verify.log" ] && { cat "$W/verify.log"; fail "systemd-analyze verify has something to say"; }
dpkg-query -W -f='${Conffiles}' stacktop | grep -q '/etc/default/stacktop' ||
	fail "/etc/default/stacktop is not a conffile"
[ ! -e /etc/systemd/system/multi-user.target.wants/stacktop.service ] ||
	fail "installing the package enabled the agent"

dpkg -r stacktop > "$W/dpkg.log" 2>&1 || { cat "$W/dpkg.log"; fail "dpkg -r failed"; }
status=$(dpkg-query -W -f='${Status}' stacktop 2>/dev/null)
case $status in *" installed" | *half-*) fail "after dpkg -r: $status" ;; esac
# the agent's options stay until a purge, as any conffile
dpkg -P stacktop > "$W/dpkg.log" 2>&1 || { cat "$W/dpkg.log"; fail "dpkg -P failed"; }
INSTALLED=
status=$(dpkg-query -W -f='${Status}' stacktop 2>/dev/null)
case $status in *" installed" | *config-files | *half-*) fail "after dpkg -P: $status" ;; esac
for f in $files; do
	[ -d "$f" ] && continue
	[ -e "$f" ] && fail "$f left behind by dpkg -r"
done
[ ! -e /usr/share/doc/stacktop ] || fail "/usr/share/doc/stacktop left behind by dpkg -r"
echo "ok: built, lintian clean, installed, ran, its agent unit verified, removed"
