# SPDX-License-Identifier: GPL-2.0-or-later
# Where the npm test tools are (sourced, POSIX sh, after common.sh; needs
# $SRCDIR): the tree
# tests/tools/package-lock.json pins, which scripts/deps.sh installs once
# into $STACKTOP_TEST_TOOLS (default /usr/local/lib/stacktop/test-tools)
# under the lock file's hash. Tests only read it: none runs npm, so tests
# running at once never write one folder (issue 35: two tests installing
# into one folder at once failed on a fresh machine).

# npm_modules: print the node_modules folder; 1 (and why, on stderr) when
# scripts/deps.sh has not installed this lock file's tree
npm_modules() {
	_base=${STACKTOP_TEST_TOOLS:-/usr/local/lib/stacktop/test-tools}
	_key=$(sha256sum < "$SRCDIR/tests/tools/package-lock.json" | cut -c1-16)
	if [ ! -f "$_base/$_key/.installed" ]; then
		echo "the npm test tools of tests/tools/package-lock.json are not in" \
			"$_base/$_key (scripts/deps.sh test installs them)" >&2
		return 1
	fi
	echo "$_base/$_key/node_modules"
}

# browser_tools: CHROMIUM (Debian's chromium, never a browser puppeteer
# downloads) and MODULES (the node_modules holding puppeteer-core) for a
# test in a headless browser; what is missing is said by $NEED_TOOL (a
# command; default common.sh's skip)
browser_tools() {
	CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
	[ -x "$CHROMIUM" ] || ${NEED_TOOL:-skip} "no $CHROMIUM (Debian's chromium, scripts/deps.sh test)"
	command -v node > /dev/null || ${NEED_TOOL:-skip} "no node (scripts/deps.sh test)"
	MODULES=$(npm_modules) || ${NEED_TOOL:-skip} "no npm test tools (scripts/deps.sh test)"
	[ -f "$MODULES/puppeteer-core/package.json" ] || fail "no puppeteer-core in $MODULES"
}
