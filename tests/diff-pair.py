#!/usr/bin/env python3
# diff-pair.py BEFORE AFTER: write a constructed pair of stacktop snapshots
# with known shares, for --diff in batch (tests/live/diff.sh, checked
# against the JSON Schema) and on the screen (tests/tui/diff.sh).
#   BEFORE: A 50, B 30, C 20 (of 100); AFTER: A 40, B 60, D 100 (of 200)
#   shares: A 50 -> 20 (-30), B 30 -> 30 (0), C 20 -> 0 (-20, GONE),
#   D 0 -> 50 (+50, NEW)
# AFTER's addresses are moved (KASLR): stacks match by their symbols.
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import snapfix  # noqa: E402

snapfix.write_pair(sys.argv[1], sys.argv[2], {"A": 50, "B": 30, "C": 20},
                   {"A": 40, "B": 60, "D": 100})
