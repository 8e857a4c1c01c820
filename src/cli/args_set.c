// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * args_set.c - see args_set.h: each option's value taken into struct
 * args, by its table row (a plain one) or by a small function of its own.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args_set.h"
#include "cli/argval.h"
#include "cli/options.h"
#include "core/rank.h"
#include "output/export.h"
#include "session/session.h"
#include "ui/ui.h"

/* "-e PAT if EXPR" made by --filter (static: reachable until exit) */
static char *owned[MAX_EVENTS];
static int nowned;

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

int args_take_plain(struct args *a, const struct cli_option *o, const char *arg)
{
	char *at = (char *)a + o->off;
	size_t sz;
	long v;

	switch (o->kind) {
	case CLI_K_TRUE:
	case CLI_K_FALSE:
		*(bool *)(void *)at = o->kind == CLI_K_TRUE;
		return 0;
	case CLI_K_COUNT:
		(*(int *)(void *)at)++;
		return 0;
	case CLI_K_STR:
		if (o->min > 0 && !*arg)
			break;
		*(const char **)(void *)at = arg;
		return 0;
	case CLI_K_INT:
	case CLI_K_UINT:
	case CLI_K_LONG:
		if (argval_int(arg, (long)o->min, (long)o->max, &v))
			break;
		if (o->kind == CLI_K_INT)
			*(int *)(void *)at = (int)v;
		else if (o->kind == CLI_K_UINT)
			*(unsigned int *)(void *)at = (unsigned int)v;
		else
			*(long *)(void *)at = v;
		return 0;
	case CLI_K_SIZE:
		if (argval_size(arg, (size_t)o->min, &sz) || (o->max && sz > (size_t)o->max))
			break;
		*(size_t *)(void *)at = sz;
		return 0;
	case CLI_K_CODE:
		return 1;
	}
	cli_error("stacktop: bad --%s '%s'%s%s%s\n", o->name, arg, o->hint ? " (" : "",
		  o->hint ? o->hint : "", o->hint ? ")" : "");
	return 2;
}

/* -e, -r, --function, --kprobe, --trigger: one more of a list of at most @max */
static int add_to(const char **list, int *n, int max, const char *what, const char *arg,
		  bool empty_ok)
{
	if (!empty_ok && !*arg) {
		cli_error("stacktop: empty %s\n", what);
		return 2;
	}
	if (*n >= max) {
		cli_error("stacktop: too many %s (at most %d)\n", what, max);
		return 2;
	}
	list[(*n)++] = arg;
	return 0;
}

/* -p, --tid, -C: numbers and ranges */
static int add_numbers(int *list, int *n, int max_value, const char *what, const char *arg)
{
	int r = argval_list(arg, list, *n, MAX_LIST, max_value);

	if (r < 0) {
		list_error(what, arg, r);
		return 2;
	}
	*n = r;
	return 0;
}

static int set_comm(struct args *a, const char *arg)
{
	if (!arg[0] || strlen(arg) > 127) {
		cli_error(
			"stacktop: bad --comm '%s' (a command name or a glob, 1 to 127 characters)\n",
			arg);
		return 2;
	}
	a->comm = arg;
	return 0;
}

static int set_delay(struct args *a, const char *arg)
{
	char *end;

	errno = 0;
	a->delay_set = true;
	a->delay = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(a->delay) || a->delay < 0.05 ||
	    a->delay > 3600) {
		cli_error("stacktop: bad delay '%s' (seconds, 0.05 to 3600)\n", arg);
		return 2;
	}
	return 0;
}

static int set_user(struct args *a, const char *arg)
{
	size_t sz;

	/* -u=dwarf as --help writes it (getopt gives "=dwarf"; issue 27) */
	if (arg && arg[0] == '=' && arg[1])
		arg++;
	if (!arg) {
		a->so.user = SESSION_USER_AUTO;
	} else if (!strcmp(arg, "fp")) {
		a->so.user = SESSION_USER_FP;
	} else if (!strcmp(arg, "dwarf")) {
		a->so.user = SESSION_USER_DWARF;
	} else if (!strncmp(arg, "dwarf,", 6)) {
		/* perf's --call-graph dwarf,SIZE: the stack copied per sample */
		if (argval_size(arg + 6, 1, &sz) || sz < USER_STACK_MIN || sz > USER_STACK_MAX) {
			cli_error(
				"stacktop: bad --user '%s' (dwarf,SIZE: the user stack copied per "
				"sample, 64 to 65528 bytes, K suffix)\n",
				arg);
			return 2;
		}
		a->so.user = SESSION_USER_DWARF;
		a->so.user_stack = (unsigned int)((sz + 7) & ~(size_t)7);
		if (a->so.user_stack > USER_STACK_MAX)
			a->so.user_stack = USER_STACK_MAX;
	} else {
		cli_error("stacktop: bad --user '%s' (fp, dwarf or dwarf,SIZE)\n", arg);
		return 2;
	}
	return 0;
}

/* one of @words (separated by spaces) into *@ret as @values[its index] */
static int pick_word(const char *arg, const char *words, const int *values, int *ret)
{
	const char *w = words;
	int i = 0;

	while (*w) {
		size_t l = strcspn(w, " ");

		if (strlen(arg) == l && !strncmp(arg, w, l)) {
			*ret = values[i];
			return 0;
		}
		w += l + (w[l] == ' ');
		i++;
	}
	return -EINVAL;
}

static int set_sort(struct args *a, const char *arg)
{
	static const int keys[] = { RANK_DELTA, RANK_DELTA, RANK_TOTAL, RANK_DEPTH, RANK_ID };
	int k;

	a->sort_set = true;
	if (pick_word(arg, "hits delta total depth id", keys, &k)) {
		cli_error("stacktop: bad --sort '%s' (hits, total, depth, id)\n", arg);
		return 2;
	}
	a->sort = (enum rank_key)k;
	return 0;
}

static int set_root(struct args *a, const char *arg)
{
	static const int roots[] = { EXPORT_ROOT_NONE, EXPORT_ROOT_COMM, EXPORT_ROOT_PID,
				     EXPORT_ROOT_PID };
	int k;

	if (pick_word(arg, "none comm pid comm-pid", roots, &k)) {
		cli_error("stacktop: bad --folded-root '%s' (none, comm, pid)\n", arg);
		return 2;
	}
	a->root = (enum export_root)k;
	return 0;
}

/* --group-by KEYS: sym, dso, comm, ksym, comma-separated, each once */
static int set_group_by(struct args *a, const char *arg)
{
	static const int keys[] = { GROUP_KEY_SYM, GROUP_KEY_DSO, GROUP_KEY_COMM, GROUP_KEY_KSYM };
	char word[16];
	const char *p = arg, *comma;
	unsigned int n = 0, i;
	int k;

	memset(a->so.group_by, 0, sizeof(a->so.group_by));
	for (;;) {
		comma = strchr(p, ',');
		snprintf(word, sizeof(word), "%.*s", comma ? (int)(comma - p) : (int)strlen(p), p);
		if (pick_word(word, "sym dso comm ksym", keys, &k) || n == SESSION_GROUP_KEYS)
			goto bad;
		for (i = 0; i < n; i++)
			if (a->so.group_by[i] == k)
				goto bad;
		a->so.group_by[n++] = (uint8_t)k;
		if (!comma)
			return 0;
		p = comma + 1;
	}
bad:
	cli_error("stacktop: bad --group-by '%s' (sym, dso, comm, ksym, comma-separated, each "
		  "once: dso,sym)\n",
		  arg);
	return 2;
}

static int set_offcpu(struct args *a, const char *arg)
{
	static const int modes[] = { SESSION_OFFCPU_BLOCKED, SESSION_OFFCPU_ALL,
				     SESSION_OFFCPU_WAIT };
	int k;

	if (!arg) {
		a->so.offcpu = SESSION_OFFCPU_BLOCKED;
		return 0;
	}
	if (pick_word(arg, "blocked all wait", modes, &k)) {
		cli_error("stacktop: bad --offcpu '%s' (blocked, all, wait)\n", arg);
		return 2;
	}
	a->so.offcpu = k;
	return 0;
}

/*
 * --oncpu[=HZ]: perf's cpu-clock at HZ per CPU (999: off the kernel's 1000 Hz
 * tick); --oncpu=tick: the kernel's tick as a traced event
 */
static int set_oncpu(struct args *a, const char *arg)
{
	long hz = 999;

	if (arg && !strcmp(arg, "tick")) {
		a->so.oncpu_tick = true;
		a->so.oncpu_hz = 0;
		return 0;
	}
	a->so.oncpu_tick = false;
	if (arg && argval_int(arg, 1, 100000, &hz)) {
		cli_error("stacktop: bad --oncpu '%s' (samples a second per CPU, 1 to 100000, "
			  "or tick)\n",
			  arg);
		return 2;
	}
	a->so.oncpu_hz = (unsigned int)hz;
	return 0;
}

/* --sample N: a stack for one hit in N (2 to 10^9) */
static int set_sample(struct args *a, const char *arg)
{
	long n;

	if (argval_int(arg, 2, 1000000000, &n)) {
		cli_error("stacktop: bad --sample '%s' (one hit in N gets its stack: 2 to "
			  "1000000000)\n",
			  arg);
		return 2;
	}
	a->so.sample_period = (unsigned int)n;
	return 0;
}

/* --overhead PCT: --sample with N chosen so that the stacks cost about PCT% of the CPUs */
static int set_overhead(struct args *a, const char *arg)
{
	char *end;
	double pct;

	errno = 0;
	pct = strtod(arg, &end);
	if (end != arg && *end == '%')
		end++;
	if (errno || end == arg || *end || !(pct >= 0.1 && pct <= 50)) {
		cli_error("stacktop: bad --overhead '%s' (a share of the CPUs in percent: 0.1 to "
			  "50)\n",
			  arg);
		return 2;
	}
	a->so.overhead_milli = (unsigned int)(pct * 1000 + 0.5);
	return 0;
}

static int set_mode(struct args *a, const char *arg)
{
	int r = session_mode_parse(arg);

	if (r < 0) {
		cli_error("stacktop: bad --mode '%s' (auto, stackmap, stacks, passive)\n", arg);
		return 2;
	}
	a->so.mode = (enum session_mode)r;
	return 0;
}

/* --format, --folded, --json: one format, said once */
static int set_format(struct args *a, int c, const char *arg)
{
	int r = c == OPT_FOLDED ? EXPORT_FOLDED
		: c == OPT_JSON ? EXPORT_JSON
				: export_format_parse(arg);

	if (r < 0) {
		char names[256];

		export_format_list(names, sizeof(names), 0, 0, ", ");
		cli_error("stacktop: bad --format '%s' (%s)\n", arg, names);
		return 2;
	}
	if (a->format >= 0 && a->format != r) {
		cli_error("stacktop: --format %s and %s: choose one\n",
			  export_format_name((enum export_format)a->format),
			  export_format_name((enum export_format)r));
		return 2;
	}
	a->format = r;
	return 0;
}

/* --filter FILTER: the -e events before it that have none get it */
static int set_filter(struct args *a, const char *arg)
{
	int i, done = 0;

	for (i = a->filtered; i < a->so.nevents; i++) {
		size_t len;
		char *t;

		if (strstr(a->events[i], " if ") || nowned >= MAX_EVENTS)
			continue;
		len = strlen(a->events[i]) + strlen(arg) + 5;
		t = malloc(len);
		if (!t)
			return 1;
		snprintf(t, len, "%s if %s", a->events[i], arg);
		owned[nowned++] = t;
		a->events[i] = t;
		done++;
	}
	if (!done || !*arg) {
		cli_error(
			"stacktop: --filter '%s' applies to the -e events before it (that have no "
			"' if ' of their own): none\n",
			arg);
		return 2;
	}
	a->filtered = a->so.nevents;
	return 0;
}

static int set_weight(struct args *a, const char *arg)
{
	const char *last = strrchr(arg, ':');

	if (!last || last == arg || !last[1] || !strchr(arg, ':') || strchr(arg, ':') == last ||
	    (size_t)(last - arg) >= sizeof(a->weight_event) || strlen(last) > 63) {
		cli_error("stacktop: bad --weight '%s' (SYSTEM:EVENT:FIELD, e.g. "
			  "kmem:kmalloc:bytes_alloc)\n",
			  arg);
		return 2;
	}
	snprintf(a->weight_event, sizeof(a->weight_event), "%.*s", (int)(last - arg), arg);
	a->so.weight = arg;
	return 0;
}

/* --print-options[=help|man|complete|formats]: printed, and the program ends */
static int print_options(const char *arg)
{
	if (!arg || !strcmp(arg, "help"))
		cli_print_help(stdout);
	else if (!strcmp(arg, "man"))
		cli_print_man(stdout);
	else if (!strcmp(arg, "complete"))
		cli_print_complete(stdout);
	else if (!strcmp(arg, "formats"))
		cli_print_formats_man(stdout);
	else
		return 2;
	exit(fflush(stdout) ? 1 : 0);
}

int args_take_code(struct args *a, int c, const char *arg)
{
	switch (c) {
	case 'e':
		return add_to(a->events, &a->so.nevents, MAX_EVENTS, "-e", arg, true);
	case OPT_FUNCTION:
		return add_to(a->functions, &a->so.nfunctions, MAX_EVENTS, "--function", arg,
			      false);
	case OPT_KPROBE:
		return add_to(a->kprobes, &a->so.nkprobes, MAX_EVENTS, "--kprobe", arg, false);
	case OPT_TRIGGER:
		return add_to(a->triggers, &a->so.ntriggers, MAX_EVENTS, "--trigger", arg, false);
	case 'r':
		return add_to(a->files, &a->so.nfiles, MAX_FILES, "-r", arg, true);
	case 'p':
		return add_numbers(a->pids, &a->so.npids, INT_MAX, "pid", arg);
	case OPT_TID:
		return add_numbers(a->tids, &a->so.ntids, INT_MAX, "thread id", arg);
	case 'C':
		return add_numbers(a->cpus, &a->so.ncpus, 65535, "CPU", arg);
	case OPT_COMM:
		return set_comm(a, arg);
	case 'd':
		return set_delay(a, arg);
	case 'u':
		return set_user(a, arg);
	case OPT_MODE:
		return set_mode(a, arg);
	case OPT_SORT:
		return set_sort(a, arg);
	case OPT_FOLDED_ROOT:
		return set_root(a, arg);
	case OPT_OFFCPU:
		return set_offcpu(a, arg);
	case OPT_GROUP_BY:
		return set_group_by(a, arg);
	case OPT_ONCPU:
		return set_oncpu(a, arg);
	case OPT_SAMPLE:
		return set_sample(a, arg);
	case OPT_OVERHEAD:
		return set_overhead(a, arg);
	case OPT_FOLDED:
	case OPT_JSON:
	case OPT_FORMAT:
		return set_format(a, c, arg);
	case OPT_FILTER:
		return set_filter(a, arg);
	case OPT_WEIGHT:
		return set_weight(a, arg);
	case OPT_CUMULATIVE:
		a->cumulative = a->sort_set = true;
		return 0;
	case OPT_DIFF:
		a->diff = true;
		a->diff_before = arg;
		return 0;
	case OPT_DIFF_BASE:
		a->diff_base = arg;
		return 0;
	case OPT_PRESERVE_ENV:
		a->preserve_env = arg ? arg : "";
		return 0;
	case OPT_LIST_EVENTS:
		a->list_events = true;
		a->list_glob = arg;
		return 0;
	case 'h':
		a->help = true;
		return ARGS_STOP;
	case 'V':
		printf("stacktop %s\n", STACKTOP_VERSION);
		exit(0);
	case OPT_PRINT_KEYS:
		ui_print_keys(stdout);
		exit(0);
	case OPT_PRINT_OPTIONS:
		return print_options(arg);
	}
	return 2;
}

void args_set_free(void)
{
	while (nowned > 0)
		free(owned[--nowned]);
}
