/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-uelf.c - uelf_load() (src/sym/uelf.c) on arbitrary bytes as an ELF file
 * another user controls, from memory, under a 1 MiB budget: it must not
 * crash, read outside the input, or hold more than the budget; every
 * symbol returned must have a size and a name inside the names, and the
 * lookups must stay in the table.
 *
 * Byte 0: bit 0 gives the bytes to uelf_buildid() too.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sym/uelf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct uelf_opts o = { .budget = 1u << 20 };
	struct uelf_src src = { .fd = -1 };
	struct uelf *e = NULL;
	uint8_t bid[64];
	uint8_t *copy;
	size_t i;

	if (size < 1)
		return 0;
	/* an exact-size copy: ASan sees any read past its end */
	copy = malloc(size - 1 ? size - 1 : 1);
	if (!copy)
		return 0;
	memcpy(copy, data + 1, size - 1);
	src.mem = copy;
	src.size = size - 1;
	if (data[0] & 1)
		(void)uelf_buildid(&src, bid, sizeof(bid));
	if (uelf_load(&src, &o, &e) == 0) {
		if (e->bytes > o.budget)
			abort();
		for (i = 0; i < e->nsyms; i++) {
			uint64_t v;

			if (!e->syms[i].size || e->syms[i].name >= e->bytes)
				abort();
			if (strlen(e->names + e->syms[i].name) == 0)
				abort();
			if (i && e->syms[i].start <= e->syms[i - 1].start)
				abort(); /* sorted, one per address */
			if (uelf_find(e, e->syms[i].start) == NULL)
				abort();
			(void)uelf_vaddr(e, e->syms[i].start, &v);
		}
		/* the functions' starts of a stripped file: sorted, lookups inside them */
		for (i = 0; i < e->nfstarts; i++) {
			uint64_t st;

			if (i && e->fstarts[i] < e->fstarts[i - 1])
				abort();
			if (uelf_func_start(e, e->fstarts[i], &st) == 0 && st > e->fstarts[i])
				abort();
		}
		uelf_free(e);
	}
	free(copy);
	return 0;
}
