/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * flametree.h - the view's stacks merged into the call tree a flame graph
 * draws (flametree.c), for the html and svg writers (html.c, svg.c).
 *
 * Stacks are merged root first (a trie keyed by caller and frame name), as
 * the folded output has them: the command (and pid) with --folded-root,
 * user frames (-u), kernel frames. The tracing machinery at the leaf
 * (brief_skip()), which the folded output leaves out, is kept, as frames
 * of kind FLAME_TRACING: a writer leaves them out or shows them apart.
 * Names are deduplicated and sorted (byte order of the label, then the
 * kind, then the module or file); the nodes come in preorder, children in
 * the order of their names, as flamegraph.pl orders them.
 */
#ifndef STACKTOP_FLAMETREE_H
#define STACKTOP_FLAMETREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "output/rows.h"

struct session;

/* what a frame is; the html page's KIND table has the same order */
enum flame_kind {
	FLAME_KERNEL,
	FLAME_MODULE,
	FLAME_USER,
	FLAME_TRACING, /* leaf-side tracing machinery (brief_skip()) */
	FLAME_COMM,    /* --folded-root: the command */
	FLAME_PID,     /* --folded-root pid: the process */
	FLAME_OTHER,   /* markers: unresolved ids, trampolines, empty stacks, cut walks, lost events
			*/
	FLAME_KIND_MAX,
};

/**
 * struct flame_name - one frame name
 * @label: the function (sanitized), the command, the pid, or a marker
 * @where: its module (kernel) or file (user), "" for none
 * @kind: enum flame_kind
 */
struct flame_name {
	char *label;
	char *where;
	uint8_t kind;
};

/**
 * struct flame_node - one frame on one call path
 * @h: self hits: of the stacks that end here
 * @w: self weight (0 when the table is unweighted)
 * @name: index in &flame_tree.names; -1 for node 0, the root of all
 * @depth: 0 for the root; a node's parent is the nearest node before it
 *         one level up
 */
struct flame_node {
	uint64_t h;
	uint64_t w;
	int32_t name;
	uint32_t depth;
};

/**
 * struct flame_attr - what a record of a stack was taken under (stack_attr)
 * @event: the event's index (session_event())
 * @pid: the process, -1 for none known
 * @cpu: the CPU
 */
struct flame_attr {
	uint32_t event;
	int32_t pid;
	uint32_t cpu;
};

/**
 * struct flame_split - the share of one record in the self count of a node,
 * so that the page can filter by event, process and CPU
 * @node: index in &flame_tree.nodes (preorder)
 * @attr: index in &flame_tree.attrs
 * @h: hits
 * @w: weight (0 when the table is unweighted)
 */
struct flame_split {
	uint64_t h;
	uint64_t w;
	uint32_t node;
	uint32_t attr;
};

/**
 * struct flame_tree - the merged tree of a view
 * @names: sorted, unique
 * @nnames: names
 * @nodes: preorder, children in name order; node 0 is the root
 * @nnodes: nodes (at least 1)
 * @stacks: stacks merged in
 * @weighted: @w counts a weight (--weight, --offcpu)
 * @sum: the ranking's summary of the view (matched stacks, totals)
 * @attrs: the distinct (event, pid, CPU) of the records in the tree
 * @nattrs: attrs
 * @splits: the self counts of the nodes by record; a node's splits add up
 *          to its self count, but for stacks without records (none) and the
 *          lost-events root
 * @nsplits: splits
 */
struct flame_tree {
	struct flame_name *names;
	size_t nnames;
	struct flame_node *nodes;
	size_t nnodes;
	size_t stacks;
	bool weighted;
	struct rank_summary sum;
	struct flame_attr *attrs;
	size_t nattrs;
	struct flame_split *splits;
	size_t nsplits;
};

/**
 * flametree_build() - merge the stacks of a view
 * @ft: filled (flametree_free() it, also on failure)
 * @s: session
 * @o: view: @o->rank filters, @o->delta (counts of the last interval),
 *     @o->root (command, pid roots); what the widths count is the
 *     ranking's (@o->rank.weight: the weight); @o->top is ignored
 *
 * Return: 0 or -errno (-ENOMEM, -E2BIG past 2^32 nodes or names).
 */
int flametree_build(struct flame_tree *ft, struct session *s, const struct report_opts *o);

/**
 * flametree_free() - free what flametree_build() made; the tree is empty after
 * @ft: tree
 */
void flametree_free(struct flame_tree *ft);

#endif /* STACKTOP_FLAMETREE_H */
