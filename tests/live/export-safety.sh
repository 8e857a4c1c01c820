#!/bin/sh
# -o writes safely: never through a symlink, never a partial file, mode 0600,
# a clear error for a read-only or a full directory, no temporary file left.
. "$(dirname "$0")/lib.sh"

SRCDIR=$(cd "$(dirname "$0")/../.." && pwd)
MAP="$SRCDIR/tests/fixtures/export/stack_map"
KSYMS="$SRCDIR/tests/fixtures/ksym/kallsyms"
MNT=
cleanup_mounts() {
	for m in $MNT; do umount "$m" 2>/dev/null; done
	cleanup
}
trap cleanup_mounts EXIT

# run, expect exit 1 and a message
refused() {
	pat=$1
	shift
	"$STACKTOP" --map "$MAP" --kallsyms "$KSYMS" "$@" > "$WORK/o" 2> "$WORK/e" &&
		fail "'$*' succeeded"
	cat "$WORK/e"
	grep -q -- "$pat" "$WORK/e" || fail "'$*' did not say '$pat'"
}
no_temp() {
	ls -A "$1" | grep -q '\.tmp$' && { ls -la "$1"; fail "temporary file left in $1"; }
	return 0
}

mkdir "$WORK/d"
# a symlink target is refused; what it points to is unchanged
echo precious > "$WORK/victim"
ln -s "$WORK/victim" "$WORK/d/link.json"
refused "symbolic link" -o "$WORK/d/link.json"
[ "$(cat "$WORK/victim")" = precious ] || fail "the symlink's target was written"
[ -L "$WORK/d/link.json" ] || fail "the symlink was replaced"
# a dangling one too
ln -s "$WORK/nowhere" "$WORK/d/dangling.json"
refused "symbolic link" -o "$WORK/d/dangling.json"
[ ! -e "$WORK/nowhere" ] || fail "a dangling symlink was followed"
# a directory, a missing directory
mkdir "$WORK/d/dir.json"
refused "is a directory" -o "$WORK/d/dir.json"
refused "no such directory" -o "$WORK/nodir/x.json"
no_temp "$WORK/d"
# the kernel's file systems: the true reason (it said "no such directory
# /proc/self"), and nothing written
refused "cannot write /proc/self/mem: it is on procfs, a kernel file system" -o /proc/self/mem
refused "it is on tracefs, a kernel file system" -o "$T/stacktop-out.json"
[ ! -e "$T/stacktop-out.json" ] || fail "a file appeared in tracefs"

# an existing file is replaced whole, by a new 0600 file
echo old > "$WORK/d/out.json"
chmod 644 "$WORK/d/out.json"
"$STACKTOP" --map "$MAP" --kallsyms "$KSYMS" -o "$WORK/d/out.json" || fail "overwrite failed"
grep -q '"schema":"stacktop-snapshot"' "$WORK/d/out.json" || fail "not replaced"
[ "$(stat -c %a "$WORK/d/out.json")" = 600 ] || fail "not mode 0600"
no_temp "$WORK/d"

# a read-only file system
mkdir "$WORK/ro"
mount -t tmpfs -o ro,size=64k tmpfs "$WORK/ro" || fail "cannot mount a read-only tmpfs"
MNT="$WORK/ro"
refused "read-only file system" -o "$WORK/ro/out.pb.gz"
[ ! -e "$WORK/ro/out.pb.gz" ] || fail "a file appeared on the read-only mount"

# a full one: the old file stays whole, nothing partial appears
mkdir "$WORK/full"
mount -t tmpfs -o size=64k tmpfs "$WORK/full" || fail "cannot mount a small tmpfs"
MNT="$WORK/full $MNT"
echo '{"old":true}' > "$WORK/full/out.json"
dd if=/dev/zero of="$WORK/full/fill" bs=4k 2>/dev/null
refused "no space left" -o "$WORK/full/out.json"
[ "$(cat "$WORK/full/out.json")" = '{"old":true}' ] || fail "the old file was damaged"
refused "no space left" -o "$WORK/full/new.folded"
[ ! -e "$WORK/full/new.folded" ] || fail "a partial file was left"
no_temp "$WORK/full"
echo "ok: -o refuses symlinks, read-only and full directories, leaves no partial file"
