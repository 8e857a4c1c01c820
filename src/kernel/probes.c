// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * probes.c - see probes.h: the function tracer's and the kprobes' stacks.
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
 * probes_func_cb() once per address, which names the event
 * "ftrace:function NAME".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/format.h"
#include "kernel/evfmt.h"
#include "kernel/probes.h"
#include "kernel/state.h"
#include "kernel/tfs.h"
#include "kernel/trace.h"
#include "sym/ksym.h"

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

int probes_setup_kprobes(struct trace *t, char *err, size_t errsz)
{
	const char *file;
	size_t seen;
	int i, r;

	if (!t->opts->nkprobes)
		return 0;
	if (tfs_exists(t->tfs, "kprobe_events"))
		file = "kprobe_events";
	else if (tfs_exists(t->tfs, "dynamic_events"))
		file = "dynamic_events";
	else
		return fmt_error(
			err, errsz, -EOPNOTSUPP,
			"this kernel has no kprobe events (no kprobe_events or dynamic_events in %s: CONFIG_KPROBE_EVENTS is off)",
			t->tfs->root);
	t->probe_events = calloc((size_t)t->opts->nkprobes, sizeof(*t->probe_events));
	if (!t->probe_events)
		return -ENOMEM;
	for (i = 0; i < t->opts->nkprobes; i++) {
		const char *spec = t->opts->kprobes[i];
		char sym[128], ev[160], line[400], undo[200], why[256], name[200];
		unsigned long off;
		int j;

		if (kprobe_parse(spec, sym, sizeof(sym), &off) < 0)
			return fmt_error(err, errsz, -EINVAL,
					 "bad --kprobe '%s': use FUNCTION[+OFFSET]", spec);
		snprintf(ev, sizeof(ev), "%s", sym);
		for (j = 0; ev[j]; j++)
			if (ev[j] == '.')
				ev[j] = '_';
		if (off)
			snprintf(ev + strlen(ev), sizeof(ev) - strlen(ev), "_%lu", off);
		snprintf(name, sizeof(name), "stacktop_%d:%s", (int)getpid(), ev);
		for (j = 0; j < t->nprobe_events; j++)
			if (!strcmp(t->probe_events[j], name))
				break;
		if (j < t->nprobe_events)
			continue; /* given twice: one probe */
		if (off)
			snprintf(line, sizeof(line), "p:stacktop_%d/%s %s+%lu\n", (int)getpid(), ev,
				 sym, off);
		else
			snprintf(line, sizeof(line), "p:stacktop_%d/%s %s\n", (int)getpid(), ev,
				 sym);
		snprintf(undo, sizeof(undo), "-:stacktop_%d/%s\n", (int)getpid(), ev);
		seen = trace_error_log_len(t, "error_log");
		r = state_append(t->state, file, line, undo);
		if (r < 0) {
			trace_kernel_error(t, "error_log", seen, why, sizeof(why));
			return fmt_error(
				err, errsz, r, "the kernel refused a kprobe on %s: %s%s", spec,
				why[0] ? why : strerror(-r),
				!why[0] && r == -EINVAL && strcmp(file, "kprobe_events")
					? " (dynamic_events without kprobe_events: no CONFIG_KPROBE_EVENTS?)"
					: "");
		}
		t->probe_events[t->nprobe_events] = strdup(name);
		if (!t->probe_events[t->nprobe_events])
			return -ENOMEM;
		t->nprobe_events++;
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

int probes_setup_function(struct trace *t, char *err, size_t errsz)
{
	char rel[200], globs[2048] = "", *tracers = NULL;
	int i, r;

	if (!t->opts->nfunctions)
		return 0;
	trace_path(t, rel, sizeof(rel), "available_tracers");
	if (tfs_read(t->tfs, rel, &tracers, NULL) < 0 || !word_in(tracers, "function")) {
		free(tracers);
		return fmt_error(
			err, errsz, -EOPNOTSUPP,
			"this kernel has no function tracer (CONFIG_FUNCTION_TRACER is off): --function cannot work");
	}
	free(tracers);
	for (i = 0; i < t->opts->nfunctions; i++) {
		const char *g = t->opts->functions[i];

		if (!*g || strpbrk(g, " \t\n:!"))
			return fmt_error(err, errsz, -EINVAL,
					 "bad --function '%s': one function name or glob", g);
		if (strlen(globs) + strlen(g) + 3 > sizeof(globs))
			return fmt_error(err, errsz, -E2BIG, "too many --function globs");
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
	trace_path(t, rel, sizeof(rel), "set_ftrace_filter");
	r = trace_write(t, rel, globs);
	if (r == -EPERM || r == -EACCES || r == -ENOENT || r == -ENODEV)
		return fmt_error(
			err, errsz, r, "the kernel refuses the function tracer (%s writing %s%s)",
			strerror(-r), rel,
			r == -EPERM
				? ": lockdown, or ftrace disabled by sysctl kernel.ftrace_enabled?"
				: "");
	if (r < 0)
		return fmt_error(
			err, errsz, r,
			"no traceable function matches '%.*s' (see available_filter_functions): %s",
			(int)strlen(globs) - 1, globs, strerror(-r));
	trace_path(t, rel, sizeof(rel), "options/func_stack_trace");
	r = trace_write(t, rel, "1");
	if (r < 0)
		return fmt_error(err, errsz, r, "cannot turn on func_stack_trace: %s",
				 strerror(-r));
	trace_path(t, rel, sizeof(rel), "current_tracer");
	r = trace_write(t, rel, "function");
	if (r < 0)
		return fmt_error(err, errsz, r, "the kernel refuses the function tracer: %s",
				 strerror(-r));
	for (i = 0; i < t->opts->nfunctions; i++) {
		char name[300];

		snprintf(name, sizeof(name), "function:%s", t->opts->functions[i]);
		trace_traced_append(t, name);
	}
	return 0;
}

int probes_func_cb(void *ctx, uint64_t ip)
{
	struct trace *t = ctx;
	struct ksym_hit hit;
	char name[300];

	if (ksym_lookup(t->ksym, ip, &hit) == 0 && hit.name) {
		if (hit.module)
			snprintf(name, sizeof(name), "ftrace:function %s [%s]", hit.name,
				 hit.module);
		else
			snprintf(name, sizeof(name), "ftrace:function %s", hit.name);
	} else {
		snprintf(name, sizeof(name), "ftrace:function 0x%llx", (unsigned long long)ip);
	}
	return evfmt_add_named(t->fmt, name);
}
