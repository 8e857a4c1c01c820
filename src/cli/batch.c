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
#include <time.h>
#include <unistd.h>

#include "cli/args.h"
#include "cli/batch.h"
#include "cli/child.h"
#include "cli/serve.h"
#include "kernel/comm.h"
#include "kernel/signals.h"
#include "output/diff.h"
#include "output/formats.h"
#include "output/export.h"
#include "output/rows.h"
#include "session/session.h"

#define DRAIN_MS	  50
#define DRAIN_MIN_MS	  2
#define BATCH_DRAIN_PAGES 4096
#define BATCH_UNTIL_EXIT  1e6 /* -- CMD without -d: one interval, the command's life */
#define BATCH_LAST_MS	  500 /* after the command's end: what its last events left */

/* how an interval ended */
enum batch_end { END_TICK, END_STOP, END_CHILD };

/* the command has ended: read what it wrote before (bounded) */
static void batch_drain_last(struct session *s)
{
	struct timespec start, now;
	bool more = true;

	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		session_drain_for(s, BATCH_DRAIN_PAGES, DRAIN_MS, &more);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (more && !sig_stop &&
		 (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000 <
			 BATCH_LAST_MS);
}

/*
 * Drain for @secs: every DRAIN_MS, or sooner when a ring buffer reports
 * itself half full (poll on the per-CPU fds), never more often than every
 * DRAIN_MIN_MS. Each drain is bounded by the time left (and at most
 * DRAIN_MS) and by BATCH_DRAIN_PAGES, so the interval ends on time even
 * when the buffers never empty; a stop signal ends it within one page, the
 * end of -- CMD's command (@child) after what it left was read.
 */
static enum batch_end batch_wait(struct session *s, double secs, struct child *child,
				 struct serve *sv)
{
	struct pollfd fds[MAX_LIST];
	struct timespec start, now;
	int nfds;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		double el;
		bool more = false, ended;
		int ms;

		/* asked before the drain: the drain then reads everything it did */
		ended = child && child_ended(child);
		clock_gettime(CLOCK_MONOTONIC, &now);
		el = (double)(now.tv_sec - start.tv_sec) +
		     (double)(now.tv_nsec - start.tv_nsec) / 1e9;
		ms = el >= secs ? 1 : (int)((secs - el) * 1000) + 1;
		session_drain_for(s, BATCH_DRAIN_PAGES, ms > DRAIN_MS ? DRAIN_MS : (unsigned int)ms,
				  &more);
		serve_work(sv, s);
		if (sig_stop)
			return END_STOP;
		if (ended) {
			if (more)
				batch_drain_last(s);
			return END_CHILD;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		el = (double)(now.tv_sec - start.tv_sec) +
		     (double)(now.tv_nsec - start.tv_nsec) / 1e9;
		if (el >= secs)
			return END_TICK;
		if (more)
			continue; /* behind: no sleep until the interval ends */
		ms = (int)((secs - el) * 1000) + 1;
		if (ms > DRAIN_MS)
			ms = DRAIN_MS;
		poll(NULL, 0, ms < DRAIN_MIN_MS ? ms : DRAIN_MIN_MS);
		/* asked each time: a source may change its descriptors (a perf ring grown) */
		nfds = session_pollfds(s, fds, MAX_LIST);
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
 * FILE with ".i" before its suffix (out.pb.gz -> out.3.pb.gz: the longest
 * suffix a format has, else the last dot's).
 */
static int output_name(char *buf, size_t size, const struct args *a, long i)
{
	const char *base = strrchr(a->output, '/'), *dot;
	size_t len = strlen(a->output), k = export_suffix_len(a->output);
	int n;

	if (a->iterations == 1)
		n = snprintf(buf, size, "%s", a->output);
	else {
		base = base ? base + 1 : a->output;
		dot = k ? a->output + len - k : strrchr(base, '.');
		if (!dot || dot == base)
			dot = a->output + len;
		n = snprintf(buf, size, "%.*s.%ld%s", (int)(dot - a->output), a->output, i, dot);
	}
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/*
 * A format that cannot say what it misses (folded lines, ...): its note,
 * a line on standard error each, for a refresh whose period lost events
 * (and, -u dwarf, had events without a user stack), so that what is built
 * from it is not biased unawares.
 */
static void batch_note(struct session *s, const struct export_fmt *fe, const struct report_opts *ro,
		       long i)
{
	const char *p, *nl;
	char note[1024];

	if (!fe->note || fe->note(note, sizeof(note), s, ro) <= 0)
		return;
	for (p = note; *p; p = *nl ? nl + 1 : nl) {
		nl = p + strcspn(p, "\n");
		fprintf(stderr, "stacktop: %s refresh %ld: %.*s\n", fe->name, i, (int)(nl - p), p);
	}
}

/*
 * Standard output, written by write() calls that say they moved on: a
 * report that a stop signal finds on its way out (a reader draining a
 * pipe, a slow machine's last report) is not cut, one whose reader never
 * reads is (sig_progress(): the watchdog's 700 ms windows). An EINTR is
 * not an error: a stop signal ends the run after the report, not in it.
 */
static ssize_t out_write(void *cookie, const char *buf, size_t n)
{
	size_t done = 0;

	(void)cookie;
	while (done < n) {
		/* a page at a time: a write to a pipe returns once its reader took
		 * it, so a slow reader's progress is seen within the window */
		size_t k = n - done < 4096 ? n - done : 4096;
		ssize_t w = write(STDOUT_FILENO, buf + done, k);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return done ? (ssize_t)done : -1;
		done += (size_t)w;
		sig_progress();
	}
	return (ssize_t)done;
}

static int batch_loop(struct session *s, const struct args *a, struct session *before,
		      struct child *child, FILE *out, struct serve *sv);

int batch_run(struct session *s, const struct args *a, struct session *before, struct child *child,
	      struct serve *sv)
{
	cookie_io_functions_t io = { .write = out_write };
	FILE *out = fopencookie(NULL, "w", io);
	int r;

	if (!out) {
		fprintf(stderr, "stacktop: %s\n", strerror(errno));
		return 1;
	}
	fflush(stdout);
	r = batch_loop(s, a, before, child, out, sv);
	if (fclose(out) && !r && errno != EPIPE) {
		fprintf(stderr, "stacktop: cannot write the report: %s\n", strerror(errno));
		r = 1;
	}
	return r;
}

/* what a refresh's writing asks of the loop */
enum batch_next { NEXT_GO, NEXT_FAIL, NEXT_DONE };

/* --diff: the same refresh, compared with BEFORE */
static enum batch_next batch_diff(struct session *s, const struct args *a, struct session *before,
				  const struct report_opts *ro, long i, FILE *out)
{
	FILE *f = out;
	int r;

	if (a->output) {
		char path[PATH_MAX];

		if (output_name(path, sizeof(path), a, i) < 0 || !(f = export_create_file(path))) {
			fprintf(stderr, "stacktop: cannot create %s: %s\n", a->output,
				strerror(errno ? errno : ENAMETOOLONG));
			return NEXT_FAIL;
		}
	}
	/* the page: the differential flame graph; text and JSON: the table */
	if (a->format == EXPORT_HTML)
		r = export_html_diff(f, before, s, ro);
	else
		r = diff_write(f, before, s, ro, a->format == EXPORT_JSON, (int)i);
	if (f == out && r >= 0)
		r = export_flush(out);
	if (f != out && fclose(f) && r >= 0)
		r = -EIO;
	if (r == -EPIPE)
		return NEXT_DONE;
	if (r < 0) {
		fprintf(stderr, "stacktop: cannot write the diff: %s\n", strerror(-r));
		return NEXT_FAIL;
	}
	return NEXT_GO;
}

/* -o FILE: a file each refresh (one for a single refresh) */
static enum batch_next batch_file(struct session *s, const struct args *a,
				  const struct report_opts *ro, long i)
{
	const struct export_fmt *fe = export_format_get(a->format);
	char path[PATH_MAX], err[PATH_MAX + 128];
	int r;

	r = output_name(path, sizeof(path), a, i);
	if (r < 0) {
		fprintf(stderr, "stacktop: -o %s: name too long\n", a->output);
		return NEXT_FAIL;
	}
	r = export_write_file(s, ro, (enum export_format)a->format, (int)i, path, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "stacktop: %s\n", err);
		return NEXT_FAIL;
	}
	batch_note(s, fe, ro, i);
	return NEXT_GO;
}

/* standard output: the refreshes one after the other */
static enum batch_next batch_stream(struct session *s, const struct args *a,
				    const struct report_opts *ro, long i, FILE *out)
{
	const struct export_fmt *fe = export_format_get(a->format);
	int r;

	if (fe->between && i > 1)
		fputs(fe->between, out);
	r = export_write(out, s, ro, (enum export_format)a->format, (int)i);
	if (r >= 0)
		r = export_flush(out);
	if (r == -EPIPE)
		return NEXT_DONE; /* the reader has what it wanted (| head) */
	if (r < 0) {
		fprintf(stderr, "stacktop: cannot write the report: %s\n", strerror(-r));
		return NEXT_FAIL;
	}
	if (fe->note) {
		fflush(out); /* the note after its refresh, on a shared terminal */
		batch_note(s, fe, ro, i);
	}
	return NEXT_GO;
}

static int batch_loop(struct session *s, const struct args *a, struct session *before,
		      struct child *child, FILE *out, struct serve *sv)
{
	struct comm_filter cf = { .s = s, .pattern = a->comm };
	const struct export_fmt *fe = export_format_get(a->format);
	char comm[160];
	struct report_opts ro = {
		.top = a->top,
		.expand = a->expand,
		.delta = a->view_set ? a->view_delta : a->sort == RANK_DELTA,
		.rank = a->view,
		.root = a->root,
		.filter = a->view_filter,
		.lost_stack = a->lost_stack,
	};
	/* -- CMD without -d: one report, when it ends */
	double delay = child && !a->delay_set ? BATCH_UNTIL_EXIT : a->delay;
	enum batch_next next;
	long i;

	/* no --top: 20 rows, or every matching stack (the JSON snapshot) */
	if (!ro.top && !(fe->flags & EXPORT_F_ALL_ROWS))
		ro.top = 20;
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
		bool go_on, last;

		/* -n: the last interval's end is known, the teardown starts before it */
		if (i == a->iterations && !child)
			session_ending(s, delay);
		go_on = batch_wait(s, delay, child, sv) == END_TICK;

		if (sig_stop)
			serve_quiesce(sv); /* first: the rest may outlast the watchdog */
		/*
		 * stopped: the end is now, the sources let go of what is slow
		 * to undo (the pid list's grace periods) while the last report
		 * is made and written
		 */
		if (sig_stop && !child)
			session_ending(s, 0);
		/*
		 * the last report: the command's output no longer relayed, so
		 * nothing its tree writes (on the SIGTERM that follows, say)
		 * lands over or after it
		 */
		if (child && (!go_on || i == a->iterations))
			child_output_end(child, out, STDOUT_FILENO);
		if (sig_stop && a->quiet && !a->output && !before)
			break; /* -q: no last report to write */

		session_tick(s);
		serve_tick(sv, s);
		/*
		 * without -n, as perf record -p: the run ends with what it
		 * watched. Its last interval is mostly after the exit (an
		 * off-CPU table of 0ns rows): the last report is the whole run,
		 * ranked by the totals, the answer to "where did it spend it"
		 */
		last = a->iterations < 0 && !before && !child && session_stats(s)->targets_gone;
		if (last) {
			ro.delta = false;
			if (ro.rank.key == RANK_DELTA)
				ro.rank.key = RANK_TOTAL;
		}
		if (before)
			next = batch_diff(s, a, before, &ro, i, out);
		else if (a->output)
			next = batch_file(s, a, &ro, i);
		else if (a->quiet)
			next = NEXT_GO; /* -q: the agent, its reports served (--serve) */
		else
			next = batch_stream(s, a, &ro, i, out);
		if (next != NEXT_GO)
			return next == NEXT_FAIL ? 1 : 0;
		if (last) {
			fprintf(stderr,
				"stacktop: every process and thread of -p/--tid has exited; "
				"the last report is the whole run, ranked by its totals\n");
			break;
		}
		if (!go_on)
			break;
	}
	return 0;
}
