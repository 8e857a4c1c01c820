// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-ttyfilter.c - what `-- CMD`'s relay lets through to root's terminal:
 * text and UTF-8, colours and cursor moves pass; terminal queries, OSC
 * titles and clipboard writes, DCS, resets, charset switches, C0 and C1
 * controls are dropped, also when a sequence is cut between two reads.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/ttyfilter.h"

static bool eight_bit; /* the terminal of the checks is not UTF-8 */

/* @in through a fresh filter, in pieces of @step bytes; the result as a string */
static const char *run(const char *in, size_t step)
{
	static char out[4096];
	struct ttyfilter f = { .eight_bit = eight_bit };
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

/* the screen may be erased, root's scrollback not (CSI 3 J) */
static void test_scrollback_kept(void **state)
{
	(void)state;
	check("\x1b[H\x1b[2J\x1b[3Jx", "\x1b[H\x1b[2Jx");
	check("\x1b[J\x1b[1J\x1b[33J", "\x1b[J\x1b[1J\x1b[33J");
}

/* raw C1 bytes (an 8-bit terminal acts on them) outside whole UTF-8 characters */
static void test_raw_c1_dropped(void **state)
{
	(void)state;
	/* CSI c (xterm in the C locale answers it into root's input), OSC, DCS, ST */
	check("a\x9b"
	      "cb",
	      "acb");
	check("a\x9d"
	      "0;x\x07"
	      "b",
	      "a0;xb");
	check("a\x90q\x9c"
	      "b",
	      "aqb");
	check("\x80\x85\x8e\x8f\x9f", "");
	/* inside a whole UTF-8 character they are its bytes: e with caron, euro sign */
	check("\xc4\x9b\xe2\x82\xac", "\xc4\x9b\xe2\x82\xac");
	check("\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80");
	/* not whole, overlong, a surrogate, past U+10FFFF: the C1 bytes dropped */
	check("\xe2\x82"
	      "A",
	      "\xe2"
	      "A");
	check("\xe0\x80\x9b"
	      "c",
	      "\xe0"
	      "c");
	check("\xed\xa0\x80", "\xed\xa0");
	check("\xf4\x90\x80\x80", "\xf4");
	/* ESC cuts a character short: the escape is judged as always */
	check("\xe2\x1b[31mx", "\xe2\x1b[31mx");
	/* Latin-1 text bytes pass (a UTF-8 terminal shows a replacement character) */
	check("caf\xe9!", "caf\xe9!");
}

/* a terminal that is not UTF-8: every byte 0x80-0x9f is a C1 control to it */
static void test_eight_bit(void **state)
{
	(void)state;
	eight_bit = true;
	check("\xc4\x9b"
	      "c",
	      "\xc4"
	      "c");
	check("caf\xe9\xa9", "caf\xe9\xa9");
	check("\x1b[1mb\x1b[0m", "\x1b[1mb\x1b[0m");
	eight_bit = false;
	setenv("LC_ALL", "", 1);
	setenv("LC_CTYPE", "", 1);
	setenv("LANG", "C", 1);
	assert_false(ttyfilter_utf8_locale());
	setenv("LANG", "en_US.UTF-8", 1);
	assert_true(ttyfilter_utf8_locale());
	setenv("LC_CTYPE", "de_DE.ISO-8859-1", 1);
	assert_false(ttyfilter_utf8_locale());
	setenv("LC_ALL", "C.utf8", 1);
	assert_true(ttyfilter_utf8_locale());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_colours_pass),
		cmocka_unit_test(test_queries_dropped),
		cmocka_unit_test(test_controls_dropped),
		cmocka_unit_test(test_scrollback_kept),
		cmocka_unit_test(test_raw_c1_dropped),
		cmocka_unit_test(test_eight_bit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
