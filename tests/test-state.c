// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-state.c - the restore journal: changes undone newest first, a
 * killed run's journal undone by the next one, and no write through a
 * symlink or into a directory others can write. A plain directory stands in
 * for tracefs (tfs works on any root).
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
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "export.h"
#include "state.h"
#include "tfs.h"

struct fx {
	char root[64];
	char run[80];
	struct tfs *tfs;
};

static void put(const char *dir, const char *rel, const char *val)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(val, f);
	fclose(f);
}

static char *get(struct fx *fx, const char *rel)
{
	static char buf[256];
	char *b;

	assert_int_equal(tfs_read(fx->tfs, rel, &b, NULL), 0);
	snprintf(buf, sizeof(buf), "%s", b);
	free(b);
	return buf;
}

static int setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));

	snprintf(fx->root, sizeof(fx->root), "/tmp/stacktop-state.XXXXXX");
	if (!mkdtemp(fx->root))
		return -1;
	snprintf(fx->run, sizeof(fx->run), "%s-run", fx->root);
	mkdir(fx->run, 0700);
	mkdir(strcat(strcpy((char[128]){ 0 }, fx->root), "/options"), 0755);
	mkdir(strcat(strcpy((char[128]){ 0 }, fx->root), "/instances"), 0755);
	put(fx->root, "tracing_on", "1\n");
	put(fx->root, "options/stackmap", "0\n");
	put(fx->root, "options/stacktrace", "0\n");
	if (tfs_open(fx->root, &fx->tfs) < 0)
		return -1;
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fx *fx = *state;
	char cmd[256];

	tfs_close(fx->tfs);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'", fx->root, fx->run);
	if (system(cmd) != 0)
		return -1;
	free(fx);
	return 0;
}

static void test_state_restore_newest_first(void **state)
{
	struct fx *fx = *state;
	struct state *st;

	assert_int_equal(state_open(fx->tfs, fx->run, &st), 0);
	assert_int_equal(state_write(st, "options/stackmap", "1"), 0);
	assert_int_equal(state_write(st, "tracing_on", "0"), 0);
	assert_int_equal(state_write(st, "tracing_on", "1"), 0); /* back and forth */
	assert_int_equal(state_write(st, "options/stacktrace", "0"), 0); /* unchanged: no entry */
	assert_int_equal(state_mkdir(st, "instances/stacktop.1"), 0);
	assert_string_equal(get(fx, "options/stackmap"), "1");
	assert_string_equal(state_original(st, "options/stackmap"), "0");
	assert_null(state_original(st, "options/stacktrace"));

	assert_int_equal(state_restore(st), 0);
	assert_string_equal(get(fx, "options/stackmap"), "0");
	assert_string_equal(get(fx, "tracing_on"), "1");
	assert_false(tfs_exists(fx->tfs, "instances/stacktop.1"));
	/* the journal is gone */
	{
		char path[160];

		snprintf(path, sizeof(path), "%s/%d.journal", fx->run, (int)getpid());
		assert_int_equal(access(path, F_OK), -1);
	}
	state_free(st);
}

static void test_state_failed_write_forgotten(void **state)
{
	struct fx *fx = *state;
	struct state *st;

	assert_int_equal(state_open(fx->tfs, fx->run, &st), 0);
	assert_int_equal(state_write(st, "options/nosuch", "1"), -ENOENT);
	assert_null(state_original(st, "options/nosuch"));
	assert_int_equal(state_restore(st), 0);
	state_free(st);
}

/* a child changes things and dies by SIGKILL; the next run undoes it */
static void test_state_recover_killed(void **state)
{
	struct fx *fx = *state;
	pid_t pid = fork();
	int status, n = -1;

	assert_true(pid >= 0);
	if (pid == 0) {
		struct state *st;

		if (state_open(fx->tfs, fx->run, &st) || state_write(st, "options/stackmap", "1") ||
		    state_write(st, "tracing_on", "0") || state_mkdir(st, "instances/stacktop.9"))
			_exit(1);
		raise(SIGKILL);
		_exit(2);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_string_equal(get(fx, "options/stackmap"), "1");
	assert_true(tfs_exists(fx->tfs, "instances/stacktop.9"));

	assert_int_equal(state_recover(fx->tfs, fx->run, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(get(fx, "options/stackmap"), "0");
	assert_string_equal(get(fx, "tracing_on"), "1");
	assert_false(tfs_exists(fx->tfs, "instances/stacktop.9"));
	/* nothing left to do */
	assert_int_equal(state_recover(fx->tfs, fx->run, &n), 0);
	assert_int_equal(n, 0);
}

/*
 * 'A' entries: the line is appended (what was there stays), the undo is
 * appended on restore and by the recovery after a SIGKILL; filter files
 * that read "none" are restored with "0"
 */
static void test_state_append_undo(void **state)
{
	struct fx *fx = *state;
	struct state *st;
	pid_t pid;
	int status, n = -1;

	put(fx->root, "kprobe_events", "p:other/x foo\n");
	mkdir(strcat(strcpy((char[128]){ 0 }, fx->root), "/ev"), 0755);
	put(fx->root, "ev/filter", "none\n");
	assert_int_equal(state_open(fx->tfs, fx->run, &st), 0);
	assert_int_equal(state_append(st, "kprobe_events", "p:g/e bar\n", "-:g/e\n"), 0);
	assert_string_equal(get(fx, "kprobe_events"), "p:other/x foo\np:g/e bar\n");
	assert_int_equal(state_write(st, "ev/filter", "prev_state & 3"), 0);
	assert_int_equal(state_append(st, "nosuch/trigger", "stacktrace", "!stacktrace"), -ENOENT);
	assert_int_equal(state_restore(st), 0);
	state_free(st);
	assert_string_equal(get(fx, "kprobe_events"), "p:other/x foo\np:g/e bar\n-:g/e\n");
	assert_string_equal(get(fx, "ev/filter"), "0");

	put(fx->root, "kprobe_events", "");
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (state_open(fx->tfs, fx->run, &st) ||
		    state_append(st, "kprobe_events", "p:g/e bar\n", "-:g/e\n"))
			_exit(1);
		raise(SIGKILL);
		_exit(2);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(state_recover(fx->tfs, fx->run, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(get(fx, "kprobe_events"), "p:g/e bar\n-:g/e\n");
}

/* values with newlines and odd bytes survive the journal */
static void test_state_odd_values(void **state)
{
	struct fx *fx = *state;
	pid_t pid;
	int status, n;

	put(fx->root, "options/stackmap", "a b\tc\xc3\xa9\n");
	pid = fork();
	if (pid == 0) {
		struct state *st;

		if (state_open(fx->tfs, fx->run, &st) || state_write(st, "options/stackmap", "1"))
			_exit(1);
		raise(SIGKILL);
	}
	waitpid(pid, &status, 0);
	assert_int_equal(state_recover(fx->tfs, fx->run, &n), 0);
	assert_string_equal(get(fx, "options/stackmap"), "a b\tc\xc3\xa9");
}

/* a live process is left alone whatever its binary is called */
static void test_state_live_process_kept(void **state)
{
	struct fx *fx = *state;
	int go[2], done[2], status, n = -1;
	pid_t pid;
	char c;

	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(done), 0);
	pid = fork();
	if (pid == 0) {
		struct state *st;

		if (state_open(fx->tfs, fx->run, &st) || state_write(st, "options/stackmap", "1"))
			_exit(1);
		if (write(go[1], "x", 1) != 1 || read(done[0], &c, 1) != 1)
			_exit(1);
		state_restore(st);
		state_free(st);
		_exit(0);
	}
	assert_int_equal(read(go[0], &c, 1), 1);
	/* the child's comm is "test-state", not "stacktop": the lock says it lives */
	assert_true(state_pid_is_stacktop(fx->run, pid));
	assert_int_equal(state_recover(fx->tfs, fx->run, &n), 0);
	assert_int_equal(n, 0);
	assert_string_equal(get(fx, "options/stackmap"), "1");
	assert_int_equal(write(done[1], "x", 1), 1);
	waitpid(pid, &status, 0);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_string_equal(get(fx, "options/stackmap"), "0");
	assert_false(state_pid_is_stacktop(fx->run, pid));
}

/* one entry per file, however often it changes (resets toggle tracing_on) */
static void test_state_many_writes(void **state)
{
	struct fx *fx = *state;
	struct state *st;
	int i;

	assert_int_equal(state_open(fx->tfs, fx->run, &st), 0);
	for (i = 0; i < 1000; i++)
		assert_int_equal(state_write(st, "tracing_on", i & 1 ? "1" : "0"), 0);
	assert_string_equal(state_original(st, "tracing_on"), "1");
	assert_int_equal(state_write(st, "tracing_on", "0"), 0);
	assert_int_equal(state_restore(st), 0);
	assert_string_equal(get(fx, "tracing_on"), "1");
	state_free(st);
}

/* a recoverer that died mid-way, a vanished tracefs, a stray file */
static void test_state_recover_leftovers(void **state)
{
	struct fx *fx = *state;
	char path[256];
	FILE *f;
	int n = -1;

	/* claimed by pid 999999 (dead) for pid 999998 (dead): tracing_on was 0 */
	snprintf(path, sizeof(path), "%s/999998.recovering.999999", fx->run);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "stacktop-journal 1\npid 999998\nroot ");
	for (const char *p = fx->root; *p; p++)
		fprintf(f, "%02x", (unsigned char)*p);
	fprintf(f, "\nW 74726163696e675f6f6e 30\n");
	fclose(f);
	/* a journal for a tracefs root that no longer exists */
	snprintf(path, sizeof(path), "%s/999997.journal", fx->run);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "stacktop-journal 1\npid 999997\nroot 2f6e6f2f73756368\nW 78 30\n");
	fclose(f);
	/* digits only: not a journal */
	snprintf(path, sizeof(path), "%s/4242", fx->run);
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	/* the lock file of a run that died after it had restored everything */
	snprintf(path, sizeof(path), "%s/999996.lock", fx->run);
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);

	assert_int_equal(state_recover(fx->tfs, fx->run, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(get(fx, "tracing_on"), "0");
	snprintf(path, sizeof(path), "%s/999997.journal", fx->run);
	assert_int_equal(access(path, F_OK), -1);
	snprintf(path, sizeof(path), "%s/999996.lock", fx->run);
	assert_int_equal(access(path, F_OK), -1);
}

static void test_state_refuses_unsafe_rundir(void **state)
{
	struct fx *fx = *state;
	char link[128], open_dir[128];
	struct state *st;

	/* a symlink where the journal directory should be */
	snprintf(link, sizeof(link), "%s-link", fx->root);
	assert_int_equal(symlink(fx->run, link), 0);
	assert_int_equal(state_open(fx->tfs, link, &st), -EPERM);
	unlink(link);

	/* a directory others can write to, or even read */
	snprintf(open_dir, sizeof(open_dir), "%s-open", fx->root);
	assert_int_equal(mkdir(open_dir, 0777), 0);
	assert_int_equal(chmod(open_dir, 0777), 0);
	assert_int_equal(state_open(fx->tfs, open_dir, &st), -EPERM);
	assert_int_equal(chmod(open_dir, 0755), 0);
	assert_int_equal(state_open(fx->tfs, open_dir, &st), -EPERM);
	rmdir(open_dir);
}

/* files stacktop creates: never through a symlink, never over a file */
static void test_export_create_file_safe(void **state)
{
	struct fx *fx = *state;
	char target[128], link[128], fresh[128];
	FILE *f;

	snprintf(target, sizeof(target), "%s/victim", fx->root);
	snprintf(link, sizeof(link), "%s/out.folded", fx->root);
	snprintf(fresh, sizeof(fresh), "%s/new.folded", fx->root);
	put(fx->root, "victim", "keep me");
	assert_int_equal(symlink(target, link), 0);
	errno = 0;
	assert_null(export_create_file(link));
	assert_int_equal(errno, EEXIST);
	assert_null(export_create_file(target));
	assert_string_equal(get(fx, "victim"), "keep me");
	f = export_create_file(fresh);
	assert_non_null(f);
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_state_restore_newest_first, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_failed_write_forgotten, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_recover_killed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_append_undo, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_odd_values, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_live_process_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_many_writes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_recover_leftovers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_refuses_unsafe_rundir, setup, teardown),
		cmocka_unit_test_setup_teardown(test_export_create_file_safe, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
