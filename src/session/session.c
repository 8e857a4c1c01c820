// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * session.c - what a session tells the outputs and the screen (session.h):
 * its counters, tables, names and options, each read in one place, and
 * the two settings the screen changes in the kernel (the stackmap option,
 * an event's filter).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/format.h"
#include "core/stack.h"
#include "core/stack_mem.h"
#include "kernel/comm.h"
#include "kernel/evfmt.h"
#include "kernel/state.h"
#include "kernel/tfs.h"
#include "kernel/trace.h"
#include "session/priv.h"
#include "session/session.h"

static const char *const mode_names[SESSION_MODE_MAX] = {
	[SESSION_AUTO] = "auto",       [SESSION_STACKMAP] = "stackmap", [SESSION_STACKS] = "stacks",
	[SESSION_PASSIVE] = "passive", [SESSION_REPLAY] = "replay",	[SESSION_ONCPU] = "oncpu",
	[SESSION_SAMPLED] = "sampled",
};

const char *session_mode_name(enum session_mode mode)
{
	return mode < SESSION_MODE_MAX ? mode_names[mode] : "?";
}

int session_mode_parse(const char *name)
{
	int i;

	for (i = 0; i < SESSION_MODE_MAX; i++)
		if (!strcmp(name, mode_names[i]))
			return i;
	return -EINVAL;
}

struct ksym *session_ksym(struct session *s)
{
	return s->c.tr.ksym;
}

const struct session_stats *session_stats(const struct session *s)
{
	return &s->c.stats;
}

struct stack_table *session_table(struct session *s)
{
	return s->view ? s->view : s->c.table;
}

void session_group(const struct session *s, unsigned int *ret_depth, bool *ret_func)
{
	*ret_depth = s->group_depth;
	*ret_func = s->group_func;
}

const uint8_t *session_group_by(const struct session *s)
{
	return s->group_by;
}

const char *session_group_key_name(unsigned int key)
{
	static const char *const names[GROUP_KEY_MAX] = {
		[GROUP_KEY_SYM] = "sym",
		[GROUP_KEY_DSO] = "dso",
		[GROUP_KEY_COMM] = "comm",
		[GROUP_KEY_KSYM] = "ksym",
	};

	return key < GROUP_KEY_MAX && names[key] ? names[key] : "";
}

enum session_unit session_unit(const struct session *s)
{
	return s->c.unit;
}

const char *session_weight_name(const struct session *s)
{
	return s->c.weight_name;
}

unsigned int session_nevents(const struct session *s)
{
	return source_nevents(&s->c);
}

const char *session_event(const struct session *s, unsigned int idx)
{
	return source_event(&s->c, idx);
}

const char *session_traced(const struct session *s)
{
	return s->c.tr.traced ? s->c.tr.traced : "";
}

const char *session_leftovers(const struct session *s, int *ret_n)
{
	if (ret_n)
		*ret_n = s->nleftovers;
	return s->leftovers[0] ? s->leftovers : NULL;
}

void session_sync_comm(struct session *s)
{
	/* added, not copied: a snapshot read back brings a count of its own */
	if (s->c.comms) {
		s->c.stats.comm_unnamed += comm_cache_unnamed(s->c.comms) - s->comm_unnamed_seen;
		s->comm_unnamed_seen = comm_cache_unnamed(s->c.comms);
	}
}

const char *session_comm(struct session *s, int pid)
{
	const char *name;

	if (stack_pid_folded(pid)) {
		const char *c = stack_table_folded_comm(s->c.table, pid);

		return c ? c : "?";
	}
	if (pid == STACK_PID_OVER)
		return "[memory limit]";
	name = comm_cache_get(s->c.comms, pid);
	/* a row's "?" counts at once: the next header says so */
	session_sync_comm(s);
	return name;
}

bool session_user(const struct session *s)
{
	return s->c.user_on;
}

unsigned int session_norigins(const struct session *s)
{
	return replay_json_norigins(&s->c);
}

const char *session_origin(const struct session *s, unsigned int idx)
{
	return replay_json_origin(&s->c, idx);
}

bool session_view(const struct session *s, struct session_view *ret)
{
	return replay_json_view(&s->c, ret);
}

int session_set_stackmap(struct session *s, bool on)
{
	int r;

	if (!s->c.tr.tfs || !tfs_exists(s->c.tr.tfs, "options/stackmap"))
		return -EOPNOTSUPP;
	if (s->c.tr.instance)
		return -EINVAL; /* the option lives at the top level only */
	r = state_write(s->c.tr.state, "options/stackmap", on ? "1" : "0");
	if (r == 0)
		s->c.stats.stackmap_on = on;
	return r;
}

/* "sys:event" of an index that has a filter file */
static int event_split(struct session *s, unsigned int idx, char *sys, char *ev, size_t size)
{
	const char *name, *colon;

	if (!s->c.tr.tfs || !s->c.tr.fmt || idx >= s->c.tr.fmt->nnames ||
	    s->c.tr.fmt->types[idx] < 0 || s->c.map_events)
		return -EOPNOTSUPP;
	name = s->c.tr.fmt->names[idx];
	colon = strchr(name, ':');
	if (!colon || !strcmp(name, "ftrace") || !strncmp(name, "ftrace:", 7) ||
	    strchr(name, ' ') || strchr(name, '#'))
		return -EOPNOTSUPP;
	snprintf(sys, size, "%.*s", (int)(colon - name), name);
	snprintf(ev, size, "%s", colon + 1);
	return 0;
}

int session_set_filter(struct session *s, unsigned int idx, const char *expr, char *err,
		       size_t errsz)
{
	char sys[128], ev[128];
	int r;

	if (err && errsz)
		err[0] = '\0';
	r = event_split(s, idx, sys, ev, sizeof(sys));
	if (r < 0)
		return fmt_error(err, errsz, r, "%s has no kernel filter", session_event(s, idx));
	if (s->c.tr.mode == SESSION_PASSIVE)
		return fmt_error(err, errsz, -EOPNOTSUPP,
				 "passive mode changes nothing in tracefs");
	if (!strcmp(expr, "0"))
		expr = "";
	return trace_write_filter(&s->c.tr, sys, ev, expr, err, errsz);
}

int session_get_filter(struct session *s, unsigned int idx, char *buf, size_t size)
{
	char sys[128], ev[128], rel[512], *text = NULL;
	int r;

	buf[0] = '\0';
	r = event_split(s, idx, sys, ev, sizeof(sys));
	if (r < 0)
		return r;
	snprintf(rel, sizeof(rel), "%sevents/%s/%s/filter", s->c.tr.prefix, sys, ev);
	r = tfs_read(s->c.tr.tfs, rel, &text, NULL);
	if (r < 0)
		return r;
	text[strcspn(text, "\n")] = '\0';
	if (strcmp(text, "none"))
		fmt_sanitize(buf, size, text, strlen(text));
	free(text);
	return 0;
}
