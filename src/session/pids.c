// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * session_pids.c - -p and --tid: the processes and threads asked for,
 * checked against /proc, written to the instance's set_event_pid (read back
 * until nothing is missing) and handed to ingest.
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

/* ---- -p and --tid --------------------------------------------------------- */

static int session_tgid(void *ctx, int tid)
{
	struct session *s = ctx;

	return tgid_cache_get(s->tgids, tid);
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
			r = ingest_set_tids(s->ing, all, o->ntids + 1);
			free(all);
		} else {
			r = ingest_set_tids(s->ing, o->tids, o->ntids);
		}
		if (r == 0 && o->npids) {
			s->tgids = tgid_cache_new(s->tfs, true);
			if (!s->tgids)
				return -ENOMEM;
			r = ingest_set_procs(s->ing, o->pids, o->npids, session_tgid, s);
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
	r = ingest_set_tids(s->ing, all, o->npids + o->ntids);
	free(all);
	return r;
}

/* every -p names a running process and every --tid a running thread */
bool session_targets_gone(const struct session *s)
{
	const struct session_opts *o = &s->opts;
	int i;

	/* a recording's or a simulator's pids are not this machine's */
	if ((!o->npids && !o->ntids) || o->tracefs || s->mode == SESSION_REPLAY)
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
			return session_errf(err, errsz, -ESRCH, "-p %d: no such process",
					    o->pids[i]);
		if (r < 0)
			return session_errf(err, errsz, r, "-p %d: cannot read /proc/%d/status: %s",
					    o->pids[i], o->pids[i], strerror(-r));
		if (tgid != o->pids[i])
			return session_errf(err, errsz, -EINVAL,
					    "-p %d: %d is a thread of process %d (-p %d: the whole process; --tid %d: this thread)",
					    o->pids[i], o->pids[i], tgid, tgid, o->pids[i]);
	}
	for (i = 0; i < o->ntids; i++) {
		r = tgid_of_proc(o->tids[i], &tgid);
		if (r == -ENOENT || r == -ESRCH)
			return session_errf(err, errsz, -ESRCH, "--tid %d: no such thread",
					    o->tids[i]);
		if (r < 0)
			return session_errf(err, errsz, r, "--tid %d: cannot read /proc/%d/status: %s",
					    o->tids[i], o->tids[i], strerror(-r));
	}
	return 0;
}

/* the threads of every -p process, and the --tid threads, as "1 2 3" */
static char *pid_filter_list(struct session *s)
{
	const struct session_opts *o = &s->opts;
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
			if (cap - len < 16) {
				char *nb = realloc(buf, cap * 2);

				if (!nb) {
					if (tids != &one)
						free(tids);
					free(buf);
					return NULL;
				}
				buf = nb;
				cap *= 2;
			}
			len += (size_t)snprintf(buf + len, cap - len, "%s%d", len ? " " : "", tids[j]);
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
static char *pid_filter_missing(struct session *s, const char *rel, const char *want)
{
	char *have = NULL, *miss, *tok, *save = NULL, *w = strdup(want);
	size_t len = 0;

	miss = malloc(strlen(want) + 1);
	if (!w || !miss || tfs_read(s->tfs, rel, &have, NULL) < 0) {
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
int session_setup_pid_filter(struct session *s, char *err, size_t errsz)
{
	const struct session_opts *o = &s->opts;
	char rel[160], *list, *miss;
	int r, pass;

	if (!o->npids && !o->ntids)
		return 0;
	if (o->npids) {
		session_path(s, rel, sizeof(rel), "options/record-tgid");
		if (tfs_exists(s->tfs, rel) && tfs_write(s->tfs, rel, "1") < 0)
			log_warn("cannot turn on record-tgid: threads that end quickly may be missed");
		session_path(s, rel, sizeof(rel), "options/event-fork");
		r = tfs_exists(s->tfs, rel) ? tfs_write(s->tfs, rel, "1") : -ENOENT;
		if (r < 0)
			log_warn("cannot turn on event-fork (%s): threads started later are counted only if the kernel records them",
				 strerror(-r));
	}
	session_path(s, rel, sizeof(rel), "set_event_pid");
	if (!tfs_exists(s->tfs, rel))
		return 0; /* ingest filters alone */
	list = pid_filter_list(s);
	if (!list)
		return -ENOMEM;
	if (!list[0]) {
		free(list);
		return session_errf(err, errsz, -ESRCH, "the processes of -p have ended");
	}
	/* the first write replaces the list; the others add to it (no O_TRUNC) */
	r = tfs_write_mode(s->tfs, rel, list, O_TRUNC);
	free(list);
	for (pass = 0; r >= 0 && pass < 16; pass++) {
		list = pid_filter_list(s);
		miss = list ? pid_filter_missing(s, rel, list) : NULL;
		free(list);
		if (!miss)
			return -ENOMEM;
		if (!miss[0]) {
			free(miss);
			return 0;
		}
		log_debug("set_event_pid: %s missing, added again", miss);
		r = tfs_write_mode(s->tfs, rel, miss, 0);
		free(miss);
	}
	if (r < 0)
		return session_errf(err, errsz, r, "cannot write set_event_pid: %s", strerror(-r));
	log_warn("set_event_pid: threads still start faster than the filter takes them: some may not be traced");
	return 0;
}

