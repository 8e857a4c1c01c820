/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * breakdown.h - the breakdown pane (breakdown.c): a cached count of who
 * hits one stack or tree node, by event, comm(pid), CPU and origin.
 */
#ifndef STACKTOP_UI_BREAKDOWN_H
#define STACKTOP_UI_BREAKDOWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ui/tui.h"

/**
 * breakdown_new() - an empty cache for one view's pane
 *
 * Return: the cache, NULL when out of memory (the pane is then not drawn).
 */
struct breakdown *breakdown_new(void);

/**
 * breakdown_forget() - what the cache counted is stale (a new ranking, the
 *	table cleared): the next draw counts again
 * @bd: cache, or NULL
 */
void breakdown_forget(struct breakdown *bd);

/**
 * breakdown_free() - free the cache
 * @bd: cache, or NULL
 */
void breakdown_free(struct breakdown *bd);

/**
 * struct bd_subject - what the pane breaks down: one stack, or every stack
 *	of a list that passes through a node (a tree's)
 * @st: the stack selected, or NULL
 * @frame: the frame of @st the title names (stack_view_selected_frame())
 * @node: the node selected (its identity for the cache), or NULL
 * @node_key: its path key (the cache's too: a node is rebuilt at its place)
 * @node_ip: the address that names it
 * @rows: the stacks to look through for @node
 * @nrows: entries in @rows
 * @has: does @st pass through @node
 * @ctx: @has's first argument
 * @none: the title when neither @st nor @node is set
 */
struct bd_subject {
	const struct stack *st;
	unsigned int frame;
	const void *node;
	uint64_t node_key;
	uint64_t node_ip;
	const struct rank_row *rows;
	size_t nrows;
	bool (*has)(void *ctx, const void *node, const struct stack *st);
	void *ctx;
	const char *none;
};

/**
 * breakdown_draw() - the pane under the list (ui->lay.bd_y, ui->lay.bd_h): who
 *	hits @sub by event, comm(pid), CPU and origin; counted again only when
 *	what it depends on changed
 * @ui: the screen
 * @bd: the view's cache (breakdown_new())
 * @sub: what is selected
 */
void breakdown_draw(const struct ui *ui, struct breakdown *bd, const struct bd_subject *sub);

#endif /* STACKTOP_UI_BREAKDOWN_H */
