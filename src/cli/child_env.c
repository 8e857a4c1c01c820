// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * child_env.c - the command's environment, reset as sudo's env_reset
 * does (child_env.h).
 */
#include <errno.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/child_env.h"

#define CHILD_ENV_MAX 64 /* variables of the reset environment at most */

/* sudo's secure_path (Debian's sudoers) */
#define CHILD_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

extern char **environ;

/* "NAME=value" into @env (at most CHILD_ENV_MAX - 1 entries, NULL-terminated) */
static int env_add(char **env, int *n, const char *name, const char *val)
{
	size_t len = strlen(name) + strlen(val) + 2;
	int i;

	for (i = 0; i < *n; i++)
		if (!strncmp(env[i], name, strlen(name)) && env[i][strlen(name)] == '=')
			return 0; /* the first one stays */
	if (*n >= CHILD_ENV_MAX - 1)
		return 0;
	env[*n] = malloc(len);
	if (!env[*n])
		return -ENOMEM;
	snprintf(env[*n], len, "%s=%s", name, val);
	(*n)++;
	return 0;
}

/* @var (NAME=value) is kept: locale and terminal, or named in @keep (a,b,c) */
static bool env_kept(const char *var, const char *keep)
{
	static const char *const always[] = { "TERM=", "LANG=", "LANGUAGE=", "LC_" };
	size_t i, len = strcspn(var, "=");

	for (i = 0; i < sizeof(always) / sizeof(always[0]); i++)
		if (!strncmp(var, always[i], strlen(always[i])))
			return true;
	while (keep && *keep) {
		size_t k = strcspn(keep, ",");

		if (k == len && !strncmp(var, keep, len))
			return true;
		keep += k + (keep[k] == ',');
	}
	return false;
}

void child_env_free(char **env)
{
	char **e;

	for (e = env; e && *e; e++)
		free(*e);
	free(env);
}

char **child_env(uid_t uid, const char *keep)
{
	struct passwd *pw = getpwuid(uid);
	char **env = calloc(CHILD_ENV_MAX, sizeof(char *)), **e;
	int n = 0, r = 0;

	if (!env)
		return NULL;
	/* who it runs as: sudo's set, from the passwd entry */
	r |= env_add(env, &n, "PATH", CHILD_PATH);
	r |= env_add(env, &n, "HOME", pw && pw->pw_dir[0] ? pw->pw_dir : "/");
	r |= env_add(env, &n, "SHELL", pw && pw->pw_shell[0] ? pw->pw_shell : "/bin/sh");
	if (pw) {
		r |= env_add(env, &n, "USER", pw->pw_name);
		r |= env_add(env, &n, "LOGNAME", pw->pw_name);
	}
	/* --preserve-env=VAR,...: stacktop's value replaces the reset one */
	for (e = environ; e && *e && !r; e++) {
		char name[256];
		size_t len = strcspn(*e, "=");
		int i;

		if (!(*e)[len] || len >= sizeof(name) || !env_kept(*e, keep))
			continue;
		memcpy(name, *e, len);
		name[len] = '\0';
		for (i = 0; i < n; i++)
			if (!strncmp(env[i], name, len) && env[i][len] == '=') {
				free(env[i]);
				env[i] = env[--n];
				env[n] = NULL;
				break;
			}
		r |= env_add(env, &n, name, *e + len + 1);
	}
	if (r) {
		child_env_free(env);
		return NULL;
	}
	return env;
}
