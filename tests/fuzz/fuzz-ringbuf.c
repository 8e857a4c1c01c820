/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-ringbuf.c - ringbuf_page_init()/ringbuf_page_next() on arbitrary
 * pages, written against src/core/ringbuf.h.
 *
 * Byte 0 picks the layout: bit 0 long_size 8 (else 4), bit 1 big-endian,
 * bits 2-3 the sub-buffer size (page length, 4096, 64, 65536), bit 7 feeds
 * the rest to ringbuf_layout_parse() as header_page text instead. Every
 * event returned must lie inside the page; the walk must end.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/ringbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned int subbufs[] = { 0, 4096, 64, 65536 };
	struct ringbuf_layout layout;
	struct ringbuf_page pg;
	struct ringbuf_event ev;
	const uint8_t *page;
	size_t len;
	uint64_t sum = 0;
	unsigned int steps = 0;
	int r;

	if (size < 1)
		return 0;
	page = data + 1;
	len = size - 1;

	if (data[0] & 0x80) {
		char *t = malloc(len + 1);

		if (!t)
			return 0;
		memcpy(t, page, len);
		t[len] = '\0';
		if (ringbuf_layout_parse(t, data[0] & 2, &layout) == 0 &&
		    layout.long_size != 4 && layout.long_size != 8)
			__builtin_trap();
		free(t);
		return 0;
	}

	layout.long_size = (data[0] & 1) ? 8 : 4;
	layout.big_endian = (data[0] & 2) != 0;
	layout.data_offset = 8 + layout.long_size;
	layout.subbuf_size = subbufs[(data[0] >> 2) & 3];
	if (!layout.subbuf_size)
		layout.subbuf_size = (unsigned int)(len > 1u << 20 ? 1u << 20 : len);

	if (ringbuf_page_init(&pg, page, len, &layout) < 0)
		return 0;
	while ((r = ringbuf_page_next(&pg, &ev)) == 1) {
		if (ev.data < page || ev.data > page + len || ev.size > (size_t)(page + len - ev.data))
			__builtin_trap();
		for (uint32_t i = 0; i < ev.size; i++)
			sum += ev.data[i];
		if (ev.size >= 2)
			sum += ringbuf_read_u16(&layout, ev.data);
		if (ev.size >= 4)
			sum += ringbuf_read_u32(&layout, ev.data);
		if (ev.size >= 8)
			sum += ringbuf_read_u64(&layout, ev.data) + ringbuf_read_long(&layout, ev.data);
		sum += ev.ts;
		/* each event takes at least 4 bytes of the page */
		if (++steps > len / 4 + 1)
			__builtin_trap();
	}
	if (r != 0 && r != -74 /* EBADMSG */)
		__builtin_trap();
	(void)sum;
	return 0;
}
