// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pidcache.c - see pidcache.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/pidcache.h"

#define PID_BYTES 8 /* the pid, the value aligned after it */

static int32_t *slot_pid(const struct pidcache *c, size_t i)
{
	return (int32_t *)(void *)(c->slots + i * c->stride);
}

static void *slot_val(const struct pidcache *c, size_t i)
{
	return c->slots + i * c->stride + PID_BYTES;
}

int pidcache_init(struct pidcache *c, size_t nslots, size_t val_size)
{
	c->stride = PID_BYTES + ((val_size + 7) & ~(size_t)7);
	c->n = nslots;
	c->slots = calloc(nslots, c->stride);
	return c->slots ? 0 : -ENOMEM;
}

void pidcache_done(struct pidcache *c)
{
	free(c->slots);
	c->slots = NULL;
	c->n = 0;
}

/* the slot of @pid, or with @claim the first free one of its probes */
static size_t pidcache_probe(const struct pidcache *c, int32_t pid, bool claim, bool *found)
{
	size_t home = ((uint32_t)pid * 2654435761u) & (c->n - 1), i = home;
	unsigned int n;

	*found = false;
	for (n = 0; n < PIDCACHE_PROBES; n++, i = (i + 1) & (c->n - 1)) {
		int32_t p = *slot_pid(c, i);

		if (p == pid) {
			*found = true;
			return i;
		}
		if (!p)
			return claim ? i : c->n;
	}
	return claim ? home : c->n;
}

void *pidcache_find(const struct pidcache *c, int32_t pid)
{
	bool found;
	size_t i;

	if (!c->n || pid <= 0)
		return NULL;
	i = pidcache_probe(c, pid, false, &found);
	return found ? slot_val(c, i) : NULL;
}

void *pidcache_add(struct pidcache *c, int32_t pid)
{
	bool found;
	size_t i = pidcache_probe(c, pid, true, &found);

	if (!found) {
		*slot_pid(c, i) = pid;
		memset(slot_val(c, i), 0, c->stride - PID_BYTES);
	}
	return slot_val(c, i);
}

void pidcache_forget(struct pidcache *c, bool (*stale)(const void *val))
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (*slot_pid(c, i) && stale(slot_val(c, i)))
			*slot_pid(c, i) = 0;
}
