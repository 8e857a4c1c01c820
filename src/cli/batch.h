/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * batch.h - the batch mode (-b, or stdout not a terminal): refresh after
 * refresh, drain for the interval, tick, write the report (stdout or -o's
 * files, in --format), or the diff against BEFORE.
 */
#ifndef STACKTOP_CLI_BATCH_H
#define STACKTOP_CLI_BATCH_H

struct args;
struct child;
struct serve;
struct session;

/**
 * batch_run() - run the batch mode until -n refreshes, a stop signal, or
 *	(without -n) the -p processes' exit, or the end of -- CMD's command
 *	(then a last report of what it left; without -d, that one report is
 *	the only one, its interval the command's life)
 * @s: the session
 * @a: the arguments
 * @before: --diff's BEFORE, or NULL
 * @child: -- CMD's command, or NULL
 * @sv: --serve's server, or NULL: given a copy at each refresh, its jobs
 *	done after each read (serve.h)
 *
 * Return: the exit status.
 */
int batch_run(struct session *s, const struct args *a, struct session *before, struct child *child,
	      struct serve *sv);

#endif /* STACKTOP_CLI_BATCH_H */
