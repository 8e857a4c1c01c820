/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * guard.h - a guardian process that restores tracefs when stacktop dies
 * in a way no handler sees (SIGKILL, the OOM killer, a kill of its whole
 * process group).
 *
 * guard_start(), early in main (before any thread starts, before curses,
 * before the signal handlers), forks twice: the grandchild makes a session
 * of its own (setsid: a kill of stacktop's process group, a ^C or a hang-up
 * of its terminal does not reach it) and executes stacktop again as
 * `stacktop-guard --guardian PID RUNDIR`, a fresh image (no handlers,
 * curses, sanitizer state or memory of the parent's), its stdin the read
 * end of a pipe whose only write end stacktop holds, stdout and stderr
 * /dev/null, its working directory "/". It holds no tracefs descriptor, so
 * nothing of it keeps an instance busy.
 *
 * guard_run() is that process: it blocks in read() on the pipe and
 * nothing else. A byte 'D' is stacktop's clean exit (guard_done(): its own
 * restore left no journal): it exits. End of file is stacktop's death (or
 * its fatal-signal path, which closes every descriptor but three before
 * restoring): it calls state_recover_pid(), which waits until stacktop no
 * longer holds <pid>.lock (so it never restores while stacktop still can,
 * and never in the middle of stacktop's own restore), claims the journal
 * by rename (so it and a later run undo it once between them) and undoes
 * it on the root the journal names, with the same checks as --tracefs.
 * SIGHUP, SIGINT, SIGTERM, SIGQUIT and the job-control signals are
 * ignored: it ends on its own as soon as stacktop has.
 */
#ifndef STACKTOP_GUARD_H
#define STACKTOP_GUARD_H

/* the hidden first argument of the guardian's command line */
#define GUARD_ARG "--guardian"

/**
 * guard_start() - start the guardian of this process's journal
 * @rundir: journal directory (--rundir); NULL for /run/stacktop
 *
 * Returns once the guardian has executed (or failed to); never blocks
 * longer than a second.
 *
 * Return: 0, or -errno when there is no guardian (a SIGKILL then leaves
 * the journal to the next run, as without one).
 */
int guard_start(const char *rundir);

/**
 * guard_done() - tell the guardian this is a clean exit
 *
 * When the journal is gone (the restore undid everything) the guardian is
 * told it has nothing to do; otherwise the pipe is only closed, and the
 * guardian tries what is left once this process has ended. A no-op
 * without a guardian.
 */
void guard_done(void);

/**
 * guard_run() - the guardian's body (guard_start()'s grandchild, whose
 *	command line cli/main.c checked: `stacktop-guard --guardian PID
 *	RUNDIR`, its stdin the pipe)
 * @pid: the stacktop it guards
 * @rundir: its journal directory; NULL for /run/stacktop
 *
 * Return: the exit status: 0, or 1 when something could not be undone
 * (it stays journaled for the next run).
 */
int guard_run(int pid, const char *rundir);

#endif /* STACKTOP_GUARD_H */
