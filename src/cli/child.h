/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * child.h - `stacktop [OPTION]... -- CMD [ARG]...`: the command stacktop
 * starts and traces (its process tree), as `perf record -- CMD` does.
 *
 * It is forked first thing, before any thread, handler or guardian: the
 * child starts a session of its own (setsid: no controlling terminal, no
 * way to the terminal stacktop runs on), drops root for the user sudo
 * names (SUDO_UID, SUDO_GID, that user's groups), sets its name to the
 * command's and waits on a pipe. The session is then opened with its pid
 * as -p's, following its descendants (session_opts.pid_tree), and only
 * once tracing is on does child_release() let it exec: its first events
 * are seen. If stacktop ends before that (an error, a kill), the pipe's
 * end of file makes the child exit without running anything.
 *
 * Like sudo's use_pty: when stacktop runs on a terminal, the command gets
 * a pseudo-terminal of its own (its controlling tty, and each of its
 * stdin, stdout, stderr that would have been the terminal) whose master
 * stacktop holds and relays; whatever the command pushes into that pty's
 * input (TIOCSTI) stays there. Without a terminal it has no controlling
 * tty at all. Every file descriptor past stderr is closed at its exec.
 *
 * Its standard input, output and error: in batch mode stacktop's (a
 * terminal's replaced by the pty: its output relayed to stacktop's
 * terminal, stacktop's terminal input relayed to it while stacktop is in
 * the foreground); on the screen, stdin is /dev/null, and stdout and
 * stderr go to stacktop's stderr when that is not the terminal
 * (`stacktop -- make 2>make.log`), else to the pty, whose output is read
 * and dropped. A stop signal stacktop takes (a ^C) is passed on to it.
 *
 * Its environment is reset as sudo's env_reset does (PATH a safe default,
 * HOME, SHELL, USER, LOGNAME of the user it runs as, TERM, LANG, LANGUAGE,
 * LC_*), unless --preserve-env keeps all or some of stacktop's.
 *
 * From its release on stacktop is a child subreaper: a descendant whose
 * parent ends (a daemon's double fork, setsid and all) becomes stacktop's
 * child, and child_finish() ends every process below stacktop, not only
 * the command.
 */
#ifndef STACKTOP_CLI_CHILD_H
#define STACKTOP_CLI_CHILD_H

#include <pthread.h>
#include <stdbool.h>
#include <sys/types.h>

#include "core/ttyfilter.h"

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
 * @master: its pty's master (-1 without a pty)
 * @slave: its pty's slave, kept open so the pty outlives its holders
 * @out: where the relay writes the pty's output (-1: dropped)
 * @tty: stacktop's terminal, whose size the pty follows (-1: none)
 * @in: whether the relay feeds stacktop's stdin (a terminal) to the pty
 * @stop: the pipe that stops the relay
 * @relay: the relay thread (while @relaying)
 * @relaying: the relay thread runs
 * @envp: its environment (NULL-terminated, owned)
 * @tf: what the relay lets through to @out (core/ttyfilter.h: the
 *	command's bytes are its user's, @out is root's terminal)
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
	int master;
	int slave;
	int out;
	int tty;
	bool in;
	int stop[2];
	pthread_t relay;
	bool relaying;
	char **envp;
	struct ttyfilter tf;
};

/**
 * child_start() - fork the command, waiting for child_release()
 * @c: receives it
 * @argv: the command and its arguments (NULL-terminated)
 * @screen: the screen will draw on the terminal: the command gets none
 * @preserve_env: NULL: a reset environment; "" (--preserve-env): all of
 *	stacktop's; "VAR,VAR": the reset one plus these of stacktop's
 *
 * Return: 0, or -errno (said on stderr).
 */
int child_start(struct child *c, char **argv, bool screen, const char *preserve_env);

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
 * Never released: it exits without running. Else, when a stop signal
 * ended the trace, that signal goes to every process of its tree first
 * (300 ms for the command to end); then SIGTERM (as perf record does) to
 * every process still below stacktop, up to 2 s, then SIGKILL until none
 * is left. Reaped in every case; the pty's relay stopped and closed.
 */
void child_finish(struct child *c, bool signalled);

/**
 * child_exit_status() - stacktop's exit status for how the command ended:
 *	its own, or 128+N when signal N killed it
 * @c: the command (reaped)
 */
int child_exit_status(const struct child *c);

#endif /* STACKTOP_CLI_CHILD_H */
