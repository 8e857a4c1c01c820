// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * brief.c - see brief.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sym/brief.h"
#include "core/format.h"
#include "sym/frame.h"
#include "sym/ksym.h"
#include "core/rank.h"
#include "core/stack.h"
#include "sym/usym.h"

static const char *const machinery[] = {
	"trace_event_raw_event_",
	"perf_trace_",
	"__traceiter_",
	"__do_trace_",
	"__bpf_trace_",
	"trace_event_buffer_",
	"__trace_stack",
	"__ftrace_trace_stack",
	"ftrace_",
	"trace_buffer_unlock_commit",
	"trace_",
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

		if (ksym_lookup_frame(ks, st->ips[i], &hit) < 0 || !is_machinery(hit.name))
			return i;
	}
	return 0;
}

static int brief_frames(char *buf, size_t size, struct ksym *ks, const struct stack *st,
			unsigned int i, unsigned int end, int frames, int with_module, size_t len)
{
	int n = 0;

	for (; i < end && n < frames; i++, n++) {
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

int brief_format(char *buf, size_t size, struct ksym *ks, const struct stack *st, int frames,
		 int with_module)
{
	return brief_format_after(buf, size, ks, st, 0, frames, with_module);
}

/* the frames of @st brief_format_after() may show: [*i, *end) */
static void brief_range(struct ksym *ks, const struct stack *st, unsigned int common,
			unsigned int *i, unsigned int *end)
{
	*i = brief_skip(ks, st);
	*end = st->depth;
	if (usym_stack_none(st->ips, st->depth))
		*end = usym_user_start(st->ips, st->depth);
	if (common && *i + common < *end)
		*i += common;
}

/* a frame's text, hashed (FNV-1a): two frames read alike when theirs are */
static uint64_t frame_hash(struct ksym *ks, uint64_t ip)
{
	char fn[256];
	uint64_t h = 0xcbf29ce484222325ULL;
	const char *p;

	fmt_func(fn, sizeof(fn), ks, ip, 1);
	for (p = fn; *p; p++)
		h = (h ^ (uint8_t)*p) * 0x100000001b3ULL;
	return h;
}

struct apart {
	const uint64_t *h; /* APART_FRAMES hashes a row */
	const unsigned int *len;
};

static unsigned int apart_lcp(const struct apart *a, size_t x, size_t y)
{
	unsigned int k, m = a->len[x] < a->len[y] ? a->len[x] : a->len[y];

	for (k = 0; k < m && a->h[x * APART_FRAMES + k] == a->h[y * APART_FRAMES + k]; k++)
		;
	return k;
}

static int apart_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct apart *a = ctx;
	size_t x = *(const size_t *)pa, y = *(const size_t *)pb;
	unsigned int k = apart_lcp(a, x, y);

	if (k < a->len[x] && k < a->len[y])
		return a->h[x * APART_FRAMES + k] < a->h[y * APART_FRAMES + k] ? -1 : 1;
	return (a->len[x] > a->len[y]) - (a->len[x] < a->len[y]);
}

int brief_apart(struct ksym *const *ks, const struct stack *const *st, size_t n,
		unsigned int common, int min, int *frames)
{
	unsigned int *len;
	uint64_t *h;
	size_t *order, r;
	struct apart a;

	for (r = 0; r < n; r++)
		frames[r] = min;
	if (n < 2 || n > APART_ROWS)
		return 0;
	h = calloc(n * APART_FRAMES, sizeof(*h));
	len = calloc(n, sizeof(*len));
	order = calloc(n, sizeof(*order));
	if (!h || !len || !order) {
		free(h);
		free(len);
		free(order);
		return -ENOMEM;
	}
	for (r = 0; r < n; r++) {
		unsigned int i, end, k;

		order[r] = r;
		if (st[r]->flags & STACK_F_OVER || !st[r]->depth)
			continue;
		brief_range(ks[r], st[r], common, &i, &end);
		for (k = 0; i + k < end && k < APART_FRAMES; k++)
			h[r * APART_FRAMES + k] = frame_hash(ks[r], st[r]->ips[i + k]);
		len[r] = k;
	}
	a = (struct apart){ h, len };
	qsort_r(order, n, sizeof(*order), apart_cmp, &a);
	/* a row reads apart from the others once it shows one frame past its
	 * longest shared start with a neighbour in that order */
	for (r = 0; r + 1 < n; r++) {
		size_t x = order[r], y = order[r + 1];
		int need = (int)apart_lcp(&a, x, y) + 1;

		if (need > frames[x])
			frames[x] = need < (int)len[x]	? need
				    : (int)len[x] > min ? (int)len[x]
							: min;
		if (need > frames[y])
			frames[y] = need < (int)len[y]	? need
				    : (int)len[y] > min ? (int)len[y]
							: min;
	}
	free(h);
	free(len);
	free(order);
	return 0;
}

int brief_format_after(char *buf, size_t size, struct ksym *ks, const struct stack *st,
		       unsigned int common, int frames, int with_module)
{
	unsigned int i, end;
	uint64_t none = usym_stack_none(st->ips, st->depth);
	size_t len = 0;

	if (size)
		buf[0] = '\0';
	if (st->flags & STACK_F_OVER)
		return snprintf(buf, size, "[stacks not kept: over --max-memory]");
	if (!st->depth)
		return snprintf(buf, size, "(empty stack)");
	/*
	 * a user stack wanted and not had: said first, where no width cuts it
	 * off, then the kernel frames
	 */
	if (none)
		len = (size_t)snprintf(buf, size, "%s ", usym_none_label(none));
	brief_range(ks, st, common, &i, &end);
	if (i != brief_skip(ks, st))
		len += (size_t)snprintf(len < size ? buf + len : NULL, len < size ? size - len : 0,
					"... ");
	return brief_frames(buf, size, ks, st, i, end, frames, with_module, len);
}

int brief_common_format(char *buf, size_t size, struct ksym *ks, const struct stack *st,
			unsigned int common)
{
	unsigned int i = brief_skip(ks, st);

	if (size)
		buf[0] = '\0';
	if (i + common > st->depth)
		common = st->depth - i;
	return brief_frames(buf, size, ks, st, i, i + common, (int)common, 0, 0);
}

/* the function name of frame @i of @st, or NULL */
static const char *brief_name(struct ksym *ks, const struct stack *st, unsigned int i)
{
	struct ksym_hit hit;

	if (i >= st->depth || ksym_lookup_frame(ks, st->ips[i], &hit) < 0)
		return NULL;
	return hit.name;
}

unsigned int brief_common(struct ksym *ks, const struct rank_row *rows, size_t n)
{
	unsigned int common = UINT_MAX, skip0, k;
	const struct stack *s0;
	size_t r;

	if (!ks || n < 2)
		return 0;
	s0 = rows[0].stack;
	skip0 = brief_skip(ks, s0);
	for (r = 0; r < n && common; r++) {
		const struct stack *s = rows[r].stack;
		unsigned int skip = brief_skip(ks, s);

		/* one frame of each stack stays in view */
		if (s->depth <= skip + 1)
			return 0;
		if (s->depth - skip - 1 < common)
			common = s->depth - skip - 1;
		for (k = 0; k < common; k++) {
			const char *a = brief_name(ks, s0, skip0 + k),
				   *b = brief_name(ks, s, skip + k);

			if (!a || !b || strcmp(a, b))
				break;
		}
		common = k;
	}
	return common == UINT_MAX ? 0 : common;
}
