/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * export.h - write ranked stacks out in a format chosen by name or by a
 * file's suffix: the batch report, folded stacks, the JSON snapshot, pprof
 * and speedscope profiles, the flame graph page and image (formats.h: one
 * file each).
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
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "output/formats.h"
#include "output/rows.h"

struct session;

enum export_format {
	EXPORT_TEXT,
	EXPORT_JSON,
	EXPORT_FOLDED,
	EXPORT_PPROF,
	EXPORT_SPEEDSCOPE,
	EXPORT_HTML,
	EXPORT_SVG,
	EXPORT_CSV,
	EXPORT_FORMAT_MAX,
};

/* what a format is and what goes with it (struct export_fmt's @flags) */
#define EXPORT_F_ONE	  (1u << 0) /* one profile a file: more refreshes need -o */
#define EXPORT_F_BINARY	  (1u << 1) /* not text: never written to a terminal */
#define EXPORT_F_ALL_ROWS (1u << 2) /* without --top: every matching stack (else 20) */
#define EXPORT_F_ROOT	  (1u << 3) /* --folded-root roots its stacks at the command */
#define EXPORT_F_LOST	  (1u << 4) /* --folded-lost adds a stack for the lost events */
#define EXPORT_F_DIFF	  (1u << 5) /* --diff writes it */

#define EXPORT_SUFFIXES 4

/**
 * struct export_fmt - one output format: the row of the formats' table
 *	(export.c) that everything listing or choosing formats reads: --format
 *	and its errors, the suffixes of -o, --help, the completion, the man
 *	page's FORMATS (checked by the unit test formats-man), the screen's
 *	`P` picker and the name of the file it writes
 * @name: --format's word
 * @suffixes: the file names it is guessed from, case-insensitive, the
 *	first the one files get (`P`); NULL after the last
 * @help: what it is, in a few words (the picker's and --help's line)
 * @flags: EXPORT_F_*
 * @between: written between two refreshes on one stream (NULL: nothing)
 * @write: the writer (formats.h): 0 or a positive count, or -errno
 * @note: for a format that cannot carry what it misses (losses.h): the
 *	lines the batch loop prints on standard error after each refresh,
 *	'\n'-separated, "" for none; snprintf semantics. NULL: none needed
 */
struct export_fmt {
	const char *name;
	const char *suffixes[EXPORT_SUFFIXES];
	const char *help;
	unsigned int flags;
	const char *between;
	int (*write)(FILE *f, struct session *s, const struct report_opts *o, int iteration);
	int (*note)(char *buf, size_t size, struct session *s, const struct report_opts *o);
};

/**
 * export_format_get() - the row of format @fmt
 * @fmt: an enum export_format (an int from a picker or the command line)
 *
 * Return: the row, NULL when @fmt is no format.
 */
const struct export_fmt *export_format_get(int fmt);

/**
 * export_format_parse() - the format named @name
 * @name: a struct export_fmt's @name ("text", "json", ...)
 *
 * Return: the format, or -EINVAL.
 */
int export_format_parse(const char *name);

/**
 * export_format_name() - the name of @fmt ("text", "json", ...), "?" for none
 * @fmt: format
 */
const char *export_format_name(enum export_format fmt);

/**
 * export_format_guess() - the format a file name's suffix implies: the
 *	format with the longest of the table's suffixes that ends the name
 *	(.speedscope.json is speedscope's, .json the snapshot's), shorter
 *	than the name's last component, case-insensitive
 * @path: file name
 *
 * Return: the format, or -EINVAL when the suffix says nothing.
 */
int export_format_guess(const char *path);

/**
 * export_suffix_len() - the length of the longest suffix of the table
 *	that ends @path's last component (and is shorter than it)
 * @path: file name
 *
 * The batch loop puts a refresh's number before it (out.pb.gz ->
 * out.3.pb.gz).
 *
 * Return: its length, 0 when none does.
 */
size_t export_suffix_len(const char *path);

/**
 * export_format_line() - what the format is, on one line: its name in 12
 *	columns, its @help and its first suffix ("pprof       go tool pprof
 *	(.pb.gz)"), as the screen's `P` picker and --help list it
 * @fmt: format
 *
 * Return: the line (static, the same for the run), "" for no format.
 */
const char *export_format_line(enum export_format fmt);

/**
 * export_format_list() - the names of the formats that have every flag of
 *	@with and none of @without, in the table's order, joined by ", " and
 *	the last by @last ("folded, html and svg")
 * @buf: output
 * @size: its size
 * @with: EXPORT_F_* the formats must have (0: any)
 * @without: EXPORT_F_* they must not have
 * @last: the separator before the last name (", ", " and ", " or ")
 *
 * Return: the names listed.
 */
int export_format_list(char *buf, size_t size, unsigned int with, unsigned int without,
		       const char *last);

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
