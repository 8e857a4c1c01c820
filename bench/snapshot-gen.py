#!/usr/bin/env python3
# snapshot-gen.py OUT STACKS [FRAMES] [USER]: a large synthetic JSON snapshot
# (schema version 2) for bench/snapshot-read.sh: STACKS stacks of FRAMES
# kernel frames (symbols shared by many stacks, as real ones are), two
# breakdown records each, and USER user frames on every second stack.
import json
import random
import sys

out, n = sys.argv[1], int(sys.argv[2])
depth = int(sys.argv[3]) if len(sys.argv) > 3 else 24
user = int(sys.argv[4]) if len(sys.argv) > 4 else 0
rnd = random.Random(1)
funcs = ["func_%04d" % i for i in range(4000)]
events = ["sched:sched_switch", "kmem:kmalloc"]
with open(out, "w") as f:
    hits = 0
    f.write('{"schema":"stacktop-snapshot","version":2,"stacktop":"0.1.0","timestamp":1.0,'
            '"time":"1970-01-01T00:00:01.000Z","host":"bench","kernel":"6.18.0",'
            '"source":"/sys/kernel/tracing","iteration":1,"mode":"stacks","interval":1.0,'
            '"events":%s,"traced":"sched:sched_switch","view":{"sort":"hits","ascending":false,'
            '"counts":"delta","event":null,"pid":null,"cpu":null,"filter":null,'
            '"hide_idle":false,"top":0},"stacks":[' % json.dumps(events))
    for i in range(n):
        fr, sy = [], []
        for j in range(depth):
            k = rnd.randrange(len(funcs)) if j < 3 else (i * 7 + j * 13) % len(funcs)
            base = 0xffffffff81000000 + k * 0x1000
            off = (i + j) % 0x200
            fr.append("0x%x" % (base + off))
            sy.append("%s+0x%x/0x400" % (funcs[k], off))
        c = 1 + (i * 2654435761) % 1000
        hits += c
        st = {"key": "%016x" % (i + 1), "total": c, "delta": c // 2, "depth": depth,
              "ids": [i], "more_ids": False, "fallback": False, "mapped": False,
              "merged64": False, "cut": False, "frames": fr, "symbols": sy}
        if user and i % 2:
            st["tgid"] = 1000 + i % 50
            st["user_frames"] = [{"addr": "0x%x" % (0x400000 + (i * 31 + u) % 5000 * 16),
                                  "symbol": "ufunc_%d+0x%x (app)" % ((i + u) % 300, u * 4)}
                                 for u in range(user)]
            st["user_cut"] = False
        st["top"] = {"pid": 100 + i % 200, "comm": "task%d" % (i % 200), "hits": c, "pids": 1}
        st["by"] = [{"event": events[0], "cpu": i % 8, "pid": 100 + i % 200,
                     "comm": "task%d" % (i % 200), "total": c - c // 3, "delta": (c - c // 3) // 2},
                    {"event": events[1], "cpu": (i + 1) % 8, "pid": 300 + i % 100,
                     "comm": "other%d" % (i % 100), "total": c // 3, "delta": (c // 3) // 2}]
        f.write(("," if i else "") + json.dumps(st, separators=(",", ":")))
    f.write('],"hits":%d,"hits_delta":%d,"lost":0,"overrun":0,"dropped":0,"orphans":0,'
            '"bad_pages":0,"fallbacks":0,"unresolved":0}\n' % (hits, hits // 2))
