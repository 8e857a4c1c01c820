/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * calltree.h - ranked stacks merged into a tree of functions.
 *
 * Two orientations, as perf report shows them:
 *  - caller tree: from the root frame (entry_SYSCALL_64 ...) toward the
 *    leaf; a node counts the hits of the stacks through its path, its self
 *    count those ending there;
 *  - callee tree (inverted): merged by leaf, expanded toward the callers
 *    ("who calls kmalloc"); a root's count is the hits of the stacks ending
 *    in that function.
 * For every function the tree also keeps what perf's --children shows:
 * children (the hits of the stacks it appears in, once per stack even when
 * it recurses) and self (the hits of the stacks it is the leaf of).
 *
 * Nodes are merged by a symbol key (the function's start address, from the
 * caller's @sym callback) and named by a representative address. A node's
 * key hashes its path from the virtual root (node 0), so the same node has
 * the same key from one build to the next (the screen keeps expansions by
 * key).
 */
#ifndef STACKTOP_CALLTREE_H
#define STACKTOP_CALLTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/hmap.h"
#include "core/rank.h"

#define CALLTREE_NONE	   UINT32_MAX
#define CALLTREE_MAX_NODES (4u << 20)

/**
 * struct calltree_node - one function on one path
 * @key: hash of the path from the root (never 0 but for the root)
 * @sym: the merge key (symbol start)
 * @ip: a representative address
 * @count: hits through this node
 * @self: hits of the stacks ending here (the caller tree's leaves; in the
 *        callee tree the roots)
 * @parent: parent node, CALLTREE_NONE for node 0
 * @first_child: first child (best first after the build), CALLTREE_NONE
 * @next_sibling: next sibling, CALLTREE_NONE
 * @nchild: children
 * @depth: level below the virtual root (roots are 0)
 * @flags: CALLTREE_F_SKIPPED: a frame @skip leaves out, kept (@mark_skip)
 */
struct calltree_node {
	uint64_t key;
	uint64_t sym;
	uint64_t ip;
	uint64_t count;
	uint64_t self;
	uint32_t parent;
	uint32_t first_child;
	uint32_t next_sibling;
	uint32_t nchild;
	uint16_t depth;
	uint8_t flags;
};

#define CALLTREE_F_SKIPPED 1

struct calltree_fn {
	uint64_t sym;
	uint64_t children;
	uint64_t self;
	uint64_t seen; /* the stack that last counted it (recursion: once per stack) */
};

/**
 * struct calltree_ops - how frames become tree nodes
 * @skip: leaf frames left out (the tracing machinery: brief_skip()), or NULL
 * @sym: the merge key of an address (its function's start), or NULL: the
 *       address itself
 * @ctx: passed to both
 * @mark_skip: keep the frames @skip leaves out, as nodes flagged
 *             CALLTREE_F_SKIPPED (the caller tree only: they are its
 *             leaves; the flame graph shows them in a colour of their own);
 *             the other nodes, their keys and the functions' counts are as
 *             without
 */
struct calltree_ops {
	unsigned int (*skip)(void *ctx, const struct stack *st);
	uint64_t (*sym)(void *ctx, uint64_t ip);
	void *ctx;
	bool mark_skip;
};

/**
 * struct calltree - the tree of the last build
 * @nodes: node 0 is the virtual root above all roots
 * @nnodes: nodes used
 * @total: hits of every stack in the tree
 * @callee: the orientation of the last build
 */
struct calltree {
	struct calltree_node *nodes;
	size_t nnodes;
	size_t ncap;
	uint64_t total;
	bool callee;
	/* private: path key -> node, sym -> function */
	struct hmap index;
	struct hmap fnidx;
	struct calltree_fn *fns;
	size_t nfns;
	size_t fcap;
};

/**
 * calltree_init() - an empty tree
 * @ct: tree
 */
void calltree_init(struct calltree *ct);

/**
 * calltree_free() - free the tree's memory
 * @ct: tree
 */
void calltree_free(struct calltree *ct);

/**
 * calltree_mix() - the key of a child: @parent's key with @sym mixed in
 * @parent: parent's key
 * @sym: child's symbol key
 *
 * Return: a non-zero key.
 */
uint64_t calltree_mix(uint64_t parent, uint64_t sym);

/**
 * calltree_build() - merge ranked stacks into the tree (rebuilt from scratch)
 * @ct: tree
 * @rows: ranked stacks (stack_table_rank())
 * @n: rows
 * @delta: count each row's @delta instead of its @total
 * @callee: callee-first (inverted) instead of caller-first
 * @ops: frame mapping
 *
 * Children are sorted by count (descending), then by symbol.
 *
 * Return: 0, or -ENOMEM / -E2BIG (more than CALLTREE_MAX_NODES): the tree
 * then holds what was merged before.
 */
int calltree_build(struct calltree *ct, const struct rank_row *rows, size_t n, bool delta,
		   bool callee, const struct calltree_ops *ops);

/**
 * calltree_find() - the node of a path key
 * @ct: tree
 * @key: path key
 *
 * Return: the node index, CALLTREE_NONE when absent.
 */
uint32_t calltree_find(const struct calltree *ct, uint64_t key);

/**
 * calltree_function() - perf --children's columns of a function
 * @ct: tree
 * @sym: symbol key
 * @ret_children: hits of the stacks it appears in (once per stack)
 * @ret_self: hits of the stacks it is the leaf of
 */
void calltree_function(const struct calltree *ct, uint64_t sym, uint64_t *ret_children,
		       uint64_t *ret_self);

/**
 * calltree_path_has() - whether stack @st goes through node @node (its path
 * from the root, in @ct's orientation)
 * @ct: tree
 * @node: node index
 * @st: stack
 * @ops: the frame mapping of the build
 */
bool calltree_path_has(const struct calltree *ct, uint32_t node, const struct stack *st,
		       const struct calltree_ops *ops);

#endif /* STACKTOP_CALLTREE_H */
