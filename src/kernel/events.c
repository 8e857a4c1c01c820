// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * events.c - see events.h.
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

#include "core/format.h"
#include "kernel/events.h"
#include "kernel/evfmt.h"
#include "kernel/state.h"
#include "kernel/tfs.h"
#include "kernel/trace.h"

/* a stacktrace trigger: "stacktrace[:N][ if EXPR]" */
static int write_trigger(struct trace *t, const char *sys, const char *ev,
			 const struct event_spec *sp, char *err, size_t errsz)
{
	char rel[512], log[160], line[1200], why[256];
	size_t seen;
	int r;

	snprintf(rel, sizeof(rel), "%sevents/%s/%s/trigger", t->prefix, sys, ev);
	if (!tfs_exists(t->tfs, rel))
		return fmt_error(err, errsz, -EOPNOTSUPP, "%s:%s has no trigger file", sys, ev);
	snprintf(line, sizeof(line), "stacktrace");
	if (sp->count)
		snprintf(line + strlen(line), sizeof(line) - strlen(line), ":%lu", sp->count);
	if (sp->filter[0])
		snprintf(line + strlen(line), sizeof(line) - strlen(line), " if %s", sp->filter);
	trace_path(t, log, sizeof(log), "error_log");
	seen = trace_error_log_len(t, log);
	/* at the top level, O_TRUNC would remove everybody's triggers */
	r = t->instance ? tfs_write(t->tfs, rel, line)
			: state_append(t->state, rel, line, "!stacktrace");
	if (r == 0)
		return 0;
	trace_kernel_error(t, log, seen, why, sizeof(why));
	return fmt_error(err, errsz, r, "the kernel refused the trigger '%s' on %s:%s: %s", line,
			 sys, ev,
			 why[0]		? why
			 : r == -EEXIST ? "it has a stacktrace trigger already"
					: strerror(-r));
}

static int enable_event(struct trace *t, const char *sys, const char *ev,
			const struct event_spec *sp, char *err, size_t errsz)
{
	char rel[512];
	int r;

	r = evfmt_add(t->fmt, t->tfs, sys, ev);
	if (r < 0)
		return fmt_error(err, errsz, r, "cannot read the format of %s:%s: %s", sys, ev,
				 strerror(-r));
	if (sp->filter[0]) {
		r = trace_write_filter(t, sys, ev, sp->filter, err, errsz);
		if (r < 0)
			return r;
	}
	snprintf(rel, sizeof(rel), "%sevents/%s/%s/enable", t->prefix, sys, ev);
	r = trace_write(t, rel, "1");
	if (r < 0)
		return fmt_error(err, errsz, r, "cannot enable %s:%s: %s", sys, ev, strerror(-r));
	/*
	 * The trigger after the event: a trigger on a disabled event fires
	 * (and counts down) with the record discarded, and on a busy event the
	 * few microseconds until it is enabled are enough to use up a count
	 * with stacks that have no event before them.
	 */
	if (t->trigger_mode) {
		r = write_trigger(t, sys, ev, sp, err, errsz);
		if (r < 0)
			return r;
	}
	return 0;
}

int events_parse_spec(const char *text, bool counted, struct event_spec *sp)
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
static void suggest_events(struct trace *t, const char *pat, char *out, size_t size)
{
	char **systems = NULL, best[3][300];
	unsigned int bestd = 99, limit;
	int nsys = 0, nbest = 0, i, k;
	bool with_sys = strchr(pat, ':') || strchr(pat, '/');
	size_t len = 0;

	out[0] = '\0';
	if (strpbrk(pat, "*?[") || trace_list_dir(t, "events", &systems, &nsys) < 0)
		return;
	limit = strlen(pat) >= 12 ? 3 : 2;
	for (i = 0; i < nsys; i++) {
		char rel[300], **evs = NULL, full[300];
		int nev = 0, j;
		unsigned int d;

		if (!strcmp(systems[i], "ftrace"))
			continue;
		snprintf(rel, sizeof(rel), "events/%s", systems[i]);
		if (trace_list_dir(t, rel, &evs, &nev) < 0)
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
		trace_free_list(evs, nev);
	}
	trace_free_list(systems, nsys);
	for (k = 0; k < nbest && len < size; k++)
		len += (size_t)snprintf(out + len, size - len, "%s%s",
					k ? (k == nbest - 1 ? " or " : ", ") : ": did you mean ",
					best[k]);
	if (nbest && len < size)
		snprintf(out + len, size - len, "?");
}

/* enable every event matching "sys:event" (globs; "event" alone = any system) */
static int enable_pattern(struct trace *t, const struct event_spec *sp, char *err, size_t errsz)
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
		return fmt_error(err, errsz, -ENOENT, "bad event '%s': use SYSTEM:EVENT", pat);
	r = trace_list_dir(t, "events", &systems, &nsys);
	if (r < 0)
		return fmt_error(err, errsz, r, "cannot list events: %s", strerror(-r));
	for (i = 0; i < nsys; i++) {
		char rel[300], **evs = NULL;
		int nev = 0, j;

		/* ftrace's own entries have no enable file (the function tracer: --function) */
		if (fnmatch(sysp, systems[i], 0) || !strcmp(systems[i], "ftrace"))
			continue;
		snprintf(rel, sizeof(rel), "events/%s", systems[i]);
		if (trace_list_dir(t, rel, &evs, &nev) < 0)
			continue;
		for (j = 0; j < nev; j++) {
			if (fnmatch(evp, evs[j], 0))
				continue;
			r = enable_event(t, systems[i], evs[j], sp, err, errsz);
			if (r < 0) {
				trace_free_list(evs, nev);
				trace_free_list(systems, nsys);
				return r;
			}
			matched++;
		}
		trace_free_list(evs, nev);
	}
	trace_free_list(systems, nsys);
	if (!matched) {
		char hint[700];

		suggest_events(t, pat, hint, sizeof(hint));
		return fmt_error(err, errsz, -ENOENT,
				 "unknown event '%s'%s (see %s/available_events)", pat, hint,
				 t->tfs->root);
	}
	return matched;
}

static int enable_text(struct trace *t, const char *text, bool counted, char *err, size_t errsz)
{
	struct event_spec sp;
	int r;

	if (events_parse_spec(text, counted, &sp) < 0)
		return fmt_error(err, errsz, -EINVAL,
				 counted ? "bad --trigger '%s': use SYS:EVENT[:N] [if FILTER]"
					 : "bad event '%s': use SYS:EVENT [if FILTER]",
				 text);
	r = enable_pattern(t, &sp, err, errsz);
	if (r < 0)
		return r;
	trace_traced_append(t, text);
	return 0;
}

int events_setup(struct trace *t, char *err, size_t errsz)
{
	const struct session_opts *o = t->opts;
	int i, r;

	if (o->nevents == 0 && !o->ntriggers && !o->nfunctions && !t->nprobe_events &&
	    t->mode == SESSION_STACKMAP) {
		/* keep what is already enabled at the top level, if anything */
		char *buf = NULL, *line, *save = NULL;
		int kept = 0;

		if (tfs_read(t->tfs, "set_event", &buf, NULL) == 0) {
			for (line = strtok_r(buf, "\n", &save); line;
			     line = strtok_r(NULL, "\n", &save)) {
				char *colon = strchr(line, ':');

				if (!colon)
					continue;
				*colon = '\0';
				if (evfmt_add(t->fmt, t->tfs, line, colon + 1) >= 0) {
					*colon = ':';
					trace_traced_append(t, line);
					kept++;
				}
			}
			free(buf);
		}
		if (kept)
			return 0;
	}
	if (o->nevents == 0 && !o->ntriggers && !o->nfunctions && !t->nprobe_events) {
		struct event_spec sp = { .pattern = "sched:sched_switch" };

		r = enable_pattern(t, &sp, err, errsz);
		if (r < 0)
			return r;
		trace_traced_append(t, "sched:sched_switch (default)");
		return 0;
	}
	for (i = 0; i < o->nevents; i++) {
		r = enable_text(t, o->events[i], false, err, errsz);
		if (r < 0)
			return r;
	}
	for (i = 0; i < t->nprobe_events; i++) {
		r = enable_text(t, t->probe_events[i], false, err, errsz);
		if (r < 0)
			return r;
	}
	for (i = 0; i < o->ntriggers; i++) {
		r = enable_text(t, o->triggers[i], true, err, errsz);
		if (r < 0)
			return r;
	}
	return 0;
}
