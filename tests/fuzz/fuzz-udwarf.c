/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-udwarf.c - udwarf_open() and udwarf_frames() (src/sym/udwarf.c) on
 * arbitrary bytes as a file with DWARF another user controls, from memory,
 * under a 1 MiB budget: libdw is handed the image of its debug sections;
 * nothing may crash, read outside the input, or run without end, and every
 * chain returned must fit its array with names inside what it holds.
 * Also the debuglink reader and the CRC.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sym/udwarf.h"
#include "sym/uelf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct udwarf_frame fr[UDWARF_FRAMES_MAX];
	struct uelf_src src = { .fd = -1 };
	struct udwarf *d = NULL;
	uint8_t *copy;
	char name[256];
	uint32_t crc;
	size_t i;

	/* an exact-size copy: ASan sees any read past its end */
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	src.mem = copy;
	src.size = size;
	(void)udwarf_has_debug(&src);
	if (udwarf_debuglink(&src, name, sizeof(name), &crc) == 0 && strchr(name, '/'))
		abort();
	(void)udwarf_crc32(&src, &crc);
	if (udwarf_open(&src, 1u << 20, &d) == 0) {
		/* addresses the file's own words name, and a few fixed ones */
		for (i = 0; i < 24; i++) {
			uint64_t a = 0x1000 + i * 0x10;
			unsigned int n, k;

			if (i >= 8 && size >= 8) {
				size_t at = (i * 7919) % (size - 7);

				memcpy(&a, copy + at, sizeof(a));
				a &= 0xffffffffULL;
			}
			n = udwarf_frames(d, a, fr, UDWARF_FRAMES_MAX);
			if (n > UDWARF_FRAMES_MAX)
				abort();
			for (k = 0; k < n; k++) {
				if (fr[k].name && strlen(fr[k].name) > (1u << 24))
					abort();
				if (fr[k].file && strlen(fr[k].file) > (1u << 24))
					abort();
			}
		}
		udwarf_free(d);
	}
	free(copy);
	return 0;
}
