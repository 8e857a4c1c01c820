// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * usym.c - see usym.h. The symbolizer's state and what its other files
 * share: the small open-addressing tables tokens, processes and files are
 * looked up through, the growth of its arrays, its memory and its bound,
 * the cache of resolved names (bounded: past a quarter of the share every
 * cached name is dropped and resolved again when shown). It calls none of
 * them; usym_priv.h lists them in their order.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "core/mix64.h"
#include "sym/usym_priv.h"

#define USYM_NAMES_MAX (16u << 20) /* bytes of cached names */
#define USYM_FDS_MAX   256         /* mapped files kept open (and a quarter of RLIMIT_NOFILE) */

int u64map_grow(struct u64map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 256, i;
	uint64_t *k = malloc(cap * sizeof(*k));
	uint32_t *v = malloc(cap * sizeof(*v));

	if (!k || !v) {
		free(k);
		free(v);
		return -ENOMEM;
	}
	memset(v, 0xff, cap * sizeof(*v));
	for (i = 0; i < m->cap; i++) {
		size_t j;

		if (m->vals[i] == UINT32_MAX)
			continue;
		for (j = mix64(m->keys[i]) & (cap - 1); v[j] != UINT32_MAX; j = (j + 1) & (cap - 1))
			;
		k[j] = m->keys[i];
		v[j] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = k;
	m->vals = v;
	m->cap = cap;
	return 0;
}

void u64map_free(struct u64map *m)
{
	free(m->keys);
	free(m->vals);
}

/* the slot of @key (exact key match), or of the empty slot where it goes */
static size_t u64map_slot(const struct u64map *m, uint64_t key)
{
	size_t j;

	for (j = mix64(key) & (m->cap - 1); m->vals[j] != UINT32_MAX; j = (j + 1) & (m->cap - 1))
		if (m->keys[j] == key)
			break;
	return j;
}

uint32_t u64map_get(const struct u64map *m, uint64_t key)
{
	if (!m->cap)
		return UINT32_MAX;
	return m->vals[u64map_slot(m, key)];
}

int u64map_put(struct u64map *m, uint64_t key, uint32_t val)
{
	size_t j;

	if ((m->n + 1) * 4 > m->cap * 3 && u64map_grow(m) < 0)
		return -ENOMEM;
	j = u64map_slot(m, key);
	if (m->vals[j] == UINT32_MAX)
		m->n++;
	m->keys[j] = key;
	m->vals[j] = val;
	return 0;
}

struct usym *usym_new(const char *proc)
{
	struct usym *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	snprintf(u->proc, sizeof(u->proc), "%s", proc ? proc : "/proc");
	u->maxfds = USYM_FDS_MAX;
	{
		struct rlimit rl;

		if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY &&
		    rl.rlim_cur / 4 < u->maxfds)
			u->maxfds = (unsigned int)(rl.rlim_cur / 4);
	}
	return u;
}

void usym_tick(struct usym *u)
{
	u->epoch++;
}

void usym_names_drop(struct usym *u)
{
	size_t i;

	for (i = 0; i < u->ntoks; i++) {
		if (u->toks[i].state == TOK_TEXT)
			continue; /* nothing to look it up from again */
		free(u->toks[i].name);
		u->toks[i].name = NULL;
		u->toks[i].state = TOK_NEW;
	}
	u->name_bytes = 0;
}

/* the name cache's bound: USYM_NAMES_MAX, or a quarter of the limit */
size_t usym_names_max(const struct usym *u)
{
	return u->limit && u->limit / 4 < USYM_NAMES_MAX ? u->limit / 4 : USYM_NAMES_MAX;
}

size_t usym_memory(const struct usym *u)
{
	return sizeof(*u) + u->ctoks * sizeof(*u->toks) + u->cprocs * sizeof(*u->procs) +
	       u->cfiles * sizeof(*u->files) + u->name_bytes + u->maps_bytes + u->image_bytes +
	       u->sym_bytes + u->perf_bytes + (u->tokmap.cap + u->procmap.cap + u->filemap.cap) * 12;
}

void usym_set_limit(struct usym *u, size_t bytes)
{
	u->limit = bytes;
	if (u->name_bytes > usym_names_max(u))
		usym_names_drop(u);
}

uint64_t usym_refused(const struct usym *u)
{
	return u->refused;
}

uint64_t usym_files_refused(const struct usym *u)
{
	return u->files_refused;
}

uint64_t usym_files_big(const struct usym *u)
{
	return u->files_big;
}
