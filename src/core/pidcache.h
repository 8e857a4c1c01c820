/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pidcache.h - a fixed-size cache keyed by pid, with a value of the
 * caller's type per pid (kernel/comm.c's names, kernel/tgid.c's thread
 * groups). A cache, not a record: it never grows; a pid that finds no
 * free slot within PIDCACHE_PROBES steps of its home takes the home slot,
 * forgetting whoever was there (asked again when shown again). So a
 * machine that runs through millions of pids costs a fixed amount of
 * memory, and a lookup a few probes at most.
 */
#ifndef STACKTOP_PIDCACHE_H
#define STACKTOP_PIDCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PIDCACHE_PROBES 16

/**
 * struct pidcache - the cache; pidcache_init() it before use
 * @slots: @n slots of @stride bytes: the pid (int32_t, 0: empty) then the value
 * @n: slots, a power of two
 * @stride: bytes per slot
 */
struct pidcache {
	unsigned char *slots;
	size_t n;
	size_t stride;
};

/**
 * pidcache_init() - an empty cache
 * @c: cache
 * @nslots: slots, a power of two
 * @val_size: bytes of the value kept per pid
 *
 * Return: 0 or -ENOMEM.
 */
int pidcache_init(struct pidcache *c, size_t nslots, size_t val_size);

/**
 * pidcache_done() - free the slots
 * @c: cache (may be zeroed, never initialised)
 */
void pidcache_done(struct pidcache *c);

/**
 * pidcache_find() - the value cached for @pid
 * @c: cache
 * @pid: pid, > 0
 *
 * Return: the value (valid until the next pidcache_add() or
 * pidcache_forget()), NULL when @pid is not cached.
 */
void *pidcache_find(const struct pidcache *c, int32_t pid);

/**
 * pidcache_add() - the value of @pid, taking a slot when it has none
 * @c: cache
 * @pid: pid, > 0
 *
 * A new slot's value is zeroed; it may be the one of a pid forgotten for
 * this one.
 *
 * Return: the value (valid as for pidcache_find()).
 */
void *pidcache_add(struct pidcache *c, int32_t pid);

/**
 * pidcache_forget() - free the slots whose value @stale says so
 * @c: cache
 * @stale: called with each cached value; true forgets its pid
 */
void pidcache_forget(struct pidcache *c, bool (*stale)(const void *val));

#endif /* STACKTOP_PIDCACHE_H */
