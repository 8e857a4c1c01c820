#!/bin/sh
# --serve's /debug/pprof/profile?seconds=2 read by `go tool pprof -top`
# against a batch run's `-o x.pb.gz` of the same load in the same two
# seconds: a pipe ping-pong between two shells (every switch in
# anon_pipe_read), both runs filtered to its two pids: the functions of
# at least 10% of the batch's profile (-top's cum%) are the served one's,
# in the same order, and the served one's over 5% are all in the batch's
# over 2%. The served stacktop has been counting for 5 s before the window
# opens: the profile's total is the window's, not the run's: no more than
# the run counted between a snapshot just before the request and one just
# after, and at least a third of that run's rate times 2 s.
. "$(dirname "$0")/lib.sh"
command -v go > /dev/null || fail "go is not installed (scripts/deps.sh installs golang-go)"
command -v curl > /dev/null || fail "curl is not installed"
export PPROF_TMPDIR="$WORK/pprof" HOME="$WORK"

mkfifo "$WORK/a" "$WORK/b"
# shellcheck disable=SC2016 # the loops' own variables
sh -c 'exec 3<>"$1" 4<>"$2"; while :; do read -r x <&3; echo x >&4; done' - "$WORK/a" "$WORK/b" &
P1=$!
# shellcheck disable=SC2016
sh -c 'exec 3<>"$1" 4<>"$2"; echo x >&3; while :; do read -r x <&4; echo x >&3; done' - "$WORK/a" "$WORK/b" &
P2=$!
EXTRA_PIDS="$P1 $P2"

"$STACKTOP" --serve 127.0.0.1:0 -b -q -d 1 -p "$P1,$P2" > /dev/null 2> "$WORK/err" &
ST_PID=$!
EXTRA_PIDS="$ST_PID $P1 $P2"
wait_for "$WORK/err" "serving http://127.0.0.1:" 100 || { cat "$WORK/err"; fail "stacktop did not say where it serves"; }
PORT=$(sed -n 's|.*serving http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$WORK/err")
sleep 5

# the batch run and the window, side by side; the run's count before and after
curl -s -m 10 -o "$WORK/snap0.json" "http://127.0.0.1:$PORT/snapshot.json?top=1" || fail "no snapshot"
T0=$(ms_now)
"$STACKTOP" -b -n 1 -d 2 -p "$P1,$P2" -o "$WORK/batch.pb.gz" 2> "$WORK/berr" &
B_PID=$!
EXTRA_PIDS="$B_PID $ST_PID $P1 $P2"
timeout 60 go tool pprof -top "http://127.0.0.1:$PORT/debug/pprof/profile?seconds=2" \
	> "$WORK/served.top" 2> "$WORK/served.err" ||
	{ cat "$WORK/served.err"; fail "go tool pprof could not read the served profile"; }
wait "$B_PID" || { cat "$WORK/berr"; fail "the batch run failed"; }
go tool pprof -top "$WORK/batch.pb.gz" > "$WORK/batch.top" 2> "$WORK/batch.err" ||
	{ cat "$WORK/batch.err"; fail "go tool pprof could not read the batch profile"; }
curl -s -m 10 -o "$WORK/snap1.json" "http://127.0.0.1:$PORT/snapshot.json?top=1" || fail "no snapshot"
T1=$(ms_now)

python3 - "$WORK/served.top" "$WORK/batch.top" "$WORK/snap0.json" "$WORK/snap1.json" $((T1 - T0)) << 'PY' || { head -20 "$WORK/served.top" "$WORK/batch.top"; fail "the served profile is not the batch run's"; }
import json, re, sys

def top(path):
    total, funcs = None, []
    for line in open(path):
        m = re.search(r"Total samples = (\d+)", line)
        if m:
            total = int(m.group(1))
        m = re.match(r"\s*(\d+)\s+[\d.]+%\s+[\d.]+%\s+(\d+)\s+([\d.]+)%\s+(.+?)\s*$", line)
        if m:
            funcs.append((m.group(4), float(m.group(3))))
    return total, funcs

st, sf = top(sys.argv[1])
bt, bf = top(sys.argv[2])
h0 = json.load(open(sys.argv[3]))["hits"]
h1 = json.load(open(sys.argv[4]))["hits"]
ms = int(sys.argv[5])
print("window: served %s samples, batch %s; the run %d before, %d after (%d ms later)" %
      (st, bt, h0, h1, ms))
assert st and bt, "no total"
assert st <= h1 - h0, "the window (%d) counts more than the run did around it (%d)" % (st, h1 - h0)
assert st >= (h1 - h0) * 2000.0 / ms / 3, "the window (%d) is not 2 s of the run's rate (%d in %d ms)" % (st, h1 - h0, ms)
assert h1 > 2 * st, "the run so far (%d) is not over twice the window (%d)" % (h1, st)
want = [f for f, c in bf if c >= 10.0]
got = [f for f, c in sf if c >= 5.0]
print("batch top: %s" % want)
print("served top: %s" % got)
# a function near the 5% line may fall either side of it in one of them
core = [f for f, c in bf if c >= 10.0]
assert core and "anon_pipe_read" in core, "the ping-pong is not what the batch run saw: %s" % bf[:10]
assert [f for f in got if f in core] == core, "served %s, batch %s" % (got, core)
assert set(got) <= set(f for f, c in bf if c >= 2.0), "served %s, batch %s" % (got, bf[:15])
PY
kill "$ST_PID"
wait "$ST_PID" || { cat "$WORK/err"; fail "stacktop failed on SIGTERM"; }
no_instance_of "$ST_PID"
echo "PASS: go tool pprof reads the served window as the batch run's profile of the same load"
