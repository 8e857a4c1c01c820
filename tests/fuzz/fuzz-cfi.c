/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-cfi.c - cfi_scan_fde() on arbitrary .eh_frame bytes: the first two
 * bytes choose the FDE's offset, the rest is the section. The scan must
 * never read outside the buffer (ASan) and must finish (libFuzzer's
 * timeout): it is what stands between a user's file and libunwind.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sym/cfi_scan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy;
	size_t off;

	if (size < 2)
		return 0;
	off = (size_t)data[0] | (size_t)data[1] << 8;
	/* an exact-size copy: a read past the end is ASan's */
	copy = malloc(size - 2 ? size - 2 : 1);
	if (!copy)
		return 0;
	memcpy(copy, data + 2, size - 2);
	if (cfi_scan_fde(copy, size - 2, off) >= CFI_VERDICT_MAX)
		__builtin_trap();
	free(copy);
	return 0;
}
