# SPDX-License-Identifier: GPL-2.0-or-later
"""benchlib.py - what the benchmarks in bench/ measure the same way (their
shell scripts put bench/ on PYTHONPATH)"""
import os


def cpu_of(pid):
    """the CPU seconds (user + system) process @pid has used, 0 once gone"""
    try:
        f = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
        return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")
    except OSError:
        return 0.0
