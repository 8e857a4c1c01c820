/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * session.h - one run of stacktop against one tracefs.
 *
 * The session composes the layers below it: it finds (or mounts) tracefs,
 * recovers what a killed earlier run left behind, records the original
 * value of every file it will change (kernel/state.h), enables the events
 * (kernel/events.h, probes.h), and runs its sources (source/source.h, one
 * file per kind of input; the modes below choose them), which feed ingest
 * and the stack table. This header is the one API the outputs, the screen
 * and the command line use; the layers below get what they need handed
 * down (struct trace, struct source_ctx), never the session. Its files
 * are listed in session/priv.h.
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

#include "core/opts.h"
#include "source/stats.h"

struct pollfd;

struct session;
struct stack;
struct stack_attr;
struct stack_table;
struct ksym;

#define SESSION_MAX_MEMORY ((size_t)256 << 20)

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
 * typedef session_note_fn - told what was undone of a run that ended
 *	without restoring tracefs (killed, its guardian too)
 * @ctx: the caller's
 * @pid: that run's pid
 * @err: 0, or the -errno that kept part of it from being undone (then
 *       kept for a later run; -EPERM: its root was refused, and a warning
 *       said why)
 * @what: what was undone, for a person, sanitized ("removed instance
 *        stacktop.1234", "restored options/stackmap=0, tracing_on=1")
 */
typedef void (*session_note_fn)(void *ctx, int pid, int err, const char *what);

/**
 * session_cleanup() - undo what runs that ended without restoring left
 *	(--cleanup), and nothing else
 * @opts: the tracefs (@opts->tracefs) and the journal directory
 *        (@opts->rundir)
 * @note: told each run's leftovers undone
 * @ctx: its argument
 * @err: receives a one-line reason on failure
 * @errsz: size of @err
 *
 * What session_open() does first: the journals of dead runs are undone
 * (claimed by rename: a guardian or another run doing the same undoes
 * each once between them), and the instances stacktop.<pid> of pids that
 * are no stacktop now are removed.
 *
 * Return: 0, or -errno (-EPERM: not root; tracefs could not be opened; or
 * something could not be undone).
 */
int session_cleanup(const struct session_opts *opts, session_note_fn note, void *ctx, char *err,
		    size_t errsz);

/**
 * session_leftovers() - what session_open() undid of runs that ended
 *	without restoring (already on the log as warnings), for the screen
 * @s: session
 * @ret_n: receives the number of such runs
 *
 * Return: the first run's line, sanitized (owned by the session), or NULL.
 */
const char *session_leftovers(const struct session *s, int *ret_n);

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
 * The set may change after a drain (a perf ring replaced by a larger one
 * closes its descriptor): ask again before each poll.
 *
 * Return: descriptors written (0 in passive and replay modes).
 */
int session_pollfds(const struct session *s, struct pollfd *fds, int max);

/**
 * session_ending() - the run ends in @secs (batch's last interval begins)
 * @s: session
 * @secs: seconds to the end
 *
 * Within SESSION_LET_GO_MS of it, a drain tells the sources
 * (source_ops.ending): what only the run needs and is slow to undo (the
 * instance's own pid list: the kernel's grace periods) goes while the run
 * still reads, not in the teardown after the last report. An end that near
 * already (@secs 0: a stop signal) tells them at once, so that the letting
 * go runs while the last report is made.
 */
void session_ending(struct session *s, double secs);

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
 * session_set_group_by() - rank rows keyed as perf's --sort keys them: one
 *	row per combination of the keys' values (enum session_group_key: the
 *	leaf user function, its library, the command, the kernel leaf), the
 *	stacks' counts merged; turns the grouping of session_set_group() off
 * @s: session
 * @keys: the keys, outermost first, ended by GROUP_KEY_NONE (none: off)
 *
 * Return: 0 or -ENOMEM (the grouping is then off).
 */
int session_set_group_by(struct session *s, const uint8_t *keys);

/**
 * session_group_by() - the keys of session_set_group_by() in force
 * @s: session
 *
 * Return: the keys, outermost first, ended by GROUP_KEY_NONE (owned by @s).
 */
const uint8_t *session_group_by(const struct session *s);

/**
 * session_stack_dso() - the library of a stack's leaf (its leaf user
 *	frame's file; a stack with no user part: [kernel.kallsyms] or its
 *	module), as a label token (usym.h) the frame formatters name
 * @s: session
 * @st: a stack
 *
 * Return: the token, 0 when none could be made.
 */
uint64_t session_stack_dso(struct session *s, const struct stack *st);

/**
 * session_group_sources() - with --group-by, the stacks of the session's
 *	own table whose records make a row of the grouped one: @cb for each
 *	such record (the table it is in, to count its interval and weights;
 *	its stack; the record)
 * @s: session
 * @grp: a row of session_table()
 * @cb: called for each
 * @ctx: its first argument
 *
 * Return: 0, -ENOENT (no --group-by), -ENOMEM.
 */
int session_group_sources(struct session *s, const struct stack *grp,
			  void (*cb)(void *ctx, const struct stack_table *t,
				     const struct stack *src, const struct stack_attr *a),
			  void *ctx);

/**
 * session_group_key_name() - a key's name ("sym", "dso", "comm", "ksym")
 * @key: enum session_group_key
 *
 * Return: a static string ("" for GROUP_KEY_NONE).
 */
const char *session_group_key_name(unsigned int key);

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
