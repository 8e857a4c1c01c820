/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-format.c - every formatter against exact strings, and hostile input.
 *
 * Symbols come from an inline kallsyms text (fmemopen) that includes names
 * and module names carrying terminal escape sequences.
 */
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/format.h"
#include "sym/frame.h"
#include "sym/ksym.h"
#include "kernel/stackmap.h"

static const char kallsyms[] = "ffffffff81002100 T schedule\n"
			       "ffffffff810021c0 T schedule_timeout\n"
			       "ffffffff81003000 t \x1b[31mevil\n"
			       "ffffffff81003100 t caf\xc3\xa9\n"
			       "ffffffff81003200 t bad\xc0\xafutf8\n"
			       "ffffffffc0a00000 t nvme_queue_rq\t[nvme]\n"
			       "ffffffffc0b00000 t hostile_mod_fn\t[\x1b]0;pwn\x07]\n"
			       "ffffffffc0b00100 t csi_mod_fn\t[\xc2\x9b"
			       "2Jx]\n";

static int setup_ksym(void **state)
{
	FILE *f = fmemopen((void *)kallsyms, sizeof(kallsyms) - 1, "r");
	struct ksym *ks = ksym_new(NULL);

	if (!f || !ks || ksym_load(ks, f) != 8) {
		if (f)
			fclose(f);
		ksym_free(ks);
		return -1;
	}
	fclose(f);
	*state = ks;
	return 0;
}

static int teardown_ksym(void **state)
{
	ksym_free(*state);
	return 0;
}

#define SAN(expect, src, len)                                                                      \
	do {                                                                                       \
		char b_[64];                                                                       \
		size_t r_ = fmt_sanitize(b_, sizeof(b_), (src), (len));                            \
		assert_string_equal(b_, (expect));                                                 \
		assert_int_equal(r_, strlen(expect));                                              \
	} while (0)
#define SANS(expect, src) SAN(expect, src, strlen(src))

static void test_format_sanitize_plain_and_utf8(void **state)
{
	SANS("plain text_1+0x2/[mod]", "plain text_1+0x2/[mod]");
	SANS("caf\xc3\xa9", "caf\xc3\xa9");
	SANS("\xe4\xb8\xad\xe6\x96\x87", "\xe4\xb8\xad\xe6\x96\x87");
	SANS("\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80");
	SANS("\xc2\xa0", "\xc2\xa0"); /* U+00A0 is printable */
	SANS("", "");
}

static void test_format_sanitize_controls(void **state)
{
	SANS("????", "\t\n\r\a");
	SANS("?", "\x7f");
	SANS("?", "\xc2\x9b"); /* C1 CSI as UTF-8 */
	SANS("?", "\xc2\x80");
	SANS("?", "\x9b");	   /* raw C1 CSI */
	SANS("?", "\xe2\x80\xae"); /* U+202E right-to-left override */
	SANS("?", "\xe2\x81\xa6"); /* U+2066 left-to-right isolate */
	SANS("?", "\xe2\x80\xa8"); /* U+2028 line separator */
}

static void test_format_sanitize_escape_sequences(void **state)
{
	SANS("a?[31mred?[0m", "a\x1b[31mred\x1b[0m");
	SANS("?]0;title??[2J", "\x1b]0;title\a\x1b[2J");
	SANS("?P+q?\\", "\x1bP+q\x1b\\"); /* DCS ... ST */
	SANS("x?6n", "x\xc2\x9b"
		     "6n");
}

static void test_format_sanitize_invalid_utf8(void **state)
{
	SANS("??", "\xc0\xaf");		  /* overlong '/' */
	SANS("???", "\xe0\x80\xaf");	  /* overlong, 3 bytes */
	SANS("????", "\xf0\x80\x80\xaf"); /* overlong, 4 bytes */
	SANS("???", "\xed\xa0\x80");	  /* surrogate */
	SANS("????", "\xf4\x90\x80\x80"); /* above U+10FFFF */
	SANS("?", "\xff");
	SANS("?", "\xf5");
	SANS("?a", "\x80"
		   "a");	    /* stray continuation */
	SANS("ab??", "ab\xe4\xb8"); /* cut sequence */
	SANS("?b", "\xe4"
		   "b");
}

static void test_format_sanitize_len_nul_and_size(void **state)
{
	char b[8];

	SAN("ab", "ab\0cd", 5);
	SAN("ab", "abcdef", 2);
	SAN("ab??", "ab\xe4\xb8\xad", 4); /* len cuts the character */

	/* snprintf semantics: wanted length, NUL-terminated prefix */
	memset(b, 'X', sizeof(b));
	assert_int_equal(fmt_sanitize(b, 4, "abcdef", 6), 6);
	assert_string_equal(b, "abc");
	/* never half a character */
	assert_int_equal(fmt_sanitize(b, 3, "a\xe4\xb8\xad", 4), 4);
	assert_string_equal(b, "a");
	assert_int_equal(fmt_sanitize(b, 4, "ab\x1b", 3), 3);
	assert_string_equal(b, "ab?");
	assert_int_equal(fmt_sanitize(NULL, 0, "a\x1b", 2), 2);
	assert_int_equal(fmt_sanitize(b, 1, "abc", 3), 3);
	assert_string_equal(b, "");
}

#define FRAME(expect, ks, ip)                                                                      \
	do {                                                                                       \
		char b_[128];                                                                      \
		int r_ = fmt_frame(b_, sizeof(b_), (ks), (ip));                                    \
		assert_string_equal(b_, (expect));                                                 \
		assert_int_equal(r_, (int)strlen(expect));                                         \
	} while (0)

static void test_format_frame_like_ps(void **state)
{
	struct ksym *ks = *state;

	FRAME("schedule+0x0/0xc0", ks, 0xffffffff81002100ULL);
	FRAME("schedule+0x48/0xc0", ks, 0xffffffff81002148ULL);
	FRAME("schedule_timeout+0x1c/0xe40", ks, 0xffffffff810021dcULL);
	FRAME("nvme_queue_rq+0x1a2/0x1000 [nvme]", ks, 0xffffffffc0a001a2ULL);
}

static void test_format_frame_unknown_and_trampoline(void **state)
{
	struct ksym *ks = *state;

	FRAME("0xffffffff80000000", ks, 0xffffffff80000000ULL);
	FRAME("0xffffffff81002148", NULL, 0xffffffff81002148ULL);
	FRAME("0x0", ks, 0);
	FRAME("[FTRACE TRAMPOLINE]", ks, STACKMAP_TRAMPOLINE);
	FRAME("[FTRACE TRAMPOLINE]", NULL, 0x7fffffffULL);
}

static void test_format_frame_sanitizes_symbols(void **state)
{
	struct ksym *ks = *state;

	FRAME("?[31mevil+0x4/0x100", ks, 0xffffffff81003004ULL);
	/* (frames inside their functions: a first byte is the previous one's
	 * return address, test-ksym test_ksym_return_addresses) */
	FRAME("caf\xc3\xa9+0x1/0x100", ks, 0xffffffff81003101ULL);
	FRAME("bad??utf8+0x1/0x1000", ks, 0xffffffff81003201ULL);
	FRAME("hostile_mod_fn+0x1/0x100 [?]", ks, 0xffffffffc0b00001ULL);
	FRAME("csi_mod_fn+0x1/0x1000 [?2Jx]", ks, 0xffffffffc0b00101ULL);
}

static void test_format_frame_truncates(void **state)
{
	struct ksym *ks = *state;
	char b[10];

	assert_int_equal(fmt_frame(b, sizeof(b), ks, 0xffffffff81002148ULL), 18);
	assert_string_equal(b, "schedule+");
	assert_int_equal(fmt_frame(NULL, 0, ks, 0xffffffffc0a001a2ULL), 33);
	assert_int_equal(fmt_frame(b, 5, NULL, 0x1234), 6);
	assert_string_equal(b, "0x12");
}

#define FUNC(expect, ks, ip, mod)                                                                  \
	do {                                                                                       \
		char b_[128];                                                                      \
		int r_ = fmt_func(b_, sizeof(b_), (ks), (ip), (mod));                              \
		assert_string_equal(b_, (expect));                                                 \
		assert_int_equal(r_, (int)strlen(expect));                                         \
	} while (0)

static void test_format_func(void **state)
{
	struct ksym *ks = *state;

	FUNC("schedule", ks, 0xffffffff81002148ULL, 1);
	FUNC("schedule", ks, 0xffffffff81002148ULL, 0);
	FUNC("nvme_queue_rq [nvme]", ks, 0xffffffffc0a001a2ULL, 1);
	FUNC("nvme_queue_rq", ks, 0xffffffffc0a001a2ULL, 0);
	FUNC("?[31mevil", ks, 0xffffffff81003004ULL, 1);
	FUNC("hostile_mod_fn [?]", ks, 0xffffffffc0b00000ULL, 1);
	FUNC("0xffffffff80000000", ks, 0xffffffff80000000ULL, 1);
	FUNC("0x10", NULL, 0x10, 0);
	FUNC("[FTRACE TRAMPOLINE]", ks, STACKMAP_TRAMPOLINE, 1);
}

#define COUNT(expect, n)                                                                           \
	do {                                                                                       \
		char b_[32];                                                                       \
		int r_ = fmt_count(b_, sizeof(b_), (n));                                           \
		assert_string_equal(b_, (expect));                                                 \
		assert_int_equal(r_, (int)strlen(expect));                                         \
		assert_true(r_ <= 6);                                                              \
	} while (0)

static void test_format_count(void **state)
{
	COUNT("0", 0);
	COUNT("7", 7);
	COUNT("999999", 999999);
	COUNT("1.00M", 1000000);
	COUNT("1.23M", 1234567);
	COUNT("1.23M", 1239999); /* truncated, never rounded up */
	COUNT("12.3M", 12345678);
	COUNT("123M", 123456789);
	COUNT("999M", 999999999);
	COUNT("1.00G", 1000000000ULL);
	COUNT("45.6G", 45678901234ULL);
	COUNT("1.00T", 1000000000000ULL);
	COUNT("999P", 999999999999999999ULL);
	COUNT("1.00E", 1000000000000000000ULL);
	COUNT("18.4E", UINT64_MAX);
}

#define RATE(expect, r)                                                                            \
	do {                                                                                       \
		char b_[32];                                                                       \
		int r_ = fmt_rate(b_, sizeof(b_), (r));                                            \
		assert_string_equal(b_, (expect));                                                 \
		assert_int_equal(r_, (int)strlen(expect));                                         \
		assert_true(r_ <= 6);                                                              \
	} while (0)

#define DURATION(expect, sec)                                                                      \
	do {                                                                                       \
		char b_[32];                                                                       \
		int r_ = fmt_duration(b_, sizeof(b_), (sec));                                      \
		assert_string_equal(b_, (expect));                                                 \
		assert_int_equal(r_, (int)strlen(expect));                                         \
	} while (0)

static void test_format_duration(void **state)
{
	char small[4];

	(void)state;
	DURATION("0s", 0.0);
	DURATION("<1s", 0.99);
	DURATION("<1s", 0.001);
	DURATION("59s", 59.9);
	DURATION("1m00s", 60.0);
	DURATION("3m05s", 185.4);
	DURATION("59m59s", 3599.9);
	DURATION("1h00m", 3600.0);
	DURATION("2h03m", 7380.0);
	DURATION("23h59m", 86399.0);
	DURATION("1d00h", 86400.0);
	DURATION("4d07h", 4 * 86400.0 + 7 * 3600 + 59);
	DURATION("-", -1.0);
	DURATION("-", NAN);
	DURATION("-", INFINITY);
	/* snprintf semantics: the wanted length, a cut but terminated buffer */
	assert_int_equal(fmt_duration(small, sizeof(small), 185.0), 5);
	assert_string_equal(small, "3m0");
}

static void test_format_rate(void **state)
{
	RATE("0.0", 0.0);
	RATE("0.5", 0.55);
	RATE("9.9", 9.99);
	RATE("10", 10.0);
	RATE("999", 999.9);
	RATE("1.00k", 1000.0);
	RATE("1.15k", 1150.0);
	RATE("12.3k", 12345.6);
	RATE("999k", 999999.0);
	RATE("1.00M", 1e6);
	RATE("2.50G", 2.5e9);
	RATE("999E", 1e30);
	RATE("-", -1.0);
	RATE("-", NAN);
	RATE("-", INFINITY);
}

#define PCT(expect, p, w)                                                                          \
	do {                                                                                       \
		char b_[32];                                                                       \
		int r_ = fmt_percent(b_, sizeof(b_), (p), (w));                                    \
		assert_string_equal(b_, (expect));                                                 \
		assert_int_equal(r_, (int)strlen(expect));                                         \
	} while (0)

static void test_format_percent(void **state)
{
	PCT("-", 0, 0);
	PCT("-", 5, 0);
	PCT("0.0", 0, 10);
	PCT("0.0", 1, 100000);
	PCT("12.5", 1, 8);
	PCT("12.3", 123, 1000);
	PCT("33.3", 1, 3);
	PCT("99.9", 9999, 10000);
	PCT("100", 10, 10);
	PCT("100", UINT64_MAX, UINT64_MAX);
	PCT("50.0", UINT64_MAX / 2 + 1, UINT64_MAX);
	PCT("200", 20, 10);
}

#define IDS(expect, ids, n, more)                                                                  \
	do {                                                                                       \
		char b_[64];                                                                       \
		int r_ = fmt_ids(b_, sizeof(b_), (ids), (n), (more));                              \
		assert_string_equal(b_, (expect));                                                 \
		assert_int_equal(r_, (int)strlen(expect));                                         \
	} while (0)

static void test_format_ids(void **state)
{
	static const uint32_t ids[] = { 42, 4025, 7 };
	char b[5];

	IDS("42", ids, 1, 0);
	IDS("42,4025", ids, 2, 0);
	IDS("42,4025,7", ids, 3, 0);
	IDS("42,+", ids, 1, 1);
	IDS("-", NULL, 0, 0);
	IDS("+", NULL, 0, 1);
	assert_int_equal(fmt_ids(b, sizeof(b), ids, 2, 0), 7);
	assert_string_equal(b, "42,4");
}

#define FIT(expect, cols, src, width, size)                                                        \
	do {                                                                                       \
		char b_[64];                                                                       \
		int r_ = fmt_fit(b_, (size), (src), (width));                                      \
		assert_string_equal(b_, (expect));                                                 \
		assert_int_equal(r_, (cols));                                                      \
	} while (0)

static void test_format_fit_ascii(void **state)
{
	FIT("hello", 5, "hello", 10, 64);
	FIT("hello", 5, "hello", 5, 64);
	FIT("hel~", 4, "hello", 4, 64);
	FIT("~", 1, "hello", 1, 64);
	FIT("", 0, "hello", 0, 64);
	FIT("", 0, "hello", -3, 64);
	FIT("", 0, "", 5, 64);
	FIT("a?b", 3,
	    "a\x1b"
	    "b",
	    5, 64);
	/* the buffer, not the width, runs out */
	FIT("he~", 3, "hello", 10, 4);
	FIT("hel", 3, "hel", 10, 4);
	FIT("", 0, "hello", 10, 1);
}

static void test_format_fit_wide(void **state)
{
	if (!setlocale(LC_CTYPE, "C.UTF-8") && !setlocale(LC_CTYPE, "en_US.UTF-8"))
		skip();
	/* 中文字: three characters of two columns each */
	FIT("\xe4\xb8\xad\xe6\x96\x87\xe5\xad\x97", 6, "\xe4\xb8\xad\xe6\x96\x87\xe5\xad\x97", 6,
	    64);
	FIT("\xe4\xb8\xad\xe6\x96\x87~", 5, "\xe4\xb8\xad\xe6\x96\x87\xe5\xad\x97", 5, 64);
	FIT("\xe4\xb8\xad~", 3, "\xe4\xb8\xad\xe6\x96\x87\xe5\xad\x97", 4, 64);
	FIT("~", 1, "\xe4\xb8\xad\xe6\x96\x87", 2, 64);
	/* combining acute accent takes no column */
	FIT("e\xcc\x81x", 2, "e\xcc\x81x", 2, 64);
	FIT("h\xc3\xa9~", 3, "h\xc3\xa9llo", 3, 64);
	/* never half a character when the buffer runs out */
	FIT("~", 1, "\xe4\xb8\xad\xe6\x96\x87", 10, 4);
	setlocale(LC_CTYPE, "C");
}

static void test_format_bytes(void **state)
{
	static const struct {
		uint64_t n;
		const char *want;
	} cases[] = {
		{ 0, "0B" },
		{ 1023, "1023B" },
		{ 1024, "1.0K" },
		{ 16 << 10, "16K" },
		{ 1536 << 10, "1.5M" },
		{ (uint64_t)256 << 20, "256M" },
		{ ((uint64_t)2 << 30) + 1, "2.0G" },
		{ (uint64_t)1023 << 20, "1023M" },
	};
	char buf[16];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fmt_bytes(buf, sizeof(buf), cases[i].n);
		assert_string_equal(buf, cases[i].want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_bytes),
		cmocka_unit_test(test_format_sanitize_plain_and_utf8),
		cmocka_unit_test(test_format_sanitize_controls),
		cmocka_unit_test(test_format_sanitize_escape_sequences),
		cmocka_unit_test(test_format_sanitize_invalid_utf8),
		cmocka_unit_test(test_format_sanitize_len_nul_and_size),
		cmocka_unit_test_setup_teardown(test_format_frame_like_ps, setup_ksym,
						teardown_ksym),
		cmocka_unit_test_setup_teardown(test_format_frame_unknown_and_trampoline,
						setup_ksym, teardown_ksym),
		cmocka_unit_test_setup_teardown(test_format_frame_sanitizes_symbols, setup_ksym,
						teardown_ksym),
		cmocka_unit_test_setup_teardown(test_format_frame_truncates, setup_ksym,
						teardown_ksym),
		cmocka_unit_test_setup_teardown(test_format_func, setup_ksym, teardown_ksym),
		cmocka_unit_test(test_format_count),
		cmocka_unit_test(test_format_rate),
		cmocka_unit_test(test_format_duration),
		cmocka_unit_test(test_format_percent),
		cmocka_unit_test(test_format_ids),
		cmocka_unit_test(test_format_fit_ascii),
		cmocka_unit_test(test_format_fit_wide),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
