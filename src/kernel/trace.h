/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace.h - the kernel side of one session: which tracefs, which
 * instance in it, the restore journal, the event formats, and the run's
 * options. It is the context the kernel-side modules (events.c, probes.c,
 * pidfilter.c) and the sources work on, handed down by the session that
 * owns it: nothing below the session reaches back up for a path or an
 * option.
 *
 * Paths are relative to the tracefs root; trace_path() prefixes the
 * instance's directory ("instances/stacktop.<pid>/") when the events live
 * in a private instance. trace_write() journals a write at the top level
 * (state.h: put back on exit) and writes plainly in a private instance
 * (removed whole on exit).
 */
#ifndef STACKTOP_TRACE_H
#define STACKTOP_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/opts.h"

struct evfmt;
struct ksym;
struct state;
struct tfs;

/**
 * struct trace - the tracefs side of a session
 * @opts: the run's options (owned by the session)
 * @mode: the mode chosen (SESSION_AUTO resolved)
 * @tfs: tracefs; NULL for a recording
 * @state: restore journal (live modes)
 * @fmt: event formats: the events traced and their indexes
 * @ksym: kernel symbols (a traced function's event is named from them)
 * @prefix: "" or "instances/stacktop.<pid>/"
 * @instance: the events live in a private instance
 * @trigger_mode: --trigger: stacks come from stacktrace triggers only
 * @traced: what is traced, one comma-separated string (sanitized), NULL
 *	    until something is
 * @probe_events: "GROUP:EVENT" of the kprobes made (probes.c)
 * @nprobe_events: entries in @probe_events
 */
struct trace {
	const struct session_opts *opts;
	enum session_mode mode;
	struct tfs *tfs;
	struct state *state;
	struct evfmt *fmt;
	struct ksym *ksym;
	char prefix[64];
	bool instance;
	bool trigger_mode;
	char *traced;
	char **probe_events;
	int nprobe_events;
};

/**
 * trace_path() - a path of the instance read: @rel after trace->prefix
 * @t: trace
 * @buf: receives the path
 * @size: size of @buf
 * @rel: path relative to the instance's directory
 */
void trace_path(const struct trace *t, char *buf, size_t size, const char *rel);

/**
 * trace_write() - write a file of the instance read: journaled at the top
 * level (put back on exit), plain in a private instance
 * @t: trace
 * @rel: path relative to the tracefs root (trace_path())
 * @value: what to write
 *
 * Return: 0 or -errno.
 */
int trace_write(struct trace *t, const char *rel, const char *value);

/**
 * trace_list_dir() - the subdirectories of a tracefs directory
 * @t: trace
 * @rel: directory, relative to the tracefs root
 * @ret: receives the names (free with trace_free_list())
 * @ret_n: receives their number
 *
 * Return: 0 or -errno.
 */
int trace_list_dir(struct trace *t, const char *rel, char ***ret, int *ret_n);

/**
 * trace_free_list() - free what trace_list_dir() returned
 * @l: names (NULL is fine)
 * @n: their number
 */
void trace_free_list(char **l, int n);

/**
 * trace_traced_append() - add a name to what the session traces
 * @t: trace
 * @name: text from the command line or the kernel (sanitized here)
 */
void trace_traced_append(struct trace *t, const char *name);

/**
 * trace_buffer_kb() - the per-CPU ring buffer of the instance read, KiB
 * @t: trace
 *
 * A top level not used since boot says "7 (expanded: 1408)": the size it
 * takes once used (what tracing there gives it) is the one returned.
 *
 * Return: KiB, 0 when unknown.
 */
unsigned int trace_buffer_kb(struct trace *t);

/**
 * trace_error_log_len() - bytes the kernel's error_log holds now: what a
 *	refused write adds comes after them
 * @t: trace
 * @log_rel: the error_log of the instance (trace_path())
 */
size_t trace_error_log_len(struct trace *t, const char *log_rel);

/**
 * trace_kernel_error() - the newest error_log entry added past @seen
 *	bytes: the kernel's own words after its last "error: ", sanitized
 * @t: trace
 * @log_rel: the error_log of the instance
 * @seen: trace_error_log_len() before the write
 * @buf: receives the text ("" when there is none)
 * @size: size of @buf
 */
void trace_kernel_error(struct trace *t, const char *log_rel, size_t seen, char *buf, size_t size);

/**
 * trace_write_filter() - write the kernel filter of an event of the
 *	instance read (journaled at the top level); a refused filter is
 *	replaced by the old one and the kernel's reason goes into @err
 * @t: trace
 * @sys: event system
 * @ev: event name
 * @expr: the filter, "" for none
 * @err: receives the reason on failure
 * @errsz: size of @err
 *
 * Return: 0, -EOPNOTSUPP (no filter file), or what the kernel said.
 */
int trace_write_filter(struct trace *t, const char *sys, const char *ev, const char *expr,
		       char *err, size_t errsz);

/**
 * trace_count_cpus() - the CPUs tracefs has a per_cpu directory for (1
 *	when it cannot tell)
 * @t: trace
 */
unsigned int trace_count_cpus(struct trace *t);

/**
 * trace_type_cb() - ingest's callback for a record type it does not know
 *	(struct ingest_config @type_cb): its format looked up in tracefs
 * @ctx: the struct trace
 * @type: the record's common_type
 *
 * Return: the event index, or -errno.
 */
int trace_type_cb(void *ctx, int type);

/**
 * trace_done() - free what the trace owns (@traced, @probe_events); the
 *	tfs, journal, formats and symbols belong to the session
 * @t: trace
 */
void trace_done(struct trace *t);

#endif /* STACKTOP_TRACE_H */
