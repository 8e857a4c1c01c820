#!/bin/sh
# Install what is missing, build with warnings as errors and ASan/UBSan, and
# run every test tier: unit, sim, live, tui, fuzz, package. Needs root (live tests
# trace the real kernel, the simulator mounts FUSE). Under CI=true a skipped
# test counts as a failure: CI machines have everything the tests need.
# Not root: it runs itself again through sudo (keeping CI and BUILD_DIR).
set -eu
cd "$(dirname "$0")/.."
if [ "$(id -u)" != 0 ]; then
	if command -v sudo > /dev/null 2>&1; then
		exec sudo env CI="${CI:-}" BUILD_DIR="${BUILD_DIR:-build-test}" sh scripts/test.sh "$@"
	fi
	echo "stacktop: the tests need root (live tracing, FUSE) and there is no sudo: run this as root" >&2
	exit 1
fi
scripts/deps.sh all

B=${BUILD_DIR:-build-test}
if [ -f "$B/build.ninja" ]; then
	meson setup --reconfigure "$B" --native-file build-dev.ini > /dev/null
else
	meson setup "$B" --native-file build-dev.ini
fi
ninja -C "$B"

# ASan: the fatal-signal restore path is ours to test, leaks are reported
export ASAN_OPTIONS=${ASAN_OPTIONS:-allow_user_segv_handler=1:handle_segv=0:handle_abort=0:detect_leaks=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$(pwd)/tests/lsan.supp:print_suppressions=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

rc=0
meson test -C "$B" --print-errorlogs --no-rebuild \
	--suite unit --suite sim --suite live --suite tui --suite fuzz --suite package || rc=$?

python3 - "$B/meson-logs/testlog.json" "${CI:-}" <<'PY' || rc=1
import json, sys
res = {}
for line in open(sys.argv[1]):
    t = json.loads(line)
    res[t["result"]] = res.get(t["result"], 0) + 1
    if t["result"] not in ("OK", "EXPECTEDFAIL"):
        print("  %-8s %s" % (t["result"], t["name"]))
ok = res.get("OK", 0) + res.get("EXPECTEDFAIL", 0)
skipped = res.get("SKIP", 0)
failed = sum(v for k, v in res.items() if k not in ("OK", "EXPECTEDFAIL", "SKIP"))
if sys.argv[2] == "true" and skipped:
    print("CI has root, tracefs, /dev/fuse and tmux: a skipped test is a failure here")
    failed += skipped
print("tests: %d passed, %d failed, %d skipped" % (ok, failed, skipped))
sys.exit(1 if failed else 0)
PY
exit $rc
