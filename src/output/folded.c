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

#include "core/array.h"
#include "core/format.h"
#include "core/stack.h"
#include "core/rank.h"
#include "output/formats.h"
#include "output/losses.h"
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
static void folded_frames(FILE *f, struct ksym *ks, const struct stack *sk, bool first, bool rooted)
{
	int j, skip = (int)brief_skip(ks, sk);

	for (j = sk->depth - 1; j >= skip; j--) {
		/* the [user space] row and its command are no kernel frames: no suffix */
		bool user = usym_is_user(sk->ips[j]) || sk->ips[j] == STACK_IP_USER_MODE ||
			    STACK_IP_IS_COMM(sk->ips[j]) || sk->ips[j] == STACK_IP_LEFT_OUT;
		/* an inlined call: a frame of its own, "_[i]" as FlameGraph's --inline writes it */
		bool inl = usym_is_user(sk->ips[j]) && usym_is_inline(ksym_usym(ks), sk->ips[j]);
		char fn[256];
		size_t l;

		/* rooted at its command, a [user space]'s command frame says it again */
		if (usym_is_sep(sk->ips[j]) || (rooted && STACK_IP_IS_COMM(sk->ips[j])))
			continue;
		fmt_func(fn, sizeof(fn), ks, sk->ips[j], 0);
		l = strlen(fn);
		if (inl && l > 10 && !strcmp(fn + l - 10, " (inlined)"))
			fn[l - 10] = '\0';
		folded_clean(fn);
		fprintf(f, "%s%s%s", first ? "" : ";", fn, inl ? "_[i]" : user ? "" : "_[k]");
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
		if (ARRAY_GROW(*buf, *cap, n + 1) < 0)
			return -ENOMEM;
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

/* a folded line before its count: where its text starts, its count, its rank */
struct folded_line {
	size_t off;
	uint64_t n;
	size_t pos;
};

static const char *fl_text; /* the lines' texts, for the comparisons */

static int fl_by_text(const void *pa, const void *pb)
{
	const struct folded_line *a = pa, *b = pb;
	int r = strcmp(fl_text + a->off, fl_text + b->off);

	return r ? r : (a->pos > b->pos) - (a->pos < b->pos);
}

static int fl_by_pos(const void *pa, const void *pb)
{
	const struct folded_line *a = pa, *b = pb;

	return (a->pos > b->pos) - (a->pos < b->pos);
}

static int fl_add(struct folded_line **v, size_t *n, size_t *cap, size_t off, uint64_t c)
{
	if (ARRAY_GROW(*v, *cap, *n + 1) < 0)
		return -ENOMEM;
	(*v)[*n] = (struct folded_line){ off, c, *n };
	(*n)++;
	return 0;
}

/*
 * Two stacks can fold to the same line (they differ in an offset within a
 * function, or in the tracing machinery left out): one line each, counts
 * summed, in the order of the first (flamegraph.pl would merge them; other
 * readers may not)
 */
static int folded_merge(FILE *f, char *text, struct folded_line *v, size_t n, uint64_t *written)
{
	size_t i, m;

	fl_text = text;
	qsort(v, n, sizeof(*v), fl_by_text);
	for (i = 1, m = 0; i < n; i++) {
		if (!strcmp(text + v[i].off, text + v[m].off))
			v[m].n += v[i].n;
		else
			v[++m] = v[i];
	}
	if (n)
		n = m + 1;
	qsort(v, n, sizeof(*v), fl_by_pos);
	for (i = 0; i < n; i++) {
		fprintf(f, "%s %" PRIu64 "\n", text + v[i].off, v[i].n);
		*written += v[i].n;
	}
	return (int)n;
}

int export_folded_root(FILE *f, struct session *s, const struct report_opts *o)
{
	struct ksym *ks = session_ksym(s);
	struct folded_root *roots = NULL;
	struct folded_line *lv = NULL;
	struct rank_summary sum;
	struct rank_row *rows;
	size_t n, i, cap = 0, nl = 0, lcap = 0, tsize = 0;
	uint64_t written = 0;
	char *text = NULL;
	FILE *t;
	int lines = 0, r;

	r = export_rows(s, &o->rank, SIZE_MAX, &rows, &n, &sum);
	if (r < 0)
		return r;
	t = open_memstream(&text, &tsize);
	if (!t) {
		free(rows);
		return -ENOMEM;
	}
	for (i = 0; i < n && r >= 0; i++) {
		const struct stack *sk = rows[i].stack;
		uint64_t c = o->delta ? rows[i].delta : rows[i].total;
		int nr, k;

		if (!c)
			continue;
		if (o->root == EXPORT_ROOT_NONE) {
			long off = ftell(t);

			folded_frames(t, ks, sk, true, false);
			fputs(sk->depth ? "" : "[empty]", t);
			fputc('\0', t);
			r = off < 0 ? -EIO : fl_add(&lv, &nl, &lcap, (size_t)off, c);
			continue;
		}
		nr = folded_roots(s, sk, o, &roots, &cap);
		if (nr < 0) {
			r = nr;
			break;
		}
		for (k = 0; k < nr && r >= 0; k++) {
			long off = ftell(t);

			fputs(roots[k].comm, t);
			if (o->root == EXPORT_ROOT_PID && roots[k].pid >= 0)
				fprintf(t, ";%d", roots[k].pid);
			folded_frames(t, ks, sk, false, true);
			fputc('\0', t);
			r = off < 0 ? -EIO : fl_add(&lv, &nl, &lcap, (size_t)off, roots[k].n);
		}
	}
	free(roots);
	free(rows);
	if (fclose(t) && r >= 0)
		r = -ENOMEM;
	if (r >= 0)
		lines = folded_merge(f, text, lv, nl, &written);
	free(text);
	free(lv);
	if (r >= 0 && ferror(f))
		r = -EIO;
	if (r < 0)
		return r;
	if (o->lost_stack) {
		/* the events the ring buffer lost, as wide as the share they stand for */
		struct export_losses l;
		uint64_t est;

		export_losses_get(s, o->delta, &l);
		est = export_losses_scale(&l, written);
		if (est) {
			char fn[] = EXPORT_LOST_FRAME;

			folded_clean(fn); /* "[lost_events]", as any frame */
			fprintf(f, "%s %" PRIu64 "\n", fn, est);
			lines++;
		}
	}
	r = export_flush(f);
	return r < 0 ? r : lines;
}

int export_folded_note(char *buf, size_t size, struct session *s, const struct report_opts *o)
{
	const struct session_stats *st = session_stats(s);
	char text[320];
	struct fmt_out out;

	fmt_out_init(&out, buf, size);
	export_losses_note(&out, s, o->delta,
			   o->lost_stack ? ""
					 : " (--folded-lost adds them as the stack [lost_events])");
	/* dwarf: the events without a user stack are in it under a frame that says why */
	if (st->user == SESSION_USER_DWARF) {
		export_user_text(text, sizeof(text), st);
		if (strstr(text, " without")) {
			fmt_out_str(&out, out.len ? "\n" : "");
			fmt_out_str(&out, text);
			fmt_out_str(&out, " (their lines start with [user_stack_lost:_...] or "
					  "[user_stack_not_sampled])");
		}
	}
	return fmt_out_ret(&out);
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
