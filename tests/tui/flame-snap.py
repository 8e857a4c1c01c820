#!/usr/bin/env python3
# flame-snap.py OUT: a stacktop snapshot with known counts for the flame
# graph's views (tests/tui/flame-views.sh). Root first:
#   entry_SYSCALL_64 > do_syscall_64 > beta_fn > zeta_leaf          600
#   entry_SYSCALL_64 > do_syscall_64 > alpha_fn > zeta_leaf         300
#   entry_SYSCALL_64 > do_syscall_64 > gamma_fn > omega_leaf         60
#   entry_SYSCALL_64 > do_syscall_64 > many_fn > small_NN    100 x 1
#   entry_SYSCALL_64 > do_syscall_64 > deep_00 > ... > deep_29     200
# (1260 hits). The alpha and beta stacks end in the tracing machinery
# (__traceiter_x < trace_event_raw_event_x at the leaf), as ftrace's do.
# Alphabetical: alpha before beta; left-heavy: beta first. Inverted roots:
# zeta_leaf 900, deep_29 200, omega_leaf 60, small_NN 1 each. The smalls
# are under half a column each at 80 to 160 columns, 6 or more together.
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import snapfix  # noqa: E402


MACH = ["trace_event_raw_event_x", "__traceiter_x"]
stacks = [(["beta_fn", "zeta_leaf"] , 600, True),
          (["alpha_fn", "zeta_leaf"], 300, True),
          (["gamma_fn", "omega_leaf"], 60, False),
          (["deep_%02d" % i for i in range(30)], 200, False)]
stacks += [(["many_fn", "small_%02d" % i], 1, False) for i in range(100)]
names = {}
def addr(name):
    if name not in names:
        names[name] = 0xffffffff81000000 + 0x1000 * (len(names) + 1)
    return names[name]
out = []
for i, (path, n, mach) in enumerate(stacks):
    # leaf first: the machinery, then the path from its leaf up to the root
    frames = (MACH if mach else []) + list(reversed(["entry_SYSCALL_64", "do_syscall_64"] + path))
    out.append(snapfix.stack(i, [addr(f) + 0x10 for f in frames],
                             ["%s+0x10/0x100" % f for f in frames], n))
snapfix.write(sys.argv[1], snapfix.snapshot(out, "flame"))
