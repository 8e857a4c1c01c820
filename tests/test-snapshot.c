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

#include "output/diff.h"
#include "output/export.h"
#include "core/format.h"
#include "core/hist.h"
#include "sym/frame.h"
#include "session/session.h"
#include "ingest/snapshot.h"
#include "core/stack_table.h"
#include "core/rank.h"
#include "core/ujoin.h"

/* a snapshot with stacks "name:count" (delta = count, total = 2 * count) */
static char *snap(const char *host, unsigned long long shift, int n, const char *const *names,
		  const int *counts)
{
	static char buf[16384];
	size_t o = 0;
	int i, hits = 0;

	for (i = 0; i < n; i++)
		hits += counts[i];
	o += (size_t)snprintf(
		buf + o, sizeof(buf) - o,
		"{\"schema\":\"stacktop-snapshot\",\"version\":2,\"stacktop\":\"0.1.0\","
		"\"timestamp\":1.0,\"time\":\"1970-01-01T00:00:01.000Z\",\"host\":\"%s\","
		"\"kernel\":\"6.18.0\",\"source\":\"/sys/kernel/tracing\",\"iteration\":1,"
		"\"mode\":\"stacks\",\"interval\":1.5,\"events\":[\"sched:sched_switch\",\"kmem:kmalloc\"],"
		"\"traced\":\"sched:sched_switch\",\"view\":{\"sort\":\"total\",\"ascending\":false,"
		"\"counts\":\"total\",\"event\":null,\"pid\":null,\"cpu\":null,\"filter\":\"sched\",\"comm\":\"=kw*\","
		"\"hide_idle\":false,\"top\":0},\"hits\":%d,\"hits_delta\":%d,\"unique\":%d,"
		"\"matched\":%d,\"matched_total\":%d,\"matched_delta\":%d,\"lost\":3,\"overrun\":0,"
		"\"dropped\":0,\"orphans\":0,\"bad_pages\":0,\"fallbacks\":0,\"unresolved\":0,"
		"\"generation\":0,\"tracing_on\":true,\"stackmap_on\":false,\"filtered\":9,"
		"\"filtered_delta\":4,\"stacks\":[",
		host, 2 * hits, hits, n, n, 2 * hits, hits);
	for (i = 0; i < n; i++) {
		unsigned long long a =
			0xffffffff81000000ULL + 0x1000ULL * (unsigned long long)(i + 1) + shift;

		o += (size_t)snprintf(
			buf + o, sizeof(buf) - o,
			"%s{\"key\":\"%016x\",\"total\":%d,\"delta\":%d,\"depth\":2,\"ids\":[],"
			"\"more_ids\":false,\"fallback\":false,\"mapped\":false,\"merged64\":false,"
			"\"cut\":false,\"frames\":[\"0x%llx\",\"0x%llx\"],"
			"\"symbols\":[\"%s+0x10/0x100\",\"caller+0x8/0x40 [mod]\"],"
			"\"by\":[{\"event\":\"sched:sched_switch\",\"cpu\":1,\"pid\":42,\"comm\":\"w\\u001b[0m\","
			"\"total\":%d,\"delta\":%d},{\"event\":\"kmem:kmalloc\",\"cpu\":0,\"pid\":7,"
			"\"comm\":\"k\",\"total\":%d,\"delta\":%d}]}",
			i ? "," : "", i + 1, 2 * counts[i], counts[i], a + 0x10, a + 0x808,
			names[i], counts[i], counts[i] / 2, counts[i], counts[i] - counts[i] / 2);
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
	assert_int_equal(sn->count[HC_events], 80);
	assert_int_equal(sn->count[HC_lost], 3);
	/* a counter is one row of core/counters.h: read back with its delta */
	assert_int_equal(sn->count[HC_filtered], 9);
	assert_int_equal(sn->count_delta[HC_filtered], 4);
	assert_int_equal(sn->view.sort, RANK_TOTAL);
	assert_false(sn->view.delta);
	assert_string_equal(sn->view.filter, "sched");
	assert_string_equal(sn->view.comm, "=kw*");
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
		assert_int_equal(
			snapshot_parse(cases[i].text, strlen(cases[i].text), &sn, err, sizeof(err)),
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
		{ "\"0xffffffff81001010\"", "\"0xfffffffg81001010\"",
		  "stack 1: \"frames\"[0] is not a hex address" },
		{ "\"total\":20,\"delta\":10", "\"total\":20,\"delta\":21",
		  "stack 1: \"delta\" is larger than \"total\"" },
		{ "\"event\":\"kmem:kmalloc\"", "\"event\":\"kmem:nope\"",
		  "stack 1: event not in \"events\"" },
		{ "\"cpu\":1", "\"cpu\":70000", "stack 1: \"cpu\" 70000 is out of range" },
		{ "\"key\":\"0000000000000001\"", "\"key\":\"xyz\"",
		  "stack 1: \"key\" is not 16 hex digits" },
		/* a wrong type where a list is walked: an error, never a half-read success */
		{ "\"ids\":[]", "\"ids\":[\"x\"]", "stack 1: \"ids\"[0] is not a stack id" },
		{ "\"ids\":[]", "\"ids\":[],\"tgid\":\"x\"",
		  "stack 1: \"tgid\" is not a process id" },
		{ "\"ids\":[]",
		  "\"ids\":[],\"tgid\":1,\"user_frames\":[{\"addr\":1,\"symbol\":\"m\"}]",
		  "stack 1: \"user_frames\"[0]: \"addr\" is not a hex address" },
		{ "\"ids\":[]", "\"ids\":[],\"user_frames\":[]",
		  "stack 1: \"user_frames\" without \"tgid\"" },
		/* why a user stack is missing: a word stacktop writes, and no frames */
		{ "\"ids\":[]",
		  "\"ids\":[],\"tgid\":0,\"user_frames\":[],\"user_missing\":\"gone\"",
		  "stack 1: \"user_missing\" is not a reason stacktop writes" },
		{ "\"ids\":[]", "\"ids\":[],\"tgid\":0,\"user_frames\":[],\"user_missing\":\"ok\"",
		  "stack 1: \"user_missing\" is not a reason stacktop writes" },
		{ "\"ids\":[]",
		  "\"ids\":[],\"tgid\":1,\"user_frames\":[{\"addr\":\"0x1\",\"symbol\":\"m\"}],"
		  "\"user_missing\":\"sample lost\"",
		  "stack 1: \"user_missing\" with user frames, a cut or without \"tgid\"" },
		{ "\"ids\":[]",
		  "\"ids\":[],\"tgid\":0,\"user_frames\":[],\"user_cut\":true,"
		  "\"user_missing\":\"no sample\"",
		  "stack 1: \"user_missing\" with user frames, a cut or without \"tgid\"" },
		{ "\"ids\":[]", "\"ids\":[],\"user_missing\":\"no sample\"",
		  "stack 1: \"user_missing\" with user frames, a cut or without \"tgid\"" },
		{ "\"ids\":[]", "\"ids\":[],\"user_cut_why\":\"bored\"",
		  "stack 1: \"user_cut_why\" is not depth, stack, unwind, memory or refused" },
		/* a bucket that is no bucket of the scale (an unweighted snapshot: log2) */
		{ "\"ids\":[]", "\"ids\":[],\"hist\":[{\"low\":3,\"count\":1}]",
		  "stack 1: \"hist\"[0] is not a log2 bucket" },
		{ "\"ids\":[]", "\"ids\":[],\"hist\":[{\"low\":4,\"high\":16,\"count\":1}]",
		  "stack 1: \"hist\"[0] is not a log2 bucket" },
		{ "\"ids\":[]", "\"ids\":[],\"trend\":[1,-2]", "stack 1: \"trend\"" },
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
		assert_int_equal(snapshot_parse(text, strlen(text), &sn, err, sizeof(err)),
				 -EBADMSG);
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
	/* the text report names the view's filters, the snapshot's text filter too */
	{
		struct report_opts o = {
			.top = 5,
			.filter = v.filter,
			.rank = { .key = RANK_TOTAL, .event = -1, .pid = -1, .cpu = 1 }
		};
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		assert_non_null(f);
		assert_true(export_write(f, s, &o, EXPORT_TEXT, 1) >= 0);
		fclose(f);
		if (!strstr(buf, "filters: cpu 1, text \"sched\" (the screen's"))
			fail_msg("%s", buf);
		free(buf);
	}
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
	assert_null(d.rows[0].before); /* C: +60, NEW */
	assert_float_equal(d.rows[0].change, 60, 1e-9);
	assert_float_equal(d.rows[1].share_before, 75, 1e-9); /* B: 75 -> 30 */
	assert_float_equal(d.rows[1].share_after, 30, 1e-9);
	assert_float_equal(d.rows[2].change, -15, 1e-9); /* A: 25 -> 10 */
	diff_free(&d);
	session_close(sa);
	session_close(sb);
	unlink(a);
	unlink(b);
	free(a);
	free(b);
}

/*
 * User stacks: two stacks of one kernel part and two user parts (and one
 * with a cut user walk, one whose user stack was lost) stay apart when
 * read back, keyed (kernel, user) as the live table keys them; written
 * again (JSON, folded), they are what was read: the same keys, counts,
 * processes, user addresses and names, the same reason a user stack is
 * missing.
 */
static const char user_snap[] =
	"{\"schema\":\"stacktop-snapshot\",\"version\":2,\"host\":\"h\",\"kernel\":\"6.18.0\","
	"\"mode\":\"stacks\",\"interval\":1.0,\"events\":[\"sched:sched_switch\"],"
	"\"view\":{\"sort\":\"hits\",\"ascending\":false,\"counts\":\"delta\",\"event\":null,"
	"\"pid\":null,\"cpu\":null,\"filter\":null,\"hide_idle\":false,\"top\":0},"
	"\"hits\":65,\"hits_delta\":65,\"lost\":0,\"overrun\":0,\"dropped\":0,\"orphans\":0,"
	"\"bad_pages\":0,\"fallbacks\":0,\"unresolved\":0,\"stacks\":["
	"{\"key\":\"%s\",\"total\":30,\"delta\":30,\"depth\":2,\"ids\":[],\"cut\":false,"
	"\"frames\":[\"0xffffffff81001010\",\"0xffffffff81002008\"],"
	"\"symbols\":[\"schedule+0x10/0x100\",\"do_nanosleep+0x8/0x40\"],\"tgid\":4242,"
	"\"user_frames\":[{\"addr\":\"0x401126\",\"symbol\":\"spin+0x16 (app)\"},"
	"{\"addr\":\"0x401180\",\"symbol\":\"main+0x20 (app)\"}],\"user_cut\":false,"
	"\"by\":[{\"event\":\"sched:sched_switch\",\"cpu\":0,\"pid\":4242,\"comm\":\"app\","
	"\"total\":30,\"delta\":30}]},"
	"{\"key\":\"%s\",\"total\":20,\"delta\":20,\"depth\":2,\"ids\":[],\"cut\":false,"
	"\"frames\":[\"0xffffffff81001010\",\"0xffffffff81002008\"],"
	"\"symbols\":[\"schedule+0x10/0x100\",\"do_nanosleep+0x8/0x40\"],\"tgid\":4242,"
	"\"user_frames\":[{\"addr\":\"0x401226\",\"symbol\":\"wait+0x6 (app)\"},"
	"{\"addr\":\"0x7f0000001000\",\"symbol\":\"[unknown] 0x7f0000001000 (libc.so.6+0x1000)\"}],"
	"\"user_cut\":true,\"user_cut_why\":\"unwind\","
	"\"by\":[{\"event\":\"sched:sched_switch\",\"cpu\":1,\"pid\":4242,\"comm\":\"app\","
	"\"total\":20,\"delta\":20}]},"
	"{\"key\":\"%s\",\"total\":10,\"delta\":10,\"depth\":2,\"ids\":[],\"cut\":false,"
	"\"frames\":[\"0xffffffff81001010\",\"0xffffffff81002008\"],"
	"\"symbols\":[\"schedule+0x10/0x100\",\"do_nanosleep+0x8/0x40\"],"
	"\"by\":[{\"event\":\"sched:sched_switch\",\"cpu\":1,\"pid\":7,\"comm\":\"k\","
	"\"total\":10,\"delta\":10}]},"
	"{\"key\":\"%s\",\"total\":5,\"delta\":5,\"depth\":2,\"ids\":[],\"cut\":false,"
	"\"frames\":[\"0xffffffff81001010\",\"0xffffffff81002008\"],"
	"\"symbols\":[\"schedule+0x10/0x100\",\"do_nanosleep+0x8/0x40\"],\"tgid\":0,"
	"\"user_frames\":[],\"user_cut\":false,\"user_missing\":\"sample lost\","
	"\"by\":[{\"event\":\"sched:sched_switch\",\"cpu\":0,\"pid\":4242,\"comm\":\"app\","
	"\"total\":5,\"delta\":5}]}]}\n";

static char *export_text(struct session *s, enum export_format fmt)
{
	struct report_opts o = { .delta = true,
				 .rank = { .key = RANK_DELTA, .event = -1, .pid = -1, .cpu = -1 } };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_true(export_write(f, s, &o, fmt, 1) >= 0);
	fclose(f);
	return buf;
}

/*
 * "frames":[] is a stack with no kernel frame (stacktop writes such stacks
 * itself: hits of stacks over --max-memory, an empty kernel_stack): read
 * as one, alone or before a user part, never a NULL array copied (UBSan:
 * memcpy from NULL, issue 18)
 */
static void test_empty_frames(void **state)
{
	static const char text[] =
		"{\"schema\":\"stacktop-snapshot\",\"version\":2,\"mode\":\"stacks\","
		"\"events\":[\"sched:sched_switch\"],"
		"\"view\":{\"sort\":\"hits\",\"counts\":\"delta\",\"top\":0},"
		"\"hits\":5,\"hits_delta\":5,\"lost\":0,\"overrun\":0,\"dropped\":0,"
		"\"orphans\":0,\"bad_pages\":0,\"fallbacks\":0,\"unresolved\":0,\"stacks\":["
		"{\"key\":\"0000000000000001\",\"total\":3,\"delta\":3,\"ids\":[],"
		"\"frames\":[],\"symbols\":[],\"by\":[{\"event\":\"sched:sched_switch\","
		"\"cpu\":0,\"pid\":5,\"comm\":\"x\",\"total\":3,\"delta\":3}]},"
		"{\"key\":\"0000000000000002\",\"total\":2,\"delta\":2,\"ids\":[],"
		"\"frames\":[],\"symbols\":[],\"tgid\":5,"
		"\"user_frames\":[{\"addr\":\"0x401000\",\"symbol\":\"main+0x10 (app)\"}],"
		"\"user_cut\":false,\"by\":[{\"event\":\"sched:sched_switch\","
		"\"cpu\":0,\"pid\":5,\"comm\":\"x\",\"total\":2,\"delta\":2}]}]}\n";
	char *path = write_tmp(text), *fold;
	const char *files[] = { path };
	struct rank_opts ro = { .key = RANK_TOTAL, .event = -1, .pid = -1, .cpu = -1 };
	struct rank_row rows[4];
	struct session *s;

	(void)state;
	s = open_files(files, 1);
	assert_int_equal(stack_table_rank(session_table(s), &ro, rows, 4, NULL), 2);
	assert_int_equal(rows[0].stack->depth, 0);
	assert_int_equal(rows[0].total, 3);
	assert_int_equal(rows[1].stack->depth, 2); /* the separator, main */
	fold = export_text(s, EXPORT_FOLDED);
	if (!strstr(fold, "[empty] 3\n") || !strstr(fold, "main 2\n"))
		fail_msg("folded:\n%s", fold);
	free(fold);
	session_close(s);
	unlink(path);
	free(path);
}

static void test_user_frames(void **state)
{
	char text[sizeof(user_snap) + 64], *path, *json, *path2, *fold1, *fold2;
	uint64_t k[4];
	struct snapshot *sn, *sn2;
	struct session *s, *s2;
	char err[256];
	size_t i, j;

	(void)state;
	/* the writer's keys: the stacks' text hashed; read once to learn them */
	snprintf(text, sizeof(text), user_snap, "0000000000000001", "0000000000000002",
		 "0000000000000003", "0000000000000004");
	path = write_tmp(text);
	{
		const char *files[] = { path };
		struct rank_opts ro = { .key = RANK_DELTA, .event = -1, .pid = -1, .cpu = -1 };
		struct rank_row rows[5];

		s = open_files(files, 1);
		/* four stacks, not one: the user parts keep them apart */
		assert_int_equal(stack_table_rank(session_table(s), &ro, rows, 5, NULL), 4);
		for (i = 0; i < 4; i++)
			k[i] = export_stack_key(session_ksym(s), rows[i].stack);
		session_close(s);
		unlink(path);
		free(path);
	}
	/* the same file with the keys the writer would have given */
	{
		char ka[17], kb[17], kc[17], kd[17];

		snprintf(ka, sizeof(ka), "%016llx", (unsigned long long)k[0]);
		snprintf(kb, sizeof(kb), "%016llx", (unsigned long long)k[1]);
		snprintf(kc, sizeof(kc), "%016llx", (unsigned long long)k[2]);
		snprintf(kd, sizeof(kd), "%016llx", (unsigned long long)k[3]);
		snprintf(text, sizeof(text), user_snap, ka, kb, kc, kd);
	}
	assert_int_equal(snapshot_parse(text, strlen(text), &sn, err, sizeof(err)), 0);
	assert_int_equal(sn->stacks[0].tgid, 4242);
	assert_int_equal(sn->stacks[0].nuser, 2);
	assert_true(sn->stacks[1].user_cut);
	assert_int_equal(sn->stacks[1].user_cut_why, 2); /* "unwind": usym.h's USYM_CUT_FAILED */
	assert_int_equal(sn->stacks[2].tgid, -1);
	assert_int_equal(sn->stacks[2].user_missing, 0);
	assert_int_equal(sn->stacks[3].tgid, 0);
	assert_int_equal(sn->stacks[3].nuser, 0);
	assert_int_equal(sn->stacks[3].user_missing, UJOIN_SAMPLE_LOST);
	path = write_tmp(text);
	{
		const char *files[] = { path };

		s = open_files(files, 1);
	}
	json = export_text(s, EXPORT_JSON);
	fold1 = export_text(s, EXPORT_FOLDED);
	assert_int_equal(snapshot_parse(json, strlen(json), &sn2, err, sizeof(err)), 0);
	/* JSON -> -r -> JSON: the same stacks */
	assert_int_equal(sn2->nstacks, sn->nstacks);
	for (i = 0; i < sn->nstacks; i++) {
		const struct snap_stack *a = &sn->stacks[i], *b = &sn2->stacks[i];

		assert_string_equal(a->key, b->key);
		assert_int_equal(a->total, b->total);
		assert_int_equal(a->delta, b->delta);
		assert_int_equal(a->depth, b->depth);
		assert_int_equal(a->tgid, b->tgid);
		assert_int_equal(a->nuser, b->nuser);
		assert_int_equal(a->user_cut, b->user_cut);
		assert_int_equal(a->user_missing, b->user_missing);
		assert_int_equal(a->user_cut_why, b->user_cut_why);
		for (j = 0; j < a->depth; j++)
			assert_string_equal(a->syms[j], b->syms[j]);
		for (j = 0; j < a->nuser; j++) {
			assert_int_equal(a->uaddrs[j], b->uaddrs[j]);
			assert_string_equal(a->usyms[j], b->usyms[j]);
		}
	}
	/* folded: user frames (root first, no suffix), then the kernel's */
	if (!strstr(fold1, "main;spin;do_nanosleep_[k];schedule_[k] 30\n") ||
	    !strstr(fold1,
		    "[cut:_unwind_failed:_no_unwind_table];[unknown]_(libc.so.6+0x1000);wait;do_nanosleep_[k];schedule_[k] 20\n") ||
	    !strstr(fold1, "[user_stack_lost:_perf_ring_full];do_nanosleep_[k];schedule_[k] 5\n"))
		fail_msg("folded:\n%s", fold1);
	/* and again from the JSON written: the same folded lines */
	path2 = write_tmp(json);
	{
		const char *files[] = { path2 };

		s2 = open_files(files, 1);
	}
	fold2 = export_text(s2, EXPORT_FOLDED);
	assert_string_equal(fold1, fold2);
	session_close(s2);
	session_close(s);
	snapshot_free(sn);
	snapshot_free(sn2);
	free(json);
	free(fold1);
	free(fold2);
	unlink(path);
	unlink(path2);
	free(path);
	free(path2);
}

/*
 * The streaming reader: strings and numbers across its read window, the
 * fields in any order ("stacks" before "events"), JSON Lines (the last
 * counts, after a first line that is no snapshot), and a syntax error far
 * after the header is still found before any stack is used.
 */
static void test_stream(void **state)
{
	static const char *const names[] = { "alpha", "beta" };
	static const int counts[] = { 10, 30 };
	const char *one = snap("h", 0, 2, names, counts);
	size_t pad = (256u << 10) - 37, n = strlen(one), i;
	char *big = malloc(pad * 2 + n * 2 + 64), *p, *path;
	struct snapshot *sn;
	char err[256];

	(void)state;
	assert_non_null(big);
	/* line 1: a long string that ends just past the window; line 2: the snapshot */
	p = big;
	p += sprintf(p, "{\"x\":\"");
	memset(p, 'a', pad);
	p += pad;
	p += sprintf(p, "\\u00e9\"}\n");
	memcpy(p, one, n + 1);
	path = write_tmp(big);
	assert_int_equal(snapshot_load(path, &sn, err, sizeof(err)), 0);
	assert_int_equal(sn->nstacks, 2);
	assert_int_equal(sn->stacks[1].total, 60);
	snapshot_free(sn);
	unlink(path);
	free(path);
	/* "stacks" first, "events" and "view" last */
	{
		const char *st = strstr(one, ",\"stacks\":[");
		size_t head = (size_t)(st - one), tail = strlen(st) - 2; /* without "}\n" */

		p = big;
		p += sprintf(p, "{\"stacks\":%.*s,", (int)(tail - 10), st + 10);
		p += sprintf(p, "%.*s}\n", (int)(head - 1), one + 1);
	}
	assert_int_equal(snapshot_parse(big, strlen(big), &sn, err, sizeof(err)), 0);
	assert_int_equal(sn->nstacks, 2);
	assert_int_equal(sn->stacks[0].by[1].event, 1);
	assert_string_equal(sn->view.filter, "sched");
	snapshot_free(sn);
	/* a syntax error after the stacks */
	memcpy(big, one, n + 1);
	for (i = n; i > 0 && big[i] != '}'; i--)
		;
	big[i] = ',';
	assert_int_equal(snapshot_parse(big, strlen(big), &sn, err, sizeof(err)), -EBADMSG);
	assert_null(sn);
	if (!strstr(err, "not valid JSON at byte"))
		fail_msg("'%s'", err);
	free(big);
}

/* a snapshot of grouped stacks comes back grouped (the header says so, a JSON written again too) */
static void test_group(void **state)
{
	static const char *const names[] = { "alpha", "beta" };
	static const int counts[] = { 10, 30 };
	const char *base = snap("h", 0, 2, names, counts);
	char text[16384], *path, *json;
	const char *p = strstr(base, "\"stacks\":[");
	struct session *s;
	unsigned int depth;
	bool func;

	(void)state;
	snprintf(text, sizeof(text), "%.*s\"group\":{\"depth\":1,\"function\":true},%s",
		 (int)(p - base), base, p);
	path = write_tmp(text);
	{
		const char *files[] = { path };

		s = open_files(files, 1);
	}
	session_group(s, &depth, &func);
	assert_int_equal(depth, 1);
	assert_true(func);
	json = export_text(s, EXPORT_JSON);
	if (!strstr(json, "\"group\":{\"depth\":1,\"function\":true}"))
		fail_msg("%.400s", json);
	free(json);
	session_close(s);
	unlink(path);
	free(path);
}

/*
 * A weighted snapshot (--weight, --offcpu): its weights come back, so that
 * the ranking by weight is the one seen, and a JSON written again has them.
 * A: 10 hits of 1000 bytes, B: 30 hits of 300 bytes.
 */
static void test_weights(void **state)
{
	static const char w[] =
		"{\"schema\":\"stacktop-snapshot\",\"version\":2,\"host\":\"h\",\"mode\":\"stacks\","
		"\"events\":[\"kmem:kmalloc\"],\"weight\":{\"name\":\"bytes_alloc\",\"unit\":\"bytes\","
		"\"ranked\":true,\"total\":1300,\"delta\":650},"
		"\"view\":{\"sort\":\"hits\",\"counts\":\"delta\",\"top\":0},\"hits\":40,"
		"\"hits_delta\":20,\"lost\":0,\"overrun\":0,\"dropped\":0,\"orphans\":0,"
		"\"bad_pages\":0,\"fallbacks\":0,\"unresolved\":0,\"stacks\":["
		"{\"key\":\"0000000000000001\",\"total\":1000,\"delta\":500,\"hits\":10,\"hits_delta\":5,"
		"\"weight\":1000,\"weight_delta\":500,\"ids\":[],\"frames\":[\"0xffffffff81001010\"],"
		"\"symbols\":[\"a+0x10/0x100\"],\"by\":[{\"event\":\"kmem:kmalloc\",\"cpu\":0,\"pid\":1,"
		"\"comm\":\"x\",\"total\":10,\"delta\":5,\"weight\":1000,\"weight_delta\":500}]},"
		"{\"key\":\"0000000000000002\",\"total\":300,\"delta\":150,\"hits\":30,\"hits_delta\":15,"
		"\"weight\":300,\"weight_delta\":150,\"ids\":[],\"frames\":[\"0xffffffff81002010\"],"
		"\"symbols\":[\"b+0x10/0x100\"],\"by\":[{\"event\":\"kmem:kmalloc\",\"cpu\":0,\"pid\":1,"
		"\"comm\":\"x\",\"total\":30,\"delta\":15,\"weight\":300,\"weight_delta\":150}]}]}\n";
	char *path = write_tmp(w), *json;
	const char *files[] = { path };
	struct session *s = open_files(files, 1);
	struct rank_opts ro = {
		.key = RANK_DELTA, .event = -1, .pid = -1, .cpu = -1, .weight = true
	};
	struct rank_row rows[4];
	char fr[128];

	(void)state;
	assert_int_equal(session_unit(s), UNIT_BYTES);
	assert_string_equal(session_weight_name(s), "bytes_alloc");
	assert_int_equal(stack_table_rank(session_table(s), &ro, rows, 4, NULL), 2);
	/* by weight: A (1000 bytes) before B (300), though B has more hits */
	fmt_frame(fr, sizeof(fr), session_ksym(s), rows[0].stack->ips[0]);
	assert_string_equal(fr, "a+0x10/0x100");
	assert_int_equal(rows[0].total, 1000);
	assert_int_equal(rows[0].delta, 500);
	assert_int_equal(rows[0].stack->total, 10);
	json = export_text(s, EXPORT_JSON);
	if (!strstr(json, "\"weight\":{\"name\":\"bytes_alloc\",\"unit\":\"bytes\"") ||
	    !strstr(json, "\"hits\":10,\"hits_delta\":5,\"weight\":1000,\"weight_delta\":500"))
		fail_msg("%s", json);
	free(json);
	session_close(s);
	unlink(path);
	free(path);
}

/*
 * The histograms of single weights and the trends come back from a
 * snapshot (--offcpu: time buckets): in the table, and in a JSON written
 * again, bucket for bucket; the trend's last interval is the stack's delta.
 */
static void test_hist_trend(void **state)
{
	static const char w[] =
		"{\"schema\":\"stacktop-snapshot\",\"version\":2,\"host\":\"h\",\"mode\":\"stacks\","
		"\"events\":[\"sched:sched_switch\"],\"weight\":{\"name\":\"off-CPU\",\"unit\":\"nanoseconds\","
		"\"ranked\":true,\"total\":1000000000,\"delta\":400000000,\"hist_scale\":\"time\"},"
		"\"view\":{\"sort\":\"hits\",\"counts\":\"delta\",\"top\":0},\"hits\":5,"
		"\"hits_delta\":2,\"lost\":0,\"overrun\":0,\"dropped\":0,\"orphans\":0,"
		"\"bad_pages\":0,\"fallbacks\":0,\"unresolved\":0,\"stacks\":["
		"{\"key\":\"0000000000000001\",\"total\":1000000000,\"delta\":400000000,\"hits\":5,"
		"\"hits_delta\":2,\"weight\":1000000000,\"weight_delta\":400000000,\"ids\":[],"
		"\"frames\":[\"0xffffffff81001010\"],\"symbols\":[\"a+0x10/0x100\"],"
		"\"by\":[{\"event\":\"sched:sched_switch\",\"cpu\":0,\"pid\":1,\"comm\":\"x\",\"total\":5,"
		"\"delta\":2,\"weight\":1000000000,\"weight_delta\":400000000}],"
		"\"trend\":[1,0,2,2],\"trend_weight\":[200000000,0,400000000,400000000],"
		"\"hist\":[{\"low\":128000000,\"high\":256000000,\"count\":5},"
		"{\"low\":65536000000000,\"high\":null,\"count\":1}]}]}\n";
	char *path = write_tmp(w), *json;
	const char *files[] = { path };
	struct session *s = open_files(files, 1);
	struct rank_opts ro = {
		.key = RANK_DELTA, .event = -1, .pid = -1, .cpu = -1, .weight = true
	};
	uint64_t c[HIST_BUCKETS], v[STACK_TREND];
	struct rank_row rows[2];

	(void)state;
	assert_int_equal(stack_table_rank(session_table(s), &ro, rows, 2, NULL), 1);
	assert_int_equal(stack_table_hist_scale(session_table(s)), HIST_TIME);
	assert_true(stack_hist(session_table(s), rows[0].stack, c));
	assert_int_equal(c[hist_bucket(HIST_TIME, 200000000)], 5);
	assert_int_equal(c[HIST_BUCKETS - 1], 1);
	/* the first three intervals were history, the fourth the snapshot's delta */
	session_tick(s);
	assert_int_equal(stack_trend(session_table(s), rows[0].stack, false, v, STACK_TREND), 4);
	assert_int_equal(v[0], 1);
	assert_int_equal(v[1], 0);
	assert_int_equal(v[2], 2);
	assert_int_equal(v[3], 2);
	assert_int_equal(stack_trend(session_table(s), rows[0].stack, true, v, STACK_TREND), 4);
	assert_int_equal(v[0], 200000000);
	assert_int_equal(v[3], 400000000);
	json = export_text(s, EXPORT_JSON);
	if (!strstr(json, "\"hist_scale\":\"time\"") ||
	    !strstr(json,
		    "\"trend\":[1,0,2,2],\"trend_weight\":[200000000,0,400000000,400000000]") ||
	    !strstr(json, "\"hist\":[{\"low\":128000000,\"high\":256000000,\"count\":5},"
			  "{\"low\":65536000000000,\"high\":null,\"count\":1}]"))
		fail_msg("%s", json);
	free(json);
	/* the batch text of the expanded stack: bpftrace's hist() lines, in time units */
	{
		struct report_opts o = { .delta = true, .expand = 1, .rank = ro };
		size_t len = 0;
		FILE *f;

		json = NULL;
		f = open_memstream(&json, &len);
		assert_non_null(f);
		assert_true(export_write(f, s, &o, EXPORT_TEXT, 1) >= 0);
		fclose(f);
	}
	if (!strstr(json, "trend (weight per interval, oldest first): 200ms 0ns 400ms 400ms") ||
	    !strstr(json,
		    "      [128ms, 256ms)          5 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|") ||
	    !strstr(json,
		    "      [65536s, ...)           1 |@@@@@@@@@@                                          |"))
		fail_msg("%s", json);
	free(json);
	session_close(s);
	unlink(path);
	free(path);
}

/* --diff with an event filter: AFTER's index, BEFORE's event of the same name */
static void test_diff_event(void **state)
{
	static const char *const n[] = { "A", "B" };
	static const int c[] = { 11, 31 }; /* sched_switch 5 + 15, kmalloc 6 + 16 */
	const char *ev = "\"events\":[\"sched:sched_switch\",\"kmem:kmalloc\"]";
	char text[16384], *a, *b;
	const char *t, *p;
	struct session *sa, *sb;
	struct diff d;
	int k;

	(void)state;
	a = write_tmp(snap("x", 0, 2, n, c));
	t = snap("y", 0, 2, n, c); /* a static buffer: after the first file is written */
	p = strstr(t, ev);
	/* AFTER lists its events the other way round: kmalloc is its event 0 */
	snprintf(text, sizeof(text), "%.*s\"events\":[\"kmem:kmalloc\",\"sched:sched_switch\"]%s",
		 (int)(p - t), t, p + strlen(ev));
	b = write_tmp(text);
	{
		const char *fa[] = { a }, *fb[] = { b };

		sa = open_files(fa, 1);
		sb = open_files(fb, 1);
	}
	k = diff_event_map(sa, 1, sb);
	assert_string_equal(session_event(sb, (unsigned int)k), "kmem:kmalloc");
	{
		struct report_opts o = {
			.delta = true,
			.rank = { .key = RANK_DELTA, .event = k, .pid = -1, .cpu = -1 }
		};

		assert_int_equal(diff_compute(sa, sb, &o, &d), 0);
	}
	/* kmalloc's hits on both sides, not sched_switch's on one */
	assert_int_equal(d.total_before, 22);
	assert_int_equal(d.total_after, 22);
	assert_int_equal(d.nnew, 0);
	assert_float_equal(d.rows[0].change, 0, 1e-9);
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
		cmocka_unit_test(test_parse),	     cmocka_unit_test(test_errors),
		cmocka_unit_test(test_stack_errors), cmocka_unit_test(test_session),
		cmocka_unit_test(test_merge),	     cmocka_unit_test(test_diff),
		cmocka_unit_test(test_user_frames),  cmocka_unit_test(test_empty_frames),
		cmocka_unit_test(test_stream),	     cmocka_unit_test(test_group),
		cmocka_unit_test(test_weights),	     cmocka_unit_test(test_hist_trend),
		cmocka_unit_test(test_diff_event),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
