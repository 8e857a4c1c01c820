// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * flametree.c - see flametree.h.
 *
 * A trie keyed by (parent node, name id) in one hash map; names are
 * interned as they are met (one hash map of their text), then sorted once,
 * and the trie is walked in preorder with each node's children sorted by
 * their final name id.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/format.h"
#include "core/hmap.h"
#include "core/stack_table.h"
#include "core/rank.h"
#include "kernel/stackmap.h"
#include "output/flametree.h"
#include "output/losses.h"
#include "output/rows.h"
#include "session/session.h"
#include "sym/brief.h"
#include "sym/frame.h"
#include "sym/ksym.h"
#include "sym/usym.h"

#define FT_EMPTY   "[empty]"
#define FT_OVER	   "[stacks not kept: over --max-memory]"
#define FT_UNKNOWN "[unknown]"
#define FT_NONE	   UINT32_MAX

struct hnode {
	uint64_t h; /* self hits */
	uint64_t w; /* self weight */
	uint32_t name;
	uint32_t child; /* first child (unordered until written) */
	uint32_t next;	/* next sibling */
	uint32_t depth;
};

/*
 * Names are interned as they are met (ids in order of arrival), then
 * sorted once: @final maps an arrival id to its rank in alphabetical
 * order, the id the page gets, so that children sort by it.
 */
struct ftb {
	struct session *s;
	const struct report_opts *o;
	uint64_t *ips;	   /* every frame address, sorted, unique */
	uint32_t *ip_name; /* the name id of each as a frame (FT_NONE: not yet) */
	uint32_t *ip_mach; /* the same as tracing machinery */
	size_t nips;
	struct flame_name *names;
	size_t nnames, cnames;
	struct hmap name_index; /* hash of (label, where, kind) -> name id */
	uint32_t *final;
	struct hnode *nodes;
	size_t nnodes, cnodes;
	struct hmap index; /* parent << 32 | name -> node */
	struct flame_attr *attrs;
	size_t nattrs, cattrs;
	struct hmap attr_index;	    /* event << 48 | cpu << 32 | pid -> attr */
	struct flame_split *splits; /* .node: an hnode until nodes_order() */
	size_t nsplits, csplits;
	bool weighted;
};

static int name_cmp(const struct flame_name *a, const struct flame_name *b)
{
	int r = strcmp(a->label, b->label);

	if (r)
		return r;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	return strcmp(a->where, b->where);
}

static uint64_t name_hash(const char *label, const char *where, enum flame_kind kind)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	const char *p;

	for (p = label; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
	h = (h ^ 0xff) * 0x100000001b3ULL;
	for (p = where; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
	return hmap_mix(h, kind);
}

/* the id of a name, added when new */
static int name_intern(struct ftb *c, const char *label, const char *where, enum flame_kind kind,
		       uint32_t *ret)
{
	struct flame_name key = { .label = (char *)label,
				  .where = (char *)where,
				  .kind = (uint8_t)kind };
	uint64_t h = name_hash(label, where, kind), v;
	struct flame_name *n;
	int r;

	/* a 64-bit hash shared by two names: the next slot of the chain */
	while (hmap_get(&c->name_index, h, &v)) {
		if (!name_cmp(&c->names[v], &key)) {
			*ret = (uint32_t)v;
			return 0;
		}
		h = hmap_mix(h, 1);
	}
	if (c->nnames >= FT_NONE)
		return -E2BIG;
	if (ARRAY_GROW(c->names, c->cnames, c->nnames + 1) < 0)
		return -ENOMEM;
	n = &c->names[c->nnames];
	n->label = strdup(label);
	n->where = strdup(where);
	n->kind = (uint8_t)kind;
	if (!n->label || !n->where || (r = hmap_put(&c->name_index, h, c->nnames)) < 0) {
		free(n->label);
		free(n->where);
		return -ENOMEM;
	}
	*ret = (uint32_t)c->nnames++;
	return 0;
}

static int name_order(const void *pa, const void *pb, void *ctx)
{
	const struct ftb *c = ctx;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;

	return name_cmp(&c->names[a], &c->names[b]);
}

/* the alphabetical order of the names: c->final[arrival id] = page id */
static int names_done(struct ftb *c, uint32_t **ret_order)
{
	uint32_t *order = malloc((c->nnames ? c->nnames : 1) * sizeof(*order));
	size_t i;

	c->final = malloc((c->nnames ? c->nnames : 1) * sizeof(*c->final));
	if (!order || !c->final) {
		free(order);
		return -ENOMEM;
	}
	for (i = 0; i < c->nnames; i++)
		order[i] = (uint32_t)i;
	qsort_r(order, c->nnames, sizeof(*order), name_order, c);
	for (i = 0; i < c->nnames; i++)
		c->final[order[i]] = (uint32_t)i;
	*ret_order = order;
	return 0;
}

/* a frame's label, module or file, and kind */
static enum flame_kind frame_name(struct ksym *ks, uint64_t ip, char *label, size_t lsize,
				  char *where, size_t wsize)
{
	struct ksym_hit h;

	fmt_func(label, lsize, ks, ip, 0);
	where[0] = '\0';
	if (usym_is_user(ip)) {
		char full[512];
		size_t n = strlen(label), m;

		if (usym_is_cut(ip) || usym_is_none(ip))
			return FLAME_OTHER;
		/* usym_format() with the file: "label (file)" */
		fmt_func(full, sizeof(full), ks, ip, 1);
		m = strlen(full);
		if (m > n + 3 && !strncmp(full, label, n) && !strncmp(full + n, " (", 2) &&
		    full[m - 1] == ')')
			snprintf(where, wsize, "%.*s", (int)(m - n - 3), full + n + 2);
		/* its source line (DWARF): the tooltip says where in the file */
		if (usym_srcline(ksym_usym(ks), ip, full, sizeof(full), false) > 0) {
			n = strlen(where);
			snprintf(where + n, wsize - n, "%s%s", n ? ", " : "", full);
		}
		return FLAME_USER;
	}
	if (ip == STACKMAP_TRAMPOLINE || STACK_IP_IS_UNRESOLVED(ip) || STACK_IP_IS_COMM(ip) ||
	    ip == STACK_IP_LEFT_OUT)
		return FLAME_OTHER;
	/* --vmlinux: the tooltip says the line of the call */
	if (usym_kernel_srcline(ksym_usym(ks), ip, true, where, wsize, false) > 0)
		return ks && ksym_lookup_frame(ks, ip, &h) == 0 && h.module ? FLAME_MODULE
									    : FLAME_KERNEL;
	if (ks && ksym_lookup_frame(ks, ip, &h) == 0 && h.module) {
		fmt_sanitize(where, wsize, h.module, strlen(h.module));
		return FLAME_MODULE;
	}
	return FLAME_KERNEL;
}

static int u64_cmp(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? -1 : a > b;
}

/* what a row counts in the view (hits or weight, filtered); 0: not in the graph */
static uint64_t row_value(const struct ftb *c, const struct rank_row *row)
{
	return c->o->delta ? row->delta : row->total;
}

/* every frame address of the rows in the graph, sorted, each named on first use */
static int frames_collect(struct ftb *c, const struct rank_row *rows, size_t n)
{
	size_t total = 0, i, j, m = 0;

	for (i = 0; i < n; i++)
		if (row_value(c, &rows[i]))
			total += rows[i].stack->depth;
	c->ips = malloc((total ? total : 1) * sizeof(*c->ips));
	if (!c->ips)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		for (j = 0; j < rows[i].stack->depth && row_value(c, &rows[i]); j++)
			if (!usym_is_sep(rows[i].stack->ips[j]))
				c->ips[m++] = rows[i].stack->ips[j];
	qsort(c->ips, m, sizeof(*c->ips), u64_cmp);
	for (i = 0, j = 0; i < m; i++)
		if (!j || c->ips[i] != c->ips[j - 1])
			c->ips[j++] = c->ips[i];
	c->nips = j;
	c->ip_name = malloc((j ? j : 1) * sizeof(*c->ip_name));
	c->ip_mach = malloc((j ? j : 1) * sizeof(*c->ip_mach));
	if (!c->ip_name || !c->ip_mach)
		return -ENOMEM;
	for (i = 0; i < c->nips; i++)
		c->ip_name[i] = c->ip_mach[i] = FT_NONE;
	return 0;
}

/* the name id of frame @ip, as a frame or as tracing machinery */
static int frame_id(struct ftb *c, uint64_t ip, bool mach, uint32_t *ret)
{
	const uint64_t *hit = bsearch(&ip, c->ips, c->nips, sizeof(ip), u64_cmp);
	uint32_t *slot;
	char label[256], where[256];
	enum flame_kind k;

	if (!hit)
		return -EINVAL;
	slot = mach ? &c->ip_mach[hit - c->ips] : &c->ip_name[hit - c->ips];
	if (*slot == FT_NONE) {
		int r;

		k = frame_name(session_ksym(c->s), ip, label, sizeof(label), where, sizeof(where));
		r = name_intern(c, label, where, mach ? FLAME_TRACING : k, slot);
		if (r < 0)
			return r;
	}
	*ret = *slot;
	return 0;
}

/* a stack's root: its command (and pid) and what it counts there */
struct hroot {
	char comm[64];
	int pid;
	uint64_t h, w;
};

static int hroot_cmp(const void *pa, const void *pb)
{
	const struct hroot *a = pa, *b = pb;
	int r = strcmp(a->comm, b->comm);

	if (r)
		return r;
	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

/* the hits and weight of record @a under the view */
static void attr_counts(struct ftb *c, const struct stack_attr *a, uint64_t *h, uint64_t *w)
{
	struct stack_table *t = session_table(c->s);
	uint64_t wd = 0, wt = 0;

	*h = c->o->delta ? stack_attr_delta(t, a) : a->total;
	if (c->weighted)
		wt = stack_attr_weight(t, a, &wd);
	*w = c->o->delta ? wd : wt;
}

/*
 * The roots of @sk: one per command (and pid) with hits under the view
 * (--folded-root), or one without a name holding the whole stack.
 */
static int stack_roots(struct ftb *c, const struct stack *sk, struct hroot **buf, size_t *cap)
{
	struct stack_table *t = session_table(c->s);
	const struct rank_opts *ro = &c->o->rank;
	const struct stack_attr *a;
	size_t n = 0, i, m;

	if (ARRAY_GROW(*buf, *cap, 1) < 0) /* the one root of a stack without records */
		return -ENOMEM;
	if (c->o->root == EXPORT_ROOT_NONE && !rank_filters_attrs(ro)) {
		uint64_t wd = 0, wt = 0;

		if (c->weighted)
			wt = stack_weight(t, sk, &wd);
		(*buf)[0] = (struct hroot){ .pid = 0,
					    .h = c->o->delta ? stack_delta(t, sk) : sk->total,
					    .w = c->o->delta ? wd : wt };
		return 1;
	}
	for (a = sk->attrs; a; a = a->next) {
		uint64_t h, w;

		if (!export_attr_passes(ro, a))
			continue;
		attr_counts(c, a, &h, &w);
		if (!h && !w)
			continue;
		if (ARRAY_GROW(*buf, *cap, n + 1) < 0)
			return -ENOMEM;
		(*buf)[n].comm[0] = '\0';
		(*buf)[n].pid = 0;
		if (c->o->root != EXPORT_ROOT_NONE) {
			const char *comm = a->pid == -1 ? FT_UNKNOWN : session_comm(c->s, a->pid);

			fmt_sanitize((*buf)[n].comm, sizeof((*buf)[n].comm), comm, strlen(comm));
			if (c->o->root == EXPORT_ROOT_PID)
				(*buf)[n].pid = a->pid;
		}
		(*buf)[n].h = h;
		(*buf)[n].w = w;
		n++;
	}
	if (!n)
		return 0;
	qsort(*buf, n, sizeof(**buf), hroot_cmp);
	for (i = 1, m = 0; i < n; i++) {
		if (!hroot_cmp(&(*buf)[i], &(*buf)[m])) {
			(*buf)[m].h += (*buf)[i].h;
			(*buf)[m].w += (*buf)[i].w;
		} else {
			(*buf)[++m] = (*buf)[i];
		}
	}
	return (int)(m + 1);
}

/* what a root counts in the view: what the widths are proportional to */
static uint64_t root_value(const struct ftb *c, const struct hroot *rt)
{
	return c->o->rank.weight ? rt->w : rt->h;
}

/* the child of @parent named @name, made when absent */
static int node_child(struct ftb *c, uint32_t parent, uint32_t name, uint32_t *ret)
{
	uint64_t key = (uint64_t)parent << 32 | name, v;
	struct hnode *nd;
	int r;

	if (hmap_get(&c->index, key, &v)) {
		*ret = (uint32_t)v;
		return 0;
	}
	if (c->nnodes >= UINT32_MAX - 1)
		return -E2BIG;
	if (ARRAY_GROW(c->nodes, c->cnodes, c->nnodes + 1) < 0)
		return -ENOMEM;
	r = hmap_put(&c->index, key, c->nnodes);
	if (r < 0)
		return r;
	nd = &c->nodes[c->nnodes];
	*nd = (struct hnode){ .name = name,
			      .child = FT_NONE,
			      .next = c->nodes[parent].child,
			      .depth = c->nodes[parent].depth + 1 };
	c->nodes[parent].child = (uint32_t)c->nnodes;
	*ret = (uint32_t)c->nnodes++;
	return 0;
}

/* one stack under @node (the root, or its command/pid): root first */
static int tree_add(struct ftb *c, const struct stack *sk, uint32_t node, uint64_t h, uint64_t w,
		    uint32_t *ret_leaf)
{
	unsigned int skip = brief_skip(session_ksym(c->s), sk);
	uint32_t id;
	int j, r;

	if (!sk->depth) {
		r = name_intern(c, sk->flags & STACK_F_OVER ? FT_OVER : FT_EMPTY, "", FLAME_OTHER,
				&id);
		if (r < 0 || (r = node_child(c, node, id, &node)) < 0)
			return r;
	}
	for (j = (int)sk->depth - 1; j >= 0; j--) {
		/* a command's [user space]: rooted at its command, the frame says it again */
		if (usym_is_sep(sk->ips[j]) ||
		    (STACK_IP_IS_COMM(sk->ips[j]) && c->o->root != EXPORT_ROOT_NONE))
			continue;
		r = frame_id(c, sk->ips[j], (unsigned int)j < skip, &id);
		if (r < 0 || (r = node_child(c, node, id, &node)) < 0)
			return r;
	}
	c->nodes[node].h += h;
	c->nodes[node].w += w;
	*ret_leaf = node;
	return 0;
}

/* the id of a record's (event, pid, CPU), added when new */
static int attr_intern(struct ftb *c, const struct stack_attr *a, uint32_t *ret)
{
	uint64_t key = (uint64_t)a->event << 48 | (uint64_t)a->cpu << 32 | (uint32_t)a->pid, v;
	int r;

	if (hmap_get(&c->attr_index, key, &v)) {
		*ret = (uint32_t)v;
		return 0;
	}
	if (ARRAY_GROW(c->attrs, c->cattrs, c->nattrs + 1) < 0)
		return -ENOMEM;
	r = hmap_put(&c->attr_index, key, c->nattrs);
	if (r < 0)
		return r;
	c->attrs[c->nattrs] =
		(struct flame_attr){ .event = a->event, .pid = a->pid, .cpu = a->cpu };
	*ret = (uint32_t)c->nattrs++;
	return 0;
}

/* does record @a belong under root @rt (--folded-root: its command, its pid) */
static bool attr_in_root(struct ftb *c, const struct stack_attr *a, const struct hroot *rt)
{
	char comm[64];
	const char *name;

	if (c->o->root == EXPORT_ROOT_NONE)
		return true;
	if (c->o->root == EXPORT_ROOT_PID && a->pid != rt->pid)
		return false;
	name = a->pid == -1 ? FT_UNKNOWN : session_comm(c->s, a->pid);
	fmt_sanitize(comm, sizeof(comm), name, strlen(name));
	return !strcmp(comm, rt->comm);
}

/* the records of @sk under root @rt, as splits of the self count of @leaf */
static int splits_add(struct ftb *c, const struct stack *sk, const struct hroot *rt, uint32_t leaf)
{
	const struct stack_attr *a;

	for (a = sk->attrs; a; a = a->next) {
		uint64_t h, w;
		uint32_t id;
		int r;

		if (!export_attr_passes(&c->o->rank, a) || !attr_in_root(c, a, rt))
			continue;
		attr_counts(c, a, &h, &w);
		if (!h && !w)
			continue;
		r = attr_intern(c, a, &id);
		if (r < 0)
			return r;
		if (ARRAY_GROW(c->splits, c->csplits, c->nsplits + 1) < 0)
			return -ENOMEM;
		c->splits[c->nsplits++] =
			(struct flame_split){ .h = h, .w = w, .node = leaf, .attr = id };
	}
	return 0;
}

static int tree_build(struct ftb *c, const struct rank_row *rows, size_t n, size_t *ret_stacks)
{
	struct hroot *roots = NULL;
	size_t cap = 0, i;
	int r = 0;

	*ret_stacks = 0;
	for (i = 0; i < n && r >= 0; i++) {
		const struct stack *sk = rows[i].stack;
		bool any = false;
		int nr, k;

		if (!row_value(c, &rows[i]))
			continue;
		nr = stack_roots(c, sk, &roots, &cap);
		if (nr < 0)
			r = nr;
		for (k = 0; k < nr && r >= 0; k++) {
			uint32_t node = 0, id, leaf;
			char pid[16];

			if (!root_value(c, &roots[k]))
				continue;
			if (c->o->root != EXPORT_ROOT_NONE) {
				r = name_intern(c, roots[k].comm, "", FLAME_COMM, &id);
				if (r >= 0)
					r = node_child(c, node, id, &node);
			}
			/* as folded lines: no pid frame for hits of no process */
			if (r >= 0 && c->o->root == EXPORT_ROOT_PID && roots[k].pid >= 0) {
				snprintf(pid, sizeof(pid), "%d", roots[k].pid);
				r = name_intern(c, pid, "", FLAME_PID, &id);
				if (r >= 0)
					r = node_child(c, node, id, &node);
			}
			if (r >= 0)
				r = tree_add(c, sk, node, roots[k].h, roots[k].w, &leaf);
			if (r >= 0)
				r = splits_add(c, sk, &roots[k], leaf);
			any = true;
		}
		if (any)
			(*ret_stacks)++;
	}
	free(roots);
	return r;
}

/*
 * --folded-lost: a root of its own for the events the ring buffer lost,
 * its hits (and weight) the share of the tree's they stand for (losses.h)
 */
static int tree_lost(struct ftb *c)
{
	struct export_losses l;
	uint64_t h = 0, w = 0;
	uint32_t id, node;
	size_t i;
	int r;

	for (i = 0; i < c->nnodes; i++) {
		h += c->nodes[i].h;
		w += c->nodes[i].w;
	}
	export_losses_get(c->s, c->o->delta, &l);
	h = export_losses_scale(&l, h);
	w = export_losses_scale(&l, w);
	if (!h && !w)
		return 0;
	r = name_intern(c, EXPORT_LOST_FRAME, "", FLAME_OTHER, &id);
	if (r < 0 || (r = node_child(c, 0, id, &node)) < 0)
		return r;
	c->nodes[node].h += h;
	c->nodes[node].w += w;
	return 0;
}

static int u64_desc(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? 1 : a > b ? -1 : 0;
}

/* the tree in preorder, children by name id (= alphabetical) */
static int nodes_order(struct ftb *c, struct flame_tree *ft)
{
	uint32_t *st = malloc(c->nnodes * sizeof(*st));
	uint64_t *kids = malloc(c->nnodes * sizeof(*kids));
	uint32_t *pre = malloc(c->nnodes * sizeof(*pre)); /* hnode -> preorder index */
	size_t len = 0;

	ft->nodes = malloc(c->nnodes * sizeof(*ft->nodes));
	if (!st || !kids || !pre || !ft->nodes) {
		free(st);
		free(kids);
		free(pre);
		return -ENOMEM;
	}
	/* every node is pushed once: the stack never holds more than nnodes */
	st[len++] = 0;
	while (len) {
		uint32_t n = st[--len], k;
		const struct hnode *nd = &c->nodes[n];
		size_t cnt = 0, i;

		pre[n] = (uint32_t)ft->nnodes;
		ft->nodes[ft->nnodes++] =
			(struct flame_node){ .h = nd->h,
					     .w = nd->w,
					     .name = n ? (int32_t)c->final[nd->name] : -1,
					     .depth = nd->depth };
		for (k = nd->child; k != FT_NONE; k = c->nodes[k].next)
			kids[cnt++] = (uint64_t)c->final[c->nodes[k].name] << 32 | k;
		/* the smallest name on top of the stack */
		qsort(kids, cnt, sizeof(*kids), u64_desc);
		for (i = 0; i < cnt; i++)
			st[len++] = (uint32_t)kids[i];
	}
	for (len = 0; len < c->nsplits; len++)
		c->splits[len].node = pre[c->splits[len].node];
	free(st);
	free(kids);
	free(pre);
	return 0;
}

static void ftb_free(struct ftb *c)
{
	size_t i;

	for (i = 0; i < c->nnames; i++) {
		free(c->names[i].label);
		free(c->names[i].where);
	}
	free(c->names);
	free(c->final);
	free(c->ips);
	free(c->ip_name);
	free(c->ip_mach);
	free(c->nodes);
	free(c->attrs);
	free(c->splits);
	hmap_done(&c->index);
	hmap_done(&c->name_index);
	hmap_done(&c->attr_index);
}

int flametree_build(struct flame_tree *ft, struct session *s, const struct report_opts *o)
{
	struct ftb c = { .s = s, .o = o };
	struct rank_row *rows;
	uint32_t *order = NULL;
	size_t n, i;
	int r;

	memset(ft, 0, sizeof(*ft));
	c.weighted = stack_table_weighted(session_table(s)) && session_unit(s) != UNIT_NONE;
	ft->weighted = c.weighted;
	hmap_init(&c.index);
	hmap_init(&c.name_index);
	hmap_init(&c.attr_index);
	r = export_rows(s, &o->rank, SIZE_MAX, &rows, &n, &ft->sum);
	if (r < 0)
		return r;
	c.cnodes = 1024;
	c.nodes = calloc(c.cnodes, sizeof(*c.nodes));
	if (!c.nodes) {
		r = -ENOMEM;
		goto out;
	}
	c.nodes[0] = (struct hnode){ .child = FT_NONE, .next = FT_NONE };
	c.nnodes = 1;
	r = frames_collect(&c, rows, n);
	if (r >= 0)
		r = tree_build(&c, rows, n, &ft->stacks);
	if (r >= 0 && o->lost_stack)
		r = tree_lost(&c);
	if (r >= 0)
		r = names_done(&c, &order);
	if (r >= 0)
		r = nodes_order(&c, ft);
	if (r < 0)
		goto out;
	/* the names in their final order; the tree owns their strings now */
	ft->names = malloc((c.nnames ? c.nnames : 1) * sizeof(*ft->names));
	if (!ft->names) {
		r = -ENOMEM;
		goto out;
	}
	for (i = 0; i < c.nnames; i++)
		ft->names[i] = c.names[order[i]];
	ft->nnames = c.nnames;
	c.nnames = 0;
	/* the records: the tree owns them now */
	ft->attrs = c.attrs;
	ft->nattrs = c.nattrs;
	ft->splits = c.splits;
	ft->nsplits = c.nsplits;
	c.attrs = NULL;
	c.splits = NULL;
out:
	free(order);
	ftb_free(&c);
	free(rows);
	return r < 0 ? r : 0;
}

void flametree_free(struct flame_tree *ft)
{
	size_t i;

	for (i = 0; i < ft->nnames; i++) {
		free(ft->names[i].label);
		free(ft->names[i].where);
	}
	free(ft->names);
	free(ft->nodes);
	free(ft->attrs);
	free(ft->splits);
	memset(ft, 0, sizeof(*ft));
}
