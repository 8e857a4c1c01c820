// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-ingest-tick.c - --oncpu=tick's cut of kernel stacks in ingest
 * (struct ingest_config's trim and comm_frame), on pages built in memory:
 * a stack starts at the interrupted function, a tick in user code is the
 * [user space] row of its command, a stack with no interrupt entry is kept
 * whole and counted; without the cut the same records are kept as they come.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "core/stack.h"
#include "core/stack_table.h"
#include "ingest/ingest.h"
#include "pagegen.h"

/* the interrupt entry code: [IRQ_START, IRQ_END) */
#define IRQ_START 0xffffffff81900000ULL
#define IRQ_END	  0xffffffff81a00000ULL

static const uint64_t IRQ_IN_B[] = { 0xffffffff81001000, IRQ_START + 0x40, 0xffffffff81004000,
				     0xffffffff81005000 };
static const uint64_t B[] = { 0xffffffff81004000, 0xffffffff81005000 };
static const uint64_t IRQ_ONLY[] = { 0xffffffff81001000, IRQ_START + 0x80 };
static const uint64_t NO_IRQ[] = { 0xffffffff81002000, 0xffffffff81003000 };
static const uint64_t trim[2] = { IRQ_START, IRQ_END };

struct fx {
	struct evfmt fmt;
	struct stack_table *t;
	struct ingest *ing;
	struct pagegen pg;
};

/* pid 10 is named (its command's frame), every other pid is not */
static uint64_t comm_frame(void *ctx, int pid)
{
	(void)ctx;
	return pid == 10 ? STACK_IP_COMM(7) : 0;
}

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

/* the hits of the stack @ips, which ingest must have interned */
static uint64_t hits(struct fx *fx, const uint64_t *ips, unsigned int n)
{
	size_t before = stack_table_count(fx->t);
	struct stack *s = stack_table_intern(fx->t, ips, n);

	assert_int_equal(stack_table_count(fx->t), before);
	return s->total;
}

/* the four kinds of tick stack, one event each */
static void one_page(struct fx *fx)
{
	pagegen_start(&fx->pg, 100);
	pagegen_event(&fx->pg, PG_EVENT_TYPE, 10);
	pagegen_kstack(&fx->pg, 10, IRQ_IN_B, 4);
	pagegen_event(&fx->pg, PG_EVENT_TYPE, 10);
	pagegen_kstack(&fx->pg, 10, IRQ_ONLY, 2);
	pagegen_event(&fx->pg, PG_EVENT_TYPE, 11);
	pagegen_kstack(&fx->pg, 11, IRQ_ONLY, 2);
	pagegen_event(&fx->pg, PG_EVENT_TYPE, 10);
	pagegen_kstack(&fx->pg, 10, NO_IRQ, 2);
	pagegen_finish(&fx->pg, 0);
	assert_int_equal(ingest_page(fx->ing, 0, 0, fx->pg.buf, fx->pg.len), 0);
}

static void test_tick_cut(void **state)
{
	struct fx *fx = *state;
	const uint64_t user10[] = { STACK_IP_USER_MODE, STACK_IP_COMM(7) };
	const uint64_t user[] = { STACK_IP_USER_MODE };

	ingest_configure(fx->ing, &(struct ingest_config){
					  .trim = trim, .ntrim = 1, .comm_frame = comm_frame });
	one_page(fx);
	assert_int_equal(stack_table_count(fx->t), 4);
	assert_int_equal(hits(fx, B, 2), 1);	  /* from the interrupted function on */
	assert_int_equal(hits(fx, user10, 2), 1); /* user code of a named command */
	assert_int_equal(hits(fx, user, 1), 1);	  /* ... of one not named */
	assert_int_equal(hits(fx, NO_IRQ, 2), 1); /* nothing to cut at: kept whole */
	assert_int_equal(ingest_stats(fx->ing)->tick_whole, 1);
	assert_int_equal(ingest_stats(fx->ing)->events, 4);
}

/* the same records without the cut (every other mode), comm_frame set or not */
static void test_no_cut(void **state)
{
	struct fx *fx = *state;

	ingest_configure(fx->ing, &(struct ingest_config){ .comm_frame = comm_frame });
	one_page(fx);
	assert_int_equal(stack_table_count(fx->t), 3);
	assert_int_equal(hits(fx, IRQ_IN_B, 4), 1);
	assert_int_equal(hits(fx, IRQ_ONLY, 2), 2);
	assert_int_equal(hits(fx, NO_IRQ, 2), 1);
	assert_int_equal(ingest_stats(fx->ing)->tick_whole, 0);
	assert_int_equal(ingest_stats(fx->ing)->events, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_tick_cut, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_cut, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
