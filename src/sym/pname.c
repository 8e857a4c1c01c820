// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pname.c - see pname.h: the names in the order first seen, and an
 * open-addressing index of them by a hash of the text.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/mix64.h"
#include "core/stack.h"
#include "sym/pname.h"

#define PNAME_LEN 64

static struct {
	char (*v)[PNAME_LEN];
	uint32_t n, cap;
	uint32_t *idx; /* id + 1, 0 empty */
	uint32_t isize;
} pn;

static uint64_t text_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ULL;
	return mix64(h);
}

static uint32_t *slot_of(const char *name)
{
	uint32_t i = (uint32_t)text_hash(name) & (pn.isize - 1);

	while (pn.idx[i] && strcmp(pn.v[pn.idx[i] - 1], name))
		i = (i + 1) & (pn.isize - 1);
	return &pn.idx[i];
}

/* room for one more name: the list, and an index at most half full */
static bool grow(void)
{
	uint32_t i, size, *idx;

	if (pn.n == pn.cap) {
		uint32_t cap = pn.cap ? pn.cap * 2 : 64;
		char(*v)[PNAME_LEN] = realloc(pn.v, (size_t)cap * PNAME_LEN);

		if (!v)
			return false;
		pn.v = v;
		pn.cap = cap;
	}
	if ((pn.n + 1) * 2 <= pn.isize)
		return true;
	size = pn.isize ? pn.isize * 2 : 128;
	idx = calloc(size, sizeof(*idx));
	if (!idx)
		return false; /* the old index still holds every name */
	free(pn.idx);
	pn.idx = idx;
	pn.isize = size;
	for (i = 0; i < pn.n; i++)
		*slot_of(pn.v[i]) = i + 1;
	return true;
}

uint64_t pname_comm(const char *comm)
{
	char name[PNAME_LEN];
	uint32_t *slot;

	if (!comm)
		return 0;
	strncpy(name, comm, sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	if (pn.isize) {
		slot = slot_of(name);
		if (*slot)
			return STACK_IP_COMM(*slot - 1);
	}
	if (pn.n >= PNAME_MAX || !grow())
		return 0;
	memcpy(pn.v[pn.n], name, sizeof(name));
	*slot_of(name) = pn.n + 1;
	return STACK_IP_COMM(pn.n++);
}

const char *pname_get(uint64_t ip)
{
	uint32_t id = (uint32_t)ip;

	if (!STACK_IP_IS_COMM(ip) || id >= pn.n)
		return NULL;
	return pn.v[id];
}
