// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * brief.c - see brief.h.
 */
#include <stdio.h>
#include <string.h>

#include "brief.h"
#include "format.h"
#include "ksym.h"
#include "stack_table.h"

static const char *const machinery[] = {
	"trace_event_raw_event_", "perf_trace_", "__traceiter_", "__do_trace_", "__bpf_trace_",
	"trace_event_buffer_", "__trace_stack", "__ftrace_trace_stack", "ftrace_",
	"trace_buffer_unlock_commit",
};

static int is_machinery(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(machinery) / sizeof(machinery[0]); i++)
		if (!strncmp(name, machinery[i], strlen(machinery[i])))
			return 1;
	return 0;
}

unsigned int brief_skip(struct ksym *ks, const struct stack *st)
{
	unsigned int i;

	if (!ks)
		return 0;
	for (i = 0; i < st->depth; i++) {
		struct ksym_hit hit;

		if (ksym_lookup(ks, st->ips[i], &hit) < 0 || !is_machinery(hit.name))
			return i;
	}
	return 0;
}

int brief_format(char *buf, size_t size, struct ksym *ks, const struct stack *st, int frames,
		 int with_module)
{
	unsigned int i = brief_skip(ks, st);
	size_t len = 0;
	int n = 0;

	if (size)
		buf[0] = '\0';
	if (st->flags & STACK_F_OVER)
		return snprintf(buf, size, "[stacks not kept: over --max-memory]");
	if (!st->depth)
		return snprintf(buf, size, "(empty stack)");
	for (; i < st->depth && n < frames; i++, n++) {
		char fn[256];
		int w = fmt_func(fn, sizeof(fn), ks, st->ips[i], with_module);

		if (n)
			len += 3;
		if (size && len < size)
			snprintf(buf + len - (n ? 3 : 0), size - len + (n ? 3 : 0), "%s%s",
				 n ? " < " : "", fn);
		len += (size_t)w;
	}
	return (int)len;
}
