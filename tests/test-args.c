// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-args.c - the command line (cli/args*.c over the table of
 * cli/options*.c): what args_parse() makes of an argument vector, what it
 * refuses and the words it says so with (stderr, read back here), and a
 * snapshot's view kept or overridden by args_apply_view(). No kernel
 * needed: a snapshot file is written here.
 */
#include <getopt.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/args.h"
#include "cli/options.h"
#include "core/rank.h"
#include "output/export.h"
#include "session/session.h"

static struct args A;
static char err[4096];

/*
 * args_parse() on "stacktop" and the NULL-ended words after it; what it
 * wrote to stderr lands in err
 */
static int parse_v(const char *first, va_list ap)
{
	char *argv[32];
	int argc = 0, saved, r;
	FILE *tmp = tmpfile();
	size_t n;

	assert_non_null(tmp);
	argv[argc++] = (char *)"stacktop";
	for (const char *w = first; w; w = va_arg(ap, const char *)) {
		assert_true(argc < 31);
		argv[argc++] = (char *)w;
	}
	argv[argc] = NULL;
	args_free();
	optind = 0; /* glibc: a fresh scan */
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	assert_true(saved >= 0);
	assert_true(dup2(fileno(tmp), STDERR_FILENO) >= 0);
	r = args_parse(argc, argv, &A);
	fflush(stderr);
	assert_true(dup2(saved, STDERR_FILENO) >= 0);
	close(saved);
	rewind(tmp);
	n = fread(err, 1, sizeof(err) - 1, tmp);
	err[n] = '\0';
	fclose(tmp);
	return r;
}

static int parse(const char *first, ...)
{
	va_list ap;
	int r;

	va_start(ap, first);
	r = parse_v(first, ap);
	va_end(ap);
	return r;
}

/* refused with status 2, the message containing @words */
#define assert_refused(words, ...)                                                                 \
	do {                                                                                       \
		assert_int_equal(parse(__VA_ARGS__, NULL), 2);                                     \
		if (!strstr(err, words))                                                           \
			fail_msg("expected '%s' in: %s", words, err);                              \
	} while (0)

static void assert_ok(int r)
{
	if (r)
		fail_msg("refused (%d): %s", r, err);
	assert_string_equal(err, "");
}

static void test_defaults(void **state)
{
	(void)state;
	assert_ok(parse(NULL));
	assert_true(A.delay == 1.0);
	assert_int_equal(A.iterations, -1);
	assert_int_equal(A.expand, 5);
	assert_int_equal(A.top, 0);
	assert_int_equal(A.format, EXPORT_TEXT);
	assert_int_equal(A.sort, RANK_DELTA);
	assert_int_equal(A.so.mode, SESSION_AUTO);
	assert_int_equal(A.so.nevents, 0);
	assert_false(A.batch);
	assert_true(A.mouse);
	assert_int_equal(A.view.event, -1);
	assert_int_equal(A.view.pid, -1);
}

/* the plain options: the table's row takes the value, with its bounds */
static void test_plain(void **state)
{
	(void)state;
	assert_ok(parse("--top", "7", "--expand", "0", "-n", "3", "-b", "--max-memory", "64M", "-M",
			"-v", "-v", NULL));
	assert_int_equal(A.top, 7);
	assert_int_equal(A.expand, 0);
	assert_int_equal(A.iterations, 3);
	assert_true(A.batch);
	assert_int_equal(A.so.max_memory, (size_t)64 << 20);
	assert_false(A.mouse);
	assert_int_equal(A.verbose, 2);
	assert_refused("bad --top '0'", "--top", "0");
	assert_refused("bad --top 'x'", "--top", "x");
	assert_refused("bad --max-memory", "--max-memory", "12Q");
	assert_refused("requires an argument", "--top");
	assert_refused("unrecognized option '--no-such'", "--no-such");
	assert_refused("invalid option -- 'Z'", "-Z");
}

static void test_delay(void **state)
{
	(void)state;
	assert_ok(parse("-d", "0.25", NULL));
	assert_true(A.delay == 0.25);
	assert_true(A.delay_set);
	assert_refused("bad delay '0.01'", "-d", "0.01");
	assert_refused("bad delay 'nan'", "-d", "nan");
}

/* -e and --filter: the filter goes to the events before it that have none */
static void test_events(void **state)
{
	(void)state;
	assert_ok(parse("-e", "sched:sched_switch", "-e", "kmem:kmalloc if bytes_alloc > 64", "-e",
			"irq:irq_handler_entry", "--filter", "irq == 1", NULL));
	assert_int_equal(A.so.nevents, 3);
	assert_string_equal(A.events[0], "sched:sched_switch if irq == 1");
	assert_string_equal(A.events[1], "kmem:kmalloc if bytes_alloc > 64");
	assert_string_equal(A.events[2], "irq:irq_handler_entry if irq == 1");
	assert_refused("applies to the -e events before it", "--filter", "x == 1");
	assert_refused("bad --comm", "--comm", "");
}

/* -p, --tid, -C: numbers and ranges */
static void test_lists(void **state)
{
	(void)state;
	assert_ok(parse("-p", "10-12,15", "-C", "0,1", "--tid", "7", NULL));
	assert_int_equal(A.so.npids, 4);
	assert_int_equal(A.pids[0], 10);
	assert_int_equal(A.pids[2], 12);
	assert_int_equal(A.pids[3], 15);
	assert_int_equal(A.so.ncpus, 2);
	assert_int_equal(A.so.ntids, 1);
	assert_refused("bad pid list '1-'", "-p", "1-");
	assert_refused("bad CPU list", "-C", "70000");
}

static void test_formats(void **state)
{
	(void)state;
	assert_ok(parse("-o", "x.json", NULL));
	assert_int_equal(A.format, EXPORT_JSON);
	assert_true(A.batch);
	assert_ok(parse("--folded", NULL));
	assert_int_equal(A.format, EXPORT_FOLDED);
	assert_ok(parse("--format", "csv", "-o", "whatever.txt", NULL));
	assert_int_equal(A.format, EXPORT_CSV);
	assert_refused("--format json and folded: choose one", "--json", "--folded");
	assert_refused("bad --format 'nope' (text, json", "--format", "nope");
	assert_refused("--folded-root applies to --format", "--folded-root", "comm");
	assert_ok(parse("--folded-root", "pid", "--format", "folded", NULL));
	assert_int_equal(A.root, EXPORT_ROOT_PID);
	assert_refused("writes one profile: give -o FILE", "--format", "pprof");
	assert_ok(parse("--format", "pprof", "-n", "1", NULL));
}

static void test_sort(void **state)
{
	(void)state;
	assert_ok(parse("--sort", "total", NULL));
	assert_int_equal(A.sort, RANK_TOTAL);
	assert_true(A.sort_set);
	assert_ok(parse("--cumulative", NULL));
	assert_int_equal(A.sort, RANK_TOTAL);
	assert_refused("bad --sort 'size'", "--sort", "size");
}

/* --offcpu and --weight trace their events themselves */
static void test_weights(void **state)
{
	(void)state;
	assert_ok(parse("--offcpu", NULL));
	assert_int_equal(A.so.nevents, 2);
	assert_string_equal(A.events[0], "sched:sched_switch");
	assert_string_equal(A.events[1], "sched:sched_waking");
	assert_ok(parse("--weight", "kmem:kmalloc:bytes_alloc", NULL));
	assert_int_equal(A.so.nevents, 1);
	assert_string_equal(A.events[0], "kmem:kmalloc");
	assert_refused("--weight and --offcpu: choose one", "--offcpu", "--weight", "a:b:c");
	assert_refused("--count applies to --weight or --offcpu", "--count");
	assert_refused("bad --weight 'a:b'", "--weight", "a:b");
	assert_refused("no -e", "--offcpu", "-e", "sched:sched_switch");
}

static void test_sampling(void **state)
{
	(void)state;
	assert_ok(parse("--overhead", "2%", NULL));
	assert_int_equal(A.so.overhead_milli, 2000);
	assert_int_equal(A.so.sample_period, 1000);
	assert_ok(parse("--oncpu", NULL));
	assert_int_equal(A.so.oncpu_hz, 999);
	assert_ok(parse("--oncpu=tick", NULL));
	assert_true(A.so.oncpu_tick);
	assert_refused("--overhead chooses N itself", "--overhead", "1", "--sample", "10");
	assert_refused("--oncpu samples the CPUs: not with -e", "--oncpu", "-e", "a:b");
	assert_refused("not with --oncpu", "--oncpu", "--sample", "10");
	assert_refused("bad --sample '1'", "--sample", "1");
	assert_ok(parse("-u=dwarf,100", NULL));
	assert_int_equal(A.so.user, SESSION_USER_DWARF);
	assert_int_equal(A.so.user_stack, 104);
	assert_refused("--user-sample sets the dwarf mode's", "--user=fp", "--user-sample", "4");
}

/* -r: a recording is one report, at once; what a live run chooses is refused */
static void test_replay(void **state)
{
	(void)state;
	assert_ok(parse("-r", "a.json", "-r", "b.json", NULL));
	assert_int_equal(A.so.nfiles, 2);
	assert_int_equal(A.iterations, 1);
	assert_refused(
		"-e, --function, --kprobe, --trigger, --mode, --tracefs and --reset-first do "
		"not apply",
		"-r", "a.json", "-e", "a:b");
	/* these were taken and silently ignored before issue 37 */
	assert_refused("-p applies to a live run", "-r", "a.json", "-p", "1");
	assert_refused("--tid applies to a live run", "-r", "a.json", "--tid", "1");
	assert_refused("-C applies to a live run", "-C", "0", "--diff", "a.json", "b.json");
	assert_refused("-d applies to a live run", "-r", "a.json", "-d", "2");
	assert_refused("--buffer-kb applies to a live run", "-r", "a.json", "--buffer-kb", "8192");
	assert_refused("--show-self applies to a live run", "--map", "m", "--show-self");
	assert_refused("--list-events lists a kernel's events", "--list-events", "-r", "a.json");
	/* the live side of --diff takes them */
	assert_ok(parse("--diff", "a.json", "-", "-p", "1", "-d", "0.5", NULL));
	assert_null(A.diff_after);
}

static void test_diff(void **state)
{
	(void)state;
	assert_ok(parse("--diff", "a.json", "b.json", NULL));
	assert_true(A.diff);
	assert_string_equal(A.diff_before, "a.json");
	assert_string_equal(A.diff_after, "b.json");
	assert_refused("AFTER is missing", "--diff", "a.json");
	assert_refused("--diff writes text, json or html", "--diff", "a.json", "b.json", "--format",
		       "csv");
	assert_refused("not with -r/--map", "--diff", "a.json", "b.json", "-r", "c.json");
	assert_ok(parse("-r", "b.json", "--diff-base", "a.json", NULL));
	assert_true(A.diff);
	assert_string_equal(A.diff_before, "a.json");
	assert_string_equal(A.diff_after, "b.json");
	assert_int_equal(A.so.nfiles, 0);
	assert_refused("unexpected argument 'extra'", "-n", "1", "extra");
}

/* -- CMD: one report of its whole run; what traces other processes is refused */
static void test_cmd(void **state)
{
	(void)state;
	assert_ok(parse("-b", "--", "sleep", "1", NULL));
	assert_non_null(A.cmd);
	assert_string_equal(A.cmd[0], "sleep");
	assert_string_equal(A.cmd[1], "1");
	assert_null(A.cmd[2]);
	assert_int_equal(A.iterations, 1);
	assert_ok(parse("-d", "2", "--", "sleep", "1", NULL));
	assert_int_equal(A.iterations, -1);
	assert_refused("-- wants a command after it", "--");
	assert_refused("-- CMD: not with -p/--tid", "-p", "1", "--", "true");
	assert_refused("--cleanup undoes what dead runs left", "--cleanup", "-r", "a.json");
}

/* a line the option table drives: --help's, the man page's, the completion's */
static void test_table(void **state)
{
	const struct cli_option *o;
	unsigned int i, n = cli_option_count();

	(void)state;
	assert_true(n > 40);
	for (i = 0; i < n; i++) {
		o = cli_option_at(i);
		assert_non_null(o);
		assert_non_null(o->name);
		assert_ptr_equal(cli_option_find(o->id), o);
		/* a plain row says where its value goes, a hidden one has no man line */
		if (o->help)
			assert_non_null(o->man);
	}
	assert_null(cli_option_at(n));
}

/* @buf with its first @old replaced by @new (room for it is there) */
static void replace(char *buf, const char *old, const char *new)
{
	char *at = strstr(buf, old);
	size_t lo = strlen(old), ln = strlen(new);

	assert_non_null(at);
	memmove(at + ln, at + lo, strlen(at + lo) + 1);
	memcpy(at, new, ln);
}

/* a snapshot with a view of its own: sorted by totals, 9 rows, one command */
static const char *write_snapshot(void)
{
	static char path[] = "/tmp/test-args-XXXXXX";
	const char *src = getenv("ST_FIXTURES");
	char in[512], *buf;
	FILE *f;
	long n;
	int fd;

	assert_non_null(src);
	snprintf(in, sizeof(in), "%s/export/lost.json", src);
	f = fopen(in, "r");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t)n + 512);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	replace(buf, "\"sort\": \"hits\"", "\"sort\": \"total\"");
	replace(buf, "\"counts\": \"delta\"", "\"counts\": \"total\"");
	replace(buf, "\"top\": 0}", "\"top\": 9, \"comm\": \"=sleeper\"}");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, strlen(buf)), (ssize_t)strlen(buf));
	close(fd);
	free(buf);
	return path;
}

static struct session *open_file(const char *path)
{
	const char *files[] = { path };
	struct session_opts o = { .files = files, .nfiles = 1 };
	struct session *s;
	char e[256];

	if (session_open(&o, &s, e, sizeof(e)) < 0)
		fail_msg("session_open: %s", e);
	return s;
}

static void apply(struct session *s)
{
	int saved = dup(STDERR_FILENO);
	FILE *tmp = tmpfile();
	size_t n;

	assert_non_null(tmp);
	fflush(stderr);
	dup2(fileno(tmp), STDERR_FILENO);
	args_apply_view(&A, s);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(tmp);
	n = fread(err, 1, sizeof(err) - 1, tmp);
	err[n] = '\0';
	fclose(tmp);
}

static void test_apply_view(void **state)
{
	const char *path = write_snapshot();
	struct session *s = open_file(path);

	(void)state;
	/* nothing said: the snapshot's view */
	assert_ok(parse("-r", path, NULL));
	apply(s);
	assert_string_equal(err, "");
	assert_true(A.view_set);
	assert_int_equal(A.sort, RANK_TOTAL);
	assert_int_equal(A.view.key, RANK_TOTAL);
	assert_int_equal(A.top, 9);
	assert_string_equal(A.view_comm, "=sleeper");
	assert_null(A.comm);
	/* the command line wins, and a --comm that differs is said */
	assert_ok(parse("-r", path, "--sort", "id", "--top", "3", "--comm", "writer", NULL));
	apply(s);
	assert_false(A.view_set);
	assert_int_equal(A.sort, RANK_ID);
	assert_int_equal(A.view.key, RANK_ID);
	assert_int_equal(A.top, 3);
	assert_string_equal(A.comm, "writer");
	assert_non_null(strstr(err, "showing the commands '=sleeper': --comm writer selects"));
	/* the same command: nothing to say */
	assert_ok(parse("-r", path, "--comm", "sleeper", NULL));
	apply(s);
	assert_string_equal(err, "");
	session_close(s);
	unlink(path);
}

static int teardown(void **state)
{
	(void)state;
	args_free();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults), cmocka_unit_test(test_plain),
		cmocka_unit_test(test_delay),	 cmocka_unit_test(test_events),
		cmocka_unit_test(test_lists),	 cmocka_unit_test(test_formats),
		cmocka_unit_test(test_sort),	 cmocka_unit_test(test_weights),
		cmocka_unit_test(test_sampling), cmocka_unit_test(test_replay),
		cmocka_unit_test(test_diff),	 cmocka_unit_test(test_cmd),
		cmocka_unit_test(test_table),	 cmocka_unit_test(test_apply_view),
	};

	return cmocka_run_group_tests(tests, NULL, teardown);
}
