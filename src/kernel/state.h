/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * state.h - remember what stacktop changes in tracefs, and undo it.
 *
 * Every change goes through this module: before a file is written, its
 * original value is appended to an in-memory journal and the journal is
 * saved atomically (temporary file + rename, O_NOFOLLOW, in a root-owned
 * 0700 directory, /run/stacktop by default) as <pid>.journal. Then the
 * change is made. state_restore() undoes the changes in reverse order and
 * deletes the journal.
 *
 * If stacktop is killed (SIGKILL, a crash the handlers could not catch, a
 * power cut of the tty), the journal stays; the next run calls
 * state_recover() before it changes anything, which undoes the journals of
 * dead pids. A process is alive while it holds an flock() on
 * <rundir>/<pid>.lock (the kernel drops it however the process ends).
 *
 * state_emergency_restore() is the async-signal-safe variant used from
 * fatal signal handlers: it only makes plain system calls (tfs_resolve():
 * openat2 or an O_NOFOLLOW walk, write, close, unlinkat) on data prepared
 * when the journal was written, so it follows no symlink either.
 */
#ifndef STACKTOP_STATE_H
#define STACKTOP_STATE_H

#include <stdbool.h>
#include <time.h>
#include <stddef.h>

struct tfs;
struct state;

/**
 * state_open() - start a journal for this process
 * @tfs: tracefs root the changes apply to (borrowed; must outlive the state)
 * @rundir: journal directory; NULL for /run/stacktop
 * @ret: the journal
 *
 * Return: 0, -EPERM when @rundir is not a root-owned private directory or is
 * a symlink, -ENOSPC/-EDQUOT when the journal cannot be written (nothing is
 * left behind), -errno.
 */
int state_open(struct tfs *tfs, const char *rundir, struct state **ret);

/**
 * state_write() - set a tracefs file, remembering its original value
 * @st: journal
 * @rel: path relative to the tracefs root
 * @value: new contents
 *
 * Nothing is written (and nothing remembered) when the file already reads
 * as @value.
 *
 * Return: 0, or -errno from the kernel (the journal then forgets the entry).
 */
int state_write(struct state *st, const char *rel, const char *value);

/**
 * state_append() - append a line to a tracefs file (O_APPEND, no O_TRUNC),
 * remembering the line that undoes it
 * @st: journal
 * @rel: path relative to the tracefs root (kprobe_events, a trigger file)
 * @line: what to append now (`p:GRP/EV SYM`, `stacktrace if ...`)
 * @undo: what restore appends to the same file (`-:GRP/EV`, `!stacktrace`);
 *        an undo that finds nothing to remove (ENOENT) counts as done
 *
 * The undo is journaled before the change is made.
 *
 * Return: 0, or -errno from the kernel (the journal then forgets the entry).
 */
int state_append(struct state *st, const char *rel, const char *line, const char *undo);

/**
 * state_append_pid() - add @pid to a pid list (set_event_notrace_pid,
 *	set_ftrace_notrace_pid: appended, as `>>` does, to what the list holds),
 *	remembering to take exactly that pid out again
 * @st: journal
 * @rel: path relative to the tracefs root
 * @pid: the pid
 *
 * A list that holds @pid already is left alone (its owner put it there).
 * The undo reads the list and writes it back without @pid: the kernel has
 * no write that removes one pid. A list of more than some 9000 pids (64 KiB)
 * is not rewritten: the undo fails with -E2BIG and the journal is kept.
 *
 * Return: 0, or -errno from the kernel (the journal then forgets the entry).
 */
int state_append_pid(struct state *st, const char *rel, int pid);

/**
 * state_mkdir() - create an instance directory that restore will remove
 * @st: journal
 * @rel: path relative to the tracefs root
 *
 * Return: 0 or -errno.
 */
int state_mkdir(struct state *st, const char *rel);

/**
 * state_lock_top() - claim the top-level tracing of this tracefs
 * @st: journal
 * @ret_owner: on -EBUSY, the pid holding it (0 if unknown)
 *
 * The stackmap option, stacktrace and tracing_on of the top level are
 * global: two stacktops changing them would each restore the other's
 * values. The claim is an flock() on the tracefs root directory itself, so
 * it does not depend on the journal directory (two runs with different
 * --rundir still exclude each other) and leaves no file behind; the kernel
 * drops it when the process ends, however it ends. The owner's pid comes
 * from /proc/locks.
 *
 * Return: 0, -EBUSY when another process holds it, -errno.
 */
int state_lock_top(struct state *st, int *ret_owner);

/**
 * state_original() - the value a file had before stacktop changed it
 * @st: journal
 * @rel: path
 *
 * Return: the remembered value (owned by @st), or NULL if unchanged.
 */
const char *state_original(struct state *st, const char *rel);

/**
 * state_restore() - undo every change, newest first, and delete the journal
 * @st: journal
 *
 * Return: 0, or the first -errno met (the other entries are still undone;
 * the journal is kept so that a later run can finish).
 */
int state_restore(struct state *st);

/**
 * state_free() - free the journal (restore first); NULL is a no-op
 * @st: journal
 */
void state_free(struct state *st);

/**
 * state_recover() - undo the journals that dead stacktop processes left
 * @tfs: tracefs root
 * @rundir: journal directory; NULL for /run/stacktop
 * @ret_count: if not NULL, journals undone
 *
 * Journals of live stacktop processes are left alone. A journal for another
 * tracefs root is undone on that root if it is still a directory and passes
 * tfs_check_root(); otherwise it is kept, not replayed, with a warning.
 * Temporary journals (<pid>.journal.tmp) and lock files of dead pids are
 * removed. An unsafe @rundir is not read (0 is returned: state_open()
 * refuses it with its own error).
 *
 * Return: 0 or the first -errno met.
 */
int state_recover(struct tfs *tfs, const char *rundir, int *ret_count);

/* the longest text a state_note_fn is given, with its NUL */
#define STATE_NOTE_MAX 400

/**
 * typedef state_note_fn - told what the recovery of a killed run undid
 * @ctx: the caller's
 * @pid: the killed run's pid
 * @err: 0, or the first -errno met (what could not be undone stays
 *       journaled for a later run)
 * @what: what was undone, for a person, sanitized: "removed instance
 *        stacktop.1234", "restored options/stackmap=0, tracing_on=1;
 *        removed kprobe stacktop_1234/vfs_read"
 */
typedef void (*state_note_fn)(void *ctx, int pid, int err, const char *what);

/**
 * state_recover_noted() - state_recover(), telling what each journal undid
 * @tfs: tracefs root
 * @rundir: journal directory; NULL for /run/stacktop
 * @note: called once per journal undone (or that could not be undone but
 *        for a refused root, which is warned about); may be NULL
 * @ctx: its argument
 * @ret_count: if not NULL, journals undone
 *
 * Return: as state_recover().
 */
int state_recover_noted(struct tfs *tfs, const char *rundir, state_note_fn note, void *ctx,
			int *ret_count);

/**
 * state_recover_pid() - undo the journal of one stacktop once it is done
 *	with it (the guardian, kernel/guard.h)
 * @rundir: journal directory; NULL for /run/stacktop
 * @pid: the stacktop
 * @note: told what was undone (may be NULL)
 * @ctx: its argument
 *
 * A journal is its process's while that process holds <pid>.lock (from
 * state_open() to state_free() or its death; its main path, its signal
 * handlers and its threads share it between them). This call blocks until
 * the kernel drops that lock, then claims the journal by rename as
 * state_recover() does, so a later run recovering at the same time undoes
 * it at most once between them, and undoes it on the root the journal
 * names (tfs_open(): the same checks as --tracefs).
 *
 * Return: 1 when a journal was undone, 0 when there was none, -errno.
 */
int state_recover_pid(const char *rundir, int pid, state_note_fn note, void *ctx);

/**
 * state_pid_is_stacktop() - whether @pid is a running stacktop process
 * @rundir: journal directory; NULL for /run/stacktop
 * @pid: pid
 * @since: when what names @pid (an instance stacktop.<pid>) was made
 *	(its ctime), or NULL
 *
 * Every stacktop holds an flock() on <rundir>/<pid>.lock while it lives, so
 * the answer does not depend on the binary's name. A pid without that file
 * (a run with another --rundir, an older version) counts as alive only when
 * a process at @pid started before @since: a pid reused since, by any user
 * under any name, does not. Never judged by the process's name.
 */
bool state_pid_is_stacktop(const char *rundir, int pid, const struct timespec *since);

/**
 * state_emergency_restore() - async-signal-safe restore of the current journal
 */
void state_emergency_restore(void);

/**
 * state_emergency_restore_from_thread() - state_emergency_restore() from
 * another thread than the one that keeps the journal (the signals'
 * watchdog), once that one is not changing it
 * @wait_ms: how long to wait for it to finish a change (or its own restore)
 *
 * The journal stays the watchdog's: a push, pop, restore or free of the
 * main thread after this waits forever (the process is about to end).
 *
 * Return: true when it restored, false when the main path held the journal
 * all that time (what it did not undo stays journaled for the next run).
 */
bool state_emergency_restore_from_thread(unsigned int wait_ms);

#endif /* STACKTOP_STATE_H */
