/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-stackmap-stat.c - stackmap_stat_parse() on arbitrary text.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/stackmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct stackmap_stat st;
	char *t = malloc(size + 1);

	if (!t)
		return 0;
	memcpy(t, data, size);
	t[size] = '\0';
	if (stackmap_stat_parse(t, &st) == 0 && st.success_rate < -1)
		__builtin_trap();
	free(t);
	return 0;
}
