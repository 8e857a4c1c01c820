// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * uelf_fde.c - where the functions of a stripped file start: the binary
 * search table of its .eh_frame_hdr (PT_GNU_EH_FRAME) lists the first
 * address of every function that has call frame information, symbol or
 * not. A frame in a function no symbol names is then known by its
 * function's start (`[unknown] (file+0xSTART)` once grouped by function),
 * not by its own address alone: the static functions of Debian's python3
 * are one row each with --by-func, not one per instruction sampled.
 *
 * Only the table the GNU linkers (and lld) write is read: version 1, a
 * count in a fixed-size encoding, entries as pairs of signed 32-bit
 * offsets from the header (DW_EH_PE_datarel | DW_EH_PE_sdata4). Anything
 * else leaves the file without the list: its frames stay per address. The
 * file is another user's: every size is checked against the segment, the
 * file and the budget before anything is allocated.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sym/uelf_priv.h"

#define EH_HDR_VERSION 1
#define EH_TABLE_ENC   0x3b	  /* DW_EH_PE_datarel | DW_EH_PE_sdata4 */
#define EH_FSTARTS_MAX (4u << 20) /* functions listed at most */
#define EH_HDR_HEAD    4	  /* version and the three encodings */
#define EH_ENC_OMIT    0xff

/* the size of a value encoded as @enc (its format, the low four bits), 0: not one read here */
static unsigned int enc_size(uint8_t enc, bool is64)
{
	switch (enc & 0x0f) {
	case 0x00: /* DW_EH_PE_absptr */
		return is64 ? 8 : 4;
	case 0x02: /* udata2 */
	case 0x0a: /* sdata2 */
		return 2;
	case 0x03: /* udata4 */
	case 0x0b: /* sdata4 */
		return 4;
	case 0x04: /* udata8 */
	case 0x0c: /* sdata8 */
		return 8;
	}
	return 0;
}

static int cmp_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? -1 : a > b;
}

int uelf_add_fstarts(struct rd *r, struct uelf *e)
{
	const struct uelf_load *h = &r->ehhdr;
	uint8_t head[EH_HDR_HEAD + 16], *raw;
	unsigned int ptr_sz, cnt_sz, pos, i;
	uint64_t count = 0;
	size_t len, n;
	bool sorted = true;
	int err;

	if (h->filesz < EH_HDR_HEAD)
		return 0;
	len = h->filesz < sizeof(head) ? (size_t)h->filesz : sizeof(head);
	raw = uelf_src_get(r, h->off, len, &err);
	if (!raw)
		return err; /* past the file's end, or the budget: no list */
	memcpy(head, raw, len);
	uelf_src_put(r, raw, len);
	ptr_sz = enc_size(head[1], r->is64);
	cnt_sz = enc_size(head[2], r->is64);
	if (head[0] != EH_HDR_VERSION || head[1] == EH_ENC_OMIT || head[3] != EH_TABLE_ENC ||
	    !ptr_sz || !cnt_sz || (head[2] & 0x70) || EH_HDR_HEAD + ptr_sz + cnt_sz > len)
		return 0;
	pos = EH_HDR_HEAD + ptr_sz;
	for (i = 0; i < cnt_sz; i++)
		count |= (uint64_t)head[pos + i] << (8 * i);
	pos += cnt_sz;
	if (!count || count > EH_FSTARTS_MAX || count > (h->filesz - pos) / 8)
		return 0;
	n = (size_t)count;
	err = uelf_take(r->a, n * sizeof(*e->fstarts));
	if (err < 0)
		return err;
	raw = uelf_src_get(r, h->off + pos, n * 8, &err);
	e->fstarts = raw ? malloc(n * sizeof(*e->fstarts)) : NULL;
	if (!e->fstarts) {
		uelf_src_put(r, raw, n * 8);
		uelf_give(r->a, n * sizeof(*e->fstarts));
		return raw ? -ENOMEM : err;
	}
	for (i = 0; i < n; i++) {
		int32_t loc;

		memcpy(&loc, raw + (size_t)i * 8, sizeof(loc));
		e->fstarts[i] = h->vaddr + (uint64_t)(int64_t)loc;
		if (i && e->fstarts[i] < e->fstarts[i - 1])
			sorted = false;
	}
	uelf_src_put(r, raw, n * 8);
	/* the linker sorts it (the unwinder binary-searches it); another file may not be */
	if (!sorted)
		qsort(e->fstarts, n, sizeof(*e->fstarts), cmp_u64);
	e->nfstarts = n;
	return 0;
}
