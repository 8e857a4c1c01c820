// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * weight.c - what the table counts: --weight (a field of an event) and
 * --offcpu (the time off the CPU between sched_switch records), the
 * events, fields and units they need, handed to ingest.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/format.h"
#include "core/hist.h"
#include "core/log.h"
#include "core/stack_table.h"
#include "ingest/ingest.h"
#include "kernel/evfmt.h"
#include "kernel/tfs.h"
#include "kernel/trace.h"
#include "session/priv.h"
#include "session/session.h"

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

		idx = evfmt_add(s->c.tr.fmt, s->c.tr.tfs, "sched", "sched_switch");
		if (idx < 0)
			return fmt_error(err, errsz, idx, "--offcpu: no sched:sched_switch event");
		oc.event = (unsigned int)idx;
		if (evfmt_field(s->c.tr.fmt, oc.event, "prev_state", &oc.prev_state) < 0 ||
		    evfmt_field(s->c.tr.fmt, oc.event, "next_pid", &oc.next_pid) < 0 ||
		    oc.next_pid.size != 4)
			return fmt_error(
				err, errsz, -EBADMSG,
				"--offcpu: sched_switch has no prev_state/next_pid fields");
		/*
		 * sched_waking (the wakeup's start, in the waker's context): splits
		 * the time for --offcpu=wait, and ends it where the kernel did
		 * not record the switch-in (doc/design.md)
		 */
		idx = evfmt_add(s->c.tr.fmt, s->c.tr.tfs, "sched", "sched_waking");
		if (idx >= 0 &&
		    evfmt_field(s->c.tr.fmt, (unsigned int)idx, "pid", &oc.wake_pid) == 0 &&
		    oc.wake_pid.size == 4) {
			oc.wake = true;
			oc.wake_event = (unsigned int)idx;
		} else if (o->offcpu == SESSION_OFFCPU_WAIT) {
			return fmt_error(
				err, errsz, -ENOENT,
				"--offcpu=wait: no sched:sched_waking event with a pid field");
		}
		if (o->offcpu == SESSION_OFFCPU_WAIT) {
			idx = evfmt_add_named(s->c.tr.fmt, "offcpu:blocked");
			r = evfmt_add_named(s->c.tr.fmt, "offcpu:runqueue");
			if (idx < 0 || r < 0)
				return fmt_error(err, errsz, idx < 0 ? idx : r,
						 "--offcpu=wait: cannot name its events");
			oc.split = true;
			oc.blocked_event = (unsigned int)idx;
			oc.runq_event = (unsigned int)r;
		}
		ingest_set_offcpu(s->c.ing, &oc);
		{
			/* the times are differences of record time stamps: nanoseconds */
			char rel[160], *clk = NULL;

			trace_path(&s->c.tr, rel, sizeof(rel), "trace_clock");
			if (tfs_read(s->c.tr.tfs, rel, &clk, NULL) == 0 &&
			    (strstr(clk, "[x86-tsc]") || strstr(clk, "[counter]")))
				log_warn(
					"--offcpu: the trace clock counts %s, not nanoseconds: times are in those units",
					strstr(clk, "[counter]") ? "events" : "TSC cycles");
			free(clk);
		}
		s->c.unit = UNIT_NS;
		snprintf(s->c.weight_name, sizeof(s->c.weight_name), "off-CPU");
		stack_table_set_hist_scale(s->c.table, HIST_TIME);
		return 0;
	}
	if (!o->weight)
		return 0;
	if (sscanf(o->weight, "%127[^:]:%127[^:]:%63s", sys, ev, field) != 3)
		return fmt_error(
			err, errsz, -EINVAL,
			"bad --weight '%s' (SYSTEM:EVENT:FIELD, e.g. kmem:kmalloc:bytes_alloc)",
			o->weight);
	idx = evfmt_add(s->c.tr.fmt, s->c.tr.tfs, sys, ev);
	if (idx < 0)
		return fmt_error(err, errsz, idx, "--weight: unknown event '%s:%s'", sys, ev);
	r = evfmt_field(s->c.tr.fmt, (unsigned int)idx, field, &fl);
	if (r == -ENOENT)
		return fmt_error(err, errsz, r, "--weight: %s:%s has no field '%s'", sys, ev,
				 field);
	if (r < 0)
		return fmt_error(err, errsz, r,
				 "--weight: %s:%s field '%s' is not a number (1, 2, 4 or 8 bytes)",
				 sys, ev, field);
	r = ingest_set_weight(s->c.ing, (unsigned int)idx, &fl);
	if (r < 0)
		return fmt_error(err, errsz, r, "out of memory");
	s->c.unit = unit_of(field);
	fmt_sanitize(s->c.weight_name, sizeof(s->c.weight_name), field, strlen(field));
	/* the histograms of single weights: time in its units, anything else in powers of 2 */
	stack_table_set_hist_scale(s->c.table, s->c.unit == UNIT_NS ? HIST_TIME : HIST_LOG2);
	return 0;
}
