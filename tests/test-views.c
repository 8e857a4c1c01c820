// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-views.c - weights (a field's sum, off-CPU time), grouping by the
 * first frames and by function, and the caller/callee trees, on tables
 * and records built here.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/calltree.h"
#include "core/format.h"
#include "ingest/ingest.h"
#include "pagegen.h"
#include "session/session.h"
#include "core/stack_table.h"
#include "core/rank.h"
#include "core/stack_group.h"

/* frames: a tracing frame first, as ftrace records them */
#define TR	 0xffffffff81000010ULL /* trace_event_raw_event_kmalloc */
#define KMALLOC	 0xffffffff81001000ULL
#define KFREE	 0xffffffff81002000ULL
#define CALLER_A 0xffffffff81003000ULL
#define CALLER_B 0xffffffff81004000ULL
#define ROOT	 0xffffffff81005000ULL

static const uint64_t S1[] = { TR, KMALLOC + 0x10, CALLER_A + 0x20, ROOT };
static const uint64_t S2[] = { TR, KMALLOC + 0x30, CALLER_B + 0x08, ROOT };
static const uint64_t S3[] = { TR, KFREE + 0x04, CALLER_A + 0x40, ROOT };

static unsigned int skip_tracing(void *ctx, const struct stack *s)
{
	(void)ctx;
	return s->depth && s->ips[0] == TR ? 1 : 0;
}

/* a function starts at a 4 KiB boundary in these tests */
static uint64_t func_of(void *ctx, uint64_t ip)
{
	(void)ctx;
	return ip & ~0xfffULL;
}

static struct stack *put(struct stack_table *t, const uint64_t *ips, unsigned int n, int pid,
			 uint64_t hits, uint64_t w)
{
	struct stack *s = stack_table_intern(t, ips, n);

	assert_non_null(s);
	assert_int_equal(stack_table_hit_w(t, s, 0, 0, pid, hits, w), 0);
	return s;
}

static void test_views_weight_ranks(void **state)
{
	struct stack_table *t = stack_table_new();
	struct rank_opts o = { .key = RANK_TOTAL, .event = -1, .pid = -1, .cpu = -1 };
	struct rank_row rows[4];
	struct rank_summary sum;
	struct stack *s1, *s2;
	uint64_t d;

	(void)state;
	assert_int_equal(stack_table_set_weighted(t, true), 0);
	/* many small allocations against a few big ones */
	s1 = put(t, S1, 4, 10, 100, 800);
	s2 = put(t, S2, 4, 11, 2, 65536);
	assert_int_equal(stack_table_set_weighted(t, false), -EBUSY);
	assert_int_equal(stack_table_rank(t, &o, rows, 4, &sum), 2);
	assert_ptr_equal(rows[0].stack, s1);
	assert_int_equal(rows[0].total, 100);
	o.weight = true;
	assert_int_equal(stack_table_rank(t, &o, rows, 4, &sum), 2);
	assert_ptr_equal(rows[0].stack, s2);
	assert_int_equal(rows[0].total, 65536);
	assert_int_equal(rows[1].total, 800);
	assert_int_equal(sum.total, 66336);
	assert_int_equal(stack_weight(t, s1, NULL), 800);
	assert_int_equal(stack_attr_weight(t, s1->attrs, NULL), 800);
	/* intervals: the weight of the last closed one */
	stack_table_tick(t);
	put(t, S1, 4, 10, 1, 8);
	stack_table_tick(t);
	assert_int_equal(stack_weight(t, s1, &d), 808);
	assert_int_equal(d, 8);
	assert_int_equal(stack_table_weights(t, &d), 66344);
	assert_int_equal(d, 8);
	/* a pid filter sums the records' weights */
	o.pid = 11;
	o.key = RANK_TOTAL;
	assert_int_equal(stack_table_rank(t, &o, rows, 4, &sum), 1);
	assert_int_equal(rows[0].total, 65536);
	stack_table_free(t);
}

static void test_views_group_depth1(void **state)
{
	struct stack_table *src = stack_table_new(), *dst = stack_table_new();
	struct stack_group g = { .depth = 1, .skip = skip_tracing };
	struct rank_opts o = { .key = RANK_DELTA, .event = -1, .pid = -1, .cpu = -1 };
	struct rank_row rows[4];
	struct rank_summary sum;
	struct stack *k1;

	(void)state;
	put(src, S1, 4, 10, 5, 0);
	put(src, S2, 4, 11, 3, 0);
	put(src, S3, 4, 12, 4, 0);
	stack_table_tick(src);
	put(src, S1, 4, 10, 1, 0);
	stack_table_tick(src);
	/* --depth 1: the leaf past the tracing frame, which groups leave out
	 * (whether it is there depends on who else traces); offsets differ */
	assert_int_equal(stack_table_group(dst, src, &g), 0);
	assert_int_equal(stack_table_rank(dst, &o, rows, 4, &sum), 3);
	assert_int_equal(sum.total, 13);
	assert_int_equal(sum.delta, 1);
	assert_int_equal(rows[0].stack->depth, 1);
	assert_true(rows[0].stack->ips[0] == KMALLOC + 0x10);
	assert_int_equal(rows[0].total, 6);
	assert_int_equal(rows[0].delta, 1);

	/* by function too: "who calls kmalloc" is one row */
	g.map = func_of;
	assert_int_equal(stack_table_group(dst, src, &g), 0);
	o.key = RANK_TOTAL;
	assert_int_equal(stack_table_rank(dst, &o, rows, 4, &sum), 2);
	assert_true(rows[0].stack->ips[0] == KMALLOC);
	assert_int_equal(rows[0].total, 9);
	assert_int_equal(rows[1].total, 4);
	assert_true(rows[1].stack->ips[0] == KFREE);
	/* the breakdown records are merged per pid */
	o.pid = 11;
	assert_int_equal(stack_table_rank(dst, &o, rows, 4, &sum), 1);
	assert_int_equal(rows[0].total, 3);

	/* keep: the groups stay where they are, their counts start over */
	k1 = stack_table_intern(dst, (const uint64_t[]){ KMALLOC }, 1);
	assert_int_equal(k1->total, 9); /* it was there */
	put(src, S2, 4, 11, 10, 0);
	g.keep = true;
	assert_int_equal(stack_table_group(dst, src, &g), 0);
	assert_ptr_equal(stack_table_intern(dst, (const uint64_t[]){ KMALLOC }, 1), k1);
	assert_int_equal(k1->total, 19);

	/* function grouping alone keeps every frame past the tracing one */
	g.depth = 0;
	g.keep = false;
	assert_int_equal(stack_table_group(dst, src, &g), 0);
	o.pid = -1;
	assert_int_equal(stack_table_rank(dst, &o, rows, 4, &sum), 3);
	assert_int_equal(rows[0].stack->depth, 3);
	stack_table_free(src);
	stack_table_free(dst);
}

static void test_views_group_weights(void **state)
{
	struct stack_table *src = stack_table_new(), *dst = stack_table_new();
	struct stack_group g = { .depth = 1, .skip = skip_tracing, .map = func_of };
	struct rank_opts o = {
		.key = RANK_TOTAL, .event = -1, .pid = -1, .cpu = -1, .weight = true
	};
	struct rank_row rows[4];

	(void)state;
	stack_table_set_weighted(src, true);
	put(src, S1, 4, 10, 5, 500);
	put(src, S2, 4, 11, 1, 4096);
	put(src, S3, 4, 12, 100, 100);
	assert_int_equal(stack_table_group(dst, src, &g), 0);
	assert_true(stack_table_weighted(dst));
	assert_int_equal(stack_table_rank(dst, &o, rows, 4, NULL), 2);
	assert_true(rows[0].stack->ips[0] == KMALLOC);
	assert_int_equal(rows[0].total, 4596);
	assert_int_equal(stack_table_weights(dst, NULL), 4696);
	stack_table_free(src);
	stack_table_free(dst);
}

static int tree_rows(struct stack_table *t, struct rank_row *rows, size_t k)
{
	struct rank_opts o = { .key = RANK_TOTAL, .event = -1, .pid = -1, .cpu = -1 };

	return (int)stack_table_rank(t, &o, rows, k, NULL);
}

/* the child of @parent named @sym, CALLTREE_NONE if none */
static uint32_t child(const struct calltree *ct, uint32_t parent, uint64_t sym)
{
	uint32_t c;

	for (c = ct->nodes[parent].first_child; c != CALLTREE_NONE; c = ct->nodes[c].next_sibling)
		if (ct->nodes[c].sym == sym)
			return c;
	return CALLTREE_NONE;
}

static void test_views_callee_tree(void **state)
{
	/* A recursing caller: counted once per stack in its children */
	static const uint64_t S4[] = { TR, KMALLOC + 0x50, CALLER_A, CALLER_A + 0x99, ROOT };
	struct calltree_ops ops = { .skip = skip_tracing, .sym = func_of };
	struct stack_table *t = stack_table_new();
	struct rank_row rows[8];
	struct calltree ct;
	uint32_t km, kf, a, b, root;
	uint64_t ch, self;
	int n;

	(void)state;
	put(t, S1, 4, 10, 5, 0);
	put(t, S2, 4, 11, 3, 0);
	put(t, S3, 4, 12, 4, 0);
	put(t, S4, 5, 13, 2, 0);
	n = tree_rows(t, rows, 8);
	assert_int_equal(n, 4);
	calltree_init(&ct);
	assert_int_equal(calltree_build(&ct, rows, (size_t)n, false, true, &ops), 0);
	assert_int_equal(ct.total, 14);
	/* roots: the leaf functions, merged (offsets differ), best first */
	km = ct.nodes[0].first_child;
	assert_true(ct.nodes[km].sym == KMALLOC);
	assert_int_equal(ct.nodes[km].count, 10);
	assert_int_equal(ct.nodes[km].self, 10);
	kf = ct.nodes[km].next_sibling;
	assert_true(ct.nodes[kf].sym == KFREE);
	assert_int_equal(ct.nodes[kf].count, 4);
	assert_int_equal(ct.nodes[kf].next_sibling, CALLTREE_NONE);
	/* toward the callers: who calls kmalloc */
	a = child(&ct, km, CALLER_A);
	b = child(&ct, km, CALLER_B);
	assert_int_equal(ct.nodes[a].count, 7);
	assert_int_equal(ct.nodes[a].self, 0);
	assert_int_equal(ct.nodes[b].count, 3);
	assert_int_equal(ct.nodes[km].first_child, a);
	assert_int_equal(ct.nodes[a].depth, 1);
	root = child(&ct, b, ROOT);
	assert_int_not_equal(root, CALLTREE_NONE);
	assert_int_equal(ct.nodes[root].count, 3);
	/* perf --children: CALLER_A is in S1, S3 and S4 (recursing: once) */
	calltree_function(&ct, CALLER_A, &ch, &self);
	assert_int_equal(ch, 11);
	assert_int_equal(self, 0);
	calltree_function(&ct, KMALLOC, &ch, &self);
	assert_int_equal(ch, 10);
	assert_int_equal(self, 10);
	calltree_function(&ct, ROOT, &ch, &self);
	assert_int_equal(ch, 14);
	/* which stacks go through a node */
	assert_true(calltree_path_has(&ct, a, rows[0].stack, &ops));
	assert_false(calltree_path_has(&ct, b, rows[0].stack, &ops));

	/* the caller tree of the same stacks: one root, leaves carry self */
	assert_int_equal(calltree_build(&ct, rows, (size_t)n, false, false, &ops), 0);
	root = ct.nodes[0].first_child;
	assert_true(ct.nodes[root].sym == ROOT);
	assert_int_equal(ct.nodes[root].count, 14);
	assert_int_equal(ct.nodes[root].next_sibling, CALLTREE_NONE);
	a = child(&ct, root, CALLER_A);
	assert_int_equal(ct.nodes[a].count, 11);
	km = child(&ct, a, KMALLOC);
	assert_int_equal(ct.nodes[km].self, 5);
	assert_true(calltree_path_has(&ct, km, rows[0].stack, &ops));
	calltree_free(&ct);
	stack_table_free(t);
}

/* records as the kernel writes them (tests/pagegen.h layout) */
static void rec_switch(struct ingest *ing, unsigned int cpu, int32_t prev, uint64_t state,
		       int32_t next, uint64_t ts)
{
	uint8_t d[64] = { 0 };
	uint16_t type = PG_EVENT_TYPE;

	memcpy(d, &type, 2);
	memcpy(d + 4, &prev, 4);
	memcpy(d + 24, &prev, 4);
	memcpy(d + 32, &state, 8);
	memcpy(d + 56, &next, 4);
	ingest_record_at(ing, cpu, cpu, d, sizeof(d), 0, ts);
}

static void rec_stack(struct ingest *ing, unsigned int cpu, int32_t pid, const uint64_t *ips,
		      uint32_t n, uint64_t ts)
{
	uint8_t d[16 + 8 * 8] = { 0 };
	uint16_t type = PG_KSTACK_TYPE;

	memcpy(d, &type, 2);
	memcpy(d + 4, &pid, 4);
	memcpy(d + 8, &n, 4);
	memcpy(d + 16, ips, 8 * n);
	ingest_record_at(ing, cpu, cpu, d, 16 + 8 * n, 0, ts);
}

static void rec_alloc(struct ingest *ing, int32_t pid, uint64_t bytes)
{
	uint8_t d[64] = { 0 };
	uint16_t type = PG_EVENT2_TYPE;

	memcpy(d, &type, 2);
	memcpy(d + 4, &pid, 4);
	memcpy(d + 32, &bytes, 8);
	ingest_record_at(ing, 0, 0, d, sizeof(d), 0, 1);
}

static void test_views_ingest_weight(void **state)
{
	struct evfmt fmt;
	struct stack_table *t = stack_table_new();
	struct evfmt_field bytes = { .offset = 32, .size = 8 };
	struct ingest *ing;
	struct stack *s;

	(void)state;
	pagegen_init_fmt(&fmt);
	stack_table_set_weighted(t, true);
	ing = ingest_new(&fmt, t, 2);
	assert_non_null(ing);
	assert_int_equal(ingest_set_weight(ing, 1, &bytes), 0);
	rec_alloc(ing, 10, 100);
	rec_stack(ing, 0, 10, S1, 4, 2);
	rec_alloc(ing, 10, 28);
	rec_stack(ing, 0, 10, S1, 4, 3);
	rec_switch(ing, 0, 10, 1, 11, 4); /* event 0: no weight field */
	rec_stack(ing, 0, 10, S2, 4, 5);
	s = stack_table_intern(t, S1, 4);
	assert_int_equal(s->total, 2);
	assert_int_equal(stack_weight(t, s, NULL), 128);
	s = stack_table_intern(t, S2, 4);
	assert_int_equal(s->total, 1);
	assert_int_equal(stack_weight(t, s, NULL), 0);
	ingest_free(ing);
	stack_table_free(t);
}

static void test_views_ingest_offcpu(void **state)
{
	struct evfmt fmt;
	struct stack_table *t = stack_table_new();
	struct ingest_offcpu oc = {
		.event = 0,
		.prev_state = { .offset = 32, .size = 8 },
		.next_pid = { .offset = 56, .size = 4 },
	};
	struct ingest *ing;
	struct stack *s;

	(void)state;
	pagegen_init_fmt(&fmt);
	stack_table_set_weighted(t, true);
	ing = ingest_new(&fmt, t, 2);
	assert_non_null(ing);
	ingest_set_offcpu(ing, &oc);

	/* pid 10 blocks (S) at 1000 with S1, runs again at 201000 on CPU 1 */
	rec_switch(ing, 0, 10, 1, 0, 1000);
	rec_stack(ing, 0, 10, S1, 4, 1000);
	ingest_offcpu_settle(ing);
	s = stack_table_intern(t, S1, 4);
	assert_int_equal(s->total, 0); /* not back yet */
	/* the switch-in: pid 99 is preempted (R+), its stack is not counted */
	rec_switch(ing, 1, 99, INGEST_PREEMPTED, 10, 201000);
	rec_stack(ing, 1, 99, S3, 4, 201000);
	ingest_offcpu_settle(ing);
	assert_int_equal(s->total, 1);
	assert_int_equal(stack_weight(t, s, NULL), 200000);
	assert_int_equal(stack_table_intern(t, S3, 4)->total, 0);

	/* CPU 1's switch-in read before CPU 0's switch-out: matched all the same */
	rec_switch(ing, 1, 98, INGEST_PREEMPTED, 11, 5000);
	rec_stack(ing, 1, 98, S3, 4, 5000);
	rec_switch(ing, 0, 11, 2, 0, 2000);
	rec_stack(ing, 0, 11, S2, 4, 2000);
	ingest_offcpu_settle(ing);
	s = stack_table_intern(t, S2, 4);
	assert_int_equal(s->total, 1);
	assert_int_equal(stack_weight(t, s, NULL), 3000);

	/* a preempted task is not blocked: not counted by default... */
	rec_switch(ing, 0, 12, INGEST_PREEMPTED, 0, 100);
	rec_stack(ing, 0, 12, S3, 4, 100);
	rec_switch(ing, 1, 0, 0, 12, 400);
	ingest_offcpu_settle(ing);
	assert_int_equal(stack_table_intern(t, S3, 4)->total, 0);
	/* ...but with --offcpu=all */
	oc.all = true;
	ingest_set_offcpu(ing, &oc);
	rec_switch(ing, 0, 12, INGEST_PREEMPTED, 0, 1000);
	rec_stack(ing, 0, 12, S3, 4, 1000);
	rec_switch(ing, 1, 0, 0, 12, 1700);
	ingest_offcpu_settle(ing);
	s = stack_table_intern(t, S3, 4);
	assert_int_equal(s->total, 1);
	assert_int_equal(stack_weight(t, s, NULL), 700);
	ingest_free(ing);
	stack_table_free(t);
}

/* sched_waking on the test kernel: event 1, the woken pid at 24 */
static void rec_wake(struct ingest *ing, unsigned int cpu, int32_t waker, int32_t woken,
		     uint64_t ts)
{
	uint8_t d[64] = { 0 };
	uint16_t type = PG_EVENT2_TYPE;

	memcpy(d, &type, 2);
	memcpy(d + 4, &waker, 4);
	memcpy(d + 24, &woken, 4);
	ingest_record_at(ing, cpu, cpu, d, sizeof(d), 0, ts);
	rec_stack(ing, cpu, waker, S3, 4, ts);
}

static struct ingest *offcpu_ingest(struct evfmt *fmt, struct stack_table *t, bool split)
{
	struct ingest_offcpu oc = {
		.event = 0,
		.prev_state = { .offset = 32, .size = 8 },
		.next_pid = { .offset = 56, .size = 4 },
		.wake = true,
		.wake_event = 1,
		.wake_pid = { .offset = 24, .size = 4 },
		.split = split,
		.blocked_event = 2,
		.runq_event = 3,
	};
	struct ingest *ing;

	pagegen_init_fmt(fmt);
	stack_table_set_weighted(t, true);
	ing = ingest_new(fmt, t, 2);
	assert_non_null(ing);
	ingest_set_offcpu(ing, &oc);
	return ing;
}

/* the weight of @st's record for @event (any cpu, pid) */
static uint64_t event_weight(const struct stack_table *t, const struct stack *st,
			     unsigned int event)
{
	const struct stack_attr *a;
	uint64_t w = 0;

	for (a = st->attrs; a; a = a->next)
		if (a->event == event)
			w += stack_attr_weight(t, a, NULL);
	return w;
}

/*
 * One drain reads CPU 0 whole, then CPU 1: a task's records come out of
 * time order. Pid 10 blocks on CPU 0 at 1000 (S1), runs on CPU 1 at 5000,
 * blocks there at 6000 (S2) and runs on CPU 0 again at 9000.
 */
static void test_views_offcpu_out_of_order(void **state)
{
	struct evfmt fmt;
	struct stack_table *t = stack_table_new();
	struct ingest *ing = offcpu_ingest(&fmt, t, false);
	struct stack *s1, *s2;

	(void)state;
	rec_switch(ing, 0, 10, 1, 0, 1000);
	rec_stack(ing, 0, 10, S1, 4, 1000);
	rec_switch(ing, 0, 0, 0, 10, 9000);
	rec_stack(ing, 0, 0, S3, 4, 9000);
	rec_switch(ing, 1, 0, 0, 10, 5000);
	rec_stack(ing, 1, 0, S3, 4, 5000);
	rec_switch(ing, 1, 10, 1, 0, 6000);
	rec_stack(ing, 1, 10, S2, 4, 6000);
	ingest_offcpu_settle(ing);
	s1 = stack_table_intern(t, S1, 4);
	s2 = stack_table_intern(t, S2, 4);
	assert_int_equal(s1->total, 1);
	assert_int_equal(stack_weight(t, s1, NULL), 4000); /* 1000 to 5000, not to 9000 */
	assert_int_equal(s2->total, 1);
	assert_int_equal(stack_weight(t, s2, NULL), 3000);
	assert_int_equal(stack_table_intern(t, S3, 4)->total, 0); /* idle and wakers: no */
	ingest_free(ing);
	stack_table_free(t);
}

/*
 * A switch-in the kernel did not record (an idle task's, on some kernels):
 * the time ends at the wakeup, never at the task's next switch-in.
 */
static void test_views_offcpu_lost_switch_in(void **state)
{
	struct evfmt fmt;
	struct stack_table *t = stack_table_new();
	struct ingest *ing = offcpu_ingest(&fmt, t, false);
	struct stack *s1, *s2;

	(void)state;
	rec_switch(ing, 0, 10, 1, 0, 1000);
	rec_stack(ing, 0, 10, S1, 4, 1000);
	rec_wake(ing, 1, 0, 10, 201000);
	/* no switch-in: it blocks again at 201100 */
	rec_switch(ing, 1, 10, 1, 0, 201100);
	rec_stack(ing, 1, 10, S2, 4, 201100);
	rec_wake(ing, 0, 0, 10, 401100);
	rec_switch(ing, 0, 0, 0, 10, 401300);
	rec_stack(ing, 0, 0, S3, 4, 401300);
	/* and one with neither: not counted */
	rec_switch(ing, 0, 10, 1, 0, 402000);
	rec_stack(ing, 0, 10, S1, 4, 402000);
	rec_switch(ing, 0, 10, 1, 0, 403000);
	rec_stack(ing, 0, 10, S1, 4, 403000);
	ingest_offcpu_settle(ing);
	s1 = stack_table_intern(t, S1, 4);
	s2 = stack_table_intern(t, S2, 4);
	assert_int_equal(s1->total, 1);
	assert_int_equal(stack_weight(t, s1, NULL), 200000);
	assert_int_equal(s2->total, 1);
	assert_int_equal(stack_weight(t, s2, NULL), 200200);
	assert_int_equal(ingest_stats(ing)->offcpu_woken, 1);
	assert_int_equal(ingest_stats(ing)->offcpu_unpaired, 1);
	ingest_free(ing);
	stack_table_free(t);
}

/* --offcpu=wait: blocked until woken, then waiting for a CPU */
static void test_views_offcpu_wait_split(void **state)
{
	struct evfmt fmt;
	struct stack_table *t = stack_table_new();
	struct ingest *ing = offcpu_ingest(&fmt, t, true);
	struct stack *s1;

	(void)state;
	rec_switch(ing, 0, 10, 1, 0, 1000);
	rec_stack(ing, 0, 10, S1, 4, 1000);
	/* the waker's CPU is read after the switch-in's */
	rec_switch(ing, 0, 0, 0, 10, 201500);
	rec_stack(ing, 0, 0, S3, 4, 201500);
	rec_wake(ing, 1, 0, 10, 201000);
	ingest_offcpu_settle(ing);
	s1 = stack_table_intern(t, S1, 4);
	assert_int_equal(s1->total, 2);
	assert_int_equal(stack_weight(t, s1, NULL), 200500);
	assert_int_equal(event_weight(t, s1, 2), 200000);
	assert_int_equal(event_weight(t, s1, 3), 500);
	assert_int_equal(event_weight(t, s1, 0), 0);
	ingest_free(ing);
	stack_table_free(t);
}

static void test_views_fmt_weight(void **state)
{
	char b[16];

	(void)state;
	fmt_weight(b, sizeof(b), 999, UNIT_BYTES);
	assert_string_equal(b, "999B");
	fmt_weight(b, sizeof(b), 9728, UNIT_BYTES);
	assert_string_equal(b, "9.5KiB");
	fmt_weight(b, sizeof(b), 1000 * 1024, UNIT_BYTES);
	assert_string_equal(b, "0.9MiB");
	fmt_weight(b, sizeof(b), 3 * 1024 * 1024 + 512 * 1024, UNIT_BYTES);
	assert_string_equal(b, "3.5MiB");
	fmt_weight(b, sizeof(b), 950, UNIT_NS);
	assert_string_equal(b, "950ns");
	fmt_weight(b, sizeof(b), 200000000, UNIT_NS);
	assert_string_equal(b, "200ms");
	fmt_weight(b, sizeof(b), 1500000000, UNIT_NS);
	assert_string_equal(b, "1.5s");
	fmt_weight(b, sizeof(b), 1234567, UNIT_PLAIN);
	assert_string_equal(b, "1.23M");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_views_weight_ranks),
		cmocka_unit_test(test_views_group_depth1),
		cmocka_unit_test(test_views_group_weights),
		cmocka_unit_test(test_views_callee_tree),
		cmocka_unit_test(test_views_ingest_weight),
		cmocka_unit_test(test_views_ingest_offcpu),
		cmocka_unit_test(test_views_offcpu_out_of_order),
		cmocka_unit_test(test_views_offcpu_lost_switch_in),
		cmocka_unit_test(test_views_offcpu_wait_split),
		cmocka_unit_test(test_views_fmt_weight),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
