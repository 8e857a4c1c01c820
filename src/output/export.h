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
	EXPORT_FORMAT_MAX,
};

/**
 * export_format_parse() - the format named @name
 * @name: "text", "json", "folded", "pprof", "speedscope", "html" or "svg"
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
 * .folded, .collapsed → folded; .pb.gz, .pprof, .pb → pprof; .html, .htm →
 * html; .svg → svg.
 *
 * Return: the format, or -EINVAL when the suffix says nothing.
 */
int export_format_guess(const char *path);

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
