/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * child_env.h - the environment of `stacktop -- CMD`'s command (child.h):
 * reset as sudo's env_reset does, unless --preserve-env keeps more.
 */
#ifndef STACKTOP_CLI_CHILD_ENV_H
#define STACKTOP_CLI_CHILD_ENV_H

#include <sys/types.h>

/**
 * child_env() - the environment the command gets
 * @uid: the user it runs as: PATH (sudo's secure_path), HOME, SHELL, USER,
 *	 LOGNAME from its passwd entry (HOME=/, SHELL=/bin/sh without one)
 * @keep: NULL, or "VAR,VAR": these of the process's environment too
 *	  (TERM, LANG, LANGUAGE and LC_* always are)
 *
 * Return: a NULL-terminated array (at most 63 variables) the caller frees
 * with child_env_free(), or NULL when out of memory.
 */
char **child_env(uid_t uid, const char *keep);

/**
 * child_env_free() - free what child_env() returned; NULL is a no-op
 * @env: the environment
 */
void child_env_free(char **env);

#endif /* STACKTOP_CLI_CHILD_ENV_H */
