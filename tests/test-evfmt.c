// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-evfmt.c - event formats from a tracefs tree (a plain directory with
 * this kernel's header_page and format files): the function tracer's `ip`,
 * ftrace's own entries named from their format files, never event#N when a
 * format has the ID, and named indexes without a type.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "kernel/evfmt.h"
#include "kernel/tfs.h"

#define COMMON                                                                                     \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"                     \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"                     \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"             \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

static const char kstack_fmt[] =
	"name: kernel_stack\nID: 4\nformat:\n" COMMON
	"\tfield:int size;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned long caller[8];\toffset:16;\tsize:64;\tsigned:0;\n\n"
	"print fmt: \"%ps\", (void *)REC->caller[0]\n";
static const char func_fmt[] =
	"name: function\nID: 1\nformat:\n" COMMON
	"\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long parent_ip;\toffset:16;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \" %ps <-- %ps\", (void *)REC->ip, (void *)REC->parent_ip\n";
static const char print_fmt[] = "name: print\nID: 5\nformat:\n" COMMON
				"\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
				"\tfield:char buf[];\toffset:16;\tsize:0;\tsigned:0;\n\n"
				"print fmt: \"%ps: %s\", (void *)REC->ip, REC->buf\n";

static char root[64];

static void put(const char *rel, const char *text)
{
	char path[256], *p;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_evfmt_ftrace_names(void **state)
{
	const char *fix = getenv("ST_FIXTURES");
	char hp[256], *buf;
	struct evfmt *f;
	struct tfs *t;
	FILE *in;
	size_t n;
	int i;

	(void)state;
	snprintf(root, sizeof(root), "/tmp/stacktop-evfmt.XXXXXX");
	assert_non_null(mkdtemp(root));
	snprintf(hp, sizeof(hp), "%s/ringbuf/header_page", fix ? fix : "tests/fixtures");
	in = fopen(hp, "r");
	assert_non_null(in);
	buf = calloc(1, 8192);
	n = fread(buf, 1, 8191, in);
	fclose(in);
	assert_true(n > 0);
	put("events/header_page", buf);
	free(buf);
	put("events/ftrace/kernel_stack/format", kstack_fmt);
	put("events/ftrace/function/format", func_fmt);
	put("events/ftrace/print/format", print_fmt);
	put("set_event", "");
	assert_int_equal(tfs_open(root, &t), 0);
	assert_int_equal(evfmt_new(t, &f), 0);

	assert_int_equal(f->func_type, 1);
	assert_int_equal(f->func_ip_off, 8);
	/* ftrace's own entries: named from events/ftrace/<name>/format */
	i = evfmt_add_type(f, t, 5);
	assert_true(i >= 0);
	assert_string_equal(f->names[i], "ftrace:print");
	/* no format has it: the number, as before */
	i = evfmt_add_type(f, t, 777);
	assert_true(i >= 0);
	assert_string_equal(f->names[i], "event#777");
	/* a live session's reader: a type neither enabled nor ftrace's own is
	 * not its event (a record left from a run before): ignored, and
	 * remembered so that the next record of it reads no tracefs file */
	assert_int_equal(evfmt_known_type(f, t, 778), -ENOENT);
	assert_int_equal(f->index[778], EVFMT_IGNORED);
	assert_int_equal(evfmt_known_type(f, t, 778), -ENOENT);
	i = evfmt_known_type(f, t, 5);
	assert_true(i >= 0);
	assert_string_equal(f->names[i], "ftrace:print");
	/* named indexes: one per name, no type of their own */
	{
		int a = evfmt_add_named(f, "ftrace:function schedule");
		int b = evfmt_add_named(f, "ftrace:function vfs_read");

		assert_true(a >= 0 && b >= 0 && a != b);
		assert_int_equal(evfmt_add_named(f, "ftrace:function schedule"), a);
		assert_int_equal(f->types[a], -1);
		assert_int_equal(f->index[1], EVFMT_NONE);
		/* terminal bytes never get into a name */
		b = evfmt_add_named(f, "ftrace:function \x1b[2Jx");
		assert_null(strchr(f->names[b], '\x1b'));
	}
	evfmt_free(f);
	tfs_close(t);
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		assert_int_equal(system(cmd), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_evfmt_ftrace_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
