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
};

/**
 * struct session_opts - what the user asked for
 * @mode: SESSION_AUTO picks stackmap when the kernel has it, else stacks
 * @tracefs: tracefs root; NULL finds (and if needed mounts) the system's
 * @kallsyms: kallsyms file; NULL means /proc/kallsyms
 * @rundir: where the restore journal lives; NULL means /run/stacktop
 * @events: "system:event" patterns (globs allowed); none means
 *          sched:sched_switch (stackmap mode: keep events already enabled)
 * @nevents: entries in @events
 * @pids: only count events of these pids (empty: all)
 * @npids: entries in @pids
 * @cpus: only read these CPUs (empty: all)
 * @ncpus: entries in @cpus
 * @reset_first: reset the map (and counts) right after start
 * @buffer_kb: per-CPU buffer size of the private instance, 0 for default
 * @show_self: count the events of stacktop's own pid too (hidden by default:
 *             its reads of the ring buffer would rank among the stacks)
 * @replay: a trace.dat to read instead of the kernel (SESSION_REPLAY)
 * @map_file: a saved stack_map_bin or stack_map (SESSION_REPLAY)
 * @user: take the user stack of every counted event too (stacks mode)
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
	const int *cpus;
	int ncpus;
	bool reset_first;
	unsigned int buffer_kb;
	bool show_self;
	const char *replay;
	const char *map_file;
	enum session_user user;
};

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
	uint64_t map_reads;         /* stack_map_bin snapshots read */
	uint32_t generation;        /* bumped by every reset */
	bool tracing_on;            /* tracing_on of the instance read */
	bool stackmap_on;           /* options/stackmap (stackmap kernels) */
	bool have_map_stat;
	struct stackmap_stat map;   /* valid when have_map_stat */
	int map_abi;                /* 1-4 when known from the files, else 0 */
	double self_cpu;            /* stacktop's CPU % over the last interval */
};

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

/**
 * session_drain() - read what the ring buffers hold, at most @max_pages pages
 * @s: session
 * @max_pages: bound on the work done (0: no bound)
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
 * session_table() - the stack table (owned by the session)
 * @s: session
 */
struct stack_table *session_table(struct session *s);

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
 * "<idle>" for pid 0, "?" when unknown.
 */
const char *session_comm(struct session *s, int pid);

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
 * Return: 0, -EOPNOTSUPP when the session cannot (not stacks mode, a
 * recording, a kernel without options/userstacktrace), or -errno.
 */
int session_set_user(struct session *s, bool on);

/**
 * session_user() - whether user stacks are being taken
 * @s: session
 */
bool session_user(const struct session *s);

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
