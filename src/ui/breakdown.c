// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * breakdown.c - the pane under the list: who hits the selected stack (or
 * tree node) by event, comm(pid) and CPU, with user stacks by the library
 * of the leaf (a --group-by row: of the stacks it was made of), cached
 * while nothing it depends on changes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/format.h"
#include "sym/frame.h"
#include "ui/breakdown.h"
#include "ui/draw.h"
#include "ui/symcache.h"
#include "ui/tui.h"
#include "ui/views.h"

#define BD_TOP 8

struct bd_item {
	long key;
	uint64_t n;
};

/* the breakdown of one stack or tree node, kept while nothing it depends on changes */
struct breakdown {
	const void *what; /* the stack, or the tree node's key */
	uint64_t node_key;
	size_t nstacks;
	bool delta;
	uint32_t gen;		   /* ui->ranked_gen it was counted at */
	int f_event, f_pid, f_cpu; /* the filters it was counted under */
	char f_comm[UI_TEXT];
	uint64_t sum;
	int rows;
	int nev, npid, ncpu, norg, nlib;
	struct bd_item ev[BD_TOP], pid[BD_TOP], cpu[BD_TOP], org[BD_TOP], lib[BD_TOP];
	char comms[BD_TOP][32];
	char libs[BD_TOP][48];
};

struct breakdown *breakdown_new(void)
{
	return calloc(1, sizeof(struct breakdown));
}

void breakdown_forget(struct breakdown *bd)
{
	if (bd)
		bd->what = NULL;
}

void breakdown_free(struct breakdown *bd)
{
	free(bd);
}

static void bd_insert(struct bd_item *top, int *ntop, int max, long key, uint64_t n)
{
	int i;

	if (!n)
		return;
	if (*ntop == max && top[max - 1].n >= n)
		return;
	i = *ntop < max ? (*ntop)++ : max - 1;
	while (i > 0 && top[i - 1].n < n) {
		top[i] = top[i - 1];
		i--;
	}
	top[i].key = key;
	top[i].n = n;
}

static void bd_collect(struct hmap *m, struct bd_item *top, int *ntop, int max)
{
	size_t i;

	for (i = 0; i < m->cap; i++)
		if (m->keys[i])
			bd_insert(top, ntop, max, (long)(m->keys[i] - 1), m->vals[i]);
}

static void bd_add(struct hmap *m, long key, uint64_t n)
{
	uint64_t v = 0;

	hmap_get(m, (uint64_t)key + 1, &v);
	hmap_put(m, (uint64_t)key + 1, v + n);
}

struct bd_maps {
	struct hmap ev, pid, cpu, org, lib;
	const struct ui *ui;
};

/* the leaf's library of a stack the row was made of (--group-by), for one of its records */
static void bd_add_source(void *ctx, const struct stack_table *t, const struct stack *src,
			  const struct stack_attr *a)
{
	struct bd_maps *m = ctx;
	uint64_t n, d;

	if (!rank_attr_passes(&m->ui->rank, a))
		return;
	/* counted in its own table (its interval, its weights), as the row's */
	if (m->ui->rank.weight) {
		n = stack_attr_weight(t, a, &d);
		n = m->ui->delta ? d : n;
	} else {
		n = m->ui->delta ? stack_attr_delta(t, a) : a->total;
	}
	if (n)
		bd_add(&m->lib, (long)session_stack_dso(m->ui->s, src), n);
}

static void bd_add_stack(const struct ui *ui, struct breakdown *bd, struct bd_maps *m,
			 const struct stack *st)
{
	const struct stack_attr *a;
	/* the library of its leaf: one per stack, or of the stacks a --group-by row merged */
	long lib = ui->head.user && !session_group_by(ui->s)[0] ? (long)session_stack_dso(ui->s, st)
								: 0;

	for (a = st->attrs; a; a = a->next) {
		uint64_t n;

		/* what the row counts: only the hits that pass the filters */
		if (!rank_attr_passes(&ui->rank, a))
			continue;
		n = ui_attr_count(ui, a);
		if (!n)
			continue;
		bd->sum += n;
		bd_add(&m->ev, a->event, n);
		bd_add(&m->pid, a->pid, n);
		bd_add(&m->cpu, a->cpu, n);
		bd_add(&m->org, a->origin, n);
		if (lib)
			bd_add(&m->lib, lib, n);
	}
	if (ui->head.user && session_group_by(ui->s)[0])
		session_group_sources(ui->s, st, bd_add_source, m);
	bd->nstacks++;
}

/* one stack, or every stack of the list that passes through the node */
static void bd_compute(const struct ui *ui, struct breakdown *bd, const struct bd_subject *sub,
		       int rows)
{
	struct bd_maps m;
	int i;

	bd->what = sub->st ? (const void *)sub->st : sub->node;
	bd->node_key = sub->st ? 0 : sub->node_key;
	bd->delta = ui->delta;
	bd->f_event = ui->rank.event;
	bd->f_pid = ui->rank.pid;
	bd->f_cpu = ui->rank.cpu;
	snprintf(bd->f_comm, sizeof(bd->f_comm), "%s", ui->flt->comm);
	bd->gen = ui->ranked_gen;
	bd->rows = rows;
	bd->sum = 0;
	bd->nstacks = 0;
	bd->nev = bd->npid = bd->ncpu = bd->norg = bd->nlib = 0;
	m.ui = ui;
	hmap_init(&m.lib);
	hmap_init(&m.org);
	hmap_init(&m.ev);
	hmap_init(&m.pid);
	hmap_init(&m.cpu);
	if (sub->st) {
		bd_add_stack(ui, bd, &m, sub->st);
	} else {
		size_t k;

		for (k = 0; k < sub->nrows; k++)
			if (sub->has(sub->ctx, sub->node, sub->rows[k].stack))
				bd_add_stack(ui, bd, &m, sub->rows[k].stack);
	}
	bd_collect(&m.ev, bd->ev, &bd->nev, rows);
	bd_collect(&m.pid, bd->pid, &bd->npid, rows);
	bd_collect(&m.cpu, bd->cpu, &bd->ncpu, rows);
	bd_collect(&m.org, bd->org, &bd->norg, rows);
	bd_collect(&m.lib, bd->lib, &bd->nlib, rows);
	for (i = 0; i < bd->npid; i++)
		snprintf(bd->comms[i], sizeof(bd->comms[i]), "%s",
			 session_comm(ui->s, (int)bd->pid[i].key));
	for (i = 0; i < bd->nlib; i++)
		fmt_func(bd->libs[i], sizeof(bd->libs[i]), session_ksym(ui->s),
			 (uint64_t)bd->lib[i].key, 0);
	hmap_done(&m.ev);
	hmap_done(&m.pid);
	hmap_done(&m.cpu);
	hmap_done(&m.org);
	hmap_done(&m.lib);
}

/* display columns of @s (sanitized, as ui_put() shows it) */
static int bd_cols(const char *s)
{
	char b[512];

	return fmt_fit(b, sizeof(b), s, 511);
}

/*
 * Where the columns go (@x) and how wide they are (@wd, the blank after
 * included): a third (a quarter with origins) each, but a column that
 * needs less lends the rest, first to the events, so that a long event
 * name (ftrace:function __x64_sys_newfstatat) is shown whole, then to
 * comm(pid).
 */
static void bd_columns(const struct ui *ui, const struct breakdown *bd, int rows, int ncol, int *x,
		       int *wd)
{
	int need[5] = { 0, 0, 0, 0, 0 }, i, w = (ui->cols - 2) / ncol, slack = 0, give;

	for (i = 0; i < rows && i < bd->nev; i++) {
		int n = 14 + bd_cols(session_event(ui->s, (unsigned int)bd->ev[i].key)) + 1;

		need[0] = n > need[0] ? n : need[0];
	}
	for (i = 0; i < rows && i < bd->npid; i++) {
		/* "%6s %5s%% wall " and "comm(pid)" */
		int n = 19 + bd_cols(bd->comms[i]) + snprintf(NULL, 0, "(%ld)", bd->pid[i].key) + 1;

		need[1] = n > need[1] ? n : need[1];
	}
	for (i = 0; i < rows && i < bd->ncpu; i++) {
		int n = 14 + snprintf(NULL, 0, "cpu%ld", bd->cpu[i].key) + 1;

		need[2] = n > need[2] ? n : need[2];
	}
	need[3] = w; /* origins: their share */
	if (bd->nlib) {
		/* the libraries: the last column, as wide as their names */
		need[ncol - 1] = 0;
		for (i = 0; i < rows && i < bd->nlib; i++) {
			int n = 14 + bd_cols(bd->libs[i]) + 1;

			need[ncol - 1] = n > need[ncol - 1] ? n : need[ncol - 1];
		}
	}
	for (i = 0; i < ncol; i++)
		wd[i] = w;
	for (i = 1; i < ncol; i++) {
		if (need[i] < wd[i]) {
			slack += wd[i] - need[i];
			wd[i] = need[i];
		}
	}
	give = need[0] > wd[0] ? need[0] - wd[0] : 0;
	if (give > slack)
		give = slack;
	wd[0] += give;
	wd[1] += slack - give;
	x[0] = 1;
	for (i = 1; i < ncol; i++)
		x[i] = x[i - 1] + wd[i - 1];
}

void breakdown_draw(const struct ui *ui, struct breakdown *bd, const struct bd_subject *sub)
{
	const struct stack *st = sub->st;
	const void *nd = st ? NULL : sub->node;
	unsigned int frame = sub->frame;
	/* snapshots of several files (-r): a fourth column, by origin */
	bool origins = session_norigins(ui->s) > 1;
	int rows = ui->lay.bd_h - 1, i, x[5], wd[5], ncol = origins ? 4 : 3, lc;
	char buf[256], n1[16], pct[16];
	attr_t t = ui_attr(ui, UC_COLTITLE);

	if (ui->lay.bd_h <= 1 || !bd)
		return;
	if (rows > BD_TOP)
		rows = BD_TOP;
	for (i = 0; i < ui->lay.bd_h; i++) {
		move(ui->lay.bd_y + i, 0);
		clrtoeol();
	}
	if (!st && !nd) {
		ui_put(ui->lay.bd_y, 0, ui->cols, t, sub->none);
		return;
	}
	/*
	 * recomputed when the stack/node or the mode changes, or when the rows
	 * were ranked again from the live table (paused too: the pause ranks
	 * them afresh, refresh.c): the interval the breakdown counts is
	 * the one the rows show, not a newer one the table rolled to before the
	 * (debounced) ranking. It was the table's own interval: a draw between
	 * the roll and the ranking showed a breakdown that did not add up to its
	 * row, and a pause there kept it (tui-screen on a busy host, issue 25).
	 * Then it was the interval of the last ranking: a pause within the same
	 * interval ranked the rows again under a comm filter that now passed
	 * the pids whose exec was learned since, and kept the breakdown counted
	 * before (tui-screen, 1 run in 5 on a busy host); so every ranking.
	 */
	if ((st && bd->what != st) || (nd && (bd->what != nd || bd->node_key != sub->node_key)) ||
	    bd->delta != ui->delta || bd->rows != rows || bd->f_event != ui->rank.event ||
	    bd->f_pid != ui->rank.pid || bd->f_cpu != ui->rank.cpu ||
	    strcmp(bd->f_comm, ui->flt->comm) || bd->gen != ui->ranked_gen)
		bd_compute(ui, bd, sub, rows);
	/* with user stacks: a last column, by the library of the leaf */
	if (bd->nlib)
		ncol++;
	lc = bd->nlib ? ncol - 1 : -1;
	ui_fmt_count(ui, n1, sizeof(n1), bd->sum);
	if (st)
		snprintf(buf, sizeof(buf),
			 " breakdown of %s (%s %s, %u frames%s%s%s) by event, comm(pid), CPU%s%s",
			 frame < st->depth
				 ? symcache_name(ui->syms, symcache_id(ui->syms, st->ips[frame]))
				 : "?",
			 ui->delta ? "interval" : "total", n1, st->depth,
			 st->flags & STACK_F_MAPPED ? ", mapped" : "",
			 st->flags & STACK_F_FALLBACK ? ", full-stack" : "",
			 st->flags & STACK_F_CUT ? ", CUT" : "", origins ? ", origin" : "",
			 bd->nlib ? ", library" : "");
	else
		snprintf(
			buf, sizeof(buf),
			" breakdown of %s (%s %s, %zu stacks through it) by event, comm(pid), CPU%s%s",
			symcache_name(ui->syms, symcache_id(ui->syms, sub->node_ip)),
			ui->delta ? "interval" : "total", n1, bd->nstacks,
			origins ? ", origin" : "", bd->nlib ? ", library" : "");
	ui_put(ui->lay.bd_y, 0, ui->cols, t, buf);
	bd_columns(ui, bd, rows, ncol, x, wd);
	if (!bd->sum)
		ui_put(ui->lay.bd_y + 1, 1, ui->cols - 2, ui_attr(ui, UC_DIM),
		       ui->delta ? "no hits in the last interval (z shows totals)" : "no hits");
	for (i = 0; i < rows; i++) {
		if (i < bd->nev) {
			ui_fmt_count(ui, n1, sizeof(n1), bd->ev[i].n);
			fmt_percent(pct, sizeof(pct), bd->ev[i].n, bd->sum);
			snprintf(buf, sizeof(buf), "%6s %5s%% %s", n1, pct,
				 session_event(ui->s, (unsigned int)bd->ev[i].key));
			ui_put(ui->lay.bd_y + 1 + i, x[0], wd[0] - 1, ui_attr(ui, UC_NORMAL), buf);
		}
		if (i < bd->npid) {
			bool wall;

			ui_fmt_count(ui, n1, sizeof(n1), bd->pid[i].n);
			/* off-CPU: a thread's share of its wall time, not of the total */
			wall = ui_wall_pct(ui, pct, sizeof(pct), bd->pid[i].n);
			if (!wall)
				fmt_percent(pct, sizeof(pct), bd->pid[i].n, bd->sum);
			snprintf(buf, sizeof(buf), "%6s %5s%%%s %s(%ld)", n1, pct,
				 wall ? " wall" : "", bd->comms[i], bd->pid[i].key);
			ui_put(ui->lay.bd_y + 1 + i, x[1], wd[1] - 1, ui_attr(ui, UC_NORMAL), buf);
		}
		if (i < bd->ncpu) {
			ui_fmt_count(ui, n1, sizeof(n1), bd->cpu[i].n);
			fmt_percent(pct, sizeof(pct), bd->cpu[i].n, bd->sum);
			snprintf(buf, sizeof(buf), "%6s %5s%% cpu%ld", n1, pct, bd->cpu[i].key);
			ui_put(ui->lay.bd_y + 1 + i, x[2], ncol > 3 ? wd[2] - 1 : ui->cols - x[2],
			       ui_attr(ui, UC_NORMAL), buf);
		}
		if (origins && i < bd->norg) {
			ui_fmt_count(ui, n1, sizeof(n1), bd->org[i].n);
			fmt_percent(pct, sizeof(pct), bd->org[i].n, bd->sum);
			snprintf(buf, sizeof(buf), "%6s %5s%% %s", n1, pct,
				 session_origin(ui->s, (unsigned int)bd->org[i].key));
			ui_put(ui->lay.bd_y + 1 + i, x[3], ncol > 4 ? wd[3] - 1 : ui->cols - x[3],
			       ui_attr(ui, UC_NORMAL), buf);
		}
		if (lc >= 0 && i < bd->nlib) {
			ui_fmt_count(ui, n1, sizeof(n1), bd->lib[i].n);
			fmt_percent(pct, sizeof(pct), bd->lib[i].n, bd->sum);
			snprintf(buf, sizeof(buf), "%6s %5s%% %s", n1, pct, bd->libs[i]);
			ui_put(ui->lay.bd_y + 1 + i, x[lc], ui->cols - x[lc],
			       ui_attr(ui, UC_NORMAL), buf);
		}
	}
}
