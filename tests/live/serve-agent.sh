#!/bin/sh
# The agent the Debian package installs: debian/stacktop.service passes
# `systemd-analyze verify` (its ExecStart pointed at the build's stacktop),
# and its command line, expanded as systemd expands it with the
# variables of debian/stacktop.default (the listening address made
# 127.0.0.1:0, a free port), runs as the unit runs it: no new privileges,
# no capability beyond the unit's CapabilityBoundingSet. It serves
# /metrics (on-CPU stacks at the tick: events counted, stacks labelled),
# then stops on SIGTERM with exit status 0 and tracefs as it found it.
. "$(dirname "$0")/lib.sh"
SRC=${SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
UNIT=$SRC/debian/stacktop.service
CONF=$SRC/debian/stacktop.default
[ -f "$UNIT" ] && [ -f "$CONF" ] || fail "no $UNIT or $CONF"
command -v systemd-analyze > /dev/null || fail "systemd-analyze is not installed"
command -v setpriv > /dev/null || fail "setpriv is not installed (util-linux)"
command -v curl > /dev/null || fail "curl is not installed"

mkdir "$WORK/unit"
sed "s|^ExecStart=/usr/sbin/stacktop |ExecStart=$STACKTOP |" "$UNIT" > "$WORK/unit/stacktop.service"
systemd-analyze verify --man=no "$WORK/unit/stacktop.service" > "$WORK/verify" 2>&1 ||
	{ cat "$WORK/verify"; fail "systemd-analyze verify refuses the unit"; }
[ -s "$WORK/verify" ] && { cat "$WORK/verify"; fail "systemd-analyze verify has something to say"; }

# the command line as systemd makes it: ${VAR} one word, $VAR split at blanks
sed 's|^STACKTOP_LISTEN=.*|STACKTOP_LISTEN=127.0.0.1:0|' "$CONF" > "$WORK/default"
python3 - "$WORK/unit/stacktop.service" "$WORK/default" > "$WORK/cmdline" << 'PY' || fail "cannot expand the unit's ExecStart"
import re, shlex, sys
unit = open(sys.argv[1]).read()
env = {}
for line in open(sys.argv[2]):
    line = line.strip()
    if not line or line.startswith("#"):
        continue
    k, v = line.split("=", 1)
    env[k] = " ".join(shlex.split(v))  # quotes as systemd's EnvironmentFile takes them
exec_start = re.search(r"^ExecStart=(.*)$", unit, re.M).group(1)
caps = re.search(r"^CapabilityBoundingSet=(.*)$", unit, re.M).group(1).split()
assert re.search(r"^NoNewPrivileges=yes$", unit, re.M)
assert re.search(r"^EnvironmentFile=-/etc/default/stacktop$", unit, re.M)
words = []
for w in exec_start.split():
    m = re.fullmatch(r"\$\{(\w+)\}", w)
    if m:
        words.append(env[m.group(1)])
        continue
    m = re.fullmatch(r"\$(\w+)", w)
    if m:
        words.extend(env[m.group(1)].split())
        continue
    words.append(w)
print(",".join("-" + "all" for _ in [0]) + "," + ",".join("+" + c.lower()[4:] for c in caps))
print("\n".join(words))
PY
BOUND=$(head -1 "$WORK/cmdline")
tail -n +2 "$WORK/cmdline" > "$WORK/argv"
echo "the agent: $(tr '\n' ' ' < "$WORK/argv") (bounding set $BOUND)"
grep -qx -- '--serve' "$WORK/argv" && grep -qx -- '-q' "$WORK/argv" || fail "the unit does not run --serve -q"

snapshot "$WORK/before"
# shellcheck disable=SC2046 # one argument a line, none with blanks
setpriv --no-new-privs --inh-caps=-all --ambient-caps=-all --bounding-set="$BOUND" \
	$(cat "$WORK/argv") > "$WORK/out" 2> "$WORK/err" &
AG=$!
EXTRA_PIDS=$AG
wait_for "$WORK/err" "serving http://127.0.0.1:" 150 || { cat "$WORK/err"; fail "the agent does not serve"; }
PORT=$(sed -n 's|.*serving http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$WORK/err")
# its capabilities are the unit's (CapBnd of /proc/PID/status)
grep -q '^NoNewPrivs:[[:space:]]*1' "/proc/$AG/status" || fail "the agent may gain privileges"
sleep 6 # a refresh (-d 5) past the first
curl -s -m 5 "http://127.0.0.1:$PORT/metrics" > "$WORK/metrics" || fail "no /metrics"
python3 - "$WORK/metrics" << 'PY' || { head -30 "$WORK/metrics"; fail "the agent's /metrics is not what it collects"; }
import re, sys
m = {}
for line in open(sys.argv[1]):
    if line.startswith("#") or not line.strip():
        continue
    name, v = line.rsplit(" ", 1)
    m[name] = float(v)
refresh = m["stacktop_refresh"]
events = m["stacktop_events_total"]
stacks = [k for k in m if k.startswith("stacktop_stack_hits_total{")]
ev = [k for k in m if k.startswith("stacktop_event_hits_total{")]
print("agent: refresh %d, %d events, %d stack series, %s" % (refresh, events, len(stacks), ev))
assert refresh >= 1, refresh
assert events > 0 and len(stacks) > 0, (events, len(stacks))
assert len(stacks) <= 50, len(stacks)
assert any("timer:hrtimer_expire_entry" in k for k in ev), ev
assert m["stacktop_lost_total"] == 0 or m["stacktop_lost_total"] < events / 100
for k in stacks:
    assert re.search(r'stack="[0-9a-f]{16}",leaf="[^"]+",path="[^"]+"', k), k
PY
kill -TERM "$AG"
wait "$AG"
st=$?
[ $st = 0 ] || { cat "$WORK/err"; fail "the agent exited $st on SIGTERM"; }
EXTRA_PIDS=
no_instance_of "$AG"
snapshot "$WORK/after"
diff "$WORK/before" "$WORK/after" || fail "the agent left tracefs changed"
echo "PASS: the unit verifies; its agent serves, and SIGTERM restores tracefs"
