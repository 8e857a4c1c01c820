#!/bin/sh
# Install what stacktop needs, from Debian's packages. Only what is missing
# is installed; safe to run again. Not root: through sudo, or a clear message.
#   scripts/deps.sh [build|test|package|vm|npm|all]...   (default: all)
#   scripts/deps.sh --list GROUP|debian            print a group's packages
#                                                  (debian: the Build-Depends)
set -eu

# what building stacktop needs; debian/control's Build-Depends is this list
# (plus debhelper), tests/pkg/deb.sh checks that both agree
BUILD="meson ninja-build pkg-config libtracefs-dev libtraceevent-dev
libtracecmd-dev libncurses-dev bash-completion zlib1g-dev libunwind-dev liblzma-dev libiberty-dev
libmicrohttpd-dev libdw-dev"
# the compiler (build-essential, implied in a Debian package build)
CC="gcc libc6-dev"
# the test tiers: unit (cmocka; clang-format-14: the pinned version
# tests/check-format.py checks with), sim (FUSE), tui (tmux), fuzz (clang), live
TEST="libcmocka-dev libfuse3-dev fuse3 tmux clang libclang-rt-14-dev clang-format-14 python3
util-linux libcap2-bin trace-cmd git golang-go strace xz-utils binutils chromium bpftrace
linux-perf prometheus curl openssl systemd"
# linux-perf: perf stat and perf record count the same events in the same
# run as the peers stacktop's numbers are checked against (tui-loss,
# tui-sample, the truth tier)
# prometheus: the real server that scrapes --serve's /metrics in
# tests/live/serve-prom.sh (its service is not started: the test runs its own);
# curl, openssl (a certificate for TLS) and systemd (systemd-analyze verify
# of the agent's unit) for the other --serve tests
# bpftrace: its hist() is what the off-CPU histograms are compared with
# (tests/live/weights.sh)
# chromium: the browser the flame graph page (--format html) is opened in,
# headless, by tests/live/flame.sh (puppeteer-core from npm drives it)
# node and npm run the readers of the speedscope and JSON-schema outputs
# (speedscope's importer, ajv-cli) and puppeteer-core: npm packages pinned
# by tests/tools/package-lock.json, installed below (group npm, part of test
# and all) into one fixed folder the tests only read; a nodejs from
# elsewhere (NodeSource) ships its own npm, so look for the commands
command -v node > /dev/null 2>&1 || TEST="$TEST nodejs"
command -v npm > /dev/null 2>&1 || TEST="$TEST npm"
NODE=
command -v node > /dev/null 2>&1 || NODE="$NODE nodejs"
command -v npm > /dev/null 2>&1 || NODE="$NODE npm"
# building and checking the Debian package (suite package)
PACKAGE="debhelper dpkg-dev fakeroot lintian man-db"
# the vm tier (suite vm): the shared rfc-kernel/build.sh builds Debian's 6.12
# with the stackmap series and boots it with qemu (it installs these itself
# too; here so that a machine is ready before the first run), the guest gets
# busybox, tmux, trace-cmd and terminfo copied in
VM="qemu-system-x86 busybox-static linux-source-6.12 flex bison bc libelf-dev libssl-dev
cpio xz-utils build-essential time patch python3 file ncurses-base"

group() {
	case $1 in
	build) echo $BUILD $CC ;;
	test) echo $BUILD $CC $TEST $VM ;;
	package) echo $BUILD $PACKAGE ;;
	vm) echo $VM ;;
	npm) echo $NODE ;;
	all) echo $BUILD $CC $TEST $PACKAGE $VM ;;
	*) echo "scripts/deps.sh: unknown group '$1' (build, test, package, vm, npm, all)" >&2; exit 2 ;;
	esac
}

if [ "${1:-}" = --list ]; then
	case ${2:-} in
	debian) echo $BUILD ;;
	*) group "${2:-all}" ;;
	esac
	exit 0
fi

[ $# -gt 0 ] || set -- all
pkgs=
npm_tools=
for g; do
	pkgs="$pkgs $(group "$g")"
	case $g in test | npm | all) npm_tools=1 ;; esac
done

missing=
for p in $pkgs; do
	case " $missing " in *" $p "*) continue ;; esac
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
# libunwind-dev cannot sit next to LLVM's libunwind-N-dev (see below): when
# one is installed already, do not try (and do not run apt for nothing)
case " $missing " in *" libunwind-dev "*)
	llvm=$(dpkg-query -W -f='${Package} ${Status}\n' 'libunwind-*-dev' 2>/dev/null |
		awk '$NF == "installed" && $1 != "libunwind-dev" { printf "%s ", $1 }')
	if [ -n "$llvm" ]; then
		echo "stacktop: not installing libunwind-dev: it conflicts with ${llvm}(LLVM's libunwind, from libc++);" \
			"stacktop builds without user stacks in dwarf mode (meson option user_unwind)" >&2
		missing=$(echo " $missing " | sed 's/ libunwind-dev / /')
	fi ;;
esac
# the vm tier's kernel: the shared rfc-kernel/ port was made on Debian's
# linux-source-6.12 6.12.117 and its check step wants that release; the
# security archive has moved on (6.12.118 on 2026-12-05) and keeps the older
# versions: install the one the port was made on (build.sh's tree stamp sees
# the tarball change and rebuilds)
KSRC_VERSION=6.12.117-1~deb12u1
ksrc=
case " $pkgs " in *" linux-source-6.12 "*)
	[ "$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null)" = "$KSRC_VERSION" ] ||
		ksrc=1
	missing=$(echo " $missing " | sed 's/ linux-source-6.12 / /') ;;
esac

# The npm test tools: the exact tree tests/tools/package-lock.json pins
# (npm ci: no version is resolved here), installed into
# $STACKTOP_TEST_TOOLS/KEY, KEY the lock file's hash (tests/lib/npm-tools.sh
# computes the same), so that clones and worktrees of one version share it
# and another version gets its own. The tree is built in a private folder
# and renamed into place when complete: two runs at once cannot mix their
# files, and a test sees the whole tree or none. Tests never install.
TOOLS_SRC=$(cd "$(dirname "$0")/../tests/tools" && pwd)
TOOLS_BASE=${STACKTOP_TEST_TOOLS:-/usr/local/lib/stacktop/test-tools}
TOOLS_DIR=$TOOLS_BASE/$(sha256sum < "$TOOLS_SRC/package-lock.json" | cut -c1-16)
[ -z "$npm_tools" ] || [ -f "$TOOLS_DIR/.installed" ] || npm_tools=missing

SUDO=
need_root() {
	[ "$(id -u)" != 0 ] || return 0
	if ! command -v sudo > /dev/null 2>&1; then
		echo "stacktop: installing packages needs root and there is no sudo: run this as root" >&2
		exit 1
	fi
	SUDO=sudo
}

install_npm_tools() {
	[ "$npm_tools" = missing ] || return 0
	for c in node npm; do
		command -v $c > /dev/null 2>&1 ||
			{ echo "stacktop: no $c: cannot install the npm test tools" >&2; exit 1; }
	done
	echo "stacktop: installing the npm test tools into $TOOLS_DIR" >&2
	need_root
	$SUDO mkdir -p "$TOOLS_BASE"
	tmp=$($SUDO mktemp -d "$TOOLS_BASE/.install.XXXXXX")
	$SUDO cp "$TOOLS_SRC/package.json" "$TOOLS_SRC/package-lock.json" "$tmp/"
	# no package's install script runs (none of these needs one); puppeteer
	# never downloads a browser (the tests drive Debian's chromium)
	if ! $SUDO env PUPPETEER_SKIP_DOWNLOAD=1 npm ci --prefix "$tmp" --ignore-scripts \
		--no-audit --no-fund --update-notifier=false --loglevel=error >&2; then
		$SUDO rm -rf "$tmp"
		echo "stacktop: npm ci of tests/tools/package-lock.json failed" >&2
		exit 1
	fi
	$SUDO touch "$tmp/.installed"
	$SUDO chmod -R a+rX "$tmp"
	# another run may have finished first: its tree is the same one
	$SUDO mv -T "$tmp" "$TOOLS_DIR" 2> /dev/null || $SUDO rm -rf "$tmp"
	[ -f "$TOOLS_DIR/.installed" ] ||
		{ echo "stacktop: the npm test tools are not in $TOOLS_DIR" >&2; exit 1; }
}

if [ -z "$(echo $missing)" ] && [ -z "$ksrc" ]; then
	install_npm_tools
	exit 0
fi

echo "stacktop: installing:$missing" >&2
need_root
export DEBIAN_FRONTEND=noninteractive
# a fresh machine's unattended upgrades (or another build) may hold the dpkg
# lock for minutes: wait for it rather than give up at once (apt >= 1.9)
APT_LOCK="-o DPkg::Lock::Timeout=${APT_LOCK_TIMEOUT:-900}"
# shellcheck disable=SC2086
$SUDO apt-get $APT_LOCK update -qq

# libunwind-dev (the dwarf user stacks) conflicts with LLVM's
# libunwind-N-dev, which libc++-N-dev pulls in: it is installed on its own,
# after the rest, and only when apt would remove nothing for it; otherwise
# stacktop builds without the dwarf mode (meson option user_unwind) and
# this says why.
unwind=
case " $missing " in *" libunwind-dev "*)
	unwind=1
	missing=$(echo " $missing " | sed 's/ libunwind-dev / /') ;;
esac
if [ -n "$(echo $missing)" ]; then
	# shellcheck disable=SC2086
	$SUDO apt-get $APT_LOCK install -y -qq --no-install-recommends $missing
fi
if [ -n "$ksrc" ] &&
	! $SUDO apt-get $APT_LOCK install -y -qq --no-install-recommends --allow-downgrades \
		"linux-source-6.12=$KSRC_VERSION"; then
	echo "stacktop: linux-source-6.12 $KSRC_VERSION is not in the archive any more: installing" \
		"the newest; the shared rfc-kernel/build.sh check wants 6.12.117 and will say so" >&2
	$SUDO apt-get $APT_LOCK install -y -qq --no-install-recommends linux-source-6.12
fi
if [ -n "$unwind" ]; then
	remv=$(apt-get install -s --no-install-recommends libunwind-dev 2>/dev/null |
		sed -n 's/^Remv \([^ ]*\).*/\1/p' | tr '\n' ' ')
	if [ -n "$remv" ]; then
		echo "stacktop: not installing libunwind-dev: it conflicts with ${remv}(LLVM's libunwind, from libc++);" \
			"stacktop builds without user stacks in dwarf mode (meson option user_unwind)" >&2
	elif ! $SUDO apt-get $APT_LOCK install -y -qq --no-install-recommends libunwind-dev; then
		echo "stacktop: libunwind-dev could not be installed;" \
			"stacktop builds without user stacks in dwarf mode (meson option user_unwind)" >&2
	fi
fi
install_npm_tools
