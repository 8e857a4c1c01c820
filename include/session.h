/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * session.h - one run of stacktop against one tracefs.
 *
 * The session owns everything that touches the kernel: it finds (or
 * mounts) tracefs, recovers what a killed earlier run left behind, records
 * the original value of every file it will change (state.h), enables the
 * events, reads the per-CPU ring buffers and feeds the stack table. The
 * reading is done by its sources (source.h, src/source/), one file per
 * kind; the modes below choose them.
 *
 * Call protocol (single-threaded):
 *
 *	session_open()                    choose the mode, change tracefs
 *	loop:
 *		session_drain(s, budget)  read what the kernel has, bounded
 *		                          (pages, time, stop signal)
 *		session_tick(s)           once per refresh: close the interval,
 *		                          read stats, reload symbols if needed
 *		stack_table_rank(session_table(s), ...)
 *	session_close()                   restore tracefs, free
 *
 * Modes:
 *  - SESSION_STACKMAP: kernel with the stackmap series; the top-level
 *    instance records stack_id entries (and kernel_stack fallbacks).
 *  - SESSION_STACKS: any kernel; a private instance stacktop.<pid> records
 *    full kernel_stack entries, deduplicated here.
 *  - SESSION_PASSIVE: stackmap kernel, nothing is consumed; hits are the
 *    ref_count deltas of stack_map_bin.
 *  - SESSION_REPLAY: no kernel at all: a trace-cmd trace.dat (stack records
 *    of every buffer in it) and/or a saved copy of stack_map_bin or
 *    stack_map (ids resolved through it; alone, hits are its ref_counts).
 *    Everything is read at the first drain; the "interval" is the whole
 *    recording.
 */
#ifndef STACKTOP_SESSION_H
#define STACKTOP_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stackmap.h"
#include "ujoin.h"

struct pollfd;

struct session;
struct stack_table;
struct ksym;

enum session_mode {
	SESSION_AUTO,
	SESSION_STACKMAP,
	SESSION_STACKS,
	SESSION_PASSIVE,
	SESSION_REPLAY,
	SESSION_MODE_MAX,
};

/* how user-space stacks are taken (--user) */
enum session_user {
	SESSION_USER_OFF,
	SESSION_USER_FP,    /* ftrace's userstacktrace: the kernel's frame-pointer walk */
	SESSION_USER_DWARF, /* perf_event_open samples unwound with DWARF */
	SESSION_USER_AUTO,  /* -u: dwarf where it works, else fp (with a note why) */
};

/**
 * struct session_opts - what the user asked for
 * @mode: SESSION_AUTO picks stackmap when the kernel has it, else stacks
 * @tracefs: tracefs root; NULL finds (and if needed mounts) the system's
 * @kallsyms: kallsyms file; NULL means /proc/kallsyms
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
 * @weight: "system:event:field": weigh that event's hits by the field (the
 *          event must be among @events; live modes)
 * @offcpu: 0, SESSION_OFFCPU_BLOCKED, SESSION_OFFCPU_ALL or
 *          SESSION_OFFCPU_WAIT: weigh sched:sched_switch stacks by the time
 *          the task stayed off the CPU (@events must be sched:sched_switch
 *          and sched:sched_waking); WAIT splits it at the wakeup
 *          (offcpu:blocked, offcpu:runqueue)
 * @group_depth: group stacks by their first N frames (leaf side), 0: no
 * @group_func: group frames by function (symbol start), not by address
 * @files: the -r files: trace.dat recordings (told by their magic) or JSON
 *         snapshots (told by a leading '{'); at most one trace.dat, which
 *         becomes @replay; several snapshots merge (SESSION_REPLAY)
 * @nfiles: entries in @files
 * @max_memory: bound on the stack table in bytes (0: SESSION_MAX_MEMORY);
 *              near it the breakdown records of exited pids are folded into
 *              their comm, at it new stacks and breakdowns are counted
 *              without being kept (stack_table_set_limit())
 */
struct session_opts {
	enum session_mode mode;
	const char *tracefs;
	const char *kallsyms;
	const char *rundir;
	const char *const *events;
	int nevents;
	const int *pids;
	int npids;
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
	const char *const *files;
	int nfiles;
	size_t max_memory;
	const char *weight;
	int offcpu;
	unsigned int group_depth;
	bool group_func;
};

#define SESSION_OFFCPU_BLOCKED 1
#define SESSION_OFFCPU_ALL     2
#define SESSION_OFFCPU_WAIT    3

/* what a weight counts, from the field's name */
enum session_unit {
	UNIT_NONE,  /* unweighted: hits */
	UNIT_PLAIN, /* a number */
	UNIT_BYTES, /* a field named *bytes*, *size*, *len* */
	UNIT_NS,    /* nanoseconds: off-CPU time, a field named *ns*, *time*, *lat* */
};

/**
 * struct session_view - the view a read-back snapshot was written with
 * @sort: enum rank_key
 * @ascending: ascending order
 * @delta: ranks by the last interval (false: totals)
 * @event: event index filter, -1 for none
 * @pid: pid filter, -1 for none
 * @cpu: CPU filter, -1 for none
 * @hide_idle: idle stacks hidden
 * @top: stacks kept (0: all)
 * @filter: the screen's text filter, NULL for none (owned by the session)
 * @count: a weighted snapshot ranked by hits, not weights (--count)
 */
struct session_view {
	int sort;
	bool ascending;
	bool delta;
	int event;
	int pid;
	int cpu;
	bool hide_idle;
	int top;
	const char *filter;
	const char *comm;
	bool count;
};

#define SESSION_MAX_MEMORY ((size_t)256 << 20)

/**
 * struct session_stats - what the header shows; all counts are since start
 * or the last reset unless named *_delta (last closed interval)
 */
struct session_stats {
	enum session_mode mode;
	char kernel[96];            /* uname release, sanitized */
	char tracefs[128];          /* root in use */
	double interval_sec;        /* length of the last closed interval */
	uint64_t events;            /* stack-carrying events counted */
	uint64_t events_delta;
	uint64_t records;           /* ring-buffer records read */
	uint64_t lost;              /* missed events from page headers */
	uint64_t lost_delta;
	uint64_t overrun;           /* per_cpu/cpuN/stats overrun, summed */
	uint64_t overrun_delta;
	uint64_t dropped;           /* per_cpu/cpuN/stats dropped events */
	uint64_t dropped_delta;
	uint64_t orphans;           /* stack records with no event before them */
	uint64_t bad_pages;         /* pages that failed to parse */
	uint64_t damaged;           /* records shorter than their format, timestamps out of order */
	uint64_t fallbacks;         /* full kernel_stack records in stackmap mode */
	uint64_t fallbacks_delta;
	uint64_t unresolved;        /* stack ids not found in the map snapshot */
	uint64_t bad_ids;           /* stack ids at or above the map's table_size */
	uint64_t rb_bytes;          /* ring-buffer bytes read (struct ingest_stats.bytes) */
	uint64_t sized_records;     /* stack records of known depth, */
	uint64_t sized_bytes;       /* their ring-buffer bytes as read, */
	uint64_t alt_bytes;         /* and in the other representation */
	uint64_t map_reads;         /* stack_map_bin snapshots read */
	uint32_t generation;        /* bumped by every reset */
	bool tracing_on;            /* tracing_on of the instance read */
	bool stackmap_on;           /* options/stackmap (stackmap kernels) */
	bool have_map_stat;
	struct stackmap_stat map;   /* valid when have_map_stat */
	int map_abi;                /* 1-4 when known from the files, else 0 */
	double self_cpu;            /* stacktop's CPU % over the last interval */
	bool behind;                /* the last drain ran out of budget, data left */
	uint64_t drains_cut;        /* drains that ran out of budget */
	bool targets_gone;          /* every -p process / --tid thread exited (at the last tick) */
	uint64_t offcpu_woken;      /* --offcpu: times ended at the wakeup (no switch-in) */
	uint64_t offcpu_unpaired;   /* --offcpu: switch-outs with neither: not counted */
	uint64_t offcpu_dropped;    /* --offcpu: switches not followed (table full) */
	uint64_t mem_bytes;         /* held by the stack table */
	uint64_t mem_limit;         /* --max-memory: bounds mem_bytes + mem_usym + mem_unwind */
	uint64_t mem_rss;           /* the process's resident memory, 0 if unknown */
	uint64_t mem_folded;        /* breakdown records of exited pids folded */
	uint64_t mem_over_stacks;   /* new stacks not kept: over the limit */
	uint64_t mem_over_hits;     /* hits kept without their stack or breakdown */
	uint64_t mem_usym;          /* held by the user-space symbolizer (-u) */
	uint64_t mem_usym_refused;  /* user frames not interned: its share was full */
	uint64_t mem_unwind;        /* dwarf: unwind tables and vdso copies held */
	uint64_t usym_files_refused; /* mapped files not read: not regular, FUSE, ... */
	uint64_t usym_files_big;    /* files whose symbols did not fit the share */
	enum session_user user;     /* the way user stacks are taken (OFF, FP or DWARF) */
	char user_note[160];        /* why -u took fp rather than dwarf, "" if it did not */
	struct ujoin_stats ujoin;   /* dwarf: events with and without a user stack, and why */
};

/**
 * struct session_ringbuf - what the stack map saves in the ring buffer
 * @read_per_event: ring-buffer bytes of a stack record, as read (mean)
 * @alt_per_event: the same events' stack records in the other representation:
 *                 full stacks in stackmap mode, stack ids in stacks mode
 * @saving_pct: stackmap mode: share of the stack records' bytes the map
 *              saves, 100 * (alt - read) / alt; stacks mode: share of all the
 *              ring buffer read that the map would save, 100 * (read - alt) /
 *              bytes read (events included; stacks deeper than
 *              STACKMAP_MAX_DEPTH stay full)
 */
struct session_ringbuf {
	double read_per_event;
	double alt_per_event;
	double saving_pct;
};

/**
 * session_ringbuf_saving() - the stack map's value on this workload, from
 * the counters of @st (since start or the last reset)
 * @st: stats
 * @rb: filled when the answer is known
 *
 * Return: true in stackmap and stacks modes once a stack record of known
 * depth was read; false otherwise (passive and replay modes read no stacks
 * from a ring buffer of their own).
 */
static inline bool session_ringbuf_saving(const struct session_stats *st,
					  struct session_ringbuf *rb)
{
	double n = (double)st->sized_records, b = (double)st->sized_bytes,
	       a = (double)st->alt_bytes;

	if ((st->mode != SESSION_STACKMAP && st->mode != SESSION_STACKS) || !st->sized_records ||
	    !st->rb_bytes || !st->alt_bytes)
		return false;
	rb->read_per_event = b / n;
	rb->alt_per_event = a / n;
	if (st->mode == SESSION_STACKMAP)
		rb->saving_pct = 100.0 * (a - b) / a;
	else
		rb->saving_pct = 100.0 * (b - a) / (double)st->rb_bytes;
	return true;
}

/**
 * session_open() - start tracing
 * @opts: options (copied)
 * @ret: the session on success
 * @err: receives a one-line, user-facing reason on failure
 * @errsz: size of @err
 *
 * On failure nothing in tracefs is left changed.
 *
 * Return: 0, -EPERM (not root), -ENODEV (no tracefs / no stack tracing),
 * -ENOENT (unknown event), -EINVAL (bad option combination), other -errno.
 */
int session_open(const struct session_opts *opts, struct session **ret, char *err, size_t errsz);

/* what session_drain() allows when the caller gives no bound */
#define SESSION_DRAIN_PAGES 4096
#define SESSION_DRAIN_MS    100

/**
 * session_drain_for() - read what the ring buffers hold, within a budget
 * @s: session
 * @max_pages: at most this many pages (0: SESSION_DRAIN_PAGES)
 * @max_ms: for at most this long (0: SESSION_DRAIN_MS)
 * @more: if not NULL, set when the drain stopped on its budget, or on a stop
 *        signal (sig_stop, signals.h), with data possibly left
 *
 * Every drain is bounded: a buffer that fills as fast as it is read (a
 * reader traced by the function tracer, slowed by strace) ends the drain
 * on its budget, and a stop signal ends it after the page being read.
 * What the reader does not get to is overwritten by the kernel and counted
 * in the page headers (lost) and per_cpu stats (overrun), as usual;
 * stats.drains_cut counts the drains that ran out of budget. A recording
 * (replay) is read whole at the first drain.
 *
 * Return: pages read (0 when the buffers were empty), or -errno.
 */
int session_drain_for(struct session *s, unsigned int max_pages, unsigned int max_ms, bool *more);

/**
 * session_drain() - session_drain_for() with the default time budget
 * @s: session
 * @max_pages: at most this many pages (0: SESSION_DRAIN_PAGES)
 *
 * Return: pages read (0 when the buffers were empty), or -errno.
 */
int session_drain(struct session *s, unsigned int max_pages);

/**
 * session_pollfds() - descriptors that become readable when a ring buffer
 * fills up (the kernel wakes pollers at buffer_percent), so that a loop can
 * sleep in poll() and still drain before the buffer overflows
 * @s: session
 * @fds: filled with {fd, POLLIN}
 * @max: room in @fds
 *
 * Return: descriptors written (0 in passive and replay modes).
 */
int session_pollfds(const struct session *s, struct pollfd *fds, int max);

/**
 * session_tick() - close the interval: update stats, roll counters
 * @s: session
 *
 * Return: 0 or -errno (stats that could not be read are left as they were).
 */
int session_tick(struct session *s);

/**
 * session_reset() - reset the kernel map (stackmap modes) and all counts
 * @s: session
 *
 * In stackmap mode: tracing_on is saved and cleared, the buffers drained,
 * `0` written to stack_map, tracing_on restored; a new generation starts so
 * that no id read before the reset resolves through the new map. In stacks
 * mode only stacktop's counts are cleared.
 *
 * Return: 0, -EBUSY (the kernel refused: tracing could not be stopped or
 * another reset ran), -EINVAL, -errno. Never fatal: the session goes on.
 */
int session_reset(struct session *s);

/**
 * session_set_stackmap() - turn the kernel's stackmap option on or off
 * @s: session
 * @on: wanted state
 *
 * Return: 0, -EOPNOTSUPP (kernel without the option), -EINVAL (the kernel
 * refused: instance, failed init), -errno.
 */
int session_set_stackmap(struct session *s, bool on);

/**
 * session_set_filter() - write the kernel filter of a traced event (its
 * `filter` file in the instance read; journaled at the top level)
 * @s: session
 * @idx: event index
 * @expr: the filter; "" or "0" clears it
 * @err: the kernel's error_log text when it refuses the filter
 * @errsz: size of @err
 *
 * A refused filter changes nothing (the old one is written back).
 *
 * Return: 0, -EOPNOTSUPP (a recording, ftrace's own entries: no filter
 * file), -EINVAL (and the kernel's other errnos) when refused.
 */
int session_set_filter(struct session *s, unsigned int idx, const char *expr, char *err,
		       size_t errsz);

/**
 * session_get_filter() - the kernel filter of a traced event as the filter
 * file shows it ("" when none), sanitized
 * @s: session
 * @idx: event index
 * @buf: receives it
 * @size: size of @buf
 *
 * Return: 0, -EOPNOTSUPP, -errno.
 */
int session_get_filter(struct session *s, unsigned int idx, char *buf, size_t size);

/**
 * session_table() - the stack table (owned by the session): the grouped
 * copy when session_set_group() asked for one
 * @s: session
 */
struct stack_table *session_table(struct session *s);

/**
 * session_set_group() - rank groups of stacks instead of stacks: the first
 * @depth frames (leaf side; 0 all of them), by function when @func; what
 * session_table() returns is then rebuilt at every session_tick()
 * @s: session
 * @depth: frames kept, 0 for all
 * @func: merge the addresses of one function
 *
 * Return: 0 or -ENOMEM (the grouping is then off).
 */
int session_set_group(struct session *s, unsigned int depth, bool func);

/**
 * session_group() - the grouping in force
 * @s: session
 * @ret_depth: frames kept, 0 for all
 * @ret_func: by function
 */
void session_group(const struct session *s, unsigned int *ret_depth, bool *ret_func);

/**
 * session_unit() - what the table's weights count, UNIT_NONE when unweighted
 * @s: session
 */
enum session_unit session_unit(const struct session *s);

/**
 * session_weight_name() - what is weighed, for titles: the field name or
 * "off-CPU"; "" when unweighted
 * @s: session
 */
const char *session_weight_name(const struct session *s);

/**
 * session_ksym() - kernel symbols (owned by the session)
 * @s: session
 */
struct ksym *session_ksym(struct session *s);

/**
 * session_stats() - counters for the header (owned by the session)
 * @s: session
 */
const struct session_stats *session_stats(const struct session *s);

/**
 * session_nevents() - number of event names known (indexes for the table)
 * @s: session
 */
unsigned int session_nevents(const struct session *s);

/**
 * session_event() - "system:event" name of an event index
 * @s: session
 * @idx: index as stored in struct stack_attr
 *
 * Return: the name (owned by the session), "?" when out of range.
 */
const char *session_event(const struct session *s, unsigned int idx);

/**
 * session_traced() - the events this session enabled or follows, as one
 * comma-separated string (owned by the session)
 * @s: session
 */
const char *session_traced(const struct session *s);

/**
 * session_comm() - command name of a pid, sanitized
 * @s: session
 * @pid: pid
 *
 * From the kernel's saved_cmdlines, else /proc/<pid>/comm, cached.
 *
 * Return: the name (owned by the session; valid until the next
 * session_comm(), session_drain() or session_tick(): copy it to keep it),
 * "<idle>" for pid 0, "?" when unknown; for the pid of folded records
 * (stack_pid_folded()) the command of the exited processes, for
 * STACK_PID_OVER "[memory limit]".
 */
const char *session_comm(struct session *s, int pid);

/**
 * session_view() - the view of the first snapshot read back (-r snap.json)
 * @s: session
 * @ret: filled when there is one
 *
 * Return: true when the session reads snapshots.
 */
bool session_view(const struct session *s, struct session_view *ret);

/**
 * session_norigins() - how many origins (files, or hosts of a merged
 * snapshot) the counts come from; 0 when not reading snapshots
 * @s: session
 */
unsigned int session_norigins(const struct session *s);

/**
 * session_origin() - the name of origin @idx (struct stack_attr's @origin):
 * the host of its snapshot, or its file name when two have the same host
 * @s: session
 * @idx: origin index
 *
 * Return: the name (owned by the session), "-" when out of range.
 */
const char *session_origin(const struct session *s, unsigned int idx);

/**
 * session_mode_name() - "stackmap", "stacks", "passive", "replay" or "auto"
 * @mode: mode
 */
const char *session_mode_name(enum session_mode mode);

/**
 * session_set_user() - take user stacks from now on, or stop
 * @s: session
 * @on: on or off (the way is the one opened with, fp when none was)
 *
 * In stackmap mode the top-level option is written through the journal
 * (put back on exit as it was found).
 *
 * Return: 0, -EOPNOTSUPP when the session cannot (passive mode, a
 * recording, a kernel without options/userstacktrace), or -errno.
 */
int session_set_user(struct session *s, bool on);

/**
 * session_user() - whether user stacks are being taken
 * @s: session
 */
bool session_user(const struct session *s);

/**
 * session_targets_gone() - every process of -p and thread of --tid has
 *	exited (false without either, and for a recording or --tracefs)
 * @s: session
 *
 * Asked at every session_tick() (session_stats()->targets_gone): batch
 * mode ends then, as perf record -p does; the screen says so.
 */
bool session_targets_gone(const struct session *s);

/**
 * session_mode_parse() - the mode named by @name
 * @name: "auto", "stackmap", "stacks" or "passive"
 *
 * Return: the mode, or -EINVAL.
 */
int session_mode_parse(const char *name);

/**
 * session_close() - stop, restore every tracefs file changed, free
 * @s: session; NULL is a no-op
 */
void session_close(struct session *s);

#endif /* STACKTOP_SESSION_H */
