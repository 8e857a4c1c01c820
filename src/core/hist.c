// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hist.c - see hist.h.
 */
#include <stdio.h>
#include <string.h>

#include "core/hist.h"

uint64_t hist_low(unsigned int scale, unsigned int b)
{
	if (b == 0)
		return 0;
	if (b >= HIST_BUCKETS)
		b = HIST_BUCKETS - 1;
	if (scale != HIST_TIME)
		return 1ULL << (b - 1);
	if (b <= 10)
		return 1ULL << (b - 1);
	if (b <= 20)
		return 1000ULL << (b - 11);
	if (b <= 30)
		return 1000000ULL << (b - 21);
	return 1000000000ULL << (b - 31);
}

uint64_t hist_high(unsigned int scale, unsigned int b)
{
	if (b + 1 >= HIST_BUCKETS)
		return UINT64_MAX;
	return hist_low(scale, b + 1);
}

/* a bound of a time bucket in its unit: "512ns", "1us", "128ms", "2s" */
static int time_bound(char *buf, size_t size, uint64_t v)
{
	static const struct {
		uint64_t div;
		const char *unit;
	} u[] = { { 1000000000ULL, "s" }, { 1000000ULL, "ms" }, { 1000ULL, "us" }, { 1, "ns" } };
	size_t i;

	if (!v)
		return snprintf(buf, size, "0");
	for (i = 0; i < sizeof(u) / sizeof(u[0]) - 1 && v < u[i].div; i++)
		;
	return snprintf(buf, size, "%llu%s", (unsigned long long)(v / u[i].div), u[i].unit);
}

/* a power of two as bpftrace writes it: 512, 1K, 2M */
static int log2_bound(char *buf, size_t size, uint64_t v)
{
	static const char suffix[] = " KMGTPE";
	unsigned int s = 0;

	while (v >= 1024 && !(v & 1023) && s + 1 < sizeof(suffix) - 1) {
		v >>= 10;
		s++;
	}
	if (!s)
		return snprintf(buf, size, "%llu", (unsigned long long)v);
	return snprintf(buf, size, "%llu%c", (unsigned long long)v, suffix[s]);
}

int hist_label(char *buf, size_t size, unsigned int scale, unsigned int b)
{
	char lo[32], hi[32];
	uint64_t h = hist_high(scale, b);

	if (b == 0)
		return snprintf(buf, size, "[0]");
	if (scale != HIST_TIME && b == 1)
		return snprintf(buf, size, "[1]");
	if (scale == HIST_TIME) {
		time_bound(lo, sizeof(lo), hist_low(scale, b));
		time_bound(hi, sizeof(hi), h);
	} else {
		log2_bound(lo, sizeof(lo), hist_low(scale, b));
		log2_bound(hi, sizeof(hi), h);
	}
	if (h == UINT64_MAX)
		return snprintf(buf, size, "[%s, ...)", lo);
	return snprintf(buf, size, "[%s, %s)", lo, hi);
}

bool hist_range(const uint64_t *counts, unsigned int *first, unsigned int *last)
{
	unsigned int i;
	bool any = false;

	*first = *last = 0;
	for (i = 0; i < HIST_BUCKETS; i++) {
		if (!counts[i])
			continue;
		if (!any)
			*first = i;
		*last = i;
		any = true;
	}
	return any;
}

int hist_bar(char *buf, size_t size, uint64_t count, uint64_t max, int width)
{
	int n, i;

	if (width < 0)
		width = 0;
	if (!size)
		return 0;
	if ((size_t)width + 3 > size)
		width = size >= 3 ? (int)size - 3 : 0;
	/* bpftrace: count * 52 / max, rounded down */
	n = max ? (int)((unsigned __int128)count * (unsigned int)width / max) : 0;
	if (n > width)
		n = width;
	if (size < 3) {
		buf[0] = '\0';
		return 0;
	}
	buf[0] = '|';
	for (i = 0; i < width; i++)
		buf[1 + i] = i < n ? '@' : ' ';
	buf[1 + width] = '|';
	buf[2 + width] = '\0';
	return n;
}
