/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ksym_priv.h - the kernel symbol table's state (ksym.c). Not for other
 * modules: ksym.h is the interface. When a miss is worth a reload is
 * ksym_watch.h's.
 */
#ifndef STACKTOP_KSYM_PRIV_H
#define STACKTOP_KSYM_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "sym/ksym.h"
#include "sym/ksym_watch.h"

#define KSYM_DEFAULT_PATH KSYM_WATCH_PROC
#define KSYM_NO_MODULE	  UINT32_MAX
#define KSYM_PENDING_MAX  64

struct ksym_ent {
	uint64_t addr;
	uint64_t size;
	uint32_t name; /* arena offset */
	uint32_t mod;  /* arena offset or KSYM_NO_MODULE */
};

struct ksym {
	char *path;
	struct ksym_ent *ents;
	size_t nr;
	char *arena;
	size_t arena_len;
	uint32_t *by_name; /* ents indices sorted by name, built on demand */
	bool stale;
	unsigned int npending;
	uint64_t pending[KSYM_PENDING_MAX];
	struct ksym_gaps gaps; /* ranges that still missed after a load */
	uint64_t gap_misses;   /* lookups that missed in a gap since the last refresh */
	unsigned long reloads;
	struct ksym_watch watch;
	int (*resolver)(void *ctx, uint64_t addr, struct ksym_hit *ret);
	void *resolver_ctx;
	struct usym *usym; /* names user-space frames (format.c), not owned */
	bool funcs;	   /* frames are function starts (--by-func), not return addresses */
};

/* A load in progress; swapped into struct ksym only on success. */
struct ksym_build {
	struct ksym_ent *ents;
	size_t nr, cap;
	char *arena;
	size_t len, acap;
	uint32_t last_mod;
	size_t last_mod_len;
};

#endif /* STACKTOP_KSYM_PRIV_H */
