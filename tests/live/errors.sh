#!/bin/sh
# Bad input gets a clear error, a non-zero exit, and changes nothing.
. "$(dirname "$0")/lib.sh"

snapshot "$WORK/before"

expect_fail() {
	code=$1 pat=$2
	shift 2
	"$@" > "$WORK/out" 2> "$WORK/err"
	rc=$?
	[ "$rc" = "$code" ] || { cat "$WORK/err"; fail "'$*' exited $rc, expected $code"; }
	grep -q -- "$pat" "$WORK/err" || { cat "$WORK/err"; fail "'$*' did not say '$pat'"; }
}

expect_fail 1 "unknown event 'nosuch:event'" "$STACKTOP" -b -n 1 -e nosuch:event
expect_fail 1 "unknown event 'sched:nosuch\*'" "$STACKTOP" -b -n 1 -e 'sched:nosuch*'
# a typo gets the closest names
expect_fail 1 "unknown event 'sched:sched_swich': did you mean sched:sched_switch?" \
	"$STACKTOP" -b -n 1 -e sched:sched_swich
expect_fail 1 "unknown event 'sched_swtich': did you mean sched:sched_switch?" \
	"$STACKTOP" -b -n 1 -e sched_swtich
expect_fail 1 "cannot open tracefs at /nonexistent" "$STACKTOP" -b -n 1 --tracefs /nonexistent
expect_fail 1 "does not look like tracefs" "$STACKTOP" -b -n 1 --tracefs "$WORK"
expect_fail 1 "needs a kernel with the ftrace stackmap series" "$STACKTOP" -b -n 1 --mode stackmap
expect_fail 2 "bad delay" "$STACKTOP" -b -d abc
expect_fail 2 "bad --mode" "$STACKTOP" -b --mode fast
expect_fail 2 "bad CPU list" "$STACKTOP" -b -C 3-1
expect_fail 2 "unrecognized option" "$STACKTOP" --bogus

# not root: a clear message, nothing touched
if command -v setpriv > /dev/null; then
	expect_fail 1 "needs root" setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$STACKTOP" -b -n 1
fi

snapshot "$WORK/after"
diff -u "$WORK/before" "$WORK/after" || fail "a failed start changed tracefs"
ls "$T/instances" | grep -q '^stacktop\.' && {
	for i in "$T"/instances/stacktop.*; do
		p=${i##*.}
		kill -0 "$p" 2>/dev/null || fail "failed start left $i"
	done
}
"$STACKTOP" --help | grep -q -- '--tracefs DIR' || fail "--help lacks --tracefs"
"$STACKTOP" --version | grep -q '^stacktop [0-9]' || fail "--version"
echo "ok: errors are clear and change nothing"
