// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-sampbatch.c - --sample's batches (kernel/perfsamp_batch.c) and
 * estimate (source/sampest.c): the sample a change of period causes is a
 * census of one hit, one from before the change a draw; a draw stands for
 * every hit of its counter since the last; the periods are uniform about N;
 * the design effect of batches whose stacks are drawn alone is about 1, of
 * batches that are each one stack about their size, of too few batches
 * their size; a row's 95% interval (export_sample_ci95()) is the ratio
 * estimator's, widened by the design effect; and on a model of the
 * kernel's counter (its period changes as 6.18 does them) under issue 35's
 * mixed workload, the estimates are unbiased, add up to the exact count,
 * and lie inside their intervals about 95% of the time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include <cmocka.h>
#include <linux/perf_event.h>

#include "kernel/perfsamp_batch.h"
#include "source/sampest.h"
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
	/* the batch ends with its PERFSAMP_BATCH-th draw */
	assert_false(ev.redraw);
	while (ev.drawn < PERFSAMP_BATCH - 1)
		assert_true(perfsamp_batch_keep(&pb, &ev, 5002));
	assert_false(ev.redraw);
	assert_true(perfsamp_batch_keep(&pb, &ev, 5003));
	assert_true(ev.redraw);
	/* a fixed period: every sample kept, nothing noted */
	ev.immediate = true;
	assert_true(perfsamp_batch_keep(&fixed, &ev, 6000));
	perfsamp_batch_note(&fixed, &ev, (const uint64_t[]){ 1 }, 1);
	assert_null(ev.keys);
}

/* a change's own sample weighs 1; a draw every hit of its counter since the last draw */
static void test_weights(void **state)
{
	struct perfsamp_batch pb = { .rnd = 1, .mean = 100 };
	struct perfsamp_batch_ev ev = { .period = 100 };

	(void)state;
	/* draws at counts 100 and 200 */
	assert_int_equal(perfsamp_batch_weight(&pb, &ev, 100, false), 100);
	assert_int_equal(perfsamp_batch_weight(&pb, &ev, 200, false), 100);
	/* a change at 250: its sample at 251 weighs 1, the draw at 251 + 99 the rest */
	assert_int_equal(perfsamp_batch_weight(&pb, &ev, 251, true), 1);
	assert_int_equal(perfsamp_batch_weight(&pb, &ev, 350, false), 149);
	assert_int_equal(pb.st.census, 1);
	/* a counter started anew counts from 0; a sample stands for 1 hit at least */
	assert_int_equal(perfsamp_batch_weight(&pb, &ev, 20, false), 20);
	assert_int_equal(perfsamp_batch_weight(&pb, &ev, 20, false), 1);
}

/* the periods: uniform in [N/2, 3N/2], about N on average, odd and even alike */
static void test_periods(void **state)
{
	static const unsigned int means[] = { 2, 3, 10, 100, 1000, 100000 };
	unsigned int i, k;

	(void)state;
	for (i = 0; i < sizeof(means) / sizeof(means[0]); i++) {
		struct perfsamp_batch pb = { .rnd = 0x9e3779b97f4a7c15ULL, .mean = means[i] };
		unsigned int odd = 0;
		double sum = 0;

		for (k = 0; k < 2000; k++) {
			uint64_t p = perfsamp_batch_period(&pb);

			assert_true(p >= (means[i] / 2 ? means[i] / 2 : 1) &&
				    p <= means[i] + means[i] / 2);
			sum += (double)p;
			odd += p & 1;
		}
		/* below 10, [N/2, 3N/2] is rounded: [1, 3], [1, 4] */
		assert_true(means[i] < 10 ||
			    (sum / 2000 > 0.9 * means[i] && sum / 2000 < 1.1 * means[i]));
		assert_true(means[i] < 10 || (odd > 850 && odd < 1150));
	}
}

static void test_ci95(void **state)
{
	struct session_stats st;
	uint64_t one, four;

	(void)state;
	memset(&st, 0, sizeof(st));
	st.sample_period = 100;
	st.events = 1000000;
	/* 10,000 samples of weight 100: sum(w^2) = 10^8 */
	st.sample_var = 100000000;
	one = export_sample_ci95(500000, 1000000, &st);
	/* 1.96 * sqrt(500000 * 0.5 * 100) */
	assert_true(one >= 9799 && one <= 9800);
	/* the share of the interval's hits, not the run's */
	assert_true(export_sample_ci95(500000, 600000, &st) < one);
	/* all of them: exact (the rows add up to the exact count) */
	assert_int_equal(export_sample_ci95(1000000, 1000000, &st), 0);
	st.sample_var *= 4; /* a design effect of 4 */
	four = export_sample_ci95(500000, 1000000, &st);
	assert_true(four >= 2 * one - 2 && four <= 2 * one + 2);
	/* a snapshot of a sampled run: no period, its variance read back */
	st.sample_period = 0;
	assert_true(export_sampled(&st));
	assert_int_equal(export_sample_ci95(500000, 1000000, &st), four);
	st.sample_var = 0;
	assert_false(export_sampled(&st));
	assert_int_equal(export_sample_ci95(500000, 1000000, &st), 0);
}

/*
 * A model of what the kernel does with a tracepoint's sampling counter
 * (kernel/events/core.c: perf_swevent_event(), perf_swevent_set_period(),
 * __perf_event_period()), to drive the real batch, weight and estimate
 * code with a workload whose every hit is known.
 */
struct kcounter {
	int64_t left; /* period_left */
	uint64_t last_period, period, count;
};

static void kc_open(struct kcounter *k, uint64_t period)
{
	memset(k, 0, sizeof(*k));
	k->period = k->last_period = period;
	k->left = -(int64_t)period; /* perf_trace_add(): set_period on period_left = period */
}

/* one hit: true when it is sampled */
static bool kc_hit(struct kcounter *k)
{
	uint64_t p = k->last_period, nr;

	k->count++;
	if (++k->left < 0)
		return false;
	k->last_period = k->period;
	nr = (p + (uint64_t)k->left) / p;
	k->left -= (int64_t)(nr * p);
	return true;
}

/* PERF_EVENT_IOC_PERIOD */
static void kc_period(struct kcounter *k, uint64_t period)
{
	k->period = period;
	k->left = 0;
}

#define M_STACKS 6
#define M_CPUS	 2

struct model {
	struct kcounter kc[M_CPUS];
	struct perfsamp_batch pb;
	struct perfsamp_batch_ev ev[M_CPUS];
	struct sampest *est;
	uint64_t truth[M_STACKS], got[M_STACKS], t;
	uint32_t seed;
	/* the ring: samples written, not read yet */
	struct {
		uint64_t count, time;
		int stack, cpu;
	} ring[4096];
	unsigned int nring, since[M_CPUS];
	int64_t wake; /* the reader runs at this tick (-1: asleep) */
	int burst;    /* CPU 1 in a burst of io_schedule */
};

static void m_count(void *ctx, const struct sampest_sample *s, uint64_t hits)
{
	struct model *m = ctx;

	m->got[s->frames[1] & 0xff] += hits;
}

static void m_flush(struct model *m)
{
	uint64_t exact[1] = { m->kc[0].count + m->kc[1].count };

	sampest_flush(m->est, exact, m_count, m);
}

/* the reader: every sample read, then a new period for the events whose batch ended */
static void m_drain(struct model *m)
{
	unsigned int i;

	for (i = 0; i < m->nring; i++) {
		int c = m->ring[i].cpu;
		uint64_t chain[2] = { PERF_CONTEXT_KERNEL,
				      0xffffffff81000000ULL | m->ring[i].stack };
		bool census = !perfsamp_batch_keep(&m->pb, &m->ev[c], m->ring[i].time);
		struct sampest_sample s = { .frames = chain, .n = 2, .census = census };

		s.raw = perfsamp_batch_weight(&m->pb, &m->ev[c], m->ring[i].count, census);
		if (!census)
			perfsamp_batch_note(&m->pb, &m->ev[c], chain, 2);
		assert_int_equal(sampest_add(m->est, &s), 0);
	}
	m->nring = 0;
	for (i = 0; i < M_CPUS; i++) {
		m->since[i] = 0;
		if (!m->ev[i].redraw)
			continue;
		perfsamp_batch_next(&m->pb, &m->ev[i], -1);
		kc_period(&m->kc[i], m->ev[i].period);
		m->ev[i].immediate = true; /* the ioctl worked: the next hit is sampled */
		m->ev[i].t_set = m->t;
	}
	if (sampest_held(m->est) >= 512)
		m_flush(m);
}

/*
 * The mixed workload of issue 35 in miniature: CPU 0 busy with a
 * ping-pong (two stacks in strict alternation, a preemption now and then),
 * CPU 1 eight times slower, a tar reading files (its pipe stack, and
 * io_schedule in bursts) and idle. The reader wakes some ticks after a
 * ring holds 16 samples of a CPU (its wakeup) and on every refresh.
 */
static void m_tick(struct model *m)
{
	int c;

	m->t++;
	for (c = 0; c < M_CPUS; c++) {
		uint32_t r = lcg(&m->seed) % 1000;
		int st;

		if (c == 0) {
			if (r >= 800)
				continue;
			st = r < 8 ? 2 : (int)(m->kc[0].count & 1);
		} else {
			if (r >= 100)
				continue;
			if (r < 2)
				m->burst = !m->burst;
			st = m->burst && r < 60 ? 4 : r < 85 ? 3 : 5;
		}
		m->truth[st]++;
		if (kc_hit(&m->kc[c]) && m->nring < 4096) {
			m->ring[m->nring].count = m->kc[c].count;
			m->ring[m->nring].time = m->t;
			m->ring[m->nring].stack = st;
			m->ring[m->nring++].cpu = c;
			if (++m->since[c] == 16 && m->wake < 0)
				m->wake = (int64_t)(m->t + 5 + lcg(&m->seed) % 60);
		}
	}
	if (m->wake >= 0 && m->t >= (uint64_t)m->wake) {
		m->wake = -1;
		m_drain(m);
	}
	if (m->t % 20000 == 0) {
		m_drain(m);
		m_flush(m);
	}
}

/*
 * Repeated runs of the model: every stack's estimate within its stated 95%
 * interval of the truth in about 95% of (run, stack), no stack's mean
 * error beyond a few of its standard errors (unbiased), and the rows
 * adding up to the exact count in every run.
 */
static void test_model(void **state)
{
	enum { RUNS = 40 };
	double zsum[M_STACKS] = { 0 }, z2[M_STACKS] = { 0 };
	unsigned int in = 0, all = 0, r, i;

	(void)state;
	for (r = 0; r < RUNS; r++) {
		struct model *m = calloc(1, sizeof(*m));
		struct sampest_stats es;
		struct session_stats st;
		uint64_t sum = 0;

		assert_non_null(m);
		m->seed = 7 + r * 7919;
		m->pb.rnd = 0x9e3779b97f4a7c15ULL + r;
		m->pb.mean = 100;
		m->wake = -1;
		m->est = sampest_new(1);
		assert_non_null(m->est);
		for (i = 0; i < M_CPUS; i++) {
			kc_open(&m->kc[i], 100);
			perfsamp_batch_next(&m->pb, &m->ev[i], -1);
			kc_period(&m->kc[i], m->ev[i].period);
		}
		while (m->t < 200000)
			m_tick(m);
		m_drain(m);
		m_flush(m);
		sampest_stats(m->est, &es);
		memset(&st, 0, sizeof(st));
		st.sample_period = 100;
		for (i = 0; i < M_STACKS; i++)
			sum += m->got[i];
		st.events = sum;
		st.sample_var = (uint64_t)(es.w2 * perfsamp_batch_design_effect(&m->pb.st));
		assert_int_equal(sum, m->kc[0].count + m->kc[1].count);
		assert_int_equal(es.exact, sum);
		for (i = 0; i < M_STACKS; i++) {
			uint64_t ci = export_sample_ci95(m->got[i], sum, &st);
			double err = (double)m->got[i] - (double)m->truth[i];
			double z = ci ? err / (ci / 1.96) : 0;

			zsum[i] += z;
			z2[i] += z * z;
			in += fabs(err) <= (double)ci;
			all++;
		}
		for (i = 0; i < M_CPUS; i++)
			perfsamp_batch_free(&m->ev[i]);
		sampest_free(m->est);
		free(m);
	}
	for (i = 0; i < M_STACKS; i++) {
		double mean = zsum[i] / RUNS, sd = sqrt(z2[i] / RUNS - mean * mean);

		print_message("stack %u: mean error %+.2f sd, spread %.2f sd\n", i, mean, sd);
		/* unbiased: the mean z within 4 of its standard errors (sd / sqrt(runs)) */
		assert_true(fabs(mean) <= 4 * (sd > 0.3 ? sd : 0.3) / sqrt(RUNS));
	}
	print_message("%u of %u estimates inside their 95%% interval\n", in, all);
	assert_true(in >= all * 85 / 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_independent), cmocka_unit_test(test_alike),
		cmocka_unit_test(test_few),	    cmocka_unit_test(test_immediate),
		cmocka_unit_test(test_ci95),	    cmocka_unit_test(test_weights),
		cmocka_unit_test(test_periods),	    cmocka_unit_test(test_model),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
