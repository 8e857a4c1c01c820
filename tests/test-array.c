// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-array.c - core/array.h: an array grows by doubling, keeps what it
 * held, zeroes what it adds, and refuses a size that overflows.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/array.h"

struct item {
	uint64_t a;
	uint32_t b;
};

static void test_grow_keeps_and_zeroes(void **state)
{
	struct item *v = NULL;
	size_t cap = 0, n, i;

	(void)state;
	assert_int_equal(ARRAY_GROW(v, cap, 1), 0);
	assert_non_null(v);
	assert_int_equal(cap, ARRAY_MIN);
	for (i = 0; i < cap; i++)
		assert_true(v[i].a == 0 && v[i].b == 0);
	for (n = 0; n < 1000; n++) {
		assert_int_equal(ARRAY_GROW(v, cap, n + 1), 0);
		assert_true(cap >= n + 1);
		/* what the last growth added is zero until written */
		assert_true(v[n].a == 0 && v[n].b == 0);
		v[n].a = n * 3;
		v[n].b = (uint32_t)n;
	}
	assert_int_equal(cap, 1024); /* 4 doubled eight times */
	for (i = 0; i < n; i++)
		assert_true(v[i].a == i * 3 && v[i].b == i);
	free(v);
}

static void test_no_change_when_it_fits(void **state)
{
	char *v = NULL;
	size_t cap = 0;
	char *was;

	(void)state;
	assert_int_equal(ARRAY_GROW(v, cap, 100), 0);
	assert_int_equal(cap, 128);
	was = v;
	v[127] = 'x';
	assert_int_equal(ARRAY_GROW(v, cap, 128), 0);
	assert_ptr_equal(v, was);
	assert_int_equal(cap, 128);
	assert_int_equal(v[127], 'x');
	/* one more doubles */
	assert_int_equal(ARRAY_GROW(v, cap, 129), 0);
	assert_int_equal(cap, 256);
	assert_int_equal(v[127], 'x');
	assert_int_equal(v[200], 0);
	free(v);
}

static void test_overflow_refused(void **state)
{
	uint64_t *v = NULL;
	size_t cap = 0;
	void *p;

	(void)state;
	/* need * elem past SIZE_MAX: refused before any allocation */
	assert_int_equal(ARRAY_GROW(v, cap, SIZE_MAX / sizeof(*v) + 1), -EOVERFLOW);
	assert_null(v);
	assert_int_equal(cap, 0);
	assert_int_equal(ARRAY_GROW(v, cap, SIZE_MAX), -EOVERFLOW);
	assert_null(v);
	assert_int_equal(cap, 0);
	/* an array that exists stays as it was */
	assert_int_equal(ARRAY_GROW(v, cap, 10), 0);
	assert_int_equal(cap, 16);
	v[9] = 42;
	assert_int_equal(ARRAY_GROW(v, cap, (SIZE_MAX / 4) + 1), -EOVERFLOW);
	assert_int_equal(cap, 16);
	assert_int_equal(v[9], 42);
	free(v);
	/* an element of no size is a mistake, not an empty array */
	p = NULL;
	cap = 0;
	assert_int_equal(array_grow(&p, &cap, 1, 0), -EINVAL);
	assert_null(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grow_keeps_and_zeroes),
		cmocka_unit_test(test_no_change_when_it_fits),
		cmocka_unit_test(test_overflow_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
