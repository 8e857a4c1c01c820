// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * probes.c - the session's function and probe stacks, and the kernel
 * filters the screen edits.
 *
 * --kprobe FUNC[+OFF]: a kprobe event `stacktop_<pid>/<FUNC>[_<OFF>]`,
 * created by appending to kprobe_events (or dynamic_events) through tfs.
 * libtracefs's dynamic-event API would open those files itself, under its
 * own idea of the tracefs root: not --tracefs (the simulator), and not
 * through tfs's one root fd with O_NOFOLLOW. The journal holds the undo
 * (`-:GROUP/EVENT`, appended: O_TRUNC on kprobe_events removes every probe)
 * before the probe is made, so exit and the recovery after a SIGKILL both
 * remove it. Probes are made before the source opens: a stacks-mode
 * instance (journaled later) is removed first on restore, so the probe is
 * no longer enabled anywhere when its removal comes.
 *
 * --function GLOB: set_ftrace_filter, options/func_stack_trace and
 * current_tracer=function in the instance read (journaled at the top
 * level). Entries are keyed by the traced function: ingest asks
 * session_func_cb() once per address, which names the event
 * "ftrace:function NAME".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "evfmt.h"
#include "format.h"
#include "ksym.h"
#include "source.h"
#include "state.h"
#include "tfs.h"

/* FUNC[+OFF]: a C identifier (dots allowed: foo.cold), a decimal or 0x offset */
static int kprobe_parse(const char *spec, char *sym, size_t symsz, unsigned long *off)
{
	const char *plus = strchr(spec, '+'), *p;
	size_t len = plus ? (size_t)(plus - spec) : strlen(spec);

	*off = 0;
	if (!len || len >= symsz || (spec[0] >= '0' && spec[0] <= '9'))
		return -EINVAL;
	for (p = spec; p < spec + len; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '_' || *p == '.'))
			return -EINVAL;
	memcpy(sym, spec, len);
	sym[len] = '\0';
	if (plus) {
		char *end;

		if (!plus[1] || plus[1] == '-' || plus[1] == '+')
			return -EINVAL;
		errno = 0;
		*off = strtoul(plus + 1, &end, 0);
		if (errno || *end || *off > 0xfffffff)
			return -EINVAL;
	}
	return 0;
}

int session_setup_kprobes(struct session *s, char *err, size_t errsz)
{
	const char *file;
	size_t seen;
	int i, r;

	if (!s->opts.nkprobes)
		return 0;
	if (tfs_exists(s->tfs, "kprobe_events"))
		file = "kprobe_events";
	else if (tfs_exists(s->tfs, "dynamic_events"))
		file = "dynamic_events";
	else
		return session_errf(err, errsz, -EOPNOTSUPP,
				    "this kernel has no kprobe events (no kprobe_events or dynamic_events in %s: CONFIG_KPROBE_EVENTS is off)",
				    s->tfs->root);
	s->probe_events = calloc((size_t)s->opts.nkprobes, sizeof(*s->probe_events));
	if (!s->probe_events)
		return -ENOMEM;
	for (i = 0; i < s->opts.nkprobes; i++) {
		const char *spec = s->opts.kprobes[i];
		char sym[128], ev[160], line[400], undo[200], why[256], name[200];
		unsigned long off;
		int j;

		if (kprobe_parse(spec, sym, sizeof(sym), &off) < 0)
			return session_errf(err, errsz, -EINVAL,
					    "bad --kprobe '%s': use FUNCTION[+OFFSET]", spec);
		snprintf(ev, sizeof(ev), "%s", sym);
		for (j = 0; ev[j]; j++)
			if (ev[j] == '.')
				ev[j] = '_';
		if (off)
			snprintf(ev + strlen(ev), sizeof(ev) - strlen(ev), "_%lu", off);
		snprintf(name, sizeof(name), "stacktop_%d:%s", (int)getpid(), ev);
		for (j = 0; j < s->nprobe_events; j++)
			if (!strcmp(s->probe_events[j], name))
				break;
		if (j < s->nprobe_events)
			continue; /* given twice: one probe */
		if (off)
			snprintf(line, sizeof(line), "p:stacktop_%d/%s %s+%lu\n", (int)getpid(), ev,
				 sym, off);
		else
			snprintf(line, sizeof(line), "p:stacktop_%d/%s %s\n", (int)getpid(), ev, sym);
		snprintf(undo, sizeof(undo), "-:stacktop_%d/%s\n", (int)getpid(), ev);
		seen = session_error_log_len(s, "error_log");
		r = state_append(s->state, file, line, undo);
		if (r < 0) {
			session_kernel_error(s, "error_log", seen, why, sizeof(why));
			return session_errf(err, errsz, r, "the kernel refused a kprobe on %s: %s%s",
					    spec, why[0] ? why : strerror(-r),
					    !why[0] && r == -EINVAL && strcmp(file, "kprobe_events")
						    ? " (dynamic_events without kprobe_events: no CONFIG_KPROBE_EVENTS?)"
						    : "");
		}
		s->probe_events[s->nprobe_events] = strdup(name);
		if (!s->probe_events[s->nprobe_events])
			return -ENOMEM;
		s->nprobe_events++;
	}
	return 0;
}

static bool word_in(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p;

	for (p = list; (p = strstr(p, word)); p += n)
		if ((p == list || p[-1] == ' ' || p[-1] == '\n') &&
		    (!p[n] || p[n] == ' ' || p[n] == '\n'))
			return true;
	return false;
}

int session_setup_function(struct session *s, char *err, size_t errsz)
{
	char rel[200], globs[2048] = "", *tracers = NULL;
	int i, r;

	if (!s->opts.nfunctions)
		return 0;
	session_path(s, rel, sizeof(rel), "available_tracers");
	if (tfs_read(s->tfs, rel, &tracers, NULL) < 0 || !word_in(tracers, "function")) {
		free(tracers);
		return session_errf(err, errsz, -EOPNOTSUPP,
				    "this kernel has no function tracer (CONFIG_FUNCTION_TRACER is off): --function cannot work");
	}
	free(tracers);
	for (i = 0; i < s->opts.nfunctions; i++) {
		const char *g = s->opts.functions[i];

		if (!*g || strpbrk(g, " \t\n:!"))
			return session_errf(err, errsz, -EINVAL,
					    "bad --function '%s': one function name or glob", g);
		if (strlen(globs) + strlen(g) + 3 > sizeof(globs))
			return session_errf(err, errsz, -E2BIG, "too many --function globs");
		if (globs[0])
			strcat(globs, " ");
		strcat(globs, g);
	}
	/*
	 * The kernel applies a token once white space ends it, and one left at
	 * the end of the text only at close(2), where a token matching nothing
	 * is dropped silently: end the last one too, so that a typo is an
	 * error here rather than an empty filter (every function traced).
	 */
	strcat(globs, "\n");
	session_path(s, rel, sizeof(rel), "set_ftrace_filter");
	r = session_write(s, rel, globs);
	if (r == -EPERM || r == -EACCES || r == -ENOENT || r == -ENODEV)
		return session_errf(err, errsz, r,
				    "the kernel refuses the function tracer (%s writing %s%s)",
				    strerror(-r), rel,
				    r == -EPERM ? ": lockdown, or ftrace disabled by sysctl kernel.ftrace_enabled?" : "");
	if (r < 0)
		return session_errf(err, errsz, r,
				    "no traceable function matches '%s' (see available_filter_functions): %s",
				    globs, strerror(-r));
	if (!s->opts.show_self && !s->opts.tracefs) {
		char pid[24];

		/* stacktop's own reads of tracefs are traced too: not ours */
		session_path(s, rel, sizeof(rel), "set_ftrace_notrace_pid");
		snprintf(pid, sizeof(pid), "%d", (int)getpid());
		if (tfs_exists(s->tfs, rel))
			session_write(s, rel, pid);
	}
	session_path(s, rel, sizeof(rel), "options/func_stack_trace");
	r = session_write(s, rel, "1");
	if (r < 0)
		return session_errf(err, errsz, r, "cannot turn on func_stack_trace: %s",
				    strerror(-r));
	session_path(s, rel, sizeof(rel), "current_tracer");
	r = session_write(s, rel, "function");
	if (r < 0)
		return session_errf(err, errsz, r, "the kernel refuses the function tracer: %s",
				    strerror(-r));
	for (i = 0; i < s->opts.nfunctions; i++) {
		char t[300];

		snprintf(t, sizeof(t), "function:%s", s->opts.functions[i]);
		session_traced_append(s, t);
	}
	return 0;
}

int session_func_cb(void *ctx, uint64_t ip)
{
	struct session *s = ctx;
	struct ksym_hit hit;
	char name[300];

	if (ksym_lookup(s->ksym, ip, &hit) == 0 && hit.name) {
		if (hit.module)
			snprintf(name, sizeof(name), "ftrace:function %s [%s]", hit.name, hit.module);
		else
			snprintf(name, sizeof(name), "ftrace:function %s", hit.name);
	} else {
		snprintf(name, sizeof(name), "ftrace:function 0x%llx", (unsigned long long)ip);
	}
	return evfmt_add_named(s->fmt, name);
}

/* "sys:event" of an index that has a filter file */
static int event_split(struct session *s, unsigned int idx, char *sys, char *ev, size_t size)
{
	const char *name, *colon;

	if (!s->tfs || !s->fmt || idx >= s->fmt->nnames || s->fmt->types[idx] < 0 || s->map_events)
		return -EOPNOTSUPP;
	name = s->fmt->names[idx];
	colon = strchr(name, ':');
	if (!colon || !strcmp(name, "ftrace") || !strncmp(name, "ftrace:", 7) ||
	    strchr(name, ' ') || strchr(name, '#'))
		return -EOPNOTSUPP;
	snprintf(sys, size, "%.*s", (int)(colon - name), name);
	snprintf(ev, size, "%s", colon + 1);
	return 0;
}

int session_set_filter(struct session *s, unsigned int idx, const char *expr, char *err,
		       size_t errsz)
{
	char sys[128], ev[128];
	int r;

	if (err && errsz)
		err[0] = '\0';
	r = event_split(s, idx, sys, ev, sizeof(sys));
	if (r < 0)
		return session_errf(err, errsz, r, "%s has no kernel filter",
				    session_event(s, idx));
	if (s->mode == SESSION_PASSIVE)
		return session_errf(err, errsz, -EOPNOTSUPP,
				    "passive mode changes nothing in tracefs");
	if (!strcmp(expr, "0"))
		expr = "";
	return session_write_filter(s, sys, ev, expr, err, errsz);
}

int session_get_filter(struct session *s, unsigned int idx, char *buf, size_t size)
{
	char sys[128], ev[128], rel[512], *text = NULL;
	int r;

	buf[0] = '\0';
	r = event_split(s, idx, sys, ev, sizeof(sys));
	if (r < 0)
		return r;
	snprintf(rel, sizeof(rel), "%sevents/%s/%s/filter", s->prefix, sys, ev);
	r = tfs_read(s->tfs, rel, &text, NULL);
	if (r < 0)
		return r;
	text[strcspn(text, "\n")] = '\0';
	if (strcmp(text, "none"))
		fmt_sanitize(buf, size, text, strlen(text));
	free(text);
	return 0;
}
