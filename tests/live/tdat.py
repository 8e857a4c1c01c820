#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tdat.py - damaged trace.dat files for tests/live/damaged.sh, made from a
real recording (version 7, as trace-cmd 3 writes it; little-endian).

  tdat.py corpus IN OUTDIR [data]  truncated and bit-flipped copies of IN
                                (data: only flips in the per-CPU data)
  tdat.py badformat IN OUT      kernel_stack's common_pid moved past any record
                                (IN must be uncompressed: trace-cmd convert
                                --compression none)
  tdat.py timejump IN OUT       a page of CPU data dated 13 days later
                                (IN uncompressed)
"""
import os
import random
import struct
import sys


def sections(d):
    """(buffer name, [(cpu, offset, size)]) of every BUFFER option"""
    comp = d.index(b'\0', 12 + 6) + 1          # compression name
    comp = d.index(b'\0', comp) + 1            # compression version
    nxt = struct.unpack_from('<Q', d, comp)[0]
    bufs = []
    while nxt:
        p = nxt
        size = struct.unpack_from('<Q', d, p + 8)[0]
        q, end, nxt = p + 16, p + 16 + size, 0
        while q < end:
            oid, osz = struct.unpack_from('<HI', d, q)
            data = d[q + 6:q + 6 + osz]
            if oid == 0:
                nxt = struct.unpack_from('<Q', data)[0]
                break
            if oid == 3:
                i = data.index(b'\0', 8) + 1
                name = data[8:i - 1]
                i = data.index(b'\0', i) + 1
                ncpu = struct.unpack_from('<I', data, i + 4)[0]
                i += 8
                cpus = []
                for _ in range(ncpu):
                    cpus.append(struct.unpack_from('<IQQ', data, i))
                    i += 20
                bufs.append((name, cpus))
            q += 6 + osz
    return bufs


def corpus(src, out, which='all'):
    d = open(src, 'rb').read()
    n = len(d)
    rnd = random.Random(7)
    cases = {}
    pos = []
    if which == 'all':
        # every cut inside the header, a few further on
        for cut in list(range(0, 48, 3)) + [n * k // 6 for k in range(1, 6)] + [n - 1]:
            cases['cut%d' % cut] = d[:cut]
        pos = list(range(0, 64, 4)) + [rnd.randrange(n) for _ in range(6)]
    for _, cpus in sections(d):
        for _, off, size in cpus:
            pos += [off + rnd.randrange(max(size, 1)) for _ in range(4)]
            pos += [off + rnd.randrange(64) for _ in range(3)]   # first block
    for i, q in enumerate(pos):
        if q >= n:
            continue
        e = bytearray(d)
        e[q] ^= 1 << rnd.randrange(8)
        cases['flip%d-%d' % (i, q)] = bytes(e)
    os.makedirs(out, exist_ok=True)
    for k, v in cases.items():
        with open(os.path.join(out, k + '.dat'), 'wb') as f:
            f.write(v)
    print(len(cases))


def badformat(src, out):
    d = bytearray(open(src, 'rb').read())
    i = d.index(b'name: kernel_stack\n')
    old = b'\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n'
    new = b'\tfield:int common_pid;offset:9000;size:4;signed:1;\n'
    assert len(old) == len(new)
    j = d.index(old, i)
    assert j - i < 400
    d[j:j + len(old)] = new
    open(out, 'wb').write(d)


def timejump(src, out):
    d = bytearray(open(src, 'rb').read())
    for _, cpus in sections(bytes(d)):
        for _, off, size in cpus:
            if size >= 3 * 4096:
                # the second page's timestamp, 2^50 ns (13 days) later
                ts = struct.unpack_from('<Q', d, off + 4096)[0]
                struct.pack_into('<Q', d, off + 4096, ts | (1 << 50))
                open(out, 'wb').write(d)
                return
    sys.exit('no CPU has three pages of data')


if __name__ == '__main__':
    {'corpus': corpus, 'badformat': badformat, 'timejump': timejump}[sys.argv[1]](*sys.argv[2:])
