// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * events.c - the session's events: "system:event" patterns (globs) expanded
 * against tracefs and enabled (journaled at the top level, plain writes in
 * a private instance), with the kernel filter written to each event's
 * `filter` file and, with --trigger, a `stacktrace` trigger in its
 * `trigger` file; the kernel's error_log text when it refuses one; and the
 * directory listing they and the sources use.
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
#include "format.h"
#include "source.h"
#include "state.h"
#include "tfs.h"

/* the newest error_log entry added past @seen bytes: the text after its last "error: " */
void session_kernel_error(struct session *s, const char *log_rel, size_t seen, char *buf,
			  size_t size)
{
	char *log = NULL, *entry, *p, *msg, *eol;
	size_t len = 0;

	buf[0] = '\0';
	if (tfs_read(s->tfs, log_rel, &log, &len) < 0)
		return;
	entry = len >= seen ? log + seen : log;
	/* the newest entry starts at the last line opening with '[' */
	for (p = entry; (p = strstr(p, "\n[")); )
		entry = ++p;
	if (*entry == '[') {
		eol = entry + strcspn(entry, "\n");
		*eol = '\0';
		msg = entry;
		for (p = strstr(entry, "error: "); p; p = strstr(p + 1, "error: "))
			msg = p + 7;
		fmt_sanitize(buf, size, msg, strlen(msg));
	}
	free(log);
}

/* bytes error_log holds now (new entries come after them) */
size_t session_error_log_len(struct session *s, const char *log_rel)
{
	char *log = NULL;
	size_t len = 0;

	if (tfs_read(s->tfs, log_rel, &log, &len) < 0)
		return 0;
	free(log);
	return len;
}

/* a write to the session's instance: journaled at the top level */
int session_write(struct session *s, const char *rel, const char *value)
{
	/* private instance: removed whole on exit, no journal needed */
	return s->instance ? tfs_write(s->tfs, rel, value) : state_write(s->state, rel, value);
}

int session_write_filter(struct session *s, const char *sys, const char *ev, const char *expr,
			 char *err, size_t errsz)
{
	char rel[512], log[160], why[256], *orig = NULL;
	size_t seen;
	int r;

	snprintf(rel, sizeof(rel), "%sevents/%s/%s/filter", s->prefix, sys, ev);
	if (!tfs_exists(s->tfs, rel))
		return session_errf(err, errsz, -EOPNOTSUPP, "%s:%s has no filter file", sys, ev);
	session_path(s, log, sizeof(log), "error_log");
	seen = session_error_log_len(s, log);
	/* the instance's too: F must not lose the filter it had */
	if (tfs_read(s->tfs, rel, &orig, NULL) < 0)
		orig = NULL;
	r = session_write(s, rel, *expr ? expr : "0");
	if (r == 0) {
		free(orig);
		return 0;
	}
	/* a refused filter leaves the event unfiltered: put the old one back */
	if (orig) {
		orig[strcspn(orig, "\n")] = '\0';
		tfs_write(s->tfs, rel, strcmp(orig, "none") ? orig : "0");
		free(orig);
	}
	session_kernel_error(s, log, seen, why, sizeof(why));
	return session_errf(err, errsz, r, "the kernel refused the filter '%s' on %s:%s: %s", expr,
			    sys, ev, why[0] ? why : strerror(-r));
}

/* a stacktrace trigger: "stacktrace[:N][ if EXPR]" */
static int write_trigger(struct session *s, const char *sys, const char *ev,
			 const struct event_spec *sp, char *err, size_t errsz)
{
	char rel[512], log[160], line[1200], why[256];
	size_t seen;
	int r;

	snprintf(rel, sizeof(rel), "%sevents/%s/%s/trigger", s->prefix, sys, ev);
	if (!tfs_exists(s->tfs, rel))
		return session_errf(err, errsz, -EOPNOTSUPP, "%s:%s has no trigger file", sys, ev);
	snprintf(line, sizeof(line), "stacktrace");
	if (sp->count)
		snprintf(line + strlen(line), sizeof(line) - strlen(line), ":%lu", sp->count);
	if (sp->filter[0])
		snprintf(line + strlen(line), sizeof(line) - strlen(line), " if %s", sp->filter);
	session_path(s, log, sizeof(log), "error_log");
	seen = session_error_log_len(s, log);
	/* at the top level, O_TRUNC would remove everybody's triggers */
	r = s->instance ? tfs_write(s->tfs, rel, line)
			: state_append(s->state, rel, line, "!stacktrace");
	if (r == 0)
		return 0;
	session_kernel_error(s, log, seen, why, sizeof(why));
	return session_errf(err, errsz, r, "the kernel refused the trigger '%s' on %s:%s: %s", line,
			    sys, ev, why[0] ? why : r == -EEXIST ? "it has a stacktrace trigger already"
							 : strerror(-r));
}

static int enable_event(struct session *s, const char *sys, const char *ev,
			const struct event_spec *sp, char *err, size_t errsz)
{
	char rel[512];
	int r;

	r = evfmt_add(s->fmt, s->tfs, sys, ev);
	if (r < 0)
		return session_errf(err, errsz, r, "cannot read the format of %s:%s: %s", sys, ev,
				    strerror(-r));
	if (sp->filter[0]) {
		r = session_write_filter(s, sys, ev, sp->filter, err, errsz);
		if (r < 0)
			return r;
	}
	snprintf(rel, sizeof(rel), "%sevents/%s/%s/enable", s->prefix, sys, ev);
	r = session_write(s, rel, "1");
	if (r < 0)
		return session_errf(err, errsz, r, "cannot enable %s:%s: %s", sys, ev,
				    strerror(-r));
	/*
	 * The trigger after the event: a trigger on a disabled event fires
	 * (and counts down) with the record discarded, and on a busy event the
	 * few microseconds until it is enabled are enough to use up a count
	 * with stacks that have no event before them.
	 */
	if (s->trigger_mode) {
		r = write_trigger(s, sys, ev, sp, err, errsz);
		if (r < 0)
			return r;
	}
	return 0;
}

/*
 * "SYS:EVENT[ if EXPR]" (-e), and with @counted "SYS:EVENT[:N][ if EXPR]"
 * (--trigger), into @sp. Return: 0 or -EINVAL.
 */
int session_parse_spec(const char *text, bool counted, struct event_spec *sp)
{
	const char *end = text, *iff = NULL, *p;

	memset(sp, 0, sizeof(*sp));
	while (*text == ' ' || *text == '\t')
		text++;
	for (p = text; *p; p++)
		if ((p[0] == ' ' || p[0] == '\t') && !strncmp(p + 1, "if", 2) &&
		    (p[3] == ' ' || p[3] == '\t' || !p[3])) {
			iff = p;
			break;
		}
	end = iff ? iff : text + strlen(text);
	while (end > text && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (end == text || (size_t)(end - text) >= sizeof(sp->pattern))
		return -EINVAL;
	snprintf(sp->pattern, sizeof(sp->pattern), "%.*s", (int)(end - text), text);
	if (iff) {
		p = iff + 3;
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || strlen(p) >= sizeof(sp->filter))
			return -EINVAL;
		snprintf(sp->filter, sizeof(sp->filter), "%s", p);
	}
	if (counted) {
		char *c1 = strchr(sp->pattern, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL, *e;

		if (c2) {
			errno = 0;
			sp->count = strtoul(c2 + 1, &e, 10);
			if (errno || *e || e == c2 + 1 || !sp->count || c2[1] == '-')
				return -EINVAL;
			*c2 = '\0';
		}
	}
	return 0;
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
static int enable_pattern(struct session *s, const struct event_spec *sp, char *err, size_t errsz)
{
	const char *pat = sp->pattern;
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

		/* ftrace's own entries have no enable file (the function tracer: --function) */
		if (fnmatch(sysp, systems[i], 0) || !strcmp(systems[i], "ftrace"))
			continue;
		snprintf(rel, sizeof(rel), "events/%s", systems[i]);
		if (session_list_dir(s, rel, &evs, &nev) < 0)
			continue;
		for (j = 0; j < nev; j++) {
			if (fnmatch(evp, evs[j], 0))
				continue;
			r = enable_event(s, systems[i], evs[j], sp, err, errsz);
			if (r < 0) {
				session_free_list(evs, nev);
				session_free_list(systems, nsys);
				return r;
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

static int enable_text(struct session *s, const char *text, bool counted, char *err,
		       size_t errsz)
{
	struct event_spec sp;
	int r;

	if (session_parse_spec(text, counted, &sp) < 0)
		return session_errf(err, errsz, -EINVAL,
				    counted ? "bad --trigger '%s': use SYS:EVENT[:N] [if FILTER]"
					    : "bad event '%s': use SYS:EVENT [if FILTER]", text);
	r = enable_pattern(s, &sp, err, errsz);
	if (r < 0)
		return r;
	session_traced_append(s, text);
	return 0;
}

int session_setup_events(struct session *s, char *err, size_t errsz)
{
	const struct session_opts *o = &s->opts;
	int i, r;

	if (o->nevents == 0 && !o->ntriggers && !o->nfunctions && !s->nprobe_events &&
	    s->mode == SESSION_STACKMAP) {
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
	if (o->nevents == 0 && !o->ntriggers && !o->nfunctions && !s->nprobe_events) {
		struct event_spec sp = { .pattern = "sched:sched_switch" };

		r = enable_pattern(s, &sp, err, errsz);
		if (r < 0)
			return r;
		session_traced_append(s, "sched:sched_switch (default)");
		return 0;
	}
	for (i = 0; i < o->nevents; i++) {
		r = enable_text(s, o->events[i], false, err, errsz);
		if (r < 0)
			return r;
	}
	for (i = 0; i < s->nprobe_events; i++) {
		r = enable_text(s, s->probe_events[i], false, err, errsz);
		if (r < 0)
			return r;
	}
	for (i = 0; i < o->ntriggers; i++) {
		r = enable_text(s, o->triggers[i], true, err, errsz);
		if (r < 0)
			return r;
	}
	return 0;
}
