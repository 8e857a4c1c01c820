/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * array.h - the one grower of the project's arrays (src/core/array.c).
 *
 * An array is a pointer, its capacity in elements and a count the caller
 * keeps. array_grow() doubles the capacity until @need elements fit,
 * checks that the byte size does not overflow, and zeroes what it adds:
 *
 *	if (ARRAY_GROW(t->items, t->cap, t->n + 1) < 0)
 *		return -ENOMEM;
 *	t->items[t->n++] = item;
 */
#ifndef STACKTOP_ARRAY_H
#define STACKTOP_ARRAY_H

#include <stddef.h>

/* the capacity of an array's first allocation, in elements */
#define ARRAY_MIN 4

/**
 * array_grow() - make room for @need elements
 * @arr: the array (realloc()ed; NULL when none yet)
 * @cap: its capacity in elements, updated
 * @need: elements it must hold
 * @elem: bytes of one element (> 0)
 *
 * The capacity doubles from *@cap (ARRAY_MIN at first) until @need fit;
 * elements past the old capacity are zeroed. Nothing changes when @need
 * already fits.
 *
 * Return: 0; -EOVERFLOW when @need elements of @elem bytes do not fit a
 * size_t, -ENOMEM when out of memory, -EINVAL when @elem is 0 (then *@arr
 * and *@cap are unchanged).
 */
int array_grow(void **arr, size_t *cap, size_t need, size_t elem);

/**
 * ARRAY_GROW() - array_grow() on an array and its size_t capacity
 * @arr: the array, an lvalue of a pointer type
 * @cap: its capacity, an lvalue of type size_t
 * @need: elements it must hold
 *
 * Return: as array_grow().
 */
#define ARRAY_GROW(arr, cap, need) array_grow((void **)&(arr), &(cap), (need), sizeof(*(arr)))

#endif /* STACKTOP_ARRAY_H */
