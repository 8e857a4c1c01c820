// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * options_trace.c - the options of one concern, rows of the table of
 * options.h (option_row.h): what is traced: the events, the processes, threads and CPUs
 * counted, the user stacks. --help lists them in this order, after those of the
 * files before it in options.c's list.
 */
#include <getopt.h>
#include <stddef.h>

#include "cli/argset.h"
#include "cli/option_row.h"

const struct cli_option cli_options_trace[] = {
	{
		.id = 'e',
		.name = "event",
		.shrt = 'e',
		.has_arg = required_argument,
		.metavar = " SYS:EVENT",
		.help = "trace this event (repeatable; globs: 'kmem:*');\n"
			"default sched:sched_switch; 'SYS:EVENT if FILTER'\n"
			"writes FILTER to the event's kernel filter file",
		.man = ".BR \\-e \", \" \\-\\-event \" \\fISYSTEM\\fR:\\fIEVENT\\fR\"",
		.complete = CLI_EVENTS,
	},
	{
		.id = OPT_FILTER,
		.name = "filter",
		.has_arg = required_argument,
		.metavar = " FILTER",
		.help = "kernel filter for the -e events before it that have\n"
			"none (e.g. 'prev_state & 3': blocked switches only)",
		.man = ".BI \\-\\-filter \" FILTER\"",
		.complete = CLI_NONE,
	},
	{
		.id = OPT_TRIGGER,
		.name = "trigger",
		.has_arg = required_argument,
		.metavar = " 'SYS:EVENT[:N] [if FILTER]'",
		.help = "record stacks only where a stacktrace trigger fires\n"
			"(at most N times); then -e events get one too",
		.man = ".BI \\-\\-trigger \" SYSTEM:EVENT\\fR[:\\fIN\\fR] [\\fBif \\fIFILTER\\fR]\"",
		.complete = CLI_EVENTS,
	},
	{
		.id = OPT_FUNCTION,
		.name = "function",
		.has_arg = required_argument,
		.metavar = " GLOB",
		.help = "the function tracer on the functions matching GLOB\n"
			"(repeatable), rows keyed by the traced function",
		.man = ".BI \\-\\-function \" GLOB\"",
		.complete = CLI_NONE,
	},
	{
		.id = OPT_KPROBE,
		.name = "kprobe",
		.has_arg = required_argument,
		.metavar = " FUNC[+OFF]",
		.help = "a kprobe event on FUNC (repeatable), removed on exit",
		.man = ".BI \\-\\-kprobe \" FUNC\\fR[+\\fIOFFSET\\fR]\"",
		.complete = CLI_NONE,
	},
	{
		.id = 'p',
		.name = "pid",
		.shrt = 'p',
		.has_arg = required_argument,
		.metavar = " PID[,PID...]",
		.help = "count only events of these processes: every\n"
			"thread, started later too (ranges: 10-12;\n"
			"at most 1024 pids and thread ids); without -n a\n"
			"batch run ends when they have exited, its last\n"
			"report the whole run",
		.man = ".BR \\-p \", \" \\-\\-pid \" \\fIPID\\fR[,\\fIPID\\fR...]\"",
		.complete = CLI_NONE,
	},
	{
		.id = OPT_TID,
		.name = "tid",
		.has_arg = required_argument,
		.metavar = " TID[,TID...]",
		.help = "count only events of these threads",
		.man = ".BI \\-\\-tid \" TID\\fR[,\\fITID\\fR...]\"",
		.complete = CLI_NONE,
	},
	{
		.id = OPT_COMM,
		.name = "comm",
		.has_arg = required_argument,
		.metavar = " NAME",
		.help = "show only hits of tasks named NAME (exact, or a\n"
			"glob: 'kworker/*')",
		.man = ".BI \\-\\-comm \" NAME\"",
		.complete = CLI_NONE,
	},
	{
		.id = 'C',
		.name = "cpu",
		.shrt = 'C',
		.has_arg = required_argument,
		.metavar = " CPU[,CPU...]",
		.help = "read only these CPUs (ranges: 0-3; at most 1024)",
		.man = ".BR \\-C \", \" \\-\\-cpu \" \\fICPU\\fR[,\\fICPU\\fR...]\"",
		.complete = CLI_NONE,
	},
	{
		.id = 'u',
		.name = "user",
		.shrt = 'u',
		.has_arg = optional_argument,
		.metavar = "[=fp|dwarf[,SIZE]]",
		.help = "also take the user stack of each event, shown below\n"
			"the kernel frames (dwarf: perf samples unwound with\n"
			".eh_frame, binaries without frame pointers too,\n"
			"stacks mode and --oncpu, SIZE bytes of stack copied\n"
			"per sample, default 8K; fp: the kernel's frame-pointer\n"
			"walk, 8 frames, stacks or stackmap mode; default\n"
			"dwarf where it works, else fp)",
		.man = ".BR \\-u \", \" \\-\\-user [ =fp | =dwarf [ ,\\fISIZE\\fR ]]",
		.complete = CLI_WORDS,
		.words = "fp dwarf",
	},
	{
		.id = OPT_USER_SAMPLE,
		.name = "user-sample",
		.kind = CLI_K_UINT,
		.off = offsetof(struct args, so.user_sample),
		.min = 1,
		.max = 1000000,
		.hint = "one event in N: 1 to 1000000",
		.has_arg = required_argument,
		.metavar = " N",
		.help = "-u dwarf: the user stack of one event in N of each\n"
			"CPU (perf's sample period; the rest are counted\n"
			"with their kernel stack as \"not sampled\")",
		.man = ".BI \\-\\-user\\-sample \" N\"",
		.complete = CLI_NONE,
	},
	{
		.id = OPT_USER_BUFFER,
		.name = "user-buffer",
		.kind = CLI_K_SIZE,
		.off = offsetof(struct args, so.user_buffer),
		.min = 64 << 10,
		.max = 1 << 30,
		.hint = "bytes with K, M or G, 64K to 1G",
		.has_arg = required_argument,
		.metavar = " SIZE",
		.help = "-u dwarf: each CPU's perf ring (K, M suffixes; a\n"
			"power of two pages; default 2M, made larger on a\n"
			"CPU whose ring lost samples, up to 64M)",
		.man = ".BI \\-\\-user\\-buffer \" SIZE\"",
		.complete = CLI_NONE,
	},
	{ .name = NULL }, /* the end */
};
