/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * colblob.h - a document as a JSON header and binary columns (colblob.c):
 * how the flame graph page carries a large tree (html.c) so that the
 * browser makes typed arrays of it instead of parsing numbers as text.
 *
 * The bytes: the header's length (4 bytes, little-endian), the header (a
 * JSON object, UTF-8, that lists the columns as "columns":[[name, type,
 * count], ...]), zeros to a multiple of 8 bytes, then each column in that
 * order, little-endian, each starting at a multiple of 8 bytes from the
 * start of the document (zeros between). A type is "u8", "u16", "u32" or
 * "f64" (doc/formats.md, "html").
 */
#ifndef STACKTOP_COLBLOB_H
#define STACKTOP_COLBLOB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* a column's element: the narrowest that holds its values */
enum colblob_type {
	COLBLOB_U8,
	COLBLOB_U16,
	COLBLOB_U32,
	COLBLOB_F64, /* counts past 2^32: exact to 2^53, as in the page's numbers */
};

/**
 * struct colblob - the columns of a document being written
 * @bin: the columns' bytes (a memory stream)
 * @data: what @bin wrote
 * @len: its length
 * @spec: the header's "columns" array, without the brackets
 * @speclen: its length
 * @type: the column being written's type
 * @left: its values still to come
 * @err: the first error, sticky
 */
struct colblob {
	FILE *bin;
	char *data;
	size_t len;
	char spec[512];
	size_t speclen;
	enum colblob_type type;
	size_t left;
	int err;
};

/**
 * colblob_init() - an empty set of columns
 * @c: the columns; colblob_free() them
 *
 * Return: 0 or -errno.
 */
int colblob_init(struct colblob *c);

/**
 * colblob_type_for() - the narrowest type that holds a column's values
 * @max: its largest value
 *
 * Return: the type.
 */
enum colblob_type colblob_type_for(uint64_t max);

/**
 * colblob_column() - start a column; its @n values follow with colblob_put()
 * @c: the columns
 * @name: its name in the header (plain ASCII, no quote)
 * @type: its element
 * @n: how many values
 */
void colblob_column(struct colblob *c, const char *name, enum colblob_type type, size_t n);

/**
 * colblob_put() - the next value of the column being written
 * @c: the columns
 * @v: the value (cut to the column's type: colblob_type_for() chose it)
 */
void colblob_put(struct colblob *c, uint64_t v);

/**
 * colblob_spec() - write the header's "columns" member, `"columns":[...]`
 * @c: the columns, all written
 * @f: the header being written
 */
void colblob_spec(const struct colblob *c, FILE *f);

/**
 * colblob_finish() - the whole document: header length, @header, columns
 * @c: the columns, all written
 * @header: the JSON header (with colblob_spec() in it)
 * @hlen: its length
 * @out: set to the document (free() it)
 * @outlen: its length
 *
 * Return: 0 or -errno (-EINVAL when a column got fewer or more values than
 * it said, -E2BIG for a header past 4 GiB).
 */
int colblob_finish(struct colblob *c, const char *header, size_t hlen, char **out, size_t *outlen);

/**
 * colblob_free() - free the columns
 * @c: the columns
 */
void colblob_free(struct colblob *c);

#endif /* STACKTOP_COLBLOB_H */
