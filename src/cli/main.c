// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * main.c - command line, batch loop, and the hand-over to the UI.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kernel/comm.h"
#include "output/diff.h"
#include "kernel/evlist.h"
#include "output/export.h"
#include "core/log.h"
#include "session/session.h"
#include "kernel/signals.h"
#include "core/stack_table.h"
#include "kernel/tfs.h"
#include "ui/ui.h"

#define MAX_EVENTS 64

/* "-e PAT if EXPR" made by --filter (static: reachable until exit) */
static char *owned[MAX_EVENTS];
static int nowned;
#define MAX_LIST   1024
#define MAX_FILES  63
#define DRAIN_MS   50
#define DRAIN_MIN_MS 2
#define BATCH_DRAIN_PAGES 4096

struct args {
	struct session_opts so;
	const char *events[MAX_EVENTS];
	const char *functions[MAX_EVENTS];
	const char *kprobes[MAX_EVENTS];
	const char *triggers[MAX_EVENTS];
	int filtered;             /* -e arguments --filter has seen */
	int pids[MAX_LIST];
	int tids[MAX_LIST];
	int cpus[MAX_LIST];
	const char *comm;
	double delay;
	long iterations;
	bool batch;
	int top;
	int expand;
	bool mouse;
	bool color;
	int format;           /* enum export_format, -1 until known */
	const char *output;   /* -o FILE */
	enum export_root root;
	bool cumulative;
	enum rank_key sort;
	const char *event_filter;
	int verbose;
	bool list_events;
	const char *list_glob;
	char weight_event[256]; /* SYS:EVENT of --weight */
	bool count;             /* --count: rank by hits though weighted */
	const char *files[MAX_FILES];  /* -r */
	bool sort_set;                 /* --sort or --cumulative given */
	const char *diff_before;       /* --diff BEFORE AFTER */
	const char *diff_after;        /* a file, or NULL for the live kernel ("-") */
	bool diff;
	bool view_set;                 /* the view comes from a snapshot */
	bool view_delta;               /* a snapshot ranked by its interval counts */
	const char *view_filter;       /* a snapshot's text filter (the screen applies it again) */
	const char *view_comm;         /* a snapshot's comm filter, as `p` takes it */
	struct rank_opts view;         /* a snapshot's filters (event, pid, cpu, hide_idle) */
};

enum {
	OPT_TOP = 0x100,
	OPT_MODE,
	OPT_TRACEFS,
	OPT_KALLSYMS,
	OPT_RESET_FIRST,
	OPT_RUNDIR,
	OPT_NO_COLOR,
	OPT_BUFFER_KB,
	OPT_EXPAND,
	OPT_SORT,
	OPT_FOLDED,
	OPT_JSON,
	OPT_CUMULATIVE,
	OPT_PRINT_KEYS,
	OPT_MAP,
	OPT_SHOW_SELF,
	OPT_LIST_EVENTS,
	OPT_MAX_MEMORY,
	OPT_FORMAT,
	OPT_FOLDED_ROOT,
	OPT_WEIGHT,
	OPT_OFFCPU,
	OPT_DEPTH,
	OPT_BY_FUNC,
	OPT_COUNT,
	OPT_FILTER,
	OPT_FUNCTION,
	OPT_KPROBE,
	OPT_TRIGGER,
	OPT_TID,
	OPT_COMM,
	OPT_DIFF,
};

static const struct option long_opts[] = {
	{ "event", required_argument, NULL, 'e' },
	{ "pid", required_argument, NULL, 'p' },
	{ "tid", required_argument, NULL, OPT_TID },
	{ "comm", required_argument, NULL, OPT_COMM },
	{ "cpu", required_argument, NULL, 'C' },
	{ "delay", required_argument, NULL, 'd' },
	{ "iterations", required_argument, NULL, 'n' },
	{ "batch", no_argument, NULL, 'b' },
	{ "no-mouse", no_argument, NULL, 'M' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ "user", optional_argument, NULL, 'u' },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "mode", required_argument, NULL, OPT_MODE },
	{ "tracefs", required_argument, NULL, OPT_TRACEFS },
	{ "kallsyms", required_argument, NULL, OPT_KALLSYMS },
	{ "reset-first", no_argument, NULL, OPT_RESET_FIRST },
	{ "rundir", required_argument, NULL, OPT_RUNDIR },
	{ "no-color", no_argument, NULL, OPT_NO_COLOR },
	{ "buffer-kb", required_argument, NULL, OPT_BUFFER_KB },
	{ "expand", required_argument, NULL, OPT_EXPAND },
	{ "sort", required_argument, NULL, OPT_SORT },
	{ "folded", no_argument, NULL, OPT_FOLDED },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "cumulative", no_argument, NULL, OPT_CUMULATIVE },
	{ "print-keys", no_argument, NULL, OPT_PRINT_KEYS },
	{ "replay", required_argument, NULL, 'r' },
	{ "map", required_argument, NULL, OPT_MAP },
	{ "show-self", no_argument, NULL, OPT_SHOW_SELF },
	{ "list-events", optional_argument, NULL, OPT_LIST_EVENTS },
	{ "max-memory", required_argument, NULL, OPT_MAX_MEMORY },
	{ "output", required_argument, NULL, 'o' },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "folded-root", required_argument, NULL, OPT_FOLDED_ROOT },
	{ "weight", required_argument, NULL, OPT_WEIGHT },
	{ "offcpu", optional_argument, NULL, OPT_OFFCPU },
	{ "depth", required_argument, NULL, OPT_DEPTH },
	{ "by-func", no_argument, NULL, OPT_BY_FUNC },
	{ "count", no_argument, NULL, OPT_COUNT },
	{ "filter", required_argument, NULL, OPT_FILTER },
	{ "function", required_argument, NULL, OPT_FUNCTION },
	{ "kprobe", required_argument, NULL, OPT_KPROBE },
	{ "trigger", required_argument, NULL, OPT_TRIGGER },
	{ "diff", required_argument, NULL, OPT_DIFF },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: stacktop [OPTION]...\n"
		"       stacktop -r FILE [-r FILE]... [OPTION]...\n"
		"       stacktop --diff BEFORE AFTER|- [OPTION]...\n"
		"       stacktop --list-events [GLOB]\n"
		"Show the kernel stack traces ftrace records, ranked by how often they are hit.\n"
		"\n"
		"  -e, --event SYS:EVENT   trace this event (repeatable; globs: 'kmem:*');\n"
		"                          default sched:sched_switch; 'SYS:EVENT if FILTER'\n"
		"                          writes FILTER to the event's kernel filter file\n"
		"      --filter FILTER     kernel filter for the -e events before it that have\n"
		"                          none (e.g. 'prev_state & 3': blocked switches only)\n"
		"      --trigger 'SYS:EVENT[:N] [if FILTER]'\n"
		"                          record stacks only where a stacktrace trigger fires\n"
		"                          (at most N times); then -e events get one too\n"
		"      --function GLOB     the function tracer on the functions matching GLOB\n"
		"                          (repeatable), rows keyed by the traced function\n"
		"      --kprobe FUNC[+OFF] a kprobe event on FUNC (repeatable), removed on exit\n"
		"  -p, --pid PID[,PID...]  count only events of these processes: every\n"
		"                          thread, started later too (ranges: 10-12;\n"
		"                          at most 1024 pids and thread ids); without -n a\n"
		"                          batch run ends when they have exited\n"
		"      --tid TID[,TID...]  count only events of these threads\n"
		"      --comm NAME         show only hits of tasks named NAME (exact, or a\n"
		"                          glob: 'kworker/*')\n"
		"  -C, --cpu CPU[,CPU...]  read only these CPUs (ranges: 0-3; at most 1024)\n"
		"  -u, --user[=fp|dwarf]   also take the user stack of each event, shown below\n"
		"                          the kernel frames (dwarf: perf samples unwound with\n"
		"                          .eh_frame, binaries without frame pointers too,\n"
		"                          stacks mode only; fp: the kernel's frame-pointer\n"
		"                          walk, 8 frames, stacks or stackmap mode; default\n"
		"                          dwarf where it works, else fp)\n"
		"  -d, --delay SECONDS     refresh interval, fractional (default 1)\n"
		"  -n, --iterations N      exit after N refreshes\n"
		"  -b, --batch             print reports to stdout instead of the screen\n"
		"                          (implied when stdout or stdin is not a terminal)\n"
		"      --top N             stacks in the table (default 20 in batch; JSON: all)\n"
		"      --expand N          batch: expand the top N stacks into frames (default 5)\n"
		"      --sort KEY          hits|total|depth|id (default hits: last interval)\n"
		"      --cumulative        rank by total hits instead of the last interval\n"
		"      --weight SYS:EVENT:FIELD\n"
		"                          rank by the sum of an event's field instead of hits\n"
		"                          (kmem:kmalloc:bytes_alloc); traces that event too;\n"
		"                          bytes/size/len fields in KiB/MiB, *time*/_ns in ms\n"
		"      --offcpu[=blocked|all|wait]\n"
		"                          rank by the time tasks spend switched out, at the\n"
		"                          stack where they left the CPU (sched_switch until the\n"
		"                          same pid is switched in); blocked tasks only (the\n"
		"                          default, =blocked), =all:\n"
		"                          preemptions too; =wait: split in offcpu:blocked\n"
		"                          (until woken) and offcpu:runqueue (woken, no CPU yet)\n"
		"      --count             with --weight/--offcpu: start ranking by hits\n"
		"      --depth N           group stacks by their first N frames (leaf side):\n"
		"                          --depth 1 ranks the functions the events happen in\n"
		"      --by-func           group frames by function (func+off merged)\n"
		"  -o, --output FILE       batch: write each refresh to FILE (safely: a temporary\n"
		"                          file renamed over it); with more than one refresh,\n"
		"                          one file each: NAME.N.SUFFIX\n"
		"      --format FMT        text|json|folded|pprof|speedscope (default: from the\n"
		"                          suffix of -o: .txt .json .folded .pb.gz .speedscope.json;\n"
		"                          else text)\n"
		"      --folded            same as --format folded (flame graph input)\n"
		"      --json              same as --format json: a snapshot per refresh (every\n"
		"                          stack with frames, key, counts per event/cpu/pid)\n"
		"      --folded-root WHAT  none|comm|pid: root folded stacks at the command\n"
		"                          (pid: command;pid) that hit them (default none)\n"
		"      --mode MODE         auto|stackmap|stacks|passive (default auto)\n"
		"  -r, --replay FILE       read a file instead of the kernel: a trace-cmd\n"
		"                          trace.dat (recorded with stack traces: trace-cmd\n"
		"                          record -T; a stack_map_bin or stack_map next to it\n"
		"                          resolves its stack ids), or a JSON snapshot (--json,\n"
		"                          -o FILE.json), shown as it was seen; several -r\n"
		"                          snapshots merge, with an ORIGIN column\n"
		"      --diff BEFORE AFTER compare two snapshots (or trace.dats), or BEFORE\n"
		"                          with the live kernel when AFTER is '-': stacks\n"
		"                          ranked by the change of their share of the hits,\n"
		"                          NEW and GONE marked (text, or JSON with --json;\n"
		"                          on a terminal the screen, with BEF%%, CHG%% and\n"
		"                          GONE rows, ranked the same way)\n"
		"      --map FILE          a saved stack_map_bin or stack_map: resolves the\n"
		"                          ids of a replayed trace; alone, ranks its stacks\n"
		"                          by ref_count (what stackmap_dump.py --top shows)\n"
		"      --reset-first       reset the kernel map (and counts) at start\n"
		"      --tracefs DIR       tracefs root (default: find or mount it); a tracefs\n"
		"                          or a root-owned directory only root can write\n"
		"      --kallsyms FILE     kernel symbols (default /proc/kallsyms; a regular file)\n"
		"      --buffer-kb N       per-CPU ring buffer of the private instance\n"
		"      --rundir DIR        restore journal directory (default /run/stacktop)\n"
		"      --show-self         count stacktop's own events too (hidden by default)\n"
		"      --max-memory SIZE   bound on what stacktop keeps per stack and per\n"
		"                          process (K, M, G suffixes; default 256M): near it\n"
		"                          exited processes are folded into their command\n"
		"      --list-events [GLOB]\n"
		"                          print this kernel's events (SYS:EVENT), one a line,\n"
		"                          a tab, and yes/no: can stacktop record their stacks\n"
		"  -M, --no-mouse          do not use the mouse\n"
		"      --no-color          monochrome (also when NO_COLOR is set)\n"
		"  -v, --verbose           more messages\n"
		"  -h, --help              this help\n"
		"  -V, --version           version\n"
		"\n"
		"Keys on the screen:\n");
	ui_print_keys(f);
	fprintf(f, "\nSee stacktop(8).\n");
}

static int parse_int(const char *s, long min, long max, long *ret)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return -EINVAL;
	*ret = v;
	return 0;
}

/* "65536", "512K", "256M", "1G" (binary units, optional "B"/"iB") */
static int parse_size(const char *s, size_t min, size_t *ret)
{
	unsigned long long v, mul = 1;
	char *end;

	errno = 0;
	if (*s < '0' || *s > '9')
		return -EINVAL;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	switch (*end) {
	case 'k': case 'K':
		mul = 1ULL << 10;
		break;
	case 'm': case 'M':
		mul = 1ULL << 20;
		break;
	case 'g': case 'G':
		mul = 1ULL << 30;
		break;
	case '\0':
	case 'b': case 'B':
		break;
	default:
		return -EINVAL;
	}
	if (mul > 1) {
		end++;
		if (*end == 'i')
			end++;
	}
	if (*end == 'b' || *end == 'B')
		end++;
	if (*end || v > (1ULL << 50) / mul || v * mul < min)
		return -EINVAL;
	*ret = (size_t)(v * mul);
	return 0;
}

/* "1,3,5-7" into @out; returns count or -EINVAL */
static int parse_list(const char *s, int *out, int n, int max, long maxval)
{
	char *dup = strdup(s), *tok, *save = NULL;
	int r = n;

	if (!dup)
		return -ENOMEM;
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *dash = strchr(tok, '-');
		long a, b;

		if (dash) {
			*dash = '\0';
			if (parse_int(tok, 0, maxval, &a) || parse_int(dash + 1, 0, maxval, &b) ||
			    b < a) {
				r = -EINVAL;
				break;
			}
		} else {
			if (parse_int(tok, 0, maxval, &a)) {
				r = -EINVAL;
				break;
			}
			b = a;
		}
		for (; a <= b; a++) {
			if (r >= max) {
				r = -E2BIG;
				goto out;
			}
			out[r++] = (int)a;
		}
	}
out:
	free(dup);
	return r;
}

static void list_error(const char *what, const char *arg, int r)
{
	if (r == -E2BIG)
		fprintf(stderr, "stacktop: too many %ss in '%s' (at most %d in all)\n", what, arg,
			MAX_LIST);
	else
		fprintf(stderr, "stacktop: bad %s list '%s' (numbers and ranges: 12,15-17)\n", what,
			arg);
}

static void batch_sink(void *ctx, enum log_level level, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "stacktop: %s%s\n",
		level == LOG_LVL_ERR ? "error: " : level == LOG_LVL_WARN ? "warning: " : "", msg);
}

/* -o, --format and --folded-root together; the format guessed from the suffix */
static int check_output(struct args *a)
{
	if (a->format < 0 && a->output) {
		int g = export_format_guess(a->output);

		a->format = g < 0 ? EXPORT_TEXT : g;
	}
	if (a->format < 0)
		a->format = EXPORT_TEXT;
	if (a->output)
		a->batch = true;
	if (a->root != EXPORT_ROOT_NONE && a->format != EXPORT_FOLDED) {
		fprintf(stderr, "stacktop: --folded-root applies to --format folded\n");
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
		fprintf(stderr, "stacktop: --weight and --offcpu read a live kernel: not with "
				"--replay/--map/--diff to a file/--list-events\n");
		return 2;
	}
	if (a->so.weight && a->so.offcpu) {
		fprintf(stderr, "stacktop: --weight and --offcpu: choose one\n");
		return 2;
	}
	if (a->count && !a->so.weight && !a->so.offcpu) {
		fprintf(stderr, "stacktop: --count applies to --weight or --offcpu\n");
		return 2;
	}
	if (a->so.offcpu) {
		if (a->so.nevents) {
			fprintf(stderr, "stacktop: --offcpu traces sched:sched_switch itself: no -e\n");
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
			fprintf(stderr, "stacktop: too many -e (at most %d)\n", MAX_EVENTS);
			return 2;
		}
		a->events[a->so.nevents++] = a->weight_event;
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct args *a)
{
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

	while ((c = getopt_long(argc, argv, "e:p:C:d:n:bMvhVr:o:u::", long_opts, NULL)) != -1) {
		switch (c) {
		case 'e':
			if (a->so.nevents >= MAX_EVENTS) {
				fprintf(stderr, "stacktop: too many -e (at most %d)\n", MAX_EVENTS);
				return 2;
			}
			a->events[a->so.nevents++] = optarg;
			break;
		case 'p':
			r = parse_list(optarg, a->pids, a->so.npids, MAX_LIST, INT_MAX);
			if (r < 0) {
				list_error("pid", optarg, r);
				return 2;
			}
			a->so.npids = r;
			break;
		case OPT_TID:
			r = parse_list(optarg, a->tids, a->so.ntids, MAX_LIST, INT_MAX);
			if (r < 0) {
				list_error("thread id", optarg, r);
				return 2;
			}
			a->so.ntids = r;
			break;
		case OPT_COMM:
			if (!optarg[0] || strlen(optarg) > 127) {
				fprintf(stderr, "stacktop: bad --comm '%s' (a command name or a glob, 1 to 127 characters)\n",
					optarg);
				return 2;
			}
			a->comm = optarg;
			break;
		case 'C':
			r = parse_list(optarg, a->cpus, a->so.ncpus, MAX_LIST, 65535);
			if (r < 0) {
				list_error("CPU", optarg, r);
				return 2;
			}
			a->so.ncpus = r;
			break;
		case 'd': {
			char *end;

			errno = 0;
			a->delay = strtod(optarg, &end);
			if (errno || end == optarg || *end || !isfinite(a->delay) ||
			    a->delay < 0.05 || a->delay > 3600) {
				fprintf(stderr,
					"stacktop: bad delay '%s' (seconds, 0.05 to 3600)\n",
					optarg);
				return 2;
			}
			break;
		}
		case 'n':
			if (parse_int(optarg, 1, LONG_MAX, &v)) {
				fprintf(stderr, "stacktop: bad iteration count '%s'\n", optarg);
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
			if (!optarg) {
				a->so.user = SESSION_USER_AUTO;
			} else if (!strcmp(optarg, "fp")) {
				a->so.user = SESSION_USER_FP;
			} else if (!strcmp(optarg, "dwarf")) {
				a->so.user = SESSION_USER_DWARF;
			} else {
				fprintf(stderr, "stacktop: bad --user '%s' (fp or dwarf)\n", optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			printf("stacktop %s\n", STACKTOP_VERSION);
			exit(0);
		case OPT_TOP:
			if (parse_int(optarg, 1, 100000, &v)) {
				fprintf(stderr, "stacktop: bad --top '%s' (1 to 100000)\n", optarg);
				return 2;
			}
			a->top = (int)v;
			break;
		case OPT_EXPAND:
			if (parse_int(optarg, 0, 100000, &v)) {
				fprintf(stderr, "stacktop: bad --expand '%s'\n", optarg);
				return 2;
			}
			a->expand = (int)v;
			break;
		case OPT_MODE:
			r = session_mode_parse(optarg);
			if (r < 0) {
				fprintf(stderr,
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
		case OPT_NO_COLOR:
			a->color = false;
			break;
		case OPT_BUFFER_KB:
			if (parse_int(optarg, 4, 1 << 22, &v)) {
				fprintf(stderr, "stacktop: bad --buffer-kb '%s'\n", optarg);
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
				fprintf(stderr,
					"stacktop: bad --sort '%s' (hits, total, depth, id)\n",
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
				fprintf(stderr, "stacktop: bad --format '%s' (text, json, folded, pprof, "
						"speedscope)\n", optarg);
				return 2;
			}
			if (a->format >= 0 && a->format != r) {
				fprintf(stderr, "stacktop: --format %s and %s: choose one\n",
					export_format_name((enum export_format)a->format),
					export_format_name((enum export_format)r));
				return 2;
			}
			a->format = r;
			break;
		case 'o':
			if (!*optarg) {
				fprintf(stderr, "stacktop: empty -o file name\n");
				return 2;
			}
			a->output = optarg;
			break;
		case OPT_FOLDED_ROOT:
			if (!strcmp(optarg, "none"))
				a->root = EXPORT_ROOT_NONE;
			else if (!strcmp(optarg, "comm"))
				a->root = EXPORT_ROOT_COMM;
			else if (!strcmp(optarg, "pid") || !strcmp(optarg, "comm-pid"))
				a->root = EXPORT_ROOT_PID;
			else {
				fprintf(stderr, "stacktop: bad --folded-root '%s' (none, comm, pid)\n",
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
				fprintf(stderr, "stacktop: --filter '%s' applies to the -e events before it "
						"(that have no ' if ' of their own): none\n", optarg);
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
				fprintf(stderr, "stacktop: %s '%s' (at most %d)\n",
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
				fprintf(stderr, "stacktop: bad --weight '%s' (SYSTEM:EVENT:FIELD, e.g. "
						"kmem:kmalloc:bytes_alloc)\n", optarg);
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
				fprintf(stderr, "stacktop: bad --offcpu '%s' (blocked, all, wait)\n",
					optarg);
				return 2;
			}
			break;
		case OPT_DEPTH:
			if (parse_int(optarg, 1, STACK_MAX_DEPTH, &v)) {
				fprintf(stderr, "stacktop: bad --depth '%s' (1 to %d)\n", optarg,
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
				fprintf(stderr, "stacktop: too many -r (at most %d)\n", MAX_FILES);
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
		case OPT_MAX_MEMORY:
			if (parse_size(optarg, 256 << 10, &a->so.max_memory)) {
				fprintf(stderr,
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
		default:
			fprintf(stderr, "Try 'stacktop --help'.\n");
			return 2;
		}
	}
	if (a->list_events && !a->list_glob && optind + 1 == argc)
		a->list_glob = argv[optind++];
	if (a->diff) {
		if (optind >= argc) {
			fprintf(stderr, "stacktop: --diff BEFORE AFTER: AFTER is missing (a file, or - for the live kernel)\n");
			return 2;
		}
		a->diff_after = strcmp(argv[optind], "-") ? argv[optind] : NULL;
		optind++;
		if (a->so.nfiles || a->so.map_file) {
			fprintf(stderr, "stacktop: --diff reads its own two sides: not with -r/--map\n");
			return 2;
		}
		if (a->format != -1 && a->format != EXPORT_TEXT && a->format != EXPORT_JSON) {
			fprintf(stderr, "stacktop: --diff writes text or json\n");
			return 2;
		}
		if (a->format >= 0 || a->output)
			a->batch = true;
	}
	if (optind < argc) {
		fprintf(stderr, "stacktop: unexpected argument '%s'\nTry 'stacktop --help'.\n",
			argv[optind]);
		return 2;
	}
	if (a->list_events && (a->so.nfiles || a->so.map_file)) {
		fprintf(stderr, "stacktop: --list-events lists a kernel's events: not with --replay/--map\n");
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
			fprintf(stderr, "stacktop: --replay/--map/--diff read files: -e, --function, --kprobe, "
					"--trigger, --mode, --tracefs and --reset-first do not apply\n");
			return 2;
		}
		/* a recording is one interval: one report, at once */
		if (a->iterations < 0)
			a->iterations = 1;
		a->delay = 0.05;
	}
	if ((a->format == EXPORT_PPROF || a->format == EXPORT_SPEEDSCOPE) && !a->output &&
	    a->iterations != 1) {
		fprintf(stderr, "stacktop: --format %s writes one profile: give -o FILE (one file "
				"per refresh) or -n 1\n",
			export_format_name((enum export_format)a->format));
		return 2;
	}
	return 0;
}

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

static int run_batch(struct session *s, const struct args *a, struct session *before)
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

/* a snapshot read back keeps its view, unless the command line says otherwise */
static void apply_view(struct args *a, struct session *s)
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

	r = parse_args(argc, argv, &a);
	if (r)
		return r;
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
	apply_view(&a, before ? before : s);
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
		status = run_batch(s, &a, before);
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
	while (nowned > 0)
		free(owned[--nowned]);
	session_close(before);
	return status;
}
