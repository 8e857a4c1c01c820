# Readers of the export formats (sourced after lib.sh): go tool pprof from
# Debian's golang-go; speedscope (its own importer, from its npm package)
# and ajv-cli from npm, installed once into a cache directory
# ($EXPORT_TOOLS, under the build directory) and reused by later runs.
# A missing tool skips the test, and fails it under CI=true.

need_tool() {
	if [ "${CI:-}" = true ]; then
		fail "$1 (scripts/deps.sh installs it)"
	fi
	skip "$1"
}

SPEEDSCOPE_VERSION=1.25.0
AJV_CLI_VERSION=5.0.0
EXPORT_TOOLS=${EXPORT_TOOLS:-/tmp/stacktop-export-tools}

# npm packages into $EXPORT_TOOLS (network on the first run only)
npm_tools() {
	command -v node > /dev/null || need_tool "node is not installed"
	if [ ! -x "$EXPORT_TOOLS/node_modules/.bin/ajv" ] ||
	   [ ! -f "$EXPORT_TOOLS/node_modules/speedscope/package.json" ] ||
	   ! grep -q "\"version\": \"$SPEEDSCOPE_VERSION\"" \
		"$EXPORT_TOOLS/node_modules/speedscope/package.json"; then
		command -v npm > /dev/null || need_tool "npm is not installed"
		mkdir -p "$EXPORT_TOOLS"
		npm install --prefix "$EXPORT_TOOLS" --no-audit --no-fund --loglevel=error \
			"speedscope@$SPEEDSCOPE_VERSION" "ajv-cli@$AJV_CLI_VERSION" \
			> "$WORK/npm.log" 2>&1 ||
			{ cat "$WORK/npm.log"; need_tool "npm install speedscope ajv-cli failed"; }
	fi
	AJV="$EXPORT_TOOLS/node_modules/.bin/ajv"
	SS_SCHEMA="$EXPORT_TOOLS/node_modules/speedscope/dist/release/file-format-schema.json"
	SS_BUNDLE=$(ls "$EXPORT_TOOLS"/node_modules/speedscope/dist/release/speedscope-*.js | head -1)
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
# (scripts/deps.sh installs it), driven by puppeteer-core from npm, installed
# like the tools above. puppeteer-core is pointed at /usr/bin/chromium and
# never downloads a browser of its own.
PUPPETEER_VERSION=24.43.1
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
browser_tools() {
	[ -x "$CHROMIUM" ] || need_tool "chromium is not installed (Debian's chromium)"
	command -v node > /dev/null || need_tool "node is not installed"
	if [ ! -f "$EXPORT_TOOLS/browser/node_modules/puppeteer-core/package.json" ] ||
	   ! grep -q "\"version\": \"$PUPPETEER_VERSION\"" \
		"$EXPORT_TOOLS/browser/node_modules/puppeteer-core/package.json"; then
		command -v npm > /dev/null || need_tool "npm is not installed"
		mkdir -p "$EXPORT_TOOLS/browser"
		PUPPETEER_SKIP_DOWNLOAD=1 npm install --prefix "$EXPORT_TOOLS/browser" --no-audit \
			--no-fund --loglevel=error "puppeteer-core@$PUPPETEER_VERSION" \
			> "$WORK/npm-browser.log" 2>&1 ||
			{ cat "$WORK/npm-browser.log"; need_tool "npm install puppeteer-core failed"; }
	fi
	BROWSER_MODULES="$EXPORT_TOOLS/browser/node_modules"
}

# flame_check PAGE.html EXPECT.json NAME [svg]: the page (or the svg image)
# in chromium (flame-browser.js)
flame_check() {
	mkdir -p "$WORK/$3"
	node "$SRCDIR/tests/live/flame-browser.js" "$BROWSER_MODULES" "$CHROMIUM" "${4:-check}" "$1" "$2" \
		"$WORK/$3" > "$WORK/$3.out" 2> "$WORK/$3.err" ||
		{ cat "$WORK/$3.err"; fail "$3: the page in chromium"; }
	echo "$3: $(cat "$WORK/$3.out")"
}
