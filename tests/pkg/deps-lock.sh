#!/bin/sh
# scripts/deps.sh waits for the dpkg lock (apt's DPkg::Lock::Timeout) when
# another apt holds it, as on a fresh machine whose unattended upgrades run,
# instead of failing at once. Shown with the real apt-get on a private apt
# root (APT_CONFIG: its own dpkg status, lists, lock; nothing of this
# system's is read or changed, and nothing is installed), whose
# lock-frontend a python process holds with fcntl as apt and dpkg do; a
# dpkg-query earlier in PATH says one package (tmux) is missing, and sudo
# runs the command as it is.
set -u
SRC=${SRC:?}
. "$SRC/tests/lib/common.sh"
command -v apt-get > /dev/null || skip "no apt-get (not a Debian system)"
command -v python3 > /dev/null || fail "python3 is not installed"

W=$(mktemp -d /tmp/stacktop-depslock.XXXXXX)
HOLDER=
cleanup() {
	[ -z "$HOLDER" ] || { kill "$HOLDER" 2>/dev/null; wait "$HOLDER" 2>/dev/null; }
	rm -rf "$W"
}
trap cleanup EXIT

R=$W/root
mkdir -p "$R/etc/apt/apt.conf.d" "$R/etc/apt/sources.list.d" "$R/etc/apt/preferences.d" \
	"$R/etc/apt/trusted.gpg.d" "$R/var/lib/apt/lists/partial" \
	"$R/var/cache/apt/archives/partial" "$R/var/lib/dpkg" "$R/var/log/apt"
: > "$R/var/lib/dpkg/status"
: > "$R/etc/apt/sources.list"
cat > "$W/apt.conf" <<CONF
Dir "$R/";
Dir::State::status "$R/var/lib/dpkg/status";
Dir::Etc "$R/etc/apt/";
Dir::Cache "$R/var/cache/apt/";
Dir::Log "$R/var/log/apt/";
CONF
mkdir "$W/bin"
cat > "$W/bin/dpkg-query" <<'Q'
#!/bin/sh
# every package installed but tmux; no LLVM libunwind
for a; do last=$a; done
case $last in
tmux|libunwind-\*-dev) exit 1 ;;
esac
printf 'install ok installed'
Q
printf '#!/bin/sh\nexec "$@"\n' > "$W/bin/sudo"
chmod +x "$W/bin/dpkg-query" "$W/bin/sudo"

# hold_lock SECONDS: the dpkg frontend lock of the private root, held
hold_lock() {
	python3 - "$R/var/lib/dpkg/lock-frontend" "$1" "$W/held" <<'PY' &
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o640)
fcntl.lockf(fd, fcntl.LOCK_EX)
open(sys.argv[3], "w").close()
time.sleep(float(sys.argv[2]))
PY
	HOLDER=$!
	n=0
	while [ ! -e "$W/held" ]; do
		n=$((n + 1))
		[ $n -lt 100 ] || fail "the lock holder did not start"
		sleep 0.05
	done
	rm -f "$W/held"
}

# deps: scripts/deps.sh test, on the private root; its output in $W/out, the
# seconds it took in $took
deps() {
	t0=$(date +%s.%N)
	APT_CONFIG=$W/apt.conf PATH=$W/bin:$PATH APT_LOCK_TIMEOUT=$1 \
		sh "$SRC/scripts/deps.sh" test > "$W/out" 2>&1
	rc=$?
	took=$(echo "$(date +%s.%N) $t0" | awk '{ printf "%.1f", $1 - $2 }')
	cat "$W/out"
	echo "(exit $rc after $took s)"
}

# 1. the lock held for 3 s: deps.sh waits, then apt goes on (and finds no
# tmux in the private root's empty lists: the install fails, as it must)
hold_lock 3
deps 60
wait "$HOLDER"
HOLDER=
grep -q 'installing:.* tmux' "$W/out" || fail "deps.sh did not try to install the missing package"
grep -q 'Could not get lock' "$W/out" && fail "apt gave up on the lock instead of waiting"
grep -q 'Unable to locate package tmux' "$W/out" ||
	fail "apt did not go on once the lock was free"
awk -v t="$took" 'BEGIN { exit !(t >= 2.5) }' || fail "deps.sh did not wait for the lock (${took} s)"

# 2. what the wait buys: without it apt fails at once on the held lock
hold_lock 3
deps 0
grep -q 'Could not get lock' "$W/out" || fail "the control run did not meet the held lock"
awk -v t="$took" 'BEGIN { exit !(t < 2.5) }' || fail "the control run waited (${took} s)"
echo "ok: deps.sh waits for the dpkg lock"
