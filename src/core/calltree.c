// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * calltree.c - see calltree.h. Two open-addressing indexes (path key ->
 * node, symbol -> function), cleared and refilled at every build; the
 * arrays are kept between builds.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/calltree.h"

#define ROOT_KEY_CALLER 0
#define ROOT_KEY_CALLEE 0x5ca1ab1e0ddba11ULL /* the two trees never share a key */

uint64_t calltree_mix(uint64_t parent, uint64_t sym)
{
	return hmap_mix(parent, sym); /* never 0: 0 is the caller tree's root */
}

void calltree_init(struct calltree *ct)
{
	memset(ct, 0, sizeof(*ct));
}

void calltree_free(struct calltree *ct)
{
	free(ct->nodes);
	hmap_done(&ct->index);
	hmap_done(&ct->fnidx);
	free(ct->fns);
	calltree_init(ct);
}

uint32_t calltree_find(const struct calltree *ct, uint64_t key)
{
	uint64_t id;

	if (!key) /* the caller tree's root: node 0, never in the index */
		return ct->nnodes ? 0 : CALLTREE_NONE;
	return hmap_get(&ct->index, key, &id) ? (uint32_t)id : CALLTREE_NONE;
}

static struct calltree_fn *fn_get(struct calltree *ct, uint64_t sym)
{
	bool fresh;
	uint64_t *slot = hmap_slot(&ct->fnidx, sym, &fresh);

	if (!slot)
		return NULL;
	if (fresh) {
		if (ARRAY_GROW(ct->fns, ct->fcap, ct->nfns + 1) < 0) {
			hmap_del(&ct->fnidx, sym);
			return NULL;
		}
		*slot = ct->nfns;
		ct->fns[ct->nfns].sym = sym;
		ct->fns[ct->nfns].children = ct->fns[ct->nfns].self = 0;
		ct->fns[ct->nfns].seen = UINT64_MAX; /* used; no stack yet */
		ct->nfns++;
	}
	return &ct->fns[*slot];
}

void calltree_function(const struct calltree *ct, uint64_t sym, uint64_t *ret_children,
		       uint64_t *ret_self)
{
	uint64_t i;

	*ret_children = *ret_self = 0;
	if (hmap_get(&ct->fnidx, sym, &i)) {
		*ret_children = ct->fns[i].children;
		*ret_self = ct->fns[i].self;
	}
}

/* the child of @parent for @sym, created if needed */
static uint32_t child_of(struct calltree *ct, uint32_t parent, uint64_t sym, uint64_t ip)
{
	uint64_t key = calltree_mix(ct->nodes[parent].key, sym);
	struct calltree_node *n;
	uint32_t id = calltree_find(ct, key);

	if (id != CALLTREE_NONE)
		return id;
	if (ct->nnodes >= CALLTREE_MAX_NODES)
		return CALLTREE_NONE;
	if (ARRAY_GROW(ct->nodes, ct->ncap, ct->nnodes + 1) < 0)
		return CALLTREE_NONE;
	id = (uint32_t)ct->nnodes;
	if (key && hmap_put(&ct->index, key, id) < 0)
		return CALLTREE_NONE;
	ct->nnodes++;
	n = &ct->nodes[id];
	memset(n, 0, sizeof(*n));
	n->key = key;
	n->sym = sym;
	n->ip = ip;
	n->parent = parent;
	n->first_child = CALLTREE_NONE;
	n->next_sibling = ct->nodes[parent].first_child;
	n->depth = parent ? (uint16_t)(ct->nodes[parent].depth + 1) : 0;
	ct->nodes[parent].first_child = id;
	ct->nodes[parent].nchild++;
	return id;
}

struct sort_ent {
	uint64_t count;
	uint64_t sym;
	uint32_t id;
};

static int ent_cmp(const void *pa, const void *pb)
{
	const struct sort_ent *a = pa, *b = pb;

	if (a->count != b->count)
		return a->count < b->count ? 1 : -1;
	if (a->sym != b->sym)
		return a->sym < b->sym ? -1 : 1;
	return (a->id > b->id) - (a->id < b->id);
}

static int sort_children(struct calltree *ct)
{
	struct sort_ent *tmp = NULL;
	size_t cap = 0, i;

	for (i = 0; i < ct->nnodes; i++) {
		struct calltree_node *n = &ct->nodes[i];
		uint32_t c, k = 0;

		if (n->nchild < 2)
			continue;
		if (ARRAY_GROW(tmp, cap, n->nchild) < 0) {
			free(tmp);
			return -ENOMEM;
		}
		for (c = n->first_child; c != CALLTREE_NONE && k < n->nchild;
		     c = ct->nodes[c].next_sibling) {
			tmp[k].count = ct->nodes[c].count;
			tmp[k].sym = ct->nodes[c].sym;
			tmp[k++].id = c;
		}
		qsort(tmp, k, sizeof(*tmp), ent_cmp);
		n->first_child = tmp[0].id;
		for (c = 0; c + 1 < k; c++)
			ct->nodes[tmp[c].id].next_sibling = tmp[c + 1].id;
		ct->nodes[tmp[k - 1].id].next_sibling = CALLTREE_NONE;
	}
	free(tmp);
	return 0;
}

static inline uint64_t sym_of(const struct calltree_ops *ops, uint64_t ip)
{
	return ops && ops->sym ? ops->sym(ops->ctx, ip) : ip;
}

static inline unsigned int skip_of(const struct calltree_ops *ops, const struct stack *st)
{
	unsigned int s = ops && ops->skip ? ops->skip(ops->ctx, st) : 0;

	return s < st->depth ? s : 0;
}

int calltree_build(struct calltree *ct, const struct rank_row *rows, size_t n, bool delta,
		   bool callee, const struct calltree_ops *ops)
{
	size_t i;
	int r = 0;

	if (!ct->ncap) {
		ct->nodes = malloc(4096 * sizeof(*ct->nodes));
		if (!ct->nodes)
			return -ENOMEM;
		ct->ncap = 4096;
	}
	hmap_clear(&ct->index);
	hmap_clear(&ct->fnidx);
	ct->nfns = 0;
	ct->callee = callee;
	ct->total = 0;
	memset(&ct->nodes[0], 0, sizeof(ct->nodes[0]));
	ct->nodes[0].key = callee ? ROOT_KEY_CALLEE : ROOT_KEY_CALLER;
	ct->nodes[0].parent = CALLTREE_NONE;
	ct->nodes[0].first_child = CALLTREE_NONE;
	ct->nodes[0].next_sibling = CALLTREE_NONE;
	ct->nnodes = 1;

	for (i = 0; i < n; i++) {
		const struct stack *st = rows[i].stack;
		uint64_t cnt = delta ? rows[i].delta : rows[i].total;
		unsigned int skip, keep, k;
		uint32_t node = 0;

		if (!cnt || !st->depth)
			continue;
		skip = skip_of(ops, st);
		/* the caller tree may keep the skipped frames: its last nodes, flagged */
		keep = !callee && ops && ops->mark_skip ? skip : 0;
		ct->total += cnt;
		for (k = 0; k < st->depth - skip + keep; k++) {
			/* callee: leaf first; caller: root first */
			unsigned int d = callee ? skip + k : st->depth - 1 - k;
			uint64_t sym = sym_of(ops, st->ips[d]);
			struct calltree_fn *f = d < skip ? NULL : fn_get(ct, sym);

			if (d < skip) {
				/* the machinery's frames count in no function */
			} else if (f) {
				if (f->seen != i + 1) {
					f->children += cnt; /* once per stack: recursion */
					f->seen = i + 1;
				}
				if (d == skip)
					f->self += cnt;
			} else {
				r = -ENOMEM;
			}
			if (node == CALLTREE_NONE)
				continue;
			node = child_of(ct, node, sym, st->ips[d]);
			if (node == CALLTREE_NONE) {
				r = ct->nnodes >= CALLTREE_MAX_NODES ? -E2BIG : -ENOMEM;
				continue;
			}
			ct->nodes[node].count += cnt;
			if (d == skip - keep)
				ct->nodes[node].self += cnt;
			if (d < skip)
				ct->nodes[node].flags |= CALLTREE_F_SKIPPED;
		}
	}
	ct->nodes[0].count = ct->total;
	if (sort_children(ct) < 0)
		r = -ENOMEM;
	return r;
}

bool calltree_path_has(const struct calltree *ct, uint32_t node, const struct stack *st,
		       const struct calltree_ops *ops)
{
	const struct calltree_node *nd;
	uint64_t key;
	unsigned int skip, k;

	if (node == 0)
		return true;
	if (node >= ct->nnodes || !st->depth)
		return false;
	nd = &ct->nodes[node];
	key = ct->nodes[0].key;
	skip = skip_of(ops, st);
	if (!ct->callee && ops && ops->mark_skip)
		skip = 0; /* the skipped frames are nodes too */
	for (k = 0; k < st->depth - skip && k <= nd->depth; k++) {
		unsigned int d = ct->callee ? skip + k : st->depth - 1 - k;

		key = calltree_mix(key, sym_of(ops, st->ips[d]));
	}
	return k == (unsigned int)nd->depth + 1 && key == nd->key;
}
