// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-sampbatch.c - --sample's batches (kernel/perfsamp_batch.c): the
 * sample a change of period causes is dropped, one from before the change
 * is kept; the design effect of batches whose stacks are drawn alone is
 * about 1, of batches that are each one stack about their size, of too few
 * batches their size; a row's 95% interval (export_sample_ci95()) widens
 * by the square root of the design effect.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <linux/perf_event.h>

#include "kernel/perfsamp_batch.h"
#include "output/rows.h"
#include "source/stats.h"

static uint32_t lcg(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return *s >> 8;
}

/* a stack of shares 50/30/10/5/5% */
static uint64_t pick(uint32_t *s)
{
	uint32_t r = lcg(s) % 100;

	return r < 50	? 0xffffffff81000100ULL
	       : r < 80 ? 0xffffffff81000200ULL
	       : r < 90 ? 0xffffffff81000300ULL
	       : r < 95 ? 0xffffffff81000400ULL
			: 0xffffffff81000500ULL;
}

/* @batches of @m samples, each its own draw or (@alike) one draw a batch */
static double deff_of(unsigned int batches, unsigned int m, bool alike)
{
	struct perfsamp_batch pb = { .rnd = 88172645463325252ULL, .mean = 100 };
	struct perfsamp_batch_ev ev = { 0 };
	uint32_t seed = 12345;
	uint64_t chain[2] = { PERF_CONTEXT_KERNEL, 0 };
	unsigned int b, i;

	for (b = 0; b < batches; b++) {
		chain[1] = pick(&seed);
		for (i = 0; i < m; i++) {
			if (!alike)
				chain[1] = pick(&seed);
			assert_true(perfsamp_batch_keep(&pb, &ev, 1000 + b));
			perfsamp_batch_note(&pb, &ev, chain, 2);
		}
		/* fd -1: PERF_EVENT_IOC_PERIOD fails, no sample expected at once */
		perfsamp_batch_next(&pb, &ev, -1);
		assert_false(ev.immediate);
		assert_false(ev.redraw);
	}
	perfsamp_batch_free(&ev);
	assert_int_equal(pb.st.batches, batches);
	assert_int_equal(pb.st.batch_samples, (uint64_t)batches * m);
	return perfsamp_batch_design_effect(&pb.st);
}

static void test_independent(void **state)
{
	double d = deff_of(2000, 16, false);

	(void)state;
	assert_true(d >= 1 && d < 1.3);
}

static void test_alike(void **state)
{
	double d = deff_of(2000, 16, true);

	(void)state;
	assert_true(d > 15 && d <= 16);
}

static void test_few(void **state)
{
	(void)state;
	/* 3 batches of 4: 18 pairs within, too few to tell */
	assert_true(deff_of(3, 4, false) == 4);
	assert_true(deff_of(100, 1, false) == 1);
}

static void test_immediate(void **state)
{
	struct perfsamp_batch pb = { .rnd = 1, .mean = 100 };
	struct perfsamp_batch_ev ev = { .immediate = true, .t_set = 5000 };
	struct perfsamp_batch fixed = { .rnd = 1 };

	(void)state;
	/* from before the change: the last batch's */
	assert_true(perfsamp_batch_keep(&pb, &ev, 4999));
	/* the first after it: the change's, dropped; then kept again */
	assert_false(perfsamp_batch_keep(&pb, &ev, 5000));
	assert_true(perfsamp_batch_keep(&pb, &ev, 5001));
	assert_true(ev.redraw);
	/* a fixed period: every sample kept, nothing noted */
	ev.immediate = true;
	assert_true(perfsamp_batch_keep(&fixed, &ev, 6000));
	perfsamp_batch_note(&fixed, &ev, (const uint64_t[]){ 1 }, 1);
	assert_null(ev.keys);
}

/* a change's own sample weighs 1, the strides the rest: the gap spread over them */
static void test_weights(void **state)
{
	struct perfsamp_batch pb = { .rnd = 1, .mean = 100 };
	struct perfsamp_batch_ev ev = { .period = 100 };
	uint64_t sum = 0, all = 0;
	int k;

	(void)state;
	for (k = 0; k < 100; k++) {
		/* a batch: the census after 20 hits of reaction, then 9 strides */
		sum += perfsamp_batch_weight(&pb, &ev, 21, true);
		all += 21;
		for (int j = 0; j < 9; j++) {
			sum += perfsamp_batch_weight(&pb, &ev, 100, false);
			all += 100;
		}
	}
	assert_int_equal(pb.st.gap, 2000);
	assert_int_equal(pb.st.covered, 90000);
	/* the weights add up to the count (the ratio is the run's so far: the
	 * first batches' weigh a little more) */
	assert_true(sum >= all * 99 / 100 && sum <= all * 101 / 100);
	/* a late sample (more than its stride): the rest is gap, not its weight */
	assert_true(perfsamp_batch_weight(&pb, &ev, 250, false) < 110);
	/* a fixed period: the count's growth */
	pb.mean = 0;
	assert_int_equal(perfsamp_batch_weight(&pb, &ev, 250, false), 250);
}

static void test_ci95(void **state)
{
	struct session_stats st;
	uint64_t one, four;

	(void)state;
	memset(&st, 0, sizeof(st));
	st.sample_period = 100;
	st.events = 1000000;
	st.samples = 10000;
	one = export_sample_ci95(500000, &st);
	/* 1.96 * sqrt(500000 * 1.5 * 100) */
	assert_true(one >= 16973 && one <= 16975);
	st.sample_deff = 4000;
	four = export_sample_ci95(500000, &st);
	assert_true(four >= 2 * one - 2 && four <= 2 * one + 2);
	st.sample_period = 1;
	assert_int_equal(export_sample_ci95(500000, &st), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_independent), cmocka_unit_test(test_alike),
		cmocka_unit_test(test_few),	    cmocka_unit_test(test_immediate),
		cmocka_unit_test(test_ci95),	    cmocka_unit_test(test_weights),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
