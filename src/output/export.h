/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * export.h - write ranked stacks out: the batch report, folded stacks, the
 * JSON snapshot, pprof and speedscope profiles.
 *
 * The writers take an open FILE * and never print anywhere else. Files go
 * through export_write_file(): a temporary file created next to the target
 * (export_create_file(): O_EXCL, O_NOFOLLOW, mode 0600), written, synced and
 * renamed over the target, so that a reader sees the old file or the whole
 * new one, never a part; a symlink target is refused.
 */
#ifndef STACKTOP_EXPORT_H
#define STACKTOP_EXPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/stack_table.h"

struct session;
struct ksym;

/* JSON snapshot schema version (doc/formats.md, doc/stacktop-snapshot.schema.json) */
#define EXPORT_JSON_VERSION 2

enum export_format {
	EXPORT_TEXT,
	EXPORT_JSON,
	EXPORT_FOLDED,
	EXPORT_PPROF,
	EXPORT_SPEEDSCOPE,
	EXPORT_FORMAT_MAX,
};

/* the root frame of folded lines */
enum export_root {
	EXPORT_ROOT_NONE,  /* the outermost kernel frame */
	EXPORT_ROOT_COMM,  /* "comm;..." */
	EXPORT_ROOT_PID,   /* "comm;pid;..." */
};

/**
 * struct report_opts - what a report (or file) shows: the current view
 * @top: rows in the text table and in the JSON snapshot; 0 means 20 for
 *       text and every matching stack for JSON (pprof, speedscope and
 *       folded always carry every matching stack)
 * @expand: how many of the top rows to expand into frames (text)
 * @delta: rank by the last interval (true) or by totals (false); the count
 *         folded and speedscope write, the default sample type of pprof
 * @rank: ranking key and filters
 * @root: root frame of folded lines
 * @filter: text describing the @rank.match filter, for the JSON
 *          snapshot's "view" (NULL: none)
 * @comm: the comm filter behind @rank.attr_match (`p`'s text: "=NAME" or a
 *        glob for whole names, else a part of one), NULL: none
 */
struct report_opts {
	int top;
	int expand;
	bool delta;
	struct rank_opts rank;
	enum export_root root;
	const char *filter;
	const char *comm;
};

/**
 * export_format_parse() - the format named @name
 * @name: "text", "json", "folded", "pprof" or "speedscope"
 *
 * Return: the format, or -EINVAL.
 */
int export_format_parse(const char *name);

/**
 * export_format_name() - the name of @fmt ("text", "json", ...)
 * @fmt: format
 */
const char *export_format_name(enum export_format fmt);

/**
 * export_format_guess() - the format a file name's suffix implies
 * @path: file name
 *
 * .txt → text; .json → json; .speedscope.json, .speedscope → speedscope;
 * .folded, .collapsed → folded; .pb.gz, .pprof, .pb → pprof.
 *
 * Return: the format, or -EINVAL when the suffix says nothing.
 */
int export_format_guess(const char *path);

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
 * a stack gets one line per command (or pid) that passes the filters
 * @f: output
 * @s: session
 * @o: view (@o->rank, @o->delta, @o->root)
 *
 * Return: lines written, or -errno.
 */
int export_folded_root(FILE *f, struct session *s, const struct report_opts *o);

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
 * export_pprof() - a gzip'd profile.proto (go tool pprof): sample types
 * "hits" (since start) and "hits_interval" (last interval), the default the
 * one @o->delta names; one sample per (stack, event, CPU, pid) with labels
 * event, comm, pid and cpu; locations with the kernel addresses, functions
 * with their names (module as file name), one mapping [kernel.kallsyms]
 * @f: output
 * @s: session
 * @o: view (@o->rank filters; @o->top is ignored: every matching stack)
 *
 * Return: samples written, or -errno.
 */
int export_pprof(FILE *f, struct session *s, const struct report_opts *o);

/**
 * export_speedscope() - a speedscope file (its file-format-schema.json):
 * one "sampled" profile per event, weights the counts @o->delta names,
 * frames shared by function name
 * @f: output
 * @s: session
 * @o: view (@o->rank filters; @o->top is ignored)
 *
 * Return: profiles written, or -errno.
 */
int export_speedscope(FILE *f, struct session *s, const struct report_opts *o);

/**
 * export_write() - write @fmt to @f
 * @f: output
 * @s: session
 * @o: view
 * @fmt: format
 * @iteration: 1-based iteration number (text and JSON headers)
 *
 * Return: 0 or a positive count on success, -errno on failure.
 */
int export_write(FILE *f, struct session *s, const struct report_opts *o, enum export_format fmt,
		 int iteration);

/**
 * export_write_file() - write the current view to a file, safely: a new
 * temporary file in the target's directory (mode 0600, O_EXCL|O_NOFOLLOW),
 * written, fsync'd and renamed over @path; on any error the temporary file
 * is removed and @path is left as it was. A @path that is a symlink (or not
 * a regular file) is refused. This is what the screen's `P` key calls.
 * @s: session
 * @o: view (filters applied)
 * @fmt: format
 * @iteration: iteration number for text/JSON (0 when not meaningful)
 * @path: target file
 * @err: receives a one-line, user-facing reason on failure (may be NULL)
 * @errsz: size of @err
 *
 * Return: what export_write() returned (>= 0), or -errno: -ELOOP (symlink),
 * -EISDIR/-EINVAL (not a regular file), -EROFS, -ENOSPC, -EDQUOT, -EACCES,
 * -ENOENT (no such directory), write errors.
 */
int export_write_file(struct session *s, const struct report_opts *o, enum export_format fmt,
		      int iteration, const char *path, char *err, size_t errsz);

/**
 * export_stack_key() - the stable key of a stack (the JSON snapshot's
 * "key"): FNV-1a 64 over its frames as fmt_frame() prints them
 * @ks: symbols
 * @sk: stack
 */
uint64_t export_stack_key(struct ksym *ks, const struct stack *sk);

/**
 * export_top_origin() - the origin (see session_origin()) with most hits
 * of @sk among the breakdown records passing @o
 * @s: session
 * @sk: stack
 * @o: filters
 * @delta: count the last interval instead of totals
 * @more: set when other origins have hits too
 *
 * Return: the origin index, -1 when no record has hits.
 */
int export_top_origin(struct session *s, const struct stack *sk, const struct rank_opts *o,
		      bool delta, bool *more);

/**
 * export_create_file() - create a new file for writing, safely
 * @path: file to create; must not exist; a symlink is never followed
 *
 * The file is created with O_CREAT|O_EXCL|O_NOFOLLOW and mode 0600 (less if
 * the umask says so): only its owner may read the kernel addresses in it.
 *
 * Return: the stream (fclose() it), NULL with errno set.
 */
FILE *export_create_file(const char *path);

#endif /* STACKTOP_EXPORT_H */
