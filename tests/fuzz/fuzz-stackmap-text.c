/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-stackmap-text.c - stackmap_text_parse() on arbitrary text.
 *
 * Checks that every frame's strings point inside the input and that no
 * record has more frames than STACKMAP_MAX_DEPTH.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kernel/stackmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct span {
	const char *lo, *hi;
	uint64_t sum;
};

static void check(const struct span *s, const char *p, size_t n)
{
	if (!p)
		return;
	if (p < s->lo || p + n > s->hi)
		__builtin_trap();
}

static int visit(void *ctx, uint32_t id, uint32_t ref, uint32_t depth,
		 const struct stackmap_frame *frames, uint32_t nframes)
{
	struct span *s = ctx;

	if (nframes > STACKMAP_MAX_DEPTH)
		__builtin_trap();
	for (uint32_t i = 0; i < nframes; i++) {
		const struct stackmap_frame *f = &frames[i];

		check(s, f->sym, f->sym_len);
		check(s, f->mod, f->mod_len);
		if (f->sym && f->sym_len == 0)
			__builtin_trap();
		for (size_t k = 0; f->sym && k < f->sym_len; k++)
			s->sum += (unsigned char)f->sym[k];
		for (size_t k = 0; f->mod && k < f->mod_len; k++)
			s->sum += (unsigned char)f->mod[k];
		s->sum += f->off + f->addr + f->trampoline;
	}
	s->sum += id + ref + depth;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *t = (const char *)data;
	struct span s = { t, t + size, 0 };

	stackmap_text_parse(t, size, visit, &s);
	return 0;
}
