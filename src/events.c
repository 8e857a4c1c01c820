// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * events.c - the session's events: "system:event" patterns (globs) expanded
 * against tracefs and enabled (journaled at the top level, plain writes in
 * a private instance), and the directory listing they and the sources use.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "evfmt.h"
#include "source.h"
#include "state.h"
#include "tfs.h"

static int enable_event(struct session *s, const char *sys, const char *ev)
{
	char rel[512];
	int r;

	r = evfmt_add(s->fmt, s->tfs, sys, ev);
	if (r < 0)
		return r;
	snprintf(rel, sizeof(rel), "%sevents/%s/%s/enable", s->prefix, sys, ev);
	/* private instance: removed whole on exit, no journal needed */
	return s->instance ? tfs_write(s->tfs, rel, "1") : state_write(s->state, rel, "1");
}

int session_list_dir(struct session *s, const char *rel, char ***ret, int *ret_n)
{
	char **names = NULL;
	struct dirent *de;
	int fd, n = 0;
	DIR *d;

	fd = tfs_open_file(s->tfs, rel, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return fd;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -ENOMEM;
	}
	while ((de = readdir(d))) {
		char **nn;

		if (de->d_name[0] == '.' || (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
			continue;
		nn = realloc(names, (size_t)(n + 1) * sizeof(*names));
		if (!nn)
			break;
		names = nn;
		names[n] = strdup(de->d_name);
		if (names[n])
			n++;
	}
	closedir(d);
	*ret = names;
	*ret_n = n;
	return 0;
}

void session_free_list(char **l, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(l[i]);
	free(l);
}

/* edit distance (insert, delete, change, swap two neighbours), capped at 99 */
static unsigned int edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	unsigned int d[3][65], *pp = d[0], *p = d[1], *c = d[2], *t;

	if (la > 64 || lb > 64)
		return 99;
	for (j = 0; j <= lb; j++)
		p[j] = (unsigned int)j;
	for (i = 1; i <= la; i++) {
		c[0] = (unsigned int)i;
		for (j = 1; j <= lb; j++) {
			unsigned int v = p[j - 1] + (a[i - 1] != b[j - 1]);

			if (p[j] + 1 < v)
				v = p[j] + 1;
			if (c[j - 1] + 1 < v)
				v = c[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    pp[j - 2] + 1 < v)
				v = pp[j - 2] + 1;
			c[j] = v;
		}
		t = pp;
		pp = p;
		p = c;
		c = t;
	}
	return p[lb];
}

/*
 * ": did you mean sched:sched_switch?" for a name that matched nothing:
 * the closest available events, when they are close enough to be typos
 */
static void suggest_events(struct session *s, const char *pat, char *out, size_t size)
{
	char **systems = NULL, best[3][300];
	unsigned int bestd = 99, limit;
	int nsys = 0, nbest = 0, i, k;
	bool with_sys = strchr(pat, ':') || strchr(pat, '/');
	size_t len = 0;

	out[0] = '\0';
	if (strpbrk(pat, "*?[") || session_list_dir(s, "events", &systems, &nsys) < 0)
		return;
	limit = strlen(pat) >= 12 ? 3 : 2;
	for (i = 0; i < nsys; i++) {
		char rel[300], **evs = NULL, full[300];
		int nev = 0, j;
		unsigned int d;

		if (!strcmp(systems[i], "ftrace"))
			continue;
		snprintf(rel, sizeof(rel), "events/%s", systems[i]);
		if (session_list_dir(s, rel, &evs, &nev) < 0)
			continue;
		for (j = 0; j < nev; j++) {
			snprintf(full, sizeof(full), "%s:%s", systems[i], evs[j]);
			d = edit_distance(with_sys ? full : evs[j], pat);
			if (d > limit || d > bestd)
				continue;
			if (d < bestd) {
				bestd = d;
				nbest = 0;
			}
			if (nbest < 3)
				snprintf(best[nbest++], sizeof(best[0]), "%s", full);
		}
		session_free_list(evs, nev);
	}
	session_free_list(systems, nsys);
	for (k = 0; k < nbest && len < size; k++)
		len += (size_t)snprintf(out + len, size - len, "%s%s", k ? (k == nbest - 1 ? " or " : ", ") :
					": did you mean ", best[k]);
	if (nbest && len < size)
		snprintf(out + len, size - len, "?");
}

/* enable every event matching "sys:event" (globs; "event" alone = any system) */
static int enable_pattern(struct session *s, const char *pat, char *err, size_t errsz)
{
	char sysp[256], evp[256];
	const char *colon = strchr(pat, ':');
	char **systems = NULL;
	int nsys = 0, i, matched = 0, r;

	if (!colon)
		colon = strchr(pat, '/');
	if (colon) {
		snprintf(sysp, sizeof(sysp), "%.*s", (int)(colon - pat), pat);
		snprintf(evp, sizeof(evp), "%s", colon + 1);
	} else {
		snprintf(sysp, sizeof(sysp), "*");
		snprintf(evp, sizeof(evp), "%s", pat);
	}
	if (!*sysp || !*evp)
		return session_errf(err, errsz, -ENOENT, "bad event '%s': use SYSTEM:EVENT", pat);
	r = session_list_dir(s, "events", &systems, &nsys);
	if (r < 0)
		return session_errf(err, errsz, r, "cannot list events: %s", strerror(-r));
	for (i = 0; i < nsys; i++) {
		char rel[300], **evs = NULL;
		int nev = 0, j;

		if (fnmatch(sysp, systems[i], 0) || !strcmp(systems[i], "ftrace"))
			continue;
		snprintf(rel, sizeof(rel), "events/%s", systems[i]);
		if (session_list_dir(s, rel, &evs, &nev) < 0)
			continue;
		for (j = 0; j < nev; j++) {
			if (fnmatch(evp, evs[j], 0))
				continue;
			r = enable_event(s, systems[i], evs[j]);
			if (r < 0) {
				session_free_list(evs, nev);
				session_free_list(systems, nsys);
				return session_errf(err, errsz, r, "cannot enable %s:%s: %s", systems[i],
					    evs[j], strerror(-r));
			}
			matched++;
		}
		session_free_list(evs, nev);
	}
	session_free_list(systems, nsys);
	if (!matched) {
		char hint[700];

		suggest_events(s, pat, hint, sizeof(hint));
		return session_errf(err, errsz, -ENOENT, "unknown event '%s'%s (see %s/available_events)",
				    pat, hint, s->tfs->root);
	}
	return matched;
}

int session_setup_events(struct session *s, char *err, size_t errsz)
{
	int i, r;

	if (s->opts.nevents == 0 && s->mode == SESSION_STACKMAP) {
		/* keep what is already enabled at the top level, if anything */
		char *buf = NULL, *line, *save = NULL;
		int kept = 0;

		if (tfs_read(s->tfs, "set_event", &buf, NULL) == 0) {
			for (line = strtok_r(buf, "\n", &save); line;
			     line = strtok_r(NULL, "\n", &save)) {
				char *colon = strchr(line, ':');

				if (!colon)
					continue;
				*colon = '\0';
				if (evfmt_add(s->fmt, s->tfs, line, colon + 1) >= 0) {
					*colon = ':';
					session_traced_append(s, line);
					kept++;
				}
			}
			free(buf);
		}
		if (kept)
			return 0;
	}
	if (s->opts.nevents == 0) {
		r = enable_pattern(s, "sched:sched_switch", err, errsz);
		if (r < 0)
			return r;
		session_traced_append(s, "sched:sched_switch (default)");
		return 0;
	}
	for (i = 0; i < s->opts.nevents; i++) {
		r = enable_pattern(s, s->opts.events[i], err, errsz);
		if (r < 0)
			return r;
		session_traced_append(s, s->opts.events[i]);
	}
	return 0;
}
