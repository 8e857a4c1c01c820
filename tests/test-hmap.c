// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-hmap.c - core/hmap.h, the project's one hash map: what is put is
 * got back, replaced, deleted (key 0 too), across growth; hmap_slot()
 * finds or adds in one call; a walk sees every entry once; the chains of
 * keys that share a hash keep apart what shares it; the memory it reports
 * is what it holds. Checked against a plain array on a fixed random
 * sequence of operations.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/hmap.h"
#include "core/pidcache.h"

static void test_put_get_replace(void **state)
{
	struct hmap m;
	uint64_t v, i;

	(void)state;
	hmap_init(&m);
	assert_false(hmap_get(&m, 5, &v));
	assert_int_equal(hmap_len(&m), 0);
	assert_int_equal(hmap_bytes(&m), 0);
	for (i = 0; i < 10000; i++)
		assert_int_equal(hmap_put(&m, i * 7919, i), 0);
	assert_int_equal(hmap_len(&m), 10000);
	for (i = 0; i < 10000; i++) {
		assert_true(hmap_get(&m, i * 7919, &v));
		assert_true(v == i);
	}
	assert_false(hmap_get(&m, 7918, NULL));
	/* replacing adds nothing */
	assert_int_equal(hmap_put(&m, 7919, 42), 0);
	assert_true(hmap_get(&m, 7919, &v) && v == 42);
	assert_int_equal(hmap_len(&m), 10000);
	/* key 0 is a key like any other */
	assert_true(hmap_get(&m, 0, &v) && v == 0);
	assert_int_equal(hmap_put(&m, 0, 9), 0);
	assert_true(hmap_get(&m, 0, &v) && v == 9);
	assert_true(hmap_del(&m, 0));
	assert_false(hmap_get(&m, 0, &v));
	assert_false(hmap_del(&m, 0));
	assert_int_equal(hmap_len(&m), 9999);
	hmap_clear(&m);
	assert_int_equal(hmap_len(&m), 0);
	assert_false(hmap_get(&m, 7919, &v));
	assert_true(hmap_bytes(&m) > 0); /* the allocation is kept */
	hmap_done(&m);
	assert_int_equal(hmap_bytes(&m), 0);
}

static void test_slot(void **state)
{
	struct hmap m;
	uint64_t *p, v;
	bool fresh = false;

	(void)state;
	hmap_init(&m);
	p = hmap_slot(&m, 77, &fresh);
	assert_non_null(p);
	assert_true(fresh);
	assert_true(*p == 0);
	*p = 5;
	p = hmap_slot(&m, 77, &fresh);
	assert_false(fresh);
	assert_true(*p == 5);
	assert_true(hmap_get(&m, 77, &v) && v == 5);
	/* key 0 */
	p = hmap_slot(&m, 0, &fresh);
	assert_true(fresh && *p == 0);
	*p = 6;
	p = hmap_slot(&m, 0, &fresh);
	assert_true(!fresh && *p == 6);
	assert_int_equal(hmap_len(&m), 2);
	/* no flag wanted */
	assert_non_null(hmap_slot(&m, 78, NULL));
	assert_int_equal(hmap_len(&m), 3);
	hmap_done(&m);
}

/* operations on the map and on an array of the same keys give the same answers */
static void test_against_array(void **state)
{
	enum { KEYS = 3000, OPS = 200000 };
	static uint64_t ref[KEYS];
	static bool have[KEYS];
	struct hmap m;
	unsigned int seed = 12345, n = 0, i;
	uint64_t k, v;
	size_t pos = 0, seen = 0;

	(void)state;
	hmap_init(&m);
	for (i = 0; i < OPS; i++) {
		unsigned int r = (unsigned int)rand_r(&seed), idx = r % KEYS;
		/* keys close together, 0 among them: the probe runs touch */
		uint64_t key = (uint64_t)idx * 64;

		switch ((r >> 16) % 4) {
		case 0:
		case 1:
			assert_int_equal(hmap_put(&m, key, i), 0);
			n += !have[idx];
			have[idx] = true;
			ref[idx] = i;
			break;
		case 2:
			assert_int_equal(hmap_del(&m, key), have[idx]);
			n -= have[idx];
			have[idx] = false;
			break;
		default:
			assert_int_equal(hmap_get(&m, key, &v), have[idx]);
			if (have[idx])
				assert_true(v == ref[idx]);
		}
		assert_int_equal(hmap_len(&m), n);
	}
	for (i = 0; i < KEYS; i++) {
		assert_int_equal(hmap_get(&m, (uint64_t)i * 64, &v), have[i]);
		if (have[i])
			assert_true(v == ref[i]);
	}
	/* the walk: every entry once */
	while (hmap_next(&m, &pos, &k, &v)) {
		assert_true(k % 64 == 0 && k / 64 < KEYS);
		assert_true(have[k / 64]);
		assert_true(v == ref[k / 64]);
		have[k / 64] = false; /* a second visit would fail above */
		seen++;
	}
	assert_int_equal(seen, n);
	hmap_done(&m);
}

static void test_copy(void **state)
{
	struct hmap a, b;
	uint64_t v, i;

	(void)state;
	hmap_init(&a);
	hmap_init(&b);
	for (i = 0; i < 500; i++)
		assert_int_equal(hmap_put(&a, i, i + 1), 0);
	assert_int_equal(hmap_put(&b, 9999, 1), 0);
	assert_int_equal(hmap_copy(&b, &a), 0);
	assert_int_equal(hmap_len(&b), 500);
	assert_false(hmap_get(&b, 9999, NULL));
	for (i = 0; i < 500; i++)
		assert_true(hmap_get(&b, i, &v) && v == i + 1);
	hmap_done(&a);
	hmap_done(&b);
}

/* strings under a hash that collides on purpose: the chain keeps them apart */
static const char *names[] = { "alpha", "beta", "gamma", "delta", "epsilon" };

static uint64_t weak_hash(const char *s)
{
	return (uint64_t)strlen(s) % 2; /* 0 or 1: everything collides */
}

static int intern(struct hmap *m, const char *s)
{
	uint64_t k = weak_hash(s), *slot;
	bool fresh;
	int i;

	for (;; k = hmap_chain(k)) {
		slot = hmap_slot(m, k, &fresh);
		assert_non_null(slot);
		if (fresh)
			break;
		if (!strcmp(names[*slot], s))
			return (int)*slot;
	}
	for (i = 0; strcmp(names[i], s); i++)
		;
	*slot = (uint64_t)i;
	return i;
}

static void test_chain(void **state)
{
	struct hmap m;
	int round, i;

	(void)state;
	hmap_init(&m);
	for (round = 0; round < 3; round++)
		for (i = 0; i < 5; i++)
			assert_int_equal(intern(&m, names[i]), i);
	assert_int_equal(hmap_len(&m), 5);
	assert_true(hmap_chain(7) != 7);
	assert_true(hmap_chain(7) == hmap_chain(7));
	hmap_done(&m);
}

static void test_bytes(void **state)
{
	struct hmap m;
	size_t before, grow;
	uint64_t i;

	(void)state;
	hmap_init(&m);
	/* an empty map: the first key allocates */
	grow = hmap_grow_bytes(&m);
	assert_true(grow > 0);
	assert_int_equal(hmap_put(&m, 1, 1), 0);
	assert_int_equal(hmap_bytes(&m), grow);
	/* the next key that makes it grow adds what hmap_grow_bytes() said, the others nothing */
	for (i = 2; i < 5000; i++) {
		before = hmap_bytes(&m);
		grow = hmap_grow_bytes(&m);
		assert_int_equal(hmap_put(&m, i, i), 0);
		assert_int_equal(hmap_bytes(&m), before + grow);
	}
	hmap_done(&m);
}

struct pc_val {
	int v;
	bool bad;
};

static bool pc_bad(const void *val)
{
	return ((const struct pc_val *)val)->bad;
}

/* the one pid cache: a value per pid, fixed size, forgetting on overflow */
static void test_pidcache(void **state)
{
	struct pidcache c;
	struct pc_val *v;
	int pid, kept = 0;

	(void)state;
	assert_int_equal(pidcache_init(&c, 64, sizeof(struct pc_val)), 0);
	assert_null(pidcache_find(&c, 7));
	v = pidcache_add(&c, 7);
	assert_int_equal(v->v, 0);
	v->v = 70;
	assert_int_equal(((struct pc_val *)pidcache_find(&c, 7))->v, 70);
	assert_ptr_equal(pidcache_add(&c, 7), v); /* found, not taken again */
	assert_null(pidcache_find(&c, 0));
	assert_null(pidcache_find(&c, -3));
	/* a thousand pids in 64 slots: whoever is found holds its own value */
	for (pid = 100; pid < 1100; pid++) {
		v = pidcache_add(&c, pid);
		v->v = pid * 10;
		v->bad = pid % 2;
	}
	for (pid = 100; pid < 1100; pid++) {
		v = pidcache_find(&c, pid);
		if (v) {
			assert_int_equal(v->v, pid * 10);
			kept++;
		}
	}
	assert_true(kept > 0 && kept <= 64);
	pidcache_forget(&c, pc_bad);
	for (pid = 100; pid < 1100; pid++) {
		v = pidcache_find(&c, pid);
		if (v)
			assert_false(v->bad);
	}
	pidcache_done(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_put_get_replace), cmocka_unit_test(test_slot),
		cmocka_unit_test(test_against_array),	cmocka_unit_test(test_copy),
		cmocka_unit_test(test_chain),		cmocka_unit_test(test_bytes),
		cmocka_unit_test(test_pidcache),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
