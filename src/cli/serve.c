// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * serve.c - --serve, the collector's side (serve.h; the bottom of the
 * module, below serve_http.c): the copy
 * /metrics is written from, published at each refresh; the jobs (a
 * profile's window opened and its counts copied, a snapshot written) done
 * when the collector next reads, then handed to the waiting request. A
 * profile is written from its copy by the server's thread
 * (serve_http.c): the collector pays the copy (the frames' names are
 * resolved once a stack, pprof_copy.h), not the writing. The time it
 * takes is counted (stacktop_serve_collector_seconds_total).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <microhttpd.h>

#include "cli/serve_priv.h"
#include "output/export.h"
#include "output/formats.h"
#include "output/metrics.h"
#include "output/pprof_copy.h"
#include "output/since.h"

void serve_pub_put(struct serve *sv, struct pub *p)
{
	bool last;

	if (!p)
		return;
	pthread_mutex_lock(&sv->lock);
	last = --p->refs == 0;
	pthread_mutex_unlock(&sv->lock);
	if (last) {
		metrics_snap_free(p->m);
		free(p);
	}
}

/* ---- the collector's side ------------------------------------------------ */

/* a clock's reading, in seconds */
static double clock_sec(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* when the collector started something for the server: its time and its thread's CPU */
struct tstamp {
	double mono;
	double cpu;
};

static struct tstamp now_t(void)
{
	return (struct tstamp){ clock_sec(CLOCK_MONOTONIC), clock_sec(CLOCK_THREAD_CPUTIME_ID) };
}

/* the collector's time since @t0 on the server's behalf (@profile: a profile's) */
static void spent(struct serve *sv, struct tstamp t0, uint64_t *what, bool profile)
{
	struct tstamp t = now_t();

	pthread_mutex_lock(&sv->lock);
	sv->fig.collector_sec += t.mono - t0.mono;
	sv->fig.collector_cpu += t.cpu - t0.cpu;
	if (profile)
		sv->fig.profile_sec += t.mono - t0.mono;
	if (what)
		(*what)++;
	pthread_mutex_unlock(&sv->lock);
}

void serve_tick(struct serve *sv, struct session *s)
{
	struct pub *p, *old;
	struct tstamp t0;

	if (!sv || sv->quiet)
		return;
	t0 = now_t();
	p = calloc(1, sizeof(*p));
	if (!p)
		return;
	p->m = metrics_snap_take(s, sv->conf.top, sv->ticks);
	if (!p->m) {
		free(p);
		return;
	}
	p->refs = 1;
	pthread_mutex_lock(&sv->lock);
	old = sv->pub;
	sv->pub = p;
	sv->ticks++;
	pthread_mutex_unlock(&sv->lock);
	serve_pub_put(sv, old);
	spent(sv, t0, &sv->fig.copies, false);
}

/* a profile's counts copied (the stacks the table of names has not met yet resolved) */
static void job_copy(struct serve *sv, struct session *s, struct job *j)
{
	if (pprof_names_fit(&sv->names, s) == 0)
		j->copy = pprof_copy_take(s, sv->names, &sv->view);
	if (!j->copy)
		j->err = -ENOMEM;
	pthread_mutex_lock(&sv->lock);
	sv->fig.names_stacks = pprof_names_stacks(sv->names);
	sv->fig.names_bytes = pprof_names_bytes(sv->names);
	pthread_mutex_unlock(&sv->lock);
}

/* the answer of a snapshot's job, into memory */
static void job_render(struct serve *sv, struct session *s, struct job *j)
{
	struct report_opts ro = sv->view;
	FILE *f = open_memstream(&j->body, &j->len);
	int r;

	if (!f) {
		j->err = -errno;
		return;
	}
	ro.top = j->top;
	r = export_write(f, s, &ro, j->kind == JOB_JSON ? EXPORT_JSON : EXPORT_HTML,
			 (int)(sv->ticks ? sv->ticks : 1));
	if (fclose(f) && r >= 0)
		r = -EIO;
	if (r < 0) {
		j->err = r;
		free(j->body);
		j->body = NULL;
		j->len = 0;
	}
}

void serve_job_finish(struct serve *sv, struct job *j)
{
	bool resume;

	pthread_mutex_lock(&sv->lock);
	j->done = true;
	sv->njobs--;
	resume = j->suspended && !j->resumed;
	if (resume)
		j->resumed = true;
	pthread_mutex_unlock(&sv->lock);
	if (resume)
		MHD_resume_connection(j->conn);
}

void serve_work(struct serve *sv, struct session *s)
{
	struct job *todo, *j, *next, *keep = NULL;
	struct tstamp t0;

	if (!sv || sv->quiet)
		return;
	if (!__atomic_load_n(&sv->work, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&sv->lock);
	todo = sv->jobs;
	sv->jobs = NULL;
	pthread_mutex_unlock(&sv->lock);
	for (j = todo; j; j = next) {
		next = j->next;
		j->next = NULL;
		if (j->kind == JOB_PROFILE && !j->since) {
			t0 = now_t();
			j->since = export_since_take(s, &sv->view.rank);
			spent(sv, t0, NULL, true);
			if (!j->since) {
				j->err = -ENOMEM;
				serve_job_finish(sv, j);
				continue;
			}
		}
		if (j->kind == JOB_PROFILE && export_since_seconds(j->since) < j->seconds) {
			j->next = keep;
			keep = j;
			continue;
		}
		t0 = now_t();
		if (j->kind == JOB_PROFILE) {
			job_copy(sv, s, j);
			spent(sv, t0, &sv->fig.profile_copies, true);
		} else {
			job_render(sv, s, j);
			spent(sv, t0, &sv->fig.snapshots, false);
		}
		serve_job_finish(sv, j);
	}
	pthread_mutex_lock(&sv->lock);
	while (keep) {
		j = keep;
		keep = keep->next;
		j->next = sv->jobs;
		sv->jobs = j;
	}
	__atomic_store_n(&sv->work, sv->jobs != NULL, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&sv->lock);
}
