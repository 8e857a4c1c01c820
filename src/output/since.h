/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * since.h - the counts of a window: what every breakdown record and stack
 * counted when the window opened (export_since_take()), so that a writer
 * can give what was counted since (export_since_get()). --serve's
 * /debug/pprof/profile?seconds=N is the profile of such a window.
 *
 * Taking the window's start is a pass over the stacks that writes each
 * one's and each record's key and count one after the other (on the
 * session's thread: it is what the collector pays to open a window); the
 * map a writer looks them up in is built from that list on the writer's
 * thread, once (export_since_index()).
 *
 * Records are found by their stack and (event, CPU, pid), not by address:
 * a record folded into its command's (exited processes, near
 * --max-memory) is a new record whose count held theirs, so a stack's
 * records are held to what the stack counted in the window (pprof.c). A
 * reset (the generation counter moved) empties the window's start:
 * everything since the reset counts.
 */
#ifndef STACKTOP_SINCE_H
#define STACKTOP_SINCE_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

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
 * export_since_opened() - when the window opened (CLOCK_MONOTONIC)
 * @w: its start
 */
struct timespec export_since_opened(const struct export_since *w);

/**
 * export_since_key_stack() - a stack's key among the window's counts
 * @sk: the stack
 */
uint64_t export_since_key_stack(const struct stack *sk);

/**
 * export_since_key_attr() - a breakdown record's key among them
 * @a: the record
 */
uint64_t export_since_key_attr(const struct stack_attr *a);

/**
 * export_since_index() - the map of the window's counts, built from the
 *	list the start took (once; on the thread that looks up)
 * @w: its start
 *
 * Return: 0, or -ENOMEM.
 */
int export_since_index(struct export_since *w);

/**
 * export_since_get() - what a stack or record counted in the window
 * @w: its start, indexed (export_since_index())
 * @generation: the counts' generation now (a reset since: all of @total)
 * @key: export_since_key_stack() or export_since_key_attr()
 * @total: what it counts now (hits or weight, as @o of export_since_take())
 */
uint64_t export_since_get(const struct export_since *w, uint32_t generation, uint64_t key,
			  uint64_t total);

#endif /* STACKTOP_SINCE_H */
