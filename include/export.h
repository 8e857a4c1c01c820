/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * export.h - write ranked stacks out: the batch report and folded stacks.
 *
 * These take an open FILE * and never print anywhere else. Files stacktop
 * creates itself go through export_create_file(), which refuses to follow a
 * symlink or to overwrite an existing file, and creates it mode 0600 (the
 * frames hold kernel addresses).
 */
#ifndef STACKTOP_EXPORT_H
#define STACKTOP_EXPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "stack_table.h"

struct session;

/**
 * struct report_opts - what a batch report shows
 * @top: rows in the table
 * @expand: how many of the top rows to expand into frames
 * @delta: rank by the last interval (true) or by totals (false)
 * @rank: ranking key and filters
 */
struct report_opts {
	int top;
	int expand;
	bool delta;
	struct rank_opts rank;
};

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
 * Return: lines written, or -errno.
 */
int export_folded(FILE *f, struct session *s, const struct rank_opts *rank, bool delta);

/**
 * export_json() - one batch iteration as a JSON object on one line: the
 * header counters and every matching stack (up to @o->top) with its ids,
 * counts, flags, frames as hex and as symbols, and hits per event
 * @f: output
 * @s: session
 * @o: what to show (@o->expand is ignored: every row carries its frames)
 * @iteration: 1-based iteration number
 *
 * Return: 0 or -errno (write error).
 */
int export_json(FILE *f, struct session *s, const struct report_opts *o, int iteration);

/**
 * export_create_file() - create a new file for writing, safely
 * @path: file to create; must not exist; a symlink is never followed
 *
 * The file is created mode 0600 (less if the umask says so): only its
 * owner may read the kernel addresses in it.
 *
 * Return: the stream (fclose() it), NULL with errno set.
 */
FILE *export_create_file(const char *path);

#endif /* STACKTOP_EXPORT_H */
