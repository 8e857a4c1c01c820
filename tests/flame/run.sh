#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The flame page's modules (src/output/flame/*.js) without a browser, in the
# unit suite: each parses (node --check), tsc checks their JSDoc types
# (tsconfig.json; typescript is one of the npm test tools scripts/deps.sh
# installs), and node's own test runner runs tests/flame/*.test.js over
# the known workloads, made into pages by $STACKTOP. Seconds; no root, no
# chromium (tests/flame-views.sh and flame-diff.sh keep what only a
# browser shows).
set -eu
: "${STACKTOP:?}" "${SRCDIR:?}"
. "$SRCDIR/tests/lib/common.sh"
command -v node > /dev/null || skip "no node (scripts/deps.sh test)"
flame=$SRCDIR/src/output/flame
# each module parses (at once: a node start each)
bad=$(for f in "$flame"/*.js; do
	{ node --check "$f" > /dev/null 2>&1 || echo "$f"; } &
done; wait)
[ -z "$bad" ] || { for f in $bad; do node --check "$f" || true; done; fail "do not parse: $bad"; }
. "$SRCDIR/tests/lib/npm-tools.sh"
MODULES=$(npm_modules) || skip "no npm test tools (scripts/deps.sh test)"
node "$MODULES/typescript/bin/tsc" -p "$SRCDIR/tests/flame/tsconfig.json" ||
	fail "tsc: the flame page's modules (above)"
exec node --test "$SRCDIR/tests/flame/"
