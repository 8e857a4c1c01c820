// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * args.c - see args.h.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/argval.h"
#include "cli/options.h"
#include "core/rank.h"
#include "output/export.h"
#include "session/session.h"
#include "ui/ui.h"

/* "-e PAT if EXPR" made by --filter (static: reachable until exit) */
static char *owned[MAX_EVENTS];
static int nowned;

/* --user-buffer: a perf ring holds a sample of 8 KiB of stack at least, and is pinned */
#define USER_BUFFER_MIN (64UL << 10)
#define USER_BUFFER_MAX (1UL << 30)
/* --user=dwarf,SIZE: perf's bounds on sample_stack_user (a multiple of 8) */
#define USER_STACK_MIN 64
#define USER_STACK_MAX 65528

static void list_error(const char *what, const char *arg, int r)
{
	if (r == -E2BIG)
		cli_error("stacktop: too many %ss in '%s' (at most %d in all)\n", what, arg,
			  MAX_LIST);
	else
		cli_error("stacktop: bad %s list '%s' (numbers and ranges: 12,15-17)\n", what, arg);
}

/* -o, --format and --folded-root together; the format guessed from the suffix */
static int check_output(struct args *a)
{
	const struct export_fmt *fe;
	char with[128], without[128];

	if (a->format < 0 && a->output) {
		int g = export_format_guess(a->output);

		a->format = g < 0 ? EXPORT_TEXT : g;
	}
	if (a->format < 0)
		a->format = EXPORT_TEXT;
	if (a->output)
		a->batch = true;
	fe = export_format_get(a->format);
	if (a->root != EXPORT_ROOT_NONE && !(fe->flags & EXPORT_F_ROOT)) {
		export_format_list(with, sizeof(with), EXPORT_F_ROOT, 0, " and ");
		cli_error("stacktop: --folded-root applies to --format %s\n", with);
		return 2;
	}
	if (a->lost_stack && !(fe->flags & EXPORT_F_LOST)) {
		export_format_list(with, sizeof(with), EXPORT_F_LOST, 0, " and ");
		export_format_list(without, sizeof(without), 0, EXPORT_F_LOST, " and ");
		cli_error("stacktop: --folded-lost applies to --format %s (%s carry the losses as "
			  "counters)\n",
			  with, without);
		return 2;
	}
	return 0;
}

/* --weight and --offcpu: their events, and what they do not go with */
static int check_weight(struct args *a)
{
	int i;

	if ((a->so.weight || a->so.offcpu) &&
	    (a->so.replay || a->so.map_file || a->so.nfiles || (a->diff && a->diff_after) ||
	     a->list_events)) {
		cli_error("stacktop: --weight and --offcpu read a live kernel: not with "
			  "--replay/--map/--diff to a file/--list-events\n");
		return 2;
	}
	if (a->so.weight && a->so.offcpu) {
		cli_error("stacktop: --weight and --offcpu: choose one\n");
		return 2;
	}
	if (a->count && !a->so.weight && !a->so.offcpu) {
		cli_error("stacktop: --count applies to --weight or --offcpu\n");
		return 2;
	}
	if (a->so.offcpu) {
		if (a->so.nevents) {
			cli_error("stacktop: --offcpu traces sched:sched_switch itself: no -e\n");
			return 2;
		}
		a->events[a->so.nevents++] = "sched:sched_switch";
		/* the wakeups split the time and stand in for a lost switch-in */
		a->events[a->so.nevents++] = "sched:sched_waking";
	}
	if (a->so.weight) {
		for (i = 0; i < a->so.nevents; i++)
			if (!strcmp(a->events[i], a->weight_event))
				return 0;
		if (a->so.nevents >= MAX_EVENTS) {
			cli_error("stacktop: too many -e (at most %d)\n", MAX_EVENTS);
			return 2;
		}
		a->events[a->so.nevents++] = a->weight_event;
	}
	return 0;
}

/* -- CMD: what goes with it */
static int check_cmd(const struct args *a)
{
	const char *what = NULL;

	if (a->so.npids || a->so.ntids)
		what = "-p/--tid: it traces the command's own processes";
	else if (a->so.nfiles || a->so.map_file || a->diff)
		what = "-r/--map/--diff: it traces the live kernel";
	else if (a->list_events)
		what = "--list-events";
	else if (a->so.tracefs)
		what = "--tracefs: the command runs on this machine, whose tracefs that is not";
	else if (a->so.mode == SESSION_PASSIVE)
		what = "--mode passive: the map's counts do not tell processes apart";
	if (!what)
		return 0;
	cli_error("stacktop: -- CMD: not with %s\n", what);
	return 2;
}

int args_parse(int argc, char **argv, struct args *a)
{
	struct option long_opts[64];
	char short_opts[64];
	long v;
	int c, r;

	memset(a, 0, sizeof(*a));
	a->delay = 1.0;
	a->iterations = -1;
	a->top = 0;
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

	_Static_assert(sizeof(long_opts) / sizeof(long_opts[0]) > 48, "room for the options");
	if (cli_noptions >= sizeof(long_opts) / sizeof(long_opts[0]))
		return 1;
	cli_getopt(long_opts, short_opts, sizeof(short_opts));
	opterr = 0; /* cli_getopt_error() says it, never replaying the argument raw */
	while ((c = getopt_long(argc, argv, short_opts, long_opts, NULL)) != -1) {
		switch (c) {
		case 'e':
			if (a->so.nevents >= MAX_EVENTS) {
				cli_error("stacktop: too many -e (at most %d)\n", MAX_EVENTS);
				return 2;
			}
			a->events[a->so.nevents++] = optarg;
			break;
		case 'p':
			r = argval_list(optarg, a->pids, a->so.npids, MAX_LIST, INT_MAX);
			if (r < 0) {
				list_error("pid", optarg, r);
				return 2;
			}
			a->so.npids = r;
			break;
		case OPT_TID:
			r = argval_list(optarg, a->tids, a->so.ntids, MAX_LIST, INT_MAX);
			if (r < 0) {
				list_error("thread id", optarg, r);
				return 2;
			}
			a->so.ntids = r;
			break;
		case OPT_COMM:
			if (!optarg[0] || strlen(optarg) > 127) {
				cli_error(
					"stacktop: bad --comm '%s' (a command name or a glob, 1 to 127 characters)\n",
					optarg);
				return 2;
			}
			a->comm = optarg;
			break;
		case 'C':
			r = argval_list(optarg, a->cpus, a->so.ncpus, MAX_LIST, 65535);
			if (r < 0) {
				list_error("CPU", optarg, r);
				return 2;
			}
			a->so.ncpus = r;
			break;
		case 'd': {
			char *end;

			errno = 0;
			a->delay_set = true;
			a->delay = strtod(optarg, &end);
			if (errno || end == optarg || *end || !isfinite(a->delay) ||
			    a->delay < 0.05 || a->delay > 3600) {
				cli_error("stacktop: bad delay '%s' (seconds, 0.05 to 3600)\n",
					  optarg);
				return 2;
			}
			break;
		}
		case 'n':
			if (argval_int(optarg, 1, LONG_MAX, &v)) {
				cli_error("stacktop: bad iteration count '%s'\n", optarg);
				return 2;
			}
			a->iterations = v;
			break;
		case 'b':
			a->batch = true;
			break;
		case 'M':
			a->mouse = false;
			break;
		case 'v':
			a->verbose++;
			break;
		case 'u':
			/* -u=dwarf as --help writes it (getopt gives "=dwarf"; issue 27) */
			if (optarg && optarg[0] == '=' && optarg[1])
				optarg++;
			if (!optarg) {
				a->so.user = SESSION_USER_AUTO;
			} else if (!strcmp(optarg, "fp")) {
				a->so.user = SESSION_USER_FP;
			} else if (!strcmp(optarg, "dwarf")) {
				a->so.user = SESSION_USER_DWARF;
			} else if (!strncmp(optarg, "dwarf,", 6)) {
				/* perf's --call-graph dwarf,SIZE: the stack copied per sample */
				size_t sz;

				if (argval_size(optarg + 6, 1, &sz) || sz < USER_STACK_MIN ||
				    sz > USER_STACK_MAX) {
					cli_error(
						"stacktop: bad --user '%s' (dwarf,SIZE: the user stack "
						"copied per sample, 64 to 65528 bytes, K suffix)\n",
						optarg);
					return 2;
				}
				a->so.user = SESSION_USER_DWARF;
				a->so.user_stack = (unsigned int)((sz + 7) & ~(size_t)7);
				if (a->so.user_stack > USER_STACK_MAX)
					a->so.user_stack = USER_STACK_MAX;
			} else {
				cli_error("stacktop: bad --user '%s' (fp, dwarf or dwarf,SIZE)\n",
					optarg);
				return 2;
			}
			break;
		case 'h':
			a->help = true;
			return 0;
		case 'V':
			printf("stacktop %s\n", STACKTOP_VERSION);
			exit(0);
		case OPT_TOP:
			if (argval_int(optarg, 1, 100000, &v)) {
				cli_error("stacktop: bad --top '%s' (1 to 100000)\n", optarg);
				return 2;
			}
			a->top = (int)v;
			break;
		case OPT_EXPAND:
			if (argval_int(optarg, 0, 100000, &v)) {
				cli_error("stacktop: bad --expand '%s'\n", optarg);
				return 2;
			}
			a->expand = (int)v;
			break;
		case OPT_MODE:
			r = session_mode_parse(optarg);
			if (r < 0) {
				cli_error(
					"stacktop: bad --mode '%s' (auto, stackmap, stacks, passive)\n",
					optarg);
				return 2;
			}
			a->so.mode = (enum session_mode)r;
			break;
		case OPT_TRACEFS:
			a->so.tracefs = optarg;
			break;
		case OPT_KALLSYMS:
			a->so.kallsyms = optarg;
			break;
		case OPT_RESET_FIRST:
			a->so.reset_first = true;
			break;
		case OPT_RUNDIR:
			a->so.rundir = optarg;
			break;
		case OPT_CLEANUP:
			a->cleanup = true;
			break;
		case OPT_PRESERVE_ENV:
			a->preserve_env = optarg ? optarg : "";
			break;
		case OPT_NO_COLOR:
			a->color = false;
			break;
		case OPT_BUFFER_KB:
			if (argval_int(optarg, 4, 1 << 22, &v)) {
				cli_error("stacktop: bad --buffer-kb '%s'\n", optarg);
				return 2;
			}
			a->so.buffer_kb = (unsigned int)v;
			break;
		case OPT_SORT:
			a->sort_set = true;
			if (!strcmp(optarg, "hits") || !strcmp(optarg, "delta"))
				a->sort = RANK_DELTA;
			else if (!strcmp(optarg, "total"))
				a->sort = RANK_TOTAL;
			else if (!strcmp(optarg, "depth"))
				a->sort = RANK_DEPTH;
			else if (!strcmp(optarg, "id"))
				a->sort = RANK_ID;
			else {
				cli_error("stacktop: bad --sort '%s' (hits, total, depth, id)\n",
					  optarg);
				return 2;
			}
			break;
		case OPT_FOLDED:
		case OPT_JSON:
		case OPT_FORMAT:
			r = c == OPT_FOLDED ? EXPORT_FOLDED
			    : c == OPT_JSON ? EXPORT_JSON
					    : export_format_parse(optarg);
			if (r < 0) {
				char names[256];

				export_format_list(names, sizeof(names), 0, 0, ", ");
				cli_error("stacktop: bad --format '%s' (%s)\n", optarg, names);
				return 2;
			}
			if (a->format >= 0 && a->format != r) {
				cli_error("stacktop: --format %s and %s: choose one\n",
					  export_format_name((enum export_format)a->format),
					  export_format_name((enum export_format)r));
				return 2;
			}
			a->format = r;
			break;
		case 'o':
			if (!*optarg) {
				cli_error("stacktop: empty -o file name\n");
				return 2;
			}
			a->output = optarg;
			break;
		case OPT_FOLDED_LOST:
			a->lost_stack = true;
			break;
		case OPT_FOLDED_ROOT:
			if (!strcmp(optarg, "none"))
				a->root = EXPORT_ROOT_NONE;
			else if (!strcmp(optarg, "comm"))
				a->root = EXPORT_ROOT_COMM;
			else if (!strcmp(optarg, "pid") || !strcmp(optarg, "comm-pid"))
				a->root = EXPORT_ROOT_PID;
			else {
				cli_error("stacktop: bad --folded-root '%s' (none, comm, pid)\n",
					  optarg);
				return 2;
			}
			break;
		case OPT_FILTER: {
			int i, done = 0;

			for (i = a->filtered; i < a->so.nevents; i++) {
				size_t len;
				char *t;

				if (strstr(a->events[i], " if ") || nowned >= MAX_EVENTS)
					continue;
				len = strlen(a->events[i]) + strlen(optarg) + 5;
				t = malloc(len);
				if (!t)
					return 1;
				snprintf(t, len, "%s if %s", a->events[i], optarg);
				owned[nowned++] = t;
				a->events[i] = t;
				done++;
			}
			if (!done || !*optarg) {
				cli_error(
					"stacktop: --filter '%s' applies to the -e events before it "
					"(that have no ' if ' of their own): none\n",
					optarg);
				return 2;
			}
			a->filtered = a->so.nevents;
			break;
		}
		case OPT_FUNCTION:
		case OPT_KPROBE:
		case OPT_TRIGGER: {
			const char **list = c == OPT_FUNCTION ? a->functions
					    : c == OPT_KPROBE ? a->kprobes : a->triggers;
			int *n = c == OPT_FUNCTION ? &a->so.nfunctions
				 : c == OPT_KPROBE ? &a->so.nkprobes : &a->so.ntriggers;

			if (*n >= MAX_EVENTS || !*optarg) {
				cli_error("stacktop: %s '%s' (at most %d)\n",
					  *optarg ? "too many" : "empty", optarg, MAX_EVENTS);
				return 2;
			}
			list[(*n)++] = optarg;
			break;
		}
		case OPT_CUMULATIVE:
			a->cumulative = true;
			a->sort_set = true;
			break;
		case OPT_WEIGHT: {
			const char *last = strrchr(optarg, ':');

			if (!last || last == optarg || !last[1] || !strchr(optarg, ':') ||
			    strchr(optarg, ':') == last ||
			    (size_t)(last - optarg) >= sizeof(a->weight_event) || strlen(last) > 63) {
				cli_error("stacktop: bad --weight '%s' (SYSTEM:EVENT:FIELD, e.g. "
					  "kmem:kmalloc:bytes_alloc)\n",
					  optarg);
				return 2;
			}
			snprintf(a->weight_event, sizeof(a->weight_event), "%.*s",
				 (int)(last - optarg), optarg);
			a->so.weight = optarg;
			break;
		}
		case OPT_OFFCPU:
			if (!optarg || !strcmp(optarg, "blocked"))
				a->so.offcpu = SESSION_OFFCPU_BLOCKED;
			else if (!strcmp(optarg, "all"))
				a->so.offcpu = SESSION_OFFCPU_ALL;
			else if (!strcmp(optarg, "wait"))
				a->so.offcpu = SESSION_OFFCPU_WAIT;
			else {
				cli_error("stacktop: bad --offcpu '%s' (blocked, all, wait)\n",
					  optarg);
				return 2;
			}
			break;
		case OPT_DEPTH:
			if (argval_int(optarg, 1, STACK_MAX_DEPTH, &v)) {
				cli_error("stacktop: bad --depth '%s' (1 to %d)\n", optarg,
					  STACK_MAX_DEPTH);
				return 2;
			}
			a->so.group_depth = (unsigned int)v;
			break;
		case OPT_BY_FUNC:
			a->so.group_func = true;
			break;
		case OPT_COUNT:
			a->count = true;
			break;
		case 'r':
			if (a->so.nfiles >= MAX_FILES) {
				cli_error("stacktop: too many -r (at most %d)\n", MAX_FILES);
				return 2;
			}
			a->files[a->so.nfiles++] = optarg;
			break;
		case OPT_DIFF:
			a->diff = true;
			a->diff_before = optarg;
			break;
		case OPT_MAP:
			a->so.map_file = optarg;
			break;
		case OPT_SHOW_SELF:
			a->so.show_self = true;
			break;
		case OPT_USER_SAMPLE:
			if (argval_int(optarg, 1, 1000000, &v)) {
				cli_error(
					"stacktop: bad --user-sample '%s' (one event in N: 1 to 1000000)\n",
					optarg);
				return 2;
			}
			a->so.user_sample = (unsigned int)v;
			break;
		case OPT_USER_BUFFER:
			if (argval_size(optarg, 1, &a->so.user_buffer) ||
			    a->so.user_buffer < USER_BUFFER_MIN ||
			    a->so.user_buffer > USER_BUFFER_MAX) {
				cli_error(
					"stacktop: bad --user-buffer '%s' (bytes with K, M or G, 64K to 1G)\n",
					optarg);
				return 2;
			}
			break;
		case OPT_MAX_MEMORY:
			if (argval_size(optarg, 256 << 10, &a->so.max_memory)) {
				cli_error(
					"stacktop: bad --max-memory '%s' (bytes with K, M or G, at least 256K)\n",
					optarg);
				return 2;
			}
			break;
		case OPT_LIST_EVENTS:
			a->list_events = true;
			a->list_glob = optarg;
			break;
		case OPT_PRINT_KEYS:
			ui_print_keys(stdout);
			exit(0);
		case OPT_PRINT_OPTIONS:
			if (!optarg || !strcmp(optarg, "help"))
				cli_print_help(stdout);
			else if (!strcmp(optarg, "man"))
				cli_print_man(stdout);
			else if (!strcmp(optarg, "complete"))
				cli_print_complete(stdout);
			else if (!strcmp(optarg, "formats"))
				cli_print_formats_man(stdout);
			else
				return 2;
			exit(fflush(stdout) ? 1 : 0);
		default:
			cli_getopt_error(argv, optind, c, optopt);
			return 2;
		}
	}
	/* -- CMD [ARGS]: what follows is the command's (getopt stopped at "--") */
	if (optind > 1 && !strcmp(argv[optind - 1], "--")) {
		if (optind >= argc) {
			cli_error(
				"stacktop: -- wants a command after it (stacktop [OPTION]... -- CMD [ARG]...)\n");
			return 2;
		}
		a->cmd = argv + optind;
		optind = argc;
		/* without -d: one report, of the command's whole run (-o FILE is that file) */
		if (!a->delay_set && a->iterations < 0)
			a->iterations = 1;
		r = check_cmd(a);
		if (r)
			return r;
	}
	if (a->cleanup && (a->cmd || a->so.nfiles || a->so.map_file || a->diff || a->list_events)) {
		cli_error(
			"stacktop: --cleanup undoes what dead runs left, and exits: only --tracefs, --rundir and -v go with it\n");
		return 2;
	}
	if (a->list_events && !a->list_glob && optind + 1 == argc)
		a->list_glob = argv[optind++];
	if (a->diff) {
		if (optind >= argc) {
			cli_error(
				"stacktop: --diff BEFORE AFTER: AFTER is missing (a file, or - for the live kernel)\n");
			return 2;
		}
		a->diff_after = strcmp(argv[optind], "-") ? argv[optind] : NULL;
		optind++;
		if (a->so.nfiles || a->so.map_file) {
			cli_error("stacktop: --diff reads its own two sides: not with -r/--map\n");
			return 2;
		}
		if (a->format != -1 && !(export_format_get(a->format)->flags & EXPORT_F_DIFF)) {
			char names[128];

			export_format_list(names, sizeof(names), EXPORT_F_DIFF, 0, " or ");
			cli_error("stacktop: --diff writes %s\n", names);
			return 2;
		}
		if (a->format >= 0 || a->output)
			a->batch = true;
	}
	if (optind < argc) {
		cli_error("stacktop: unexpected argument '%s'\nTry 'stacktop --help'.\n",
			  argv[optind]);
		return 2;
	}
	if (a->list_events && (a->so.nfiles || a->so.map_file)) {
		cli_error(
			"stacktop: --list-events lists a kernel's events: not with --replay/--map\n");
		return 2;
	}
	/* perf's samples are the dwarf mode's: fp has nothing to sample or size */
	if ((a->so.user_sample || a->so.user_buffer) &&
	    a->so.user != SESSION_USER_DWARF && a->so.user != SESSION_USER_AUTO) {
		cli_error("stacktop: --%s sets the dwarf mode's perf samples: give -u or "
				"--user=dwarf\n",
			a->so.user_sample ? "user-sample" : "user-buffer");
		return 2;
	}
	if (a->cumulative && a->sort == RANK_DELTA)
		a->sort = RANK_TOTAL;
	r = check_weight(a);
	if (r)
		return r;
	r = check_output(a);
	if (r)
		return r;
	if (a->so.nfiles || a->so.map_file || (a->diff && a->diff_after)) {
		if (a->so.tracefs || a->so.nevents || a->so.mode != SESSION_AUTO ||
		    a->so.reset_first || a->so.nfunctions || a->so.nkprobes || a->so.ntriggers) {
			cli_error(
				"stacktop: --replay/--map/--diff read files: -e, --function, --kprobe, "
				"--trigger, --mode, --tracefs and --reset-first do not apply\n");
			return 2;
		}
		/* a recording is one interval: one report, at once */
		if (a->iterations < 0)
			a->iterations = 1;
		a->delay = 0.05;
	}
	if (export_format_get(a->format)->flags & EXPORT_F_ONE && !a->output && a->iterations != 1) {
		cli_error("stacktop: --format %s writes one profile: give -o FILE (one file "
			  "per refresh) or -n 1\n",
			  export_format_name((enum export_format)a->format));
		return 2;
	}
	return 0;
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
	/* a weighted snapshot ranked by hits stays so, unless --sort says otherwise */
	if (!a->sort_set && v.count)
		a->count = true;
}

void args_free(void)
{
	while (nowned > 0)
		free(owned[--nowned]);
}
