/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * comm.h - the session's pid -> command name cache.
 *
 * Names come, in this order, from the source's own lookup (a recording's
 * saved cmdlines), /proc/<pid>/comm, the event that first showed the pid
 * (sched_switch's prev_comm: for a task that ended before stacktop asked),
 * and last the kernel's saved_cmdlines, for pids that are gone. A saved_cmdlines line never renames
 * a pid already named, and a line that could be the tail of a name holding a newline is not
 * believed (see comm.c). A pid nobody could name is cached as unknown until the next tick.
 */
#ifndef STACKTOP_COMM_H
#define STACKTOP_COMM_H

#include <stdbool.h>
#include <stdint.h>

#define COMM_NAME_MAX 15 /* a task's comm: TASK_COMM_LEN - 1 bytes */

struct comm_cache;
struct tfs;

/**
 * typedef comm_lookup_fn - a source's own pid -> name lookup
 * @ctx: context given to comm_cache_set_lookup()
 * @pid: pid, > 0
 *
 * Return: the raw name (sanitized by the cache), or NULL when unknown.
 */
typedef const char *(*comm_lookup_fn)(void *ctx, int pid);

/**
 * comm_cache_new() - an empty cache
 * @tfs: tracefs whose saved_cmdlines to read; NULL for a recording (no
 *       kernel to ask)
 * @use_proc: whether /proc/<pid>/comm names the pids (false when the pids
 *            are not the running system's: a simulator, a recording)
 *
 * Return: the cache, or NULL when out of memory.
 */
struct comm_cache *comm_cache_new(struct tfs *tfs, bool use_proc);

/**
 * comm_cache_set_lookup() - ask @fn first for every pid not cached yet
 * @c: cache
 * @fn: lookup, NULL for none
 * @ctx: its context
 */
void comm_cache_set_lookup(struct comm_cache *c, comm_lookup_fn fn, void *ctx);

/**
 * comm_cache_get() - command name of a pid, sanitized
 * @c: cache
 * @pid: pid
 *
 * Return: the name (owned by the cache, valid until the next call on it),
 * "<idle>" for pid 0, "?" when unknown.
 */
const char *comm_cache_get(struct comm_cache *c, int pid);

/**
 * comm_cache_learn() - name pids first seen now, while they still exist
 * @c: cache
 * @pids: pids
 * @comms: the name each pid's event carried (not NUL-terminated beyond
 *         COMM_NAME_MAX bytes), NULL or "" for none; used when /proc no
 *         longer has the pid; @comms itself may be NULL
 * @n: entries in @pids
 *
 * A pid already named takes the name its event carried when that is
 * another (it renamed itself: an exec, prctl(PR_SET_NAME)); one that
 * neither /proc nor its event names is looked up as comm_cache_get() does,
 * and counted when nothing names it (comm_cache_unnamed()).
 */
void comm_cache_learn(struct comm_cache *c, const int32_t *pids, const char *const *comms,
		      unsigned int n);

/**
 * comm_cache_rename() - the name the kernel says @pid took (an exec, a
 *	prctl(PR_SET_NAME): perf's PERF_RECORD_COMM), in place of the one
 *	cached. A pid named once at its exec and renamed after (perf bench
 *	sched pipe: "perf", then "sched-pipe") shows its name now, as /proc
 *	and the events of the every-stack modes name it.
 * @c: cache
 * @pid: thread id
 * @comm: its name (sanitized here), at most COMM_NAME_MAX bytes
 */
void comm_cache_rename(struct comm_cache *c, int pid, const char *comm);

/**
 * comm_cache_tick() - forget the pids nobody could name, re-read
 * saved_cmdlines at the next miss
 * @c: cache
 */
void comm_cache_tick(struct comm_cache *c);

/**
 * comm_cache_unnamed() - lookups that found no name: the pid is shown as "?"
 * @c: cache
 *
 * A pid no source could name stays "?" in the cache until comm_cache_tick(),
 * so it counts once in each interval it is looked up in; comm_cache_learn()
 * looks up the pids their first event did not name.
 *
 * Return: how many since the cache was made.
 */
uint64_t comm_cache_unnamed(const struct comm_cache *c);

/**
 * comm_match() - does a whole command name match a pattern (--comm, and
 * the screen's "=NAME")
 * @pattern: a name, or a glob (*, ?, [...]: fnmatch(3))
 * @comm: the name
 *
 * Return: true when @comm is @pattern, or matches it as a glob.
 */
bool comm_match(const char *pattern, const char *comm);

/**
 * comm_cache_free() - free
 * @c: cache; NULL is a no-op
 */
void comm_cache_free(struct comm_cache *c);

#endif /* STACKTOP_COMM_H */
