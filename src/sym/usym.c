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
#define USYM_FDS_MAX   256	   /* mapped files kept open (and a quarter of RLIMIT_NOFILE) */

uint32_t usym_idx(const struct hmap *m, uint64_t key)
{
	uint64_t v;

	return hmap_get(m, key, &v) ? (uint32_t)v : UINT32_MAX;
}

uint32_t usym_tok_find(const struct usym *u, uint64_t key,
		       bool (*match)(const struct utok *t, const void *ctx), const void *ctx,
		       uint64_t *ret_free)
{
	uint64_t v;

	for (;; key = hmap_chain(key)) {
		if (!hmap_get(&u->tokmap, key, &v)) {
			*ret_free = key;
			return UINT32_MAX;
		}
		if (match(&u->toks[v], ctx))
			return (uint32_t)v;
	}
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

void usym_names_drop(struct usym *u)
{
	size_t i;

	for (i = 0; i < u->ntoks; i++) {
		/* nothing to look it up from again; an inlined call's name is the DWARF's */
		if (u->toks[i].state == TOK_TEXT || u->toks[i].state == TOK_INL ||
		    u->toks[i].state == TOK_LABEL)
			continue;
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
	       u->sym_bytes + u->perf_bytes + u->dw_bytes + u->label_bytes +
	       hmap_bytes(&u->tokmap) + hmap_bytes(&u->procmap) + hmap_bytes(&u->filemap);
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
