// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-ringbuf.c - the sub-buffer page walker against hand-made pages of
 * every layout, and against libtraceevent's kbuffer on a page captured
 * from a real kernel (tests/fixtures/ringbuf/capture.sh).
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
#include <kbuffer.h>

#include "core/ringbuf.h"

/* ---- a tiny page builder: every field written explicitly ---------------- */

struct pb {
	uint8_t buf[4096];
	size_t len;
	const struct ringbuf_layout *l;
};

static void pb_put32(struct pb *p, uint32_t v)
{
	if (p->l->big_endian)
		v = __builtin_bswap32(v);
	memcpy(p->buf + p->len, &v, 4);
	p->len += 4;
}

static void pb_put64_at(struct pb *p, size_t off, uint64_t v, unsigned int size)
{
	if (size == 4) {
		uint32_t w = (uint32_t)v;

		if (p->l->big_endian)
			w = __builtin_bswap32(w);
		memcpy(p->buf + off, &w, 4);
	} else {
		if (p->l->big_endian)
			v = __builtin_bswap64(v);
		memcpy(p->buf + off, &v, 8);
	}
}

static void pb_start(struct pb *p, const struct ringbuf_layout *l, uint64_t ts)
{
	memset(p, 0, sizeof(*p));
	p->l = l;
	pb_put64_at(p, 0, ts, 8);
	p->len = l->data_offset;
}

static uint32_t hdr(const struct ringbuf_layout *l, uint32_t type_len, uint32_t delta)
{
	/* the bitfield {type_len:5, time_delta:27} as each byte order lays it out */
	return l->big_endian ? (type_len << 27) | delta : (delta << 5) | type_len;
}

/* a data event with @n payload bytes (multiple of 4), payload = byte @fill */
static void pb_event(struct pb *p, uint32_t delta, uint32_t n, uint8_t fill)
{
	if (n <= 28 * 4) {
		pb_put32(p, hdr(p->l, n / 4, delta));
	} else {
		pb_put32(p, hdr(p->l, 0, delta));
		pb_put32(p, n + 4);
	}
	memset(p->buf + p->len, fill, n);
	p->len += n;
}

static void pb_extend(struct pb *p, uint64_t delta)
{
	pb_put32(p, hdr(p->l, 30, (uint32_t)(delta & ((1u << 27) - 1))));
	pb_put32(p, (uint32_t)(delta >> 27));
}

static void pb_abs(struct pb *p, uint64_t ts)
{
	pb_put32(p, hdr(p->l, 31, (uint32_t)(ts & ((1u << 27) - 1))));
	pb_put32(p, (uint32_t)(ts >> 27));
}

static void pb_pad(struct pb *p, uint32_t delta, uint32_t after)
{
	pb_put32(p, hdr(p->l, 29, delta));
	pb_put32(p, after);
	p->len += after - 4;
}

static void pb_finish(struct pb *p, uint64_t flags)
{
	uint64_t commit = p->len - p->l->data_offset;

	pb_put64_at(p, 8, commit | flags, p->l->long_size);
}

static const struct ringbuf_layout le8 = { 8, false, 16, 4096 };
static const struct ringbuf_layout le4 = { 4, false, 12, 4096 };
static const struct ringbuf_layout be8 = { 8, true, 16, 4096 };
static const struct ringbuf_layout be4 = { 4, true, 12, 4096 };

static void check_basic(const struct ringbuf_layout *l)
{
	struct ringbuf_event ev;
	struct ringbuf_page pg;
	struct pb p;

	pb_start(&p, l, 1000);
	pb_event(&p, 5, 12, 0xaa);  /* small: type_len 3 */
	pb_event(&p, 7, 200, 0xbb); /* big: type_len 0 + length word */
	pb_event(&p, 0, 112, 0xcc); /* largest small event: type_len 28 */
	pb_finish(&p, 0);

	assert_int_equal(ringbuf_page_init(&pg, p.buf, p.len, l), 0);
	assert_int_equal(pg.missed, 0);
	assert_int_equal(pg.ts_base, 1000);

	assert_int_equal(ringbuf_page_next(&pg, &ev), 1);
	assert_int_equal(ev.ts, 1005);
	assert_int_equal(ev.size, 12);
	assert_int_equal(ev.data[0], 0xaa);
	assert_int_equal(ev.data[11], 0xaa);

	assert_int_equal(ringbuf_page_next(&pg, &ev), 1);
	assert_int_equal(ev.ts, 1012);
	assert_int_equal(ev.size, 200);
	assert_int_equal(ev.data[0], 0xbb);
	assert_int_equal(ev.data[199], 0xbb);

	assert_int_equal(ringbuf_page_next(&pg, &ev), 1);
	assert_int_equal(ev.ts, 1012);
	assert_int_equal(ev.size, 112);
	assert_int_equal(ev.data[111], 0xcc);

	assert_int_equal(ringbuf_page_next(&pg, &ev), 0);
	assert_int_equal(ringbuf_page_next(&pg, &ev), 0);
}

static void test_ringbuf_basic_le8(void **state)
{
	(void)state;
	check_basic(&le8);
}

static void test_ringbuf_basic_le4(void **state)
{
	(void)state;
	check_basic(&le4);
}

static void test_ringbuf_basic_be8(void **state)
{
	(void)state;
	check_basic(&be8);
}

static void test_ringbuf_basic_be4(void **state)
{
	(void)state;
	check_basic(&be4);
}

static void test_ringbuf_time_extend_and_absolute(void **state)
{
	struct ringbuf_event ev;
	struct ringbuf_page pg;
	struct pb p;

	(void)state;
	pb_start(&p, &le8, 1ull << 40);
	pb_extend(&p, (3ull << 27) + 17); /* a delta too large for 27 bits */
	pb_event(&p, 1, 8, 1);
	pb_abs(&p, 123456789012ull);
	pb_event(&p, 10, 8, 2);
	pb_finish(&p, 0);

	assert_int_equal(ringbuf_page_init(&pg, p.buf, p.len, &le8), 0);
	assert_int_equal(ringbuf_page_next(&pg, &ev), 1);
	assert_true(ev.ts == (1ull << 40) + (3ull << 27) + 17 + 1);
	assert_int_equal(ringbuf_page_next(&pg, &ev), 1);
	/* absolute stamp replaces the low 59 bits, then the delta adds */
	assert_true(ev.ts == 123456789012ull + 10);
	assert_int_equal(ringbuf_page_next(&pg, &ev), 0);
}

static void test_ringbuf_padding_and_discarded(void **state)
{
	struct ringbuf_event ev;
	struct ringbuf_page pg;
	struct pb p;

	(void)state;
	pb_start(&p, &le8, 0);
	pb_event(&p, 1, 8, 1);
	pb_pad(&p, 1, 20); /* a discarded event of 20 bytes after its header */
	pb_event(&p, 1, 8, 2);
	pb_pad(&p, 1, 64); /* tail padding */
	pb_finish(&p, 0);

	assert_int_equal(ringbuf_page_init(&pg, p.buf, p.len, &le8), 0);
	assert_int_equal(ringbuf_page_next(&pg, &ev), 1);
	assert_int_equal(ev.data[0], 1);
	assert_int_equal(ringbuf_page_next(&pg, &ev), 1);
	assert_int_equal(ev.data[0], 2);
	assert_int_equal(ringbuf_page_next(&pg, &ev), 0);
}

static void test_ringbuf_null_padding_ends_page(void **state)
{
	struct ringbuf_event ev;
	struct ringbuf_page pg;
	struct pb p;

	(void)state;
	pb_start(&p, &le8, 0);
	pb_event(&p, 1, 8, 1);
	pb_put32(&p, hdr(&le8, 29, 0)); /* padding with delta 0: nothing follows */
	pb_event(&p, 1, 8, 9);		/* must not be returned */
	pb_finish(&p, 0);

	assert_int_equal(ringbuf_page_init(&pg, p.buf, p.len, &le8), 0);
	assert_int_equal(ringbuf_page_next(&pg, &ev), 1);
	assert_int_equal(ringbuf_page_next(&pg, &ev), 0);
}

static void test_ringbuf_missed_events(void **state)
{
	struct ringbuf_page pg;
	struct pb p;

	(void)state;
	/* flag only: count unknown */
	pb_start(&p, &le8, 0);
	pb_event(&p, 1, 8, 1);
	pb_finish(&p, 1ull << 31);
	assert_int_equal(ringbuf_page_init(&pg, p.buf, p.len, &le8), 0);
	assert_int_equal(pg.missed, -1);

	/* flag + stored count after the data, 8-byte long */
	pb_start(&p, &le8, 0);
	pb_event(&p, 1, 8, 1);
	pb_put64_at(&p, p.len, 4242, 8);
	pb_finish(&p, (1ull << 31) | (1ull << 30));
	assert_int_equal(ringbuf_page_init(&pg, p.buf, sizeof(p.buf), &le8), 0);
	assert_int_equal(pg.missed, 4242);

	/* the same with a 4-byte long, big-endian */
	pb_start(&p, &be4, 0);
	pb_event(&p, 1, 8, 1);
	pb_put64_at(&p, p.len, 77, 4);
	pb_finish(&p, (1ull << 31) | (1ull << 30));
	assert_int_equal(ringbuf_page_init(&pg, p.buf, sizeof(p.buf), &be4), 0);
	assert_int_equal(pg.missed, 77);
}

static void test_ringbuf_truncated(void **state)
{
	struct ringbuf_event ev;
	struct ringbuf_page pg;
	struct pb p;

	(void)state;
	/* shorter than the header */
	memset(&p, 0, sizeof(p));
	assert_int_equal(ringbuf_page_init(&pg, p.buf, 10, &le8), -EBADMSG);

	/* commit larger than what was read */
	pb_start(&p, &le8, 0);
	pb_event(&p, 1, 40, 1);
	pb_finish(&p, 0);
	assert_int_equal(ringbuf_page_init(&pg, p.buf, p.len - 8, &le8), -EBADMSG);

	/* an event whose length runs past the commit: error, earlier events kept */
	pb_start(&p, &le8, 0);
	pb_event(&p, 1, 8, 1);
	pb_put32(&p, hdr(&le8, 0, 1));
	pb_put32(&p, 4000); /* claims 3996 bytes */
	pb_finish(&p, 0);
	assert_int_equal(ringbuf_page_init(&pg, p.buf, p.len, &le8), 0);
	assert_int_equal(ringbuf_page_next(&pg, &ev), 1);
	assert_int_equal(ringbuf_page_next(&pg, &ev), -EBADMSG);
	assert_int_equal(ringbuf_page_next(&pg, &ev), 0);

	/* a header cut in the middle: 2 bytes left */
	pb_start(&p, &le8, 0);
	pb_event(&p, 1, 8, 1);
	p.len += 2;
	pb_finish(&p, 0);
	assert_int_equal(ringbuf_page_init(&pg, p.buf, p.len, &le8), 0);
	assert_int_equal(ringbuf_page_next(&pg, &ev), 1);
	assert_int_equal(ringbuf_page_next(&pg, &ev), 0);
}

static void test_ringbuf_layout_parse(void **state)
{
	static const char hp8[] = "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
				  "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
				  "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
				  "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";
	static const char hp4[] = "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
				  "\tfield: local_t commit;\toffset:8;\tsize:4;\tsigned:1;\n"
				  "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
				  "\tfield: char data;\toffset:12;\tsize:4084;\tsigned:0;\n";
	struct ringbuf_layout l;

	(void)state;
	assert_int_equal(ringbuf_layout_parse(hp8, false, &l), 0);
	assert_int_equal(l.long_size, 8);
	assert_int_equal(l.data_offset, 16);
	assert_int_equal(l.subbuf_size, 4096);
	assert_int_equal(ringbuf_layout_parse(hp4, true, &l), 0);
	assert_int_equal(l.long_size, 4);
	assert_int_equal(l.data_offset, 12);
	assert_true(l.big_endian);
	assert_int_equal(ringbuf_layout_parse("garbage", false, &l), -EBADMSG);
	assert_int_equal(ringbuf_layout_parse("", false, &l), -EBADMSG);
}

static char *slurp(const char *name, size_t *len)
{
	const char *dir = getenv("ST_FIXTURES");
	char path[1024];
	char *buf;
	FILE *f;

	snprintf(path, sizeof(path), "%s/ringbuf/%s", dir ? dir : "tests/fixtures", name);
	f = fopen(path, "rb");
	assert_non_null(f);
	buf = calloc(1, 65536);
	*len = fread(buf, 1, 65535, f);
	fclose(f);
	return buf;
}

/* a page written by the running kernel: our walker and kbuffer agree on every event */
static void test_ringbuf_real_page_matches_kbuffer(void **state)
{
	struct ringbuf_layout l;
	struct ringbuf_event ev;
	struct ringbuf_page pg;
	struct kbuffer *kb;
	unsigned long long kts;
	size_t hlen, plen;
	char *hp = slurp("header_page", &hlen);
	char *page = slurp("live-cpu0.page", &plen);
	int n = 0, stacks = 0;
	void *kd;

	(void)state;
	assert_int_equal(plen, 4096);
	assert_int_equal(ringbuf_layout_parse(hp, false, &l), 0);
	assert_int_equal(ringbuf_page_init(&pg, page, plen, &l), 0);

	kb = kbuffer_alloc(l.long_size == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
			   KBUFFER_ENDIAN_LITTLE);
	assert_non_null(kb);
	assert_int_equal(kbuffer_load_subbuffer(kb, page), 0);
	kd = kbuffer_read_event(kb, &kts);
	while (ringbuf_page_next(&pg, &ev) == 1) {
		assert_non_null(kd);
		assert_ptr_equal(kd, ev.data);
		assert_true(kts == ev.ts);
		assert_true((unsigned int)kbuffer_event_size(kb) <= ev.size);
		assert_true(ev.size - (unsigned int)kbuffer_event_size(kb) < 4);
		if (ringbuf_read_u16(&l, ev.data) == 4)
			stacks++;
		n++;
		kd = kbuffer_next_event(kb, &kts);
	}
	assert_null(kd);
	assert_true(n > 10);
	assert_true(stacks > 0);
	kbuffer_free(kb);
	free(hp);
	free(page);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ringbuf_basic_le8),
		cmocka_unit_test(test_ringbuf_basic_le4),
		cmocka_unit_test(test_ringbuf_basic_be8),
		cmocka_unit_test(test_ringbuf_basic_be4),
		cmocka_unit_test(test_ringbuf_time_extend_and_absolute),
		cmocka_unit_test(test_ringbuf_padding_and_discarded),
		cmocka_unit_test(test_ringbuf_null_padding_ends_page),
		cmocka_unit_test(test_ringbuf_missed_events),
		cmocka_unit_test(test_ringbuf_truncated),
		cmocka_unit_test(test_ringbuf_layout_parse),
		cmocka_unit_test(test_ringbuf_real_page_matches_kbuffer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
