// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * folded.c - folded stacks (export_folded(), formats.h): one line per
 * stack, root first, frames joined by ';', its count last; rooted at the
 * command (and pid) on request.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/format.h"
#include "core/stack_table.h"
#include "output/formats.h"
#include "output/rows.h"
#include "session/session.h"
#include "sym/brief.h"
#include "sym/frame.h"
#include "sym/ksym.h"
#include "sym/usym.h"

/* one root of a folded stack: a command (and pid) and its hits */
struct folded_root {
	char comm[64];
	int pid;
	uint64_t n;
};

static int root_cmp(const void *pa, const void *pb)
{
	const struct folded_root *a = pa, *b = pb;
	int r = strcmp(a->comm, b->comm);

	if (r)
		return r;
	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

/* folded frames must not carry the separators ';' and ' ' */
static void folded_clean(char *p)
{
	for (; *p; p++)
		if (*p == ';' || *p == ' ')
			*p = '_';
}

/*
 * root first: user frames (no suffix) then kernel frames (`_[k]`), down to
 * the first frame after the tracing machinery (brief_skip(): the screen
 * leaves it out too, and it varies with who else traces the event)
 */
static void folded_frames(FILE *f, struct ksym *ks, const struct stack *sk, bool first)
{
	int j, skip = (int)brief_skip(ks, sk);

	for (j = sk->depth - 1; j >= skip; j--) {
		bool user = usym_is_user(sk->ips[j]);
		char fn[256];

		if (usym_is_sep(sk->ips[j]))
			continue;
		fmt_func(fn, sizeof(fn), ks, sk->ips[j], 0);
		folded_clean(fn);
		fprintf(f, "%s%s%s", first ? "" : ";", fn, user ? "" : "_[k]");
		first = false;
	}
}

/* the roots of @sk under @o, merged by command (and pid); returns how many */
static int folded_roots(struct session *s, const struct stack *sk, const struct report_opts *o,
			struct folded_root **buf, size_t *cap)
{
	struct stack_table *t = session_table(s);
	const struct stack_attr *a;
	size_t n = 0, i, m;

	for (a = sk->attrs; a; a = a->next) {
		uint64_t d, c = export_attr_total(t, &o->rank, a, &d);

		if (o->delta)
			c = d;
		if (!c || !export_attr_passes(&o->rank, a))
			continue;
		if (n == *cap) {
			size_t nc = *cap ? *cap * 2 : 16;
			struct folded_root *nb = realloc(*buf, nc * sizeof(*nb));

			if (!nb)
				return -ENOMEM;
			*buf = nb;
			*cap = nc;
		}
		if (a->pid == -1)
			snprintf((*buf)[n].comm, sizeof((*buf)[n].comm), "[unknown]");
		else
			snprintf((*buf)[n].comm, sizeof((*buf)[n].comm), "%s",
				 session_comm(s, a->pid));
		folded_clean((*buf)[n].comm);
		(*buf)[n].pid = o->root == EXPORT_ROOT_PID ? a->pid : 0;
		(*buf)[n].n = c;
		n++;
	}
	if (!n)
		return 0;
	qsort(*buf, n, sizeof(**buf), root_cmp);
	for (i = 1, m = 0; i < n; i++) {
		if (!root_cmp(&(*buf)[i], &(*buf)[m]))
			(*buf)[m].n += (*buf)[i].n;
		else
			(*buf)[++m] = (*buf)[i];
	}
	return (int)(m + 1);
}

int export_folded_root(FILE *f, struct session *s, const struct report_opts *o)
{
	struct ksym *ks = session_ksym(s);
	struct folded_root *roots = NULL;
	struct rank_summary sum;
	struct rank_row *rows;
	size_t n, i, cap = 0;
	int lines = 0, r;

	r = export_rows(s, &o->rank, SIZE_MAX, &rows, &n, &sum);
	if (r < 0)
		return r;
	for (i = 0; i < n && r >= 0; i++) {
		const struct stack *sk = rows[i].stack;
		uint64_t c = o->delta ? rows[i].delta : rows[i].total;
		int nr, k;

		if (!c)
			continue;
		if (o->root == EXPORT_ROOT_NONE) {
			folded_frames(f, ks, sk, true);
			fprintf(f, "%s%" PRIu64 "\n", sk->depth ? " " : "[empty] ", c);
			lines++;
			continue;
		}
		nr = folded_roots(s, sk, o, &roots, &cap);
		if (nr < 0) {
			r = nr;
			break;
		}
		for (k = 0; k < nr; k++) {
			fputs(roots[k].comm, f);
			if (o->root == EXPORT_ROOT_PID && roots[k].pid >= 0)
				fprintf(f, ";%d", roots[k].pid);
			folded_frames(f, ks, sk, false);
			fprintf(f, " %" PRIu64 "\n", roots[k].n);
			lines++;
		}
		if (ferror(f))
			r = -EIO;
	}
	free(roots);
	free(rows);
	if (r < 0)
		return r;
	r = export_flush(f);
	return r < 0 ? r : lines;
}

int export_folded(FILE *f, struct session *s, const struct rank_opts *rank, bool delta)
{
	struct report_opts o = { .delta = delta, .root = EXPORT_ROOT_NONE };

	if (rank)
		o.rank = *rank;
	else
		o.rank = (struct rank_opts){ .key = RANK_TOTAL, .event = -1, .pid = -1, .cpu = -1 };
	return export_folded_root(f, s, &o);
}

