# Readers of the export formats (sourced after lib.sh): go tool pprof from
# Debian's golang-go; speedscope (its own importer, from its npm package)
# and ajv-cli from npm, which scripts/deps.sh installs once
# (tests/lib/npm-tools.sh says where; a test never runs npm). go's build
# cache goes to $EXPORT_TOOLS, under the build directory.
# A missing tool skips the test, and fails it under CI=true.

need_tool() {
	if [ "${CI:-}" = true ]; then
		fail "$1 (scripts/deps.sh installs it)"
	fi
	skip "$1"
}

EXPORT_TOOLS=${EXPORT_TOOLS:-/tmp/stacktop-export-tools}
. "$(dirname "$0")/../lib/npm-tools.sh"

# speedscope and ajv-cli, as scripts/deps.sh installed them
npm_tools() {
	command -v node > /dev/null || need_tool "node is not installed"
	NODE_MODULES=$(npm_modules) || need_tool "no npm test tools"
	AJV="$NODE_MODULES/.bin/ajv"
	SS_SCHEMA="$NODE_MODULES/speedscope/dist/release/file-format-schema.json"
	SS_BUNDLE=$(ls "$NODE_MODULES"/speedscope/dist/release/speedscope-*.js | head -1)
	[ -x "$AJV" ] || fail "no ajv in $NODE_MODULES"
	[ -f "$SS_BUNDLE" ] || fail "no speedscope bundle in the npm package"
}

go_tool() {
	command -v go > /dev/null || need_tool "go is not installed (Debian's golang-go)"
	# go wants a writable cache; keep it out of the user's home
	export GOCACHE="$EXPORT_TOOLS/gocache" GOPATH="$EXPORT_TOOLS/gopath"
	mkdir -p "$GOCACHE"
}

SRCDIR=$(cd "$(dirname "$0")/../.." && pwd)
SCHEMA="$SRCDIR/doc/stacktop-snapshot.schema.json"

# validate JSON snapshots (one object per line) against the published schema
validate_snapshot() {
	i=0
	while IFS= read -r line; do
		i=$((i + 1))
		printf '%s\n' "$line" > "$WORK/snap.$i.json"
		"$AJV" validate --spec=draft2020 -s "$SCHEMA" -d "$WORK/snap.$i.json" \
			> "$WORK/ajv.log" 2>&1 || { cat "$WORK/ajv.log"; fail "$1 line $i does not match the schema"; }
	done < "$1"
	[ "$i" -gt 0 ] || fail "$1 is empty"
}

# speedscope's importer: prints {profiles:[{name,total,selfByFrame}]}
speedscope_import() {
	node "$SRCDIR/tests/live/speedscope-import.js" "$SS_BUNDLE" "$1"
}

# A real browser for the flame graph page (--format html): Debian's chromium
# (scripts/deps.sh installs it), driven by puppeteer-core (installed like
# the tools above), pointed at /usr/bin/chromium: it never downloads a
# browser of its own.
# (browser_tools of tests/lib/npm-tools.sh, a missing tool said by need_tool)
NEED_TOOL=need_tool

# flame_check PAGE.html EXPECT.json NAME [svg]: the page (or the svg image)
# in chromium (flame-browser.js)
flame_check() {
	mkdir -p "$WORK/$3"
	node "$SRCDIR/tests/live/flame-browser.js" "$MODULES" "$CHROMIUM" "${4:-check}" "$1" "$2" \
		"$WORK/$3" > "$WORK/$3.out" 2> "$WORK/$3.err" ||
		{ cat "$WORK/$3.err"; fail "$3: the page in chromium"; }
	echo "$3: $(cat "$WORK/$3.out")"
}
