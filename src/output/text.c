// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * text.c - the batch report (export_report(), formats.h): the header
 * (header.h), the ranked table, the top stacks expanded into frames.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/format.h"
#include "core/hist.h"
#include "core/stack_table.h"
#include "core/rank.h"
#include "output/formats.h"
#include "output/header.h"
#include "output/rows.h"
#include "session/session.h"
#include "sym/brief.h"
#include "sym/frame.h"

#define EXPORT_MAX_TOP 100000

/*
 * An expanded stack's amount: the exact number, and in its unit when the
 * weight has one ("1.03s (1027825954ns)"), so neither a reader nor a
 * script has to guess what a bare 1027825954 counts.
 */
/*
 * Off-CPU: the threads of one stack, each with its time off the CPU as a
 * share of its wall time (the interval; totals: since start)
 */
/*
 * An expanded stack's amount: the exact number, and in its unit when the
 * weight has one ("1.03s (1027825954ns)"), so neither a reader nor a
 * script has to guess what a bare 1027825954 counts.
 */
static void expand_amount(char *buf, size_t size, uint64_t v, int unit)
{
	char h[16];

	if (unit != UNIT_NS && unit != UNIT_BYTES) {
		snprintf(buf, size, "%llu", (unsigned long long)v);
		return;
	}
	fmt_weight(h, sizeof(h), v, unit);
	snprintf(buf, size, "%s (%llu%s)", h, (unsigned long long)v, unit == UNIT_NS ? "ns" : "B");
}

/*
 * Off-CPU: the threads of one stack, each with its time off the CPU as a
 * share of its wall time (the interval; totals: since start)
 */
static void report_wall(FILE *f, struct session *s, const struct report_opts *o,
			const struct stack *sk, double dt)
{
	struct stack_table *t = session_table(s);
	const struct stack_attr *a;
	int pids[8], n = 0, i;
	uint64_t ns[8], rq[8];
	bool split = false;

	for (a = sk->attrs; a; a = a->next) {
		uint64_t d, w = export_attr_total(t, &o->rank, a, &d);
		bool runq = !strcmp(session_event(s, a->event), "offcpu:runqueue");

		if (o->delta)
			w = d;
		if (!w || !export_attr_passes(&o->rank, a))
			continue;
		for (i = 0; i < n && pids[i] != a->pid; i++)
			;
		if (i == n) {
			if (n == 8)
				continue;
			pids[n] = a->pid;
			rq[n] = 0;
			ns[n++] = 0;
		}
		ns[i] += w;
		if (runq) {
			rq[i] += w; /* --offcpu=wait: the part spent runnable */
			split = true;
		}
	}
	for (i = 0; i < n; i++) {
		char tm[16], pct[16], comm[24], bl[16], q[16], parts[64] = "";

		fmt_weight(tm, sizeof(tm), ns[i], UNIT_NS);
		fmt_fit(comm, sizeof(comm), session_comm(s, pids[i]), 15);
		if (split) {
			fmt_weight(bl, sizeof(bl), ns[i] - rq[i], UNIT_NS);
			fmt_weight(q, sizeof(q), rq[i], UNIT_NS);
			snprintf(parts, sizeof(parts), " (blocked %s, run queue %s)", bl, q);
		}
		if (o->delta) {
			fmt_percent(pct, sizeof(pct), ns[i], (uint64_t)(dt * 1e9));
			fprintf(f, "      off-CPU %s/%d: %s%s, %s%% of the interval\n", comm,
				pids[i], tm, parts, pct);
		} else {
			fprintf(f, "      off-CPU %s/%d: %s%s\n", comm, pids[i], tm, parts);
		}
	}
}

/* the stack's counts of its last intervals, oldest first (what the screen's TREND draws) */
static void report_trend(FILE *f, struct stack_table *t, const struct stack *sk, bool weight,
			 int unit)
{
	uint64_t v[STACK_TREND];
	int n = stack_trend(t, sk, weight, v, STACK_TREND), i;

	if (n == -ENOSPC) {
		fprintf(f, "      trend: not kept (--max-memory)\n");
		return;
	}
	if (n < 2)
		return;
	fprintf(f, "      trend (%s per interval, oldest first):", weight ? "weight" : "hits");
	for (i = 0; i < n; i++) {
		char b[16];

		fmt_weight(b, sizeof(b), v[i], unit);
		fprintf(f, " %s", b);
	}
	fputc('\n', f);
}

/*
 * The single weights of the stack's hits in log2 buckets, as bpftrace's
 * hist() prints them: the buckets from the first to the last with a
 * count, a bar of 52 '@' for the largest.
 */
static void report_hist(FILE *f, struct session *s, const struct stack *sk)
{
	struct stack_table *t = session_table(s);
	unsigned int scale = stack_table_hist_scale(t), first, last, b;
	uint64_t c[HIST_BUCKETS], max = 0, sum = 0;
	int lw = 0;

	if (!stack_hist(t, sk, c) || !hist_range(c, &first, &last))
		return;
	for (b = first; b <= last; b++) {
		char l[40];
		int w = hist_label(l, sizeof(l), scale, b);

		lw = w > lw ? w : lw;
		max = c[b] > max ? c[b] : max;
		sum += c[b];
	}
	fprintf(f, "      %s per hit, log2 buckets (%llu hits since start%s):\n",
		session_weight_name(s), (unsigned long long)sum,
		scale == HIST_TIME ? "" : "; K = 1024");
	for (b = first; b <= last; b++) {
		char l[40], bar[64];

		hist_label(l, sizeof(l), scale, b);
		hist_bar(bar, sizeof(bar), c[b], max, 52);
		fprintf(f, "      %-*s %8llu %s\n", lw, l, (unsigned long long)c[b], bar);
	}
}

/*
 * A table cell: @src cut to @width display columns (a long one ends in '~',
 * fmt_fit()), padded to them, and a blank: the next column never moves
 */
static void text_cell(FILE *f, const char *src, int width)
{
	char buf[256];
	int cols = fmt_fit(buf, sizeof(buf), src, width);

	fprintf(f, "%s%*s ", buf, cols < width ? width - cols : 0, "");
}

/* an expanded stack's count; --sample: an estimate, with its 95% interval (rows.h) */
static void expand_count(char *buf, size_t size, uint64_t v, uint64_t of, enum session_unit unit,
			 const struct session_stats *st)
{
	size_t l;

	expand_amount(buf, size, v, unit);
	l = strlen(buf);
	if (export_sampled(st) && l < size)
		snprintf(buf + l, size - l, " ±%llu",
			 (unsigned long long)export_sample_ci95(v, of, st));
}

/*
 * The frames each row's summary shows: 3, or as many as tell it from the
 * other rows (issue 35: two rows "finish_task_switch < __schedule <
 * schedule" that parted at the fourth frame). NULL: 3 each.
 */
static int *row_frames(struct ksym *ks, const struct rank_row *rows, size_t n, unsigned int common)
{
	const struct stack **st = calloc(n ? n : 1, sizeof(*st));
	struct ksym **kss = calloc(n ? n : 1, sizeof(*kss));
	int *fr = calloc(n ? n : 1, sizeof(*fr));
	size_t i;

	if (st && kss && fr) {
		for (i = 0; i < n; i++) {
			st[i] = rows[i].stack;
			kss[i] = ks;
		}
		if (brief_apart(kss, st, n, common, 3, fr) < 0) {
			free(fr);
			fr = NULL;
		}
	} else {
		free(fr);
		fr = NULL;
	}
	free(st);
	free(kss);
	return fr;
}

int export_report(FILE *f, struct session *s, const struct report_opts *o, int iteration)
{
	struct stack_table *t = session_table(s);
	struct ksym *ks = session_ksym(s);
	const struct session_stats *st = session_stats(s);
	struct report_head head = { 0 };
	struct rank_summary sum;
	struct rank_row *rows;
	unsigned int common;
	size_t n, i;
	int *nfr, top = o->top > 0 ? (o->top < EXPORT_MAX_TOP ? o->top : EXPORT_MAX_TOP) : 20;
	double dt = st->interval_sec > 0 ? st->interval_sec : 1;
	int unit = o->rank.weight ? (int)session_unit(s) : UNIT_NONE;
	bool origins = session_norigins(s) > 1;

	rows = calloc((size_t)top, sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	n = stack_table_rank(t, &o->rank, rows, (size_t)top, &sum);
	report_head_fill(&head, s);
	report_head_print(f, &head, o, iteration, &sum,
			  o->rank.event >= 0 ? session_event(s, (unsigned int)o->rank.event)
					     : NULL);
	report_head_done(&head);
	/* leaf frames every row shares are said once, the rows start after them */
	common = brief_common(ks, rows, n);
	if (common) {
		char shared[512];

		brief_common_format(shared, sizeof(shared), ks, rows[0].stack, common);
		fprintf(f, "every stack below starts with: %s (left out as \"...\")\n", shared);
	}
	fprintf(f, "%4s %-11s %7s %8s %6s %7s %-24s %-22s ", "RANK", "IDS",
		!o->rank.weight		     ? "HITS"
		: session_unit(s) == UNIT_NS ? "TIME"
					     : "WEIGHT",
		"TOTAL", "%", o->rank.weight ? "PER s" : "RATE/s", "EVENT", "COMM/PID");
	if (origins)
		fprintf(f, "%-16s ", "ORIGIN");
	fprintf(f, "%s\n", "STACK (leaf < callers)");
	nfr = row_frames(ks, rows, n, common);
	for (i = 0; i < n; i++) {
		const struct stack *sk = rows[i].stack;
		struct stack_top top_of;
		char ids[32], hits[16], total[16], pct[16], rate[16], leaf[1024], who[64], comm[24];

		/* who hits it most by the count the table ranks, under the filters */
		stack_top_of(t, sk, o->delta, &o->rank, &top_of);
		if (top_of.pid < 0 && o->delta)
			stack_top_of(t, sk, false, &o->rank, &top_of);
		fmt_ids(ids, sizeof(ids), sk->ids, sk->nids, !!(sk->flags & STACK_F_MOREIDS));
		fmt_weight(hits, sizeof(hits), rows[i].delta, unit);
		fmt_weight(total, sizeof(total), rows[i].total, unit);
		fmt_percent(pct, sizeof(pct), o->delta ? rows[i].delta : rows[i].total,
			    o->delta ? sum.delta : sum.total);
		if (unit != UNIT_NONE)
			fmt_weight(rate, sizeof(rate), (uint64_t)((double)rows[i].delta / dt),
				   unit);
		else
			fmt_rate(rate, sizeof(rate), (double)rows[i].delta / dt);
		brief_format_after(leaf, sizeof(leaf), ks, sk, common, nfr ? nfr[i] : 3, 1);
		if (top_of.pid >= 0) {
			char more[24] = "";
			int room;

			/* "dd/123 +4": four more pids hit this stack */
			if (top_of.npids > 1)
				snprintf(more, sizeof(more), " +%u", top_of.npids - 1);
			room = 22 - (int)strlen(more) - snprintf(NULL, 0, "/%d", top_of.pid);
			fmt_fit(comm, sizeof(comm), session_comm(s, top_of.pid),
				room < 6    ? 6
				: room > 15 ? 15
					    : room);
			snprintf(who, sizeof(who), "%s/%d%s", comm, top_of.pid, more);
		} else if (top_of.pid < -1) {
			/* exited processes folded into their command */
			fmt_fit(comm, sizeof(comm), session_comm(s, top_of.pid), 15);
			snprintf(who, sizeof(who), "%s/-", comm);
		} else {
			snprintf(who, sizeof(who), "-");
		}
		/* a long name (ftrace:function __x64_sys_newfstatat) is cut, never
		 * pushing the columns after it: whole in the expanded stacks below */
		fprintf(f, "%4zu %-11s %7s %8s %6s %7s ", i + 1, ids, hits, total, pct, rate);
		text_cell(f, top_of.event >= 0 ? session_event(s, (unsigned int)top_of.event) : "-",
			  24);
		text_cell(f, who, 22);
		if (origins) {
			char org[40];
			bool more;
			int og = export_top_origin(s, sk, &o->rank, o->delta, &more);

			snprintf(org, sizeof(org), "%s%s",
				 og >= 0 ? session_origin(s, (unsigned int)og) : "-",
				 more ? "+" : "");
			text_cell(f, org, 16);
		}
		fprintf(f, "%s%s\n", leaf, sk->flags & STACK_F_FALLBACK ? " (full stack)" : "");
	}
	free(nfr);
	if (!n)
		fprintf(f, "  (no stacks yet%s)\n",
			sum.matched ? "" : ": no event with a stack has been recorded");
	for (i = 0; i < n && (int)i < o->expand; i++) {
		const struct stack *sk = rows[i].stack;
		char ids[32], dv[48], tv[48];
		unsigned int j;

		struct stack_top top_of;
		const char *name;
		char ev[512];

		fmt_ids(ids, sizeof(ids), sk->ids, sk->nids, !!(sk->flags & STACK_F_MOREIDS));
		expand_count(dv, sizeof(dv), rows[i].delta, session_stats(s)->events_delta, unit,
			     session_stats(s));
		expand_count(tv, sizeof(tv), rows[i].total, session_stats(s)->events, unit,
			     session_stats(s));
		/* its event whole, as the table's EVENT column may have cut it */
		stack_top_of(t, sk, o->delta, &o->rank, &top_of);
		if (top_of.event < 0 && o->delta)
			stack_top_of(t, sk, false, &o->rank, &top_of);
		name = top_of.event >= 0 ? session_event(s, (unsigned int)top_of.event) : "-";
		fmt_sanitize(ev, sizeof(ev), name, strlen(name));
		fprintf(f, "\n#%zu  %s %s  total %s  depth %u  ids %s  event %s%s%s%s\n", i + 1,
			o->rank.weight ? session_weight_name(s) : "hits", dv, tv, sk->depth, ids,
			ev, sk->flags & STACK_F_FALLBACK ? "  [full kernel_stack]" : "",
			sk->flags & STACK_F_MERGED64 ? "  [64 frames: may merge deeper stacks]"
						     : "",
			sk->flags & STACK_F_CUT ? "  [cut]" : "");
		for (j = 0; j < sk->depth; j++) {
			char fr[600];

			fmt_frame_src(fr, sizeof(fr), ks, sk->ips[j]);
			fprintf(f, "    %s\n", fr);
		}
		if (unit == UNIT_NS)
			report_wall(f, s, o, sk, dt);
		report_trend(f, t, sk, o->rank.weight, unit);
		report_hist(f, s, sk);
	}
	fputc('\n', f);
	free(rows);
	return export_flush(f);
}
