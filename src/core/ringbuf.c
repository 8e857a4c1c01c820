// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ringbuf.c - see ringbuf.h. No allocation, no libc calls on the hot path.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/ringbuf.h"

#define RB_TYPE_PADDING	    29
#define RB_TYPE_TIME_EXTEND 30
#define RB_TYPE_TIME_STAMP  31
#define RB_TS_SHIFT	    27
#define RB_TS_MASK	    ((1u << RB_TS_SHIFT) - 1)
#define RB_COMMIT_MASK	    ((1u << 27) - 1)
#define RB_MISSED_EVENTS    (1ull << 31)
#define RB_MISSED_STORED    (1ull << 30)

/*
 * Find "field: <type> <name>;	offset:N;	size:N;" in header_page text.
 * Returns 0 and fills offset/size, or -1.
 */
static int rb_header_field(const char *text, const char *name, unsigned int *ret_off,
			   unsigned int *ret_size)
{
	const char *line = text;
	size_t nlen = strlen(name);

	while (line && *line) {
		const char *end = strchr(line, '\n');
		const char *semi, *p;
		size_t len = end ? (size_t)(end - line) : strlen(line);

		semi = memchr(line, ';', len);
		if (semi && semi - line > (long)nlen && !memcmp(semi - nlen, name, nlen) &&
		    (semi[-(long)nlen - 1] == ' ' || semi[-(long)nlen - 1] == '\t')) {
			unsigned int off, size;

			p = strstr(semi, "offset:");
			if (p && p < line + len && sscanf(p, "offset:%u;", &off) == 1) {
				p = strstr(p, "size:");
				if (p && p < line + len && sscanf(p, "size:%u;", &size) == 1) {
					*ret_off = off;
					*ret_size = size;
					return 0;
				}
			}
		}
		line = end ? end + 1 : NULL;
	}
	return -1;
}

int ringbuf_layout_parse(const char *text, bool big_endian, struct ringbuf_layout *ret)
{
	unsigned int ts_off, ts_size, commit_off, commit_size, data_off, data_size;

	if (!text || rb_header_field(text, "timestamp", &ts_off, &ts_size) ||
	    rb_header_field(text, "commit", &commit_off, &commit_size) ||
	    rb_header_field(text, "data", &data_off, &data_size))
		return -EBADMSG;
	if (ts_off != 0 || ts_size != 8 || commit_off != 8 ||
	    (commit_size != 4 && commit_size != 8) || data_off != 8 + commit_size ||
	    data_size == 0 || data_size > (1u << 27))
		return -EBADMSG;
	ret->long_size = commit_size;
	ret->big_endian = big_endian;
	ret->data_offset = data_off;
	ret->subbuf_size = data_off + data_size;
	return 0;
}

uint32_t ringbuf_page_commit(const struct ringbuf_layout *l, const void *page)
{
	return (uint32_t)(ringbuf_read_long(l, (const uint8_t *)page + 8) & RB_COMMIT_MASK);
}

int ringbuf_page_init(struct ringbuf_page *pg, const void *buf, size_t len,
		      const struct ringbuf_layout *layout)
{
	const uint8_t *b = buf;
	uint64_t flags;
	uint32_t commit;

	memset(pg, 0, sizeof(*pg));
	pg->layout = layout;
	if (len < layout->data_offset)
		return -EBADMSG;
	pg->ts_base = ringbuf_read_u64(layout, b);
	flags = ringbuf_read_long(layout, b + 8);
	commit = (uint32_t)(flags & RB_COMMIT_MASK);
	if (commit > len - layout->data_offset)
		return -EBADMSG;
	pg->buf = b;
	pg->pos = layout->data_offset;
	pg->end = layout->data_offset + commit;
	pg->ts = pg->ts_base;
	if (flags & RB_MISSED_EVENTS) {
		pg->missed = -1;
		if ((flags & RB_MISSED_STORED) && len - pg->end >= layout->long_size) {
			uint64_t n = ringbuf_read_long(layout, b + pg->end);

			pg->missed = n ? (long long)n : -1;
		}
	}
	return 0;
}

int ringbuf_page_next(struct ringbuf_page *pg, struct ringbuf_event *ret)
{
	const struct ringbuf_layout *l = pg->layout;

	while (pg->end - pg->pos >= 4) {
		const uint8_t *p = pg->buf + pg->pos;
		uint32_t hdr = ringbuf_read_u32(l, p);
		uint32_t type_len, delta, len, word;

		if (l->big_endian) {
			type_len = hdr >> 27;
			delta = hdr & RB_TS_MASK;
		} else {
			type_len = hdr & 0x1f;
			delta = hdr >> 5;
		}
		if (type_len <= 28 && type_len > 0) {
			len = type_len * 4;
			if (len > pg->end - pg->pos - 4)
				goto bad;
			pg->ts += delta;
			pg->pos += 4 + len;
			ret->ts = pg->ts;
			ret->data = p + 4;
			ret->size = len;
			return 1;
		}
		if (type_len == RB_TYPE_PADDING && delta == 0) {
			/* a null event: nothing follows on this page */
			pg->pos = pg->end;
			return 0;
		}
		if (pg->end - pg->pos < 8)
			goto bad;
		word = ringbuf_read_u32(l, p + 4);
		switch (type_len) {
		case 0:
			/* word counts itself: payload is word - 4, 4-byte aligned */
			if (word < 4 || ((word - 4 + 3) & ~3u) > pg->end - pg->pos - 8)
				goto bad;
			len = (word - 4 + 3) & ~3u;
			pg->ts += delta;
			pg->pos += 8 + len;
			ret->ts = pg->ts;
			ret->data = p + 8;
			ret->size = len;
			return 1;
		case RB_TYPE_PADDING:
			/* discarded event or tail padding: word = bytes after the header */
			if (word > pg->end - pg->pos - 4)
				goto end;
			pg->pos += 4 + (word ? word : 4);
			break;
		case RB_TYPE_TIME_EXTEND:
			pg->ts += ((uint64_t)word << RB_TS_SHIFT) + delta;
			pg->pos += 8;
			break;
		case RB_TYPE_TIME_STAMP:
			/* absolute; keep the page's upper bits (the kernel stores 59) */
			pg->ts = (pg->ts & ~((1ull << 59) - 1)) |
				 (((uint64_t)word << RB_TS_SHIFT) + delta);
			pg->pos += 8;
			break;
		}
	}
	return 0;
end:
	pg->pos = pg->end;
	return 0;
bad:
	pg->pos = pg->end;
	return -EBADMSG;
}
