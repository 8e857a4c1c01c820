// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-snapshot.c - the JSON snapshot reader (snapshot.c), snapshots as a
 * session's source (replay_json.c: counts, view, symbols, origins) and
 * --diff's computation (diff.c), on files written here. No kernel needed.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "diff.h"
#include "export.h"
#include "format.h"
#include "session.h"
#include "snapshot.h"
#include "stack_table.h"

/* a snapshot with stacks "name:count" (delta = count, total = 2 * count) */
static char *snap(const char *host, unsigned long long shift, int n, const char *const *names,
		  const int *counts)
{
	static char buf[16384];
	size_t o = 0;
	int i, hits = 0;

	for (i = 0; i < n; i++)
		hits += counts[i];
	o += (size_t)snprintf(buf + o, sizeof(buf) - o,
		"{\"schema\":\"stacktop-snapshot\",\"version\":2,\"stacktop\":\"0.1.0\","
		"\"timestamp\":1.0,\"time\":\"1970-01-01T00:00:01.000Z\",\"host\":\"%s\","
		"\"kernel\":\"6.18.0\",\"source\":\"/sys/kernel/tracing\",\"iteration\":1,"
		"\"mode\":\"stacks\",\"interval\":1.5,\"events\":[\"sched:sched_switch\",\"kmem:kmalloc\"],"
		"\"traced\":\"sched:sched_switch\",\"view\":{\"sort\":\"total\",\"ascending\":false,"
		"\"counts\":\"total\",\"event\":null,\"pid\":null,\"cpu\":null,\"filter\":\"sched\","
		"\"hide_idle\":false,\"top\":0},\"hits\":%d,\"hits_delta\":%d,\"unique\":%d,"
		"\"matched\":%d,\"matched_total\":%d,\"matched_delta\":%d,\"lost\":3,\"overrun\":0,"
		"\"dropped\":0,\"orphans\":0,\"bad_pages\":0,\"fallbacks\":0,\"unresolved\":0,"
		"\"generation\":0,\"tracing_on\":true,\"stackmap_on\":false,\"stacks\":[",
		host, 2 * hits, hits, n, n, 2 * hits, hits);
	for (i = 0; i < n; i++) {
		unsigned long long a = 0xffffffff81000000ULL + 0x1000ULL * (unsigned long long)(i + 1) + shift;

		o += (size_t)snprintf(buf + o, sizeof(buf) - o,
			"%s{\"key\":\"%016x\",\"total\":%d,\"delta\":%d,\"depth\":2,\"ids\":[],"
			"\"more_ids\":false,\"fallback\":false,\"mapped\":false,\"merged64\":false,"
			"\"cut\":false,\"frames\":[\"0x%llx\",\"0x%llx\"],"
			"\"symbols\":[\"%s+0x10/0x100\",\"caller+0x8/0x40 [mod]\"],"
			"\"by\":[{\"event\":\"sched:sched_switch\",\"cpu\":1,\"pid\":42,\"comm\":\"w\\u001b[0m\","
			"\"total\":%d,\"delta\":%d},{\"event\":\"kmem:kmalloc\",\"cpu\":0,\"pid\":7,"
			"\"comm\":\"k\",\"total\":%d,\"delta\":%d}]}",
			i ? "," : "", i + 1, 2 * counts[i], counts[i], a + 0x10, a + 0x808, names[i],
			counts[i], counts[i] / 2, counts[i], counts[i] - counts[i] / 2);
	}
	snprintf(buf + o, sizeof(buf) - o, "]}\n");
	return buf;
}

static char *write_tmp(const char *text)
{
	char *path = strdup("/tmp/test-snapshot.XXXXXX");
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

static void test_parse(void **state)
{
	static const char *const names[] = { "alpha", "beta" };
	static const int counts[] = { 10, 30 };
	const char *text = snap("h", 0, 2, names, counts);
	struct snapshot *sn;
	char err[256];

	(void)state;
	assert_int_equal(snapshot_parse(text, strlen(text), &sn, err, sizeof(err)), 0);
	assert_string_equal(sn->host, "h");
	assert_int_equal(sn->nevents, 2);
	assert_int_equal(sn->nstacks, 2);
	assert_int_equal(sn->hits, 80);
	assert_int_equal(sn->lost, 3);
	assert_int_equal(sn->view.sort, RANK_TOTAL);
	assert_false(sn->view.delta);
	assert_string_equal(sn->view.filter, "sched");
	assert_int_equal(sn->stacks[1].total, 60);
	assert_int_equal(sn->stacks[1].delta, 30);
	assert_int_equal(sn->stacks[1].depth, 2);
	assert_string_equal(sn->stacks[1].syms[0], "beta+0x10/0x100");
	assert_int_equal(sn->stacks[1].nby, 2);
	assert_int_equal(sn->stacks[1].by[1].event, 1);
	/* the escape byte of a comm never survives */
	assert_null(strchr(sn->stacks[0].by[0].comm, 0x1b));
	snapshot_free(sn);
}

static void test_errors(void **state)
{
	static const struct {
		const char *text;
		int r;
		const char *msg;
	} cases[] = {
		{ "", -EBADMSG, "empty" },
		{ "{\"schema\":", -EBADMSG, "not valid JSON" },
		{ "[1,2]", -EBADMSG, "not a stacktop snapshot" },
		{ "{\"schema\":\"other\"}", -EBADMSG, "not a stacktop snapshot" },
		{ "{\"schema\":\"stacktop-snapshot\",\"version\":9}", -EPROTONOSUPPORT,
		  "snapshot version 9: this stacktop reads version 2" },
		{ "{\"schema\":\"stacktop-snapshot\",\"version\":2,\"mode\":\"stacks\"}", -EBADMSG,
		  "\"hits\" is missing" },
		{ "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
		  -EBADMSG, "not valid JSON" },
	};
	struct snapshot *sn;
	char err[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(snapshot_parse(cases[i].text, strlen(cases[i].text), &sn, err,
						sizeof(err)),
				 cases[i].r);
		assert_null(sn);
		if (!strstr(err, cases[i].msg))
			fail_msg("case %zu: '%s' lacks '%s'", i, err, cases[i].msg);
	}
}

/* field errors inside a stack name the stack and the field */
static void test_stack_errors(void **state)
{
	static const char *const names[] = { "alpha" };
	static const int counts[] = { 10 };
	static const struct {
		const char *from, *to, *msg;
	} cases[] = {
		{ "\"0xffffffff81001010\"", "\"0xfffffffg81001010\"", "stack 1: \"frames\"[0] is not a hex address" },
		{ "\"total\":20,\"delta\":10", "\"total\":20,\"delta\":21", "stack 1: \"delta\" is larger than \"total\"" },
		{ "\"event\":\"kmem:kmalloc\"", "\"event\":\"kmem:nope\"", "stack 1: event not in \"events\"" },
		{ "\"cpu\":1", "\"cpu\":70000", "stack 1: \"cpu\" 70000 is out of range" },
		{ "\"key\":\"0000000000000001\"", "\"key\":\"xyz\"", "stack 1: \"key\" is not 16 hex digits" },
	};
	struct snapshot *sn;
	char err[256], text[16384];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *base = snap("h", 0, 1, names, counts), *p = strstr(base, cases[i].from);

		assert_non_null(p);
		snprintf(text, sizeof(text), "%.*s%s%s", (int)(p - base), base, cases[i].to,
			 p + strlen(cases[i].from));
		assert_int_equal(snapshot_parse(text, strlen(text), &sn, err, sizeof(err)), -EBADMSG);
		if (!strstr(err, cases[i].msg))
			fail_msg("case %zu: '%s' lacks '%s'", i, err, cases[i].msg);
	}
}

static struct session *open_files(const char *const *files, int n)
{
	struct session_opts o = { .files = files, .nfiles = n };
	struct session *s;
	char err[256];

	if (session_open(&o, &s, err, sizeof(err)) < 0)
		fail_msg("session_open: %s", err);
	session_drain(s, 0);
	return s;
}

/* a snapshot as a session: counts, interval counts, view, symbols */
static void test_session(void **state)
{
	static const char *const names[] = { "alpha", "beta" };
	static const int counts[] = { 10, 30 };
	char *path = write_tmp(snap("h", 0, 2, names, counts));
	const char *files[] = { path };
	struct session *s = open_files(files, 1);
	struct rank_opts ro = { .key = RANK_TOTAL, .event = -1, .pid = -1, .cpu = -1 };
	struct rank_row rows[4];
	struct rank_summary sum;
	struct session_view v;
	char fr[128];

	(void)state;
	assert_int_equal(stack_table_rank(session_table(s), &ro, rows, 4, &sum), 2);
	assert_int_equal(rows[0].total, 60);
	assert_int_equal(rows[0].delta, 30);
	assert_int_equal(sum.total, 80);
	assert_int_equal(session_stats(s)->events, 80);
	assert_int_equal(session_stats(s)->events_delta, 40);
	assert_int_equal(session_stats(s)->lost, 3);
	fmt_frame(fr, sizeof(fr), session_ksym(s), rows[0].stack->ips[0]);
	assert_string_equal(fr, "beta+0x10/0x100");
	fmt_frame(fr, sizeof(fr), session_ksym(s), rows[0].stack->ips[1]);
	assert_string_equal(fr, "caller+0x8/0x40 [mod]");
	assert_true(session_view(s, &v));
	assert_int_equal(v.sort, RANK_TOTAL);
	assert_false(v.delta);
	assert_string_equal(v.filter, "sched");
	assert_int_equal(session_norigins(s), 1);
	assert_string_equal(session_origin(s, 0), "h");
	assert_string_equal(session_event(s, 1), "kmem:kmalloc");
	session_close(s);
	unlink(path);
	free(path);
}

/* two files, the same stacks at other addresses: one row each, two origins */
static void test_merge(void **state)
{
	static const char *const names[] = { "alpha", "beta" };
	static const int counts[] = { 10, 30 };
	char *a = write_tmp(snap("web1", 0, 2, names, counts));
	char *b = write_tmp(snap("web1", 0x400000, 2, names, counts));
	const char *files[] = { a, b };
	struct session *s = open_files(files, 2);
	struct rank_opts ro = { .key = RANK_TOTAL, .event = -1, .pid = -1, .cpu = -1 };
	struct rank_row rows[4];
	const struct stack_attr *at;
	uint64_t per[2] = { 0 };

	(void)state;
	assert_int_equal(stack_table_rank(session_table(s), &ro, rows, 4, NULL), 2);
	assert_int_equal(rows[0].total, 120);
	assert_int_equal(session_norigins(s), 2);
	/* the same host twice: the origins are the file names */
	assert_string_equal(session_origin(s, 0), strrchr(a, '/') + 1);
	assert_string_equal(session_origin(s, 1), strrchr(b, '/') + 1);
	for (at = rows[0].stack->attrs; at; at = at->next)
		per[at->origin] += at->total;
	assert_int_equal(per[0], 60);
	assert_int_equal(per[1], 60);
	session_close(s);
	unlink(a);
	unlink(b);
	free(a);
	free(b);
}

/* shares: A 25% -> 10%, B 75% -> 30%, C new 60% */
static void test_diff(void **state)
{
	static const char *const n1[] = { "A", "B" }, *const n2[] = { "A", "B", "C" };
	static const int c1[] = { 10, 30 }, c2[] = { 10, 30, 60 };
	char *a = write_tmp(snap("x", 0, 2, n1, c1)), *b = write_tmp(snap("y", 0x1000, 3, n2, c2));
	const char *fa[] = { a }, *fb[] = { b };
	struct session *sa = open_files(fa, 1), *sb = open_files(fb, 1);
	struct report_opts o = { .delta = true,
				 .rank = { .key = RANK_DELTA, .event = -1, .pid = -1, .cpu = -1 } };
	struct diff d;

	(void)state;
	assert_int_equal(diff_compute(sa, sb, &o, &d), 0);
	assert_int_equal(d.n, 3);
	assert_int_equal(d.nnew, 1);
	assert_int_equal(d.ngone, 0);
	assert_null(d.rows[0].before);                 /* C: +60, NEW */
	assert_float_equal(d.rows[0].change, 60, 1e-9);
	assert_float_equal(d.rows[1].share_before, 75, 1e-9); /* B: 75 -> 30 */
	assert_float_equal(d.rows[1].share_after, 30, 1e-9);
	assert_float_equal(d.rows[2].change, -15, 1e-9);      /* A: 25 -> 10 */
	diff_free(&d);
	session_close(sa);
	session_close(sb);
	unlink(a);
	unlink(b);
	free(a);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_stack_errors),
		cmocka_unit_test(test_session),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_diff),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
