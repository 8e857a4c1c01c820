// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-stack_table.c - interning, counts, intervals, ids and ranking.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/hist.h"
#include "core/stack_table.h"
#include "core/rank.h"
#include "core/stack_group.h"
#include "core/stack_mem.h"

static int setup(void **state)
{
	*state = stack_table_new();
	return *state ? 0 : -1;
}

static int teardown(void **state)
{
	stack_table_free(*state);
	return 0;
}

static void test_stack_table_interns_by_content(void **state)
{
	struct stack_table *t = *state;
	uint64_t a[] = { 0xffffffff81000010, 0xffffffff81000200, 0xffffffff81003000 };
	uint64_t b[] = { 0xffffffff81000010, 0xffffffff81000200, 0xffffffff81003001 };
	uint64_t a2[3];
	struct stack *sa, *sb, *sa2, *prefix;

	memcpy(a2, a, sizeof(a));
	sa = stack_table_intern(t, a, 3);
	sb = stack_table_intern(t, b, 3);
	sa2 = stack_table_intern(t, a2, 3);
	prefix = stack_table_intern(t, a, 2);
	assert_non_null(sa);
	assert_ptr_equal(sa, sa2);
	assert_ptr_not_equal(sa, sb);
	assert_ptr_not_equal(sa, prefix);
	assert_int_equal(sa->depth, 3);
	assert_true(sa->ips[2] == 0xffffffff81003000);
	assert_int_equal(stack_table_count(t), 3);
	/* an empty stack is a stack too */
	assert_non_null(stack_table_intern(t, a, 0));
	assert_int_equal(stack_table_count(t), 4);
}

/* the reader's hash, a frame at a time as it copies, finds the same stacks */
static void test_stack_table_intern_hashed(void **state)
{
	struct stack_table *t = *state;
	uint64_t a[] = { 0xffffffff81000010, 0xffffffff81000200, 0xffffffff81003000 };
	uint64_t b[] = { 0xffffffff81000010, 0xffffffff81000200, 0xffffffff81003001 };
	uint64_t h;
	unsigned int i, d;
	struct stack *sa, *sb;

	for (d = 0; d <= 3; d++) {
		h = stack_hash_begin(d);
		for (i = 0; i < d; i++)
			h = stack_hash_step(h, a[i]);
		assert_int_equal(stack_hash_end(h), stack_hash(a, d));
	}
	sa = stack_table_intern(t, a, 3);
	assert_ptr_equal(stack_table_intern_hashed(t, a, 3, stack_hash(a, 3)), sa);
	/* inserted through the hashed path, found through the plain one */
	sb = stack_table_intern_hashed(t, b, 3, stack_hash(b, 3));
	assert_non_null(sb);
	assert_ptr_not_equal(sa, sb);
	assert_ptr_equal(stack_table_intern(t, b, 3), sb);
	assert_int_equal(sb->flags, 0);
	assert_int_equal(stack_table_count(t), 2);
}

static void test_stack_table_grows(void **state)
{
	struct stack_table *t = *state;
	uint64_t ips[4];
	unsigned int i;

	for (i = 0; i < 100000; i++) {
		ips[0] = i;
		ips[1] = i * 7;
		ips[2] = ~(uint64_t)i;
		ips[3] = 42;
		assert_non_null(stack_table_intern(t, ips, 4));
	}
	assert_int_equal(stack_table_count(t), 100000);
	for (i = 0; i < 100000; i += 997) {
		struct stack *s;

		ips[0] = i;
		ips[1] = i * 7;
		ips[2] = ~(uint64_t)i;
		s = stack_table_intern(t, ips, 4);
		assert_true(s->ips[0] == i);
	}
	assert_int_equal(stack_table_count(t), 100000);
}

static void test_stack_table_counts_and_intervals(void **state)
{
	struct stack_table *t = *state;
	uint64_t ips[] = { 1, 2, 3 };
	struct stack *s = stack_table_intern(t, ips, 3);
	uint64_t delta;

	assert_int_equal(stack_table_hit(t, s, 0, 0, 100, 1), 0);
	assert_int_equal(stack_table_hit(t, s, 0, 1, 100, 2), 0);
	assert_int_equal(stack_table_hit(t, s, 1, 0, 200, 3), 0);
	assert_int_equal(s->total, 6);
	/* the current interval is still open */
	assert_int_equal(stack_delta(t, s), 0);
	stack_table_tick(t);
	assert_int_equal(stack_delta(t, s), 6);
	assert_int_equal(stack_table_hits(t, &delta), 6);
	assert_int_equal(delta, 6);

	assert_int_equal(stack_table_hit(t, s, 0, 0, 100, 4), 0);
	stack_table_tick(t);
	assert_int_equal(stack_delta(t, s), 4);
	stack_table_hits(t, &delta);
	assert_int_equal(delta, 4);
	/* an idle interval reads 0, also two intervals later */
	stack_table_tick(t);
	assert_int_equal(stack_delta(t, s), 0);
	stack_table_tick(t);
	assert_int_equal(stack_delta(t, s), 0);
	assert_int_equal(s->total, 10);
}

/* a busy interval passes 2^32 hits: its delta must not wrap (issue 7) */
static void test_stack_table_counts_64bit(void **state)
{
	struct stack_table *t = *state;
	uint64_t ips[] = { 7, 8 };
	struct stack *s = stack_table_intern(t, ips, 2);
	const uint64_t big = 3000000000ULL; /* fits 32 bits; twice it does not */
	struct rank_opts o = { .key = RANK_DELTA, .event = -1, .pid = -1, .cpu = -1 };
	struct rank_opts of = o;
	struct rank_row row;
	struct rank_summary sum;
	uint64_t delta;

	assert_int_equal(stack_table_hit(t, s, 0, 0, 100, big), 0);
	assert_int_equal(stack_table_hit(t, s, 0, 0, 100, big), 0);
	assert_int_equal(stack_table_hit(t, s, 0, 0, 100, 5ULL << 32), 0);
	stack_table_tick(t);
	assert_true(stack_delta(t, s) == 2 * big + (5ULL << 32));
	assert_true(stack_attr_delta(t, s->attrs) == 2 * big + (5ULL << 32));
	assert_true(s->total == 2 * big + (5ULL << 32));
	assert_true(stack_table_hits(t, &delta) == 2 * big + (5ULL << 32));
	assert_true(delta == 2 * big + (5ULL << 32));
	/* what the screen shows: the ranked row, plain and through the filters */
	assert_int_equal(stack_table_rank(t, &o, &row, 1, &sum), 1);
	assert_true(row.delta == 2 * big + (5ULL << 32));
	assert_true(sum.delta == 2 * big + (5ULL << 32));
	of.pid = 100;
	assert_int_equal(stack_table_rank(t, &of, &row, 1, &sum), 1);
	assert_true(row.delta == 2 * big + (5ULL << 32));
}

static void test_stack_table_breakdown(void **state)
{
	struct stack_table *t = *state;
	uint64_t ips[] = { 9, 8, 7 };
	struct stack *s = stack_table_intern(t, ips, 3);
	const struct stack_attr *a;
	struct stack_top top;
	uint64_t sum = 0;
	int n = 0;

	stack_table_hit(t, s, 0, 0, 100, 1);
	stack_table_hit(t, s, 0, 0, 100, 1); /* same key: same record */
	stack_table_hit(t, s, 1, 1, 200, 5);
	stack_table_hit(t, s, 0, 1, 300, 2);
	for (a = s->attrs; a; a = a->next) {
		n++;
		sum += a->total;
	}
	assert_int_equal(n, 3);
	assert_int_equal(sum, 9);

	stack_top_of(t, s, false, NULL, &top);
	assert_int_equal(top.event, 1);
	assert_int_equal(top.event_hits, 5);
	assert_int_equal(top.pid, 200);
	assert_int_equal(top.cpu, 1);
	assert_int_equal(top.cpu_hits, 7);
	assert_int_equal(top.npids, 3);
}

/*
 * --offcpu=wait: every sleep is one blocked hit and one run-queue hit; the
 * view ranks by time, and so does the EVENT it names (issue 18: it said
 * blocked, the lower index of a tie in hits, where the run queue held 61%)
 */
static void test_stack_table_top_weighted(void **state)
{
	struct stack_table *t = *state;
	uint64_t ips[] = { 5, 6 };
	struct rank_opts hits = { .event = -1, .pid = -1, .cpu = -1 }, time = hits;
	struct stack *s;
	struct stack_top top;

	assert_int_equal(stack_table_set_weighted(t, true), 0);
	s = stack_table_intern(t, ips, 2);
	assert_non_null(s);
	time.weight = true;
	stack_table_hit_w(t, s, 0, 0, 100, 10, 34); /* blocked: 10 waits, 34 ns */
	stack_table_hit_w(t, s, 1, 0, 100, 10, 61); /* run queue: 10, 61 ns */
	stack_table_hit_w(t, s, 0, 1, 200, 1, 5);   /* another thread, blocked */
	stack_top_of(t, s, false, &hits, &top);
	assert_int_equal(top.event, 0); /* 11 hits against 10 */
	stack_top_of(t, s, false, &time, &top);
	assert_int_equal(top.event, 1);	      /* 61 ns against 39 */
	assert_int_equal(top.event_hits, 10); /* picked by the weight; hits stay hits */
	assert_int_equal(top.pid, 100);
	assert_int_equal(top.pid_hits, 20);
	/* a thread of many short waits has most hits, not most time */
	stack_table_hit_w(t, s, 1, 1, 300, 30, 3);
	stack_top_of(t, s, false, &hits, &top);
	assert_int_equal(top.pid, 300);
	stack_top_of(t, s, false, &time, &top);
	assert_int_equal(top.pid, 100);
	assert_int_equal(top.cpu, 0);
	/* an unweighted table: the flag changes nothing */
	{
		struct stack_table *u = stack_table_new();
		struct stack *us = stack_table_intern(u, ips, 2);

		stack_table_hit(u, us, 0, 0, 100, 3);
		stack_table_hit(u, us, 1, 0, 100, 2);
		stack_top_of(u, us, false, &time, &top);
		assert_int_equal(top.event, 0);
		assert_int_equal(top.event_hits, 3);
		stack_table_free(u);
	}
}

static bool not_pid_200(const struct stack_attr *a, void *ctx)
{
	(void)ctx;
	return a->pid != 200;
}

/*
 * The top pid is exact whatever the number of pids: one old, hot pid among
 * a thousand newer ones that hit once (the record list is newest first), by
 * the count asked for and under the filters.
 */
static void test_stack_table_top_many(void **state)
{
	struct stack_table *t = *state;
	uint64_t ips[] = { 1, 2, 3, 4 };
	struct stack *s = stack_table_intern(t, ips, 4);
	struct rank_opts o = { .event = -1, .pid = -1, .cpu = -1, .attr_match = not_pid_200 };
	struct stack_top top;
	int pid;

	stack_table_hit(t, s, 0, 0, 100, 500);
	stack_table_hit(t, s, 0, 1, 100, 500); /* same pid, another CPU: summed */
	stack_table_hit(t, s, 1, 0, 200, 900);
	for (pid = 1000; pid < 2000; pid++)
		stack_table_hit(t, s, 0, (unsigned int)pid & 1, pid, 1);
	stack_top_of(t, s, false, NULL, &top);
	assert_int_equal(top.pid, 100);
	assert_int_equal(top.pid_hits, 1000);
	assert_int_equal(top.npids, 1002);
	assert_int_equal(top.event, 0);
	assert_int_equal(top.event_hits, 2000);

	/* the last interval: pid 200 alone was busy in it */
	stack_table_tick(t);
	stack_table_hit(t, s, 1, 0, 200, 3);
	stack_table_hit(t, s, 0, 0, 1500, 1);
	stack_table_tick(t);
	stack_top_of(t, s, true, NULL, &top);
	assert_int_equal(top.pid, 200);
	assert_int_equal(top.pid_hits, 3);
	assert_int_equal(top.npids, 2);

	/* filtered: pid 200's hits do not count */
	stack_top_of(t, s, false, &o, &top);
	assert_int_equal(top.pid, 100);
	assert_int_equal(top.npids, 1001);
	stack_top_of(t, s, true, &o, &top);
	assert_int_equal(top.pid, 1500);
	assert_int_equal(top.npids, 1);
	o.event = 1;
	stack_top_of(t, s, true, &o, &top);
	assert_int_equal(top.pid, -1);
	assert_int_equal(top.npids, 0);
}

/* more distinct events, CPUs and pids than the first table holds: summed again */
static void test_stack_table_top_refill(void **state)
{
	struct stack_table *t = *state;
	uint64_t ips[] = { 11, 12 };
	struct stack *s = stack_table_intern(t, ips, 2);
	struct stack_top top;
	unsigned int i;

	for (i = 0; i < 400; i++)
		stack_table_hit(t, s, i, i, (int)i + 1, i + 1);
	stack_top_of(t, s, false, NULL, &top);
	assert_int_equal(top.pid, 400);
	assert_int_equal(top.pid_hits, 400);
	assert_int_equal(top.event, 399);
	assert_int_equal(top.cpu, 399);
	assert_int_equal(top.npids, 400);
}

static void test_stack_table_ids(void **state)
{
	struct stack_table *t = *state;
	uint64_t ips[] = { 5 };
	struct stack *s = stack_table_intern(t, ips, 1);

	stack_add_id(s, 4025);
	stack_add_id(s, 42);
	stack_add_id(s, 4025);
	assert_int_equal(s->nids, 2);
	assert_int_equal(s->ids[0], 42); /* sorted */
	assert_int_equal(s->ids[1], 4025);
	assert_false(s->flags & STACK_F_MOREIDS);
	stack_add_id(s, 7);
	assert_true(s->flags & STACK_F_MOREIDS);
}

static void test_stack_table_cut(void **state)
{
	struct stack_table *t = *state;
	uint64_t *ips = calloc(STACK_MAX_DEPTH + 10, sizeof(*ips));
	struct stack *s;

	s = stack_table_intern(t, ips, STACK_MAX_DEPTH + 10);
	assert_non_null(s);
	assert_int_equal(s->depth, STACK_MAX_DEPTH);
	assert_true(s->flags & STACK_F_CUT);
	free(ips);
}

static void test_stack_table_clear(void **state)
{
	struct stack_table *t = *state;
	uint64_t ips[] = { 1, 2 };
	struct stack *s = stack_table_intern(t, ips, 2);

	stack_table_hit(t, s, 0, 0, 1, 3);
	stack_table_clear(t);
	assert_int_equal(stack_table_count(t), 0);
	assert_int_equal(stack_table_hits(t, NULL), 0);
	s = stack_table_intern(t, ips, 2);
	assert_int_equal(s->total, 0);
	assert_null(s->attrs);
}

/* ---- ranking against a brute-force reference --------------------------- */

static struct stack *fill_random(struct stack_table *t, unsigned int n, unsigned int seed)
{
	struct stack *first = NULL;
	unsigned int i;

	srand(seed);
	for (i = 0; i < n; i++) {
		uint64_t ips[2] = { i, 1000 + i };
		struct stack *s = stack_table_intern(t, ips, 2);
		int hits = rand() % 50;

		if (!first)
			first = s;
		if (hits)
			stack_table_hit(t, s, (unsigned int)(i % 3), (unsigned int)(i % 2),
					(int)(i % 5), (uint32_t)hits);
	}
	stack_table_tick(t);
	for (i = 0; i < n; i += 3) {
		uint64_t ips[2] = { i, 1000 + i };

		stack_table_hit(t, stack_table_intern(t, ips, 2), 0, 0, 1, (uint32_t)(i % 7));
	}
	stack_table_tick(t);
	return first;
}

static void test_stack_table_rank_matches_sort(void **state)
{
	struct stack_table *t = *state;
	struct rank_opts o = { .key = RANK_TOTAL, .event = -1, .pid = -1, .cpu = -1 };
	struct rank_row rows[50];
	struct rank_summary sum;
	uint64_t prev = UINT64_MAX, seen_max = 0;
	size_t n, i;

	fill_random(t, 5000, 1);
	n = stack_table_rank(t, &o, rows, 50, &sum);
	assert_int_equal(n, 50);
	for (i = 0; i < n; i++) {
		assert_true(rows[i].total <= prev);
		prev = rows[i].total;
		assert_true(rows[i].total == rows[i].stack->total);
	}
	/* nothing outside the top 50 beats the 50th */
	{
		struct rank_row all[5000];
		size_t m = stack_table_rank(t, &o, all, 5000, NULL);

		assert_int_equal(m, sum.matched);
		for (i = 50; i < m; i++)
			if (all[i].total > seen_max)
				seen_max = all[i].total;
		assert_true(seen_max <= rows[49].total);
	}
	/* inverted: ascending */
	o.invert = true;
	n = stack_table_rank(t, &o, rows, 50, NULL);
	for (i = 1; i < n; i++)
		assert_true(rows[i - 1].total <= rows[i].total);
}

static void test_stack_table_rank_filters(void **state)
{
	struct stack_table *t = *state;
	struct rank_opts o = { .key = RANK_DELTA, .event = 0, .pid = -1, .cpu = -1 };
	struct rank_row rows[10];
	struct rank_summary sum;
	size_t n, i;

	fill_random(t, 300, 2);
	n = stack_table_rank(t, &o, rows, 10, &sum);
	assert_true(n > 0);
	for (i = 0; i < n; i++) {
		const struct stack_attr *a;
		uint64_t expect = 0;

		for (a = rows[i].stack->attrs; a; a = a->next)
			if (a->event == 0)
				expect += stack_attr_delta(t, a);
		assert_true(rows[i].delta == expect);
		if (i)
			assert_true(rows[i - 1].delta >= rows[i].delta);
	}
	/* a filter nothing matches */
	o.event = 99;
	n = stack_table_rank(t, &o, rows, 10, &sum);
	assert_int_equal(n, 0);
	assert_int_equal(sum.matched, 0);
	/* hide idle: only stacks hit in the last interval */
	o.event = -1;
	o.hide_idle = true;
	n = stack_table_rank(t, &o, rows, 10, &sum);
	for (i = 0; i < n; i++)
		assert_true(rows[i].delta > 0);
}

static bool match_even(const struct stack *s, void *ctx)
{
	(void)ctx;
	return (s->ips[0] & 1) == 0;
}

static void test_stack_table_rank_match(void **state)
{
	struct stack_table *t = *state;
	struct rank_opts o = {
		.key = RANK_TOTAL, .event = -1, .pid = -1, .cpu = -1, .match = match_even
	};
	struct rank_row rows[20];
	size_t n, i;

	fill_random(t, 200, 3);
	n = stack_table_rank(t, &o, rows, 20, NULL);
	assert_true(n > 0);
	for (i = 0; i < n; i++)
		assert_int_equal(rows[i].stack->ips[0] & 1, 0);
}

static bool match_all(const struct stack *s, void *ctx)
{
	(void)s;
	(void)ctx;
	return true;
}

/* ranking by the last interval from the active list = the full walk */
static void test_stack_table_rank_active_list(void **state)
{
	struct stack_table *t = *state;
	struct rank_opts fast = { .key = RANK_DELTA, .event = -1, .pid = -1, .cpu = -1 };
	struct rank_opts full = fast;
	struct rank_row a[40], b[40];
	struct rank_summary sa, sb;
	size_t na, nb, i;

	full.match = match_all; /* a filter forces the walk over every stack */
	/* 6000 stacks hit long ago, then ~860 of 3000 hit in the last interval */
	for (i = 0; i < 6000; i++) {
		uint64_t ips[2] = { 100000 + i, 7 };

		stack_table_hit(t, stack_table_intern(t, ips, 2), 1, 0, 2, (uint32_t)(1 + i % 50));
	}
	stack_table_tick(t);
	fill_random(t, 3000, 4);
	na = stack_table_rank(t, &fast, a, 40, &sa);
	nb = stack_table_rank(t, &full, b, 40, &sb);
	assert_int_equal(na, 40);
	assert_int_equal(na, nb);
	for (i = 0; i < na; i++) {
		assert_ptr_equal(a[i].stack, b[i].stack);
		assert_true(a[i].delta == b[i].delta && a[i].total == b[i].total);
	}
	assert_int_equal(sa.matched, sb.matched);
	assert_true(sa.total == sb.total && sa.delta == sb.delta);

	/* an interval with fewer active stacks than rows wanted: the walk, same answer */
	stack_table_tick(t);
	na = stack_table_rank(t, &fast, a, 40, &sa);
	nb = stack_table_rank(t, &full, b, 40, &sb);
	assert_int_equal(na, nb);
	for (i = 0; i < na; i++)
		assert_ptr_equal(a[i].stack, b[i].stack);
	assert_int_equal(sa.matched, sb.matched);
}

static bool attr_pid_7(const struct stack_attr *a, void *ctx)
{
	(void)ctx;
	return a->pid == 7;
}

/* a comm-like filter counts only the matching records' hits */
static void test_stack_table_rank_attr_match(void **state)
{
	struct stack_table *t = *state;
	struct rank_opts o = {
		.key = RANK_TOTAL, .event = -1, .pid = -1, .cpu = -1, .attr_match = attr_pid_7
	};
	uint64_t a[] = { 1 }, b[] = { 2 };
	struct stack *sa = stack_table_intern(t, a, 1), *sb = stack_table_intern(t, b, 1);
	struct rank_row rows[2];
	struct rank_summary sum;

	stack_table_hit(t, sa, 0, 0, 7, 3);
	stack_table_hit(t, sa, 0, 0, 8, 100);
	stack_table_hit(t, sb, 0, 1, 8, 50);
	assert_int_equal(stack_table_rank(t, &o, rows, 2, &sum), 1);
	assert_ptr_equal(rows[0].stack, sa);
	assert_int_equal(rows[0].total, 3);
	assert_int_equal(sum.total, 3);
}

static void test_stack_table_rank_by_id(void **state)
{
	struct stack_table *t = *state;
	struct rank_opts o = { .key = RANK_ID, .event = -1, .pid = -1, .cpu = -1 };
	uint64_t a[] = { 1 }, b[] = { 2 }, c[] = { 3 };
	struct stack *sa = stack_table_intern(t, a, 1), *sb = stack_table_intern(t, b, 1),
		     *sc = stack_table_intern(t, c, 1);
	struct rank_row rows[3];

	stack_add_id(sa, 900);
	stack_add_id(sb, 12);
	stack_table_hit(t, sa, 0, 0, 1, 1);
	stack_table_hit(t, sb, 0, 0, 1, 1);
	stack_table_hit(t, sc, 0, 0, 1, 1);
	assert_int_equal(stack_table_rank(t, &o, rows, 3, NULL), 3);
	assert_ptr_equal(rows[0].stack, sb);
	assert_ptr_equal(rows[1].stack, sa);
	assert_ptr_equal(rows[2].stack, sc); /* no id: last */
}

/* pids >= 1000 have exited, as "job<pid % 3>"; below are alive */
static bool fold_exited(void *ctx, int pid, char *comm)
{
	int *calls = ctx;

	(*calls)++;
	if (pid < 1000)
		return false;
	snprintf(comm, 16, "job%d", pid % 3);
	return true;
}

struct sum_ctx {
	uint64_t stacks, attrs;
	size_t nattrs;
};

static int sum_one(struct stack *s, void *ctx)
{
	struct sum_ctx *c = ctx;
	const struct stack_attr *a;

	c->stacks += s->total;
	for (a = s->attrs; a; a = a->next) {
		c->attrs += a->total;
		c->nattrs++;
	}
	return 0;
}

static void test_stack_table_fold(void **state)
{
	struct stack_table *t = *state;
	uint64_t ips[2][3] = { { 0xffffffff81000010, 0xffffffff81000200, 0xffffffff81003000 },
			       { 0xffffffff81000020, 0xffffffff81000200, 0xffffffff81003000 } };
	struct sum_ctx before = { 0 }, after = { 0 };
	struct stack_mem m, m0, m2;
	struct stack *st[2];
	struct stack_attr *a;
	int pid, calls = 0, job[3] = { 0 }, alive = 0;
	long n;

	st[0] = stack_table_intern(t, ips[0], 3);
	st[1] = stack_table_intern(t, ips[1], 3);
	/* a build machine: 3000 short-lived pids, and 10 that live on */
	for (pid = 1000; pid < 4000; pid++)
		assert_int_equal(stack_table_hit(t, st[pid & 1], 0, (unsigned int)pid % 2, pid, 2),
				 0);
	stack_table_tick(t);
	for (pid = 1; pid <= 10; pid++)
		assert_int_equal(stack_table_hit(t, st[0], 0, 0, pid, 1), 0);
	stack_table_foreach(t, sum_one, &before);
	assert_int_equal(before.nattrs, 3010);
	stack_table_mem(t, &m0);

	n = stack_table_fold(t, fold_exited, &calls);
	assert_int_equal(n, 3000);
	assert_int_equal(calls, 3010); /* once per pid */
	stack_table_foreach(t, sum_one, &after);
	/* every count kept: per stack and over the records */
	assert_int_equal(after.stacks, before.stacks);
	assert_int_equal(after.attrs, before.attrs);
	assert_int_equal(after.attrs, 3000 * 2 + 10);
	/* (stack, cpu) is fixed by the pid's parity: 3 comms each, plus the 10 alive */
	assert_int_equal(after.nattrs, 2 * 3 + 10);
	for (a = st[0]->attrs; a; a = a->next) {
		if (stack_pid_folded(a->pid)) {
			const char *c = stack_table_folded_comm(t, a->pid);

			assert_non_null(c);
			assert_int_equal(strncmp(c, "job", 3), 0);
			job[c[3] - '0'] += (int)a->total;
			/* the interval counts folded too: every hit was in the closed one */
			assert_int_equal(stack_attr_delta(t, a), a->total);
		} else {
			assert_true(a->pid >= 1 && a->pid <= 10);
			alive++;
		}
	}
	assert_int_equal(alive, 10);
	assert_int_equal(job[0] + job[1] + job[2], 1500 * 2);
	stack_table_mem(t, &m2);
	assert_int_equal(m2.folded, 3000);
	assert_true(m2.free_bytes > 0);
	assert_true(m2.bytes < m0.bytes); /* the record hash shrank */
	/* the freed records are reused: 2000 new pids take no new record memory */
	for (pid = 5000; pid < 7000; pid++)
		assert_int_equal(stack_table_hit(t, st[1], 0, 0, pid, 1), 0);
	stack_table_mem(t, &m);
	assert_true(m.bytes <= m0.bytes + 64 * 16); /* + the folded names */
	assert_true(m.free_bytes < m2.free_bytes);
	/* a second fold merges into the records of the first */
	n = stack_table_fold(t, fold_exited, &calls);
	assert_int_equal(n, 2000);
	memset(&after, 0, sizeof(after));
	stack_table_foreach(t, sum_one, &after);
	assert_int_equal(after.attrs, 3000 * 2 + 10 + 2000);
	assert_int_equal(after.nattrs, 2 * 3 + 10 + 3); /* st[1] on cpu 0 is new: 3 comms */
	assert_null(stack_table_folded_comm(t, 5));
	assert_null(stack_table_folded_comm(t, STACK_PID_FOLDED - 50));
}

static void test_stack_table_limit(void **state)
{
	struct stack_table *t = *state;
	struct sum_ctx sum = { 0 };
	struct stack_mem m;
	struct stack *over = NULL;
	uint64_t ips[40];
	unsigned int i, j;
	uint64_t hits = 0;

	stack_table_set_limit(t, 256 << 10);
	/* far more distinct stacks than 256 KiB hold, each hit by many pids */
	for (i = 0; i < 20000; i++) {
		struct stack *s;

		for (j = 0; j < 40; j++)
			ips[j] = 0xffffffff81000000ULL + i * 64 + j;
		s = stack_table_intern(t, ips, 40);
		assert_non_null(s);
		if (s->flags & STACK_F_OVER)
			over = s;
		for (j = 0; j < 3; j++) {
			stack_table_hit(t, s, 0, j, (int)(i * 3 + j), 1);
			hits++;
		}
		stack_table_mem(t, &m);
		assert_true(m.bytes <= 256 << 10);
	}
	assert_non_null(over);
	assert_int_equal(over->depth, 0);
	stack_table_mem(t, &m);
	assert_true(m.over_stacks > 0);
	assert_true(m.over_hits >= m.over_stacks);
	/* no hit lost: the refused stacks' hits are on the over stack */
	stack_table_foreach(t, sum_one, &sum);
	assert_int_equal(sum.stacks, hits);
	assert_int_equal(stack_table_hits(t, NULL), hits);
	assert_true(over->total >= m.over_stacks);
	stack_table_clear(t);
	stack_table_mem(t, &m);
	assert_int_equal(m.over_stacks, 0);
}

/* the bucket math of core/hist.h: bpftrace's log2 buckets, and time in its units */
static void test_hist_buckets(void **state)
{
	char buf[64];
	unsigned int b;

	(void)state;
	/* bpftrace's hist(): [0], [1], [2, 4), [4, 8) ... */
	assert_int_equal(hist_bucket(HIST_LOG2, 0), 0);
	assert_int_equal(hist_bucket(HIST_LOG2, 1), 1);
	assert_int_equal(hist_bucket(HIST_LOG2, 2), 2);
	assert_int_equal(hist_bucket(HIST_LOG2, 3), 2);
	assert_int_equal(hist_bucket(HIST_LOG2, 4), 3);
	assert_int_equal(hist_bucket(HIST_LOG2, 1023), 10);
	assert_int_equal(hist_bucket(HIST_LOG2, 1024), 11);
	assert_int_equal(hist_bucket(HIST_LOG2, UINT64_MAX), HIST_BUCKETS - 1);
	hist_label(buf, sizeof(buf), HIST_LOG2, 0);
	assert_string_equal(buf, "[0]");
	hist_label(buf, sizeof(buf), HIST_LOG2, 1);
	assert_string_equal(buf, "[1]");
	hist_label(buf, sizeof(buf), HIST_LOG2, 2);
	assert_string_equal(buf, "[2, 4)");
	hist_label(buf, sizeof(buf), HIST_LOG2, 11);
	assert_string_equal(buf, "[1K, 2K)");
	hist_label(buf, sizeof(buf), HIST_LOG2, 28);
	assert_string_equal(buf, "[128M, 256M)");
	hist_label(buf, sizeof(buf), HIST_LOG2, HIST_BUCKETS - 1);
	assert_string_equal(buf, "[64T, ...)");

	/* time: powers of two inside ns, us, ms and s; 200 ms in [128ms, 256ms) */
	b = hist_bucket(HIST_TIME, 200000000);
	hist_label(buf, sizeof(buf), HIST_TIME, b);
	assert_string_equal(buf, "[128ms, 256ms)");
	assert_int_equal(hist_low(HIST_TIME, b), 128000000);
	assert_int_equal(hist_high(HIST_TIME, b), 256000000);
	assert_int_equal(hist_bucket(HIST_TIME, 127999999), b - 1);
	assert_int_equal(hist_bucket(HIST_TIME, 128000000), b);
	assert_int_equal(hist_bucket(HIST_TIME, 255999999), b);
	assert_int_equal(hist_bucket(HIST_TIME, 256000000), b + 1);
	hist_label(buf, sizeof(buf), HIST_TIME, hist_bucket(HIST_TIME, 999));
	assert_string_equal(buf, "[512ns, 1us)");
	hist_label(buf, sizeof(buf), HIST_TIME, hist_bucket(HIST_TIME, 1000));
	assert_string_equal(buf, "[1us, 2us)");
	hist_label(buf, sizeof(buf), HIST_TIME, hist_bucket(HIST_TIME, 1500000));
	assert_string_equal(buf, "[1ms, 2ms)");
	hist_label(buf, sizeof(buf), HIST_TIME, hist_bucket(HIST_TIME, 999999999));
	assert_string_equal(buf, "[512ms, 1s)");
	hist_label(buf, sizeof(buf), HIST_TIME, hist_bucket(HIST_TIME, 3000000000ULL));
	assert_string_equal(buf, "[2s, 4s)");
	hist_label(buf, sizeof(buf), HIST_TIME, hist_bucket(HIST_TIME, UINT64_MAX));
	assert_string_equal(buf, "[65536s, ...)");
	/* every bucket's bounds hold the values that land in it, in both scales */
	for (b = 0; b < HIST_BUCKETS; b++) {
		unsigned int sc;

		for (sc = HIST_LOG2; sc <= HIST_TIME; sc++) {
			uint64_t lo = hist_low(sc, b), hi = hist_high(sc, b);

			assert_int_equal(hist_bucket(sc, lo), b);
			if (hi != UINT64_MAX) {
				assert_true(hi > lo);
				assert_int_equal(hist_bucket(sc, hi - 1), b);
				assert_int_equal(hist_bucket(sc, hi), b + 1);
			}
		}
	}
	/* bpftrace's bar: count * 52 / max '@' */
	assert_int_equal(hist_bar(buf, sizeof(buf), 5, 5, 52), 52);
	assert_int_equal(strlen(buf), 54);
	assert_int_equal(hist_bar(buf, sizeof(buf), 1, 3, 52), 17);
	assert_int_equal(hist_bar(buf, sizeof(buf), 0, 3, 52), 0);
	assert_string_equal(buf, "|                                                    |");
}

static uint64_t page_of(void *ctx, uint64_t ip)
{
	(void)ctx;
	return ip & ~0xfffULL;
}

/* a weighted table keeps each stack's single weights in buckets; grouping sums them */
static void test_stack_table_hist(void **state)
{
	struct stack_table *t = *state, *g = stack_table_new();
	uint64_t a[] = { 0xffffffff81000010, 0xffffffff81000200 };
	uint64_t b[] = { 0xffffffff81000020, 0xffffffff81000200 };
	uint64_t c[HIST_BUCKETS];
	struct stack_group grp = { .depth = 1, .map = page_of };
	struct stack *sa, *sb, *ga;
	struct stack_mem m0, m1;
	unsigned int i;

	assert_non_null(g);
	assert_false(stack_hist(t, stack_table_intern(t, a, 2), c));
	stack_table_clear(t);
	stack_table_mem(t, &m0);
	assert_int_equal(stack_table_set_weighted(t, true), 0);
	assert_int_equal(stack_table_set_hist_scale(t, HIST_TIME), 0);
	sa = stack_table_intern(t, a, 2);
	sb = stack_table_intern(t, b, 2);
	stack_table_mem(t, &m1);
	assert_int_equal(stack_table_set_hist_scale(t, HIST_LOG2), -EBUSY);
	for (i = 0; i < 5; i++)
		stack_table_hit_w(t, sa, 0, 0, 1, 1, 200000000); /* 200 ms */
	stack_table_hit_w(t, sa, 0, 0, 1, 1, 1500000);		 /* 1.5 ms */
	stack_table_hit_w(t, sb, 0, 0, 1, 1, 300000000);
	assert_true(stack_hist(t, sa, c));
	assert_int_equal(c[hist_bucket(HIST_TIME, 200000000)], 5);
	assert_int_equal(c[hist_bucket(HIST_TIME, 1500000)], 1);
	for (i = 0, m0.bytes = 0; i < HIST_BUCKETS; i++)
		m0.bytes += c[i];
	assert_int_equal(m0.bytes, sa->total);
	/* n hits weighing w in all: n values of w / n */
	stack_table_hit_w(t, sb, 0, 0, 1, 4, 4000);
	stack_hist(t, sb, c);
	assert_int_equal(c[hist_bucket(HIST_TIME, 1000)], 4);
	/* a snapshot's buckets come back added */
	assert_int_equal(stack_table_add_hist(t, sb, 3, 7), 0);
	assert_int_equal(stack_table_add_hist(t, sb, HIST_BUCKETS, 1), -EINVAL);
	stack_hist(t, sb, c);
	assert_int_equal(c[3], 7);
	/* saturating, never wrapping */
	stack_table_add_hist(t, sb, 3, UINT64_MAX);
	stack_hist(t, sb, c);
	assert_int_equal(c[3], UINT32_MAX);
	/* grouped by a function both frames share: one group, buckets summed */
	assert_int_equal(stack_table_group(g, t, &grp), 0);
	assert_int_equal(stack_table_count(g), 1);
	{
		uint64_t one[] = { 0xffffffff81000000 };
		uint64_t ca[HIST_BUCKETS], cb[HIST_BUCKETS];

		ga = stack_table_intern(g, one, 1);
		assert_true(stack_hist(g, ga, c));
		stack_hist(t, sa, ca);
		stack_hist(t, sb, cb);
		for (i = 0; i < HIST_BUCKETS; i++) {
			uint64_t x = ca[i] + cb[i];

			assert_int_equal(c[i], x > UINT32_MAX ? UINT32_MAX : x);
		}
		assert_int_equal(stack_table_hist_scale(g), HIST_TIME);
	}
	/* memory: the histogram is in the stack, counted in the table's bytes */
	assert_true(m1.bytes > m0.bytes);
	stack_table_free(g);
}

/* --group-by's keys: by record (the pid's parity), by stack (its first frame) */
static unsigned int key_pid(void *ctx, const struct stack *s, const struct stack_attr *a,
			    uint64_t *frames)
{
	(void)ctx;
	(void)s;
	frames[0] = 0xffffffff81000100 + (uint64_t)(a->pid % 2);
	return 1;
}

static unsigned int key_leaf(void *ctx, const struct stack *s, const struct stack_attr *a,
			     uint64_t *frames)
{
	(void)ctx;
	assert_null(a);
	frames[0] = s->ips[0] | 0xf000;
	return s->ips[0] == 0xffffffff81000030 ? 0 : 1; /* one stack left out */
}

static void test_stack_table_group_key(void **state)
{
	struct stack_table *t = *state, *g = stack_table_new();
	uint64_t a[] = { 0xffffffff81000010, 0xffffffff81000011 };
	uint64_t b[] = { 0xffffffff81000010, 0xffffffff81000022 };
	uint64_t c[] = { 0xffffffff81000030 };
	uint64_t odd[] = { 0xffffffff81000101 }, even[] = { 0xffffffff81000100 };
	uint64_t lf[] = { 0xffffffff8100f010 };
	struct stack_group grp = { .key = key_pid, .per_record = true };
	struct stack *sa = stack_table_intern(t, a, 2), *sb = stack_table_intern(t, b, 2);
	struct stack *sc = stack_table_intern(t, c, 1), *d;
	const struct stack_attr *at;
	uint64_t n;

	assert_non_null(g);
	stack_table_hit(t, sa, 0, 0, 1, 5);
	stack_table_hit(t, sa, 0, 1, 2, 3);
	stack_table_hit(t, sa, 0, 0, 3, 2);
	stack_table_hit(t, sb, 0, 0, 2, 4);
	stack_table_hit(t, sc, 0, 0, 5, 1);
	stack_table_tick(t);
	/* by record: a stack's hits go to the groups of its records' keys */
	assert_int_equal(stack_table_group(g, t, &grp), 0);
	assert_int_equal(stack_table_count(g), 2);
	d = stack_table_intern(g, odd, 1);
	assert_int_equal(d->total, 5 + 2 + 1);
	assert_true(d->flags & STACK_F_NOTREND); /* a stack's trend is not split */
	for (n = 0, at = d->attrs; at; at = at->next)
		n += at->total;
	assert_int_equal(n, d->total);
	d = stack_table_intern(g, even, 1);
	assert_int_equal(d->total, 3 + 4);
	assert_int_equal(stack_table_hits(g, NULL), stack_table_hits(t, NULL));
	/* by stack: merged by the key, trends kept; a key of no frame leaves the stack out */
	grp.key = key_leaf;
	grp.per_record = false;
	assert_int_equal(stack_table_group(g, t, &grp), 0);
	assert_int_equal(stack_table_count(g), 1);
	d = stack_table_intern(g, lf, 1);
	assert_int_equal(d->total, 5 + 3 + 2 + 4);
	assert_false(d->flags & STACK_F_NOTREND);
	stack_table_free(g);
}

/* trends: each stack's count of its last intervals, recorded at the tick */
static void test_stack_table_trend(void **state)
{
	struct stack_table *t = *state;
	uint64_t a[] = { 0xffffffff81000010 }, b[] = { 0xffffffff81000020 };
	uint64_t v[STACK_TREND + 4];
	struct stack *sa = stack_table_intern(t, a, 1), *sb = stack_table_intern(t, b, 1);
	struct stack_mem m;
	unsigned int i;

	assert_int_equal(stack_trend(t, sa, false, v, STACK_TREND), 0); /* no interval yet */
	/* sa rises 1, 2, 3 ...; sb is hit in the first interval only */
	for (i = 1; i <= 20; i++) {
		stack_table_hit(t, sa, 0, 0, 1, i);
		if (i == 1)
			stack_table_hit(t, sb, 0, 0, 1, 9);
		stack_table_tick(t);
		if (i == 3) {
			assert_int_equal(stack_trend(t, sa, false, v, STACK_TREND), 3);
			assert_int_equal(v[0], 1);
			assert_int_equal(v[1], 2);
			assert_int_equal(v[2], 3);
			assert_int_equal(stack_trend(t, sb, false, v, STACK_TREND), 3);
			assert_int_equal(v[0], 9);
			assert_int_equal(v[1], 0);
			assert_int_equal(v[2], 0);
			/* @n shorter: the newest */
			assert_int_equal(stack_trend(t, sa, false, v, 2), 2);
			assert_int_equal(v[0], 2);
			assert_int_equal(v[1], 3);
		}
	}
	/* the window slides: the last STACK_TREND intervals, the last one stack_delta()'s */
	assert_int_equal(stack_trend(t, sa, false, v, STACK_TREND + 4), STACK_TREND);
	for (i = 0; i < STACK_TREND; i++)
		assert_int_equal(v[i], 20 - STACK_TREND + 1 + i);
	assert_int_equal(v[STACK_TREND - 1], stack_delta(t, sa));
	/* sb idle for more than STACK_TREND intervals: zeros */
	assert_int_equal(stack_trend(t, sb, false, v, STACK_TREND), STACK_TREND);
	for (i = 0; i < STACK_TREND; i++)
		assert_int_equal(v[i], 0);
	stack_table_mem(t, &m);
	assert_true(m.trend_bytes >= m.trend_slots * sizeof(uint32_t) * STACK_TREND);
	/* a gap of idle intervals reads as zeros, then the new count */
	stack_table_tick(t);
	stack_table_tick(t);
	stack_table_hit(t, sa, 0, 0, 1, 5);
	stack_table_tick(t);
	assert_int_equal(stack_trend(t, sa, false, v, 4), 4);
	assert_int_equal(v[0], 20);
	assert_int_equal(v[1], 0);
	assert_int_equal(v[2], 0);
	assert_int_equal(v[3], 5);
	/* by the next sweep (every STACK_TREND intervals) sb's slot went back, sa's not */
	while (stack_table_epoch(t) % STACK_TREND)
		stack_table_tick(t);
	assert_int_equal(sb->trend, 0);
	assert_int_not_equal(sa->trend, 0);
	stack_table_mem(t, &m);
	assert_int_equal(m.trend_slots, 1);
	/* a reset forgets them */
	stack_table_clear(t);
	sa = stack_table_intern(t, a, 1);
	assert_int_equal(stack_trend(t, sa, false, v, STACK_TREND), 0);
}

/* a snapshot's history comes back before its last interval; weights too */
static void test_stack_table_trend_add(void **state)
{
	struct stack_table *t = *state;
	uint64_t a[] = { 0xffffffff81000010 };
	uint64_t h[] = { 4, 0, 6 }, w[] = { 400, 0, 600 }, v[8];
	struct stack *sa;

	assert_int_equal(stack_table_set_weighted(t, true), 0);
	sa = stack_table_intern(t, a, 1);
	stack_table_add(t, sa, &(struct stack_key){ .pid = 1 },
			&(struct stack_counts){ 17, 7, 1700, 700 });
	assert_int_equal(stack_table_add_trend(t, sa, h, w, 3), 0);
	stack_table_tick(t);
	assert_int_equal(stack_trend(t, sa, false, v, 8), 4);
	assert_int_equal(v[0], 4);
	assert_int_equal(v[1], 0);
	assert_int_equal(v[2], 6);
	assert_int_equal(v[3], 7);
	assert_int_equal(stack_trend(t, sa, true, v, 8), 4);
	assert_int_equal(v[0], 400);
	assert_int_equal(v[2], 600);
	assert_int_equal(v[3], 700);
}

/* the memory limit refuses slots: the stack says so, the count is kept */
static void test_stack_table_trend_limit(void **state)
{
	struct stack_table *t = *state;
	uint64_t ip[1], v[4];
	struct stack_mem m;
	unsigned int i;
	int refused = 0;
	struct stack *over = NULL;

	stack_table_set_limit(t, 256 << 10);
	for (i = 0; i < 3000; i++) {
		struct stack *s;

		ip[0] = 0xffffffff81000000 + i;
		s = stack_table_intern(t, ip, 1);
		stack_table_hit(t, s, 0, 0, 1, 1);
	}
	stack_table_tick(t);
	stack_table_mem(t, &m);
	assert_true(m.bytes <= m.limit);
	for (i = 0; i < 3000; i++) {
		struct stack *s;

		ip[0] = 0xffffffff81000000 + i;
		s = stack_table_intern(t, ip, 1);
		/* the stacks refused by the limit all count on the one STACK_F_OVER stack */
		if (s->flags & STACK_F_OVER)
			over = s;
		else if (stack_trend(t, s, false, v, 4) == -ENOSPC)
			refused++;
		else
			assert_int_equal(v[0], 1);
	}
	/* every refusal counted once per stack (the over stack is one) */
	assert_true(refused > 0);
	assert_int_equal((uint64_t)refused + (over && (over->flags & STACK_F_NOTREND)),
			 m.trend_refused);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_stack_table_interns_by_content, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_stack_table_grows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stack_table_counts_and_intervals, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_stack_table_counts_64bit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stack_table_top_many, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stack_table_top_weighted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stack_table_top_refill, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stack_table_breakdown, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stack_table_ids, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stack_table_cut, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stack_table_intern_hashed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stack_table_clear, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stack_table_rank_matches_sort, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_stack_table_rank_filters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stack_table_rank_match, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stack_table_rank_by_id, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stack_table_rank_attr_match, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stack_table_rank_active_list, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stack_table_fold, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stack_table_limit, setup, teardown),
		cmocka_unit_test(test_hist_buckets),
		cmocka_unit_test_setup_teardown(test_stack_table_hist, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stack_table_trend, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stack_table_group_key, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stack_table_trend_add, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stack_table_trend_limit, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
