// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-ufile-proc.c - a process's /proc files read like the files of other
 * users (sym/ufile.h: ufile_proc_stream(), ufile_proc_read()): in the
 * calling process, then through a reader process. Each compares with what
 * the test knows: its own memory at an address, its own maps.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "sym/ufile.h"

#define BIG (3 * (64u << 10) + 123) /* more than a reader's message */

/* our own memory at an address, in one piece and past a message's size */
static void test_mem(void **state)
{
	uint8_t *data = malloc(BIG), *got = malloc(BIG);
	size_t i;

	(void)state;
	assert_non_null(data);
	assert_non_null(got);
	for (i = 0; i < BIG; i++)
		data[i] = (uint8_t)(i * 7 + i / 251);
	memset(got, 0, BIG);
	assert_int_equal(ufile_proc_read("/proc", (uint32_t)getpid(), "mem", got, BIG,
					 (uint64_t)(uintptr_t)data),
			 BIG);
	assert_memory_equal(got, data, BIG);
	/* a few bytes in the middle */
	memset(got, 0, 20);
	assert_int_equal(ufile_proc_read("/proc", (uint32_t)getpid(), "mem", got, 20,
					 (uint64_t)(uintptr_t)data + 65530),
			 20);
	assert_memory_equal(got, data + 65530, 20);
	free(data);
	free(got);
}

struct pieces {
	size_t n, bytes, stop_after;
	char *text;
};

static bool piece(void *ctx, const char *data, size_t len)
{
	struct pieces *p = ctx;

	assert_true(len > 0 && len <= UFILE_PROC_CHUNK);
	p->text = realloc(p->text, p->bytes + len + 1);
	assert_non_null(p->text);
	memcpy(p->text + p->bytes, data, len);
	p->bytes += len;
	p->text[p->bytes] = '\0';
	return ++p->n < p->stop_after;
}

/* our maps, whole (they name this test's executable and [stack]); a stop said */
static void test_maps(void **state)
{
	struct pieces p = { .stop_after = 1000 };
	char self[256];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int64_t r;

	(void)state;
	assert_true(n > 0);
	self[n] = '\0';
	r = ufile_proc_stream("/proc", (uint32_t)getpid(), "maps", 0, 1u << 30, piece, &p);
	assert_true(r > 0);
	assert_int_equal((size_t)r, p.bytes);
	assert_non_null(strstr(p.text, self));
	assert_non_null(strstr(p.text, "[stack]"));
	assert_int_equal(p.text[p.bytes - 1], '\n');
	free(p.text);
	/* at most 100 bytes */
	memset(&p, 0, sizeof(p));
	p.stop_after = 1000;
	r = ufile_proc_stream("/proc", (uint32_t)getpid(), "maps", 0, 100, piece, &p);
	assert_int_equal(r, 100);
	free(p.text);
}

/* names that are not a file of the process's directory; a process that is not there */
static void test_refused(void **state)
{
	char b[16];

	(void)state;
	assert_int_equal(ufile_proc_read("/proc", (uint32_t)getpid(), "../1/mem", b, 16, 0),
			 -EINVAL);
	assert_int_equal(ufile_proc_read("/proc", (uint32_t)getpid(), "", b, 16, 0), -EINVAL);
	assert_int_equal(ufile_proc_read("/proc", 0x7ffffff0u, "maps", b, 16, 0), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mem),
		cmocka_unit_test(test_maps),
		cmocka_unit_test(test_refused),
	};
	int r = cmocka_run_group_tests_name("in-process", tests, NULL, NULL);

	if (getuid() != 0) {
		printf("(not root: a reader process is not started)\n");
		return r;
	}
	assert_int_equal(ufile_reader_start(NULL), 0);
	r |= cmocka_run_group_tests_name("reader", tests, NULL, NULL);
	ufile_reader_end();
	return r;
}
