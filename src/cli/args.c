// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * args.c - see args.h: the command line read with getopt_long() over the
 * table of options.h, each value taken (args_set.c), the operands (-- CMD,
 * --diff's AFTER) and the options checked together (args_check.c).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/args_check.h"
#include "cli/args_set.h"
#include "cli/options.h"
#include "output/metrics.h"
#include "core/rank.h"
#include "output/export.h"
#include "session/session.h"

/* -- CMD [ARGS]: what follows is the command's (getopt stopped at "--") */
static int take_cmd(int argc, char **argv, struct args *a)
{
	if (optind <= 1 || strcmp(argv[optind - 1], "--"))
		return 0;
	if (optind >= argc) {
		cli_error("stacktop: -- wants a command after it (stacktop [OPTION]... -- CMD "
			  "[ARG]...)\n");
		return 2;
	}
	a->cmd = argv + optind;
	optind = argc;
	/* without -d: one report, of the command's whole run (-o FILE is that file) */
	if (!a->delay_set && a->iterations < 0)
		a->iterations = 1;
	return args_check_cmd(a);
}

/* --diff: the formats that write a comparison (-o's suffix is guessed later: check_output) */
static int diff_format(struct args *a)
{
	int fmt = a->format != -1 ? a->format : a->output ? export_format_guess(a->output) : -1;

	if (fmt >= 0 && !(export_format_get(fmt)->flags & EXPORT_F_DIFF)) {
		char names[128];

		export_format_list(names, sizeof(names), EXPORT_F_DIFF, 0, " or ");
		cli_error("stacktop: --diff writes %s\n", names);
		return 2;
	}
	if (a->format >= 0 || a->output)
		a->batch = true;
	return 0;
}

/* --diff BEFORE AFTER: the second side, and what goes with it */
static int take_diff(int argc, char **argv, struct args *a)
{
	if (a->diff_base) {
		/* -r AFTER --diff-base BEFORE: --diff BEFORE AFTER */
		if (a->diff || a->so.nfiles != 1 || a->so.map_file) {
			cli_error("stacktop: --diff-base BEFORE compares one -r AFTER with it (not "
				  "with --diff, --map or several -r)\n");
			return 2;
		}
		a->diff = true;
		a->diff_before = a->diff_base;
		a->diff_after = a->so.files[0];
		a->so.nfiles = 0;
		return diff_format(a);
	}
	if (!a->diff)
		return 0;
	if (optind >= argc) {
		cli_error(
			"stacktop: --diff BEFORE AFTER: AFTER is missing (a file, or - for the live "
			"kernel)\n");
		return 2;
	}
	a->diff_after = strcmp(argv[optind], "-") ? argv[optind] : NULL;
	optind++;
	if (a->so.nfiles || a->so.map_file) {
		cli_error("stacktop: --diff reads its own two sides: not with -r/--map\n");
		return 2;
	}
	return diff_format(a);
}

static void args_defaults(struct args *a)
{
	memset(a, 0, sizeof(*a));
	a->delay = 1.0;
	a->iterations = -1;
	a->expand = 5;
	a->mouse = true;
	a->color = !getenv("NO_COLOR") || !*getenv("NO_COLOR");
	a->so.mode = SESSION_AUTO;
	a->so.events = a->events;
	a->so.functions = a->functions;
	a->so.kprobes = a->kprobes;
	a->so.triggers = a->triggers;
	a->so.pids = a->pids;
	a->so.tids = a->tids;
	a->so.cpus = a->cpus;
	a->so.files = a->files;
	a->view = (struct rank_opts){ .event = -1, .pid = -1, .cpu = -1 };
	a->sort = RANK_DELTA;
	a->format = -1;
	a->serve.top = METRICS_TOP_DEFAULT;
}

int args_parse(int argc, char **argv, struct args *a)
{
	struct option long_opts[96];
	char short_opts[96];
	int c, r;

	args_defaults(a);
	_Static_assert(sizeof(long_opts) / sizeof(long_opts[0]) > 48, "room for the options");
	if (cli_option_count() >= sizeof(long_opts) / sizeof(long_opts[0]))
		return 1;
	cli_getopt(long_opts, short_opts, sizeof(short_opts));
	opterr = 0; /* cli_getopt_error() says it, never replaying the argument raw */
	while ((c = getopt_long(argc, argv, short_opts, long_opts, NULL)) != -1) {
		const struct cli_option *o = cli_option_find(c);

		if (!o) {
			cli_getopt_error(argv, optind, c, optopt);
			return 2;
		}
		r = o->kind == CLI_K_CODE ? args_take_code(a, c, optarg)
					  : args_take_plain(a, o, optarg);
		if (r == ARGS_STOP)
			return 0;
		if (r)
			return r;
	}
	r = take_cmd(argc, argv, a);
	if (r)
		return r;
	if (a->cleanup && (a->cmd || a->so.nfiles || a->so.map_file || a->diff || a->list_events)) {
		cli_error(
			"stacktop: --cleanup undoes what dead runs left, and exits: only --tracefs, "
			"--rundir and -v go with it\n");
		return 2;
	}
	if (a->list_events && !a->list_glob && optind + 1 == argc)
		a->list_glob = argv[optind++];
	r = take_diff(argc, argv, a);
	if (r)
		return r;
	if (optind < argc) {
		cli_error("stacktop: unexpected argument '%s'\nTry 'stacktop --help'.\n",
			  argv[optind]);
		return 2;
	}
	return args_check_together(a);
}

void args_apply_view(struct args *a, struct session *s)
{
	struct session_view v;

	a->view.key = a->sort;
	if (!session_view(s, &v))
		return;
	if (!a->sort_set) {
		a->view_set = true;
		a->sort = (enum rank_key)v.sort;
		a->view.key = a->sort;
		a->view.invert = v.ascending;
		a->view_delta = v.delta;
		a->cumulative = !v.delta;
	}
	if (!a->top)
		a->top = v.top;
	a->view.event = v.event;
	a->view.pid = v.pid;
	a->view.cpu = v.cpu;
	a->view.hide_idle = v.hide_idle;
	a->view_filter = v.filter;
	a->view_comm = v.comm;
	/*
	 * --comm takes the place of the snapshot's own comm filter in the
	 * header and the screen's p: its stacks passed that one, so both hold
	 */
	if (a->comm && v.comm && v.comm[0] && strcmp(v.comm + (v.comm[0] == '='), a->comm))
		cli_error("stacktop: note: the snapshot was written showing the commands '%s': "
			  "--comm %s selects among those\n",
			  v.comm, a->comm);
	/* a weighted snapshot ranked by hits stays so, unless --sort says otherwise */
	if (!a->sort_set && v.count)
		a->count = true;
}

void args_free(void)
{
	args_set_free();
}
