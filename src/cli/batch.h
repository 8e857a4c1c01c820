/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * batch.h - the batch mode (-b, or stdout not a terminal): refresh after
 * refresh, drain for the interval, tick, write the report (stdout or -o's
 * files, in --format), or the diff against BEFORE.
 */
#ifndef STACKTOP_CLI_BATCH_H
#define STACKTOP_CLI_BATCH_H

struct args;
struct session;

/**
 * batch_run() - run the batch mode until -n refreshes, a stop signal, or
 *	(without -n) the -p processes' exit
 * @s: the session
 * @a: the arguments
 * @before: --diff's BEFORE, or NULL
 *
 * Return: the exit status.
 */
int batch_run(struct session *s, const struct args *a, struct session *before);

#endif /* STACKTOP_CLI_BATCH_H */
