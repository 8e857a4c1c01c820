// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * main.c - the command line (args.c, its options in options.c), the batch
 * loop (batch.c) or the hand-over to the screen (ui/), --list-events.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/args.h"
#include "cli/batch.h"
#include "cli/options.h"
#include "core/log.h"
#include "kernel/evlist.h"
#include "kernel/signals.h"
#include "kernel/tfs.h"
#include "output/diff.h"
#include "output/export.h"
#include "session/session.h"
#include "ui/ui.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: stacktop [OPTION]...\n"
		"       stacktop -r FILE [-r FILE]... [OPTION]...\n"
		"       stacktop --diff BEFORE AFTER|- [OPTION]...\n"
		"       stacktop --list-events [GLOB]\n"
		"Show the kernel stack traces ftrace records, ranked by how often they are hit.\n"
		"\n");
	cli_print_help(f);
	fprintf(f, "\nKeys on the screen:\n");
	ui_print_keys(f);
	fprintf(f, "\nSee stacktop(8).\n");
}

static void batch_sink(void *ctx, enum log_level level, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "stacktop: %s%s\n",
		level == LOG_LVL_ERR ? "error: " : level == LOG_LVL_WARN ? "warning: " : "", msg);
}

static int list_one(void *ctx, const char *name, bool stacks)
{
	(void)ctx;
	if (printf("%s\t%s\n", name, stacks ? "yes" : "no") < 0)
		return -EIO;
	return 0;
}

/* --list-events: the events this kernel has, for scripts and completion */
static int list_events(const struct args *a)
{
	struct tfs *t;
	int r;

	r = tfs_open(a->so.tracefs, &t);
	if (r < 0) {
		fprintf(stderr, "stacktop: cannot open tracefs%s%s: %s%s\n",
			a->so.tracefs ? " " : "", a->so.tracefs ? a->so.tracefs : "", strerror(-r),
			r == -EPERM || r == -EACCES ? " (run as root)" : "");
		return 1;
	}
	r = evlist_read(t, a->list_glob, list_one, NULL);
	tfs_close(t);
	if (fflush(stdout) == EOF && r >= 0)
		r = -EIO;
	if (r == -ENOENT) {
		fprintf(stderr, "stacktop: %s has no available_events: not a tracefs\n",
			a->so.tracefs ? a->so.tracefs : "the tracefs root");
		return 1;
	}
	if (r < 0) {
		fprintf(stderr, "stacktop: cannot list events: %s%s\n", strerror(-r),
			r == -EPERM || r == -EACCES ? " (run as root)" : "");
		return 1;
	}
	if (r == 0 && a->list_glob) {
		fprintf(stderr, "stacktop: no event matches '%s'\n", a->list_glob);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct session *s = NULL, *before = NULL;
	char err[512];
	struct args a;
	int r, status;

	r = args_parse(argc, argv, &a);
	if (r)
		return r;
	if (a.help) {
		usage(stdout);
		return 0;
	}
	if (a.list_events)
		return list_events(&a);
	if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO))
		a.batch = true;
	if (a.format == EXPORT_PPROF && !a.output && isatty(STDOUT_FILENO)) {
		fprintf(stderr, "stacktop: not writing a gzip'd pprof profile to a terminal: use -o FILE\n");
		return 2;
	}

	log_set_sink(batch_sink, NULL);
	log_set_level(a.verbose > 1 ? LOG_LVL_DEBUG : a.verbose ? LOG_LVL_INFO : LOG_LVL_WARN);
	r = sig_install(a.batch ? NULL : ui_emergency);
	if (r < 0) {
		fprintf(stderr, "stacktop: cannot install signal handlers: %s\n", strerror(-r));
		return 1;
	}

	if (a.diff) {
		struct session_opts bo = { .kallsyms = a.so.kallsyms, .files = &a.diff_before,
					   .nfiles = 1 };

		r = session_open(&bo, &before, err, sizeof(err));
		if (r < 0) {
			fprintf(stderr, "stacktop: --diff BEFORE: %s\n", err[0] ? err : strerror(-r));
			return 1;
		}
		session_drain(before, 0);
		if (a.diff_after) {
			a.files[0] = a.diff_after;
			a.so.nfiles = 1;
		}
	}
	r = session_open(&a.so, &s, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "stacktop: %s%s\n", a.diff ? "--diff AFTER: " : "",
			err[0] ? err : strerror(-r));
		session_close(before);
		return 1;
	}
	args_apply_view(&a, before ? before : s);
	/* BEFORE's view names its events by its own indexes: AFTER's are others */
	if (before && a.view.event >= 0) {
		int bev = a.view.event;

		a.view.event = diff_event_map(before, bev, s);
		if (a.view.event == DIFF_NO_EVENT) {
			fprintf(stderr, "stacktop: --diff: AFTER has no event %s (BEFORE's view): all events shown\n",
				session_event(before, (unsigned int)bev));
			a.view.event = -1;
		}
	}

	if (a.batch) {
		status = batch_run(s, &a, before);
	} else {
		struct ui_opts uo = {
			.delay = a.delay,
			.top = a.top,
			.mouse = a.mouse,
			.color = a.color,
			.event_filter = a.view.event,
			.sort = (int)a.sort,
			.cumulative = a.cumulative,
			.count = a.count,
			.comm = a.comm,
			.before = before,
			.sort_given = a.sort_set,
			.filter = a.view_filter,
			.comm_text = a.view_comm,
			.ascending = a.view.invert,
			.pid = a.view.pid,
			.cpu = a.view.cpu,
			.hide_idle = a.view.hide_idle,
		};

		r = ui_run(s, &uo);
		if (r < 0) {
			fprintf(stderr, "stacktop: cannot use the terminal: %s\n", strerror(-r));
			status = 1;
		} else {
			status = 0;
		}
	}
	session_close(s);
	args_free();
	session_close(before);
	return status;
}
