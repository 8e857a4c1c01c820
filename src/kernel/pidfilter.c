// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pidfilter.c - see pidfilter.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/array.h"
#include "core/format.h"
#include "core/log.h"
#include "kernel/pidfilter.h"
#include "kernel/state.h"
#include "kernel/tfs.h"
#include "kernel/tgid.h"
#include "kernel/trace.h"

/* the threads of every -p process, and the --tid threads, as "1 2 3" */
static char *pid_filter_list(struct trace *t)
{
	const struct session_opts *o = t->opts;
	size_t len = 0, cap = 256;
	char *buf = malloc(cap);
	int i, j;

	if (!buf)
		return NULL;
	buf[0] = '\0';
	for (i = 0; i < o->npids + o->ntids; i++) {
		int *tids = NULL, n = 0, one;

		if (i < o->npids && !o->tracefs && o->pids[i]) {
			if (tgid_threads(o->pids[i], &tids, &n) < 0)
				continue; /* gone since the check */
		} else {
			/* a --tid, or a -p where /proc is not the traced system's */
			one = i < o->npids ? o->pids[i] : o->tids[i - o->npids];
			tids = &one;
			n = 1;
		}
		for (j = 0; j < n; j++) {
			if (ARRAY_GROW(buf, cap, len + 16) < 0) {
				if (tids != &one)
					free(tids);
				free(buf);
				return NULL;
			}
			len += (size_t)snprintf(buf + len, cap - len, "%s%d", len ? " " : "",
						tids[j]);
		}
		if (tids != &one)
			free(tids);
	}
	return buf;
}

/*
 * The pids of @want ("1 2 3") that set_event_pid (@rel) does not hold, as
 * "4 5"; NULL on error
 */
static char *pid_filter_missing(struct trace *t, const char *rel, const char *want)
{
	char *have = NULL, *miss, *tok, *save = NULL, *w = strdup(want);
	size_t len = 0;

	miss = malloc(strlen(want) + 1);
	if (!w || !miss || tfs_read(t->tfs, rel, &have, NULL) < 0) {
		free(w);
		free(miss);
		free(have);
		return NULL;
	}
	miss[0] = '\0';
	/* a file that lists nothing back (a simulator's stub) cannot be checked */
	if (!strpbrk(have, "0123456789"))
		goto out;
	for (tok = strtok_r(w, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		const char *p = have;
		size_t n = strlen(tok);
		bool found = false;

		/* set_event_pid lists one pid a line */
		while (p && *p && !found) {
			found = !strncmp(p, tok, n) && (p[n] == '\n' || p[n] == ' ' || !p[n]);
			p = strpbrk(p, "\n ");
			if (p)
				p++;
		}
		if (!found)
			len += (size_t)sprintf(miss + len, "%s%s", len ? " " : "", tok);
	}
out:
	free(w);
	free(have);
	return miss;
}

/*
 * The kernel's side of -p/--tid (the private instance): set_event_pid holds
 * the threads there are now, options/event-fork adds the ones they start
 * (and their child processes, which ingest leaves out by tgid), and
 * options/record-tgid keeps saved_tgids filled for threads that end before
 * stacktop looks them up.
 *
 * Every write of set_event_pid copies the kernel's list into a new one
 * and puts the new one in its place: a thread started in between is added
 * (by event-fork) to the old list and lost (seen on 6.18: 9 of 5000 threads
 * started during 52 writes). A thread started between a listing of /proc
 * and the write is missing from that write too. So after writing, the list
 * is read back and what /proc has that it lacks is appended, until a read
 * finds nothing missing: from then on nothing replaces the list, and
 * event-fork keeps up with new threads.
 */
int pidfilter_setup(struct trace *t, char *err, size_t errsz)
{
	const struct session_opts *o = t->opts;
	char rel[160], *list, *miss;
	int r, pass;

	if (!o->npids && !o->ntids)
		return 0;
	if (o->npids) {
		trace_path(t, rel, sizeof(rel), "options/record-tgid");
		if (tfs_exists(t->tfs, rel) && tfs_write(t->tfs, rel, "1") < 0)
			log_warn(
				"cannot turn on record-tgid: threads that end quickly may be missed");
		trace_path(t, rel, sizeof(rel), "options/event-fork");
		r = tfs_exists(t->tfs, rel) ? tfs_write(t->tfs, rel, "1") : -ENOENT;
		if (r < 0)
			log_warn(
				"cannot turn on event-fork (%s): threads started later are counted only if the kernel records them",
				strerror(-r));
	}
	trace_path(t, rel, sizeof(rel), "set_event_pid");
	if (!tfs_exists(t->tfs, rel))
		return 0; /* ingest filters alone */
	list = pid_filter_list(t);
	if (!list)
		return -ENOMEM;
	if (!list[0]) {
		free(list);
		return fmt_error(err, errsz, -ESRCH, "the processes of -p have ended");
	}
	/* the first write replaces the list; the others add to it (no O_TRUNC) */
	r = tfs_write_mode(t->tfs, rel, list, O_TRUNC);
	free(list);
	for (pass = 0; r >= 0 && pass < 16; pass++) {
		list = pid_filter_list(t);
		miss = list ? pid_filter_missing(t, rel, list) : NULL;
		free(list);
		if (!miss)
			return -ENOMEM;
		if (!miss[0]) {
			free(miss);
			return 0;
		}
		log_debug("set_event_pid: %s missing, added again", miss);
		r = tfs_write_mode(t->tfs, rel, miss, 0);
		free(miss);
	}
	if (r < 0)
		return fmt_error(err, errsz, r, "cannot write set_event_pid: %s", strerror(-r));
	log_warn(
		"set_event_pid: threads still start faster than the filter takes them: some may not be traced");
	return 0;
}

int pidfilter_exclude_self(struct trace *t)
{
	static const char *const files[] = { "set_event_notrace_pid", "set_ftrace_notrace_pid" };
	char rel[160], pid[16];
	unsigned int i;
	int r, first = 0;

	if (t->opts->show_self)
		return 0;
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		/* a private instance has a function tracer only with --function */
		if (i == 1 && t->instance && !t->opts->nfunctions)
			continue;
		trace_path(t, rel, sizeof(rel), files[i]);
		if (!tfs_exists(t->tfs, rel))
			continue; /* kernels before 5.10 (events), 5.9 (functions) */
		/* a private instance goes whole; at the top level the list is the user's */
		r = t->instance ? tfs_write(t->tfs, rel, pid)
				: state_append_pid(t->state, rel, getpid());
		if (r < 0 && i == 1 && (r == -EPERM || r == -EACCES || r == -ENODEV)) {
			/* ftrace is off here (lockdown, kernel.ftrace_enabled=0): no
			 * function tracer can trace stacktop either */
			log_debug("%s: %s (no function tracing here)", rel, strerror(-r));
		} else if (r < 0) {
			log_warn(
				"cannot add stacktop's pid to %s: %s; its own reads of tracefs may be traced",
				rel, strerror(-r));
			if (!first)
				first = r;
		}
	}
	return first;
}

void pidfilter_release_self(struct trace *t)
{
	static const char *const files[] = { "set_event_notrace_pid", "set_ftrace_notrace_pid" };
	char rel[160];
	unsigned int i;
	int r;

	if (!t->instance || t->opts->show_self)
		return;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		if (i == 1 && !t->opts->nfunctions)
			continue;
		trace_path(t, rel, sizeof(rel), files[i]);
		if (!tfs_exists(t->tfs, rel))
			continue;
		/* an empty write truncates: the list held this pid alone */
		r = tfs_write(t->tfs, rel, "");
		if (r < 0)
			log_debug("cannot empty %s early: %s", rel, strerror(-r));
	}
}
