// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * array.c - see array.h.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"

int array_grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t c = *cap ? *cap : ARRAY_MIN;
	void *p;

	if (need <= *cap)
		return 0;
	if (!elem)
		return -EINVAL;
	if (need > SIZE_MAX / elem)
		return -EOVERFLOW;
	while (c < need)
		c = c <= SIZE_MAX / 2 ? c * 2 : need;
	/* the doubling may pass what fits: then exactly @need */
	if (c > SIZE_MAX / elem)
		c = need;
	p = realloc(*arr, c * elem);
	if (!p)
		return -ENOMEM;
	memset((char *)p + *cap * elem, 0, (c - *cap) * elem);
	*arr = p;
	*cap = c;
	return 0;
}
