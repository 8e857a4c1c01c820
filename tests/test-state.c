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
#include <dirent.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "output/export.h"
#include "kernel/state.h"
#include "kernel/tfs.h"

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
	assert_int_equal(state_write(st, "tracing_on", "1"), 0);	 /* back and forth */
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

struct noted {
	int n, pid, err;
	char what[STATE_NOTE_MAX];
};

static void note_cb(void *ctx, int pid, int err, const char *what)
{
	struct noted *nt = ctx;

	nt->n++;
	nt->pid = pid;
	nt->err = err;
	snprintf(nt->what, sizeof(nt->what), "%s", what);
}

/* hex of @s into @f, as journals keep paths and values */
static void hex(FILE *f, const char *s)
{
	for (; *s; s++)
		fprintf(f, "%02x", (unsigned char)*s);
}

/* a dead run's journal undone, and said for a person (what the next run prints) */
static void test_state_recover_noted(void **state)
{
	struct fx *fx = *state;
	struct noted nt = { 0 };
	char path[256];
	FILE *f;
	int n = -1;

	put(fx->root, "options/stackmap", "1\n");
	put(fx->root, "tracing_on", "0\n");
	snprintf(path, sizeof(path), "%s/instances/stacktop.9", fx->root);
	assert_int_equal(mkdir(path, 0755), 0);
	/* the journal of pid 999990 (dead), oldest change first */
	snprintf(path, sizeof(path), "%s/999990.journal", fx->run);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "stacktop-journal 1\npid 999990\nroot ");
	hex(f, fx->root);
	fprintf(f, "\nW ");
	hex(f, "options/stackmap");
	fprintf(f, " 30\nW ");
	hex(f, "tracing_on");
	fprintf(f, " 31\nD ");
	hex(f, "instances/stacktop.9");
	fprintf(f, "\nW ");
	hex(f, "instances/stacktop.9/tracing_on");
	fprintf(f, " 30\n");
	fclose(f);

	assert_int_equal(state_recover_noted(fx->tfs, fx->run, note_cb, &nt, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(nt.n, 1);
	assert_int_equal(nt.pid, 999990);
	assert_int_equal(nt.err, 0);
	/* newest first; what was inside the removed instance is not named */
	assert_string_equal(
		nt.what, "removed instance stacktop.9; restored tracing_on=1, options/stackmap=0");
	assert_string_equal(get(fx, "tracing_on"), "1");
	assert_string_equal(get(fx, "options/stackmap"), "0");
	assert_false(tfs_exists(fx->tfs, "instances/stacktop.9"));
	assert_int_equal(access(path, F_OK), -1);
}

/*
 * the guardian's call: it waits while the run holds its lock (nothing is
 * undone under a live run), undoes the journal once the run is gone, and
 * a second call finds nothing
 */
static void test_state_recover_pid_waits(void **state)
{
	struct fx *fx = *state;
	int go[2], ready[2], done[2], status, r = -1;
	pid_t run, rec;
	char c;

	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(ready), 0);
	assert_int_equal(pipe(done), 0);
	run = fork();
	assert_true(run >= 0);
	if (run == 0) {
		struct state *st;

		if (state_open(fx->tfs, fx->run, &st) || state_write(st, "tracing_on", "0") ||
		    state_mkdir(st, "instances/stacktop.7"))
			_exit(1);
		if (write(ready[1], "r", 1) != 1 || read(go[0], &c, 1) < 0)
			_exit(1);
		_exit(0); /* dies without restoring, as a SIGKILL would leave it */
	}
	assert_int_equal(read(ready[0], &c, 1), 1);
	rec = fork();
	assert_true(rec >= 0);
	if (rec == 0) {
		r = state_recover_pid(fx->run, run, NULL, NULL);
		if (write(done[1], &r, sizeof(r)) != (ssize_t)sizeof(r))
			_exit(1);
		_exit(0);
	}
	/* the run lives: nothing undone after a while */
	usleep(300 * 1000);
	assert_string_equal(get(fx, "tracing_on"), "0");
	assert_true(tfs_exists(fx->tfs, "instances/stacktop.7"));
	/* it ends: the recoverer, blocked on its lock, undoes the journal */
	assert_int_equal(write(go[1], "g", 1), 1);
	assert_int_equal(waitpid(run, &status, 0), run);
	assert_int_equal(read(done[0], &r, sizeof(r)), (ssize_t)sizeof(r));
	assert_int_equal(r, 1);
	assert_int_equal(waitpid(rec, &status, 0), rec);
	assert_string_equal(get(fx, "tracing_on"), "1");
	assert_false(tfs_exists(fx->tfs, "instances/stacktop.7"));
	/* once: a second call (a late recoverer) finds nothing */
	assert_int_equal(state_recover_pid(fx->run, run, NULL, NULL), 0);
	{
		char path[160];

		snprintf(path, sizeof(path), "%s/%d.journal", fx->run, (int)run);
		assert_int_equal(access(path, F_OK), -1);
		snprintf(path, sizeof(path), "%s/%d.lock", fx->run, (int)run);
		assert_int_equal(access(path, F_OK), -1);
	}
	close(go[0]);
	close(go[1]);
	close(ready[0]);
	close(ready[1]);
	close(done[0]);
	close(done[1]);
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

/*
 * A pid appended to a pid list comes out again, and only it: on restore,
 * in the fatal-signal path, and by the next run after a SIGKILL. (Plain
 * files here: O_APPEND adds, O_TRUNC empties, as the kernel's lists do.)
 */
static void test_state_append_pid(void **state)
{
	struct fx *fx = *state;
	struct state *st;
	char big[70000];
	pid_t pid;
	int status, n = -1;

	put(fx->root, "set_event_notrace_pid", "3\n7\n12\n");
	put(fx->root, "set_ftrace_notrace_pid", "no pid\n");
	assert_int_equal(state_open(fx->tfs, fx->run, &st), 0);
	assert_int_equal(state_append_pid(st, "set_event_notrace_pid", 9), 0);
	assert_int_equal(state_append_pid(st, "set_ftrace_notrace_pid", 9), 0);
	/* a pid already there is its owner's: nothing journaled, nothing written */
	assert_int_equal(state_append_pid(st, "set_event_notrace_pid", 12), 0);
	assert_string_equal(get(fx, "set_event_notrace_pid"), "3\n7\n12\n9");
	assert_string_equal(get(fx, "set_ftrace_notrace_pid"), "no pid\n9");
	/* the user adds one meanwhile: it stays */
	put(fx->root, "set_event_notrace_pid", "3\n7\n9\n12\n99\n");
	assert_int_equal(state_restore(st), 0);
	state_free(st);
	assert_string_equal(get(fx, "set_event_notrace_pid"), "3 7 12 99 ");
	assert_string_equal(get(fx, "set_ftrace_notrace_pid"), "");

	/* the fatal-signal path */
	put(fx->root, "set_event_notrace_pid", "5\n");
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (state_open(fx->tfs, fx->run, &st) ||
		    state_append_pid(st, "set_event_notrace_pid", 77))
			_exit(1);
		state_emergency_restore();
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_string_equal(get(fx, "set_event_notrace_pid"), "5 ");

	/* SIGKILL: the next run's recovery */
	put(fx->root, "set_event_notrace_pid", "");
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (state_open(fx->tfs, fx->run, &st) ||
		    state_append_pid(st, "set_event_notrace_pid", 4242))
			_exit(1);
		raise(SIGKILL);
		_exit(2);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_string_equal(get(fx, "set_event_notrace_pid"), "4242");
	assert_int_equal(state_recover(fx->tfs, fx->run, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(get(fx, "set_event_notrace_pid"), "");

	/* a list too long to hold is not rewritten, and the undo says so */
	memset(big, '1', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	put(fx->root, "set_event_notrace_pid", big);
	assert_int_equal(state_open(fx->tfs, fx->run, &st), 0);
	assert_int_equal(state_append_pid(st, "set_event_notrace_pid", 8), 0);
	assert_int_equal(state_restore(st), -E2BIG);
	state_free(st);
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

/*
 * trace_clock reads as the list with the choice in brackets; the kernel
 * takes only a name back, so the journal keeps the choice. Other files keep
 * their whole value, brackets and all.
 */
static void test_state_trace_clock_choice(void **state)
{
	struct fx *fx = *state;
	struct state *st;

	mkdir(strcat(strcpy((char[128]){ 0 }, fx->root), "/instances/x"), 0755);
	put(fx->root, "instances/x/trace_clock", "[local] global counter x86-tsc\n");
	put(fx->root, "options/stackmap", "[a] b\n");
	assert_int_equal(state_open(fx->tfs, fx->run, &st), 0);
	assert_int_equal(state_write(st, "instances/x/trace_clock", "x86-tsc"), 0);
	assert_int_equal(state_write(st, "options/stackmap", "1"), 0);
	assert_string_equal(state_original(st, "instances/x/trace_clock"), "local");
	assert_int_equal(state_restore(st), 0);
	state_free(st);
	assert_string_equal(get(fx, "instances/x/trace_clock"), "local");
	assert_string_equal(get(fx, "options/stackmap"), "[a] b");
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
	assert_true(state_pid_is_stacktop(fx->run, pid, NULL));
	assert_int_equal(state_recover(fx->tfs, fx->run, &n), 0);
	assert_int_equal(n, 0);
	assert_string_equal(get(fx, "options/stackmap"), "1");
	assert_int_equal(write(done[1], "x", 1), 1);
	waitpid(pid, &status, 0);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_string_equal(get(fx, "options/stackmap"), "0");
	assert_false(state_pid_is_stacktop(fx->run, pid, NULL));
}

/* no lock file: a process named "stacktop" is no stacktop unless it is older than what names it */
static void test_state_alive_not_by_comm(void **state)
{
	struct fx *fx = *state;
	struct timespec before, after;
	int go[2], status;
	pid_t pid;
	char c;

	clock_gettime(CLOCK_REALTIME, &before);
	before.tv_sec -= 5;
	assert_int_equal(pipe(go), 0);
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_NAME, "stacktop", 0, 0, 0);
		close(go[1]);
		if (read(go[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(go[0]);
	usleep(50 * 1000);
	clock_gettime(CLOCK_REALTIME, &after);
	after.tv_sec += 5;
	assert_false(state_pid_is_stacktop(fx->run, pid, NULL));
	assert_false(state_pid_is_stacktop(fx->run, pid, &before));
	assert_true(state_pid_is_stacktop(fx->run, pid, &after));
	close(go[1]);
	waitpid(pid, &status, 0);
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
	umask(0);
	f = export_create_file(fresh);
	umask(022);
	assert_non_null(f);
	fclose(f);
	/* kernel addresses: for its owner only, whatever the umask */
	{
		struct stat sb;

		assert_int_equal(stat(fresh, &sb), 0);
		assert_int_equal(sb.st_mode & 07777, 0600);
	}
}

static void mkpath(const char *a, const char *b, char *out, size_t size)
{
	snprintf(out, size, "%s/%s", a, b);
}

/*
 * A symlink in the middle of a path below the root, as someone who could
 * write the tree would plant it: every write, read, mkdir, rmdir and the
 * async-signal-safe restore refuse it, with openat2() and with the
 * component walk older kernels get.
 */
static void check_no_symlink(struct fx *fx, const char *target)
{
	char p[256], *b;

	assert_int_equal(tfs_write(fx->tfs, "events/sched/enable", "1"), -ELOOP);
	assert_int_equal(tfs_read(fx->tfs, "events/sched/enable", &b, NULL), -ELOOP);
	assert_int_equal(tfs_open_file(fx->tfs, "events/sched/enable", O_RDONLY), -ELOOP);
	assert_false(tfs_exists(fx->tfs, "events/sched/enable"));
	assert_true(tfs_mkdir(fx->tfs, "events/sched/newdir") < 0);
	assert_int_equal(tfs_write(fx->tfs, "../escape", "1"), -EXDEV);
	assert_int_equal(tfs_write(fx->tfs, "options/../../escape", "1"), -EXDEV);
	assert_int_equal(tfs_write(fx->tfs, "/etc/hostname", "1"), -EXDEV);
	/* the last component a symlink: refused too */
	assert_int_equal(tfs_write(fx->tfs, "options/link", "1"), -ELOOP);
	mkpath(target, "enable", p, sizeof(p));
	{
		FILE *f = fopen(p, "r");
		char got[32] = "";

		assert_non_null(f);
		assert_non_null(fgets(got, sizeof(got), f));
		fclose(f);
		assert_string_equal(got, "root-owned original\n");
	}
	mkpath(target, "newdir", p, sizeof(p));
	assert_int_equal(access(p, F_OK), -1);
	/* the plain paths still work */
	assert_int_equal(tfs_write(fx->tfs, "options/stackmap", "1"), 0);
	assert_string_equal(get(fx, "options/stackmap"), "1");
	assert_int_equal(tfs_mkdir(fx->tfs, "instances/x"), 0);
	assert_true(tfs_exists(fx->tfs, "instances/x"));
	assert_int_equal(tfs_rmdir(fx->tfs, "instances/x"), 0);
}

static void plant(struct fx *fx, char *target, size_t size)
{
	char p[256];

	snprintf(target, size, "%s-target", fx->root);
	assert_int_equal(mkdir(target, 0755), 0);
	put(target, "enable", "root-owned original\n");
	mkpath(fx->root, "events", p, sizeof(p));
	assert_int_equal(mkdir(p, 0755), 0);
	mkpath(fx->root, "events/sched", p, sizeof(p));
	assert_int_equal(symlink(target, p), 0);
	mkpath(target, "enable", p, sizeof(p));
	mkpath(fx->root, "options/link", p + 128, sizeof(p) - 128);
	assert_int_equal(symlink(p, p + 128), 0);
}

static void unplant(const char *target)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", target);
	assert_int_equal(system(cmd), 0);
}

static void test_tfs_no_symlink(void **state)
{
	struct fx *fx = *state;
	char target[128];

	plant(fx, target, sizeof(target));
	check_no_symlink(fx, target);
	unplant(target);
}

/* leftovers of killed runs: a journal being saved, an old top-level lock file */
static void test_state_recover_housekeeping(void **state)
{
	struct fx *fx = *state;
	char path[256];
	int n = -1;

	snprintf(path, sizeof(path), "%s/999994.journal.tmp", fx->run);
	put(fx->run, "999994.journal.tmp", "stacktop-journal 1\n");
	put(fx->run, "top-2a-1.lock", "999993\n");
	assert_int_equal(state_recover(fx->tfs, fx->run, &n), 0);
	assert_int_equal(access(path, F_OK), -1);
	snprintf(path, sizeof(path), "%s/top-2a-1.lock", fx->run);
	assert_int_equal(access(path, F_OK), -1);
}

/* a refused directory is not "could not undo": recovery has nothing to say */
static void test_state_recover_unsafe_rundir_quiet(void **state)
{
	struct fx *fx = *state;
	char open_dir[128];
	int n = -1;

	snprintf(open_dir, sizeof(open_dir), "%s-open", fx->root);
	assert_int_equal(mkdir(open_dir, 0700), 0);
	assert_int_equal(chmod(open_dir, 0777), 0);
	assert_int_equal(state_recover(fx->tfs, open_dir, &n), 0);
	assert_int_equal(n, 0);
	rmdir(open_dir);
}

/* a full disk reads as one, and a failed start leaves no file behind */
static void test_state_full_disk(void **state)
{
	struct fx *fx = *state;
	char mnt[128], path[256], buf[4096];
	struct state *st;
	struct dirent *de;
	int fd, files = 0;
	DIR *d;

	if (geteuid() != 0)
		skip();
	snprintf(mnt, sizeof(mnt), "%s-full", fx->root);
	assert_int_equal(mkdir(mnt, 0700), 0);
	if (mount("tmpfs", mnt, "tmpfs", 0, "size=64k,mode=0700") < 0) {
		rmdir(mnt);
		skip();
	}
	snprintf(path, sizeof(path), "%s/fill", mnt);
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	memset(buf, 'x', sizeof(buf));
	while (write(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
	assert_int_equal(state_open(fx->tfs, mnt, &st), -ENOSPC);
	d = opendir(mnt);
	assert_non_null(d);
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && strcmp(de->d_name, "fill"))
			files++;
	closedir(d);
	assert_int_equal(files, 0);
	umount2(mnt, MNT_DETACH);
	rmdir(mnt);
}

/* the top-level claim holds across journal directories and leaves no file */
static void test_state_lock_top_any_rundir(void **state)
{
	struct fx *fx = *state;
	char run2[128], c;
	int go[2], done[2], status, owner = -1, files = 0;
	struct state *st;
	struct dirent *de;
	pid_t pid;
	DIR *d;

	snprintf(run2, sizeof(run2), "%s-run2", fx->root);
	assert_int_equal(mkdir(run2, 0700), 0);
	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(done), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct state *cst;
		int o;

		/* the parent's ends: a failed parent must not leave us waiting */
		close(go[0]);
		close(done[1]);
		if (state_open(fx->tfs, fx->run, &cst) || state_lock_top(cst, &o))
			_exit(1);
		if (write(go[1], "x", 1) != 1 || read(done[0], &c, 1) != 1)
			_exit(1);
		state_restore(cst);
		state_free(cst);
		_exit(0);
	}
	close(go[1]);
	close(done[0]);
	assert_int_equal(read(go[0], &c, 1), 1);
	assert_int_equal(state_open(fx->tfs, run2, &st), 0);
	assert_int_equal(state_lock_top(st, &owner), -EBUSY);
	assert_int_equal(owner, pid);
	assert_int_equal(write(done[1], "x", 1), 1);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(state_lock_top(st, &owner), 0);
	assert_int_equal(state_restore(st), 0);
	state_free(st);
	d = opendir(fx->run);
	assert_non_null(d);
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			files++;
	closedir(d);
	assert_int_equal(files, 0);
	rmdir(run2);
}

static void test_tfs_no_symlink_walk(void **state)
{
	struct fx *fx = *state;
	char target[128];

	plant(fx, target, sizeof(target));
	tfs_test_disable_openat2();
	check_no_symlink(fx, target);
	unplant(target);
}

/* the fatal-signal restore: a directory swapped for a symlink after the journal entry */
static void test_state_emergency_no_symlink(void **state)
{
	struct fx *fx = *state;
	char target[128], p[256], got[64] = "";
	int status;
	pid_t pid;
	FILE *f;

	snprintf(target, sizeof(target), "%s-target", fx->root);
	assert_int_equal(mkdir(target, 0755), 0);
	put(target, "enable", "root-owned original\n");
	mkpath(fx->root, "events", p, sizeof(p));
	assert_int_equal(mkdir(p, 0755), 0);
	mkpath(fx->root, "events/sched", p, sizeof(p));
	assert_int_equal(mkdir(p, 0755), 0);
	put(fx->root, "events/sched/enable", "0\n");
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct state *st;
		char cmd[512];

		if (state_open(fx->tfs, fx->run, &st) ||
		    state_write(st, "events/sched/enable", "1"))
			_exit(1);
		snprintf(cmd, sizeof(cmd),
			 "rm -rf '%s/events/sched' && ln -s '%s' '%s/events/sched'", fx->root,
			 target, fx->root);
		if (system(cmd) != 0)
			_exit(2);
		state_emergency_restore();
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	mkpath(target, "enable", p, sizeof(p));
	f = fopen(p, "r");
	assert_non_null(f);
	assert_non_null(fgets(got, sizeof(got), f));
	fclose(f);
	assert_string_equal(got, "root-owned original\n");
	unplant(target);
}

/* roots another user could change: refused, as is a journal naming one */
static void test_tfs_refuses_unsafe_root(void **state)
{
	struct fx *fx = *state;
	char dir[128], path[256], got[64] = "";
	struct tfs *t;
	FILE *f;
	int n = -1;

	if (geteuid() != 0)
		skip();
	snprintf(dir, sizeof(dir), "%s-nobody", fx->root);
	assert_int_equal(mkdir(dir, 0755), 0);
	mkpath(dir, "options", path, sizeof(path));
	assert_int_equal(mkdir(path, 0755), 0);
	put(dir, "options/stackmap", "keep\n");
	assert_int_equal(chown(dir, 65534, 65534), 0);
	assert_int_equal(tfs_open(dir, &t), -EPERM);
	/* root-owned but group/world-writable */
	assert_int_equal(chown(dir, 0, 0), 0);
	assert_int_equal(chmod(dir, 0777), 0);
	assert_int_equal(tfs_open(dir, &t), -EPERM);
	assert_int_equal(chmod(dir, 0775), 0);
	assert_int_equal(tfs_open(dir, &t), -EPERM);
	assert_int_equal(chmod(dir, 0755), 0);
	assert_int_equal(tfs_open(dir, &t), 0);
	tfs_close(t);

	/* a dead run's journal that names the unsafe root: not replayed, kept */
	assert_int_equal(chown(dir, 65534, 65534), 0);
	snprintf(path, sizeof(path), "%s/999995.journal", fx->run);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "stacktop-journal 1\npid 999995\nroot ");
	for (const char *p = dir; *p; p++)
		fprintf(f, "%02x", (unsigned char)*p);
	fprintf(f, "\nW 6f7074696f6e732f737461636b6d6170 30\n"); /* options/stackmap = 0 */
	fclose(f);
	assert_int_equal(state_recover(fx->tfs, fx->run, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(access(path, F_OK), 0);
	mkpath(dir, "options/stackmap", path, sizeof(path));
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(got, sizeof(got), f));
	fclose(f);
	assert_string_equal(got, "keep\n");

	/* a safe root, but the recorded path now leads there through a symlink */
	{
		char link[160];

		assert_int_equal(chown(dir, 0, 0), 0);
		snprintf(link, sizeof(link), "%s-link", dir);
		assert_int_equal(symlink(dir, link), 0);
		snprintf(path, sizeof(path), "%s/999995.journal", fx->run);
		f = fopen(path, "w");
		assert_non_null(f);
		fprintf(f, "stacktop-journal 1\npid 999995\nroot ");
		for (const char *p = link; *p; p++)
			fprintf(f, "%02x", (unsigned char)*p);
		fprintf(f, "\nW 6f7074696f6e732f737461636b6d6170 30\n");
		fclose(f);
		assert_int_equal(state_recover(fx->tfs, fx->run, &n), 0);
		assert_int_equal(n, 0);
		assert_int_equal(access(path, F_OK), 0);
		unlink(link);
	}
	mkpath(dir, "options/stackmap", path, sizeof(path));
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(got, sizeof(got), f));
	fclose(f);
	assert_string_equal(got, "keep\n");
	unplant(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_state_restore_newest_first, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_failed_write_forgotten, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_recover_killed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_recover_noted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_recover_pid_waits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_append_undo, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_append_pid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_trace_clock_choice, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_odd_values, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_live_process_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_alive_not_by_comm, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_many_writes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_recover_leftovers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_refuses_unsafe_rundir, setup, teardown),
		cmocka_unit_test_setup_teardown(test_export_create_file_safe, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tfs_no_symlink, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_emergency_no_symlink, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tfs_refuses_unsafe_root, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_recover_housekeeping, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_recover_unsafe_rundir_quiet, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_state_full_disk, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_lock_top_any_rundir, setup, teardown),
		/* last: it turns openat2() off for the rest of the process */
		cmocka_unit_test_setup_teardown(test_tfs_no_symlink_walk, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
