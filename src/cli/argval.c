// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * argval.c - see argval.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/argval.h"

int argval_int(const char *s, long min, long max, long *ret)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return -EINVAL;
	*ret = v;
	return 0;
}

int argval_size(const char *s, size_t min, size_t *ret)
{
	unsigned long long v, mul = 1;
	char *end;

	errno = 0;
	if (*s < '0' || *s > '9')
		return -EINVAL;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	switch (*end) {
	case 'k':
	case 'K':
		mul = 1ULL << 10;
		break;
	case 'm':
	case 'M':
		mul = 1ULL << 20;
		break;
	case 'g':
	case 'G':
		mul = 1ULL << 30;
		break;
	case '\0':
	case 'b':
	case 'B':
		break;
	default:
		return -EINVAL;
	}
	if (mul > 1) {
		end++;
		if (*end == 'i')
			end++;
	}
	if (*end == 'b' || *end == 'B')
		end++;
	if (*end || v > (1ULL << 50) / mul || v * mul < min)
		return -EINVAL;
	*ret = (size_t)(v * mul);
	return 0;
}

int argval_list(const char *s, int *out, int n, int max, long maxval)
{
	char *dup = strdup(s), *tok, *save = NULL;
	int r = n;

	if (!dup)
		return -ENOMEM;
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *dash = strchr(tok, '-');
		long a, b;

		if (dash) {
			*dash = '\0';
			if (argval_int(tok, 0, maxval, &a) || argval_int(dash + 1, 0, maxval, &b) ||
			    b < a) {
				r = -EINVAL;
				break;
			}
		} else {
			if (argval_int(tok, 0, maxval, &a)) {
				r = -EINVAL;
				break;
			}
			b = a;
		}
		for (; a <= b; a++) {
			if (r >= max) {
				r = -E2BIG;
				goto out;
			}
			out[r++] = (int)a;
		}
	}
out:
	free(dup);
	return r;
}
