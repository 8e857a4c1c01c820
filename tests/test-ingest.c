// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-ingest.c - attribution of stack records to events, stack id
 * resolution and the generation rule, on pages built in memory.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ingest/ingest.h"
#include "pagegen.h"
#include "core/stack_table.h"
#include "sym/usym.h"

struct fx {
	struct evfmt fmt;
	struct stack_table *t;
	struct ingest *ing;
	struct pagegen pg;
};

/* one field of the consumer's configuration changed, the others kept */
static void set_stackmap(struct ingest *ing, bool on)
{
	struct ingest_config c = *ingest_config(ing);

	c.stackmap = on;
	ingest_configure(ing, &c);
}

static void set_self(struct ingest *ing, int pid)
{
	struct ingest_config c = *ingest_config(ing);

	c.self_pid = pid;
	ingest_configure(ing, &c);
}

static const uint64_t A[] = { 0xffffffff81001000, 0xffffffff81002000, 0xffffffff81003000 };
static const uint64_t B[] = { 0xffffffff81004000, 0xffffffff81005000 };
static const uint64_t IRQ[] = { 0xffffffff81009000 };

static int setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));

	pagegen_init_fmt(&fx->fmt);
	fx->t = stack_table_new();
	fx->ing = ingest_new(&fx->fmt, fx->t, 2);
	*state = fx;
	return fx->t && fx->ing ? 0 : -1;
}

static int teardown(void **state)
{
	struct fx *fx = *state;

	ingest_free(fx->ing);
	stack_table_free(fx->t);
	free(fx);
	return 0;
}

static struct stack *find(struct fx *fx, const uint64_t *ips, unsigned int n)
{
	size_t before = stack_table_count(fx->t);
	struct stack *s = stack_table_intern(fx->t, ips, n);

	/* interning must not have created it: it was counted before */
	assert_int_equal(stack_table_count(fx->t), before);
	return s;
}

static uint64_t hits_of(const struct stack *s, unsigned int event, int pid)
{
	const struct stack_attr *a;
	uint64_t n = 0;

	for (a = s->attrs; a; a = a->next)
		if (a->event == event && (pid < 0 || a->pid == pid))
			n += a->total;
	return n;
}

static void test_ingest_event_then_stack(void **state)
{
	struct fx *fx = *state;

	pagegen_start(&fx->pg, 100);
	pagegen_event(&fx->pg, PG_EVENT_TYPE, 10);
	pagegen_kstack(&fx->pg, 10, A, 3);
	pagegen_event(&fx->pg, PG_EVENT2_TYPE, 11);
	pagegen_kstack(&fx->pg, 11, B, 2);
	pagegen_event(&fx->pg, PG_EVENT_TYPE, 10);
	pagegen_kstack(&fx->pg, 10, A, 3);
	pagegen_finish(&fx->pg, 0);

	assert_int_equal(ingest_page(fx->ing, 0, 0, fx->pg.buf, fx->pg.len), 0);
	assert_int_equal(stack_table_count(fx->t), 2);
	assert_int_equal(find(fx, A, 3)->total, 2);
	assert_int_equal(hits_of(find(fx, A, 3), 0, 10), 2);
	assert_int_equal(hits_of(find(fx, B, 2), 1, 11), 1);
	assert_int_equal(ingest_stats(fx->ing)->events, 3);
	assert_int_equal(ingest_stats(fx->ing)->records, 6);
	assert_int_equal(ingest_stats(fx->ing)->fallbacks, 0);
}

static int func_calls;

/* the event index of a traced function: 10 + the address's last nibble */
static int func_index(void *ctx, uint64_t ip)
{
	(void)ctx;
	func_calls++;
	return ip == 0xffffffff8100beefULL ? -1 : 10 + (int)(ip & 0xf);
}

static void func_entry(struct pagegen *p, int32_t pid, uint64_t ip)
{
	uint8_t *d = pagegen_record(p, 1, pid, 24);

	memcpy(d + 8, &ip, 8);
	memset(d + 16, 0, 8);
}

/* function-tracer entries are keyed by the traced function (their ip) */
static void test_ingest_function_entries(void **state)
{
	struct fx *fx = *state;

	fx->fmt.func_type = 1;
	fx->fmt.func_ip_off = 8;
	func_calls = 0;
	ingest_configure(fx->ing, &(struct ingest_config){ .func_cb = func_index });
	pagegen_start(&fx->pg, 100);
	func_entry(&fx->pg, 10, 0xffffffff81001001ULL);
	pagegen_kstack(&fx->pg, 10, A, 3);
	func_entry(&fx->pg, 10, 0xffffffff81001002ULL);
	pagegen_kstack(&fx->pg, 10, A, 3);
	func_entry(&fx->pg, 11, 0xffffffff81001001ULL);
	pagegen_kstack(&fx->pg, 11, A, 3);
	/* an entry the session ignores keeps its stack from landing elsewhere */
	pagegen_event(&fx->pg, PG_EVENT_TYPE, 12);
	func_entry(&fx->pg, 12, 0xffffffff8100beefULL);
	pagegen_kstack(&fx->pg, 12, IRQ, 1);
	pagegen_event(&fx->pg, PG_EVENT_TYPE, 12);
	pagegen_kstack(&fx->pg, 12, B, 2);
	pagegen_finish(&fx->pg, 0);

	assert_int_equal(ingest_page(fx->ing, 0, 0, fx->pg.buf, fx->pg.len), 0);
	/* one stack, two rows of events: the function at ...001 twice, ...002 once */
	assert_int_equal(hits_of(find(fx, A, 3), 11, -1), 2);
	assert_int_equal(hits_of(find(fx, A, 3), 12, -1), 1);
	assert_int_equal(hits_of(find(fx, B, 2), 0, 12), 1);
	assert_int_equal(func_calls, 3); /* asked once per address */
	assert_int_equal(ingest_stats(fx->ing)->events, 4);
	assert_int_equal(ingest_stats(fx->ing)->orphans, 0);
	assert_int_equal(stack_table_count(fx->t), 2); /* IRQ: not counted, not interned */

	/* many functions: the map grows and keeps every answer */
	for (int i = 0; i < 600; i++) {
		pagegen_start(&fx->pg, 200);
		func_entry(&fx->pg, 10, 0xffffffff82000000ULL + (uint64_t)i * 16 + 3);
		pagegen_kstack(&fx->pg, 10, B, 2);
		pagegen_finish(&fx->pg, 0);
		assert_int_equal(ingest_page(fx->ing, 0, 0, fx->pg.buf, fx->pg.len), 0);
	}
	assert_int_equal(func_calls, 603);
	assert_int_equal(hits_of(find(fx, B, 2), 13, -1), 600);
}

/* an interrupt's event and stack land between an event and its stack */
static void test_ingest_nested_interrupt(void **state)
{
	struct fx *fx = *state;

	pagegen_start(&fx->pg, 100);
	pagegen_event(&fx->pg, PG_EVENT_TYPE, 10);
	pagegen_event(&fx->pg, PG_EVENT2_TYPE, 10); /* irq event, same task */
	pagegen_kstack(&fx->pg, 10, IRQ, 1);
	pagegen_kstack(&fx->pg, 10, A, 3);
	pagegen_finish(&fx->pg, 0);

	assert_int_equal(ingest_page(fx->ing, 0, 0, fx->pg.buf, fx->pg.len), 0);
	assert_int_equal(hits_of(find(fx, IRQ, 1), 1, -1), 1);
	assert_int_equal(hits_of(find(fx, IRQ, 1), 0, -1), 0);
	assert_int_equal(hits_of(find(fx, A, 3), 0, -1), 1);
	assert_int_equal(hits_of(find(fx, A, 3), 1, -1), 0);
}

/* each CPU has its own waiting events; the stack spans a page boundary */
static void test_ingest_per_cpu_and_across_pages(void **state)
{
	struct fx *fx = *state;

	pagegen_start(&fx->pg, 100);
	pagegen_event(&fx->pg, PG_EVENT_TYPE, 10);
	pagegen_finish(&fx->pg, 0);
	assert_int_equal(ingest_page(fx->ing, 0, 0, fx->pg.buf, fx->pg.len), 0);

	pagegen_start(&fx->pg, 100);
	pagegen_event(&fx->pg, PG_EVENT2_TYPE, 20);
	pagegen_kstack(&fx->pg, 20, B, 2);
	pagegen_finish(&fx->pg, 0);
	assert_int_equal(ingest_page(fx->ing, 1, 1, fx->pg.buf, fx->pg.len), 0);

	pagegen_start(&fx->pg, 200);
	pagegen_kstack(&fx->pg, 10, A, 3);
	pagegen_finish(&fx->pg, 0);
	assert_int_equal(ingest_page(fx->ing, 0, 0, fx->pg.buf, fx->pg.len), 0);

	assert_int_equal(hits_of(find(fx, A, 3), 0, 10), 1);
	assert_int_equal(hits_of(find(fx, B, 2), 1, 20), 1);
	assert_int_equal(find(fx, B, 2)->attrs->cpu, 1);
}

/* a stack with no event before it, and a page after lost events */
static void test_ingest_orphans_and_missed(void **state)
{
	struct fx *fx = *state;

	pagegen_start(&fx->pg, 100);
	pagegen_kstack(&fx->pg, 10, A, 3);
	pagegen_event(&fx->pg, PG_EVENT_TYPE, 10);
	pagegen_finish(&fx->pg, 0);
	assert_int_equal(ingest_page(fx->ing, 0, 0, fx->pg.buf, fx->pg.len), 0);
	assert_int_equal(ingest_stats(fx->ing)->orphans, 1);
	assert_int_equal(stack_table_count(fx->t), 0);

	/* events were lost before this page: the waiting event is not this stack's */
	pagegen_start(&fx->pg, 200);
	pagegen_kstack(&fx->pg, 10, B, 2);
	pagegen_finish(&fx->pg, 1ull << 31);
	assert_int_equal(ingest_page(fx->ing, 0, 0, fx->pg.buf, fx->pg.len), 0);
	assert_int_equal(ingest_stats(fx->ing)->orphans, 2);
	assert_int_equal(ingest_stats(fx->ing)->lost, 1);
	assert_int_equal(stack_table_count(fx->t), 0);
}

/* a page after a gap the kernel counted: @missed records, stored on the page */
static int ingest_after_gap(struct fx *fx, uint64_t missed)
{
	memcpy(fx->pg.buf + fx->pg.len, &missed, 8);
	pagegen_finish(&fx->pg, 3ull << 30); /* missed events, the count stored */
	return ingest_page(fx->ing, 0, 0, fx->pg.buf, fx->pg.len + 8);
}

/*
 * The kernel counts records, an event and its stack two: a gap of 6 records
 * cut one event from its stack before it (read, its stack gone) and one
 * stack from its event after it (an orphan), and held two events whole:
 * 4 events lost, (6 + 1 + 1) / 2 (issue 35: lost was the 6 records)
 */
static void test_ingest_lost_events(void **state)
{
	struct fx *fx = *state;
	struct ingest_config c = *ingest_config(fx->ing);
	const struct ingest_stats *st;

	c.records_per_event = 2;
	ingest_configure(fx->ing, &c);
	pagegen_start(&fx->pg, 100);
	pagegen_event(&fx->pg, PG_EVENT_TYPE, 10);
	pagegen_kstack(&fx->pg, 10, A, 3);
	pagegen_event(&fx->pg, PG_EVENT_TYPE, 11);
	pagegen_finish(&fx->pg, 0);
	assert_int_equal(ingest_page(fx->ing, 0, 0, fx->pg.buf, fx->pg.len), 0);
	pagegen_start(&fx->pg, 200);
	pagegen_kstack(&fx->pg, 13, B, 2);
	pagegen_event(&fx->pg, PG_EVENT_TYPE, 12);
	pagegen_kstack(&fx->pg, 12, A, 3);
	assert_int_equal(ingest_after_gap(fx, 6), 0);
	st = ingest_stats(fx->ing);
	assert_int_equal(st->events, 2);
	assert_int_equal(st->events_read, 2);
	assert_int_equal(st->overrun, 4);
	assert_int_equal(st->dropped, 0);
	assert_int_equal(st->lost, 4);
	assert_int_equal(st->records, 6);
	/* the per-CPU stats count 2 more records overwritten (a gap whose page had
	 * no room for its count), and a refused one: 1 more event each */
	ingest_set_kernel_losses(fx->ing, 8, 1);
	st = ingest_stats(fx->ing);
	assert_int_equal(st->overrun, 5);
	assert_int_equal(st->dropped, 1);
	assert_int_equal(st->lost, 6);
	/* a snapshot's counts added to the member stay through the derivation */
	ingest_stats(fx->ing)->lost += 10;
	ingest_stats(fx->ing)->overrun += 10;
	st = ingest_stats(fx->ing);
	assert_int_equal(st->overrun, 15);
	assert_int_equal(st->lost, 16);
	/* three records an event, not said (records_per_event 0): the share of
	 * the records read that are events stands for it */
	c.records_per_event = 0;
	ingest_configure(fx->ing, &c);
	memset(ingest_stats(fx->ing), 0, sizeof(*st));
	pagegen_start(&fx->pg, 300);
	pagegen_event(&fx->pg, PG_EVENT_TYPE, 10);
	pagegen_kstack(&fx->pg, 10, A, 3);
	pagegen_ustack(&fx->pg, 10, 10, A, 3);
	assert_int_equal(ingest_after_gap(fx, 9), 0);
	st = ingest_stats(fx->ing);
	assert_int_equal(st->overrun, 3);
	assert_int_equal(st->lost, 3);
}

static void test_ingest_pid_filter(void **state)
{
	struct fx *fx = *state;
	int pids[] = { 11 };

	assert_int_equal(ingest_set_tids(fx->ing, pids, 1), 0);
	pagegen_start(&fx->pg, 100);
	pagegen_event(&fx->pg, PG_EVENT_TYPE, 10);
	pagegen_kstack(&fx->pg, 10, A, 3);
	pagegen_event(&fx->pg, PG_EVENT_TYPE, 11);
	pagegen_kstack(&fx->pg, 11, B, 2);
	pagegen_finish(&fx->pg, 0);
	assert_int_equal(ingest_page(fx->ing, 0, 0, fx->pg.buf, fx->pg.len), 0);
	assert_int_equal(ingest_stats(fx->ing)->events, 1);
	assert_int_equal(find(fx, B, 2)->total, 1);
}

static int fake_tgid(void *ctx, int tid)
{
	int *calls = ctx;

	(*calls)++;
	return tid == 10 || tid == 11 ? 100 : tid == 12 ? 200 : -1;
}

/* -p: every thread of the process counts; --tid adds single threads */
static void test_ingest_proc_filter(void **state)
{
	struct fx *fx = *state;
	int tgids[] = { 100 }, tids[] = { 13 }, calls = 0;

	assert_int_equal(ingest_set_procs(fx->ing, tgids, 1, fake_tgid, &calls), 0);
	pagegen_start(&fx->pg, 100);
	pagegen_event(&fx->pg, PG_EVENT_TYPE, 10);
	pagegen_kstack(&fx->pg, 10, A, 3);
	pagegen_event(&fx->pg, PG_EVENT_TYPE, 10);
	pagegen_kstack(&fx->pg, 10, A, 3);
	pagegen_event(&fx->pg, PG_EVENT_TYPE, 11);
	pagegen_kstack(&fx->pg, 11, A, 3);
	pagegen_event(&fx->pg, PG_EVENT_TYPE, 12);
	pagegen_kstack(&fx->pg, 12, B, 2);
	pagegen_event(&fx->pg, PG_EVENT_TYPE, 13);
	pagegen_kstack(&fx->pg, 13, B, 2);
	pagegen_finish(&fx->pg, 0);
	assert_int_equal(ingest_page(fx->ing, 0, 0, fx->pg.buf, fx->pg.len), 0);
	assert_int_equal(ingest_stats(fx->ing)->events, 3);
	assert_int_equal(find(fx, A, 3)->total, 3);
	assert_int_equal(stack_table_count(fx->t), 1); /* B: not interned */
	/* the second event of thread 10 in a row is not asked about again */
	assert_int_equal(calls, 4);

	assert_int_equal(ingest_set_tids(fx->ing, tids, 1), 0);
	assert_int_equal(ingest_page(fx->ing, 0, 0, fx->pg.buf, fx->pg.len), 0);
	assert_int_equal(ingest_stats(fx->ing)->events, 7);
	assert_int_equal(find(fx, B, 2)->total, 1);
}

/* stacktop's own pid is left out; pid 0 (idle) is not "no pid" */
static void test_ingest_self(void **state)
{
	struct fx *fx = *state;

	set_self(fx->ing, 11);
	pagegen_start(&fx->pg, 100);
	pagegen_event(&fx->pg, PG_EVENT_TYPE, 0);
	pagegen_kstack(&fx->pg, 0, A, 3);
	pagegen_event(&fx->pg, PG_EVENT_TYPE, 11);
	pagegen_kstack(&fx->pg, 11, B, 2);
	pagegen_finish(&fx->pg, 0);
	assert_int_equal(ingest_page(fx->ing, 0, 0, fx->pg.buf, fx->pg.len), 0);
	assert_int_equal(ingest_stats(fx->ing)->events, 1);
	assert_int_equal(find(fx, A, 3)->total, 1);
}

static void test_ingest_stack_ids(void **state)
{
	struct fx *fx = *state;
	struct stack *a;

	set_stackmap(fx->ing, true);
	/* two ids of one stack (the kernel's cmpxchg race) */
	a = ingest_map_put(fx->ing, 42, A, 3, false);
	assert_ptr_equal(ingest_map_put(fx->ing, 4025, A, 3, false), a);
	assert_int_equal(a->nids, 2);

	pagegen_start(&fx->pg, 100);
	pagegen_event(&fx->pg, PG_EVENT_TYPE, 10);
	pagegen_stackid(&fx->pg, 10, 42);
	pagegen_event(&fx->pg, PG_EVENT_TYPE, 10);
	pagegen_stackid(&fx->pg, 10, 4025);
	pagegen_event(&fx->pg, PG_EVENT2_TYPE, 12);
	pagegen_stackid(&fx->pg, 12, 7); /* not in the snapshot yet */
	pagegen_event(&fx->pg, PG_EVENT2_TYPE, 12);
	pagegen_kstack(&fx->pg, 12, B, 2); /* a fallback: pool full or too deep */
	pagegen_finish(&fx->pg, 0);
	assert_int_equal(ingest_page(fx->ing, 0, 0, fx->pg.buf, fx->pg.len), 0);

	assert_int_equal(a->total, 2);
	assert_int_equal(ingest_pending(fx->ing), 1);
	assert_int_equal(ingest_stats(fx->ing)->fallbacks, 1);
	assert_true(find(fx, B, 2)->flags & STACK_F_FALLBACK);

	/* a fresh snapshot knows id 7 */
	ingest_map_put(fx->ing, 7, IRQ, 1, false);
	assert_int_equal(ingest_resolve(fx->ing), 1);
	assert_int_equal(hits_of(find(fx, IRQ, 1), 1, 12), 1);
	assert_int_equal(ingest_stats(fx->ing)->unresolved, 0);
	assert_int_equal(ingest_stats(fx->ing)->events, 4);
}

/* after a reset, an id of the old map never resolves through the new one */
static void test_ingest_generation(void **state)
{
	struct fx *fx = *state;

	ingest_map_put(fx->ing, 42, A, 3, false);
	ingest_new_generation(fx->ing);
	/* a stale record with id 42 is still in the buffer (v2/v3 keep it) */
	pagegen_start(&fx->pg, 100);
	pagegen_event(&fx->pg, PG_EVENT_TYPE, 10);
	pagegen_stackid(&fx->pg, 10, 42);
	pagegen_finish(&fx->pg, 0);
	assert_int_equal(ingest_page(fx->ing, 0, 0, fx->pg.buf, fx->pg.len), 0);
	assert_int_equal(find(fx, A, 3)->total, 0);
	/* the new map reuses 42 for another stack: the stale record is not counted there */
	ingest_new_generation(fx->ing); /* the owner drains and resets before reading */
	ingest_map_put(fx->ing, 42, B, 2, false);
	assert_int_equal(ingest_resolve(fx->ing), 0);
	assert_int_equal(stack_table_intern(fx->t, B, 2)->total, 0);
}

static void test_ingest_old_abi_64(void **state)
{
	struct fx *fx = *state;
	uint64_t deep[64];
	struct stack *s;
	int i;

	for (i = 0; i < 64; i++)
		deep[i] = 0xffffffff81000000ull + (uint64_t)i;
	s = ingest_map_put(fx->ing, 1, deep, 64, true);
	assert_true(s->flags & STACK_F_MERGED64);
	assert_true(s->flags & STACK_F_MAPPED);
	assert_null(ingest_map_put(fx->ing, 1u << 30, A, 3, false)); /* absurd id */
}

/* ids use the whole table_size; the impossible ones are counted, never silent */
static void test_ingest_big_ids(void **state)
{
	struct fx *fx = *state;
	const struct ingest_stats *st = ingest_stats(fx->ing);
	const uint32_t big = (1u << 22) + 5;
	struct stack *a;

	set_stackmap(fx->ing, true);
	/* table_size unknown: 2^22 is above every RFC version's map */
	assert_null(ingest_map_put(fx->ing, 1u << 22, A, 3, false));
	assert_int_equal(st->bad_ids, 1);

	ingest_set_id_limit(fx->ing, 1u << 24); /* a map with bits=23 */
	a = ingest_map_put(fx->ing, big, A, 3, false);
	assert_non_null(a);
	assert_null(ingest_map_put(fx->ing, 1u << 24, B, 2, false));
	assert_int_equal(st->bad_ids, 2);

	pagegen_start(&fx->pg, 100);
	pagegen_event(&fx->pg, PG_EVENT_TYPE, 10);
	pagegen_stackid(&fx->pg, 10, (int32_t)big);
	pagegen_event(&fx->pg, PG_EVENT_TYPE, 10);
	pagegen_stackid(&fx->pg, 10, (int32_t)(big + 1)); /* possible, not in the map yet */
	pagegen_event(&fx->pg, PG_EVENT_TYPE, 10);
	pagegen_stackid(&fx->pg, 10, 1 << 24); /* impossible */
	pagegen_finish(&fx->pg, 0);
	assert_int_equal(ingest_page(fx->ing, 0, 0, fx->pg.buf, fx->pg.len), 0);
	assert_int_equal(a->total, 1);
	assert_int_equal(ingest_pending(fx->ing), 1);
	assert_int_equal(st->bad_ids, 3);

	ingest_map_put(fx->ing, big + 1, B, 2, false);
	assert_int_equal(ingest_resolve(fx->ing), 1);
	assert_int_equal(hits_of(find(fx, B, 2), 0, 10), 1);
	assert_int_equal(st->unresolved, 0);
	assert_int_equal(st->events, 2);
}

/* ring-buffer bytes read per kind, and what the other representation would cost */
static void test_ingest_bytes_stacks_mode(void **state)
{
	struct fx *fx = *state;
	const struct ingest_stats *st;
	uint64_t deep[70];
	int i;

	for (i = 0; i < 70; i++)
		deep[i] = 0xffffffff81000000ull + (uint64_t)i;
	pagegen_start(&fx->pg, 100);
	pagegen_event(&fx->pg, PG_EVENT_TYPE, 10); /* 4 + 64 */
	pagegen_kstack(&fx->pg, 10, A, 3);	   /* 4 + 16 + 3 * 8 */
	pagegen_event(&fx->pg, PG_EVENT_TYPE, 10); /* 4 + 64 */
	pagegen_kstack(&fx->pg, 10, deep, 70);	   /* 8 + 16 + 70 * 8 */
	pagegen_finish(&fx->pg, 0);
	assert_int_equal(ingest_page(fx->ing, 0, 0, fx->pg.buf, fx->pg.len), 0);

	st = ingest_stats(fx->ing);
	assert_int_equal(st->bytes, 68 + 44 + 68 + 584);
	assert_int_equal(fx->pg.len - PG_DATA, st->bytes); /* every byte of the page */
	assert_int_equal(st->kstack_records, 2);
	assert_int_equal(st->kstack_bytes, 44 + 584);
	assert_int_equal(st->stackid_records, 0);
	assert_int_equal(st->sized_records, 2);
	assert_int_equal(st->sized_bytes, 44 + 584);
	/* the 3 frames as a 16-byte stack_id; 70 frames stay a full record */
	assert_int_equal(st->alt_bytes, 16 + 584);
	/* "stackmap would cut ring-buffer use by" (sized - alt) / bytes = 28 / 764 */
	assert_int_equal((st->sized_bytes - st->alt_bytes) * 1000 / st->bytes, 36);
}

static void test_ingest_bytes_stackmap_mode(void **state)
{
	struct fx *fx = *state;
	const struct ingest_stats *st;

	set_stackmap(fx->ing, true);
	ingest_map_put(fx->ing, 42, A, 3, false);
	pagegen_start(&fx->pg, 100);
	pagegen_event(&fx->pg, PG_EVENT_TYPE, 10);
	pagegen_stackid(&fx->pg, 10, 42); /* 4 + 12, resolves to 3 frames */
	pagegen_event(&fx->pg, PG_EVENT_TYPE, 10);
	pagegen_stackid(&fx->pg, 10, 7); /* queued */
	pagegen_event(&fx->pg, PG_EVENT_TYPE, 12);
	pagegen_stackid(&fx->pg, 12, 9); /* queued, never resolves */
	pagegen_event(&fx->pg, PG_EVENT2_TYPE, 12);
	pagegen_kstack(&fx->pg, 12, B, 2); /* a fallback: 4 + 16 + 2 * 8 */
	pagegen_finish(&fx->pg, 0);
	assert_int_equal(ingest_page(fx->ing, 0, 0, fx->pg.buf, fx->pg.len), 0);
	ingest_map_put(fx->ing, 7, IRQ, 1, false);
	assert_int_equal(ingest_resolve(fx->ing), 1);

	st = ingest_stats(fx->ing);
	assert_int_equal(st->bytes, 4 * 68 + 3 * 16 + 36);
	assert_int_equal(st->stackid_counted, 2);
	assert_int_equal(st->stackid_records, 3);
	assert_int_equal(st->stackid_bytes, 3 * 16);
	assert_int_equal(st->kstack_records, 1);
	assert_int_equal(st->kstack_bytes, 36);
	/* the unresolved id has no depth: left out of both sides */
	assert_int_equal(st->sized_records, 3);
	assert_int_equal(st->sized_bytes, 16 + 16 + 36);
	/* full stacks: 3 frames 4 + 16 + 24, 1 frame 4 + 16 + 8, the fallback itself */
	assert_int_equal(st->alt_bytes, 44 + 28 + 36);
	/* stackmap saves 1 - 68 / 108 = 37.0% of the stack records' bytes */
	assert_int_equal(1000 - st->sized_bytes * 1000 / st->alt_bytes, 371);
}

static void test_ingest_bad_page(void **state)
{
	struct fx *fx = *state;

	pagegen_start(&fx->pg, 100);
	pagegen_event(&fx->pg, PG_EVENT_TYPE, 10);
	pagegen_kstack(&fx->pg, 10, A, 3);
	pagegen_finish(&fx->pg, 0);
	/* a truncated read: the commit says more than we have */
	assert_int_equal(ingest_page(fx->ing, 0, 0, fx->pg.buf, 20), -EBADMSG);
	assert_int_equal(ingest_stats(fx->ing)->bad_pages, 1);
	assert_int_equal(stack_table_count(fx->t), 0);
}

/*
 * Records shorter than the fields their format declares (a damaged
 * recording, or a format whose offsets lie past the record): counted as
 * damaged, never read past their end, and an event whose stack record is
 * damaged is not paired with the next stack.
 */
static void test_ingest_short_records(void **state)
{
	struct fx *fx = *state;
	uint8_t *ev = malloc(6), *ks = malloc(24), *good = calloc(1, 16 + 8 * 3);
	uint32_t n = 40; /* claims 40 frames, holds one */
	int32_t pid = 7;
	uint16_t type = PG_EVENT_TYPE, kt = PG_KSTACK_TYPE;
	uint8_t full[64] = { 0 };
	uint64_t delta;

	assert_non_null(ev);
	assert_non_null(ks);
	assert_non_null(good);
	/* an event of 6 bytes: common_pid (offset 4, 4 bytes) is not in it */
	memcpy(ev, &type, 2);
	memset(ev + 2, 0, 4);
	ingest_record(fx->ing, 0, 0, ev, 6, 0);
	assert_int_equal(ingest_stats(fx->ing)->damaged, 1);

	/* an event, then a kernel_stack whose size says more than it holds */
	memcpy(full, &type, 2);
	memcpy(full + 4, &pid, 4);
	ingest_record(fx->ing, 0, 0, full, sizeof(full), 0);
	memset(ks, 0, 24);
	memcpy(ks, &kt, 2);
	memcpy(ks + 8, &n, 4);
	memcpy(ks + 16, &A[0], 8);
	ingest_record(fx->ing, 0, 0, ks, 24, 0);
	assert_int_equal(ingest_stats(fx->ing)->damaged, 2);
	/* a good stack next: its event was taken by the damaged one */
	n = 3;
	memcpy(good, &kt, 2);
	memcpy(good + 8, &n, 4);
	memcpy(good + 16, A, sizeof(A));
	ingest_record(fx->ing, 0, 0, good, 16 + 8 * 3, 0);
	assert_int_equal(ingest_stats(fx->ing)->orphans, 1);

	/* a kernel_stack cut before its size field, a stack_id before its id */
	ingest_record(fx->ing, 0, 0, full, sizeof(full), 0);
	ingest_record(fx->ing, 0, 0, ks, 10, 0);
	memcpy(ks, &(uint16_t){ PG_STACKID_TYPE }, 2);
	ingest_record(fx->ing, 0, 0, full, sizeof(full), 0);
	ingest_record(fx->ing, 0, 0, ks, 10, 0);
	assert_int_equal(ingest_stats(fx->ing)->damaged, 4);

	stack_table_tick(fx->t);
	assert_int_equal(stack_table_hits(fx->t, &delta), 0);
	assert_int_equal(ingest_stats(fx->ing)->events, 0);
	free(ev);
	free(ks);
	free(good);
}

/* -u: event, kernel_stack, user_stack on one CPU make one stack */
static void test_ingest_user_stacks(void **state)
{
	static const uint64_t U[] = { 0x401000, 0x402000 };
	static const uint64_t DEEP[] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	static const uint64_t NONE[] = { 0 };
	struct fx *fx = *state;
	struct usym *u = usym_new("/nonexistent-proc");
	uint64_t want[3 + 1 + 2], addr;
	struct stack *s;
	uint32_t tgid;

	assert_non_null(u);
	ingest_set_user(fx->ing, u);
	pagegen_start(&fx->pg, 100);
	pagegen_event(&fx->pg, PG_EVENT_TYPE, 51);
	pagegen_kstack(&fx->pg, 51, A, 3);
	pagegen_ustack(&fx->pg, 51, 50, U, 2);
	pagegen_event(&fx->pg, PG_EVENT_TYPE, 51); /* no user_stack: alone */
	pagegen_kstack(&fx->pg, 51, B, 2);
	pagegen_event(&fx->pg, PG_EVENT2_TYPE, 2); /* a kernel thread: no user frames */
	pagegen_kstack(&fx->pg, 2, IRQ, 1);
	pagegen_ustack(&fx->pg, 2, 2, NONE, 1);
	pagegen_event(&fx->pg, PG_EVENT_TYPE, 51); /* 8 frames: the walk's limit */
	pagegen_kstack(&fx->pg, 51, A, 3);
	pagegen_ustack(&fx->pg, 51, 50, DEEP, 8);
	pagegen_event(&fx->pg, PG_EVENT_TYPE, 51); /* the leaf alone: no frame pointers */
	pagegen_kstack(&fx->pg, 51, A, 3);
	pagegen_ustack(&fx->pg, 51, 50, U, 1);
	pagegen_event(&fx->pg, PG_EVENT_TYPE, 60); /* last: its user_stack may come later */
	pagegen_kstack(&fx->pg, 60, B, 2);
	pagegen_finish(&fx->pg, 0);
	assert_int_equal(ingest_page(fx->ing, 0, 0, fx->pg.buf, fx->pg.len), 0);

	memcpy(want, A, sizeof(A));
	want[3] = usym_sep(50);
	want[4] = usym_intern(u, 50, U[0]);
	want[5] = usym_intern(u, 50, U[1]);
	s = find(fx, want, 6);
	assert_int_equal(s->total, 1);
	assert_int_equal(hits_of(s, 0, 51), 1);
	assert_int_equal(usym_lookup(u, s->ips[4], &tgid, &addr), 0);
	assert_int_equal(tgid, 50);
	assert_int_equal(addr, 0x401000);
	assert_int_equal(find(fx, B, 2)->total, 1);
	assert_int_equal(find(fx, IRQ, 1)->total, 1);
	/* A with each user part, B, IRQ: A alone was never interned */
	assert_int_equal(stack_table_count(fx->t), 5);
	/* the single-frame user stack is said (the header's note) */
	assert_int_equal(ingest_stats(fx->ing)->ustack_one, 1);
	{
		uint64_t w[3 + 1 + 8 + 1];
		size_t i;

		/* A + sep + 8 frames + the cut mark */
		memcpy(w, A, sizeof(A));
		w[3] = usym_sep(50);
		for (i = 0; i < 8; i++)
			w[4 + i] = usym_intern(u, 50, DEEP[i]);
		w[12] = USYM_CUT;
		assert_int_equal(find(fx, w, 13)->total, 1);
	}
	/* the last one waits; two refreshes without its user_stack count it alone */
	assert_int_equal(ingest_stats(fx->ing)->events, 5);
	ingest_flush_user(fx->ing);
	assert_int_equal(ingest_stats(fx->ing)->events, 5);
	ingest_flush_user(fx->ing);
	assert_int_equal(ingest_stats(fx->ing)->events, 6);
	assert_int_equal(hits_of(find(fx, B, 2), 0, 60), 1);
	assert_int_equal(ingest_stats(fx->ing)->ustack_records, 4);
	ingest_set_user(fx->ing, NULL);
	usym_free(u);
}

/*
 * -u in stackmap mode: event, stack_id (or a kernel_stack fallback),
 * user_stack; an id the map does not know yet keeps its user part while
 * queued; a reset forgets an id waiting for its user_stack.
 */
static void test_ingest_user_stack_ids(void **state)
{
	static const uint64_t U[] = { 0x401000, 0x402000 };
	static const uint64_t DEEP[] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	static const uint64_t NONE[] = { 0 };
	struct fx *fx = *state;
	struct usym *u = usym_new("");
	uint64_t w[3 + 1 + 8 + 1];
	struct stack *a, *s;
	size_t i;

	assert_non_null(u);
	set_stackmap(fx->ing, true);
	ingest_set_user(fx->ing, u);
	a = ingest_map_put(fx->ing, 42, A, 3, false);
	pagegen_start(&fx->pg, 100);
	pagegen_event(&fx->pg, PG_EVENT_TYPE, 51);
	pagegen_stackid(&fx->pg, 51, 42);
	pagegen_ustack(&fx->pg, 51, 50, U, 2);
	pagegen_event(&fx->pg, PG_EVENT_TYPE, 51); /* not in the snapshot yet */
	pagegen_stackid(&fx->pg, 51, 7);
	pagegen_ustack(&fx->pg, 51, 50, DEEP, 8);
	pagegen_event(&fx->pg, PG_EVENT2_TYPE, 51); /* a fallback */
	pagegen_kstack(&fx->pg, 51, B, 2);
	pagegen_ustack(&fx->pg, 51, 50, U, 2);
	pagegen_event(&fx->pg, PG_EVENT_TYPE, 2); /* a kernel thread */
	pagegen_stackid(&fx->pg, 2, 42);
	pagegen_ustack(&fx->pg, 2, 2, NONE, 1);
	pagegen_event(&fx->pg, PG_EVENT_TYPE, 51); /* no user_stack: the id alone */
	pagegen_stackid(&fx->pg, 51, 42);
	pagegen_event(&fx->pg, PG_EVENT_TYPE, 60); /* last: waits for its user_stack */
	pagegen_stackid(&fx->pg, 60, 42);
	pagegen_finish(&fx->pg, 0);
	assert_int_equal(ingest_page(fx->ing, 0, 0, fx->pg.buf, fx->pg.len), 0);

	memcpy(w, A, sizeof(A));
	w[3] = usym_sep(50);
	w[4] = usym_intern(u, 50, U[0]);
	w[5] = usym_intern(u, 50, U[1]);
	s = find(fx, w, 6);
	assert_int_equal(s->total, 1);
	assert_int_equal(hits_of(s, 0, 51), 1);
	/* the joined stack is known by its kernel part's id */
	assert_true(s->flags & STACK_F_MAPPED);
	assert_int_equal(s->nids, 1);
	assert_int_equal(s->ids[0], 42);
	/* the kernel thread's and the lone one's: on the mapped stack itself */
	assert_int_equal(a->total, 2);
	assert_int_equal(hits_of(a, 0, 2), 1);
	assert_int_equal(hits_of(a, 0, 51), 1);
	/* the fallback with its user part */
	memcpy(w, B, sizeof(B));
	w[2] = usym_sep(50);
	w[3] = usym_intern(u, 50, U[0]);
	w[4] = usym_intern(u, 50, U[1]);
	s = find(fx, w, 5);
	assert_int_equal(s->total, 1);
	assert_true(s->flags & STACK_F_FALLBACK);
	assert_int_equal(ingest_stats(fx->ing)->fallbacks, 1);
	/* id 7 waits for the map, with its user part */
	assert_int_equal(ingest_pending(fx->ing), 1);
	assert_int_equal(ingest_stats(fx->ing)->events, 4);
	ingest_map_put(fx->ing, 7, IRQ, 1, false);
	assert_int_equal(ingest_resolve(fx->ing), 1);
	w[0] = IRQ[0];
	w[1] = usym_sep(50);
	for (i = 0; i < 8; i++)
		w[2 + i] = usym_intern(u, 50, DEEP[i]);
	w[10] = USYM_CUT;
	s = find(fx, w, 11);
	assert_int_equal(s->total, 1);
	assert_int_equal(s->ids[0], 7);
	assert_int_equal(ingest_stats(fx->ing)->events, 5);
	assert_int_equal(ingest_stats(fx->ing)->unresolved, 0);
	/* a reset: the id waiting on the CPU was the old map's, never the new one's */
	ingest_new_generation(fx->ing);
	ingest_map_put(fx->ing, 42, B, 2, false);
	ingest_flush_user(fx->ing);
	ingest_flush_user(fx->ing);
	ingest_resolve(fx->ing);
	assert_int_equal(ingest_stats(fx->ing)->events, 5);
	assert_int_equal(find(fx, B, 2)->total, 0);
	assert_int_equal(ingest_stats(fx->ing)->ustack_records, 4);
	ingest_set_user(fx->ing, NULL);
	usym_free(u);
}

/*
 * --trigger turns the stacktrace option off: the kernel writes event,
 * user_stack, then the trigger's stack. The user part waits for the stack of
 * its event; a stack of another event does not take it.
 */
static void test_ingest_user_before_stack(void **state)
{
	static const uint64_t U[] = { 0x401000, 0x402000 };
	struct fx *fx = *state;
	struct usym *u = usym_new("");
	uint64_t w[3 + 1 + 2];
	struct stack *s;

	assert_non_null(u);
	ingest_set_user(fx->ing, u);
	set_stackmap(fx->ing, true);
	ingest_map_put(fx->ing, 42, B, 2, false);
	pagegen_start(&fx->pg, 100);
	pagegen_event(&fx->pg, PG_EVENT_TYPE, 51);
	pagegen_ustack(&fx->pg, 51, 50, U, 2);
	pagegen_kstack(&fx->pg, 51, A, 3); /* a fallback */
	pagegen_event(&fx->pg, PG_EVENT_TYPE, 51);
	pagegen_ustack(&fx->pg, 51, 50, U, 2);
	pagegen_stackid(&fx->pg, 51, 42);
	/* a user_stack whose stack never came: the next event's is not its */
	pagegen_event(&fx->pg, PG_EVENT_TYPE, 51);
	pagegen_ustack(&fx->pg, 51, 50, U, 2);
	pagegen_event(&fx->pg, PG_EVENT2_TYPE, 51);
	pagegen_stackid(&fx->pg, 51, 42);
	pagegen_finish(&fx->pg, 0);
	assert_int_equal(ingest_page(fx->ing, 0, 0, fx->pg.buf, fx->pg.len), 0);
	ingest_flush_user(fx->ing);
	ingest_flush_user(fx->ing);

	memcpy(w, A, sizeof(A));
	w[3] = usym_sep(50);
	w[4] = usym_intern(u, 50, U[0]);
	w[5] = usym_intern(u, 50, U[1]);
	s = find(fx, w, 6);
	assert_int_equal(s->total, 1);
	assert_true(s->flags & STACK_F_FALLBACK);
	memcpy(w, B, sizeof(B));
	w[2] = usym_sep(50);
	w[3] = usym_intern(u, 50, U[0]);
	w[4] = usym_intern(u, 50, U[1]);
	assert_int_equal(find(fx, w, 5)->total, 1);
	/* the last id: after the stray user_stack, counted without one */
	assert_int_equal(hits_of(stack_table_intern(fx->t, B, 2), 1, 51), 1);
	assert_int_equal(ingest_stats(fx->ing)->events, 3);
	ingest_set_user(fx->ing, NULL);
	usym_free(u);
}

struct held_fx {
	struct ingest_held h[4];
	uint64_t frames[4][8];
	unsigned int n[4];
	unsigned int nheld;
};

/* keeps the events of pid 51, lets ingest count the others at once */
static bool hold_51(void *ctx, const struct ingest_held *h, const uint64_t *frames, unsigned int n)
{
	struct held_fx *hf = ctx;

	if (h->pid != 51 || hf->nheld == 4 || n > 8)
		return false;
	hf->h[hf->nheld] = *h;
	memcpy(hf->frames[hf->nheld], frames, n * sizeof(*frames));
	hf->n[hf->nheld++] = n;
	return true;
}

/* --user=dwarf: kernel stacks wait outside ingest, counted later with user frames */
static void test_ingest_user_hold(void **state)
{
	struct fx *fx = *state;
	struct held_fx hf = { .nheld = 0 };
	uint64_t want[3 + 1 + 2];
	int wanted[] = { 51 };

	ingest_set_user_hold(fx->ing, hold_51, &hf);
	pagegen_start(&fx->pg, 100);
	pagegen_event(&fx->pg, PG_EVENT_TYPE, 51);
	pagegen_kstack(&fx->pg, 51, A, 3);
	pagegen_event(&fx->pg, PG_EVENT_TYPE, 60); /* refused: counted at once */
	pagegen_kstack(&fx->pg, 60, B, 2);
	pagegen_event(&fx->pg, PG_EVENT2_TYPE, 51);
	pagegen_kstack(&fx->pg, 51, B, 2);
	pagegen_finish(&fx->pg, 0);
	assert_int_equal(ingest_page(fx->ing, 0, 0, fx->pg.buf, fx->pg.len), 0);

	assert_int_equal(hf.nheld, 2);
	assert_int_equal(ingest_stats(fx->ing)->events, 1);
	assert_int_equal(find(fx, B, 2)->total, 1);
	assert_int_equal(hits_of(find(fx, B, 2), 0, 60), 1);
	/* what the join needs: thread, CPU, event, a time stamp */
	assert_int_equal(hf.h[0].pid, 51);
	assert_int_equal(hf.h[0].cpu, 0);
	assert_int_equal(hf.h[0].event, 0);
	assert_int_equal(hf.h[1].event, 1);
	assert_true(hf.h[0].ts >= 100 && hf.h[1].ts >= hf.h[0].ts);
	assert_int_equal(hf.n[0], 3);
	assert_memory_equal(hf.frames[0], A, sizeof(A));

	/* the first gets its user part, the second none (no sample) */
	memcpy(want, A, sizeof(A));
	want[3] = usym_sep(50);
	want[4] = USYM_TAG_FRAME | 1;
	want[5] = USYM_TAG_FRAME | 2;
	ingest_count_held(fx->ing, &hf.h[0], want, 6);
	ingest_count_held(fx->ing, &hf.h[1], hf.frames[1], hf.n[1]);
	assert_int_equal(ingest_stats(fx->ing)->events, 3);
	assert_int_equal(find(fx, want, 6)->total, 1);
	assert_int_equal(hits_of(find(fx, want, 6), 0, 51), 1);
	assert_int_equal(find(fx, B, 2)->total, 2);
	assert_int_equal(stack_table_count(fx->t), 2); /* A alone was never interned */

	/* the samples of unwanted processes are not worth unwinding */
	assert_true(ingest_wants(fx->ing, 50, 51));
	set_self(fx->ing, 77);
	assert_false(ingest_wants(fx->ing, 77, 78));
	ingest_set_tids(fx->ing, wanted, 1);
	assert_true(ingest_wants(fx->ing, 50, 51));
	assert_false(ingest_wants(fx->ing, 50, 52));
	ingest_set_procs(fx->ing, wanted, 1, NULL, NULL); /* -p 51: by process */
	assert_true(ingest_wants(fx->ing, 51, 90));
	assert_false(ingest_wants(fx->ing, 52, 90));
	ingest_set_user_hold(fx->ing, NULL, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_ingest_event_then_stack, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ingest_user_hold, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ingest_nested_interrupt, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ingest_per_cpu_and_across_pages, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_ingest_orphans_and_missed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ingest_lost_events, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ingest_pid_filter, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ingest_proc_filter, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ingest_self, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ingest_stack_ids, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ingest_generation, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ingest_old_abi_64, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ingest_big_ids, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ingest_bytes_stacks_mode, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ingest_bytes_stackmap_mode, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ingest_bad_page, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ingest_short_records, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ingest_user_stacks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ingest_user_stack_ids, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ingest_user_before_stack, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ingest_function_entries, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
