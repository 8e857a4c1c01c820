#!/bin/sh
# tui-serve: the screen with --serve, a thousand idle connections open:
# the screen goes on refreshing (its header's counts move, a key is
# answered at once), scrapes are answered within a second and their
# figures follow the screen's refreshes (stacktop_refresh), and q quits
# with the terminal restored and the server gone.
. "$(dirname "$0")/lib.sh"
command -v curl > /dev/null || fail "curl is not installed"

T=$(tfs_root) || skip "no tracefs mounted"
[ -d "$T/instances" ] || skip "tracefs without instances"
start_workload

tui_start 120 40
tui_run --serve 127.0.0.1:0 --mode stacks -d 0.5 -e sched:sched_switch "2>$TUI_WORK/serve.err"
APP=$(tui_app_pid)
tui_wait 'mode stacks' 10
tui_wait '^[-+ ] +1 ' 15
wait_for "$TUI_WORK/serve.err" "serving http://127.0.0.1:" 50 || { tui_capture; fail "no server: $(cat "$TUI_WORK/serve.err")"; }
PORT=$(sed -n 's|.*serving http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$TUI_WORK/serve.err")

say "a thousand idle connections"
python3 - "$PORT" "$APP" > "$TUI_WORK/idle.log" 2>&1 << 'PY' &
import os, resource, socket, sys, time
port, pid = int(sys.argv[1]), int(sys.argv[2])
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
idle = []
for i in range(1000):
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    if i % 2:
        s.sendall(b"GET /metrics HTTP/1.1\r\n")
    idle.append(s)
print("open", flush=True)
time.sleep(9)  # under the server's idle time: all held through the checks
PY
IDLE=$!
TUI_PIDS="$TUI_PIDS $IDLE"
wait_for "$TUI_WORK/idle.log" '^open' 100 || fail "the idle connections: $(cat "$TUI_WORK/idle.log")"
n=$(ls -l "/proc/$APP/fd" 2> /dev/null | grep -c 'socket:')
[ "$n" -ge 1000 ] || fail "stacktop holds $n sockets, not the 1000 idle ones"

say "the screen refreshes and answers keys"
tui_capture | head -3 > "$TUI_WORK/h1"
m1=$(curl -s -m 1 -w '%{time_total}' -o "$TUI_WORK/m1" "http://127.0.0.1:$PORT/metrics") || fail "a scrape failed or took over 1 s"
sleep 2
tui_capture | head -3 > "$TUI_WORK/h2"
m2=$(curl -s -m 1 -w '%{time_total}' -o "$TUI_WORK/m2" "http://127.0.0.1:$PORT/metrics") || fail "a scrape failed or took over 1 s"
cmp -s "$TUI_WORK/h1" "$TUI_WORK/h2" && fail "the screen's header did not change in 2 s: $(cat "$TUI_WORK/h2")"
r1=$(sed -n 's/^stacktop_refresh //p' "$TUI_WORK/m1")
r2=$(sed -n 's/^stacktop_refresh //p' "$TUI_WORK/m2")
echo "scrapes: ${m1}s and ${m2}s, refresh $r1 then $r2, $n sockets held"
[ "$r2" -ge $((r1 + 2)) ] || fail "the screen refreshed $r1 -> $r2 in 2 s at -d 0.5"
tui_keys h
tui_wait 'help - keys' 3
tui_keys q
tui_wait_gone 'help - keys' 3

say "q quits; the server is gone"
tui_keys q
tui_quit_restored 0
curl -s -m 2 -o /dev/null "http://127.0.0.1:$PORT/metrics" && fail "still answering after q"
end_pids "$IDLE"
echo "PASS: the screen and the scrapes go on beside 1000 idle connections"
