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
 * Its standard output and error are never one of stacktop's descriptors
 * (the command could truncate or rewrite root's report through it): they
 * are the pty, or without a terminal a pipe, whose output stacktop relays
 * (child_relay.c), filtered: in batch mode to stacktop's stdout when that
 * is the terminal, else to its stderr (`stacktop -b -- make > report.txt`:
 * make's output on the terminal, the report alone in the file); on the
 * screen to stacktop's stderr when that is not the terminal (`stacktop --
 * make 2>make.log`), else nowhere. Its standard input: in batch mode
 * stacktop's (a terminal's replaced by the pty, stacktop's terminal input
 * relayed to it while stacktop is in the foreground); on the screen
 * /dev/null. The relay ends before the last report (child_output_end():
 * bounded, the terminal's attributes reset), so nothing the command's tree
 * writes after it, nor a process outside the tree holding the pty,
 * reaches root's terminal after or over the report. A stop signal
 * stacktop takes (a ^C) is passed on to it.
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

#include <stdbool.h>
#include <sys/types.h>

#include "cli/child_relay.h"

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
 * @rl: its pty (or pipe) and the relay of its output (child_relay.h)
 * @envp: its environment (NULL-terminated, owned)
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
	struct child_relay rl;
	char **envp;
};

/**
 * child_start() - fork the command, waiting for child_release()
 * @c: receives it
 * @argv: the command and its arguments (NULL-terminated)
 * @screen: the screen will draw on the terminal: the command gets none
 * @report_out: (batch) the reports are written to stdout: the command's
 *	output is relayed to stderr then, unless stdout is the terminal
 * @preserve_env: NULL: a reset environment; "" (--preserve-env): all of
 *	stacktop's; "VAR,VAR": the reset one plus these of stacktop's
 *
 * Return: 0, or -errno (said on stderr).
 */
int child_start(struct child *c, char **argv, bool screen, bool report_out,
		const char *preserve_env);

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
 * child_ended() - whether the command has ended (reaped if so); never
 * blocks, but for the relay's end once it has (child_output_end())
 * @c: the command
 */
bool child_ended(struct child *c);

/**
 * child_output_end() - the relay of the command's output ends, before a
 * last report: what is pending relayed within 300 ms and 1 MiB, the
 * terminal's attributes reset (SGR 0) and a line begun ended; nothing is
 * relayed after. Idempotent; child_ended() (once it has) and
 * child_finish() call it too. What a slow terminal did not take of the
 * reset and the line end in time is written to @report first when @fd,
 * the descriptor @report writes, is that terminal (the report waits for
 * it anyway).
 * @c: the command
 * @report: where the report goes next, or NULL
 * @fd: the descriptor under @report (a stream of stdio's or a cookie's)
 */
void child_output_end(struct child *c, FILE *report, int fd);

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
