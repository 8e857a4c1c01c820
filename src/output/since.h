/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * since.h - the counts of a window: what every breakdown record and stack
 * counted when the window opened (export_since_take()), so that a writer
 * can give what was counted since (export_since_attr()). --serve's
 * /debug/pprof/profile?seconds=N is the profile of such a window.
 *
 * Records are found by their stack and (event, CPU, pid), not by address:
 * a record folded into its command's (exited processes, near
 * --max-memory) is a new record whose count held theirs, so a stack's
 * records are held to what the stack counted in the window
 * (export_since_stack()). A reset (the generation counter moved) empties
 * the window's start: everything since the reset counts.
 */
#ifndef STACKTOP_SINCE_H
#define STACKTOP_SINCE_H

#include <stdbool.h>
#include <stdint.h>

struct export_since;
struct rank_opts;
struct session;
struct stack;
struct stack_attr;

/**
 * export_since_take() - open a window now
 * @s: session
 * @o: what is counted (@o->weight: weights instead of hits)
 *
 * Return: the window's start (export_since_free() it), NULL when out of memory.
 */
struct export_since *export_since_take(struct session *s, const struct rank_opts *o);

/**
 * export_since_free() - free a window's start
 * @w: it, or NULL
 */
void export_since_free(struct export_since *w);

/**
 * export_since_seconds() - how long the window has been open
 * @w: its start
 */
double export_since_seconds(const struct export_since *w);

/**
 * export_since_stack() - what @sk counted in the window
 * @w: its start
 * @s: session
 * @total: what it counts now (hits or weight, as @o of export_since_take())
 */
uint64_t export_since_stack(const struct export_since *w, struct session *s, const struct stack *sk,
			    uint64_t total);

/**
 * export_since_attr() - what a breakdown record counted in the window
 * @w: its start
 * @s: session
 * @a: the record
 * @total: what it counts now
 */
uint64_t export_since_attr(const struct export_since *w, struct session *s,
			   const struct stack_attr *a, uint64_t total);

#endif /* STACKTOP_SINCE_H */
