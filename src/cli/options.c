// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * options.c - see options.h. The --help lines keep their layout: the
 * option from column 2 (its short form first), its text from column 26,
 * on the next line when the option is wider than 23 columns.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli/argset.h"
#include "cli/options.h"
#include "core/stack.h"
#include "core/format.h"
#include "output/export.h"
#include "output/metrics.h"

#define HELP_COL 26

/* --format's values: the formats' table (output/export.h) */
static const char *format_value(unsigned int i, const char **line)
{
	if (i >= EXPORT_FORMAT_MAX)
		return NULL;
	if (line)
		*line = export_format_line((enum export_format)i);
	return export_format_name((enum export_format)i);
}

const struct cli_option cli_options[] = {
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
		.help = "stacks in the table (default 20 in batch; JSON: all)",
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
			"counted exactly: the header's exact count, the rows'\n"
			"hits estimated as samples x N; a hot event then costs\n"
			"its workload about what counting it does",
		.man = ".BI \\-\\-sample \" N\"",
		.complete = CLI_NONE,
	},
	{
		.id = OPT_OVERHEAD,
		.name = "overhead",
		.has_arg = required_argument,
		.metavar = " PCT",
		.help = "--sample with N chosen and adapted so that the stacks\n"
			"cost about PCT% of the CPUs (0.1 to 50): a stack's\n"
			"cost measured at start, the event's rate each interval",
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
};

const unsigned int cli_noptions = sizeof(cli_options) / sizeof(cli_options[0]);

const struct cli_option *cli_option_find(int id)
{
	unsigned int i;

	for (i = 0; i < cli_noptions; i++)
		if (cli_options[i].id == id)
			return &cli_options[i];
	return NULL;
}

void cli_getopt(struct option *longopts, char *shortopts, size_t size)
{
	size_t n = 0;
	unsigned int i;

	/* ':' first: a missing argument told from an unknown option (cli_getopt_error()) */
	if (size > 1)
		shortopts[n++] = ':';
	for (i = 0; i < cli_noptions; i++) {
		const struct cli_option *o = &cli_options[i];

		longopts[i] = (struct option){ o->name, o->has_arg, NULL, o->id };
		if (!o->shrt || n + 4 > size)
			continue;
		shortopts[n++] = o->shrt;
		if (o->has_arg != no_argument)
			shortopts[n++] = ':';
		if (o->has_arg == optional_argument)
			shortopts[n++] = ':';
	}
	longopts[cli_noptions] = (struct option){ NULL, 0, NULL, 0 };
	if (size)
		shortopts[n < size ? n : size - 1] = '\0';
}

void cli_error(const char *fmt, ...)
{
	char msg[2048], line[2048];
	const char *p, *nl;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* line by line: the message's own line ends stay, the arguments' do not */
	for (p = msg; *p; p = *nl ? nl + 1 : nl) {
		nl = p + strcspn(p, "\n");
		fmt_sanitize(line, sizeof(line), p, (size_t)(nl - p));
		fprintf(stderr, "%s%s", line, *nl ? "\n" : "");
	}
}

void cli_getopt_error(char **argv, int ind, int c, int opt)
{
	const char *arg = ind > 0 ? argv[ind - 1] : "";
	bool lng = !strncmp(arg, "--", 2);

	if (lng && c == ':')
		cli_error("stacktop: option '%s' requires an argument\n", arg);
	else if (lng)
		cli_error("stacktop: unrecognized option '%s' (or ambiguous, or given a value)\n",
			  arg);
	else if (opt > ' ' && opt < 0x7f)
		cli_error("stacktop: %s -- '%c'\n",
			  c == ':' ? "option requires an argument" : "invalid option", opt);
	else
		cli_error("stacktop: invalid option -- byte 0x%02x\n", (unsigned int)opt & 0xff);
	cli_error("Try 'stacktop --help'.\n");
}

void cli_print_help(FILE *f)
{
	unsigned int i, k;

	for (i = 0; i < cli_noptions; i++) {
		const struct cli_option *o = &cli_options[i];
		const char *p, *nl;
		int w;

		if (!o->help)
			continue;
		if (o->shrt)
			w = fprintf(f, "  -%c, --%s%s", o->shrt, o->name,
				    o->metavar ? o->metavar : "");
		else
			w = fprintf(f, "      --%s%s", o->name, o->metavar ? o->metavar : "");
		/* wider than the column: the text starts on the next line */
		if (w >= HELP_COL) {
			fputc('\n', f);
			w = 0;
		}
		for (p = o->help; p; p = nl ? nl + 1 : NULL) {
			nl = strchr(p, '\n');
			fprintf(f, "%*s%.*s\n", HELP_COL - w, "",
				nl ? (int)(nl - p) : (int)strlen(p), p);
			w = 0;
		}
		for (k = 0; o->values && o->values(k, &p); k++)
			fprintf(f, "%*s%s\n", HELP_COL, "", p);
	}
}

void cli_print_man(FILE *f)
{
	unsigned int i;

	for (i = 0; i < cli_noptions; i++)
		if (cli_options[i].help)
			fprintf(f, "%s\n", cli_options[i].man);
}

void cli_print_complete(FILE *f)
{
	static const char *const kinds[] = {
		[CLI_FLAG] = "flag",   [CLI_NONE] = "none", [CLI_EVENTS] = "events",
		[CLI_WORDS] = "words", [CLI_FILE] = "file", [CLI_DIR] = "dir",
	};
	unsigned int i, k;

	for (i = 0; i < cli_noptions; i++) {
		const struct cli_option *o = &cli_options[i];
		char shrt[4] = "-"; /* tab is blank to read: no empty field */
		const char *w;

		if (!o->help)
			continue;
		if (o->shrt)
			snprintf(shrt, sizeof(shrt), "-%c", o->shrt);
		/* an optional value comes after '=', unless --help shows it as a word of its own */
		fprintf(f, "--%s\t%s\t%s%s\t%s", o->name, shrt,
			o->has_arg == optional_argument && !(o->metavar && o->metavar[0] == ' ')
				? "optional-"
				: "",
			kinds[o->complete], o->words ? o->words : "");
		for (k = 0; !o->words && o->values && (w = o->values(k, NULL)); k++)
			fprintf(f, "%s%s", k ? " " : "", w);
		fputc('\n', f);
	}
}

void cli_print_formats_man(FILE *f)
{
	const struct export_fmt *e;
	int i, j;

	for (i = 0; (e = export_format_get(i)); i++) {
		fprintf(f, ".BR %s \" (", e->name);
		for (j = 0; j < EXPORT_SUFFIXES && e->suffixes[j]; j++)
			fprintf(f, "%s%s", j ? ", " : "", e->suffixes[j]);
		fprintf(f, "%s)\"\n", e->flags & EXPORT_F_ONE ? "; one profile" : "");
	}
}
