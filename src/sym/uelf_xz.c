// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * uelf_xz.c - .gnu_debugdata ("MiniDebugInfo") for uelf_load.c: an
 * xz-compressed ELF file whose .symtab holds the functions .dynsym leaves
 * out. A file another user controls can put an xz bomb there (a few KiB
 * that decompress to gigabytes): liblzma's decoder gets a memory limit and
 * the output a cap, both taken from the caller's budget.
 */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_LZMA
#include <lzma.h>
#endif

#include "sym/uelf_priv.h"

#define PACKED_MAX   (64u << 20) /* a .gnu_debugdata larger than this is not read */
#define LZMA_MEM_MAX (64u << 20) /* the xz decoder's own memory at most */

#ifdef HAVE_LZMA
/*
 * .gnu_debugdata: an xz-compressed ELF file whose .symtab holds the
 * functions .dynsym leaves out. The decoder's memory and the output are
 * both taken from the budget; a stream that would need more is refused.
 */
int uelf_add_debugdata(struct rd *r, struct uelf *e, size_t *cap, unsigned int idx)
{
	const struct shdr *s = &r->sh[idx];
	lzma_stream z = LZMA_STREAM_INIT;
	size_t left, memlim, outcap, olen = 0, ocap = 0;
	uint8_t *in, *out = NULL;
	struct uelf_src inner;
	struct rd ir;
	lzma_ret lr;
	int err, k;

	if (s->type == SHT_NOBITS || !s->size || s->size > PACKED_MAX)
		return 0;
	in = uelf_src_get(r, s->offset, (size_t)s->size, &err);
	if (!in)
		return err;
	left = r->a->budget - r->a->held;
	memlim = left / 2 < LZMA_MEM_MAX ? left / 2 : LZMA_MEM_MAX;
	outcap = left - memlim;
	err = uelf_take(r->a, memlim);
	if (err == 0 && lzma_stream_decoder(&z, memlim ? memlim : 1, 0) != LZMA_OK)
		err = -ENOMEM;
	z.next_in = in;
	z.avail_in = (size_t)s->size;
	for (lr = LZMA_OK; err == 0 && lr == LZMA_OK;) {
		if (olen == ocap) {
			size_t c = ocap ? ocap * 2 : 65536;
			uint8_t *no;

			if (c > outcap)
				c = outcap;
			if (c <= ocap || uelf_take(r->a, c - ocap) < 0) {
				err = -E2BIG; /* more than the budget left: a bomb, or too big */
				break;
			}
			no = realloc(out, c);
			if (!no) {
				uelf_give(r->a, c - ocap);
				err = -ENOMEM;
				break;
			}
			out = no;
			ocap = c;
		}
		z.next_out = out + olen;
		z.avail_out = ocap - olen;
		lr = lzma_code(&z, LZMA_FINISH);
		olen = ocap - z.avail_out;
	}
	if (err == 0 && lr != LZMA_STREAM_END)
		err = lr == LZMA_MEMLIMIT_ERROR ? -E2BIG : -ENOEXEC;
	lzma_end(&z);
	uelf_give(r->a, memlim);
	uelf_src_put(r, in, (size_t)s->size);
	if (err == 0) {
		inner.fd = -1;
		inner.mem = out;
		inner.size = olen;
		err = uelf_rd_open(&ir, &inner, r->a);
		if (err == 0) {
			k = uelf_find_sec(&ir, SHT_SYMTAB, NULL);
			if (k > 0)
				err = uelf_add_symbols(&ir, e, cap, (unsigned int)k);
			uelf_rd_free(&ir);
		}
	}
	free(out);
	uelf_give(r->a, ocap);
	return err;
}
#else
int uelf_add_debugdata(struct rd *r, struct uelf *e, size_t *cap, unsigned int idx)
{
	(void)r;
	(void)e;
	(void)cap;
	(void)idx;
	return 0;
}
#endif
