// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * main.c - the command line (args.c, its options in options.c), the batch
 * loop (batch.c) or the hand-over to the screen (ui/), --list-events.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/args.h"
#include "cli/batch.h"
#include "cli/child.h"
#include "cli/options.h"
#include "cli/serve.h"
#include "core/log.h"
#include "kernel/evlist.h"
#include "kernel/guard.h"
#include "kernel/signals.h"
#include "kernel/tfs.h"
#include "output/diff.h"
#include "output/export.h"
#include "session/session.h"
#include "sym/ufile.h"
#include "ui/ui.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: stacktop [OPTION]...\n"
		"       stacktop [OPTION]... -- CMD [ARG]...\n"
		"       stacktop -r FILE [-r FILE]... [OPTION]...\n"
		"       stacktop --diff BEFORE AFTER|- [OPTION]...\n"
		"       stacktop --list-events [GLOB]\n"
		"       stacktop --cleanup\n"
		"Show the kernel stack traces ftrace records, ranked by how often they are hit;\n"
		"with -- CMD, those of the command it runs (its exit status is CMD's).\n"
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
		level == LOG_LVL_ERR	? "error: "
		: level == LOG_LVL_WARN ? "warning: "
					: "",
		msg);
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
		cli_error("stacktop: no event matches '%s'\n", a->list_glob);
		return 1;
	}
	return 0;
}

/* `stacktop-guard --guardian PID RUNDIR`, its stdin the pipe: guard.h */
static int guardian_main(int argc, char **argv)
{
	struct stat sb;
	char *end;
	long pid;

	errno = 0;
	pid = argc == 4 ? strtol(argv[2], &end, 10) : 0;
	if (argc != 4 || errno || *end || pid <= 0 || pid > INT_MAX ||
	    fstat(STDIN_FILENO, &sb) < 0 || !S_ISFIFO(sb.st_mode)) {
		fprintf(stderr, "stacktop: %s is stacktop's own, for its guardian process\n",
			GUARD_ARG);
		return 2;
	}
	return guard_run((int)pid, strcmp(argv[3], "-") ? argv[3] : NULL);
}

struct cleanup_count {
	int undone;
	int failed;
};

static void cleanup_note(void *ctx, int pid, int err, const char *what)
{
	struct cleanup_count *c = ctx;

	if (err == -EPERM) {
		c->failed++; /* a refused root: the warning said why */
		return;
	}
	if (err) {
		printf("stacktop %d: could not undo it all (%s), kept for a later try: %s\n", pid,
		       strerror(-err), what);
		c->failed++;
		return;
	}
	printf("stacktop %d had left tracing changed: %s\n", pid, what);
	c->undone++;
}

/* --cleanup: 0 nothing was left, 1 something was and is undone, 2 something is still left */
static int cleanup(const struct args *a)
{
	struct cleanup_count c = { 0 };
	char err[512];
	int r;

	r = session_cleanup(&a->so, cleanup_note, &c, err, sizeof(err));
	if (fflush(stdout) == EOF && r >= 0)
		r = -EIO;
	if (r < 0 || c.failed) {
		if (r < 0)
			fprintf(stderr, "stacktop: --cleanup: %s\n", err[0] ? err : strerror(-r));
		return 2;
	}
	if (!c.undone) {
		printf("nothing to clean up: no stacktop run left tracing changed\n");
		return fflush(stdout) == EOF ? 2 : 0;
	}
	return 1;
}

/* a ui_opts callback: the command has ended (reaped), and how */
static bool child_ended_cb(void *ctx, char *what, size_t size)
{
	struct child *c = ctx;

	if (!child_ended(c))
		return false;
	snprintf(what, size, "%s %s", c->name, c->what);
	return true;
}

/* a ui_opts callback: the screen has read (@tick: and refreshed): --serve's share */
static void serve_cb(void *ctx, struct session *s, bool tick)
{
	if (tick)
		serve_tick(ctx, s);
	else
		serve_work(ctx, s);
}

/* the screen, with what the command line asked of its view */
static int run_screen(struct session *s, const struct args *a, struct session *before,
		      struct child *child, struct serve *sv)
{
	struct ui_opts uo = {
		.delay = a->delay,
		.top = a->top,
		.mouse = a->mouse,
		.color = a->color,
		.event_filter = a->view.event,
		.sort = (int)a->sort,
		.cumulative = a->cumulative,
		.count = a->count,
		.comm = a->comm,
		.before = before,
		.sort_given = a->sort_set,
		.filter = a->view_filter,
		.comm_text = a->view_comm,
		.ascending = a->view.invert,
		.pid = a->view.pid,
		.cpu = a->view.cpu,
		.hide_idle = a->view.hide_idle,
		.child_ended = a->cmd ? child_ended_cb : NULL,
		.child_ctx = child,
		.child_note = child->output,
		.collect = sv ? serve_cb : NULL,
		.collect_ctx = sv,
	};
	int r = ui_run(s, &uo);

	if (r < 0) {
		fprintf(stderr, "stacktop: cannot use the terminal: %s\n", strerror(-r));
		return 1;
	}
	return 0;
}

/* --diff: BEFORE read whole; AFTER, a file, becomes the session's recording */
static int open_before(struct args *a, struct session **before)
{
	struct session_opts bo = { .kallsyms = a->so.kallsyms,
				   .files = &a->diff_before,
				   .nfiles = 1 };
	char err[512];
	int r = session_open(&bo, before, err, sizeof(err));

	if (r < 0) {
		fprintf(stderr, "stacktop: --diff BEFORE: %s\n", err[0] ? err : strerror(-r));
		return r;
	}
	session_drain(*before, 0);
	if (a->diff_after) {
		a->files[0] = a->diff_after;
		a->so.nfiles = 1;
	}
	return 0;
}

/* BEFORE's view names its events by its own indexes: AFTER's are others */
static void view_in_after(struct args *a, struct session *before, struct session *s)
{
	int bev = a->view.event;

	if (!before || bev < 0)
		return;
	a->view.event = diff_event_map(before, bev, s);
	if (a->view.event == DIFF_NO_EVENT) {
		fprintf(stderr,
			"stacktop: --diff: AFTER has no event %s (BEFORE's view): all events shown\n",
			session_event(before, (unsigned int)bev));
		a->view.event = -1;
	}
}

/*
 * --serve: its configuration read and its socket listening first of all (a
 * refused address or a busy port changes nothing, in tracefs or elsewhere),
 * its thread started once the session is open (serve_go(): a scrape before
 * waits in the socket's backlog)
 */
static int serve_begin(const struct args *a, struct serve **ret)
{
	char err[512];
	int r;

	*ret = NULL;
	if (!a->serve.addr) {
		if (a->serve.cert || a->serve.key || a->serve.auth) {
			fprintf(stderr, "stacktop: --serve-cert, --serve-key and --serve-auth "
					"go with --serve\n");
			return -EINVAL;
		}
		return 0;
	}
	r = serve_prepare(&a->serve, ret, err, sizeof(err));
	if (r < 0)
		fprintf(stderr, "stacktop: %s\n", err[0] ? err : strerror(-r));
	return r;
}

static int serve_go(struct serve *sv, struct session *s)
{
	char err[512];
	int r;

	if (!sv)
		return 0;
	serve_tick(sv, s); /* the first scrape finds figures: those of the first read */
	r = serve_start(sv, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "stacktop: %s\n", err[0] ? err : strerror(-r));
		return r;
	}
	fprintf(stderr,
		"stacktop: serving %s (metrics, debug/pprof/profile, snapshot.json, "
		"flame.html)\n",
		serve_url(sv));
	return 0;
}

/* the view the server's snapshots and profiles show: the command line's, every stack */
static void serve_view(struct serve *sv, const struct args *a, struct session *s)
{
	struct report_opts ro = {
		.rank = a->view,
		.root = a->root,
		.lost_stack = a->lost_stack,
	};

	if (!sv)
		return;
	ro.rank.key = RANK_TOTAL;
	ro.rank.match = NULL;
	ro.rank.attr_match = NULL;
	ro.rank.weight = session_unit(s) != UNIT_NONE && !a->count;
	serve_set_view(sv, &ro);
}

int main(int argc, char **argv)
{
	struct session *s = NULL, *before = NULL;
	struct serve *sv = NULL;
	struct child child = { .pid = 0,
			       .go = -1,
			       .err = -1,
			       .rl = { .master = -1, .slave = -1, .out = -1, .tty = -1 } };
	char err[512];
	struct args a;
	int r, status;

	if (argc >= 2 && !strcmp(argv[1], GUARD_ARG))
		return guardian_main(argc, argv);
	r = args_parse(argc, argv, &a);
	if (r)
		return r;
	if (a.help) {
		usage(stdout);
		return 0;
	}
	if (a.list_events)
		return list_events(&a);
	log_set_sink(batch_sink, NULL);
	log_set_level(a.verbose > 1 ? LOG_LVL_DEBUG : a.verbose ? LOG_LVL_INFO : LOG_LVL_WARN);
	if (a.cleanup)
		return cleanup(&a);
	if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO))
		a.batch = true;
	if (export_format_get(a.format)->flags & EXPORT_F_BINARY && !a.output &&
	    isatty(STDOUT_FILENO)) {
		fprintf(stderr,
			"stacktop: not writing %s, a binary format, to a terminal: use -o FILE\n",
			export_format_name((enum export_format)a.format));
		return 2;
	}

	/*
	 * The processes first, while there is no thread (the signals'
	 * watchdog, libraries'), no handler and no curses to inherit: the
	 * command, waiting to be released (child.h); the guardian, for a run
	 * that changes tracefs (guard.h).
	 */
	if (serve_begin(&a, &sv) < 0)
		return 1;
	signal(SIGCHLD,
	       SIG_DFL); /* an ignored SIGCHLD (inherited) would hide the command's status */
	/* the files of other users are opened and read by processes the run can abandon */
	if (!a.so.nfiles && !a.so.map_file && !(a.diff && a.diff_after)) {
		r = ufile_reader_start(&sig_stop);
		if (r < 0)
			log_warn("no reader process (%s): files of other users are not read",
				 strerror(-r));
	}
	if (a.cmd) {
		if (child_start(&child, a.cmd, !a.batch, a.batch && !a.output && !a.quiet,
				a.preserve_env) < 0) {
			serve_stop(sv);
			return 1;
		}
		a.pids[0] = child.pid;
		a.so.npids = 1;
		a.so.pid_tree = true;
	}
	if (!a.so.nfiles && !a.so.map_file && !(a.diff && a.diff_after) &&
	    (geteuid() == 0 || a.so.tracefs)) {
		r = guard_start(a.so.rundir);
		if (r < 0)
			log_warn(
				"no guardian process (%s): if stacktop is killed with SIGKILL, tracing stays changed until the next run",
				strerror(-r));
	}
	r = sig_install(a.batch ? NULL : ui_emergency);
	if (r < 0) {
		fprintf(stderr, "stacktop: cannot install signal handlers: %s\n", strerror(-r));
		serve_stop(sv);
		child_finish(&child, false);
		guard_done();
		return 1;
	}

	if (a.diff && open_before(&a, &before) < 0) {
		serve_stop(sv);
		guard_done();
		return 1;
	}
	r = session_open(&a.so, &s, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "stacktop: %s%s\n", a.diff ? "--diff AFTER: " : "",
			err[0] ? err : strerror(-r));
		serve_stop(sv);
		session_close(before);
		guard_done();
		child_finish(&child, false);
		return 1;
	}
	/* tracing is on: the command may run */
	if (a.cmd) {
		status = child_release(&child);
		if (status) {
			serve_stop(sv);
			session_close(s);
			guard_done();
			return status;
		}
	}
	args_apply_view(&a, before ? before : s);
	view_in_after(&a, before, s);
	serve_view(sv, &a, s);
	if (serve_go(sv, s) < 0) {
		serve_stop(sv);
		session_close(s);
		session_close(before);
		guard_done();
		child_finish(&child, false);
		return 1;
	}
	if (a.batch)
		status = batch_run(s, &a, before, a.cmd ? &child : NULL, sv);
	else
		status = run_screen(s, &a, before, &child, sv);
	serve_stop(sv);
	session_close(s);
	args_free();
	session_close(before);
	guard_done();
	ufile_reader_end();
	/* its exit status is stacktop's (as time and perf record do), unless stacktop failed */
	if (a.cmd) {
		child_finish(&child, sig_stop != 0);
		if (!status)
			status = child_exit_status(&child);
	}
	return status;
}
