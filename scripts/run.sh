#!/bin/sh
# Install what is missing, build, and run stacktop on the live kernel.
# Extra arguments go to stacktop:  scripts/run.sh -e kmem:kmalloc
# As root it does everything itself; as a user, apt-get and stacktop run
# through sudo. Not on a terminal and no arguments: one batch report
# (-b -n 1) instead of reports that never end.
set -eu
cd "$(dirname "$0")/.."
scripts/deps.sh build
[ -f build/build.ninja ] || meson setup build
ninja -C build
if [ $# = 0 ] && ! { [ -t 0 ] && [ -t 1 ]; }; then
	echo "stacktop: not on a terminal: one report (scripts/run.sh -b -n N for more)" >&2
	set -- -b -n 1
fi
if [ "$(id -u)" = 0 ]; then
	exec ./build/stacktop "$@"
elif command -v sudo > /dev/null 2>&1; then
	exec sudo ./build/stacktop "$@"
fi
echo "stacktop: tracing the kernel needs root and there is no sudo: run this as root" >&2
exit 1
