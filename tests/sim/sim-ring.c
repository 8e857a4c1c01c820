// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sim-ring.c - per-CPU ring buffers made of real ftrace sub-buffer pages.
 *
 * A page is kept in the exact layout trace_pipe_raw hands out:
 *
 *	u64 timestamp		time of the first event on the page
 *	u64 commit		data bytes; bit 31: events were missed before
 *				this page, bit 30: their count is stored as a
 *				u64 right after the data
 *	data[4080]		records
 *
 * Each record starts with a 4-byte header {type_len:5, time_delta:27}:
 * type_len 1..28 is a data record of type_len * 4 bytes, type_len 0 is
 * followed by a u32 length (payload + 4) for bigger ones, 29 is padding,
 * 30 a time extend (delta bits 27..58 in the next word) and 31 an absolute
 * time stamp (same encoding, absolute time).  The first record on a page has
 * delta 0 (the page timestamp is its time).  When a record does not fit, the
 * rest of the page becomes one padding record, as rb_reset_tail() does.
 *
 * The ring keeps at most nr_pages pages with data.  In overwrite mode a
 * writer that needs a new page drops the oldest one: its entries count as
 * overrun and the next page handed to a reader carries the missed-events
 * flag (and the count, when there is room after the data).
 *
 * Reads follow ring_buffer_read_page(): a page the writer has left and
 * nobody read is handed out whole, its commit ending where the padding
 * starts (real_end); a page the writer is still on is copied, the records
 * written so far, and stays the writer's: the next read returns only what
 * came since (nothing: EAGAIN), and once the writer has moved on, the rest
 * of the page, its padding included.  A page read in part is the kernel's
 * reader page: out of the ring, never overwritten; the missed-events flag
 * goes on the next page taken from the ring.  poll() waits for
 * buffer_percent of the pages (ring_watermark(), rb_watermark_hit()).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define RB_MAX_SMALL_DATA	(28 * 4)

static void put_u32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void put_u64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static uint32_t event_header(unsigned int type_len, uint32_t delta)
{
	return (type_len & 0x1f) | (delta << 5);
}

/**
 * ring_event_len() - bytes a record with @payload bytes of data takes
 * @payload: payload size
 */
unsigned int ring_event_len(unsigned int payload)
{
	unsigned int len = (payload + 3) & ~3U;

	return len > RB_MAX_SMALL_DATA ? 8 + len : 4 + len;
}

static unsigned int pages_for(unsigned int size_kb)
{
	unsigned int n = (size_kb * 1024U + SIM_PAGE_DATA - 1) / SIM_PAGE_DATA;

	return n < 2 ? 2 : n;
}

void ring_init(struct sim_ring *r, unsigned int size_kb, struct sim_truth *truth)
{
	memset(r, 0, sizeof(*r));
	r->size_kb = size_kb;
	r->nr_pages = pages_for(size_kb);
	r->overwrite = true;
	r->truth = truth;
	r->percent = 50;
}

/*
 * Drop @pg (the head, or the page after a head read in part) with what is
 * unread on it; @lost says whether it was overwritten or cleared.
 */
static void drop_page(struct sim_ring *r, struct sim_page *pg, bool lost)
{
	struct sim_page **pp = &r->head, *prev = NULL;
	unsigned int i;

	while (*pp && *pp != pg) {
		prev = *pp;
		pp = &(*pp)->next;
	}
	if (!*pp)
		return;
	*pp = pg->next;
	if (r->tail == pg) {
		r->tail = prev;
		r->tail_open = false;
	}
	r->npages--;
	for (i = pg->read_truth; i < pg->ntruth; i++) {
		if (lost)
			r->truth[pg->truth[i]].lost++;
		else
			r->truth[pg->truth[i]].cleared++;
	}
	if (lost) {
		r->overrun += pg->entries - pg->read_entries;
		r->lost_pending += pg->entries - pg->read_entries;
	}
	free(pg->truth);
	free(pg);
}

static void drop_head(struct sim_ring *r, bool lost)
{
	if (r->head)
		drop_page(r, r->head, lost);
}

/* the head is the kernel's reader page: read in part, out of the ring */
static bool reader_page(const struct sim_ring *r)
{
	return r->head && r->head->read_off;
}

/**
 * ring_clear() - empty the ring and zero its counters, like
 * ring_buffer_reset_cpu(); what was unread counts as "cleared" in the truth
 * @r: ring
 */
void ring_clear(struct sim_ring *r)
{
	while (r->head)
		drop_head(r, false);
	r->tail = NULL;
	r->tail_open = false;
	r->overrun = 0;
	r->lost_pending = 0;
	r->read_entries = 0;
	r->dropped = 0;
}

void ring_resize(struct sim_ring *r, unsigned int size_kb)
{
	ring_clear(r);
	r->size_kb = size_kb;
	r->nr_pages = pages_for(size_kb);
}

void ring_free(struct sim_ring *r)
{
	ring_clear(r);
}

/* Finish the page being written; @pad fills the rest with padding. */
static void close_tail(struct sim_ring *r, bool pad)
{
	struct sim_page *pg = r->tail;
	unsigned int rem;

	if (!pg || !r->tail_open)
		return;
	r->tail_open = false;
	rem = SIM_PAGE_DATA - pg->tail;
	if (!pad || rem < 4)
		return;
	pg->real_end = pg->tail;
	if (rem < 8) {
		/* No room for a padding record: marker beyond commit only. */
		put_u32(pg->raw + SIM_PAGE_HDR + pg->tail, event_header(SIM_TYPE_PADDING, 0));
		return;
	}
	/* A discarded-event padding that runs to the end of the page. */
	put_u32(pg->raw + SIM_PAGE_HDR + pg->tail, event_header(SIM_TYPE_PADDING, 1));
	put_u32(pg->raw + SIM_PAGE_HDR + pg->tail + 4, rem - 4);
	pg->tail = SIM_PAGE_DATA;
}

static int open_page(struct sim_ring *r, uint64_t ts)
{
	struct sim_page *pg;

	if (r->npages - reader_page(r) >= r->nr_pages) {
		if (!r->overwrite) {
			r->dropped++;
			return -ENOSPC;
		}
		/* the oldest page of the ring: never the reader's */
		drop_page(r, reader_page(r) ? r->head->next : r->head, true);
	}
	pg = calloc(1, sizeof(*pg));
	if (!pg)
		return -ENOMEM;
	pg->ts_first = ts;
	pg->ts_last = ts;
	if (r->tail)
		r->tail->next = pg;
	else
		r->head = pg;
	if (!r->head)
		r->head = pg;
	r->tail = pg;
	r->tail_open = true;
	r->npages++;
	return 0;
}

static void page_note_truth(struct sim_page *pg, int64_t idx)
{
	uint32_t *n;

	if (idx < 0)
		return;
	if (pg->ntruth == pg->truth_cap) {
		pg->truth_cap = pg->truth_cap ? pg->truth_cap * 2 : 16;
		n = realloc(pg->truth, pg->truth_cap * sizeof(*n));
		if (!n)
			abort();
		pg->truth = n;
	}
	pg->truth[pg->ntruth++] = (uint32_t)idx;
}

/**
 * ring_write() - append one record
 * @r: ring
 * @ts: its time (never before the previous record's)
 * @payload: the entry (common fields first)
 * @len: payload bytes
 * @truth_idx: truth counter to bump (a stack record), or -1
 * @abs_ts: put an absolute time stamp (type 31) before it instead of a delta
 *
 * Return: 0, or -ENOSPC when the ring is full in non-overwrite mode.
 */
int ring_write(struct sim_ring *r, uint64_t ts, const void *payload, unsigned int len,
	       int64_t truth_idx, bool abs_ts)
{
	unsigned int need = ring_event_len(len);
	unsigned int ext = 0;
	uint64_t delta = 0;
	struct sim_page *pg;
	uint8_t *p;
	int ret;

	if (ts < r->last_ts)
		ts = r->last_ts;
	if (r->tail_open) {
		delta = ts - r->tail->ts_last;
		if (abs_ts || delta > SIM_TS_MASK)
			ext = 8;
		if (r->tail->tail + ext + need > SIM_PAGE_DATA) {
			close_tail(r, true);
			ext = 0;
		}
	}
	if (!r->tail_open) {
		ret = open_page(r, ts);
		if (ret)
			return ret;
		delta = 0;
		ext = 0;
	}
	pg = r->tail;
	p = pg->raw + SIM_PAGE_HDR + pg->tail;
	if (ext) {
		uint64_t v = abs_ts ? ts : delta;

		put_u32(p, event_header(abs_ts ? SIM_TYPE_TIME_STAMP : SIM_TYPE_TIME_EXTEND,
					v & SIM_TS_MASK));
		put_u32(p + 4, (uint32_t)(v >> SIM_TS_SHIFT));
		p += 8;
		pg->tail += 8;
		delta = 0;
	}
	if (len > RB_MAX_SMALL_DATA) {
		/* Big record: type_len 0, then the length word. */
		put_u32(p, event_header(0, (uint32_t)delta));
		put_u32(p + 4, need - 4);
		memcpy(p + 8, payload, len);
	} else {
		put_u32(p, event_header((need - 4) / 4, (uint32_t)delta));
		memcpy(p + 4, payload, len);
	}
	pg->tail += need;
	pg->entries++;
	pg->ts_last = ts;
	r->last_ts = ts;
	page_note_truth(pg, truth_idx);
	if (truth_idx >= 0)
		r->truth[truth_idx].written++;
	return 0;
}

/**
 * ring_would_drop() - whether a record of @len bytes would be refused
 * (non-overwrite mode, every page full), so that callers can leave the
 * stack map alone exactly as the kernel does when a reservation fails
 * @r: ring
 * @len: payload bytes
 */
bool ring_would_drop(const struct sim_ring *r, unsigned int len)
{
	if (r->overwrite || r->npages - reader_page(r) < r->nr_pages)
		return false;
	if (!r->tail_open)
		return true;
	return r->tail->tail + 8 + ring_event_len(len) > SIM_PAGE_DATA;
}

/* the writer is on @pg */
static bool writing(const struct sim_ring *r, const struct sim_page *pg)
{
	return pg == r->tail && r->tail_open;
}

/* a page read to its end that the writer has left: the reader takes the next */
static void skip_read(struct sim_ring *r)
{
	while (r->head && !writing(r, r->head) && r->head->read_off &&
	       r->head->read_off >= r->head->tail) {
		r->head->ntruth = r->head->read_truth;
		r->head->entries = r->head->read_entries;
		drop_head(r, false);
	}
}

bool ring_empty(const struct sim_ring *r)
{
	const struct sim_page *pg = r->head;

	/* a page read to its end: the writer's, or left with nothing after */
	while (pg && pg->read_off && pg->read_off >= pg->tail) {
		if (writing(r, pg))
			return true;
		pg = pg->next;
	}
	return !pg;
}

/**
 * ring_watermark() - whether poll() reports the ring readable, as
 * ring_buffer_poll_wait() with the instance's buffer_percent: any data at
 * 0; else not while the reader's page is the writer's, and only once the
 * pages written and not taken by the reader, plus one, reach that share
 * of the ring (rb_watermark_hit(), full_hit())
 * @r: ring
 */
bool ring_watermark(const struct sim_ring *r)
{
	unsigned int dirty;

	if (ring_empty(r))
		return false;
	if (!r->percent)
		return true;
	if (writing(r, r->head))
		return false;
	dirty = r->npages - reader_page(r);
	return (uint64_t)(dirty + 1) * 100 >= (uint64_t)r->percent * r->nr_pages;
}

/**
 * ring_read() - a read of trace_pipe_raw (ring_buffer_read_page())
 * @r: ring
 * @page: receives SIM_PAGE_SIZE bytes
 *
 * A page the writer has left and nobody read is handed out whole, up to
 * its padding; of a page read in part, the rest (its padding included); of
 * the page the writer is on, the records written since the last read, the
 * page staying the writer's. The missed-events bits are set when pages
 * were overwritten since the last read.
 *
 * Return: 1 when a page was copied, 0 when there was nothing to read.
 */
int ring_read(struct sim_ring *r, uint8_t *page)
{
	struct sim_page *pg;
	unsigned int from, end, i;
	uint64_t commit;
	bool busy;

	skip_read(r);
	pg = r->head;
	if (!pg || ring_empty(r))
		return 0;
	busy = writing(r, pg);
	from = pg->read_off;
	end = !busy && !from && pg->real_end ? pg->real_end : pg->tail;
	commit = end - from;
	memset(page, 0, SIM_PAGE_SIZE);
	memcpy(page + SIM_PAGE_HDR, pg->raw + SIM_PAGE_HDR + from, end - from);
	if (r->lost_pending && !from) {
		if (SIM_PAGE_DATA - (end - from) >= 8) {
			put_u64(page + SIM_PAGE_HDR + (end - from), r->lost_pending);
			commit |= SIM_MISSED_STORED;
		}
		commit |= SIM_MISSED_EVENTS;
		r->lost_pending = 0;
	}
	put_u64(page, from ? pg->ts_read : pg->ts_first);
	put_u64(page + 8, commit);

	for (i = pg->read_truth; i < pg->ntruth; i++)
		r->truth[pg->truth[i]].read++;
	r->read_entries += pg->entries - pg->read_entries;
	pg->read_truth = pg->ntruth;
	pg->read_entries = pg->entries;
	if (busy) {
		/* the writer goes on with this page: the next read starts here */
		pg->read_off = pg->tail;
		pg->ts_read = pg->ts_last;
		return 1;
	}
	pg->read_off = pg->tail;
	drop_head(r, false);
	return 1;
}

/**
 * ring_stats() - per_cpu/cpuN/stats text
 * @r: ring
 * @now: current trace clock (ns)
 * @sb: output
 */
void ring_stats(const struct sim_ring *r, uint64_t now, struct sbuf *sb)
{
	const struct sim_page *pg;
	uint64_t entries = 0, bytes = 0, oldest = 0;

	for (pg = r->head; pg; pg = pg->next) {
		entries += pg->entries - pg->read_entries;
		bytes += pg->tail - pg->read_off;
	}
	if (r->head)
		oldest = r->head->ts_first;
	sbuf_printf(sb, "entries: %llu\n", (unsigned long long)entries);
	sbuf_printf(sb, "overrun: %llu\n", (unsigned long long)r->overrun);
	sbuf_printf(sb, "commit overrun: 0\n");
	sbuf_printf(sb, "bytes: %llu\n", (unsigned long long)bytes);
	sbuf_printf(sb, "oldest event ts: %5llu.%06lu\n",
		    (unsigned long long)(oldest / 1000000000ULL),
		    (unsigned long)(oldest % 1000000000ULL / 1000));
	sbuf_printf(sb, "now ts: %5llu.%06lu\n", (unsigned long long)(now / 1000000000ULL),
		    (unsigned long)(now % 1000000000ULL / 1000));
	sbuf_printf(sb, "dropped events: %llu\n", (unsigned long long)r->dropped);
	sbuf_printf(sb, "read events: %llu\n", (unsigned long long)r->read_entries);
}
