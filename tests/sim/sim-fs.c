// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sim-fs.c - stackmap-sim's tracefs tree over FUSE (high-level API), its
 * control files and main().
 *
 * Every file is opened with direct_io, so sizes are those of each read()
 * and write() call (stat reports size 0, as tracefs does).  Ordinary files
 * are rendered once at open, like a seq_file snapshot (stack_map_bin's
 * snapshot-at-open is the kernel's own semantics).  per_cpu/cpuN/
 * trace_pipe_raw is a stream: each read() consumes and returns exactly one
 * 4096-byte sub-buffer page; when the ring is empty it fails with EAGAIN if
 * the file was opened O_NONBLOCK, otherwise it waits up to --block-ms and
 * then returns 0.  poll() reports it readable at the instance's
 * buffer_percent, as the kernel does (sim-ring.c).
 *
 * Hidden directory .sim/ (not part of tracefs): control, truth, kallsyms.
 */
#define FUSE_USE_VERSION 312

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sim.h"

struct sim sim = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.data_cond = PTHREAD_COND_INITIALIZER,
};

static time_t start_time;

/*
 * Options as listed by this machine's trace_options (6.18), with the RFC's
 * "stackmap" after "stacktrace".  Defaults: top level / instance.
 */
const struct sim_option sim_options[] = {
	{ "print-parent", 1, 1, 0 },
	{ "sym-offset", 0, 0, 0 },
	{ "sym-addr", 0, 0, 0 },
	{ "verbose", 0, 0, 0 },
	{ "raw", 0, 0, 0 },
	{ "hex", 0, 0, 0 },
	{ "bin", 0, 0, 0 },
	{ "block", 0, 0, 0 },
	{ "fields", 0, 0, 0 },
	{ "trace_printk", 1, 1, SIM_OPT_TOP_ONLY },
	{ "annotate", 1, 1, 0 },
	{ "userstacktrace", 0, 0, 0 },
	{ "sym-userobj", 0, 0, 0 },
	{ "printk-msg-only", 0, 0, SIM_OPT_TOP_ONLY },
	{ "context-info", 1, 1, 0 },
	{ "latency-format", 0, 0, 0 },
	{ "record-cmd", 1, 1, SIM_OPT_TOP_ONLY },
	{ "record-tgid", 0, 0, 0 },
	{ "overwrite", 1, 1, 0 },
	{ "disable_on_free", 0, 0, 0 },
	{ "irq-info", 1, 1, 0 },
	{ "markers", 1, 1, 0 },
	{ "event-fork", 0, 0, 0 },
	{ "trace_printk_dest", 1, 0, 0 },
	{ "copy_trace_marker", 1, 0, 0 },
	{ "pause-on-trace", 0, 0, 0 },
	{ "hash-ptr", 1, 1, 0 },
	{ "function-trace", 1, 1, 0 },
	{ "function-fork", 0, 0, 0 },
	{ "stacktrace", 0, 0, 0 },
	{ "stackmap", 0, 0, SIM_OPT_TOP_ONLY | SIM_OPT_STACKMAP },
	{ "test_nop_accept", 0, 0, 0 },
	{ "test_nop_refuse", 0, 0, 0 },
	{ "func_stack_trace", 0, 0, SIM_OPT_DIR_ONLY },
	{ "func-no-repeats", 0, 0, SIM_OPT_DIR_ONLY },
};

const unsigned int sim_noptions = sizeof(sim_options) / sizeof(sim_options[0]);

int sim_option_index(const char *name)
{
	unsigned int i;

	for (i = 0; i < sim_noptions; i++)
		if (!strcmp(sim_options[i].name, name))
			return (int)i;
	return -1;
}

/* ---- the tree ------------------------------------------------------------ */

enum kind {
	K_NONE,
	/* directories */
	K_ROOT, K_INSTANCES, K_OPTIONS, K_PER_CPU, K_CPU, K_EVENTS, K_SYS, K_EVENT, K_SIMDIR,
	K_FIRST_FILE,
	/* instance files */
	K_TRACING_ON = K_FIRST_FILE, K_TRACE_OPTIONS, K_SET_EVENT, K_BUFFER_SIZE, K_BUFFER_TOTAL,
	K_SUBBUF, K_BUFFER_PERCENT, K_CURRENT_TRACER, K_AVAIL_TRACERS, K_TRACE_CLOCK, K_TRACE,
	K_TRACE_PIPE, K_TIMESTAMP_MODE, K_CPUMASK, K_ERROR_LOG, K_STUB, K_FREE_BUFFER,
	K_TRACE_MARKER, K_FTRACE_FILTER, K_FTRACE_NOTRACE, K_EV_NOTRACE_PID, K_FN_NOTRACE_PID,
	/* top-level only */
	K_README, K_AVAIL_EVENTS, K_AVAIL_FUNCS, K_PRINTK_FORMATS, K_SAVED_CMDLINES,
	K_SAVED_CMDLINES_SIZE, K_SAVED_TGIDS, K_TRACING_THRESH, K_STACK_MAP, K_STACK_MAP_STAT,
	K_STACK_MAP_BIN, K_DYN_EVENTS, K_KPROBE_EVENTS,
	/* elsewhere */
	K_OPTION, K_CPU_RAW, K_CPU_STATS, K_CPU_TRACE, K_CPU_PIPE, K_CPU_SIZE,
	K_EV_ALL_ENABLE, K_HEADER_PAGE, K_HEADER_EVENT, K_SYS_ENABLE, K_SYS_FILTER,
	K_EV_ENABLE, K_EV_FILTER, K_EV_FORMAT, K_EV_ID, K_EV_TRIGGER,
	K_SIM_CONTROL, K_SIM_TRUTH, K_SIM_KALLSYMS,
};

enum {
	F_TOP = 1,	/* top level only */
	F_MAP = 2,	/* a stack_map* file: only when the map is live */
};

struct node_def {
	const char *name;
	enum kind kind;
	mode_t mode;
	unsigned int flags;
};

static const struct node_def root_nodes[] = {
	{ "README", K_README, 0440, F_TOP },
	{ "available_events", K_AVAIL_EVENTS, 0440, F_TOP },
	{ "available_filter_functions", K_AVAIL_FUNCS, 0440, F_TOP },
	{ "available_tracers", K_AVAIL_TRACERS, 0440, 0 },
	{ "buffer_percent", K_BUFFER_PERCENT, 0640, 0 },
	{ "buffer_size_kb", K_BUFFER_SIZE, 0640, 0 },
	{ "buffer_subbuf_size_kb", K_SUBBUF, 0640, 0 },
	{ "buffer_total_size_kb", K_BUFFER_TOTAL, 0440, 0 },
	{ "current_tracer", K_CURRENT_TRACER, 0640, 0 },
	{ "dynamic_events", K_DYN_EVENTS, 0640, F_TOP },
	{ "error_log", K_ERROR_LOG, 0640, 0 },
	{ "events", K_EVENTS, 0755, 0 },
	{ "free_buffer", K_FREE_BUFFER, 0200, 0 },
	{ "instances", K_INSTANCES, 0750, F_TOP },
	{ "kprobe_events", K_KPROBE_EVENTS, 0640, F_TOP },
	{ "options", K_OPTIONS, 0750, 0 },
	{ "per_cpu", K_PER_CPU, 0750, 0 },
	{ "printk_formats", K_PRINTK_FORMATS, 0440, F_TOP },
	{ "saved_cmdlines", K_SAVED_CMDLINES, 0440, F_TOP },
	{ "saved_cmdlines_size", K_SAVED_CMDLINES_SIZE, 0640, F_TOP },
	{ "saved_tgids", K_SAVED_TGIDS, 0440, F_TOP },
	{ "set_event", K_SET_EVENT, 0640, 0 },
	{ "set_event_notrace_pid", K_EV_NOTRACE_PID, 0640, 0 },
	{ "set_event_pid", K_STUB, 0640, 0 },
	{ "set_ftrace_filter", K_FTRACE_FILTER, 0640, 0 },
	{ "set_ftrace_notrace", K_FTRACE_NOTRACE, 0640, 0 },
	{ "set_ftrace_notrace_pid", K_FN_NOTRACE_PID, 0640, 0 },
	{ "set_ftrace_pid", K_STUB, 0640, 0 },
	{ "stack_map", K_STACK_MAP, 0640, F_TOP | F_MAP },
	{ "stack_map_bin", K_STACK_MAP_BIN, 0440, F_TOP | F_MAP },
	{ "stack_map_stat", K_STACK_MAP_STAT, 0440, F_TOP | F_MAP },
	{ "timestamp_mode", K_TIMESTAMP_MODE, 0440, 0 },
	{ "trace", K_TRACE, 0640, 0 },
	{ "trace_clock", K_TRACE_CLOCK, 0640, 0 },
	{ "trace_marker", K_TRACE_MARKER, 0220, 0 },
	{ "trace_marker_raw", K_TRACE_MARKER, 0220, 0 },
	{ "trace_options", K_TRACE_OPTIONS, 0640, 0 },
	{ "trace_pipe", K_TRACE_PIPE, 0440, 0 },
	{ "tracing_cpumask", K_CPUMASK, 0640, 0 },
	{ "tracing_on", K_TRACING_ON, 0640, 0 },
	{ "tracing_thresh", K_TRACING_THRESH, 0640, F_TOP },
	{ ".sim", K_SIMDIR, 0750, F_TOP },
};

static const struct node_def cpu_nodes[] = {
	{ "buffer_size_kb", K_CPU_SIZE, 0640, 0 },
	{ "stats", K_CPU_STATS, 0440, 0 },
	{ "trace", K_CPU_TRACE, 0640, 0 },
	{ "trace_pipe", K_CPU_PIPE, 0440, 0 },
	{ "trace_pipe_raw", K_CPU_RAW, 0440, 0 },
};

static const struct node_def event_nodes[] = {
	{ "enable", K_EV_ENABLE, 0640, 0 },
	{ "filter", K_EV_FILTER, 0640, 0 },
	{ "format", K_EV_FORMAT, 0440, 0 },
	{ "id", K_EV_ID, 0440, 0 },
	{ "trigger", K_EV_TRIGGER, 0640, 0 },
};

static const struct node_def sim_nodes[] = {
	{ "control", K_SIM_CONTROL, 0640, 0 },
	{ "kallsyms", K_SIM_KALLSYMS, 0440, 0 },
	{ "truth", K_SIM_TRUTH, 0440, 0 },
};

static const char *const systems[] = { "ftrace", "irq", "kmem", "sched", "timer" };
#define NSYS (sizeof(systems) / sizeof(systems[0]))

struct loc {
	enum kind kind;
	mode_t mode;
	struct sim_inst *in;
	int cpu;
	int sys;
	int ev;		/* < SIM_NEV: ordinary or kprobe event; SIM_FEV_BASE + fev: ftrace */
	int opt;
};

static bool is_dir(enum kind k)
{
	return k < K_FIRST_FILE;
}

static bool root_node_visible(const struct node_def *d, const struct sim_inst *in)
{
	if ((d->flags & F_TOP) && !in->top)
		return false;
	if (d->flags & F_MAP) {
		if (!sim.map_live)
			return false;
		if ((d->kind == K_STACK_MAP && sim.hidden_map) ||
		    (d->kind == K_STACK_MAP_STAT && sim.hidden_stat) ||
		    (d->kind == K_STACK_MAP_BIN && sim.hidden_bin))
			return false;
	}
	return true;
}

static bool option_visible(int i, const struct sim_inst *in)
{
	const struct sim_option *o = &sim_options[i];

	if ((o->flags & SIM_OPT_TOP_ONLY) && !in->top)
		return false;
	if ((o->flags & SIM_OPT_STACKMAP) && sim.hidden_opt)
		return false;
	return true;
}

/* Event indexes: see SIM_NEV; a kprobe slot that is not live has no name. */
#define NEVIDX (SIM_FEV_BASE + SIM_FEV_MAX)

static const char *ev_sys(int ev)
{
	if (ev < SIM_EV_MAX)
		return sim_events[ev].sys;
	if (ev < SIM_NEV)
		return sim.kprobes[ev - SIM_EV_MAX].live ? sim.kprobes[ev - SIM_EV_MAX].group : "";
	return sim_fevents[ev - SIM_FEV_BASE].sys;
}

static const char *ev_name(int ev)
{
	if (ev < SIM_EV_MAX)
		return sim_events[ev].name;
	if (ev < SIM_NEV)
		return sim.kprobes[ev - SIM_EV_MAX].live ? sim.kprobes[ev - SIM_EV_MAX].name : "";
	return sim_fevents[ev - SIM_FEV_BASE].name;
}

static bool ev_live(int ev)
{
	return ev < SIM_EV_MAX || ev >= SIM_NEV || sim.kprobes[ev - SIM_EV_MAX].live;
}

/* Systems: the static ones, then one per kprobe slot (its group, if new). */
static const char *sys_name(int sys)
{
	return sys < (int)NSYS ? systems[sys] : sim.kprobes[sys - NSYS].group;
}

static int sys_find(const char *name)
{
	int k;

	for (k = 0; k < (int)NSYS; k++)
		if (!strcmp(systems[k], name))
			return k;
	for (k = 0; k < SIM_MAX_KPROBES; k++)
		if (sim.kprobes[k].live && !strcmp(sim.kprobes[k].group, name))
			return (int)NSYS + k;
	return -1;
}

static struct sim_inst *inst_find(const char *name)
{
	struct sim_inst *in;

	for (in = sim.insts->next; in; in = in->next)
		if (!strcmp(in->name, name))
			return in;
	return NULL;
}

static int lookup_def(const struct node_def *defs, size_t n, const char *name, struct loc *l)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!strcmp(defs[i].name, name)) {
			l->kind = defs[i].kind;
			l->mode = defs[i].mode;
			return 0;
		}
	}
	return -ENOENT;
}

/* Resolve @path (starting with '/') to what it names.  Caller holds the lock. */
static int resolve(const char *path, struct loc *l)
{
	char buf[512], *c[8], *save = NULL, *tok;
	int n = 0, i = 0, k;

	memset(l, 0, sizeof(*l));
	l->cpu = l->sys = l->ev = l->opt = -1;
	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
		if (n == 8)
			return -ENOENT;
		c[n++] = tok;
	}
	l->in = sim.insts;
	l->kind = K_ROOT;
	l->mode = 0750;
	if (n == 0)
		return 0;
	if (!strcmp(c[0], "instances")) {
		if (n == 1) {
			l->kind = K_INSTANCES;
			return 0;
		}
		l->in = inst_find(c[1]);
		if (!l->in)
			return -ENOENT;
		i = 2;
		if (n == 2)
			return 0;
	}
	if (lookup_def(root_nodes, sizeof(root_nodes) / sizeof(root_nodes[0]), c[i], l))
		return -ENOENT;
	for (k = 0; k < (int)(sizeof(root_nodes) / sizeof(root_nodes[0])); k++)
		if (!strcmp(root_nodes[k].name, c[i]) && !root_node_visible(&root_nodes[k], l->in))
			return -ENOENT;
	if (l->kind == K_INSTANCES && i)
		return -ENOENT;
	i++;
	if (i == n)
		return 0;

	switch (l->kind) {
	case K_OPTIONS:
		if (i + 1 != n)
			return -ENOENT;
		l->opt = sim_option_index(c[i]);
		if (l->opt < 0 || !option_visible(l->opt, l->in))
			return -ENOENT;
		l->kind = K_OPTION;
		l->mode = 0640;
		return 0;
	case K_PER_CPU:
		if (strncmp(c[i], "cpu", 3) || !c[i][3])
			return -ENOENT;
		l->cpu = atoi(c[i] + 3);
		if (l->cpu < 0 || l->cpu >= (int)sim.cfg.cpus)
			return -ENOENT;
		l->kind = K_CPU;
		l->mode = 0750;
		if (++i == n)
			return 0;
		if (i + 1 != n)
			return -ENOENT;
		return lookup_def(cpu_nodes, sizeof(cpu_nodes) / sizeof(cpu_nodes[0]), c[i], l);
	case K_SIMDIR:
		if (i + 1 != n)
			return -ENOENT;
		return lookup_def(sim_nodes, sizeof(sim_nodes) / sizeof(sim_nodes[0]), c[i], l);
	case K_EVENTS:
		if (i + 1 == n) {
			if (!strcmp(c[i], "enable")) {
				l->kind = K_EV_ALL_ENABLE;
				l->mode = 0640;
				return 0;
			}
			if (!strcmp(c[i], "header_page") || !strcmp(c[i], "header_event")) {
				l->kind = c[i][7] == 'p' ? K_HEADER_PAGE : K_HEADER_EVENT;
				l->mode = 0440;
				return 0;
			}
		}
		l->sys = sys_find(c[i]);
		if (l->sys < 0)
			return -ENOENT;
		l->kind = K_SYS;
		l->mode = 0755;
		if (++i == n)
			return 0;
		if (i + 1 == n && l->sys != 0 &&
		    (!strcmp(c[i], "enable") || !strcmp(c[i], "filter"))) {
			l->kind = c[i][0] == 'e' ? K_SYS_ENABLE : K_SYS_FILTER;
			l->mode = 0640;
			return 0;
		}
		for (k = 0; k < NEVIDX; k++)
			if (ev_live(k) && !strcmp(ev_sys(k), sys_name(l->sys)) &&
			    !strcmp(ev_name(k), c[i]))
				l->ev = k;
		if (l->ev < 0)
			return -ENOENT;
		l->kind = K_EVENT;
		l->mode = 0755;
		if (++i == n)
			return 0;
		if (i + 1 != n)
			return -ENOENT;
		if (lookup_def(event_nodes, sizeof(event_nodes) / sizeof(event_nodes[0]), c[i], l))
			return -ENOENT;
		/* ftrace-internal entries only have a format file (function: and id) */
		if (l->ev >= SIM_NEV && l->kind != K_EV_FORMAT &&
		    !(l->ev == SIM_FEV_BASE + SIM_FEV_FUNCTION && l->kind == K_EV_ID))
			return -ENOENT;
		return 0;
	default:
		return -ENOENT;
	}
}

/* ---- rendering ------------------------------------------------------------ */

static void render_stack_id_format(struct sbuf *sb)
{
	sbuf_printf(sb, "name: stack_id\nID: %d\nformat:\n", sim.cfg.stack_id_type);
	sbuf_printf(sb, "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		    "\tfield:int stack_id;\toffset:8;\tsize:4;\tsigned:1;\n\n"
		    "print fmt: \"<stack_id %%d>\", REC->stack_id\n");
}

static const char *enable_state(const struct sim_inst *in, int sys)
{
	int k, on = 0, all = 0;

	for (k = 0; k < SIM_NEV; k++) {
		if (!ev_live(k) || (sys >= 0 && strcmp(ev_sys(k), sys_name(sys))))
			continue;
		all++;
		/* soft mode (a trigger) registers the event: the kernel counts it on */
		on += in->enabled[k] || in->trig[k].on;
	}
	return !on ? "0\n" : on == all ? "1\n" : "X\n";
}

static const char *const clocks[] = { "local", "global", "counter", "uptime", "perf", "mono",
				      "mono_raw", "boot", "tai", "x86-tsc" };

static void render_control(struct sbuf *sb)
{
	sbuf_printf(sb, "abi: v%d\n", sim.cfg.abi);
	sbuf_printf(sb, "bits: %u\n", sim.cfg.bits);
	sbuf_printf(sb, "table_size: %u\n", sim.map.size);
	sbuf_printf(sb, "map_live: %d\n", sim.map_live);
	sbuf_printf(sb, "generation: %u\n", sim.generation);
	sbuf_printf(sb, "cpus: %u\n", sim.cfg.cpus);
	sbuf_printf(sb, "rate: %u\n", sim.cfg.rate);
	sbuf_printf(sb, "step: %d\n", sim.cfg.step);
	sbuf_printf(sb, "paused: %d\n", sim.paused);
	sbuf_printf(sb, "seed: %llu\n", (unsigned long long)sim.cfg.seed);
	sbuf_printf(sb, "swap: %d\n", sim.cfg.swap);
	sbuf_printf(sb, "stacks: %u\n", sim.nstacks);
	sbuf_printf(sb, "func_stacks: %u\n", sim.nfstacks);
	sbuf_printf(sb, "text_base: 0x%llx\n", (unsigned long long)sim.syms.text_base);
	sbuf_printf(sb, "fired: %llu\n", (unsigned long long)sim.fired);
	sbuf_printf(sb, "emitted: %llu\n", (unsigned long long)sim.emitted);
	sbuf_printf(sb, "nested: %llu\n", (unsigned long long)sim.nested);
	sbuf_printf(sb, "races: %llu\n", (unsigned long long)sim.races);
	sbuf_printf(sb, "ustacks: %llu\n", (unsigned long long)sim.ustacks);
	sbuf_printf(sb, "map_entries: %u\n", sim.map.next_elt);
	sbuf_printf(sb, "map_successes: %llu\n", (unsigned long long)sim.map.successes);
	sbuf_printf(sb, "map_drops: %llu\n", (unsigned long long)sim.map.drops);
	sbuf_printf(sb, "race_p: %g\nnest_p: %g\nabs_p: %g\ngap_p: %g\n", sim.cfg.race_p,
		    sim.cfg.nest_p, sim.cfg.abs_p, sim.cfg.gap_p);
	sbuf_printf(sb, "bin_fault: %d\n", sim.bin_fault);
	sbuf_printf(sb, "hidden:%s%s%s%s\n", sim.hidden_map ? " stack_map" : "",
		    sim.hidden_stat ? " stack_map_stat" : "",
		    sim.hidden_bin ? " stack_map_bin" : "",
		    sim.hidden_opt ? " options/stackmap" : "");
	sbuf_printf(sb, "last: %s\n", sim.last_ctl);
}

static void render(const struct loc *l, struct sbuf *sb)
{
	struct sim_inst *in = l->in;
	unsigned int i, total;
	int k;

	switch (l->kind) {
	case K_TRACING_ON:
		sbuf_printf(sb, "%d\n", in->tracing_on);
		break;
	case K_TRACE_OPTIONS:
		for (i = 0; i < sim_noptions; i++) {
			/* tracer options: listed while their tracer is current */
			if ((sim_options[i].flags & SIM_OPT_DIR_ONLY) && strcmp(in->tracer, "function"))
				continue;
			if ((sim_options[i].flags & SIM_OPT_STACKMAP) && sim.hidden_opt)
				continue;
			sbuf_printf(sb, "%s%s\n", in->opts[i] ? "" : "no", sim_options[i].name);
		}
		break;
	case K_OPTION:
		sbuf_printf(sb, "%d\n", in->opts[l->opt]);
		break;
	case K_SET_EVENT:
		/* as the kernel's: every registered event, soft mode (a trigger) too */
		for (k = 0; k < SIM_NEV; k++)
			if (ev_live(k) && (in->enabled[k] || in->trig[k].on))
				sbuf_printf(sb, "%s:%s\n", ev_sys(k), ev_name(k));
		break;
	case K_BUFFER_SIZE:
		for (i = 1; i < sim.cfg.cpus; i++)
			if (in->ring[i].size_kb != in->ring[0].size_kb)
				break;
		if (i < sim.cfg.cpus)
			sbuf_printf(sb, "X\n");
		else if (!in->expanded)
			sbuf_printf(sb, "7 (expanded: %u)\n", in->ring[0].size_kb);
		else
			sbuf_printf(sb, "%u\n", in->ring[0].size_kb);
		break;
	case K_CPU_SIZE:
		if (!in->expanded)
			sbuf_printf(sb, "7 (expanded: %u)\n", in->ring[l->cpu].size_kb);
		else
			sbuf_printf(sb, "%u\n", in->ring[l->cpu].size_kb);
		break;
	case K_BUFFER_TOTAL:
		for (i = total = 0; i < sim.cfg.cpus; i++)
			total += in->expanded ? in->ring[i].size_kb : 7;
		sbuf_printf(sb, "%u\n", total);
		break;
	case K_SUBBUF:
		sbuf_printf(sb, "4\n");
		break;
	case K_BUFFER_PERCENT:
		sbuf_printf(sb, "%u\n", in->buffer_percent);
		break;
	case K_CURRENT_TRACER:
		sbuf_printf(sb, "%s\n", in->tracer);
		break;
	case K_AVAIL_TRACERS:
		sbuf_printf(sb, "function nop\n");
		break;
	case K_TRACE_CLOCK:
		for (i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++) {
			bool cur = !strcmp(clocks[i], in->clock);

			sbuf_printf(sb, "%s%s%s%s", i ? " " : "", cur ? "[" : "", clocks[i],
				    cur ? "]" : "");
		}
		sbuf_add(sb, "\n", 1);
		break;
	case K_TRACE:
	case K_CPU_TRACE:
		sbuf_printf(sb, "# tracer: %s\n#\n# (stackmap-sim: the text trace is not "
			    "rendered; read per_cpu/cpuN/trace_pipe_raw)\n", in->tracer);
		break;
	case K_TIMESTAMP_MODE:
		sbuf_printf(sb, "[delta] absolute\n");
		break;
	case K_CPUMASK:
		sbuf_printf(sb, "%llx\n", (unsigned long long)((sim.cfg.cpus >= 64) ? ~0ULL :
							       (1ULL << sim.cfg.cpus) - 1));
		break;
	case K_ERROR_LOG:
		if (in->errlog.len)
			sbuf_add(sb, in->errlog.p, in->errlog.len);
		break;
	case K_FTRACE_FILTER:
	case K_FTRACE_NOTRACE:
		sim_render_func_filter(in, l->kind == K_FTRACE_NOTRACE, sb);
		break;
	case K_EV_NOTRACE_PID:
	case K_FN_NOTRACE_PID:
		sim_render_pidlist(in, l->kind == K_EV_NOTRACE_PID ? SIM_PL_EVENT_NOTRACE :
				   SIM_PL_FTRACE_NOTRACE, sb);
		break;
	case K_DYN_EVENTS:
	case K_KPROBE_EVENTS:
		sim_render_dynevents(sb);
		break;
	case K_STUB:
	case K_PRINTK_FORMATS:
	case K_SAVED_TGIDS:
		break;
	case K_TRACING_THRESH:
		sbuf_printf(sb, "0\n");
		break;
	case K_README:
		sbuf_printf(sb, "tracing mini-HOWTO:\n\n# echo 0 > tracing_on : quick way to "
			    "disable tracing\n# echo 1 > tracing_on : quick way to re-enable "
			    "tracing\n\n(stackmap-sim: simulated tracefs of an ftrace stackmap "
			    "RFC v%d kernel)\n", sim.cfg.abi);
		break;
	case K_AVAIL_EVENTS:
		for (k = 0; k < SIM_NEV; k++)
			if (ev_live(k))
				sbuf_printf(sb, "%s:%s\n", ev_sys(k), ev_name(k));
		break;
	case K_AVAIL_FUNCS:
		for (i = 0; i < sim.syms.n; i++) {
			const struct sim_sym *y = &sim.syms.v[i];

			if (!sim_sym_traceable((int)i))
				continue;
			if (y->mod)
				sbuf_printf(sb, "%s [%s]\n", y->name, y->mod);
			else
				sbuf_printf(sb, "%s\n", y->name);
		}
		break;
	case K_SAVED_CMDLINES:
		sim_saved_cmdlines(sb);
		break;
	case K_SAVED_CMDLINES_SIZE:
		sbuf_printf(sb, "128\n");
		break;
	case K_STACK_MAP:
		map_render_text(&sim.map, sim.cfg.abi, &sim.syms, sb);
		break;
	case K_STACK_MAP_STAT:
		map_render_stat(&sim.map, sim.cfg.abi, sb);
		break;
	case K_STACK_MAP_BIN:
		map_render_bin(&sim.map, sim.cfg.abi, sim.cfg.swap, sim.bin_fault, sb);
		break;
	case K_CPU_STATS:
		ring_stats(&in->ring[l->cpu], sim_clock(), sb);
		break;
	case K_EV_ALL_ENABLE:
		sbuf_printf(sb, "%s", enable_state(in, -1));
		break;
	case K_SYS_ENABLE:
		sbuf_printf(sb, "%s", enable_state(in, l->sys));
		break;
	case K_HEADER_PAGE:
		sbuf_printf(sb, "%s", sim_header_page);
		break;
	case K_HEADER_EVENT:
		sbuf_printf(sb, "%s", sim_header_event);
		break;
	case K_SYS_FILTER:
		sbuf_printf(sb, "none\n");
		break;
	case K_EV_ENABLE:
		/* a trigger keeps the event in soft mode: "0*", or "1*" once enabled */
		sbuf_printf(sb, "%d%s\n", in->enabled[l->ev], in->trig[l->ev].on ? "*" : "");
		break;
	case K_EV_FILTER:
		sim_render_filter(in, l->ev, sb);
		break;
	case K_EV_FORMAT:
		if (l->ev == SIM_FEV_BASE + SIM_FEV_STACK_ID)
			render_stack_id_format(sb);
		else
			sbuf_printf(sb, "%s", sim_event_format(l->ev));
		break;
	case K_EV_ID:
		sbuf_printf(sb, "%d\n", l->ev < SIM_EV_MAX ? sim_events[l->ev].id :
			    l->ev < SIM_NEV ? sim.kprobes[l->ev - SIM_EV_MAX].id :
			    sim_fevents[l->ev - SIM_FEV_BASE].id);
		break;
	case K_EV_TRIGGER:
		sim_render_trigger(in, l->ev, sb);
		break;
	case K_SIM_CONTROL:
		render_control(sb);
		break;
	case K_SIM_TRUTH:
		sim_truth_render(sb);
		break;
	case K_SIM_KALLSYMS:
		syms_kallsyms(&sim.syms, sb);
		break;
	default:
		break;
	}
}

/* ---- writes ---------------------------------------------------------------- */

/* kstrtoul-like: a number with optional trailing newline. */
static int parse_ulong(const char *buf, size_t len, unsigned long *ret)
{
	char tmp[32], *end;

	if (!len || len >= sizeof(tmp))
		return -EINVAL;
	memcpy(tmp, buf, len);
	tmp[len] = '\0';
	if (tmp[len - 1] == '\n')
		tmp[len - 1] = '\0';
	if (!tmp[0] || tmp[0] == '-')
		return -EINVAL;
	errno = 0;
	*ret = strtoul(tmp, &end, 0);
	if (errno || *end)
		return -EINVAL;
	return 0;
}

static void wake_all_rings(struct sim_inst *in)
{
	unsigned int i;

	for (i = 0; i < sim.cfg.cpus; i++)
		sim_notify_data(&in->ring[i]);
}

static int set_option(struct sim_inst *in, int idx, bool on)
{
	const struct sim_option *o = &sim_options[idx];
	unsigned int i;

	if (o->flags & SIM_OPT_STACKMAP) {
		if (sim.hidden_opt)
			return -EINVAL;
		/* v4: set_tracer_flag() refuses instances and a failed init. */
		if (on && !in->top && sim.cfg.abi >= 4)
			return -EINVAL;
		if (on && in->top && (sim.cfg.fail_init || sim.option_einval))
			return -EINVAL;
	}
	in->opts[idx] = on;
	if (!strcmp(o->name, "overwrite"))
		for (i = 0; i < sim.cfg.cpus; i++)
			in->ring[i].overwrite = on;
	return 0;
}

static int write_trace_options(struct sim_inst *in, const char *buf, size_t len)
{
	char tmp[64], *p;
	bool on = true;
	int idx;

	if (len >= sizeof(tmp))
		return -EINVAL;
	memcpy(tmp, buf, len);
	tmp[len] = '\0';
	p = tmp + strspn(tmp, " \t\n");
	p[strcspn(p, " \t\n")] = '\0';
	if (!strncmp(p, "no", 2) && sim_option_index(p) < 0) {
		on = false;
		p += 2;
	}
	idx = sim_option_index(p);
	if (idx < 0)
		return -EINVAL;
	/* trace_options reaches only the current tracer's options */
	if ((sim_options[idx].flags & SIM_OPT_DIR_ONLY) && strcmp(in->tracer, "function"))
		return -EINVAL;
	return set_option(in, idx, on);
}

static bool ev_match(int k, const char *sys, const char *ev)
{
	if (!ev_live(k))
		return false;
	if (sys && strcmp(sys, "*") && strcmp(sys, ev_sys(k)))
		return false;
	if (ev && *ev && strcmp(ev, "*") && strcmp(ev, ev_name(k)))
		return false;
	return true;
}

static int write_set_event(struct sim_inst *in, const char *buf, size_t len)
{
	char tmp[512], *save = NULL, *tok;
	int ret = 0;

	if (len >= sizeof(tmp))
		return -EINVAL;
	memcpy(tmp, buf, len);
	tmp[len] = '\0';
	for (tok = strtok_r(tmp, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
		bool on = true, any = false;
		char *colon, *sys = NULL, *ev = tok;
		int k;

		if (*tok == '!') {
			on = false;
			ev = ++tok;
		}
		colon = strchr(tok, ':');
		if (colon) {
			*colon = '\0';
			sys = tok;
			ev = colon + 1;
		}
		for (k = 0; k < SIM_NEV; k++) {
			if (!ev_match(k, sys, ev))
				continue;
			in->enabled[k] = on;
			any = true;
		}
		if (!any)
			ret = -EINVAL;
		else if (on)
			in->expanded = true;
	}
	return ret;
}

static int write_enable(struct sim_inst *in, int sys, int ev, const char *buf, size_t len)
{
	unsigned long v;
	int k;

	if (parse_ulong(buf, len, &v) || v > 1)
		return -EINVAL;
	for (k = 0; k < SIM_NEV; k++) {
		if (!ev_live(k) || (ev >= 0 && k != ev))
			continue;
		if (sys >= 0 && strcmp(ev_sys(k), sys_name(sys)))
			continue;
		in->enabled[k] = v;
	}
	if (v)
		in->expanded = true;
	return 0;
}

static bool is_reset_v2(const char *buf, size_t len)
{
	char tmp[8];

	/* The kernel copies at most 7 bytes (char buf[8]). */
	if (len > 7)
		len = 7;
	memcpy(tmp, buf, len);
	tmp[len] = '\0';
	return !strcmp(tmp, "0") || !strcmp(tmp, "0\n") || !strcmp(tmp, "reset") ||
	       !strcmp(tmp, "reset\n");
}

static int write_stack_map(const char *buf, size_t len)
{
	if (sim.cfg.abi == 1) {
		if (!len || (buf[0] != '0' && (len < 5 || strncmp(buf, "reset", 5))))
			return -EINVAL;
		sim_map_reset(false);
		return 0;
	}
	if (!is_reset_v2(buf, len))
		return -EINVAL;
	/* v2+: tracing on, or a concurrent reset (the reset-busy control) */
	if (sim.insts->tracing_on || sim.reset_busy)
		return -EBUSY;
	sim_map_reset(sim.cfg.abi >= 4);
	return 0;
}

static int hide(const char *name, bool on)
{
	if (!strcmp(name, "stack_map"))
		sim.hidden_map = on;
	else if (!strcmp(name, "stack_map_stat"))
		sim.hidden_stat = on;
	else if (!strcmp(name, "stack_map_bin"))
		sim.hidden_bin = on;
	else if (!strcmp(name, "options/stackmap") || !strcmp(name, "stackmap"))
		sim.hidden_opt = on;
	else
		return -EINVAL;
	return 0;
}

static int ctl_prob(const char *arg, double *p)
{
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || v < 0 || v > 1)
		return -EINVAL;
	*p = v;
	return 0;
}

/* One control command; see doc/simulator.md. */
static int control_cmd(char *line)
{
	char *argv[4] = { 0 }, *save = NULL, *tok;
	static const char *const faults[] = { "none", "truncate", "magic", "count", "short",
					      "empty" };
	struct sim_inst *in;
	unsigned int i;
	int argc = 0;

	for (tok = strtok_r(line, " \t", &save); tok && argc < 4;
	     tok = strtok_r(NULL, " \t", &save))
		argv[argc++] = tok;
	if (!argc)
		return 0;
	if (!strcmp(argv[0], "emit") && argc >= 2) {
		int cpu = -1;
		unsigned int n;

		if (argc == 4 && !strcmp(argv[2], "cpu"))
			cpu = atoi(argv[3]);
		if (cpu >= (int)sim.cfg.cpus)
			return -EINVAL;
		n = sim_emit((unsigned int)strtoul(argv[1], NULL, 0), cpu);
		snprintf(sim.last_ctl, sizeof(sim.last_ctl), "emitted %u", n);
		return 0;
	}
	if (!strcmp(argv[0], "rate") && argc == 2) {
		sim.cfg.rate = (unsigned int)strtoul(argv[1], NULL, 0);
		sim.cfg.step = false;
	} else if (!strcmp(argv[0], "feed-on-read") && argc == 2) {
		sim.feed_on_read = (unsigned int)strtoul(argv[1], NULL, 0);
		if (sim.feed_on_read > 100000)
			return -EINVAL;
	} else if (!strcmp(argv[0], "emit-on-write") && argc == 2) {
		sim.emit_on_write = (unsigned int)strtoul(argv[1], NULL, 0);
		if (sim.emit_on_write > 100000)
			return -EINVAL;
	} else if (!strcmp(argv[0], "pause")) {
		sim.paused = true;
	} else if (!strcmp(argv[0], "resume")) {
		sim.paused = false;
	} else if (!strcmp(argv[0], "fill-pool")) {
		sim_fill_pool(argc > 1 ? (unsigned int)strtoul(argv[1], NULL, 0) : 0);
	} else if (!strcmp(argv[0], "reset-map")) {
		sim_map_reset(sim.cfg.abi >= 4);
	} else if (!strcmp(argv[0], "clear")) {
		for (in = sim.insts; in; in = in->next)
			sim_inst_clear(in);
	} else if (!strcmp(argv[0], "option-einval") && argc == 2) {
		sim.option_einval = atoi(argv[1]) != 0;
	} else if (!strcmp(argv[0], "reset-busy") && argc == 2) {
		sim.reset_busy = atoi(argv[1]) != 0;
	} else if (!strcmp(argv[0], "truth-clear")) {
		sim_truth_clear();
	} else if (!strcmp(argv[0], "bin-fault") && argc == 2) {
		for (i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
			if (!strcmp(argv[1], faults[i]))
				break;
		if (i == sizeof(faults) / sizeof(faults[0]))
			return -EINVAL;
		sim.bin_fault = i;
	} else if ((!strcmp(argv[0], "hide") || !strcmp(argv[0], "show")) && argc == 2) {
		return hide(argv[1], argv[0][0] == 'h');
	} else if (!strcmp(argv[0], "race") && argc == 2) {
		return ctl_prob(argv[1], &sim.cfg.race_p);
	} else if (!strcmp(argv[0], "nest") && argc == 2) {
		return ctl_prob(argv[1], &sim.cfg.nest_p);
	} else if (!strcmp(argv[0], "abs-ts") && argc == 2) {
		return ctl_prob(argv[1], &sim.cfg.abs_p);
	} else if (!strcmp(argv[0], "gap") && argc == 2) {
		return ctl_prob(argv[1], &sim.cfg.gap_p);
	} else {
		return -EINVAL;
	}
	snprintf(sim.last_ctl, sizeof(sim.last_ctl), "ok %s", argv[0]);
	return 0;
}

static int write_control(const char *buf, size_t len)
{
	char *tmp = strndup(buf, len), *save = NULL, *line;
	int ret = 0;

	if (!tmp)
		return -ENOMEM;
	for (line = strtok_r(tmp, "\n;", &save); line && !ret; line = strtok_r(NULL, "\n;", &save))
		ret = control_cmd(line);
	free(tmp);
	return ret;
}

static int do_write(const struct loc *l, const char *buf, size_t len)
{
	struct sim_inst *in = l->in;
	unsigned long v;
	unsigned int i;
	int ret = 0;

	/* a kprobe event removed while one of its files was open */
	if (l->ev >= 0 && l->ev < SIM_NEV && !ev_live(l->ev))
		return -ENODEV;
	switch (l->kind) {
	case K_TRACING_ON:
		if (parse_ulong(buf, len, &v))
			return -EINVAL;
		in->tracing_on = !!v;
		if (!v)
			wake_all_rings(in);
		return 0;
	case K_TRACE_OPTIONS:
		return write_trace_options(in, buf, len);
	case K_OPTION:
		if (parse_ulong(buf, len, &v) || v > 1)
			return -EINVAL;
		return set_option(in, l->opt, v);
	case K_SET_EVENT:
		return write_set_event(in, buf, len);
	case K_EV_ALL_ENABLE:
		return write_enable(in, -1, -1, buf, len);
	case K_SYS_ENABLE:
		return write_enable(in, l->sys, -1, buf, len);
	case K_EV_ENABLE:
		return write_enable(in, -1, l->ev, buf, len);
	case K_BUFFER_SIZE:
	case K_CPU_SIZE:
		if (parse_ulong(buf, len, &v) || !v || v > 1024 * 1024)
			return -EINVAL;
		for (i = 0; i < sim.cfg.cpus; i++)
			if (l->kind == K_BUFFER_SIZE || (int)i == l->cpu)
				ring_resize(&in->ring[i], (unsigned int)v);
		in->expanded = true;
		return 0;
	case K_SUBBUF:
		if (parse_ulong(buf, len, &v) || v != 4)
			return -EINVAL;
		return 0;
	case K_BUFFER_PERCENT:
		if (parse_ulong(buf, len, &v) || v > 100)
			return -EINVAL;
		in->buffer_percent = (unsigned int)v;
		for (i = 0; i < SIM_MAX_CPUS; i++)
			in->ring[i].percent = in->buffer_percent;
		return 0;
	case K_CURRENT_TRACER: {
		size_t n = len;

		while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
			n--;
		if ((n == 3 && !strncmp(buf, "nop", 3)) || (n == 8 && !strncmp(buf, "function", 8))) {
			/* a new tracer's tracer_init() resets the instance's buffers */
			if (strlen(in->tracer) != n || strncmp(in->tracer, buf, n))
				sim_inst_clear(in);
			snprintf(in->tracer, sizeof(in->tracer), "%.*s", (int)n, buf);
			return 0;
		}
		return -EINVAL;
	}
	case K_FTRACE_FILTER:
	case K_FTRACE_NOTRACE:
		return sim_write_func_filter(in, l->kind == K_FTRACE_NOTRACE, buf, len);
	case K_EV_NOTRACE_PID:
	case K_FN_NOTRACE_PID:
		return sim_write_pidlist(in, l->kind == K_EV_NOTRACE_PID ? SIM_PL_EVENT_NOTRACE :
					 SIM_PL_FTRACE_NOTRACE, buf, len);
	case K_DYN_EVENTS:
	case K_KPROBE_EVENTS:
		return sim_write_dynevents(l->kind == K_KPROBE_EVENTS, buf, len);
	case K_EV_TRIGGER:
		return sim_write_trigger(in, l->ev, buf, len);
	case K_TRACE_CLOCK:
		for (i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++) {
			size_t n = strlen(clocks[i]);

			if (len >= n && !strncmp(buf, clocks[i], n) &&
			    (len == n || buf[n] == '\n')) {
				snprintf(in->clock, sizeof(in->clock), "%s", clocks[i]);
				return 0;
			}
		}
		return -EINVAL;
	case K_TRACE:
		sim_inst_clear(in);
		return 0;
	case K_CPU_TRACE:
		ring_clear(&in->ring[l->cpu]);
		return 0;
	case K_STACK_MAP:
		return write_stack_map(buf, len);
	case K_EV_FILTER:
		return sim_write_filter(in, l->ev, buf, len);
	case K_SIM_CONTROL:
		return write_control(buf, len);
	case K_STUB:
	case K_SYS_FILTER:
	case K_TRACE_MARKER:
	case K_FREE_BUFFER:
	case K_ERROR_LOG:
	case K_SAVED_CMDLINES_SIZE:
	case K_TRACING_THRESH:
	case K_CPUMASK:
		return 0;
	default:
		ret = -EINVAL;
	}
	return ret;
}

/* O_TRUNC on open, or truncate(): what "> file" does in tracefs. */
static int do_truncate(const struct loc *l)
{
	unsigned int k;

	switch (l->kind) {
	case K_FTRACE_FILTER:
	case K_FTRACE_NOTRACE:
		sim_clear_func_filter(l->in, l->kind == K_FTRACE_NOTRACE);
		break;
	case K_EV_NOTRACE_PID:
	case K_FN_NOTRACE_PID:
		sim_clear_pidlist(l->in, l->kind == K_EV_NOTRACE_PID ? SIM_PL_EVENT_NOTRACE :
				  SIM_PL_FTRACE_NOTRACE);
		break;
	case K_DYN_EVENTS:
	case K_KPROBE_EVENTS:
		return sim_clear_dynevents(l->kind == K_KPROBE_EVENTS);
	case K_EV_TRIGGER:
		/*
		 * The kernel's O_TRUNC runs the commands' unreg_all, which only
		 * the hist commands have: a stacktrace trigger stays (measured
		 * on 6.12 and 6.18); only "!stacktrace" removes it.
		 */
		break;
	case K_ERROR_LOG:
		sbuf_free(&l->in->errlog);
		break;
	case K_TRACE:
		sim_inst_clear(l->in);
		break;
	case K_CPU_TRACE:
		ring_clear(&l->in->ring[l->cpu]);
		break;
	case K_SET_EVENT:
		for (k = 0; k < SIM_NEV; k++)
			l->in->enabled[k] = false;
		break;
	default:
		break;
	}
	return 0;
}

/* ---- FUSE callbacks --------------------------------------------------------- */

/* the kernel's trace_parser of one open set_ftrace_filter/notrace (FTRACE_BUFF_MAX) */
#define SIM_FILTER_TOKEN_MAX 512

struct fh {
	struct loc loc;
	struct sbuf content;
	char tok[SIM_FILTER_TOKEN_MAX]; /* set_ftrace_filter/notrace: a token not ended yet */
	size_t toklen;
	bool cont;
	bool nonblock;
	uint8_t page[SIM_PAGE_SIZE];	/* rest of a page read in pieces */
	unsigned int page_off;
	unsigned int page_len;
};

/*
 * New records on @r: a blocking read waits for any data, a poll() for the
 * watermark (buffer_percent: rb_wakeups() wakes the full waiters then)
 */
void sim_notify_data(struct sim_ring *r)
{
	if (r->ph && ring_watermark(r)) {
		fuse_notify_poll(r->ph);
		fuse_pollhandle_destroy(r->ph);
		r->ph = NULL;
	}
	pthread_cond_broadcast(&sim.data_cond);
}

static void *sim_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	cfg->direct_io = 1;
	cfg->entry_timeout = 0;
	cfg->attr_timeout = 0;
	cfg->negative_timeout = 0;
	cfg->kernel_cache = 0;
	return NULL;
}

static int sim_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	struct loc l;
	int ret;

	pthread_mutex_lock(&sim.lock);
	ret = resolve(path, &l);
	pthread_mutex_unlock(&sim.lock);
	if (ret)
		return ret;
	memset(st, 0, sizeof(*st));
	st->st_mode = (is_dir(l.kind) ? S_IFDIR : S_IFREG) | l.mode;
	st->st_nlink = is_dir(l.kind) ? 2 : 1;
	st->st_atime = st->st_mtime = st->st_ctime = start_time;
	st->st_blksize = SIM_PAGE_SIZE;
	return 0;
}

static int sim_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
		       struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	struct sim_inst *in;
	struct loc l;
	char name[64];
	unsigned int i;
	int ret, k;

	pthread_mutex_lock(&sim.lock);
	ret = resolve(path, &l);
	if (ret)
		goto out;
	if (!is_dir(l.kind)) {
		ret = -ENOTDIR;
		goto out;
	}
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	switch (l.kind) {
	case K_ROOT:
		for (i = 0; i < sizeof(root_nodes) / sizeof(root_nodes[0]); i++)
			if (root_node_visible(&root_nodes[i], l.in))
				fill(buf, root_nodes[i].name, NULL, 0, 0);
		break;
	case K_INSTANCES:
		for (in = sim.insts->next; in; in = in->next)
			fill(buf, in->name, NULL, 0, 0);
		break;
	case K_OPTIONS:
		for (i = 0; i < sim_noptions; i++)
			if (option_visible((int)i, l.in))
				fill(buf, sim_options[i].name, NULL, 0, 0);
		break;
	case K_PER_CPU:
		for (i = 0; i < sim.cfg.cpus; i++) {
			snprintf(name, sizeof(name), "cpu%u", i);
			fill(buf, name, NULL, 0, 0);
		}
		break;
	case K_CPU:
		for (i = 0; i < sizeof(cpu_nodes) / sizeof(cpu_nodes[0]); i++)
			fill(buf, cpu_nodes[i].name, NULL, 0, 0);
		break;
	case K_SIMDIR:
		for (i = 0; i < sizeof(sim_nodes) / sizeof(sim_nodes[0]); i++)
			fill(buf, sim_nodes[i].name, NULL, 0, 0);
		break;
	case K_EVENTS:
		fill(buf, "enable", NULL, 0, 0);
		fill(buf, "header_event", NULL, 0, 0);
		fill(buf, "header_page", NULL, 0, 0);
		for (i = 0; i < NSYS; i++)
			fill(buf, systems[i], NULL, 0, 0);
		for (k = 0; k < SIM_MAX_KPROBES; k++)
			if (sim.kprobes[k].live && sys_find(sim.kprobes[k].group) == (int)NSYS + k)
				fill(buf, sim.kprobes[k].group, NULL, 0, 0);
		break;
	case K_SYS:
		if (l.sys != 0) {
			fill(buf, "enable", NULL, 0, 0);
			fill(buf, "filter", NULL, 0, 0);
		}
		for (k = 0; k < NEVIDX; k++)
			if (ev_live(k) && !strcmp(ev_sys(k), sys_name(l.sys)))
				fill(buf, ev_name(k), NULL, 0, 0);
		break;
	case K_EVENT:
		for (i = 0; i < sizeof(event_nodes) / sizeof(event_nodes[0]); i++)
			if (l.ev < SIM_NEV || event_nodes[i].kind == K_EV_FORMAT ||
			    (l.ev == SIM_FEV_BASE + SIM_FEV_FUNCTION && event_nodes[i].kind == K_EV_ID))
				fill(buf, event_nodes[i].name, NULL, 0, 0);
		break;
	default:
		break;
	}
out:
	pthread_mutex_unlock(&sim.lock);
	return ret;
}

static int sim_open(const char *path, struct fuse_file_info *fi)
{
	struct fh *fh;
	int acc = fi->flags & O_ACCMODE;
	int ret;

	fh = calloc(1, sizeof(*fh));
	if (!fh)
		return -ENOMEM;
	pthread_mutex_lock(&sim.lock);
	ret = resolve(path, &fh->loc);
	if (ret)
		goto fail;
	if (is_dir(fh->loc.kind)) {
		ret = -EISDIR;
		goto fail;
	}
	/* Root may open anything; only refuse what has no handler at all. */
	if (acc != O_WRONLY && !(fh->loc.mode & 0444)) {
		ret = -EACCES;
		goto fail;
	}
	if (fi->flags & O_TRUNC) {
		sim.cfg_gen++;
		ret = do_truncate(&fh->loc);
		if (ret)
			goto fail;
	}
	if (acc != O_WRONLY && fh->loc.kind != K_CPU_RAW && fh->loc.kind != K_TRACE_PIPE &&
	    fh->loc.kind != K_CPU_PIPE)
		render(&fh->loc, &fh->content);
	fh->nonblock = fi->flags & O_NONBLOCK;
	fh->loc.in->refs++;
	pthread_mutex_unlock(&sim.lock);

	fi->fh = (uintptr_t)fh;
	fi->direct_io = 1;
	if (fh->loc.kind == K_CPU_RAW || fh->loc.kind == K_TRACE_PIPE ||
	    fh->loc.kind == K_CPU_PIPE)
		fi->nonseekable = 1;
	return 0;
fail:
	pthread_mutex_unlock(&sim.lock);
	free(fh);
	return ret;
}

static int sim_release(const char *path, struct fuse_file_info *fi)
{
	struct fh *fh = (struct fh *)(uintptr_t)fi->fh;

	pthread_mutex_lock(&sim.lock);
	/* ftrace_regex_release(): a token left at the end applies, its error is lost */
	if (fh->toklen && (fh->loc.kind == K_FTRACE_FILTER || fh->loc.kind == K_FTRACE_NOTRACE)) {
		sim.cfg_gen++;
		sim_write_func_filter(fh->loc.in, fh->loc.kind == K_FTRACE_NOTRACE, fh->tok,
				      fh->toklen);
	}
	fh->loc.in->refs--;
	pthread_mutex_unlock(&sim.lock);
	sbuf_free(&fh->content);
	free(fh);
	return 0;
}

static int read_raw(struct fh *fh, char *buf, size_t size)
{
	struct sim_ring *r = &fh->loc.in->ring[fh->loc.cpu];
	struct timespec until;
	size_t n;

	pthread_mutex_lock(&sim.lock);
	if (fh->page_off >= fh->page_len) {
		/* a busy kernel: the buffer never runs dry while it is read */
		if (sim.feed_on_read)
			sim_emit(sim.feed_on_read, fh->loc.cpu);
		fh->page_off = fh->page_len = 0;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += sim.cfg.block_ms / 1000;
		until.tv_nsec += (long)(sim.cfg.block_ms % 1000) * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		while (!ring_read(r, fh->page)) {
			if (fh->nonblock) {
				pthread_mutex_unlock(&sim.lock);
				return -EAGAIN;
			}
			if (pthread_cond_timedwait(&sim.data_cond, &sim.lock, &until)) {
				pthread_mutex_unlock(&sim.lock);
				return 0;
			}
		}
		fh->page_len = SIM_PAGE_SIZE;
	}
	n = fh->page_len - fh->page_off;
	if (n > size)
		n = size;
	memcpy(buf, fh->page + fh->page_off, n);
	fh->page_off += n;
	pthread_mutex_unlock(&sim.lock);
	return (int)n;
}

static int sim_read(const char *path, char *buf, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct fh *fh = (struct fh *)(uintptr_t)fi->fh;

	if (fh->loc.kind == K_CPU_RAW)
		return read_raw(fh, buf, size);
	if (fh->loc.kind == K_TRACE_PIPE || fh->loc.kind == K_CPU_PIPE)
		return fh->nonblock ? -EAGAIN : 0;
	if (!(fh->loc.mode & 0444))
		return -EINVAL;
	if ((size_t)off >= fh->content.len)
		return 0;
	if (size > fh->content.len - off)
		size = fh->content.len - off;
	memcpy(buf, fh->content.p + off, size);
	return (int)size;
}

/*
 * A write to set_ftrace_filter/notrace, as the kernel's ftrace_regex_write()
 * with trace_get_user(): one token per write(2). Leading white space is
 * skipped (unless a token is being continued), the token is read up to white
 * space, which is consumed too, and applied then: its error (EINVAL: no
 * function matches) is the write's. A token that runs to the end of the
 * buffer waits for the next write or for the close, where it is applied and
 * an error is dropped. Returns the bytes consumed, so a longer text is a
 * short write that the writer continues, as echo does.
 */
static int filter_write(struct fh *fh, const char *buf, size_t size)
{
	size_t i = 0;
	int ret;

	if (!size)
		return 0;
	if (!fh->cont) {
		while (i < size && isspace((unsigned char)buf[i]))
			i++;
		fh->toklen = 0;
		if (i == size)
			return (int)i; /* only white space */
	}
	while (i < size && buf[i] && !isspace((unsigned char)buf[i])) {
		if (fh->toklen >= sizeof(fh->tok) - 1)
			return -EINVAL;
		fh->tok[fh->toklen++] = buf[i++];
	}
	if (i == size) {
		fh->cont = true;
		return (int)i;
	}
	i++; /* the white space (or NUL) that ends the token */
	fh->cont = false;
	ret = sim_write_func_filter(fh->loc.in, fh->loc.kind == K_FTRACE_NOTRACE, fh->tok,
				    fh->toklen);
	fh->toklen = 0;
	return ret < 0 ? ret : (int)i;
}

static int sim_write(const char *path, const char *buf, size_t size, off_t off,
		     struct fuse_file_info *fi)
{
	struct fh *fh = (struct fh *)(uintptr_t)fi->fh;
	int ret;

	if (!(fh->loc.mode & 0222))
		return -EINVAL;
	pthread_mutex_lock(&sim.lock);
	sim.cfg_gen++;
	if (fh->loc.kind == K_FTRACE_FILTER || fh->loc.kind == K_FTRACE_NOTRACE)
		ret = filter_write(fh, buf, size);
	else
		ret = do_write(&fh->loc, buf, size) ?: (int)size;
	/* the kernel runs on between two writes of a tool's setup */
	if (sim.emit_on_write && fh->loc.kind != K_SIM_CONTROL)
		sim_emit(sim.emit_on_write, -1);
	pthread_mutex_unlock(&sim.lock);
	return ret;
}

static int sim_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	struct loc l;
	int ret;

	pthread_mutex_lock(&sim.lock);
	ret = resolve(path, &l);
	if (!ret && is_dir(l.kind))
		ret = -EISDIR;
	if (!ret) {
		sim.cfg_gen++;
		ret = do_truncate(&l);
	}
	pthread_mutex_unlock(&sim.lock);
	return ret;
}

static int sim_poll(const char *path, struct fuse_file_info *fi, struct fuse_pollhandle *ph,
		    unsigned int *reventsp)
{
	struct fh *fh = (struct fh *)(uintptr_t)fi->fh;
	struct sim_ring *r;

	if (fh->loc.kind != K_CPU_RAW) {
		if (ph)
			fuse_pollhandle_destroy(ph);
		*reventsp = POLLIN | POLLOUT | POLLRDNORM;
		return 0;
	}
	r = &fh->loc.in->ring[fh->loc.cpu];
	pthread_mutex_lock(&sim.lock);
	if (ring_watermark(r) || fh->page_off < fh->page_len) {
		*reventsp = POLLIN | POLLRDNORM;
		if (ph)
			fuse_pollhandle_destroy(ph);
	} else {
		*reventsp = 0;
		if (ph) {
			if (r->ph)
				fuse_pollhandle_destroy(r->ph);
			r->ph = ph;
		}
	}
	pthread_mutex_unlock(&sim.lock);
	return 0;
}

static int sim_mkdir(const char *path, mode_t mode)
{
	const char *name;
	struct sim_inst *in, **pp;
	int ret = 0;

	if (strncmp(path, "/instances/", 11))
		return -EPERM;
	name = path + 11;
	if (!*name || strchr(name, '/') || strlen(name) >= sizeof(in->name))
		return -EINVAL;
	pthread_mutex_lock(&sim.lock);
	if (inst_find(name)) {
		ret = -EEXIST;
		goto out;
	}
	in = sim_inst_new(name, false);
	if (!in) {
		ret = -ENOMEM;
		goto out;
	}
	for (pp = &sim.insts; *pp; pp = &(*pp)->next)
		;
	*pp = in;
	sim.cfg_gen++;
out:
	pthread_mutex_unlock(&sim.lock);
	return ret;
}

static int sim_rmdir(const char *path)
{
	struct sim_inst *in, **pp;
	unsigned int i;
	int ret = 0;

	if (strncmp(path, "/instances/", 11))
		return -EPERM;
	pthread_mutex_lock(&sim.lock);
	in = inst_find(path + 11);
	if (!in) {
		ret = -ENOENT;
		goto out;
	}
	if (in->refs) {
		ret = -EBUSY;
		goto out;
	}
	for (pp = &sim.insts; *pp != in; pp = &(*pp)->next)
		;
	*pp = in->next;
	sim.cfg_gen++;
	for (i = 0; i < sim.cfg.cpus; i++) {
		if (in->ring[i].ph)
			fuse_pollhandle_destroy(in->ring[i].ph);
		in->ring[i].ph = NULL;
	}
	sim_inst_free(in);
out:
	pthread_mutex_unlock(&sim.lock);
	return ret;
}

static int sim_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	return -EACCES;
}

static int sim_unlink(const char *path)
{
	return -EPERM;
}

static int sim_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	return -EPERM;
}

static int sim_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi)
{
	return -EPERM;
}

static int sim_utimens(const char *path, const struct timespec tv[2],
		       struct fuse_file_info *fi)
{
	return 0;
}

static const struct fuse_operations sim_ops = {
	.init = sim_init,
	.getattr = sim_getattr,
	.readdir = sim_readdir,
	.open = sim_open,
	.release = sim_release,
	.read = sim_read,
	.write = sim_write,
	.truncate = sim_truncate,
	.poll = sim_poll,
	.mkdir = sim_mkdir,
	.rmdir = sim_rmdir,
	.create = sim_create,
	.unlink = sim_unlink,
	.chmod = sim_chmod,
	.chown = sim_chown,
	.utimens = sim_utimens,
};

/* ---- main -------------------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: stackmap-sim MOUNTPOINT [options]\n"
		"\n"
		"A FUSE file system that behaves like the tracefs of a kernel with the ftrace\n"
		"stackmap RFC.  Runs in the foreground; stop it with SIGTERM/SIGINT or\n"
		"'fusermount3 -u MOUNTPOINT'.  See doc/simulator.md.\n"
		"\n"
		"Kernel model:\n"
		"  --abi v1|v2|v3|v4     RFC version to behave like (default v4)\n"
		"  --bits N              map size: pool 2^N, table 2^(N+1); clamped to 10..18\n"
		"                        (10..20 for v1); default 14\n"
		"  --cpus N              simulated CPUs (1..%d, default 2)\n"
		"  --buffer-kb N         per-CPU ring buffer size (default 1408)\n"
		"  --stack-id-type N     event ID of ftrace/stack_id (default 20)\n"
		"  --fail-init           the map failed to initialize: no stack_map* files and\n"
		"                        enabling options/stackmap fails with EINVAL\n"
		"  --swap                write stack_map_bin in the other byte order\n"
		"  --no-kaslr            _stext at 0xffffffff81000000 (default: seeded slide)\n"
		"\n"
		"Workload:\n"
		"  --rate N              events per second per CPU (default 1000, 0: none)\n"
		"  --step                no timed events; only 'emit K' on .sim/control\n"
		"  --stacks N            distinct stacks (default 300)\n"
		"  --seed N              seed of everything random (default 1)\n"
		"  --race P              share of new map inserts that race (default 0.05)\n"
		"  --nest P              share of events with a nested irq (default 0.02)\n"
		"  --abs-ts P            share of records with an absolute time stamp (0.005)\n"
		"  --gap P               share of events followed by a long idle gap (0.002)\n"
		"  --deep P              share of stacks deeper than 64 frames (0.02)\n"
		"  --block-ms N          blocking trace_pipe_raw reads wait this long (1000)\n"
		"\n"
		"Other:\n"
		"  --kallsyms-out FILE   write the simulated kernel's kallsyms to FILE\n"
		"  -o OPT                FUSE mount option (e.g. -o allow_other)\n"
		"  -d, --debug           FUSE debug output\n"
		"  -h, --help            this text\n", SIM_MAX_CPUS);
}

static double parse_prob(const char *arg, const char *opt)
{
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || *end || v < 0 || v > 1) {
		fprintf(stderr, "stackmap-sim: %s wants a probability 0..1\n", opt);
		exit(2);
	}
	return v;
}

static unsigned long parse_num(const char *arg, const char *opt, unsigned long max)
{
	char *end;
	unsigned long v = strtoul(arg, &end, 0);

	if (end == arg || *end || v > max) {
		fprintf(stderr, "stackmap-sim: bad value for %s: %s\n", opt, arg);
		exit(2);
	}
	return v;
}

static int write_file(const char *path, const struct sbuf *sb)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	fwrite(sb->p, 1, sb->len, f);
	return fclose(f) ? -errno : 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "abi", required_argument, NULL, 'A' },
		{ "bits", required_argument, NULL, 'b' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "buffer-kb", required_argument, NULL, 'B' },
		{ "stack-id-type", required_argument, NULL, 'I' },
		{ "fail-init", no_argument, NULL, 'F' },
		{ "swap", no_argument, NULL, 'S' },
		{ "no-kaslr", no_argument, NULL, 'K' },
		{ "rate", required_argument, NULL, 'r' },
		{ "step", no_argument, NULL, 's' },
		{ "stacks", required_argument, NULL, 'n' },
		{ "seed", required_argument, NULL, 'e' },
		{ "race", required_argument, NULL, 'R' },
		{ "nest", required_argument, NULL, 'N' },
		{ "abs-ts", required_argument, NULL, 'T' },
		{ "gap", required_argument, NULL, 'G' },
		{ "deep", required_argument, NULL, 'D' },
		{ "block-ms", required_argument, NULL, 'W' },
		{ "kallsyms-out", required_argument, NULL, 'k' },
		{ "debug", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct fuse_args args = FUSE_ARGS_INIT(0, NULL);
	struct fuse_loop_config *lcfg;
	struct sim_config *c = &sim.cfg;
	const char *mnt = NULL;
	bool debug = false;
	struct fuse *f;
	pthread_t gen;
	int opt, ret;

	*c = (struct sim_config){
		.abi = 4, .bits = 14, .cpus = 2, .rate = 1000, .nstacks = 300, .seed = 1,
		.kaslr = true, .stack_id_type = 20, .buffer_kb = 1408, .race_p = 0.05,
		.nest_p = 0.02, .abs_p = 0.005, .gap_p = 0.002, .deep_p = 0.02,
		.block_ms = 1000,
	};
	fuse_opt_add_arg(&args, argv[0]);
	fuse_opt_add_arg(&args, "-o");
	fuse_opt_add_arg(&args, "fsname=stackmap-sim,subtype=stackmap-sim");

	while ((opt = getopt_long(argc, argv, "o:dhf", longopts, NULL)) != -1) {
		switch (opt) {
		case 'A':
			c->abi = atoi(optarg[0] == 'v' ? optarg + 1 : optarg);
			if (c->abi < 1 || c->abi > 4) {
				fprintf(stderr, "stackmap-sim: --abi wants v1, v2, v3 or v4\n");
				return 2;
			}
			break;
		case 'b':
			c->bits = (unsigned int)parse_num(optarg, "--bits", 64);
			break;
		case 'c':
			c->cpus = (unsigned int)parse_num(optarg, "--cpus", SIM_MAX_CPUS);
			if (!c->cpus)
				c->cpus = 1;
			break;
		case 'B':
			c->buffer_kb = (unsigned int)parse_num(optarg, "--buffer-kb", 1 << 20);
			if (!c->buffer_kb)
				c->buffer_kb = 1;
			break;
		case 'I':
			c->stack_id_type = (int)parse_num(optarg, "--stack-id-type", 65535);
			break;
		case 'F':
			c->fail_init = true;
			break;
		case 'S':
			c->swap = true;
			break;
		case 'K':
			c->kaslr = false;
			break;
		case 'r':
			c->rate = (unsigned int)parse_num(optarg, "--rate", 10000000);
			break;
		case 's':
			c->step = true;
			break;
		case 'n':
			c->nstacks = (unsigned int)parse_num(optarg, "--stacks", 1 << 22);
			if (c->nstacks < 8)
				c->nstacks = 8;
			break;
		case 'e':
			c->seed = parse_num(optarg, "--seed", ~0UL);
			break;
		case 'R':
			c->race_p = parse_prob(optarg, "--race");
			break;
		case 'N':
			c->nest_p = parse_prob(optarg, "--nest");
			break;
		case 'T':
			c->abs_p = parse_prob(optarg, "--abs-ts");
			break;
		case 'G':
			c->gap_p = parse_prob(optarg, "--gap");
			break;
		case 'D':
			c->deep_p = parse_prob(optarg, "--deep");
			break;
		case 'W':
			c->block_ms = (unsigned int)parse_num(optarg, "--block-ms", 3600000);
			break;
		case 'k':
			c->kallsyms_out = optarg;
			break;
		case 'o':
			fuse_opt_add_arg(&args, "-o");
			fuse_opt_add_arg(&args, optarg);
			break;
		case 'd':
			debug = true;
			break;
		case 'f':
			break;		/* always in the foreground */
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind + 1 != argc) {
		usage(stderr);
		return 2;
	}
	mnt = argv[optind];
	c->mountpoint = mnt;
	if (c->bits < 10)
		c->bits = 10;
	if (c->bits > (c->abi == 1 ? 20U : 18U))
		c->bits = c->abi == 1 ? 20 : 18;
	if (debug)
		fuse_opt_add_arg(&args, "-d");

	start_time = time(NULL);
	if (sim_gen_init()) {
		fprintf(stderr, "stackmap-sim: out of memory\n");
		return 1;
	}
	sim.map_live = !c->fail_init;
	sim.insts = sim_inst_new("", true);
	if (!sim.insts)
		return 1;
	snprintf(sim.last_ctl, sizeof(sim.last_ctl), "-");

	if (c->kallsyms_out) {
		struct sbuf sb = { 0 };

		syms_kallsyms(&sim.syms, &sb);
		ret = write_file(c->kallsyms_out, &sb);
		sbuf_free(&sb);
		if (ret) {
			fprintf(stderr, "stackmap-sim: %s: %s\n", c->kallsyms_out, strerror(-ret));
			return 1;
		}
	}

	f = fuse_new(&args, &sim_ops, sizeof(sim_ops), NULL);
	if (!f)
		return 1;
	if (fuse_mount(f, mnt)) {
		fuse_destroy(f);
		return 1;
	}
	if (fuse_set_signal_handlers(fuse_get_session(f))) {
		fuse_unmount(f);
		fuse_destroy(f);
		return 1;
	}
	if (pthread_create(&gen, NULL, sim_generator, NULL)) {
		fuse_unmount(f);
		fuse_destroy(f);
		return 1;
	}
	pthread_detach(gen);

	lcfg = fuse_loop_cfg_create();
	fuse_loop_cfg_set_clone_fd(lcfg, 0);
	fuse_loop_cfg_set_max_threads(lcfg, 32);
	ret = fuse_loop_mt(f, lcfg);
	fuse_loop_cfg_destroy(lcfg);

	fuse_remove_signal_handlers(fuse_get_session(f));
	fuse_unmount(f);
	fuse_destroy(f);
	fuse_opt_free_args(&args);
	return ret ? 1 : 0;
}
