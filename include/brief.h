/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * brief.h - a stack in one line, for the LEAF column.
 *
 * The first frames of every ftrace stack are the tracing machinery itself
 * (trace_event_raw_event_<event>, __traceiter_<event>, ...): the same for
 * every stack of one event, so they tell the rows apart by nothing. The
 * brief form starts at the first frame that is not tracing machinery and
 * follows it with its callers: "__schedule < schedule < do_nanosleep".
 */
#ifndef STACKTOP_BRIEF_H
#define STACKTOP_BRIEF_H

#include <stddef.h>

struct ksym;
struct stack;

/**
 * brief_skip() - index of the first frame that is not tracing machinery
 * @ks: symbols (may be NULL: nothing is skipped)
 * @st: stack
 *
 * Return: the index; 0 when every frame would be skipped.
 */
unsigned int brief_skip(struct ksym *ks, const struct stack *st);

/**
 * brief_format() - "leaf < caller < caller" for a stack, sanitized
 * @buf: output
 * @size: size of @buf
 * @ks: symbols (may be NULL)
 * @st: stack
 * @frames: how many frames at most (the text is also cut to @size)
 * @with_module: append " [module]" to module frames
 *
 * Return: wanted length (snprintf semantics).
 */
int brief_format(char *buf, size_t size, struct ksym *ks, const struct stack *st, int frames,
		 int with_module);

#endif /* STACKTOP_BRIEF_H */
