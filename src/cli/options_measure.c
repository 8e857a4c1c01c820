// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * options_measure.c - the options of one concern, rows of the table of
 * options.h (option_row.h): how often a report comes, what is counted
 * (sampled, on-CPU, off-CPU, weights) and how the stacks are ranked and
 * grouped. --help lists them in this order, after those of the
 * files before it in options.c's list.
 */
#include <getopt.h>
#include <limits.h>
#include <stddef.h>

#include "cli/argset.h"
#include "cli/option_row.h"
#include "core/stack.h"

const struct cli_option cli_options_measure[] = {
	{
		.id = 'd',
		.name = "delay",
		.shrt = 'd',
		.has_arg = required_argument,
		.metavar = " SECONDS",
		.help = "refresh interval, fractional (default 1)",
		.man = ".BR \\-d \", \" \\-\\-delay \" \\fISECONDS\\fR\"",
		.complete = CLI_NONE,
	},
	{
		.id = 'n',
		.name = "iterations",
		.kind = CLI_K_LONG,
		.off = offsetof(struct args, iterations),
		.min = 1,
		.max = LONG_MAX,
		.hint = "1 or more",
		.shrt = 'n',
		.has_arg = required_argument,
		.metavar = " N",
		.help = "exit after N refreshes",
		.man = ".BR \\-n \", \" \\-\\-iterations \" \\fIN\\fR\"",
		.complete = CLI_NONE,
	},
	{
		.id = 'b',
		.name = "batch",
		.kind = CLI_K_TRUE,
		.off = offsetof(struct args, batch),
		.shrt = 'b',
		.has_arg = no_argument,
		.help = "print reports to stdout instead of the screen\n"
			"(implied when stdout or stdin is not a terminal)",
		.man = ".BR \\-b \", \" \\-\\-batch",
		.complete = CLI_FLAG,
	},
	{
		.id = OPT_TOP,
		.name = "top",
		.kind = CLI_K_INT,
		.off = offsetof(struct args, top),
		.min = 1,
		.max = 100000,
		.hint = "1 to 100000",
		.has_arg = required_argument,
		.metavar = " N",
		.help = "rows of the table and csv (default 20 in batch); shares\n"
			"are of every matching stack; JSON, folded, pprof,\n"
			"speedscope, html and svg hold them all",
		.man = ".BI \\-\\-top \" N\"",
		.complete = CLI_NONE,
	},
	{
		.id = OPT_EXPAND,
		.name = "expand",
		.kind = CLI_K_INT,
		.off = offsetof(struct args, expand),
		.min = 0,
		.max = 100000,
		.hint = "0 to 100000",
		.has_arg = required_argument,
		.metavar = " N",
		.help = "batch: expand the top N stacks into frames, their\n"
			"trend and (weighted) histogram (default 5)",
		.man = ".BI \\-\\-expand \" N\"",
		.complete = CLI_NONE,
	},
	{
		.id = OPT_SORT,
		.name = "sort",
		.has_arg = required_argument,
		.metavar = " KEY",
		.help = "hits|total|depth|id (default hits: last interval)",
		.man = ".BI \\-\\-sort \" KEY\"",
		.complete = CLI_WORDS,
		.words = "hits total depth id",
	},
	{
		.id = OPT_CUMULATIVE,
		.name = "cumulative",
		.has_arg = no_argument,
		.help = "rank by total hits instead of the last interval",
		.man = ".B \\-\\-cumulative",
		.complete = CLI_FLAG,
	},
	{
		.id = OPT_WEIGHT,
		.name = "weight",
		.has_arg = required_argument,
		.metavar = " SYS:EVENT:FIELD",
		.help = "rank by the sum of an event's field instead of hits\n"
			"(kmem:kmalloc:bytes_alloc); traces that event too;\n"
			"bytes/size/len fields in KiB/MiB, *time*/_ns in ms",
		.man = ".BI \\-\\-weight \" SYSTEM:EVENT:FIELD\"",
		.complete = CLI_NONE,
	},
	{
		.id = OPT_SAMPLE,
		.name = "sample",
		.has_arg = required_argument,
		.metavar = " N",
		.help = "a kernel stack for one hit in N of the -e events\n"
			"(perf, the period randomized around N), every hit\n"
			"counted exactly: the header's exact count; the rows'\n"
			"hits, estimated from the samples, add up to it, each\n"
			"with its 95% interval; a hot event then costs its\n"
			"workload about what counting it does",
		.man = ".BI \\-\\-sample \" N\"",
		.complete = CLI_NONE,
	},
	{
		.id = OPT_OVERHEAD,
		.name = "overhead",
		.has_arg = required_argument,
		.metavar = " PCT",
		.help = "--sample with N chosen and adapted so that the stacks\n"
			"cost about PCT% of all the CPUs together (0.1 to 50;\n"
			"a workload on one CPU of 2 pays about 2 x PCT% of its\n"
			"own): a stack's cost measured at start, the event's\n"
			"rate each interval",
		.man = ".BI \\-\\-overhead \" PCT\"",
		.complete = CLI_NONE,
	},
	{
		.id = OPT_ONCPU,
		.name = "oncpu",
		.has_arg = optional_argument,
		.metavar = "[=HZ|tick]",
		.help = "on-CPU profile: where the CPUs spend their time, as\n"
			"perf record -F HZ -g: each CPU's clock sampled HZ\n"
			"times a second (default 999), the call chain of the\n"
			"interrupted code (-u: its user part too, unwound by\n"
			"dwarf as perf --call-graph dwarf, or --user=fp: by\n"
			"frame pointers); nothing in tracefs changes. With -- CMD:\n"
			"the command's CPU time. =tick: the kernel's timer\n"
			"tick traced instead (through the stack map where the\n"
			"kernel has one), cut at the interrupted function",
		.man = ".BR \\-\\-oncpu [ =\\fIHZ\\fR | =tick ]",
		.complete = CLI_NONE,
	},
	{
		.id = OPT_OFFCPU,
		.name = "offcpu",
		.has_arg = optional_argument,
		.metavar = "[=blocked|all|wait]",
		.help = "rank by the time tasks spend switched out, at the\n"
			"stack where they left the CPU: from sched_switch until\n"
			"the same pid is switched in, or until its wakeup where\n"
			"the kernel records no switch-in (the header says how\n"
			"often); blocked tasks only (the default, =blocked),\n"
			"=all: preemptions too; =wait: split in offcpu:blocked\n"
			"(until woken) and offcpu:runqueue (woken, no CPU yet)",
		.man = ".BR \\-\\-offcpu [ =blocked | =all | =wait ]",
		.complete = CLI_WORDS,
		.words = "blocked all wait",
	},
	{
		.id = OPT_COUNT,
		.name = "count",
		.kind = CLI_K_TRUE,
		.off = offsetof(struct args, count),
		.has_arg = no_argument,
		.help = "with --weight/--offcpu: start ranking by hits",
		.man = ".B \\-\\-count",
		.complete = CLI_FLAG,
	},
	{
		.id = OPT_DEPTH,
		.name = "depth",
		.kind = CLI_K_UINT,
		.off = offsetof(struct args, so.group_depth),
		.min = 1,
		.max = STACK_MAX_DEPTH,
		.hint = "1 to 1024",
		.has_arg = required_argument,
		.metavar = " N",
		.help = "group stacks by their first N frames (leaf side):\n"
			"--depth 1 ranks the functions the events happen in",
		.man = ".BI \\-\\-depth \" N\"",
		.complete = CLI_NONE,
	},
	{
		.id = OPT_BY_FUNC,
		.name = "by-func",
		.kind = CLI_K_TRUE,
		.off = offsetof(struct args, so.group_func),
		.has_arg = no_argument,
		.help = "group frames by function (func+off merged)",
		.man = ".B \\-\\-by\\-func",
		.complete = CLI_FLAG,
	},
	{
		.id = OPT_GROUP_BY,
		.name = "group-by",
		.has_arg = required_argument,
		.metavar = " KEYS",
		.help = "rows keyed like perf's --sort: sym (the leaf user\n"
			"function), dso (its library), comm, ksym (the kernel\n"
			"leaf), comma-separated (dso,sym), outermost first",
		.man = ".BI \\-\\-group\\-by \" KEYS\"",
		.complete = CLI_WORDS,
		.words = "sym dso comm ksym dso,sym comm,sym comm,dso",
	},
	{ .name = NULL }, /* the end */
};
