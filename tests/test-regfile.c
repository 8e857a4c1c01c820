/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-regfile.c - a file root names that may lie where users write
 * (core/regfile.c): a FIFO refused at once (never opened), a symlink to a
 * device refused (its driver never called), a symlink refused with
 * REGFILE_NOFOLLOW, a file over the cap refused, and the file opened
 * stays the one read after another is renamed over its name.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/regfile.h"

static char dir[64];

static void path_of(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", dir, name);
}

static void write_file(const char *name, const char *data)
{
	char p[128];
	int fd;

	path_of(p, sizeof(p), name);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, strlen(data)), (ssize_t)strlen(data));
	close(fd);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test-regfile.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_refused(void **state)
{
	char p[128], q[128];
	time_t t0 = time(NULL);

	(void)state;
	/* a FIFO without a writer: at once */
	path_of(p, sizeof(p), "fifo");
	assert_int_equal(mkfifo(p, 0644), 0);
	assert_int_equal(regfile_open(p, 0, 0, NULL), -EINVAL);
	assert_true(time(NULL) - t0 < 5);
	/* a symlink to a device, to a directory */
	path_of(q, sizeof(q), "zero");
	assert_int_equal(symlink("/dev/zero", q), 0);
	assert_int_equal(regfile_open(q, 0, 0, NULL), -EINVAL);
	assert_int_equal(regfile_open(dir, 0, 0, NULL), -EINVAL);
	/* a symlink to a good file: followed, unless REGFILE_NOFOLLOW */
	write_file("plain", "0123456789");
	path_of(q, sizeof(q), "link");
	assert_int_equal(symlink("plain", q), 0);
	assert_int_equal(regfile_open(q, REGFILE_NOFOLLOW, 0, NULL), -ELOOP);
	path_of(p, sizeof(p), "plain");
	/* over the cap */
	assert_int_equal(regfile_open(p, 0, 9, NULL), -EFBIG);
	path_of(p, sizeof(p), "missing");
	assert_int_equal(regfile_open(p, 0, 0, NULL), -ENOENT);
}

/* renamed over after the open: every reader still reads the file opened */
static void test_one_file(void **state)
{
	char p[128], q[128], *buf;
	size_t len;
	int fd, fd2;
	FILE *f;

	(void)state;
	write_file("rec", "the recording");
	path_of(p, sizeof(p), "rec");
	fd = regfile_open(p, REGFILE_NOFOLLOW, 0, NULL);
	assert_true(fd >= 0);
	assert_true(fcntl(fd, F_GETFL) & O_NONBLOCK);
	/* a FIFO renamed over it */
	path_of(q, sizeof(q), "fifo2");
	assert_int_equal(mkfifo(q, 0644), 0);
	assert_int_equal(rename(q, p), 0);
	assert_int_equal(regfile_read(fd, 0, &buf, &len), 0);
	assert_string_equal(buf, "the recording");
	free(buf);
	/* another description, its own offset, of the same file */
	fd2 = regfile_reopen(fd);
	assert_true(fd2 >= 0);
	f = fdopen(fd2, "r");
	assert_non_null(f);
	assert_int_equal(fgetc(f), 't');
	fclose(f);
	/* the cap holds when the file grew after the open */
	assert_int_equal(regfile_read(fd, 5, &buf, &len), -EFBIG);
	assert_null(buf);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_one_file),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
