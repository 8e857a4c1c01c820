// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-counters.c - the header's counters: the numbers of core/counters.h
 * and the table of words of output/counters.c that say them (issue 37):
 * every row names a counter and a place, a sentence has a "%s" for the
 * value and a second only where the counter keeps an interval count, a
 * place says a counter once, and the words come out in the table's order.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "output/counters.h"
#include "source/stats.h"

static unsigned int count_s(const char *w)
{
	unsigned int n = 0;

	while ((w = strstr(w, "%s"))) {
		n++;
		w += 2;
	}
	return n;
}

static void test_rows(void **state)
{
	unsigned int place, total = 0;

	(void)state;
	for (place = 0; place < CP_N; place++) {
		const struct counter_word *w[HC_N];
		unsigned int n = counter_words_at(place, w), i, j;

		for (i = 0; i < n; i++) {
			const struct head_counter *c;

			assert_true(w[i]->counter < HC_N);
			assert_int_equal(w[i]->place, place);
			c = &head_counters[w[i]->counter];
			for (j = 0; j < i; j++)
				assert_int_not_equal(w[j]->counter, w[i]->counter);
			if (place <= CP_OFFCPU) {
				/* a sentence: the value, and the delta only where there is one */
				assert_non_null(w[i]->words);
				assert_true(count_s(w[i]->words) >= 1);
				assert_true(count_s(w[i]->words) <= (c->delta == HCD_ND ? 1u : 2u));
				assert_int_equal(w[i]->show, 0);
			} else if (place <= CP_SCREEN_MAP) {
				/* a label: words of its own, no value in them */
				assert_non_null(w[i]->words);
				assert_int_equal(count_s(w[i]->words), 0);
				if (w[i]->show & CW_DELTA)
					assert_int_not_equal(c->delta, HCD_ND);
			} else {
				/* named by its key */
				assert_null(w[i]->words);
				assert_non_null(c->jkey);
			}
		}
		total += n;
	}
	assert_true(total > 0);
}

/* the words as the batch header writes them, the value and delta in place */
static void test_said(void **state)
{
	struct session_stats st;
	const struct counter_word *w[HC_N];
	unsigned int n = counter_words_at(CP_LOSS, w);
	char buf[256];

	(void)state;
	memset(&st, 0, sizeof(st));
	st.lost = 12345;
	st.lost_delta = 7;
	st.overrun = 3;
	/* the loss line: lost first, the table's order */
	assert_true(n >= 3);
	assert_int_equal(w[0]->counter, HC_lost);
	assert_int_equal(counter_said(buf, sizeof(buf), &st, w[0], false),
			 (int)strlen("lost: 12345 (+7)"));
	assert_string_equal(buf, "lost: 12345 (+7)");
	assert_int_equal(w[1]->counter, HC_overrun);
	counter_said(buf, sizeof(buf), &st, w[1], true);
	assert_string_equal(buf, "overrun: 3");
	/* cut to the buffer, the length as snprintf() says it */
	assert_int_equal(counter_said(buf, 6, &st, w[0], false), (int)strlen("lost: 12345 (+7)"));
	assert_string_equal(buf, "lost:");
}

/* "key N" for the named ones that are not 0 */
static void test_named(void **state)
{
	struct session_stats st;
	char buf[128];

	(void)state;
	memset(&st, 0, sizeof(st));
	assert_int_equal(counters_named(buf, sizeof(buf), &st, CP_PROFILE), 0);
	assert_string_equal(buf, "");
	st.exact_events = 99;
	st.sample_period = 10;
	assert_true(counters_named(buf, sizeof(buf), &st, CP_PROFILE) > 0);
	assert_string_equal(buf, "exact_events 99, sample_period 10");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_said),
		cmocka_unit_test(test_named),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
