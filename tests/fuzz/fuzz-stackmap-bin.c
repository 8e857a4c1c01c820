/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-stackmap-bin.c - stackmap_bin_parse() on arbitrary bytes.
 *
 * Besides ASan/UBSan, checks that the walk never claims more records than
 * the header announced and that every ip handed to the visitor is readable.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kernel/stackmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct acc {
	uint64_t sum;
	uint32_t n;
};

static int visit(void *ctx, uint32_t id, uint32_t ref, const uint64_t *ips, uint32_t nr)
{
	struct acc *a = ctx;

	if (nr > STACKMAP_MAX_DEPTH * 16)
		__builtin_trap();
	for (uint32_t i = 0; i < nr; i++)
		a->sum += ips[i];
	a->sum += id + ref;
	a->n++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct stackmap_bin_info info;
	struct acc a = { 0 };
	int r;

	r = stackmap_bin_parse(data, size, visit, &a, &info);
	if (r == 0 || r == -74 /* EBADMSG after the header */) {
		if (r == 0 && (info.parsed != a.n || info.parsed > info.nr_stacks))
			__builtin_trap();
		if (r == 0 && !info.truncated && info.parsed != info.nr_stacks)
			__builtin_trap();
	}
	/* the same bytes at an odd address take the copying path */
	if (size > 1)
		stackmap_bin_parse(data + 1, size - 1, visit, &a, NULL);
	return 0;
}
