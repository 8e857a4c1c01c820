/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ringbuf.h - walk ftrace ring-buffer sub-buffer pages.
 *
 * A page read from per_cpu/cpuN/trace_pipe_raw is:
 *
 *	u64   timestamp          base time of the page
 *	long  commit             bytes of data; bit 31 = events were missed
 *	                         before this page, bit 30 = the count of missed
 *	                         events is stored after the data
 *	u8    data[commit]       event headers and payloads
 *
 * Each event starts with a u32 header {type_len:5, time_delta:27} (the
 * bitfield order follows the kernel's byte order). type_len 1..28 is a data
 * event of type_len*4 bytes; 0 is a data event whose length is in the next
 * u32; 29 is padding (or a discarded event), 30 a time extend, 31 an absolute
 * time stamp. The walker decodes all of them without allocating: it is the
 * hot path of stacktop (see doc/performance.md).
 *
 * The layout (size of `long`, byte order, page size) comes from
 * events/header_page; ringbuf_layout_parse() reads it.
 */
#ifndef STACKTOP_RINGBUF_H
#define STACKTOP_RINGBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * struct ringbuf_layout - how the kernel lays out a sub-buffer page
 * @long_size: 4 or 8, size of the commit field and of the stored missed count
 * @big_endian: pages are big-endian
 * @data_offset: offset of the first event (8 + @long_size)
 * @subbuf_size: bytes in one sub-buffer page (header included)
 */
struct ringbuf_layout {
	unsigned int long_size;
	bool big_endian;
	unsigned int data_offset;
	unsigned int subbuf_size;
};

/**
 * ringbuf_layout_parse() - derive the page layout from events/header_page
 * @text: contents of events/header_page (NUL-terminated)
 * @big_endian: byte order of the kernel (tracefs does not say it)
 * @ret: filled on success
 *
 * Return: 0, or -EBADMSG when the text does not describe a page header.
 */
int ringbuf_layout_parse(const char *text, bool big_endian, struct ringbuf_layout *ret);

/**
 * ringbuf_page_commit() - the data bytes a page says it holds (its commit
 * field without the missed-events flags)
 * @l: layout
 * @page: the page as read (at least @l->data_offset bytes)
 */
uint32_t ringbuf_page_commit(const struct ringbuf_layout *l, const void *page);

/**
 * struct ringbuf_event - one data event found in a page
 * @ts: absolute time stamp in trace-clock units
 * @data: payload (starts with the u16 common_type); points into the page
 * @size: payload bytes (may include up to 3 bytes of alignment padding)
 */
struct ringbuf_event {
	uint64_t ts;
	const uint8_t *data;
	uint32_t size;
};

/**
 * struct ringbuf_page - cursor over one page; fields are private except
 * @missed and @ts_base
 * @missed: events lost before this page: 0 none, -1 some (count unknown),
 *          >0 the count
 * @ts_base: the page's time stamp
 */
struct ringbuf_page {
	const uint8_t *buf;
	uint32_t pos;
	uint32_t end;
	uint64_t ts;
	uint64_t ts_base;
	long long missed;
	const struct ringbuf_layout *layout;
};

/**
 * ringbuf_page_init() - start walking a page
 * @pg: cursor to set up
 * @buf: the page as read from trace_pipe_raw (not copied; must outlive @pg)
 * @len: bytes in @buf (a short read is allowed)
 * @layout: page layout
 *
 * Return: 0, or -EBADMSG when the header is truncated or the commit size
 * does not fit in @len.
 */
int ringbuf_page_init(struct ringbuf_page *pg, const void *buf, size_t len,
		      const struct ringbuf_layout *layout);

/**
 * ringbuf_page_next() - advance to the next data event
 * @pg: cursor
 * @ret: receives the event
 *
 * Padding, discarded events and time extends are consumed silently.
 *
 * Return: 1 when @ret holds an event, 0 at the end of the page, -EBADMSG
 * when an event runs past the committed data (the rest of the page is
 * skipped; events already returned stay valid).
 */
int ringbuf_page_next(struct ringbuf_page *pg, struct ringbuf_event *ret);

/**
 * ringbuf_swapped() - whether the trace's byte order is not this machine's
 * @l: layout
 */
static inline int ringbuf_swapped(const struct ringbuf_layout *l)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return !l->big_endian;
#else
	return l->big_endian;
#endif
}

/**
 * ringbuf_read_u16() - read a 16-bit field of a payload in the page's byte order
 * @l: layout
 * @p: field (any alignment)
 */
static inline uint16_t ringbuf_read_u16(const struct ringbuf_layout *l, const void *p)
{
	uint16_t v;

	__builtin_memcpy(&v, p, sizeof(v));
	return ringbuf_swapped(l) ? __builtin_bswap16(v) : v;
}

/**
 * ringbuf_read_u32() - read a 32-bit field in the page's byte order
 * @l: layout
 * @p: field (any alignment)
 */
static inline uint32_t ringbuf_read_u32(const struct ringbuf_layout *l, const void *p)
{
	uint32_t v;

	__builtin_memcpy(&v, p, sizeof(v));
	return ringbuf_swapped(l) ? __builtin_bswap32(v) : v;
}

/**
 * ringbuf_read_u64() - read a 64-bit field in the page's byte order
 * @l: layout
 * @p: field (any alignment)
 */
static inline uint64_t ringbuf_read_u64(const struct ringbuf_layout *l, const void *p)
{
	uint64_t v;

	__builtin_memcpy(&v, p, sizeof(v));
	return ringbuf_swapped(l) ? __builtin_bswap64(v) : v;
}

/**
 * ringbuf_read_long() - read a kernel `long` (4 or 8 bytes, per @l)
 * @l: layout
 * @p: field (any alignment)
 */
static inline uint64_t ringbuf_read_long(const struct ringbuf_layout *l, const void *p)
{
	return l->long_size == 8 ? ringbuf_read_u64(l, p) : ringbuf_read_u32(l, p);
}

#endif /* STACKTOP_RINGBUF_H */
