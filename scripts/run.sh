#!/bin/sh
# Install what is missing, build, and run stacktop on the live kernel.
# Extra arguments go to stacktop:  scripts/run.sh -e kmem:kmalloc
set -eu
cd "$(dirname "$0")/.."
scripts/deps.sh
[ -f build/build.ninja ] || meson setup build
ninja -C build
SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo
exec $SUDO ./build/stacktop "$@"
