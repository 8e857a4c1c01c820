/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ksym_watch.h - what the kernel symbol table (ksym.c) keeps to decide
 * whether a lookup that missed is worth a reload of kallsyms: the ranges
 * the last load named nothing in, and what tells that the kernel's code
 * changed since (a module, a BPF program) without reading kallsyms.
 */
#ifndef STACKTOP_KSYM_WATCH_H
#define STACKTOP_KSYM_WATCH_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#define KSYM_WATCH_PROC "/proc/kallsyms"
#define KSYM_GAPS	64

/* addresses [lo, hi) that no symbol of the last load covers, met by a miss at @addr */
struct ksym_gap {
	uint64_t lo, hi, addr;
};

/**
 * struct ksym_gaps - the ranges that missed after a load
 * @n: entries used in @g
 * @next: the entry the next range replaces once all are used (the oldest)
 * @g: the ranges
 */
struct ksym_gaps {
	unsigned int n;
	unsigned int next;
	struct ksym_gap g[KSYM_GAPS];
};

/**
 * struct ksym_watch - the kernel's code at the last load, as seen without
 *	reading kallsyms (0.1 s of CPU): for /proc/kallsyms, /proc/modules
 *	and the newest BPF program's id; for a file, its inode, size and time
 * @proc: the table is /proc/kallsyms
 * @ok: the baseline was read
 * @modules: FNV-1a of /proc/modules
 * @bpf_ok: BPF program ids can be listed (CAP_SYS_ADMIN)
 * @bpf_id: the newest BPF program's id at the last load
 * @loaded: CLOCK_MONOTONIC ns of the last load
 * @dev: a file's device
 * @ino: its inode
 * @size: its size
 * @mtime: its time
 */
struct ksym_watch {
	bool proc;
	bool ok;
	uint64_t modules;
	bool bpf_ok;
	uint32_t bpf_id;
	uint64_t loaded;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
};

/**
 * ksym_gaps_has() - whether @addr lies in a remembered range
 * @g: ranges
 * @addr: address
 */
bool ksym_gaps_has(const struct ksym_gaps *g, uint64_t addr);

/**
 * ksym_gaps_add() - remember the range [@lo, @hi) a miss at @addr found
 *	no symbol in (nothing when a range holds @addr already)
 * @g: ranges
 * @addr: the address that missed
 * @lo: the end of the symbol below it (0: none)
 * @hi: the start of the symbol above it (UINT64_MAX: none)
 */
void ksym_gaps_add(struct ksym_gaps *g, uint64_t addr, uint64_t lo, uint64_t hi);

/**
 * ksym_watch_mark() - take the baseline after a load of @path
 * @w: watch
 * @path: the table's file
 */
void ksym_watch_mark(struct ksym_watch *w, const char *path);

/**
 * ksym_watch_changed() - whether the kernel's code changed since the
 *	baseline: a module loaded or unloaded, a BPF program loaded (where
 *	the ids cannot be listed: a minute passed), the file replaced
 * @w: watch
 * @path: the table's file
 */
bool ksym_watch_changed(const struct ksym_watch *w, const char *path);

#endif /* STACKTOP_KSYM_WATCH_H */
