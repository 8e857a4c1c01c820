/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * args_set.h - each option's value taken into struct args (args_set.c),
 * for args_parse() (args.c): by its table row (a plain one), or by a small
 * function of its own (CLI_K_CODE).
 */
#ifndef STACKTOP_CLI_ARGS_SET_H
#define STACKTOP_CLI_ARGS_SET_H

#include "cli/argset.h"

struct cli_option;

/* what an option's handler tells args_parse(): go on, stop (0: -h), or fail */
#define ARGS_STOP 3

/**
 * args_take_plain() - a plain option (a flag, a string, a bounded number
 *	or size): its table row says it all
 * @a: arguments
 * @o: its row
 * @arg: its value (NULL for none)
 *
 * Return: 0, 2 refused (said), 1 for a row of kind CLI_K_CODE.
 */
int args_take_plain(struct args *a, const struct cli_option *o, const char *arg);

/**
 * args_take_code() - an option with logic of its own (CLI_K_CODE)
 * @a: arguments
 * @c: its getopt id
 * @arg: its value (NULL for none)
 *
 * Return: 0, ARGS_STOP (-h), 2 refused (said) or 1 (out of memory).
 */
int args_take_code(struct args *a, int c, const char *arg);

/**
 * args_set_free() - free the --filter texts args_take_code() made
 */
void args_set_free(void);

#endif /* STACKTOP_CLI_ARGS_SET_H */
