/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * formats.h - the writers, one file each: text.c (the batch report),
 * folded.c, json.c (the JSON snapshot; read back by ingest/snapshot.c),
 * pprof.c, speedscope.c, html.c and svg.c (the flame graph, both on the
 * call tree of flametree.c). Each takes an open FILE *, writes the view of
 * struct report_opts (rows.h), and returns 0 or the errno of the failed
 * write. export.h chooses between them and writes files safely.
 */
#ifndef STACKTOP_FORMATS_H
#define STACKTOP_FORMATS_H

#include <stdbool.h>
#include <stdio.h>

#include "output/rows.h"

struct export_since;
struct pprof_copy;
struct session;

/* JSON snapshot schema version (doc/formats.md, doc/stacktop-snapshot.schema.json) */
#define EXPORT_JSON_VERSION 2

/**
 * export_report() - one batch iteration: header, ranked table, expanded stacks
 * @f: output
 * @s: session
 * @o: what to show
 * @iteration: 1-based iteration number, printed in the header
 *
 * Return: 0 or -errno (write error).
 */
int export_report(FILE *f, struct session *s, const struct report_opts *o, int iteration);

/**
 * export_folded() - every stack matching @rank as folded lines
 * "root;...;leaf count" (root first; kernel frames, sanitized)
 * @f: output
 * @s: session
 * @rank: filters (the key is ignored); NULL for all
 * @delta: counts of the last interval instead of totals
 *
 * Same as export_folded_root() with EXPORT_ROOT_NONE.
 *
 * Return: lines written, or -errno.
 */
int export_folded(FILE *f, struct session *s, const struct rank_opts *rank, bool delta);

/**
 * export_folded_root() - folded lines, optionally rooted at the command
 * (and pid) that hit the stack, as stackcollapse-perf.pl does: with a root,
 * a stack gets one line per command (or pid) that passes the filters; with
 * @o->lost_stack a last line "[lost_events] N" for the events the ring
 * buffer lost (losses.h; the note on stderr is the caller's)
 * @f: output
 * @s: session
 * @o: view (@o->rank, @o->delta, @o->root)
 *
 * Return: lines written, or -errno.
 */
int export_folded_root(FILE *f, struct session *s, const struct report_opts *o);

/**
 * export_folded_note() - what folded lines cannot say (losses.h): the
 *	ring buffer's losses over the view's period, and with -u dwarf the
 *	events without a user stack; a line each, '\n'-separated, for the
 *	batch loop's standard error (struct export_fmt's @note)
 * @buf: output
 * @size: its size
 * @s: session
 * @o: view (@o->delta, @o->lost_stack)
 *
 * Return: the wanted length (snprintf semantics), 0: nothing to say.
 */
int export_folded_note(char *buf, size_t size, struct session *s, const struct report_opts *o);

/**
 * export_json() - the JSON snapshot (schema version EXPORT_JSON_VERSION) on
 * one line: time, host, kernel, the header counters, the view, and every
 * matching stack (up to @o->top) with its stable key, ids, counts, flags,
 * frames as hex and as symbols, and its hits per event, CPU and pid
 * @f: output
 * @s: session
 * @o: what to show (@o->expand is ignored: every row carries its frames)
 * @iteration: 1-based iteration number
 *
 * Return: 0 or -errno (write error).
 */
int export_json(FILE *f, struct session *s, const struct report_opts *o, int iteration);

/**
 * export_csv() - the ranked rows as comma-separated values: a header line,
 * then one row per matching stack (every one, or @o->top), best first:
 * refresh, rank, key, hits (or weight) of the interval and since start,
 * percent of the view's count, rate (with --sample: the total's 95% half
 * width and the mean period), the event, command and pid that hit it
 * most, the pids that hit it, its depth and its frames leaf first joined
 * by ';'. Strings sanitized, quoted as RFC 4180 says, a leading =, +, - or
 * @ defused with a '
 * @f: output
 * @s: session
 * @o: what to show
 * @iteration: 1-based refresh number (the first column)
 *
 * Return: the rows written, or -errno (write error).
 */
int export_csv(FILE *f, struct session *s, const struct report_opts *o, int iteration);

/**
 * export_csv_note() - what the rows cannot say: the ring buffer's losses
 *	over the view's period and --sample's estimates (the rows carry each
 *	one's hits_total_ci95 and the sample_period); a line each, for the
 *	batch loop's standard error (struct export_fmt's @note)
 * @buf: output
 * @size: its size
 * @s: session
 * @o: view (@o->delta)
 *
 * Return: the wanted length (snprintf semantics), 0: nothing to say.
 */
int export_csv_note(char *buf, size_t size, struct session *s, const struct report_opts *o);

/**
 * export_csv_field() - one CSV field: @s sanitized (fmt_sanitize()), quoted
 * when it holds a comma, a quote or a line break (its quotes doubled), and
 * with a leading ' (quoted) when it begins with =, +, - or @
 * @f: output
 * @s: the text
 */
void export_csv_field(FILE *f, const char *s);

/**
 * export_pprof() - a gzip'd profile.proto (go tool pprof): sample types
 * "hits" (since start) and "hits_interval" (last interval), the default the
 * one @o->delta names; one sample per (stack, event, CPU, pid) with labels
 * event, comm, pid and cpu; locations with the kernel addresses, functions
 * with their names (module as file name), one mapping [kernel.kallsyms];
 * comments with the losses of both periods and the user-stack line
 * (losses.h), and with @o->lost_stack a sample "[lost events]"
 * @f: output
 * @s: session
 * @o: view (@o->rank filters; @o->top is ignored: every matching stack)
 *
 * Return: samples written, or -errno.
 */
int export_pprof(FILE *f, struct session *s, const struct report_opts *o);

/**
 * export_pprof_copy() - export_pprof()'s profile from a copy of its counts
 *	and names (pprof_copy.h), on any thread: the session is not looked
 *	at (--serve's server writes the profiles the collector copied)
 * @f: output
 * @c: the copy (only read: several threads may write it at once)
 * @since: a window's start (since.h; indexed here, so one writer at a
 *	   time): the counts since it opened, the profile's duration up to
 *	   the copy; NULL: the counts since start
 * @gz: gzip'd (else the bare protobuf)
 *
 * Return: samples written, or -errno.
 */
int export_pprof_copy(FILE *f, const struct pprof_copy *c, struct export_since *since, bool gz);

/**
 * export_speedscope() - a speedscope file (its file-format-schema.json):
 * one "sampled" profile per event, weights the counts @o->delta names,
 * frames shared by function name; the losses in the file's and the
 * profiles' names, and with @o->lost_stack a sample "[lost events]"
 * @f: output
 * @s: session
 * @o: view (@o->rank filters; @o->top is ignored)
 *
 * Return: profiles written, or -errno.
 */
int export_speedscope(FILE *f, struct session *s, const struct report_opts *o);

/**
 * export_html() - the flame graph page: one self-contained HTML file (no
 * request of any kind), the page built into stacktop (output/flame/), the
 * call tree merged here and embedded once as JSON, frames named once
 * (doc/formats.md, "html")
 * @f: output
 * @s: session
 * @o: view (@o->rank filters, @o->delta, @o->root; @o->top is ignored)
 *
 * Return: stacks in the graph, or -errno.
 */
int export_html(FILE *f, struct session *s, const struct report_opts *o);

/**
 * export_html_diff() - the differential flame graph page (--diff BEFORE
 * AFTER -o d.html): export_html() of @after, with @before's tree in the
 * profile as "base": the page draws @after's widths and colours each frame
 * by the change of its share of all hits (red grows, blue shrinks, as
 * difffolded.pl), lists the frames gone, and its tooltip gives both counts
 * @f: output
 * @before: the older side
 * @after: the newer side (its view: @o)
 * @o: view
 *
 * Return: @after's stacks in the graph, or -errno.
 */
int export_html_diff(FILE *f, struct session *before, struct session *after,
		     const struct report_opts *o);

/**
 * export_svg() - the flame graph as a static SVG image in the style of
 * flamegraph.pl (root at the bottom, a <title> tooltip per frame, no
 * script), the tree of export_html() without the tracing machinery
 * @f: output
 * @s: session
 * @o: view (as export_html())
 *
 * Return: stacks in the graph, or -errno.
 */
int export_svg(FILE *f, struct session *s, const struct report_opts *o);

#endif /* STACKTOP_FORMATS_H */
