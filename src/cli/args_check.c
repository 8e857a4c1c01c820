// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * args_check.c - see args_check.h: the options checked together, once all
 * are read: what does not go together is refused with what to do instead,
 * and what follows from them (the format from -o's suffix, the events of
 * --offcpu and --weight, one report of a recording) is filled in.
 */
#include <stdio.h>
#include <string.h>

#include "cli/args_check.h"
#include "cli/options.h"
#include "core/rank.h"
#include "output/export.h"
#include "session/session.h"

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

	if ((a->so.weight || a->so.offcpu) && (a->so.replay || a->so.map_file || a->so.nfiles ||
					       (a->diff && a->diff_after) || a->list_events)) {
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

int args_check_cmd(const struct args *a)
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

/* recordings (-r, --map, --diff of files): what does not apply, one report at once */
static int check_files(struct args *a)
{
	const char *live = a->so.npids	     ? "-p"
			   : a->so.ntids     ? "--tid"
			   : a->so.ncpus     ? "-C"
			   : a->delay_set    ? "-d"
			   : a->so.buffer_kb ? "--buffer-kb"
			   : a->so.show_self ? "--show-self"
					     : NULL;

	if (!a->so.nfiles && !a->so.map_file && !(a->diff && a->diff_after))
		return 0;
	if (a->so.tracefs || a->so.nevents || a->so.mode != SESSION_AUTO || a->so.reset_first ||
	    a->so.nfunctions || a->so.nkprobes || a->so.ntriggers) {
		cli_error("stacktop: --replay/--map/--diff read files: -e, --function, --kprobe, "
			  "--trigger, --mode, --tracefs and --reset-first do not apply\n");
		return 2;
	}
	/* what a live run chooses to record: refused, not ignored (they were, silently) */
	if (live) {
		cli_error(
			"stacktop: %s applies to a live run: a recording (--replay/--map/--diff "
			"of files) is shown as it was recorded, at once (--comm, and the screen's "
			"filters, select in it)\n",
			live);
		return 2;
	}
	/* a recording is one interval: one report, at once */
	if (a->iterations < 0)
		a->iterations = 1;
	a->delay = 0.05;
	return 0;
}

/* --sample N: perf's tracepoint samples of the -e events */
static int check_sample(struct args *a)
{
	if (a->so.overhead_milli) {
		if (a->so.sample_period) {
			cli_error("stacktop: --overhead chooses N itself: not with --sample\n");
			return 2;
		}
		/* the first period, until the first rate is known (session/oncpu.c) */
		a->so.sample_period = 1000;
	}
	if (!a->so.sample_period)
		return 0;
	if (a->so.oncpu_hz || a->so.nfunctions || a->so.nkprobes || a->so.ntriggers ||
	    a->so.weight || a->so.offcpu || a->so.nfiles || a->so.map_file || a->diff ||
	    a->list_events || a->so.user_sample || a->so.user_buffer) {
		cli_error("stacktop: --%s samples tracepoints with perf: not with --oncpu, "
			  "--function, --kprobe, --trigger, --weight, --offcpu, -r, --map, --diff, "
			  "--list-events, --user-sample or --user-buffer\n",
			  a->so.overhead_milli ? "overhead" : "sample");
		return 2;
	}
	return 0;
}

/* --oncpu samples the CPUs: what traces events, or reads files, does not go with it */
static int check_oncpu(struct args *a)
{
	if (check_sample(a))
		return 2;
	if (a->so.oncpu_tick) {
		if (a->so.nevents || a->so.nfunctions || a->so.nkprobes || a->so.ntriggers ||
		    a->so.weight || a->so.offcpu || a->so.nfiles || a->so.map_file || a->diff ||
		    a->list_events || a->so.sample_period || a->so.mode == SESSION_PASSIVE) {
			cli_error("stacktop: --oncpu=tick traces the kernel's tick: not with -e, "
				  "--function, --kprobe, --trigger, --weight, --offcpu, --sample, "
				  "-r, --map, --diff, --list-events or --mode passive\n");
			return 2;
		}
		return 0;
	}
	if (!a->so.oncpu_hz)
		return 0;
	if (a->so.nevents || a->so.nfunctions || a->so.nkprobes || a->so.ntriggers ||
	    a->so.weight || a->so.offcpu || a->so.nfiles || a->so.map_file || a->diff ||
	    a->list_events) {
		cli_error("stacktop: --oncpu samples the CPUs: not with -e, --function, --kprobe, "
			  "--trigger, --weight, --offcpu, -r, --map, --diff or --list-events\n");
		return 2;
	}
	if (a->so.user_sample || a->so.user_buffer) {
		cli_error("stacktop: --oncpu: the user chains come with each sample (no "
			  "--user-sample or --user-buffer)\n");
		return 2;
	}
	return 0;
}

int args_check_together(struct args *a)
{
	int r = check_oncpu(a);

	if (r)
		return r;

	if (a->list_events && (a->so.nfiles || a->so.map_file)) {
		cli_error(
			"stacktop: --list-events lists a kernel's events: not with --replay/--map\n");
		return 2;
	}
	/* perf's samples are the dwarf mode's: fp has nothing to sample or size */
	if ((a->so.user_sample || a->so.user_buffer) && a->so.user != SESSION_USER_DWARF &&
	    a->so.user != SESSION_USER_AUTO) {
		cli_error("stacktop: --%s sets the dwarf mode's perf samples: give -u or "
			  "--user=dwarf\n",
			  a->so.user_sample ? "user-sample" : "user-buffer");
		return 2;
	}
	if (a->cumulative && a->sort == RANK_DELTA)
		a->sort = RANK_TOTAL;
	/* one grouping: rows keyed by --group-by, or stacks cut or merged by function */
	if (a->so.group_by[0] && (a->so.group_depth || a->so.group_func)) {
		cli_error("stacktop: --group-by keys the rows itself: not with --depth or "
			  "--by-func\n");
		return 2;
	}
	r = check_weight(a);
	if (!r)
		r = check_output(a);
	if (!r)
		r = check_files(a);
	if (r)
		return r;
	if (export_format_get(a->format)->flags & EXPORT_F_ONE && !a->output &&
	    a->iterations != 1) {
		cli_error("stacktop: --format %s writes one profile: give -o FILE (one file per "
			  "refresh) or -n 1\n",
			  export_format_name((enum export_format)a->format));
		return 2;
	}
	return 0;
}
