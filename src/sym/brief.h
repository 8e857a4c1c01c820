/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * brief.h - a stack in one line, for the LEAF column.
 *
 * The first frames of every ftrace stack are the tracing machinery itself
 * (trace_event_raw_event_<event>, __traceiter_<event>, ...): the same for
 * every stack of one event, so they tell the rows apart by nothing. The
 * brief form starts at the first frame that is not tracing machinery and
 * follows it with its callers: "__schedule < schedule < do_nanosleep".
 *
 * Past the machinery, the stacks of one view often share more leaf frames
 * (every sched_switch stack starts "__schedule < schedule"): brief_common()
 * counts them and brief_format_after() starts after them, so that the frame
 * that tells two rows apart is the one in view.
 */
#ifndef STACKTOP_BRIEF_H
#define STACKTOP_BRIEF_H

#include <stddef.h>

struct ksym;
struct stack;
struct rank_row;

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

/**
 * brief_common() - leaf frames that every stack of @rows shares
 * @ks: symbols (may be NULL: 0)
 * @rows: ranked stacks
 * @n: how many
 *
 * Frames are compared by function name, each stack from its brief_skip().
 * One frame of every stack stays out of the count, so a row never becomes
 * empty.
 *
 * Return: the number of shared frames; 0 for fewer than two stacks.
 */
unsigned int brief_common(struct ksym *ks, const struct rank_row *rows, size_t n);

/**
 * brief_common_format() - the shared frames in one line, "__schedule < schedule"
 * @buf: output
 * @size: size of @buf
 * @ks: symbols
 * @st: any stack of the rows brief_common() looked at
 * @common: its result
 *
 * Return: wanted length (snprintf semantics).
 */
int brief_common_format(char *buf, size_t size, struct ksym *ks, const struct stack *st,
			unsigned int common);

/**
 * brief_format_after() - brief_format() starting @common frames later
 * @buf: output
 * @size: size of @buf
 * @ks: symbols (may be NULL)
 * @st: stack
 * @common: shared leaf frames to leave out (brief_common()); when not 0 the
 *          text starts with "... " to say frames were left out
 * @frames: how many frames at most
 * @with_module: append " [module]" to module frames
 *
 * Return: wanted length (snprintf semantics).
 */
int brief_format_after(char *buf, size_t size, struct ksym *ks, const struct stack *st,
		       unsigned int common, int frames, int with_module);

/* brief_apart(): the frames of a row compared at most, and the rows at most */
#define APART_FRAMES 32
#define APART_ROWS   20000

/**
 * brief_apart() - how many frames each row's brief_format_after() shows so
 *	that no two rows read alike: at least @min, and one past the frames
 *	a row shares with another (two stacks of the same first three
 *	functions, finish_task_switch < __schedule < schedule, read apart at
 *	the fourth); the frames compared are their texts, as printed
 * @ks: the symbols of each row (a diff's rows come from two runs)
 * @st: the rows' stacks
 * @n: rows (more than APART_ROWS: each shows @min)
 * @common: the shared leaf frames every row leaves out (brief_common())
 * @min: frames shown at least
 * @frames: receives each row's count
 *
 * Return: 0, or -ENOMEM (then every row shows @min).
 */
int brief_apart(struct ksym *const *ks, const struct stack *const *st, size_t n,
		unsigned int common, int min, int *frames);

#endif /* STACKTOP_BRIEF_H */
