// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * batch.c - see batch.h.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cli/args.h"
#include "cli/batch.h"
#include "kernel/comm.h"
#include "kernel/signals.h"
#include "output/diff.h"
#include "output/export.h"
#include "session/session.h"

#define DRAIN_MS   50
#define DRAIN_MIN_MS 2
#define BATCH_DRAIN_PAGES 4096

/*
 * Drain for @secs: every DRAIN_MS, or sooner when a ring buffer reports
 * itself half full (poll on the per-CPU fds), never more often than every
 * DRAIN_MIN_MS. Each drain is bounded by the time left (and at most
 * DRAIN_MS) and by BATCH_DRAIN_PAGES, so the interval ends on time even
 * when the buffers never empty; a stop signal ends it within one page.
 * False when a stop signal came.
 */
static bool batch_wait(struct session *s, double secs)
{
	struct pollfd fds[MAX_LIST];
	struct timespec start, now;
	int nfds = session_pollfds(s, fds, MAX_LIST);

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		double el;
		bool more = false;
		int ms;

		clock_gettime(CLOCK_MONOTONIC, &now);
		el = (double)(now.tv_sec - start.tv_sec) + (double)(now.tv_nsec - start.tv_nsec) / 1e9;
		ms = el >= secs ? 1 : (int)((secs - el) * 1000) + 1;
		session_drain_for(s, BATCH_DRAIN_PAGES, ms > DRAIN_MS ? DRAIN_MS : (unsigned int)ms,
				  &more);
		if (sig_stop)
			return false;
		clock_gettime(CLOCK_MONOTONIC, &now);
		el = (double)(now.tv_sec - start.tv_sec) + (double)(now.tv_nsec - start.tv_nsec) / 1e9;
		if (el >= secs)
			return true;
		if (more)
			continue; /* behind: no sleep until the interval ends */
		ms = (int)((secs - el) * 1000) + 1;
		if (ms > DRAIN_MS)
			ms = DRAIN_MS;
		poll(NULL, 0, ms < DRAIN_MIN_MS ? ms : DRAIN_MIN_MS);
		if (ms > DRAIN_MIN_MS && nfds)
			poll(fds, (nfds_t)nfds, ms - DRAIN_MIN_MS);
	}
}

struct comm_filter {
	struct session *s;
	const char *pattern;
};

/* --comm: only the hits of tasks with that name count */
static bool comm_filter_match(const struct stack_attr *a, void *ctx)
{
	const struct comm_filter *cf = ctx;

	return comm_match(cf->pattern, session_comm(cf->s, a->pid));
}

/*
 * The file of iteration @i: -o FILE itself for a single refresh, else
 * FILE with ".i" before its suffix (out.pb.gz -> out.3.pb.gz).
 */
static int output_name(char *buf, size_t size, const struct args *a, long i)
{
	static const char *const multi[] = { ".speedscope.json", ".pb.gz" };
	const char *base = strrchr(a->output, '/'), *dot = NULL;
	size_t k, len = strlen(a->output);
	int n;

	if (a->iterations == 1)
		n = snprintf(buf, size, "%s", a->output);
	else {
		base = base ? base + 1 : a->output;
		for (k = 0; k < sizeof(multi) / sizeof(multi[0]) && !dot; k++) {
			size_t m = strlen(multi[k]);

			if (len > m && (size_t)(a->output + len - base) > m &&
			    !strcasecmp(a->output + len - m, multi[k]))
				dot = a->output + len - m;
		}
		if (!dot)
			dot = strrchr(base, '.');
		if (!dot || dot == base)
			dot = a->output + len;
		n = snprintf(buf, size, "%.*s.%ld%s", (int)(dot - a->output), a->output, i, dot);
	}
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int batch_run(struct session *s, const struct args *a, struct session *before)
{
	struct comm_filter cf = { .s = s, .pattern = a->comm };
	char comm[160];
	struct report_opts ro = {
		.top = a->top ? a->top : a->format == EXPORT_JSON ? 0 : 20,
		.expand = a->expand,
		.delta = a->view_set ? a->view_delta : a->sort == RANK_DELTA,
		.rank = a->view,
		.root = a->root,
		.filter = a->view_filter,
	};
	enum export_format fmt = (enum export_format)a->format;
	long i;
	int r = 0;

	/* a weighted session ranks by weight unless --count */
	ro.rank.weight = session_unit(s) != UNIT_NONE && !a->count;
	if (a->comm) {
		ro.rank.attr_match = comm_filter_match;
		ro.rank.attr_ctx = &cf;
		/* as the screen's p takes it: "=" for a whole name or a glob */
		snprintf(comm, sizeof(comm), "=%s", a->comm);
		ro.comm = comm;
	} else {
		ro.comm = a->view_comm; /* a snapshot's: its stacks passed it */
	}
	for (i = 1; a->iterations < 0 || i <= a->iterations; i++) {
		bool go_on = batch_wait(s, a->delay);

		session_tick(s);
		if (before) {
			/* --diff: the same refresh, compared with BEFORE */
			FILE *f = stdout;

			if (a->output) {
				char path[PATH_MAX];

				if (output_name(path, sizeof(path), a, i) < 0 ||
				    !(f = export_create_file(path))) {
					fprintf(stderr, "stacktop: cannot create %s: %s\n", a->output,
						strerror(errno ? errno : ENAMETOOLONG));
					return 1;
				}
			}
			r = diff_write(f, before, s, &ro, fmt == EXPORT_JSON, (int)i);
			if (f != stdout && fclose(f) && r >= 0)
				r = -EIO;
			if (r == -EPIPE)
				return 0;
			if (r < 0) {
				fprintf(stderr, "stacktop: cannot write the diff: %s\n", strerror(-r));
				return 1;
			}
		} else if (a->output) {
			char path[PATH_MAX], err[PATH_MAX + 128];

			r = output_name(path, sizeof(path), a, i);
			if (r < 0) {
				fprintf(stderr, "stacktop: -o %s: name too long\n", a->output);
				return 1;
			}
			r = export_write_file(s, &ro, fmt, (int)i, path, err, sizeof(err));
			if (r < 0) {
				fprintf(stderr, "stacktop: %s\n", err);
				return 1;
			}
		} else {
			/* folded iterations on one stream: a blank line between them */
			if (fmt == EXPORT_FOLDED && i > 1)
				putchar('\n');
			r = export_write(stdout, s, &ro, fmt, (int)i);
			if (r == -EPIPE)
				return 0; /* the reader has what it wanted (| head) */
			if (r < 0) {
				fprintf(stderr, "stacktop: cannot write the report: %s\n",
					strerror(-r));
				return 1;
			}
		}
		if (!go_on)
			break;
		/* without -n, as perf record -p: the run ends with what it watched */
		if (a->iterations < 0 && !before && session_stats(s)->targets_gone) {
			fprintf(stderr, "stacktop: every process and thread of -p/--tid has exited\n");
			break;
		}
	}
	return 0;
}
