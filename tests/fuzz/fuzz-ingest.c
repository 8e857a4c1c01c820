/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-ingest.c - the whole hot path (page walk, attribution, stack ids,
 * deferred resolution, generations) on arbitrary input.
 *
 * Byte 0: bit 0 stackmap mode (kernel_stack records count as fallbacks),
 * bit 1 defer id resolution, bit 2 start a new generation half way, bit 3
 * take the event formats from the next 5 bytes (offsets of common_pid,
 * kernel_stack's size (0xff: none) and caller, stack_id's stack_id, and
 * the long size: bit 0 of the fifth byte 4 else 8): records are then
 * read through field offsets anywhere in 0..254, as a damaged or hostile
 * format would put them (evfmt refuses what no record can hold, ingest
 * must still never read past a record), bit 4 weights (off-CPU pairs on
 * the first event, a field on the second), bit 5 user stacks on (-u: kernel
 * stacks wait for their user_stack record), bit 6 hand the records in one by
 * one, each in a buffer of its own size (as replay does), bit 7
 * build the pages from a script (the rest of the input) instead of taking
 * the bytes as raw pages. Script bytes: 'e' event, 'E' other event, 'k'+n a
 * kernel stack of n%40 frames, 'i'+b a stack id b, 'm'+b map id b to a
 * stack, 'u'+n a user stack of n%9 frames, 'p' next page. Invariants: every counted hit is in the table, no
 * more hits than records.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/ingest.h"
#include "pagegen.h"
#include "core/ringbuf.h"
#include "core/stack_table.h"
#include "sym/usym.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool by_record;
static struct evfmt *fmt;

static void feed(struct ingest *ing, const uint8_t *p, size_t len, unsigned int slot)
{
	struct ringbuf_page pg;
	struct ringbuf_event ev;

	if (!by_record) {
		ingest_page(ing, slot % 2, slot % 2, p, len);
		return;
	}
	/* each record in a buffer of its own size, as replay hands them in:
	 * a field read past a record's end is out of bounds here */
	if (ringbuf_page_init(&pg, p, len, &fmt->layout) < 0)
		return;
	while (ringbuf_page_next(&pg, &ev) > 0) {
		uint8_t *copy = malloc(ev.size ? ev.size : 1);

		if (!copy)
			return;
		memcpy(copy, ev.data, ev.size);
		ingest_record(ing, slot % 2, slot % 2, copy, ev.size, 0);
		free(copy);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* allocated once: an ingest costs a 512 KiB pid bitmap */
	static struct stack_table *t;
	static struct ingest *ing;
	static struct usym *usym;
	struct pagegen pg;
	unsigned int slot = 0;
	uint64_t delta;
	uint8_t mode;
	size_t i;

	if (size < 1)
		return 0;
	if (!fmt) {
		fmt = malloc(sizeof(*fmt));
		if (!fmt)
			return 0;
		pagegen_init_fmt(fmt);
		t = stack_table_new();
		ing = ingest_new(fmt, t, 2);
		usym = usym_new("/nonexistent-proc"); /* tokens only: no process is read */
		if (!t || !ing || !usym)
			__builtin_trap();
	}
	/* a clean slate, as after a reset */
	ingest_new_generation(ing);
	ingest_forget_waiting(ing);
	stack_table_clear(t);
	memset(ingest_stats(ing), 0, sizeof(struct ingest_stats));
	mode = data[0];
	by_record = mode & 0x40;
	ingest_configure(ing, &(struct ingest_config){ .stackmap = mode & 1, .defer = mode & 2 });
	ingest_set_user(ing, (mode & 0x20) ? usym : NULL);
	{
		/* bit 4: weights, off-CPU time on the first event, a field of the second */
		static const struct ingest_offcpu oc = {
			.event = 0,
			.prev_state = { .offset = 32, .size = 8 },
			.next_pid = { .offset = 56, .size = 4 },
		};
		/* an odd size: the second event is the wakeup, the time split */
		static const struct ingest_offcpu ocw = {
			.event = 0,
			.prev_state = { .offset = 32, .size = 8 },
			.next_pid = { .offset = 56, .size = 4 },
			.wake = true,
			.wake_event = 1,
			.wake_pid = { .offset = 24, .size = 4 },
			.split = true,
			.blocked_event = 2,
			.runq_event = 3,
		};
		static const struct evfmt_field w = { .offset = 32, .size = 8 };
		bool weighted = mode & 0x10;

		if (stack_table_set_weighted(t, weighted) < 0)
			__builtin_trap(); /* the table was cleared: it must accept */
		ingest_set_offcpu(ing, weighted ? (size & 1) ? &ocw : &oc : NULL);
		ingest_forget_offcpu(ing);
		ingest_set_weight(ing, 1, weighted ? &w : NULL);
	}
	pagegen_init_fmt(fmt);
	if ((mode & 8) && size >= 6) {
		fmt->pid_off = data[1];
		fmt->kstack_size_off = data[2] == 0xff ? -1 : data[2];
		fmt->kstack_caller_off = data[3];
		fmt->stackid_off = data[4];
		fmt->layout.long_size = (data[5] & 1) ? 4 : 8;
		data += 5;
		size -= 5;
	}

	if (mode & 0x80) {
		pagegen_start(&pg, 1);
		for (i = 1; i < size; i++) {
			uint64_t ips[40];
			unsigned int n, j;

			if (!pagegen_room(&pg, 16 + 8 * 40 + 64)) {
				pagegen_finish(&pg, 0);
				feed(ing, pg.buf, pg.len, slot++);
				pagegen_start(&pg, 1);
			}
			switch (data[i]) {
			case 'e':
				pagegen_event(&pg, PG_EVENT_TYPE, (int32_t)(i % 5));
				break;
			case 'E':
				pagegen_event(&pg, PG_EVENT2_TYPE, (int32_t)(i % 3));
				break;
			case 'k':
				n = i + 1 < size ? data[++i] % 40 : 1;
				for (j = 0; j < n; j++)
					ips[j] = 0xffffffff81000000ull + j * 16 + (data[i] & 7);
				pagegen_kstack(&pg, (int32_t)(i % 5), ips, (int)n);
				break;
			case 'u':
				n = i + 1 < size ? data[++i] % 9 : 1;
				for (j = 0; j < n; j++)
					ips[j] = 0x400000ull + j * 16 + (data[i] & 7);
				pagegen_ustack(&pg, (int32_t)(i % 5), (uint32_t)(i % 4), ips, (int)n);
				break;
			case 'i':
				pagegen_stackid(&pg, (int32_t)(i % 5), i + 1 < size ? data[++i] : 0);
				break;
			case 'm':
				ips[0] = 0xffffffff81000000ull + (i + 1 < size ? data[i + 1] : 0);
				ingest_map_put(ing, i + 1 < size ? data[++i] : 0, ips, 1, false);
				break;
			case 'p':
				pagegen_finish(&pg, (i & 1) ? 1ull << 31 : 0);
				feed(ing, pg.buf, pg.len, slot++);
				pagegen_start(&pg, 1);
				break;
			case 's':
				ingest_offcpu_settle(ing);
				break;
			}
		}
		pagegen_finish(&pg, 0);
		feed(ing, pg.buf, pg.len, slot++);
	} else {
		for (i = 1; i < size; i += PG_SIZE) {
			size_t len = size - i < PG_SIZE ? size - i : PG_SIZE;

			if ((mode & 4) && i > size / 2)
				ingest_new_generation(ing);
			feed(ing, data + i, len, slot++);
		}
	}
	if (ingest_needs_map(ing) || ingest_pending(ing))
		ingest_resolve(ing);
	ingest_flush_user(ing);
	ingest_flush_user(ing); /* what still waits for a user_stack is counted */
	ingest_offcpu_settle(ing);
	stack_table_tick(t);
	if (stack_table_hits(t, &delta) != ingest_stats(ing)->events)
		__builtin_trap();
	if (ingest_stats(ing)->events > ingest_stats(ing)->records)
		__builtin_trap();
	return 0;
}
