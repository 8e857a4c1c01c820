// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * options_output.c - the options of one concern, rows of the table of
 * options.h (option_row.h): the batch report's file and format. --help lists them in this order,
 * after those of the files before it in options.c's list.
 */
#include <getopt.h>
#include <stddef.h>

#include "cli/argset.h"
#include "cli/option_row.h"
#include "output/export.h"

/* --format's values: the formats' table (output/export.h) */
static const char *format_value(unsigned int i, const char **line)
{
	if (i >= EXPORT_FORMAT_MAX)
		return NULL;
	if (line)
		*line = export_format_line((enum export_format)i);
	return export_format_name((enum export_format)i);
}

const struct cli_option cli_options_output[] = {
	{
		.id = 'o',
		.name = "output",
		.kind = CLI_K_STR,
		.off = offsetof(struct args, output),
		.min = 1,
		.max = 0,
		.hint = "a file name",
		.shrt = 'o',
		.has_arg = required_argument,
		.metavar = " FILE",
		.help = "batch: write each refresh to FILE (safely: a temporary\n"
			"file renamed over it); with more than one refresh,\n"
			"one file each: NAME.N.SUFFIX",
		.man = ".BR \\-o \", \" \\-\\-output \" \\fIFILE\\fR\"",
		.complete = CLI_FILE,
	},
	{
		.id = OPT_FORMAT,
		.name = "format",
		.has_arg = required_argument,
		.metavar = " FMT",
		.help = "the output format (default: from the suffix of -o,\n"
			"else text), one of:",
		.man = ".BI \\-\\-format \" FMT\"",
		.complete = CLI_WORDS,
		.values = format_value,
	},
	{
		.id = OPT_FOLDED,
		.name = "folded",
		.has_arg = no_argument,
		.help = "same as --format folded (flame graph input)",
		.man = ".B \\-\\-folded",
		.complete = CLI_FLAG,
	},
	{
		.id = OPT_JSON,
		.name = "json",
		.has_arg = no_argument,
		.help = "same as --format json: a snapshot per refresh (every\n"
			"stack with frames, key, counts per event/cpu/pid)",
		.man = ".B \\-\\-json",
		.complete = CLI_FLAG,
	},
	{
		.id = OPT_FOLDED_ROOT,
		.name = "folded-root",
		.has_arg = required_argument,
		.metavar = " WHAT",
		.help = "none|comm|pid: root folded stacks (and the html and svg\n"
			"flame graphs) at the command (pid: command;pid) that\n"
			"hit them (default none)",
		.man = ".BI \\-\\-folded\\-root \" WHAT\"",
		.complete = CLI_WORDS,
		.words = "none comm pid",
	},
	{
		.id = OPT_NO_INLINE,
		.name = "no-inline",
		.kind = CLI_K_TRUE,
		.off = offsetof(struct args, so.no_inline),
		.has_arg = no_argument,
		.help = "-u: no DWARF read: no inlined frames, no source\n"
			"lines (as perf report --no-inline)",
		.man = ".B \\-\\-no\\-inline",
		.complete = CLI_FLAG,
	},
	{
		.id = OPT_FOLDED_LOST,
		.name = "folded-lost",
		.kind = CLI_K_TRUE,
		.off = offsetof(struct args, lost_stack),
		.has_arg = no_argument,
		.help = "add a stack [lost events] for the events the ring\n"
			"buffer lost (its share estimated) to folded, pprof,\n"
			"speedscope, html and svg output",
		.man = ".B \\-\\-folded\\-lost",
		.complete = CLI_FLAG,
	},
	{ .name = NULL }, /* the end */
};
