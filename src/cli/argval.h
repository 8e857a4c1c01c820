/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * argval.h - the values of command-line options: numbers, sizes, lists
 * (args.c parses the options with them).
 */
#ifndef STACKTOP_CLI_ARGVAL_H
#define STACKTOP_CLI_ARGVAL_H

#include <stddef.h>

/**
 * argval_int() - a decimal integer within bounds
 * @s: the text
 * @min: the least value taken
 * @max: the largest
 * @ret: the value
 *
 * Return: 0, or -EINVAL (not a number, trailing text, out of bounds).
 */
int argval_int(const char *s, long min, long max, long *ret);

/**
 * argval_size() - a size in bytes: "65536", "512K", "256M", "1G" (binary
 *	units, an optional "B" or "iB")
 * @s: the text
 * @min: the least size taken
 * @ret: the size
 *
 * Return: 0, or -EINVAL (not a size, under @min, over 2^50).
 */
int argval_size(const char *s, size_t min, size_t *ret);

/**
 * argval_list() - numbers and ranges ("1,3,5-7") appended to @out
 * @s: the text
 * @out: the list
 * @n: entries already in @out
 * @max: room in @out
 * @maxval: the largest number taken
 *
 * Return: the entries in @out now, -EINVAL (bad text) or -E2BIG (no room),
 * -ENOMEM.
 */
int argval_list(const char *s, int *out, int n, int max, long maxval);

#endif
