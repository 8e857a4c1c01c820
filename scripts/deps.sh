#!/bin/sh
# Install what stacktop needs to build and test, from Debian's packages.
# Only what is missing is installed; safe to run again.
set -eu

PKGS="gcc libc6-dev meson ninja-build pkg-config
libtracefs-dev libtraceevent-dev libtracecmd-dev libncurses-dev libcmocka-dev
libfuse3-dev fuse3 tmux clang libclang-rt-14-dev python3 util-linux trace-cmd"

missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

echo "stacktop: installing:$missing" >&2
SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
