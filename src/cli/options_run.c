// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * options_run.c - the options of one concern, rows of the table of
 * options.h (option_row.h): where the stacks come from (the kernel, recordings), the
 * run itself and the program. --help lists them in this order, after those of the
 * files before it in options.c's list.
 */
#include <getopt.h>
#include <stddef.h>

#include "cli/argset.h"
#include "cli/option_row.h"
#include "output/metrics.h"

const struct cli_option cli_options_run[] = {
	{
		.id = OPT_MODE,
		.name = "mode",
		.has_arg = required_argument,
		.metavar = " MODE",
		.help = "auto|stackmap|stacks|passive (default auto)",
		.man = ".BI \\-\\-mode \" MODE\"",
		.complete = CLI_WORDS,
		.words = "auto stackmap stacks passive",
	},
	{
		.id = 'r',
		.name = "replay",
		.shrt = 'r',
		.has_arg = required_argument,
		.metavar = " FILE",
		.help = "read a file instead of the kernel: a trace-cmd\n"
			"trace.dat (recorded with stack traces: trace-cmd\n"
			"record -T; a stack_map_bin or stack_map next to it\n"
			"resolves its stack ids), or a JSON snapshot (--json,\n"
			"-o FILE.json), shown as it was seen; several -r\n"
			"snapshots merge, with an ORIGIN column",
		.man = ".BR \\-r \", \" \\-\\-replay \" \\fIFILE\\fR\"",
		.complete = CLI_FILE,
	},
	{
		.id = OPT_DIFF,
		.name = "diff",
		.has_arg = required_argument,
		.metavar = " BEFORE AFTER",
		.help = "compare two snapshots (or trace.dats), or BEFORE\n"
			"with the live kernel when AFTER is '-': stacks\n"
			"ranked by the change of their share of the hits,\n"
			"NEW and GONE marked (text, or JSON with --json;\n"
			"-o d.html: the differential flame graph;\n"
			"on a terminal the screen, with BEF%, CHG% and\n"
			"GONE rows, ranked the same way)",
		.man = ".BI \\-\\-diff \" BEFORE AFTER\"",
		.complete = CLI_FILE,
	},
	{
		.id = OPT_DIFF_BASE,
		.name = "diff-base",
		.has_arg = required_argument,
		.metavar = " BEFORE",
		.help = "with -r AFTER: as --diff BEFORE AFTER (-o d.html:\n"
			"the differential flame graph, pprof's -diff_base)",
		.man = ".BI \\-\\-diff\\-base \" BEFORE\"",
		.complete = CLI_FILE,
	},
	{
		.id = OPT_MAP,
		.name = "map",
		.kind = CLI_K_STR,
		.off = offsetof(struct args, so.map_file),
		.has_arg = required_argument,
		.metavar = " FILE",
		.help = "a saved stack_map_bin or stack_map: resolves the\n"
			"ids of a replayed trace; alone, ranks its stacks\n"
			"by ref_count (what stackmap_dump.py --top shows)",
		.man = ".BI \\-\\-map \" FILE\"",
		.complete = CLI_FILE,
	},
	{
		.id = OPT_RESET_FIRST,
		.name = "reset-first",
		.kind = CLI_K_TRUE,
		.off = offsetof(struct args, so.reset_first),
		.has_arg = no_argument,
		.help = "reset the kernel map (and counts) at start: it\n"
			"empties a full map pool (its size is the boot\n"
			"parameter ftrace_stackmap.bits=N: 2^N stacks)",
		.man = ".B \\-\\-reset\\-first",
		.complete = CLI_FLAG,
	},
	{
		.id = OPT_TRACEFS,
		.name = "tracefs",
		.kind = CLI_K_STR,
		.off = offsetof(struct args, so.tracefs),
		.has_arg = required_argument,
		.metavar = " DIR",
		.help = "tracefs root (default: find or mount it); a tracefs\n"
			"or a root-owned directory only root can write",
		.man = ".BI \\-\\-tracefs \" DIR\"",
		.complete = CLI_DIR,
	},
	{
		.id = OPT_KALLSYMS,
		.name = "kallsyms",
		.kind = CLI_K_STR,
		.off = offsetof(struct args, so.kallsyms),
		.has_arg = required_argument,
		.metavar = " FILE",
		.help = "kernel symbols (default /proc/kallsyms; a regular file)",
		.man = ".BI \\-\\-kallsyms \" FILE\"",
		.complete = CLI_FILE,
	},
	{
		.id = OPT_VMLINUX,
		.name = "vmlinux",
		.kind = CLI_K_STR,
		.off = offsetof(struct args, so.vmlinux),
		.has_arg = required_argument,
		.metavar = " FILE",
		.help = "the kernel's image with DWARF: kernel frames get\n"
			"their source lines",
		.man = ".BI \\-\\-vmlinux \" FILE\"",
		.complete = CLI_FILE,
	},
	{
		.id = OPT_BUFFER_KB,
		.name = "buffer-kb",
		.kind = CLI_K_UINT,
		.off = offsetof(struct args, so.buffer_kb),
		.min = 4,
		.max = 1 << 22,
		.hint = "KiB per CPU, 4 to 4194304",
		.has_arg = required_argument,
		.metavar = " N",
		.help = "per-CPU ring buffer of the private instance, KiB (default: 4096, at "
			"most 65536 over all CPUs, or the kernel's if larger)",
		.man = ".BI \\-\\-buffer\\-kb \" N\"",
		.complete = CLI_NONE,
	},
	{
		.id = OPT_RUNDIR,
		.name = "rundir",
		.kind = CLI_K_STR,
		.off = offsetof(struct args, so.rundir),
		.has_arg = required_argument,
		.metavar = " DIR",
		.help = "restore journal directory (default /run/stacktop)",
		.man = ".BI \\-\\-rundir \" DIR\"",
		.complete = CLI_DIR,
	},
	{
		.id = OPT_CLEANUP,
		.name = "cleanup",
		.kind = CLI_K_TRUE,
		.off = offsetof(struct args, cleanup),
		.has_arg = no_argument,
		.help = "undo what runs that ended without restoring left\n"
			"(journals, instances), say what, and exit",
		.man = ".B \\-\\-cleanup",
		.complete = CLI_FLAG,
	},
	{
		.id = OPT_PRESERVE_ENV,
		.name = "preserve-env",
		.has_arg = optional_argument,
		.metavar = "[=VAR,...]",
		.help = "-- CMD gets these of stacktop's environment variables\n"
			"too (without a list: all of them); else only PATH,\n"
			"HOME, SHELL, USER, LOGNAME, TERM, LANG(UAGE), LC_*",
		.man = ".BR \\-\\-preserve\\-env \"[=\\fIVAR\\fR,...]\"",
		.complete = CLI_NONE,
	},
	{
		.id = OPT_SHOW_SELF,
		.name = "show-self",
		.kind = CLI_K_TRUE,
		.off = offsetof(struct args, so.show_self),
		.has_arg = no_argument,
		.help = "count stacktop's own events too (hidden by default)",
		.man = ".B \\-\\-show\\-self",
		.complete = CLI_FLAG,
	},
	{
		.id = OPT_MAX_MEMORY,
		.name = "max-memory",
		.kind = CLI_K_SIZE,
		.off = offsetof(struct args, so.max_memory),
		.min = 256 << 10,
		.max = 0,
		.hint = "bytes with K, M or G, at least 256K",
		.has_arg = required_argument,
		.metavar = " SIZE",
		.help = "bound on what stacktop keeps per stack and per\n"
			"process (K, M, G suffixes; default 256M): near it\n"
			"exited processes are folded into their command",
		.man = ".BI \\-\\-max\\-memory \" SIZE\"",
		.complete = CLI_NONE,
	},
	{
		.id = OPT_SERVE,
		.name = "serve",
		.kind = CLI_K_STR,
		.off = offsetof(struct args, serve.addr),
		.min = 1,
		.has_arg = required_argument,
		.metavar = " [ADDR:]PORT",
		.help = "answer HTTP while collecting: /metrics (Prometheus),\n"
			"/debug/pprof/profile?seconds=N, /snapshot.json,\n"
			"/flame.html; ADDR 127.0.0.1 by default; another\n"
			"address needs --serve-cert/-key and --serve-auth",
		.man = ".BI \\-\\-serve \" \\fR[\\fIADDR\\fB:\\fR]\\fIPORT\"",
		.complete = CLI_NONE,
	},
	{
		.id = OPT_SERVE_TOP,
		.name = "serve-top",
		.kind = CLI_K_UINT,
		.off = offsetof(struct args, serve.top),
		.min = 0,
		.max = METRICS_TOP_MAX,
		.hint = "0 to 1000",
		.has_arg = required_argument,
		.metavar = " K",
		.help = "--serve: /metrics lists the K stacks with most\n"
			"hits (default 50): at most K series of them",
		.man = ".BI \\-\\-serve\\-top \" K\"",
		.complete = CLI_NONE,
	},
	{
		.id = OPT_SERVE_CERT,
		.name = "serve-cert",
		.kind = CLI_K_STR,
		.off = offsetof(struct args, serve.cert),
		.min = 1,
		.has_arg = required_argument,
		.metavar = " FILE",
		.help = "--serve over TLS: the certificate chain (PEM)",
		.man = ".BI \\-\\-serve\\-cert \" FILE\"",
		.complete = CLI_FILE,
	},
	{
		.id = OPT_SERVE_KEY,
		.name = "serve-key",
		.kind = CLI_K_STR,
		.off = offsetof(struct args, serve.key),
		.min = 1,
		.has_arg = required_argument,
		.metavar = " FILE",
		.help = "--serve over TLS: its private key (PEM, a file\n"
			"only root reads)",
		.man = ".BI \\-\\-serve\\-key \" FILE\"",
		.complete = CLI_FILE,
	},
	{
		.id = OPT_SERVE_AUTH,
		.name = "serve-auth",
		.kind = CLI_K_STR,
		.off = offsetof(struct args, serve.auth),
		.min = 1,
		.has_arg = required_argument,
		.metavar = " bearer:FILE|basic:FILE",
		.help = "--serve: answer only requests with this bearer token\n"
			"or USER:PASSWORD (basic), the first line of FILE\n"
			"(a file only root reads)",
		.man = ".BR \\-\\-serve\\-auth \" bearer:\\fIFILE\\fR|\\fBbasic:\\fIFILE\\fR\"",
		.complete = CLI_NONE,
	},
	{
		.id = 'q',
		.name = "quiet",
		.kind = CLI_K_TRUE,
		.off = offsetof(struct args, quiet),
		.shrt = 'q',
		.has_arg = no_argument,
		.help = "batch: no report on standard output (with --serve:\n"
			"an agent that answers HTTP only)",
		.man = ".BR \\-q \", \" \\-\\-quiet",
		.complete = CLI_FLAG,
	},
	{
		.id = OPT_LIST_EVENTS,
		.name = "list-events",
		.has_arg = optional_argument,
		.metavar = " [GLOB]",
		.help = "print this kernel's events (SYS:EVENT), one a line,\n"
			"a tab, and yes/no: can stacktop record their stacks",
		.man = ".BR \\-\\-list\\-events \" [\\fIGLOB\\fR]\"",
		.complete = CLI_EVENTS,
	},
	{
		.id = 'M',
		.name = "no-mouse",
		.kind = CLI_K_FALSE,
		.off = offsetof(struct args, mouse),
		.shrt = 'M',
		.has_arg = no_argument,
		.help = "do not use the mouse",
		.man = ".BR \\-M \", \" \\-\\-no\\-mouse",
		.complete = CLI_FLAG,
	},
	{
		.id = OPT_NO_COLOR,
		.name = "no-color",
		.kind = CLI_K_FALSE,
		.off = offsetof(struct args, color),
		.has_arg = no_argument,
		.help = "monochrome (also when NO_COLOR is set)",
		.man = ".B \\-\\-no\\-color",
		.complete = CLI_FLAG,
	},
	{
		.id = 'v',
		.name = "verbose",
		.kind = CLI_K_COUNT,
		.off = offsetof(struct args, verbose),
		.shrt = 'v',
		.has_arg = no_argument,
		.help = "more messages",
		.man = ".BR \\-v \", \" \\-\\-verbose",
		.complete = CLI_FLAG,
	},
	{
		.id = 'h',
		.name = "help",
		.shrt = 'h',
		.has_arg = no_argument,
		.help = "this help",
		.man = ".BR \\-h \", \" \\-\\-help",
		.complete = CLI_FLAG,
	},
	{
		.id = 'V',
		.name = "version",
		.shrt = 'V',
		.has_arg = no_argument,
		.help = "version",
		.man = ".BR \\-V \", \" \\-\\-version",
		.complete = CLI_FLAG,
	},
	/* hidden: for the tests and the completion */
	{ .id = OPT_PRINT_KEYS,
	  .name = "print-keys",
	  .has_arg = no_argument,
	  .complete = CLI_FLAG },
	{
		.id = OPT_PRINT_OPTIONS,
		.name = "print-options",
		.has_arg = optional_argument,
		.complete = CLI_WORDS,
		.words = "help man complete formats",
	},
	{ .name = NULL }, /* the end */
};
