/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * child.h - `stacktop [OPTION]... -- CMD [ARG]...`: the command stacktop
 * starts and traces (its process tree), as `perf record -- CMD` does.
 *
 * It is forked first thing, before any thread, handler or guardian: the
 * child drops root for the user sudo names (SUDO_UID, SUDO_GID, that
 * user's groups; the environment as sudo gave it), sets its name to the
 * command's and waits on a pipe. The session is then opened with its pid
 * as -p's, following its descendants (session_opts.pid_tree), and only
 * once tracing is on does child_release() let it exec: its first events
 * are seen. If stacktop ends before that (an error, a kill), the pipe's
 * end of file makes the child exit without running anything.
 *
 * Its standard input, output and error: stacktop's in batch mode; on the
 * screen, stdin is /dev/null, and stdout and stderr go to stacktop's
 * stderr when that is not the terminal (`stacktop -- make 2>make.log`),
 * else to /dev/null. It stays in stacktop's process group, so a ^C in
 * the terminal reaches both.
 */
#ifndef STACKTOP_CLI_CHILD_H
#define STACKTOP_CLI_CHILD_H

#include <stdbool.h>
#include <sys/types.h>

/**
 * struct child - the command
 * @pid: its pid (0: none)
 * @go: the release pipe's write end (-1 once released)
 * @err: the report pipe's read end: a failed step's errno, end of file
 *       once it executed (-1 once read)
 * @status: its wait status, once @reaped
 * @reaped: it has ended and was waited for
 * @name: its argv[0], sanitized, for messages
 * @what: once reaped, how it ended ("exited with status 3", "was killed
 *        by SIGTERM")
 * @output: where its output went, for the screen's first line ("" when
 *          it kept stacktop's)
 */
struct child {
	pid_t pid;
	int go;
	int err;
	int status;
	bool reaped;
	char name[64];
	char what[96];
	char output[192];
};

/**
 * child_start() - fork the command, waiting for child_release()
 * @c: receives it
 * @argv: the command and its arguments (NULL-terminated)
 * @screen: the screen will draw on the terminal: the command gets none
 *
 * Return: 0, or -errno (said on stderr).
 */
int child_start(struct child *c, char **argv, bool screen);

/**
 * child_release() - let the command run, now that it is traced
 * @c: the command
 *
 * Return: 0, or the exit status stacktop should end with when it could
 * not run (127: not found, 126: not executable or the user could not be
 * taken on), the reason said on stderr.
 */
int child_release(struct child *c);

/**
 * child_ended() - whether the command has ended (reaped if so); never blocks
 * @c: the command
 */
bool child_ended(struct child *c);

/**
 * child_finish() - the trace ends: the command too
 * @c: the command
 * @signalled: a stop signal ended the trace (a ^C reached the command
 *             too: it gets a moment to end on its own)
 *
 * Never released: it exits without running. Still running: SIGTERM (as
 * perf record does), up to 2 s, then SIGKILL. Reaped in every case.
 */
void child_finish(struct child *c, bool signalled);

/**
 * child_exit_status() - stacktop's exit status for how the command ended:
 *	its own, or 128+N when signal N killed it
 * @c: the command (reaped)
 */
int child_exit_status(const struct child *c);

#endif /* STACKTOP_CLI_CHILD_H */
