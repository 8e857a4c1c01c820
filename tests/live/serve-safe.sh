#!/bin/sh
# --serve, safe by default:
#  - a non-loopback address without TLS and credentials is refused, before
#    tracefs is touched (strace: no file of it opened);
#    credentials a group or others can read are refused;
#  - with TLS and a bearer token (or basic credentials) on 0.0.0.0: plain
#    HTTP gets nothing, no or a wrong token 401, the token 200;
#  - GET and HEAD only, no file behind a path (/etc/passwd, ../);
#  - a thousand idle connections (half of them a request line left
#    unfinished) and a slow client (a snapshot read a few bytes at a time)
#    do not delay a scrape beyond a second, and add no losses: a second
#    stacktop without --serve counts the same ping-pong side by side;
#    after the idle time (10 s) the server has closed them.
. "$(dirname "$0")/lib.sh"
command -v curl > /dev/null || fail "curl is not installed"
command -v openssl > /dev/null || fail "openssl is not installed"

# ---- refused addresses -------------------------------------------------
command -v strace > /dev/null || fail "strace is not installed (scripts/deps.sh installs it)"
for args in "--serve 0.0.0.0:0" "--serve [::]:0" "--serve 0.0.0.0:0 --serve-auth bearer:$WORK/tok"; do
	printf 'secret-token-1234\n' > "$WORK/tok"
	chmod 600 "$WORK/tok"
	# what it opens, followed into every process: not tracefs (other runs
	# change it meanwhile on a shared machine: their files are not compared)
	# shellcheck disable=SC2086 # the words of $args
	strace -f -qq -e trace=%file -o "$WORK/strace" "$STACKTOP" $args -b -n 1 -d 0.2 \
		> /dev/null 2> "$WORK/refused" && fail "$args: served"
	grep -q "not a loopback address" "$WORK/refused" || { cat "$WORK/refused"; fail "$args: no clear refusal"; }
	! grep -E "$T|/run/stacktop" "$WORK/strace" | grep -v -- '-1 E' | head -3 | grep . ||
		fail "$args: a refused --serve opened tracefs or its journal"
done
grep -q "serves another machine only over TLS" "$WORK/refused" || fail "the refusal does not say what is needed"
chmod 644 "$WORK/tok"
"$STACKTOP" --serve 127.0.0.1:0 --serve-auth "bearer:$WORK/tok" -b -n 1 -d 0.2 > /dev/null 2> "$WORK/refused" &&
	fail "a token others can read was taken"
grep -q "only its owner" "$WORK/refused" || { cat "$WORK/refused"; fail "no clear refusal of the token's mode"; }
chmod 600 "$WORK/tok"
ln -s "$WORK/tok" "$WORK/tok.link"
"$STACKTOP" --serve 127.0.0.1:0 --serve-auth "bearer:$WORK/tok.link" -b -n 1 -d 0.2 > /dev/null 2> "$WORK/refused" &&
	fail "a token behind a symlink was taken"

# ---- TLS and credentials on every address ------------------------------
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=localhost \
	-keyout "$WORK/key.pem" -out "$WORK/cert.pem" > "$WORK/openssl.log" 2>&1 || { cat "$WORK/openssl.log"; fail "openssl"; }
chmod 600 "$WORK/key.pem"
"$STACKTOP" --serve 0.0.0.0:0 --serve-cert "$WORK/cert.pem" --serve-key "$WORK/key.pem" \
	--serve-auth "bearer:$WORK/tok" -b -q -d 1 > /dev/null 2> "$WORK/tls.err" &
TLS_PID=$!
EXTRA_PIDS="$TLS_PID"
wait_for "$WORK/tls.err" "serving https://0.0.0.0:" 100 || { cat "$WORK/tls.err"; fail "no TLS server"; }
TPORT=$(sed -n 's|.*serving https://0.0.0.0:\([0-9]*\)/.*|\1|p' "$WORK/tls.err")
# the status code (000: no answer)
code() { curl -s -o /dev/null -m 5 -w '%{http_code}' "$@"; }
c=$(code "http://127.0.0.1:$TPORT/metrics")
[ "$c" = 000 ] || [ "$c" = 400 ] || fail "plain HTTP on the TLS port answered $c"
[ "$(code -k "https://127.0.0.1:$TPORT/metrics")" = 401 ] || fail "no token: not 401"
[ "$(code -k -H 'Authorization: Bearer secret-token-1235' "https://127.0.0.1:$TPORT/metrics")" = 401 ] ||
	fail "a wrong token: not 401"
[ "$(code -k -H 'Authorization: Bearer secret-token-1234' "https://127.0.0.1:$TPORT/metrics")" = 200 ] ||
	fail "the token: not 200"
[ "$(code --cacert "$WORK/cert.pem" -H 'Authorization: bearer secret-token-1234' "https://localhost:$TPORT/metrics")" = 200 ] ||
	fail "the token, the certificate verified: not 200"
end_pids "$TLS_PID"
printf 'prom:pa55word\n' > "$WORK/basic"
chmod 600 "$WORK/basic"
"$STACKTOP" --serve 0.0.0.0:0 --serve-cert "$WORK/cert.pem" --serve-key "$WORK/key.pem" \
	--serve-auth "basic:$WORK/basic" -b -q -d 1 > /dev/null 2> "$WORK/basic.err" &
TLS_PID=$!
EXTRA_PIDS="$TLS_PID"
# a file of its own: the bearer server's tls.err still names the port it
# served on until the shell of '&' truncates it, and that may come later
wait_for "$WORK/basic.err" "serving https://0.0.0.0:" 100 || { cat "$WORK/basic.err"; fail "no TLS server"; }
TPORT=$(sed -n 's|.*serving https://0.0.0.0:\([0-9]*\)/.*|\1|p' "$WORK/basic.err")
c=$(code -k -u prom:pa55word "https://127.0.0.1:$TPORT/metrics")
[ "$c" = 200 ] || fail "basic: $c, not 200"
c=$(code -k -u prom:pa55wore "https://127.0.0.1:$TPORT/metrics")
[ "$c" = 401 ] || fail "basic, wrong: $c, not 401"
end_pids "$TLS_PID"

# ---- methods and paths; idle connections and a slow client -------------
mkfifo "$WORK/a" "$WORK/b"
# shellcheck disable=SC2016
sh -c 'exec 3<>"$1" 4<>"$2"; while :; do read -r x <&3; echo x >&4; done' - "$WORK/a" "$WORK/b" &
P1=$!
# shellcheck disable=SC2016
sh -c 'exec 3<>"$1" 4<>"$2"; echo x >&3; while :; do read -r x <&4; echo x >&3; done' - "$WORK/a" "$WORK/b" &
P2=$!
EXTRA_PIDS="$P1 $P2"
# each with 16 MiB a CPU (4 by default): a few seconds of the ping-pong,
# so that what a reader starved by the other users of two shared cores
# loses by chance is small beside what serving could cost it
"$STACKTOP" --serve 127.0.0.1:0 -b -d 1 --buffer-kb 16384 --format json -p "$P1,$P2" \
	> "$WORK/served.json" 2> "$WORK/err" &
ST_PID=$!
"$STACKTOP" -b -d 1 --buffer-kb 16384 --format json -p "$P1,$P2" > "$WORK/plain.json" \
	2> "$WORK/plain.err" &
PL_PID=$!
EXTRA_PIDS="$ST_PID $PL_PID $P1 $P2"
wait_for "$WORK/err" "serving http://127.0.0.1:" 100 || { cat "$WORK/err"; fail "stacktop did not say where it serves"; }
PORT=$(sed -n 's|.*serving http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$WORK/err")
U="http://127.0.0.1:$PORT"
[ "$(code -X POST "$U/metrics")" = 405 ] || fail "POST: not 405"
[ "$(code -X DELETE "$U/metrics")" = 405 ] || fail "DELETE: not 405"
[ "$(code -I "$U/metrics")" = 200 ] || fail "HEAD: not 200"
[ "$(code --path-as-is "$U/../../etc/passwd")" = 404 ] || fail "../etc/passwd: not 404"
[ "$(code "$U/etc/passwd")" = 404 ] || fail "/etc/passwd: not 404"
[ "$(code "$U/debug/pprof/profile?seconds=9999")" = 400 ] || fail "seconds=9999: not 400"
[ "$(code -H "X-Big: $(head -c 20000 /dev/zero | tr '\0' a)" "$U/metrics")" != 200 ] ||
	fail "a 20 KB header was taken"
sleep 2
python3 - "$PORT" "$ST_PID" << 'PY' || fail "idle connections or a slow client held a scrape back"
import os, resource, socket, sys, time, http.client
port, pid = int(sys.argv[1]), int(sys.argv[2])
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
idle = []
for i in range(1000):
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    if i % 2:
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")  # never finished
    idle.append(s)
slow = socket.socket()
slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
slow.connect(("127.0.0.1", port))
slow.sendall(b"GET /snapshot.json HTTP/1.1\r\nHost: x\r\n\r\n")
slow.settimeout(5)
slow.recv(64)
time.sleep(0.5)
socks = sum(1 for fd in os.listdir("/proc/%d/fd" % pid)
            if os.readlink("/proc/%d/fd/%s" % (pid, fd)).startswith("socket:"))
print("stacktop holds %d sockets" % socks)
assert socks >= 1000, "the idle connections were not taken (%d sockets)" % socks
worst = 0.0
for i in range(10):
    t0 = time.monotonic()
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    c.request("GET", "/metrics")
    r = c.getresponse()
    body = r.read()
    dt = time.monotonic() - t0
    worst = max(worst, dt)
    assert r.status == 200 and b"stacktop_events_total" in body, r.status
    c.close()
    slow.recv(16)  # the slow client reads on, a little
    time.sleep(0.2)
print("10 scrapes beside 1000 idle connections and a slow client: the slowest %.3f s" % worst)
assert worst < 1.0, "a scrape took %.3f s" % worst
# the idle ones are closed after the server's idle time (10 s)
time.sleep(11)
closed = 0
for s in idle:
    s.settimeout(0.5)
    try:
        if s.recv(1) == b"":
            closed += 1
    except (ConnectionResetError, BrokenPipeError):
        closed += 1
    except socket.timeout:
        pass
print("%d of 1000 idle connections closed by the server after 11 s" % closed)
assert closed == 1000, closed
PY
sleep 1.5
end_pids "$ST_PID" "$PL_PID"
python3 - "$WORK/served.json" "$WORK/plain.json" << 'PY' || fail "the served run lost more than the plain one"
import json, sys
def last(p):
    d = None
    for line in open(p):
        if line.strip():
            d = json.loads(line)
    return d
s, p = last(sys.argv[1]), last(sys.argv[2])
# events: lost is overrun + dropped
ls, lp = s["lost"], p["lost"]
print("losses: served %d of %d events, without --serve %d of %d" % (ls, s["hits"], lp, p["hits"]))
assert s["hits"] > 10000, s["hits"]
# two readers on two shared cores lose by chance (in one run the one
# without --serve lost 64257, the served one 1560): what is held is that
# the served one loses no more than twice the other and 1% of its events
assert ls <= 2 * lp + s["hits"] // 100, (ls, lp)
PY
echo "PASS: refused without TLS and credentials; bounded; scrapes unhindered by idle and slow clients"
