// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pids.c - -p and --tid: the processes and threads asked for, checked
 * against /proc and handed to ingest (the instance's own filter is
 * kernel/pidfilter.c), and whether they have all exited.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/format.h"
#include "core/log.h"
#include "ingest/ingest.h"
#include "kernel/proctree.h"
#include "kernel/tgid.h"
#include "session/priv.h"
#include "session/session.h"

/* ---- -p and --tid --------------------------------------------------------- */

static int session_tgid(void *ctx, int tid)
{
	struct session *s = ctx;

	return tgid_cache_get(s->tgids, tid);
}

/* -- CMD: a thread of the tree stands for its root, any other for itself */
static int session_tree_tgid(void *ctx, int tid)
{
	struct session *s = ctx;

	return proctree_has(s->tree, tid) ? s->opts.pids[0] : tid;
}

/* the tree of @pids[0], followed from now (before the command runs) */
static int session_set_tree(struct session *s)
{
	int r;

	s->tree = proctree_new(s->opts.pids[0]);
	if (!s->tree)
		return -ENOMEM;
	r = proctree_error(s->tree);
	if (r < 0)
		log_warn(
			"the command's processes are placed through /proc only (the kernel's proc connector: %s): those that end before their events are read may be missed",
			strerror(-r));
	return ingest_set_procs(s->c.ing, s->opts.pids, 1, session_tree_tgid, s);
}

/*
 * -p and --tid into ingest. Without this system's /proc (a recording, a
 * simulator) a process cannot be told from a thread: -p matches the
 * event's pid there, like --tid.
 */
int session_set_filters(struct session *s, bool use_proc)
{
	const struct session_opts *o = &s->opts;
	int *all, r;

	if (use_proc) {
		/* pid 0, the idle task, is no process of /proc: it is its own thread */
		bool idle = false;
		int i;

		for (i = 0; i < o->npids; i++)
			idle |= o->pids[i] == 0;
		if (idle) {
			all = malloc((size_t)(o->ntids + 1) * sizeof(*all));
			if (!all)
				return -ENOMEM;
			if (o->ntids)
				memcpy(all, o->tids, (size_t)o->ntids * sizeof(*all));
			all[o->ntids] = 0;
			r = ingest_set_tids(s->c.ing, all, o->ntids + 1);
			free(all);
		} else {
			r = ingest_set_tids(s->c.ing, o->tids, o->ntids);
		}
		if (r == 0 && o->npids && o->pid_tree)
			return session_set_tree(s);
		if (r == 0 && o->npids) {
			s->tgids = tgid_cache_new(s->c.tr.tfs, true);
			if (!s->tgids)
				return -ENOMEM;
			r = ingest_set_procs(s->c.ing, o->pids, o->npids, session_tgid, s);
		}
		return r;
	}
	all = malloc((size_t)(o->npids + o->ntids + 1) * sizeof(*all));
	if (!all)
		return -ENOMEM;
	if (o->npids)
		memcpy(all, o->pids, (size_t)o->npids * sizeof(*all));
	if (o->ntids)
		memcpy(all + o->npids, o->tids, (size_t)o->ntids * sizeof(*all));
	r = ingest_set_tids(s->c.ing, all, o->npids + o->ntids);
	free(all);
	return r;
}

/* every -p names a running process and every --tid a running thread */
bool session_targets_gone(const struct session *s)
{
	const struct session_opts *o = &s->opts;
	int i;

	/* a recording's or a simulator's pids are not this machine's */
	if ((!o->npids && !o->ntids) || o->tracefs || s->c.tr.mode == SESSION_REPLAY)
		return false;
	for (i = 0; i < o->npids; i++)
		if (kill(o->pids[i], 0) == 0 || errno != ESRCH)
			return false;
	for (i = 0; i < o->ntids; i++) {
		char p[32];

		snprintf(p, sizeof(p), "/proc/%d", o->tids[i]); /* threads too */
		if (access(p, F_OK) == 0)
			return false;
	}
	return true;
}

int session_check_pids(const struct session_opts *o, char *err, size_t errsz)
{
	int i, tgid, r;

	for (i = 0; i < o->npids; i++) {
		if (o->pids[i] == 0)
			continue; /* the idle task */
		r = tgid_of_proc(o->pids[i], &tgid);
		if (r == -ENOENT || r == -ESRCH)
			return fmt_error(err, errsz, -ESRCH, "-p %d: no such process", o->pids[i]);
		if (r < 0)
			return fmt_error(err, errsz, r, "-p %d: cannot read /proc/%d/status: %s",
					 o->pids[i], o->pids[i], strerror(-r));
		if (tgid != o->pids[i])
			return fmt_error(
				err, errsz, -EINVAL,
				"-p %d: %d is a thread of process %d (-p %d: the whole process; --tid %d: this thread)",
				o->pids[i], o->pids[i], tgid, tgid, o->pids[i]);
	}
	for (i = 0; i < o->ntids; i++) {
		r = tgid_of_proc(o->tids[i], &tgid);
		if (r == -ENOENT || r == -ESRCH)
			return fmt_error(err, errsz, -ESRCH, "--tid %d: no such thread",
					 o->tids[i]);
		if (r < 0)
			return fmt_error(err, errsz, r, "--tid %d: cannot read /proc/%d/status: %s",
					 o->tids[i], o->tids[i], strerror(-r));
	}
	return 0;
}
