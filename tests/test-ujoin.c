// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-ujoin.c - the join of perf user-stack samples to ftrace records:
 * in order, out of order, missing samples (and why), duplicates, a full
 * pending queue, and that every payload is handed back exactly once (the
 * payloads are malloc'd: LeakSanitizer and ASan see a lost or double one).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/ujoin.h"

#define US 1000ULL
#define MS 1000000ULL

struct got {
	struct ujoin_match m[64];
	int n;
	int drops;
	int good, bad_after; /* test_samples_lead: pairs of one hit, other pairs after those */
};

/* a sample payload: the sample's own timestamp, to check who got whom */
static void *payload(uint64_t ts)
{
	uint64_t *p = malloc(sizeof(*p));

	assert_non_null(p);
	*p = ts;
	return p;
}

static void on_emit(void *ctx, const struct ujoin_match *m)
{
	struct got *g = ctx;

	assert_true(g->n < 64);
	g->m[g->n] = *m;
	if (m->sample) {
		assert_int_equal(*(uint64_t *)m->sample, m->sample_ts);
		free(m->sample);
		g->m[g->n].sample = (void *)1;
	}
	g->n++;
}

/*
 * counts only: a pair is one hit's when the sample is 3 us after the record
 * (test_one_key_many) or 300 ns before it (test_samples_lead)
 */
static void on_emit_count(void *ctx, const struct ujoin_match *m)
{
	struct got *g = ctx;

	if (m->sample) {
		uint64_t s = *(uint64_t *)m->sample;
		bool own = s == m->rec_ts + 3 * US || s + 300 == m->rec_ts;

		if (own)
			g->good++;
		else if (g->good)
			g->bad_after++;
		free(m->sample);
	}
	g->n++;
}

static void on_drop(void *ctx, void *sample)
{
	struct got *g = ctx;

	g->drops++;
	free(sample);
}

static struct ujoin *mk(struct got *g, unsigned int max_pending)
{
	struct ujoin_opts o = {
		.tolerance_ns = 50 * US,
		.timeout_ns = 100 * MS,
		.max_pending = max_pending,
		.emit = on_emit,
		.drop = on_drop,
		.ctx = g,
	};
	struct ujoin *j;

	memset(g, 0, sizeof(*g));
	j = ujoin_new(&o);
	assert_non_null(j);
	return j;
}

static void rec(struct ujoin *j, uint32_t cpu, uint32_t tid, uint32_t ev, uint64_t ts, uint64_t id)
{
	struct ujoin_key k = { cpu, tid, ev };

	assert_int_equal(ujoin_add_record(j, &k, ts, id), 0);
}

static void smp(struct ujoin *j, uint32_t cpu, uint32_t tid, uint32_t ev, uint64_t ts,
		enum ujoin_why why)
{
	struct ujoin_key k = { cpu, tid, ev };

	assert_int_equal(ujoin_add_sample(j, &k, ts, payload(ts), why), 0);
}

/* the match given for record @id */
static const struct ujoin_match *find(const struct got *g, uint64_t id)
{
	int i;

	for (i = 0; i < g->n; i++)
		if (g->m[i].rec == id)
			return &g->m[i];
	fail_msg("record %llu was never given out", (unsigned long long)id);
	return NULL;
}

static void test_in_order(void **state)
{
	struct got g;
	struct ujoin *j = mk(&g, 0);
	struct ujoin_stats st;

	rec(j, 0, 100, 1, 1000 * US, 1);
	smp(j, 0, 100, 1, 1000 * US + 2 * US, UJOIN_OK);
	rec(j, 1, 200, 1, 1001 * US, 2);
	smp(j, 1, 200, 1, 1001 * US + 1 * US, UJOIN_OK);
	/* another record of the CPU may still come between: not told yet */
	assert_int_equal(g.n, 0);
	rec(j, 0, 100, 1, 1010 * US, 3); /* the next hit: CPU 0's records known past it */
	assert_int_equal(g.n, 1);
	ujoin_advance(j, 100 * MS + 2 * MS); /* everything up to 2 ms read */
	assert_int_equal(g.n, 3);
	assert_int_equal(find(&g, 3)->why, UJOIN_NO_SAMPLE);
	assert_int_equal(find(&g, 1)->why, UJOIN_OK);
	assert_int_equal(find(&g, 1)->sample_ts, 1002 * US);
	assert_int_equal(find(&g, 2)->sample_ts, 1002 * US);
	ujoin_stats(j, &st);
	assert_int_equal(st.why[UJOIN_OK], 2);
	assert_int_equal(st.records, 3);
	assert_int_equal(st.samples, 2);
	ujoin_free(j);
	assert_int_equal(g.drops, 0);
}

/*
 * samples before their records (the perf ring read first), four threads on
 * two CPUs: a sample is told once its CPU's records are known past it (a
 * later record of the CPU, or ujoin_advance())
 */
static void test_out_of_order(void **state)
{
	struct got g;
	struct ujoin *j = mk(&g, 0);
	int i;

	for (i = 0; i < 4; i++)
		smp(j, i % 2, 10 + i, 7, 5 * MS + i * 300 * US + 3 * US, UJOIN_OK);
	assert_int_equal(g.n, 0);
	for (i = 0; i < 4; i++)
		rec(j, i % 2, 10 + i, 7, 5 * MS + i * 300 * US, 100 + i);
	/* each thread's sample waits for its CPU's records to be known past it */
	assert_int_equal(g.n, 0);
	ujoin_advance(j, 100 * MS + 6 * MS);
	assert_int_equal(g.n, 4);
	for (i = 0; i < 4; i++) {
		const struct ujoin_match *m = find(&g, 100 + i);

		assert_int_equal(m->why, UJOIN_OK);
		assert_int_equal(m->key.tid, 10 + i);
		assert_int_equal(m->sample_ts, 5 * MS + i * 300 * US + 3 * US);
	}
	ujoin_free(j);
	assert_int_equal(g.drops, 0);
}

/*
 * one thread hitting the event every 2 us, each sample 300 ns after its
 * record: every record gets its own sample, and after a lost sample the
 * next pairs are still each hit's own (the oldest record within 100 us
 * took the next hit's sample, and every later pair of the thread moved by
 * one: each record got the next hit's user stack)
 */
static void test_same_key_fifo(void **state)
{
	struct got g;
	struct ujoin *j = mk(&g, 0);
	int i;

	for (i = 0; i < 8; i++)
		rec(j, 2, 42, 1, 10 * MS + i * 2 * US, i);
	for (i = 0; i < 8; i++)
		if (i != 3) /* its sample lost */
			smp(j, 2, 42, 1, 10 * MS + i * 2 * US + 300, UJOIN_OK);
	rec(j, 2, 42, 1, 10 * MS + 8 * 2 * US, 8); /* the records known past the last sample */
	assert_int_equal(g.n, 8);
	for (i = 0; i < 8; i++) {
		if (i == 3) {
			assert_int_equal(find(&g, i)->why, UJOIN_NO_SAMPLE);
			continue;
		}
		assert_int_equal(find(&g, i)->why, UJOIN_OK);
		assert_int_equal(find(&g, i)->sample_ts, 10 * MS + i * 2 * US + 300);
	}
	ujoin_free(j);
	assert_int_equal(g.drops, 0);
}

/*
 * perf's probe first (another perf user registered it before the
 * instance): each sample comes 300 ns before its record; the pairs say so
 * and the order turns, every later record with its own sample
 */
static void test_samples_lead(void **state)
{
	struct ujoin_opts o = {
		.tolerance_ns = 50 * US,
		.timeout_ns = 100 * MS,
		.max_pending = 4096,
		.emit = on_emit_count,
		.drop = on_drop,
	};
	struct ujoin_stats st;
	struct ujoin *j;
	struct got g;
	int i;

	memset(&g, 0, sizeof(g));
	o.ctx = &g;
	j = ujoin_new(&o);
	assert_non_null(j);
	for (i = 0; i < 400; i++) {
		/* on_emit_count wants sample = record + 3 us: here it is the other way */
		smp(j, 0, 5, 1, 1 * MS + (uint64_t)i * 20 * US, UJOIN_OK);
		rec(j, 0, 5, 1, 1 * MS + (uint64_t)i * 20 * US + 300, i);
	}
	ujoin_stats(j, &st);
	assert_int_equal(st.order_changes, 1);
	/* after the change, each pair is its own hit's (the payload is its time) */
	assert_true(g.good > 300);
	assert_int_equal(g.bad_after, 0);
	ujoin_free(j);
}

/* different event or tid or CPU: never joined, even at the same time */
static void test_key_mismatch(void **state)
{
	struct got g;
	struct ujoin *j = mk(&g, 0);
	struct ujoin_stats st;

	rec(j, 0, 1, 1, 1 * MS, 1);
	smp(j, 0, 1, 2, 1 * MS, UJOIN_OK); /* other event */
	smp(j, 0, 2, 1, 1 * MS, UJOIN_OK); /* other tid */
	smp(j, 1, 1, 1, 1 * MS, UJOIN_OK); /* other CPU */
	assert_int_equal(g.n, 0);
	/* 60 us after: an interrupt between the probes, still the record's */
	smp(j, 0, 1, 1, 1 * MS + 60 * US, UJOIN_OK);
	assert_int_equal(g.n, 0);
	ujoin_advance(j, 200 * MS);
	assert_int_equal(g.n, 1);
	assert_int_equal(find(&g, 1)->why, UJOIN_OK);
	assert_int_equal(find(&g, 1)->sample_ts, 1 * MS + 60 * US);
	ujoin_stats(j, &st);
	assert_int_equal(st.orphan_samples, 3);
	assert_int_equal(g.drops, 3);
	ujoin_free(j);
}

/* missing samples: the reason says whether perf reported a loss there */
static void test_missing(void **state)
{
	struct got g;
	struct ujoin *j = mk(&g, 0);
	struct ujoin_stats st;

	smp(j, 3, 9, 1, 1 * MS, UJOIN_OK);
	rec(j, 3, 9, 1, 1 * MS, 1);
	/* samples of CPU 3 lost between 1 ms and 5 ms */
	ujoin_add_lost(j, 3, 5 * MS, 17);
	rec(j, 3, 9, 1, 3 * MS, 2); /* in the lost window */
	rec(j, 0, 9, 1, 3 * MS, 3); /* other CPU: nothing lost there */
	rec(j, 3, 9, 1, 8 * MS, 4); /* after the window */
	ujoin_advance(j, 50 * MS);  /* not yet timed out */
	assert_int_equal(g.n, 1);
	ujoin_advance(j, 120 * MS);
	assert_int_equal(g.n, 4);
	assert_int_equal(find(&g, 1)->why, UJOIN_OK);
	assert_int_equal(find(&g, 2)->why, UJOIN_SAMPLE_LOST);
	assert_int_equal(find(&g, 3)->why, UJOIN_NO_SAMPLE);
	assert_int_equal(find(&g, 4)->why, UJOIN_NO_SAMPLE);
	ujoin_stats(j, &st);
	assert_int_equal(st.lost, 17);
	assert_int_equal(st.why[UJOIN_SAMPLE_LOST], 1);
	assert_int_equal(st.why[UJOIN_NO_SAMPLE], 2);
	/* a ring found full: how many lost unknown, every record of the window */
	ujoin_add_lost(j, 3, 200 * MS, 0);
	rec(j, 3, 9, 1, 150 * MS, 5);
	rec(j, 3, 9, 1, 160 * MS, 6);
	ujoin_advance(j, 400 * MS);
	assert_int_equal(find(&g, 5)->why, UJOIN_SAMPLE_LOST);
	assert_int_equal(find(&g, 6)->why, UJOIN_SAMPLE_LOST);
	ujoin_stats(j, &st);
	assert_int_equal(st.lost, 17);
	ujoin_free(j);
}

/* the sample's own failure reaches the record */
static void test_failed_samples(void **state)
{
	struct got g;
	struct ujoin *j = mk(&g, 0);

	smp(j, 0, 5, 1, 1 * MS, UJOIN_UNWIND_FAILED);
	smp(j, 0, 6, 1, 1 * MS, UJOIN_NO_MAPS);
	rec(j, 0, 5, 1, 1 * MS, 1);
	rec(j, 0, 6, 1, 1 * MS, 2);
	assert_int_equal(find(&g, 1)->why, UJOIN_UNWIND_FAILED);
	assert_int_equal(find(&g, 2)->why, UJOIN_NO_MAPS);
	ujoin_free(j);
}

/* a sample delivered twice is joined once; the second record goes without */
static void test_duplicates(void **state)
{
	struct got g;
	struct ujoin *j = mk(&g, 0);
	struct ujoin_stats st;

	smp(j, 0, 5, 1, 1 * MS, UJOIN_OK);
	smp(j, 0, 5, 1, 1 * MS, UJOIN_OK); /* pending duplicate */
	rec(j, 0, 5, 1, 1 * MS, 1);
	smp(j, 0, 5, 1, 1 * MS, UJOIN_OK); /* duplicate of a matched one */
	rec(j, 0, 5, 1, 1 * MS + 10 * US, 2);
	ujoin_advance(j, 500 * MS);
	assert_int_equal(g.n, 2);
	assert_int_equal(find(&g, 1)->why, UJOIN_OK);
	assert_int_equal(find(&g, 2)->why, UJOIN_NO_SAMPLE);
	ujoin_stats(j, &st);
	assert_int_equal(st.dup_samples, 2);
	assert_int_equal(g.drops, 2);
	ujoin_free(j);
}

/* the pending queue is bounded: the oldest entry goes first */
static void test_overflow(void **state)
{
	struct got g;
	struct ujoin *j = mk(&g, 4);
	struct ujoin_stats st;
	int i;

	for (i = 0; i < 6; i++)
		rec(j, 0, 100 + i, 1, (uint64_t)(i + 1) * MS, i);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.m[0].rec, 0);
	assert_int_equal(g.m[1].rec, 1);
	assert_int_equal(g.m[0].why, UJOIN_NO_SAMPLE);
	smp(j, 0, 105, 1, 6 * MS, UJOIN_OK);
	assert_int_equal(find(&g, 5)->why, UJOIN_OK);
	for (i = 0; i < 5; i++)
		smp(j, 1, 1, 1, (uint64_t)(i + 10) * MS, UJOIN_OK);
	ujoin_stats(j, &st);
	assert_int_equal(st.overflow, 6);
	assert_int_equal(g.n, 6);     /* records 2, 3, 4 pushed out */
	assert_int_equal(g.drops, 1); /* and the oldest sample */
	ujoin_flush(j);
	assert_int_equal(g.n, 6);
	assert_int_equal(g.drops, 5);
	ujoin_free(j);
	assert_int_equal(g.drops, 5);
}

/*
 * a record its key's next pair passed by has no sample: given out at once,
 * not at the timeout; a sample with no record before it is dropped
 */
static void test_passed_by(void **state)
{
	struct got g;
	struct ujoin *j = mk(&g, 0);
	struct ujoin_stats st;

	rec(j, 0, 7, 1, 1 * MS, 1);
	rec(j, 0, 7, 1, 2 * MS, 2);
	smp(j, 0, 7, 1, 2 * MS + 5 * US, UJOIN_OK);
	smp(j, 0, 7, 1, 3 * MS, UJOIN_OK); /* its record was lost in the ring buffer */
	smp(j, 0, 8, 1, 3 * MS, UJOIN_OK); /* another thread's: waits */
	assert_int_equal(g.n, 0);	   /* CPU 0's records are known up to 2 ms */
	rec(j, 0, 7, 1, 4 * MS, 3);
	assert_int_equal(g.n, 2);
	assert_int_equal(find(&g, 1)->why, UJOIN_NO_SAMPLE);
	assert_int_equal(find(&g, 2)->why, UJOIN_OK);
	assert_int_equal(find(&g, 2)->sample_ts, 2 * MS + 5 * US);
	ujoin_stats(j, &st);
	assert_int_equal(st.orphan_samples, 1);
	assert_int_equal(g.drops, 1);
	ujoin_advance(j, 200 * MS);
	assert_int_equal(find(&g, 3)->why, UJOIN_NO_SAMPLE);
	assert_int_equal(g.drops, 2);
	ujoin_free(j);
}

/* a sample held back (its process's maps were not in yet) still finds its record */
static void test_hold(void **state)
{
	struct got g;
	struct ujoin *j = mk(&g, 0);

	rec(j, 1, 7, 1, 1 * MS, 1);
	rec(j, 1, 7, 1, 2 * MS, 2);
	rec(j, 1, 9, 1, 3 * MS, 3); /* CPU 1's records known past both samples */
	ujoin_hold(j, 1 * MS + 3 * US);
	smp(j, 1, 7, 1, 2 * MS + 3 * US, UJOIN_OK);
	assert_int_equal(g.n, 0); /* record 1 may be the held sample's */
	smp(j, 1, 7, 1, 1 * MS + 3 * US, UJOIN_OK);
	ujoin_release(j);
	assert_int_equal(g.n, 2);
	assert_int_equal(find(&g, 1)->why, UJOIN_OK);
	assert_int_equal(find(&g, 1)->sample_ts, 1 * MS + 3 * US);
	assert_int_equal(find(&g, 2)->sample_ts, 2 * MS + 3 * US);
	/* released: a record passed by goes at once again */
	rec(j, 1, 7, 1, 5 * MS, 4);
	rec(j, 1, 7, 1, 6 * MS, 5);
	smp(j, 1, 7, 1, 6 * MS + 1 * US, UJOIN_OK);
	rec(j, 1, 7, 1, 7 * MS, 6);
	assert_int_equal(find(&g, 4)->why, UJOIN_NO_SAMPLE);
	assert_int_equal(find(&g, 5)->why, UJOIN_OK);
	ujoin_free(j);
	assert_int_equal(g.drops, 0);
}

/*
 * One hit in 10 sampled: a record without a sample is "not sampled", but
 * for as many records of the CPU around the loss as perf said it lost
 */
static void test_sampled(void **state)
{
	struct ujoin_opts o = {
		.tolerance_ns = 50 * US,
		.timeout_ns = 100 * MS,
		.period = 10,
		.emit = on_emit,
		.drop = on_drop,
	};
	struct ujoin_stats st;
	struct ujoin *j;
	struct got g;
	int i;

	memset(&g, 0, sizeof(g));
	o.ctx = &g;
	j = ujoin_new(&o);
	assert_non_null(j);
	for (i = 0; i < 20; i++)
		rec(j, 0, 3, 1, (uint64_t)(i + 1) * MS, i);
	smp(j, 0, 3, 1, 1 * MS + 2 * US, UJOIN_OK);
	smp(j, 0, 3, 1, 11 * MS + 2 * US, UJOIN_OK);
	ujoin_add_lost(j, 0, 16 * MS, 2); /* 2 lost after 11 ms */
	ujoin_advance(j, 300 * MS);
	assert_int_equal(g.n, 20);
	ujoin_stats(j, &st);
	assert_int_equal(st.why[UJOIN_OK], 2);
	assert_int_equal(st.why[UJOIN_SAMPLE_LOST], 2);
	assert_int_equal(st.why[UJOIN_NOT_SAMPLED], 16);
	assert_int_equal(st.why[UJOIN_NO_SAMPLE], 0);
	assert_int_equal(find(&g, 10)->why, UJOIN_OK);
	assert_int_equal(find(&g, 12)->why, UJOIN_SAMPLE_LOST);
	assert_int_equal(find(&g, 19)->why, UJOIN_NOT_SAMPLED);
	assert_string_equal(ujoin_why_name(UJOIN_NOT_SAMPLED), "not sampled");
	/* a loss of unknown size (a ring found full): one record in 10 lost */
	ujoin_add_lost(j, 0, 60 * MS, 0);
	for (i = 0; i < 20; i++)
		rec(j, 0, 3, 1, 40 * MS + (uint64_t)i * MS / 2, 100 + i);
	ujoin_advance(j, 400 * MS);
	ujoin_stats(j, &st);
	assert_int_equal(st.why[UJOIN_SAMPLE_LOST], 2 + 2);
	assert_int_equal(st.why[UJOIN_NOT_SAMPLED], 16 + 18);
	ujoin_free(j);
}

/*
 * Thousands of records of one thread waiting, their samples after: each
 * pairs with its own (the lookup stays within the key and its due heads)
 */
static void test_one_key_many(void **state)
{
	struct ujoin_opts o = {
		.tolerance_ns = 50 * US,
		.timeout_ns = 100 * MS,
		.emit = on_emit_count,
		.drop = on_drop,
	};
	struct ujoin_stats st;
	struct ujoin *j;
	struct got g;
	int i;

	memset(&g, 0, sizeof(g));
	o.ctx = &g;
	j = ujoin_new(&o);
	assert_non_null(j);
	for (i = 0; i < 5000; i++)
		rec(j, 1, 9, 2, 1 * MS + (uint64_t)i * 4 * US, i);
	for (i = 0; i < 5000; i++)
		smp(j, 1, 9, 2, 1 * MS + (uint64_t)i * 4 * US + 3 * US, UJOIN_OK);
	ujoin_advance(j, 200 * MS);
	ujoin_stats(j, &st);
	assert_int_equal(st.why[UJOIN_OK], 5000);
	assert_int_equal(g.n, 5000);
	assert_int_equal(g.good, 5000);
	assert_int_equal(g.drops, 0);
	ujoin_free(j);
}

/* free with samples pending hands them to drop */
static void test_free_pending(void **state)
{
	struct got g;
	struct ujoin *j = mk(&g, 0);

	smp(j, 0, 1, 1, 1 * MS, UJOIN_OK);
	smp(j, 0, 2, 1, 1 * MS, UJOIN_OK);
	rec(j, 0, 3, 1, 1 * MS, 1);
	ujoin_free(j);
	assert_int_equal(g.drops, 2);
	assert_int_equal(g.n, 0);
}

static void test_bad_opts(void **state)
{
	struct ujoin_opts o = { 0 };

	errno = 0;
	assert_null(ujoin_new(&o));
	assert_int_equal(errno, EINVAL);
	assert_string_equal(ujoin_why_name(UJOIN_SAMPLE_LOST), "sample lost");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_in_order),       cmocka_unit_test(test_out_of_order),
		cmocka_unit_test(test_same_key_fifo),  cmocka_unit_test(test_samples_lead),
		cmocka_unit_test(test_key_mismatch),   cmocka_unit_test(test_missing),
		cmocka_unit_test(test_failed_samples), cmocka_unit_test(test_duplicates),
		cmocka_unit_test(test_overflow),       cmocka_unit_test(test_passed_by),
		cmocka_unit_test(test_hold),	       cmocka_unit_test(test_sampled),
		cmocka_unit_test(test_one_key_many),   cmocka_unit_test(test_free_pending),
		cmocka_unit_test(test_bad_opts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
