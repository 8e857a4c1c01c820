/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * events.h - the events a session traces: "system:event" patterns (globs)
 * expanded against tracefs and enabled in the instance read (journaled at
 * the top level, plain writes in a private instance), with the kernel
 * filter written to each event's `filter` file and, with --trigger, a
 * `stacktrace` trigger in its `trigger` file; the kernel's error_log text
 * when it refuses one, and the nearest names when a pattern matches
 * nothing.
 */
#ifndef STACKTOP_EVENTS_H
#define STACKTOP_EVENTS_H

#include <stdbool.h>

struct trace;

/**
 * struct event_spec - one -e or --trigger argument
 * @pattern: "SYS:EVENT" (globs)
 * @filter: the kernel filter after " if ", "" for none
 * @count: a trigger's count, 0 for unlimited
 */
struct event_spec {
	char pattern[256];
	char filter[1024];
	unsigned long count;
};

/**
 * events_parse_spec() - "SYS:EVENT[ if EXPR]" (-e), and with @counted
 *	"SYS:EVENT[:N][ if EXPR]" (--trigger)
 * @text: the argument
 * @counted: a trigger's count may follow the event
 * @sp: receives it
 *
 * Return: 0 or -EINVAL.
 */
int events_parse_spec(const char *text, bool counted, struct event_spec *sp);

/**
 * events_setup() - enable what trace->opts asks for (-e, --trigger, the
 *	kprobes made, else sched:sched_switch; in the stackmap mode with
 *	nothing asked, what the top level has enabled already)
 * @t: trace (the instance chosen, its formats read)
 * @err: receives a user-facing reason on failure
 * @errsz: size of @err
 *
 * Every event enabled is added to t->fmt and named in t->traced.
 *
 * Return: 0 or -errno.
 */
int events_setup(struct trace *t, char *err, size_t errsz);

#endif /* STACKTOP_EVENTS_H */
