/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * evlist.h - the events a tracefs offers (stacktop --list-events).
 */
#ifndef STACKTOP_EVLIST_H
#define STACKTOP_EVLIST_H

#include <stdbool.h>

struct tfs;

/**
 * typedef evlist_visit_fn - called once per event, in available_events order
 * @ctx: the caller's context
 * @name: "system:event", sanitized (no bytes a terminal would interpret)
 * @stacks: whether stacktop can record kernel stacks of this event here:
 *          the kernel has options/stacktrace and a stack record event
 *          (ftrace/kernel_stack or ftrace/stack_id), and the event can be
 *          enabled (ftrace's own events, which have no enable file, cannot)
 *
 * Return: 0 to go on, a negative errno to stop (evlist_read() returns it).
 */
typedef int (*evlist_visit_fn)(void *ctx, const char *name, bool stacks);

/**
 * evlist_read() - walk available_events of a tracefs root
 * @t: the root
 * @glob: fnmatch(3) pattern matched against "system:event"; a pattern
 *        without ':' also matches the event name alone; NULL for all
 * @visit: called for each matching event
 * @ctx: passed to @visit
 *
 * Return: the number of events visited, -ENOENT when the root has no
 * available_events (not a tracefs), a negative errno from reading it or
 * from @visit.
 */
int evlist_read(struct tfs *t, const char *glob, evlist_visit_fn visit, void *ctx);

#endif /* STACKTOP_EVLIST_H */
