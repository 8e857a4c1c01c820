/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * opts.h - what the user asked of one run: the mode, the events, the
 * filters, the inputs. Filled by the command line (cli/), read by every
 * layer that acts on part of it: the kernel side (events, probes, the pid
 * filter), the sources, the session that composes them. A plain value with
 * no functions; the layers below the session get a pointer to it (struct
 * trace, kernel/trace.h), never the session itself.
 */
#ifndef STACKTOP_OPTS_H
#define STACKTOP_OPTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

enum session_mode {
	SESSION_AUTO,
	SESSION_STACKMAP,
	SESSION_STACKS,
	SESSION_PASSIVE,
	SESSION_REPLAY,
	SESSION_ONCPU,	 /* --oncpu: perf's cpu-clock samples, nothing in tracefs changes */
	SESSION_SAMPLED, /* --sample N: perf's tracepoint samples, every hit counted */
	SESSION_MODE_MAX,
};

/* how user-space stacks are taken (--user) */
enum session_user {
	SESSION_USER_OFF,
	SESSION_USER_FP,    /* ftrace's userstacktrace: the kernel's frame-pointer walk */
	SESSION_USER_DWARF, /* perf_event_open samples unwound with DWARF */
	SESSION_USER_AUTO,  /* -u: dwarf where it works, else fp (with a note why) */
};

/*
 * --group-by: rows keyed as perf's --sort keys them (the stacks merged
 * into one row per combination of the keys' values)
 */
enum session_group_key {
	GROUP_KEY_NONE,
	GROUP_KEY_SYM,	/* the leaf user function (no user part: the kernel leaf's) */
	GROUP_KEY_DSO,	/* the library (or program) of the leaf user frame, [kernel.kallsyms] */
	GROUP_KEY_COMM, /* the command */
	GROUP_KEY_KSYM, /* the kernel leaf function ([user space] without a kernel part) */
	GROUP_KEY_MAX,
};

#define SESSION_GROUP_KEYS 4 /* keys of --group-by at most */

/**
 * struct session_opts - what the user asked for
 * @mode: SESSION_AUTO picks stackmap when the kernel has it, else stacks
 * @tracefs: tracefs root; NULL finds (and if needed mounts) the system's
 * @kallsyms: kallsyms file; NULL means /proc/kallsyms
 * @vmlinux: the kernel's image with DWARF (--vmlinux): kernel frames get
 *           their source lines; NULL: none
 * @rundir: where the restore journal lives; NULL means /run/stacktop
 * @events: "system:event" patterns (globs allowed), each optionally followed
 *          by " if FILTER" (written to the event's filter file); none (and
 *          no @functions, @kprobes, @triggers) means sched:sched_switch
 *          (stackmap mode: keep events already enabled)
 * @nevents: entries in @events
 * @pids: only count events of these processes: every thread of each tgid,
 *        threads started later too (empty: all). With a replay or
 *        @tracefs, /proc is not asked (the pids may not be this
 *        system's): they match the event's pid like @tids, unchecked
 * @npids: entries in @pids
 * @tids: only count events of these threads (common_pid); with @pids, an
 *        event counts when either list takes it
 * @ntids: entries in @tids
 * @cpus: only read these CPUs (empty: all)
 * @ncpus: entries in @cpus
 * @reset_first: reset the map (and counts) right after start
 * @buffer_kb: per-CPU buffer size of the private instance, 0 for default
 * @show_self: count the events of stacktop's own pid too (hidden by default:
 *             its reads of the ring buffer would rank among the stacks)
 * @functions: globs for the function tracer's set_ftrace_filter (entries
 *             keyed by the traced function: "ftrace:function NAME")
 * @nfunctions: entries in @functions
 * @kprobes: "FUNC[+OFFSET]": a kprobe event each, created and removed
 * @nkprobes: entries in @kprobes
 * @triggers: "system:event[:N][ if FILTER]": stacks come only from
 *            stacktrace triggers (on these and on @events)
 * @ntriggers: entries in @triggers
 * @replay: a trace.dat to read instead of the kernel (SESSION_REPLAY)
 * @map_file: a saved stack_map_bin or stack_map (SESSION_REPLAY)
 * @user: take the user stack of every counted event too (stacks mode)
 * @user_sample: dwarf: one event in N of each CPU gets its user stack
 *               (perf's sample_period; 0 or 1: every event)
 * @user_buffer: dwarf: bytes of each CPU's perf ring (0: 2 MiB, grown
 *               where samples are lost)
 * @user_stack: dwarf: bytes of user stack copied per sample (0: 8192)
 * @weight: "system:event:field": weigh that event's hits by the field (the
 *          event must be among @events; live modes)
 * @offcpu: 0, SESSION_OFFCPU_BLOCKED, SESSION_OFFCPU_ALL or
 *          SESSION_OFFCPU_WAIT: weigh sched:sched_switch stacks by the time
 *          the task stayed off the CPU (@events must be sched:sched_switch
 *          and sched:sched_waking); WAIT splits it at the wakeup
 *          (offcpu:blocked, offcpu:runqueue)
 * @group_depth: group stacks by their first N frames (leaf side), 0: no
 * @group_func: group frames by function (symbol start), not by address
 * @no_inline: read no DWARF: user frames without their inlined calls and
 *             source lines (--no-inline)
 * @group_by: --group-by: enum session_group_key, outermost first, 0-ended
 *            (not with @group_depth and @group_func)
 * @files: the -r files: trace.dat recordings (told by their magic) or JSON
 *         snapshots (told by a leading '{'); at most one trace.dat, which
 *         becomes @replay; several snapshots merge (SESSION_REPLAY)
 * @nfiles: entries in @files
 * @pid_tree: @pids holds one process whose descendants count too, started
 *            later or not, threads and processes (stacktop -- CMD: the
 *            command's process tree; kernel/proctree.h)
 * @oncpu_hz: on-CPU profiling (SESSION_ONCPU): samples a second per CPU,
 *            0: off
 * @oncpu_tick: --oncpu=tick: the kernel's timer tick traced as an event
 *              (the stacks or stackmap mode; session/tick.c picks it), each
 *              stack cut after its interrupt entry frame
 * @sample_period: --sample N (SESSION_SAMPLED): one hit in N of @events gets
 *                 its kernel stack (the period randomized around N), every
 *                 hit is counted; 0: off
 * @overhead_milli: --overhead PCT, in thousandths of a percent: --sample with
 *                  N chosen and adapted (source/oncpu.c) so that the stacks
 *                  cost about PCT% of the CPUs; 0: off (@sample_period is
 *                  then the first N)
 * @max_memory: bound on the stack table in bytes (0: SESSION_MAX_MEMORY);
 *              near it the breakdown records of exited pids are folded into
 *              their comm, at it new stacks and breakdowns are counted
 *              without being kept (stack_table_set_limit())
 */
struct session_opts {
	enum session_mode mode;
	const char *tracefs;
	const char *kallsyms;
	const char *vmlinux;
	const char *rundir;
	const char *const *events;
	int nevents;
	const int *pids;
	int npids;
	bool pid_tree;
	const int *tids;
	int ntids;
	const int *cpus;
	int ncpus;
	bool reset_first;
	unsigned int buffer_kb;
	bool show_self;
	const char *const *functions;
	int nfunctions;
	const char *const *kprobes;
	int nkprobes;
	const char *const *triggers;
	int ntriggers;
	const char *replay;
	const char *map_file;
	enum session_user user;
	unsigned int user_sample;
	size_t user_buffer;
	unsigned int user_stack;
	unsigned int oncpu_hz;
	bool oncpu_tick;
	unsigned int sample_period;
	unsigned int overhead_milli;
	const char *const *files;
	int nfiles;
	size_t max_memory;
	const char *weight;
	int offcpu;
	unsigned int group_depth;
	bool group_func;
	bool no_inline;
	uint8_t group_by[SESSION_GROUP_KEYS + 1];
};

#define SESSION_OFFCPU_BLOCKED 1
#define SESSION_OFFCPU_ALL     2
#define SESSION_OFFCPU_WAIT    3

#endif /* STACKTOP_OPTS_H */
