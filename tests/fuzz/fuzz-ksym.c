/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-ksym.c - ksym_load() of arbitrary kallsyms text (through fmemopen),
 * then lookups, name lookups and fmt_frame() on addresses from the input.
 *
 * Properties: a hit contains the address; its start resolves to the same
 * start; its name is found again by ksym_addr_of().
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/format.h"
#include "sym/frame.h"
#include "sym/ksym.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void probe(struct ksym *ks, uint64_t addr)
{
	struct ksym_hit h, h2;
	char buf[96];
	uint64_t a;

	fmt_frame(buf, sizeof(buf), ks, addr);
	fmt_func(buf, sizeof(buf), ks, addr, 1);
	if (ksym_lookup(ks, addr, &h))
		return;
	if (addr < h.start || addr - h.start >= h.size)
		__builtin_trap();
	if (ksym_lookup(ks, h.start, &h2) || h2.start != h.start)
		__builtin_trap();
	if (ksym_addr_of(ks, h.name, strlen(h.name), h.module, h.module ? strlen(h.module) : 0,
			 &a))
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ksym *ks;
	FILE *f;

	if (size == 0)
		return 0;
	ks = ksym_new("/nonexistent/stacktop-fuzz-kallsyms");
	if (!ks)
		return 0;
	f = fmemopen((void *)data, size, "r");
	if (!f) {
		ksym_free(ks);
		return 0;
	}
	if (ksym_load(ks, f) > 0) {
		/* every 8-byte window of the input, and its hex-looking prefix */
		for (size_t i = 0; i + 8 <= size && i < 256; i += 8) {
			uint64_t v;

			memcpy(&v, data + i, sizeof(v));
			probe(ks, v);
		}
		for (size_t i = 0; i + 16 <= size && i < 4096; i++) {
			char hex[17];
			unsigned long long v;

			if (i && data[i - 1] != '\n')
				continue;
			memcpy(hex, data + i, 16);
			hex[16] = '\0';
			if (sscanf(hex, "%16llx", &v) == 1) {
				probe(ks, v);
				probe(ks, v + 1);
				probe(ks, v - 1);
			}
		}
		ksym_refresh(ks); /* the path does not exist: the old table stays */
		probe(ks, 0);
	}
	fclose(f);
	ksym_free(ks);
	return 0;
}
