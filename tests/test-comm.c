// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-comm.c - the pid -> name cache: saved_cmdlines lines that could be
 * the tail of a name holding a newline are not believed, a saved_cmdlines
 * name never renames a pid already named, and an event's own name wins; the
 * pid -> process cache: a saved_tgids line never overrides what /proc says
 * of a live task. A plain directory stands in for tracefs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "kernel/comm.h"
#include "kernel/tgid.h"
#include "kernel/tfs.h"

struct fx {
	char root[64];
	struct tfs *tfs;
	struct comm_cache *c;
};

static void put_cmdlines(struct fx *fx, const char *val)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/saved_cmdlines", fx->root);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(val, f);
	fclose(f);
}

static int setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));

	snprintf(fx->root, sizeof(fx->root), "/tmp/stacktop-comm.XXXXXX");
	if (!mkdtemp(fx->root) || tfs_open(fx->root, &fx->tfs) < 0)
		return -1;
	/* no /proc: the pids here are made up */
	fx->c = comm_cache_new(fx->tfs, false);
	*state = fx;
	return fx->c ? 0 : -1;
}

static int teardown(void **state)
{
	struct fx *fx = *state;
	char path[128];

	comm_cache_free(fx->c);
	tfs_close(fx->tfs);
	snprintf(path, sizeof(path), "%s/saved_cmdlines", fx->root);
	unlink(path);
	rmdir(fx->root);
	free(fx);
	return 0;
}

/* "z\n15 EVILCOMM" (13 bytes, a valid comm) as pid 700's name */
static void test_comm_newline_injection(void **state)
{
	struct fx *fx = *state;

	put_cmdlines(fx, "1 systemd\n600 NetworkManager\n700 z\n15 EVILCOMM\n"
			 "16 kworker/1:0H-ev\n23 ksoftirqd/2\n");
	assert_string_equal(comm_cache_get(fx->c, 15), "?");
	assert_string_equal(comm_cache_get(fx->c, 700), "z");
	assert_string_equal(comm_cache_get(fx->c, 1), "systemd");
	/* "systemd\n600 NetworkManager" is too long to be one name */
	assert_string_equal(comm_cache_get(fx->c, 600), "NetworkManager");
	/* lines that cannot be part of the name before them still count */
	assert_string_equal(comm_cache_get(fx->c, 23), "ksoftirqd/2");
}

/* a chain of newlines: every line a 15-byte name could reach is suspect */
static void test_comm_injection_chain(void **state)
{
	struct fx *fx = *state;

	put_cmdlines(fx, "800 a\n\n9 b\n8 c\n2000 kworker/u8:1-ev\n");
	assert_string_equal(comm_cache_get(fx->c, 9), "?");
	assert_string_equal(comm_cache_get(fx->c, 8), "?");
	assert_string_equal(comm_cache_get(fx->c, 2000), "kworker/u8:1-ev");
}

/* a pid listed twice is not believed; known names are never replaced */
static void test_comm_never_renames(void **state)
{
	struct fx *fx = *state;
	const int32_t pids[] = { 42, 43 };
	const char *const comms[] = { "worker", "" };

	put_cmdlines(fx, "42 EVILCOMM\n3000 longer-name-a\n77 one\n3001 longer-name-b\n"
			 "77 two\n");
	comm_cache_learn(fx->c, pids, comms, 2);
	assert_string_equal(comm_cache_get(fx->c, 42), "worker");
	assert_string_equal(comm_cache_get(fx->c, 77), "?");
	/* the tick re-reads saved_cmdlines at the next miss; 42 keeps its name */
	comm_cache_tick(fx->c);
	assert_string_equal(comm_cache_get(fx->c, 42), "worker");
}

/* names reach the screen sanitized, whatever their source */
static void test_comm_sanitized(void **state)
{
	struct fx *fx = *state;
	const int32_t pids[] = { 50 };
	const char *const comms[] = { "a\033[2Jb" };

	put_cmdlines(fx, "");
	comm_cache_learn(fx->c, pids, comms, 1);
	assert_null(strchr(comm_cache_get(fx->c, 50), '\033'));
	assert_string_equal(comm_cache_get(fx->c, 0), "<idle>");
}

/*
 * comm_unnamed's count: a lookup no source answers, once a pid in an
 * interval (its "?" is cached until the tick), already when the pid's first
 * event named no task
 */
static void test_comm_unnamed(void **state)
{
	struct fx *fx = *state;
	const int32_t pids[] = { 60, 61, 62 };
	const char *const comms[] = { "named", "", "" };

	put_cmdlines(fx, "61 listed\n");
	assert_int_equal(comm_cache_unnamed(fx->c), 0);
	/* 60 by its event, 61 by saved_cmdlines, 62 by nothing */
	comm_cache_learn(fx->c, pids, comms, 3);
	assert_int_equal(comm_cache_unnamed(fx->c), 1);
	assert_string_equal(comm_cache_get(fx->c, 60), "named");
	assert_string_equal(comm_cache_get(fx->c, 61), "listed");
	assert_string_equal(comm_cache_get(fx->c, 62), "?");
	assert_string_equal(comm_cache_get(fx->c, 63), "?");
	assert_string_equal(comm_cache_get(fx->c, 63), "?");
	assert_int_equal(comm_cache_unnamed(fx->c), 2);
	/* idle and the unknown pid are no failed lookup */
	assert_string_equal(comm_cache_get(fx->c, 0), "<idle>");
	assert_string_equal(comm_cache_get(fx->c, -1), "?");
	assert_int_equal(comm_cache_unnamed(fx->c), 2);
	/* learned again in the interval it was found unnamed in: not twice */
	comm_cache_learn(fx->c, &pids[2], &comms[2], 1);
	assert_int_equal(comm_cache_unnamed(fx->c), 2);
	/* the next interval asks again */
	comm_cache_tick(fx->c);
	assert_string_equal(comm_cache_get(fx->c, 62), "?");
	assert_int_equal(comm_cache_unnamed(fx->c), 3);
}

/*
 * saved_tgids is the kernel's map by pid, never cleared: it names pids
 * reused since by other tasks, and pids not given out yet (a thread -p
 * will start later). Read whole at the first miss, it must not decide for a
 * live task: the "late thread" of tests/live/pids.sh was dropped that way.
 */
static void test_tgid_saved_stale(void **state)
{
	struct fx *fx = *state;
	struct tgid_cache *c = tgid_cache_new(fx->tfs, true);
	char path[128], line[64];
	int self = (int)getpid();
	FILE *f;

	assert_non_null(c);
	snprintf(path, sizeof(path), "%s/saved_tgids", fx->root);
	f = fopen(path, "w");
	assert_non_null(f);
	/* our pid, last owned by process 1; and a task that has ended */
	snprintf(line, sizeof(line), "%d 1\n2147483000 4242\n", self);
	fputs(line, f);
	fclose(f);
	/* the ended task: not in /proc, saved_tgids is read (whole) */
	assert_int_equal(tgid_cache_get(c, 2147483000), 4242);
	/* a live task: /proc, not the stale line */
	assert_int_equal(tgid_cache_get(c, self), self);
	assert_int_equal(tgid_cache_get(c, self), self);
	tgid_cache_free(c);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_comm_newline_injection, setup, teardown),
		cmocka_unit_test_setup_teardown(test_comm_injection_chain, setup, teardown),
		cmocka_unit_test_setup_teardown(test_comm_never_renames, setup, teardown),
		cmocka_unit_test_setup_teardown(test_comm_sanitized, setup, teardown),
		cmocka_unit_test_setup_teardown(test_comm_unnamed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tgid_saved_stale, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
