// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-ttyfilter.c - what `-- CMD`'s relay lets through to root's terminal:
 * text and UTF-8, colours and cursor moves pass; terminal queries, OSC
 * titles and clipboard writes, DCS, resets, charset switches, C0 and C1
 * controls are dropped, also when a sequence is cut between two reads.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/ttyfilter.h"

/* @in through a fresh filter, in pieces of @step bytes; the result as a string */
static const char *run(const char *in, size_t step)
{
	static char out[4096];
	struct ttyfilter f = { 0 };
	size_t len = strlen(in), i, n = 0;

	for (i = 0; i < len; i += step) {
		size_t k = len - i < step ? len - i : step;

		n += ttyfilter_run(&f, in + i, k, out + n);
	}
	out[n] = '\0';
	return out;
}

static void check(const char *in, const char *want)
{
	size_t step;

	for (step = 1; step <= strlen(in) + 1; step++)
		assert_string_equal(run(in, step), want);
}

static void test_text(void **state)
{
	(void)state;
	check("make: all done\n\ttab\r\n", "make: all done\n\ttab\r\n");
	check("caf\xc3\xa9 \xe6\xbc\xa2\xe5\xad\x97 \xc2\xa9",
	      "caf\xc3\xa9 \xe6\xbc\xa2\xe5\xad\x97 \xc2\xa9");
	check("a\bb", "a\bb");
}

static void test_colours_pass(void **state)
{
	(void)state;
	check("\x1b[31mred\x1b[0m \x1b[1;32mok\x1b[m", "\x1b[31mred\x1b[0m \x1b[1;32mok\x1b[m");
	check("\x1b[2K\x1b[1A\x1b[10;20H", "\x1b[2K\x1b[1A\x1b[10;20H");
}

static void test_queries_dropped(void **state)
{
	(void)state;
	check("a\x1b[6nb", "ab");	    /* cursor position report */
	check("a\x1b[cb", "ab");	    /* device attributes */
	check("a\x1b[>cb", "ab");	    /* secondary DA */
	check("a\x1b[21tb", "ab");	    /* window title report */
	check("a\x1b[?1049hb", "ab");	    /* private modes */
	check("a\x1bPq$q\"p\x1b\\b", "ab"); /* DECRQSS */
	check("a\x1b]0;pwned\x07"
	      "b",
	      "ab");			       /* window title */
	check("a\x1b]52;c;aWQK\x1b\\b", "ab"); /* clipboard */
	check("a\x1b_apc\x1b\\b\x1b^pm\x07"
	      "c",
	      "abc");
	check("a\x1b"
	      "cb",
	      "ab");		 /* full reset */
	check("a\x1b(0b", "ab"); /* a charset switch */
	check("a\x1b[3"
	      "1;"
	      "1111111111111111111111111111111111111111mb",
	      "ab"); /* too long */
}

static void test_controls_dropped(void **state)
{
	(void)state;
	check("a\x07\x0e\x0f\x7f"
	      "b",
	      "ab");
	check("a\xc2\x9b"
	      "6nb",
	      "a6nb"); /* C1 CSI in UTF-8: dropped, its text stays text */
	check("a\xc2\x85"
	      "b",
	      "ab");
	check("a\xc2\xc2\xa9"
	      "b",
	      "a\xc2\xc2\xa9"
	      "b");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_colours_pass),
		cmocka_unit_test(test_queries_dropped),
		cmocka_unit_test(test_controls_dropped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
