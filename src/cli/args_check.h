/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * args_check.h - the options checked together (args_check.c), for
 * args_parse() (args.c), once all are read.
 */
#ifndef STACKTOP_CLI_ARGS_CHECK_H
#define STACKTOP_CLI_ARGS_CHECK_H

#include "cli/argset.h"

/**
 * args_check_cmd() - -- CMD: what does not go with it
 * @a: arguments
 *
 * Return: 0, or 2 refused (said).
 */
int args_check_cmd(const struct args *a);

/**
 * args_check_together() - the options together, once all are read
 * @a: arguments, completed (the format, the events --offcpu and --weight
 *     trace, a recording's one report)
 *
 * Return: 0, or 2 refused (said).
 */
int args_check_together(struct args *a);

#endif /* STACKTOP_CLI_ARGS_CHECK_H */
