// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * session_weight.c - what the table counts and how it is grouped: --weight
 * and --offcpu (the events, fields and units they need), --depth and
 * --by-func (the second table session_table() returns).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "sym/brief.h"
#include "kernel/comm.h"
#include "kernel/evfmt.h"
#include "ingest/ingest.h"
#include "core/format.h"
#include "sym/ksym.h"
#include "core/log.h"
#include "session/session.h"
#include "kernel/signals.h"
#include "source/source.h"
#include "core/stack_table.h"
#include "ingest/snapshot.h"
#include "kernel/stackmap.h"
#include "kernel/state.h"
#include "kernel/tfs.h"
#include "sym/usym.h"
#include "kernel/tgid.h"
#include "session/session_priv.h"

struct stack_table *session_table(struct session *s)
{
	return s->view ? s->view : s->table;
}

/* a frame's function: the start of its symbol (the address when unknown) */
static uint64_t func_of(void *ctx, uint64_t ip)
{
	struct ksym_hit h;

	if (ksym_lookup(ctx, ip, &h) == 0)
		return h.start;
	return ip;
}

static unsigned int skip_of(void *ctx, const struct stack *st)
{
	return brief_skip(ctx, st);
}

void session_regroup(struct session *s, bool keep)
{
	struct stack_group g = {
		.depth = s->group_depth,
		.skip = skip_of,
		.map = s->group_func ? func_of : NULL,
		.ctx = s->ksym,
		.keep = keep,
	};

	if (!s->view)
		return;
	if (stack_table_group(s->view, s->table, &g) < 0)
		log_warn("out of memory grouping the stacks: the groups are incomplete");
}

int session_set_group(struct session *s, unsigned int depth, bool func)
{
	if (depth > STACK_MAX_DEPTH)
		depth = STACK_MAX_DEPTH;
	s->group_depth = depth;
	s->group_func = func;
	if (!depth && !func) {
		stack_table_free(s->view);
		s->view = NULL;
		return 0;
	}
	if (!s->view) {
		s->view = stack_table_new();
		if (!s->view)
			return -ENOMEM;
	}
	session_regroup(s, false);
	return 0;
}

void session_group(const struct session *s, unsigned int *ret_depth, bool *ret_func)
{
	*ret_depth = s->group_depth;
	*ret_func = s->group_func;
}

enum session_unit session_unit(const struct session *s)
{
	return s->unit;
}

const char *session_weight_name(const struct session *s)
{
	return s->weight_name;
}

/* the unit a field's name tells */
static enum session_unit unit_of(const char *field)
{
	if (strstr(field, "bytes") || strstr(field, "size") || strstr(field, "len"))
		return UNIT_BYTES;
	if (strstr(field, "_ns") || strstr(field, "time") || strstr(field, "lat") ||
	    strstr(field, "delay") || !strcmp(field, "ns"))
		return UNIT_NS;
	return UNIT_PLAIN;
}

/* --weight and --offcpu: which field of which event weighs the hits */
int session_setup_weight(struct session *s, char *err, size_t errsz)
{
	const struct session_opts *o = &s->opts;
	struct evfmt_field fl;
	char sys[128], ev[128], field[64];
	int idx, r;

	if (o->offcpu) {
		struct ingest_offcpu oc = { .all = o->offcpu == SESSION_OFFCPU_ALL };

		idx = evfmt_add(s->fmt, s->tfs, "sched", "sched_switch");
		if (idx < 0)
			return session_errf(err, errsz, idx, "--offcpu: no sched:sched_switch event");
		oc.event = (unsigned int)idx;
		if (evfmt_field(s->fmt, oc.event, "prev_state", &oc.prev_state) < 0 ||
		    evfmt_field(s->fmt, oc.event, "next_pid", &oc.next_pid) < 0 ||
		    oc.next_pid.size != 4)
			return session_errf(err, errsz, -EBADMSG,
					    "--offcpu: sched_switch has no prev_state/next_pid fields");
		/*
		 * sched_waking (the wakeup's start, in the waker's context): splits
		 * the time for --offcpu=wait, and ends it where the kernel did
		 * not record the switch-in (doc/design.md)
		 */
		idx = evfmt_add(s->fmt, s->tfs, "sched", "sched_waking");
		if (idx >= 0 && evfmt_field(s->fmt, (unsigned int)idx, "pid", &oc.wake_pid) == 0 &&
		    oc.wake_pid.size == 4) {
			oc.wake = true;
			oc.wake_event = (unsigned int)idx;
		} else if (o->offcpu == SESSION_OFFCPU_WAIT) {
			return session_errf(err, errsz, -ENOENT,
					    "--offcpu=wait: no sched:sched_waking event with a pid field");
		}
		if (o->offcpu == SESSION_OFFCPU_WAIT) {
			idx = evfmt_add_named(s->fmt, "offcpu:blocked");
			r = evfmt_add_named(s->fmt, "offcpu:runqueue");
			if (idx < 0 || r < 0)
				return session_errf(err, errsz, idx < 0 ? idx : r,
						    "--offcpu=wait: cannot name its events");
			oc.split = true;
			oc.blocked_event = (unsigned int)idx;
			oc.runq_event = (unsigned int)r;
		}
		ingest_set_offcpu(s->ing, &oc);
		{
			/* the times are differences of record time stamps: nanoseconds */
			char rel[160], *clk = NULL;

			session_path(s, rel, sizeof(rel), "trace_clock");
			if (tfs_read(s->tfs, rel, &clk, NULL) == 0 &&
			    (strstr(clk, "[x86-tsc]") || strstr(clk, "[counter]")))
				log_warn("--offcpu: the trace clock counts %s, not nanoseconds: times are in those units",
					 strstr(clk, "[counter]") ? "events" : "TSC cycles");
			free(clk);
		}
		s->unit = UNIT_NS;
		snprintf(s->weight_name, sizeof(s->weight_name), "off-CPU");
		return 0;
	}
	if (!o->weight)
		return 0;
	if (sscanf(o->weight, "%127[^:]:%127[^:]:%63s", sys, ev, field) != 3)
		return session_errf(err, errsz, -EINVAL,
				    "bad --weight '%s' (SYSTEM:EVENT:FIELD, e.g. kmem:kmalloc:bytes_alloc)",
				    o->weight);
	idx = evfmt_add(s->fmt, s->tfs, sys, ev);
	if (idx < 0)
		return session_errf(err, errsz, idx, "--weight: unknown event '%s:%s'", sys, ev);
	r = evfmt_field(s->fmt, (unsigned int)idx, field, &fl);
	if (r == -ENOENT)
		return session_errf(err, errsz, r, "--weight: %s:%s has no field '%s'", sys, ev,
				    field);
	if (r < 0)
		return session_errf(err, errsz, r,
				    "--weight: %s:%s field '%s' is not a number (1, 2, 4 or 8 bytes)",
				    sys, ev, field);
	r = ingest_set_weight(s->ing, (unsigned int)idx, &fl);
	if (r < 0)
		return session_errf(err, errsz, r, "out of memory");
	s->unit = unit_of(field);
	fmt_sanitize(s->weight_name, sizeof(s->weight_name), field, strlen(field));
	return 0;
}

