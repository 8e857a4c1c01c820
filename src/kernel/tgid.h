/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tgid.h - which process a thread belongs to: the session's tid -> tgid
 * cache, for `-p` (a process: every thread of it).
 *
 * Events carry the thread id (common_pid). A tid seen for the first time is
 * looked up in /proc/<tid>/status (Tgid:), and when the thread is already
 * gone, in the kernel's saved_tgids (filled while options/record-tgid is on;
 * the session turns it on with -p). A tid nobody could place is cached as
 * unknown until the next tick. A tid reused by another process after the
 * first lookup keeps its first tgid (pids wrap slowly; the cache is dropped
 * at a reset).
 */
#ifndef STACKTOP_TGID_H
#define STACKTOP_TGID_H

#include <stdbool.h>

struct tgid_cache;
struct tfs;

/**
 * tgid_cache_new() - an empty cache
 * @tfs: tracefs whose saved_tgids to read, NULL for none
 * @use_proc: whether /proc describes the traced tids (not for a simulator
 *            or a recording)
 *
 * Return: the cache, or NULL when out of memory.
 */
struct tgid_cache *tgid_cache_new(struct tfs *tfs, bool use_proc);

/**
 * tgid_cache_get() - the process of a thread
 * @c: cache
 * @tid: thread id (> 0)
 *
 * Return: the tgid, or -1 when unknown.
 */
int tgid_cache_get(struct tgid_cache *c, int tid);

/**
 * tgid_cache_tick() - forget the tids nobody could place; saved_tgids is
 * read again at the next miss
 * @c: cache
 */
void tgid_cache_tick(struct tgid_cache *c);

/**
 * tgid_cache_free() - free; NULL is a no-op
 * @c: cache
 */
void tgid_cache_free(struct tgid_cache *c);

/**
 * tgid_of_proc() - a running thread's process, from /proc/<tid>/status
 * @tid: thread id
 * @ret: receives the tgid
 *
 * Return: 0, -ENOENT when no such thread exists, -errno.
 */
int tgid_of_proc(int tid, int *ret);

/**
 * tgid_threads() - the threads a process has now, from /proc/<tgid>/task
 * @tgid: process id
 * @ret: receives a malloc()ed array of tids (free() it)
 * @ret_n: entries in @ret
 *
 * Return: 0, -ENOENT when the process is gone, -errno.
 */
int tgid_threads(int tgid, int **ret, int *ret_n);

#endif /* STACKTOP_TGID_H */
