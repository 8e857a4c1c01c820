/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * args.h - the command line parsed (args.c) into the run's options
 * (struct session_opts) and what the batch loop and the screen need; the
 * options themselves are the table of options.h.
 */
#ifndef STACKTOP_CLI_ARGS_H
#define STACKTOP_CLI_ARGS_H

#include <stdbool.h>

#include "cli/argset.h"

/**
 * args_parse() - parse the command line into @a, checking what goes
 *	together; errors are printed
 * @argc: argument count
 * @argv: arguments
 * @a: receives the result
 *
 * Return: 0, or the exit status (2: a usage error).
 */
int args_parse(int argc, char **argv, struct args *a);

/**
 * args_apply_view() - a snapshot read back keeps its view (its sort, top,
 *	filters), unless the command line says otherwise: --sort and
 *	--cumulative, --top, --count win; --comm selects among the stacks the
 *	snapshot's own comm filter kept, which is said when they differ
 * @a: arguments
 * @s: the session that read it
 */
void args_apply_view(struct args *a, struct session *s);

/**
 * args_free() - free what args_parse() allocated (the --filter texts)
 */
void args_free(void);

#endif /* STACKTOP_CLI_ARGS_H */
