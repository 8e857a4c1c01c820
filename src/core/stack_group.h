/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stack_group.h - stacks of one table merged into another by a key
 * (their first frames, their functions): the callee tree, --group.
 */
#ifndef STACKTOP_STACK_GROUP_H
#define STACKTOP_STACK_GROUP_H

#include <stdbool.h>
#include <stdint.h>

struct stack;
struct stack_attr;
struct stack_table;

/**
 * struct stack_group - how stack_table_group() merges stacks
 * @depth: frames kept after the skipped ones (leaf side), 0 for all
 * @skip: if not NULL, how many leaf frames of a stack are not counted in
 *        @depth (the tracing machinery, brief_skip()); they are kept
 * @map: if not NULL, each frame is replaced by what it returns (a function
 *       grouping maps an address to its symbol's start)
 * @ctx: passed to @skip and @map
 * @keep: keep the stacks already in @dst, their counts zeroed, instead of
 *        clearing it: pointers to them stay valid from one grouping to the
 *        next (a group no longer hit stays, with no hits)
 * @key: if not NULL, the frames of the group of stack @s (replacing
 *       @depth, @skip and @map): written to @frames (room for
 *       STACK_MAX_DEPTH), how many returned (0: @s is left out); with
 *       @per_record, of its breakdown record @a (else @a is NULL)
 * @per_record: @key depends on the record (its pid): a stack's records may
 *       go to several groups, whose trends and histograms are then not
 *       kept (a stack's are not split by record: STACK_F_NOTREND)
 */
struct stack_group {
	unsigned int depth;
	unsigned int (*skip)(void *ctx, const struct stack *s);
	uint64_t (*map)(void *ctx, uint64_t ip);
	void *ctx;
	bool keep;
	unsigned int (*key)(void *ctx, const struct stack *s, const struct stack_attr *a,
			    uint64_t *frames);
	bool per_record;
};

/**
 * stack_table_group() - fill @dst with the stacks of @src merged by a key:
 * the first frames (leaf side) and/or their functions, as @g says. Counts,
 * weights and breakdown records are summed; the last closed interval of
 * @src is the last one of @dst; kernel ids and flags are united.
 * @dst: table, cleared first unless @g->keep; weighted when @src is
 * @src: table
 * @g: the grouping
 *
 * Return: 0 or -ENOMEM (@dst then holds what was merged so far).
 */
int stack_table_group(struct stack_table *dst, const struct stack_table *src,
		      const struct stack_group *g);

#endif /* STACKTOP_STACK_GROUP_H */
