/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * child_relay.h - the relay of `-- CMD`'s output (child_relay.c): what the
 * command writes on its pty (or pipe), filtered, to stacktop's terminal or
 * stderr; stacktop's terminal input to the pty. For child.c.
 */
#ifndef STACKTOP_CLI_CHILD_RELAY_H
#define STACKTOP_CLI_CHILD_RELAY_H

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "core/ttyfilter.h"

/**
 * struct child_relay - the command's pty (or pipe) and its relay
 * @master: the pty's master, or the pipe's read end (-1: none)
 * @slave: the pty's slave (or the pipe's write end), kept open so the pty
 *	outlives its holders
 * @pty: @master and @slave are a pty's (else a pipe's)
 * @out: where the relay writes the command's output (-1: dropped)
 * @out_own: @out was opened for the relay (a terminal's own non-blocking
 *	description), closed with it
 * @out_tty: @out is a terminal
 * @wrote: the relay wrote to @out
 * @midline: the last byte it wrote ended no line
 * @tty: stacktop's terminal, whose size the pty follows (-1: none)
 * @in: whether the relay feeds stacktop's stdin (a terminal) to the pty
 * @stop: the pipe that stops the relay
 * @thread: the relay thread (while @running)
 * @running: the relay thread runs
 * @tf: what the relay lets through to @out (core/ttyfilter.h: the
 *	command's bytes are its user's, @out is root's terminal)
 */
struct child_relay {
	int master;
	int slave;
	bool pty;
	int out;
	bool out_own;
	bool out_tty;
	bool wrote;
	bool midline;
	char owed[8]; /* the end's reset and line end the terminal did not take */
	size_t nowed;
	dev_t owed_rdev; /* the terminal they are owed to */
	int tty;
	bool in;
	int stop[2];
	pthread_t thread;
	bool running;
	struct ttyfilter tf;
};

/* the relay thread started on @r->master (none without one): 0 or -errno */
int child_relay_start(struct child_relay *r);

/*
 * the relay ended: what is pending relayed within 300 ms and 1 MiB, the
 * terminal's attributes reset and a line begun ended; idempotent
 */
void child_relay_end(struct child_relay *r);

/*
 * what child_relay_end() could not write in time (a slow terminal), written
 * to @report (a stream on @fd) before a report when @fd is that terminal;
 * dropped else
 */
void child_relay_owed(struct child_relay *r, FILE *report, int fd);

/*
 * the descriptor the relay writes to for stacktop's @fd: a terminal's own
 * non-blocking description (a new open of it), else @fd itself
 */
int child_relay_out(int fd);

#endif /* STACKTOP_CLI_CHILD_RELAY_H */
