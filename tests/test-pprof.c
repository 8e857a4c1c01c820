// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-pprof.c - the pprof profile written from a copy (output/pprof_copy.h,
 * export_pprof_copy()), as --serve's server writes it off the collector's
 * thread: on a replay of a saved stack map (tests/fixtures/export/stack_map,
 * 3 stacks, 15 hits) symbolized with the fixture kallsyms. No kernel needed.
 *
 * What it holds: the copy is all the writer reads (the session closed, the
 * copy writes the same bytes; AddressSanitizer would see a read of the
 * session), the same bytes as -o x.pb.gz writes, each stack resolved once
 * however many copies name it, a table of names replaced when the frames'
 * names change (--by-func), a window's counts since it opened.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <zlib.h>

#include "output/formats.h"
#include "output/pprof_copy.h"
#include "output/since.h"
#include "session/session.h"

struct fx {
	struct session *s;
	struct report_opts o;
};

static int setup(void **state)
{
	const char *fix = getenv("ST_FIXTURES");
	struct session_opts so = { 0 };
	struct fx *fx = calloc(1, sizeof(*fx));
	char map[512], ksyms[512], err[256];

	assert_non_null(fx);
	assert_non_null(fix);
	snprintf(map, sizeof(map), "%s/export/stack_map", fix);
	snprintf(ksyms, sizeof(ksyms), "%s/ksym/kallsyms", fix);
	so.map_file = map;
	so.kallsyms = ksyms;
	assert_int_equal(session_open(&so, &fx->s, err, sizeof(err)), 0);
	assert_true(session_drain(fx->s, 0) >= 0);
	session_tick(fx->s);
	fx->o = (struct report_opts){
		.rank = { .key = RANK_TOTAL, .event = -1, .pid = -1, .cpu = -1 },
	};
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fx *fx = *state;

	session_close(fx->s);
	free(fx);
	return 0;
}

/* a profile into memory (the bare protobuf, or gzip'd): its samples in *@samples */
static char *write_copy(const struct pprof_copy *c, struct export_since *since, bool gz,
			size_t *len, int *samples)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	assert_non_null(f);
	*samples = export_pprof_copy(f, c, since, gz);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* the top-level fields numbered @field of a profile.proto, and the bytes without field 9 (time) */
static int pb_count(const uint8_t *p, size_t n, unsigned int field, uint8_t *rest, size_t *restlen)
{
	size_t i = 0, o = 0;
	int count = 0;

	while (i < n) {
		size_t start = i;
		uint64_t tag = 0, v = 0;
		int sh = 0;

		do {
			assert_true(i < n);
			tag |= (uint64_t)(p[i] & 0x7f) << sh;
			sh += 7;
		} while (p[i++] & 0x80);
		sh = 0;
		do {
			assert_true(i < n);
			v |= (uint64_t)(p[i] & 0x7f) << sh;
			sh += 7;
		} while (p[i++] & 0x80);
		assert_true((tag & 7) == 0 || (tag & 7) == 2);
		if ((tag & 7) == 2) {
			assert_true(v <= n - i);
			i += v;
		}
		if ((tag >> 3) == field)
			count++;
		if (rest && (tag >> 3) != 9) {
			memcpy(rest + o, p + start, i - start);
			o += i - start;
		}
	}
	if (restlen)
		*restlen = o;
	return count;
}

/*
 * The copy is what the writer reads: written, then written again after the
 * session it was taken from is closed, the same bytes; the same profile as
 * export_pprof() (-o x.pb.gz) writes but for the time it was taken.
 */
static void test_copy_outlives_session(void **state)
{
	struct fx *fx = *state;
	static uint8_t gz[65536], a2[65536], g2[65536];
	struct pprof_names *n = pprof_names_new(fx->s);
	struct pprof_copy *c;
	size_t alen, blen, glen = 0, l1, l2;
	char *a, *b, *g;
	int samples;
	FILE *f;
	uLongf zl = sizeof(gz);

	assert_non_null(n);
	c = pprof_copy_take(fx->s, n, &fx->o);
	assert_non_null(c);
	pprof_names_put(n); /* the copy keeps the table */
	a = write_copy(c, NULL, false, &alen, &samples);
	assert_int_equal(samples, 3); /* one a (stack, event, CPU, pid) */
	assert_int_equal(pb_count((uint8_t *)a, alen, 2, NULL, NULL), 3);
	assert_int_equal(pb_count((uint8_t *)a, alen, 4, NULL, NULL), 6); /* Locations */

	/* -o x.pb.gz: the same but for field 9, the time */
	g = NULL;
	f = open_memstream(&g, &glen);
	assert_non_null(f);
	assert_int_equal(export_pprof(f, fx->s, &fx->o), 3);
	assert_int_equal(fclose(f), 0);
	{
		z_stream z = { .next_in = (Bytef *)g,
			       .avail_in = (uInt)glen,
			       .next_out = gz,
			       .avail_out = sizeof(gz) };

		assert_int_equal(inflateInit2(&z, 16 + MAX_WBITS), Z_OK);
		assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
		zl = z.total_out;
		inflateEnd(&z);
	}
	pb_count((uint8_t *)a, alen, 9, a2, &l1);
	pb_count(gz, zl, 9, g2, &l2);
	assert_int_equal(l1, l2);
	assert_memory_equal(a2, g2, l1);
	free(g);

	session_close(fx->s);
	fx->s = NULL;
	b = write_copy(c, NULL, false, &blen, &samples);
	assert_int_equal(samples, 3);
	assert_int_equal(alen, blen);
	assert_memory_equal(a, b, alen);
	free(a);
	free(b);
	pprof_copy_put(c);
}

/*
 * A table serves every copy: a stack is resolved the first time a copy
 * names it, never again; two copies write the same profile
 */
static void test_names_once(void **state)
{
	struct fx *fx = *state;
	struct pprof_names *n = NULL;
	struct pprof_copy *c1, *c2;
	size_t l1, l2;
	char *a, *b;
	int samples;

	assert_int_equal(pprof_names_fit(&n, fx->s), 0);
	assert_non_null(n);
	assert_int_equal(pprof_names_stacks(n), 0);
	c1 = pprof_copy_take(fx->s, n, &fx->o);
	assert_non_null(c1);
	assert_int_equal(pprof_names_stacks(n), 3);
	assert_true(pprof_names_bytes(n) > 0);
	c2 = pprof_copy_take(fx->s, n, &fx->o);
	assert_non_null(c2);
	assert_int_equal(pprof_names_stacks(n), 3);
	assert_int_equal(c1->nstrs, c2->nstrs);
	assert_int_equal(c1->nlocs, c2->nlocs);
	c2->time_ns = c1->time_ns;
	a = write_copy(c1, NULL, false, &l1, &samples);
	b = write_copy(c2, NULL, false, &l2, &samples);
	assert_int_equal(l1, l2);
	assert_memory_equal(a, b, l1);
	free(a);
	free(b);
	/* the same session, named the same: the same table */
	assert_int_equal(pprof_names_fit(&n, fx->s), 0);
	assert_int_equal(pprof_names_stacks(n), 3);
	/* by function, frames are named otherwise: a new table (the copies keep the old) */
	assert_int_equal(session_set_group(fx->s, 0, true), 0);
	{
		struct pprof_names *old = n;

		assert_int_equal(pprof_names_fit(&n, fx->s), 0);
		assert_ptr_not_equal(n, old);
		assert_int_equal(pprof_names_stacks(n), 0);
	}
	pprof_copy_put(c1);
	pprof_copy_put(c2);
	c1 = pprof_copy_take(fx->s, n, &fx->o);
	assert_non_null(c1);
	a = write_copy(c1, NULL, false, &l1, &samples);
	assert_int_equal(samples, 3);
	free(a);
	pprof_copy_put(c1);
	pprof_names_put(n);
}

/* A window: what was counted since it opened (nothing, on a replay read once) */
static void test_window(void **state)
{
	struct fx *fx = *state;
	struct export_since *w = export_since_take(fx->s, &fx->o.rank);
	struct pprof_names *n = pprof_names_new(fx->s);
	struct pprof_copy *c;
	size_t len;
	char *a;
	int samples;

	assert_non_null(w);
	assert_non_null(n);
	c = pprof_copy_take(fx->s, n, &fx->o);
	assert_non_null(c);
	a = write_copy(c, w, false, &len, &samples);
	assert_int_equal(samples, 0);
	assert_int_equal(pb_count((uint8_t *)a, len, 2, NULL, NULL), 0);
	/* no stack counted in the window: none of their Locations either */
	assert_int_equal(pb_count((uint8_t *)a, len, 4, NULL, NULL), 0);
	assert_int_equal(pb_count((uint8_t *)a, len, 1, NULL, NULL), 2); /* sample types */
	free(a);
	/* since start (no window): every hit */
	a = write_copy(c, NULL, true, &len, &samples);
	assert_int_equal(samples, 3);
	free(a);
	pprof_copy_put(c);
	pprof_names_put(n);
	export_since_free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_copy_outlives_session, setup, teardown),
		cmocka_unit_test_setup_teardown(test_names_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_window, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
