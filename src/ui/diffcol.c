// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * diffcol.c - see diffcol.h. BEFORE does not change: its counts are read
 * once into an array sorted by key (a key twice adds up); AFTER's keys are
 * cached per stack, since a key is the hash of the stack's symbol text.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hmap.h"
#include "core/stack_table.h"
#include "core/rank.h"
#include "output/export.h"
#include "session/session.h"
#include "ui/diffcol.h"
#include "ui/draw.h"
#include "ui/tui.h"

struct uidiff_ent {
	uint64_t key;
	uint64_t delta; /* under the screen's event, pid and CPU filters */
	uint64_t total;
	struct stack *st;    /* the first BEFORE stack of the key */
	struct stack **more; /* the others of the key (one symbol text, two stacks) */
	size_t nmore;
	uint32_t seen; /* the uidiff_finish() round that saw the key in AFTER */
};

/* what BEFORE's counts were taken under: recounted when it changes */
struct uidiff_sig {
	int event; /* AFTER's event index */
	int pid;
	int cpu;
	bool weight;
};

struct uidiff {
	struct uidiff_ent *e;
	size_t n;
	uint64_t sum_delta;
	uint64_t sum_total;
	struct session *before;
	struct uidiff_sig sig;
	struct ksym *ks;  /* BEFORE's symbols */
	struct hmap mine; /* BEFORE's stack pointers -> 1 */
	struct hmap keys; /* AFTER's stack pointers -> key (cache) */
	uint32_t round;
	size_t ngone; /* GONE rows the last uidiff_finish() added */
};

static int ent_cmp(const void *pa, const void *pb)
{
	const struct uidiff_ent *a = pa, *b = pb;

	return a->key < b->key ? -1 : a->key > b->key;
}

static int count(struct stack *st, void *ctx)
{
	(void)st;
	(*(size_t *)ctx)++;
	return 0;
}

struct fill {
	struct uidiff *d;
	struct session *s;
	size_t cap;
};

static int fill(struct stack *st, void *ctx)
{
	struct fill *f = ctx;
	struct uidiff_ent *e;

	if (f->d->n >= f->cap)
		return 0;
	e = &f->d->e[f->d->n++];
	e->key = export_stack_key(session_ksym(f->s), st);
	e->st = st;
	return hmap_put(&f->d->mine, (uintptr_t)st, 1);
}

int uidiff_new(struct ui *ui, struct session *before)
{
	struct uidiff *d = calloc(1, sizeof(*d));
	struct fill f = { .d = d, .s = before };
	size_t n = 0, i, j;

	if (!d)
		return -ENOMEM;
	hmap_init(&d->mine);
	hmap_init(&d->keys);
	d->ks = session_ksym(before);
	stack_table_foreach(session_table(before), count, &n);
	d->e = calloc(n ? n : 1, sizeof(*d->e));
	f.cap = n;
	if (!d->e || stack_table_foreach(session_table(before), fill, &f) < 0) {
		ui->diff = d;
		uidiff_free(ui);
		return -ENOMEM;
	}
	qsort(d->e, d->n, sizeof(*d->e), ent_cmp);
	/* one entry per key: the other stacks of a symbol text go with it */
	for (i = 1, j = 0; i < d->n; i++) {
		if (d->e[i].key == d->e[j].key) {
			struct stack **m = realloc(d->e[j].more, (d->e[j].nmore + 1) * sizeof(*m));

			if (!m) {
				ui->diff = d;
				d->n = j + 1;
				uidiff_free(ui);
				return -ENOMEM;
			}
			m[d->e[j].nmore++] = d->e[i].st;
			d->e[j].more = m;
		} else {
			d->e[++j] = d->e[i];
		}
	}
	d->n = d->n ? j + 1 : 0;
	d->before = before;
	d->sig.event = -2; /* counted at the first ranking */
	ui->diff = d;
	return 0;
}

/* BEFORE's event of AFTER's event index @ev (by name), -2 when it has none */
static int before_event(struct ui *ui, int ev)
{
	struct session *b = ui->diff->before;
	const char *name;
	unsigned int i;

	if (ev < 0)
		return -1;
	name = session_event(ui->s, (unsigned int)ev);
	for (i = 0; name && i < session_nevents(b); i++)
		if (!strcmp(session_event(b, i), name))
			return (int)i;
	return -2;
}

/* one BEFORE stack under the screen's event, pid and CPU filters and count */
static void count_stack(struct uidiff *d, const struct stack *st, int bev, uint64_t *total,
			uint64_t *delta)
{
	struct stack_table *t = session_table(d->before);
	bool weight = d->sig.weight && stack_table_weighted(t);
	const struct stack_attr *a;
	uint64_t wd;

	if (bev == -1 && d->sig.pid < 0 && d->sig.cpu < 0) {
		if (weight) {
			*total += stack_weight(t, st, &wd);
			*delta += wd;
		} else {
			*total += st->total;
			*delta += stack_delta(t, st);
		}
		return;
	}
	for (a = st->attrs; a && bev != -2; a = a->next) {
		if ((bev >= 0 && a->event != bev) || (d->sig.pid >= 0 && a->pid != d->sig.pid) ||
		    (d->sig.cpu >= 0 && a->cpu != d->sig.cpu))
			continue;
		if (weight) {
			*total += stack_attr_weight(t, a, &wd);
			*delta += wd;
		} else {
			*total += a->total;
			*delta += stack_attr_delta(t, a);
		}
	}
}

/* BEFORE's counts again when the filters or the count (hits, weight) changed */
void uidiff_recount(struct ui *ui)
{
	struct uidiff *d = ui->diff;
	struct uidiff_sig sig = { .event = ui->rank.event,
				  .pid = ui->rank.pid,
				  .cpu = ui->rank.cpu,
				  .weight = ui->rank.weight };
	size_t i, k;
	int bev;

	if (!memcmp(&sig, &d->sig, sizeof(sig)))
		return;
	d->sig = sig;
	bev = before_event(ui, sig.event);
	d->sum_total = d->sum_delta = 0;
	for (i = 0; i < d->n; i++) {
		struct uidiff_ent *e = &d->e[i];

		e->total = e->delta = 0;
		count_stack(d, e->st, bev, &e->total, &e->delta);
		for (k = 0; k < e->nmore; k++)
			count_stack(d, e->more[k], bev, &e->total, &e->delta);
		d->sum_total += e->total;
		d->sum_delta += e->delta;
	}
}

static uint64_t after_key(const struct ui *ui, const struct stack *st)
{
	struct uidiff *d = ui->diff;
	uint64_t k;

	if (hmap_get(&d->keys, (uintptr_t)st, &k))
		return k;
	k = export_stack_key(ui->syms->ks, st);
	hmap_put(&d->keys, (uintptr_t)st, k); /* no room: looked up again next time */
	return k;
}

static struct uidiff_ent *find(struct uidiff *d, uint64_t key)
{
	struct uidiff_ent k = { .key = key };

	return d->n ? bsearch(&k, d->e, d->n, sizeof(*d->e), ent_cmp) : NULL;
}

bool uidiff_is_before(const struct ui *ui, const struct stack *st)
{
	return ui->diff && hmap_get(&ui->diff->mine, (uintptr_t)st, NULL);
}

struct ksym *uidiff_ksym(const struct ui *ui, const struct stack *st)
{
	return uidiff_is_before(ui, st) ? ui->diff->ks : ui->syms->ks;
}

size_t uidiff_ngone(const struct ui *ui)
{
	return ui->diff ? ui->diff->ngone : 0;
}

size_t uidiff_room(const struct ui *ui)
{
	return ui->diff ? ui->diff->n : 0;
}

enum uidiff_kind uidiff_row(const struct ui *ui, const struct rank_row *rr, double *before,
			    double *change)
{
	struct uidiff *d = ui->diff;
	const struct uidiff_ent *e;
	uint64_t bsum = ui->delta ? d->sum_delta : d->sum_total, b = 0;
	uint64_t part = ui->delta ? rr->delta : rr->total;
	uint64_t whole = ui->delta ? ui->rows.sum.delta : ui->rows.sum.total;
	double after = whole ? 100.0 * (double)part / (double)whole : 0;

	if (uidiff_is_before(ui, rr->stack)) {
		/* a GONE row: its own key, counted before only */
		e = find(d, export_stack_key(d->ks, rr->stack));
		after = 0;
		part = 0;
	} else {
		e = find(d, after_key(ui, rr->stack));
	}
	if (e)
		b = ui->delta ? e->delta : e->total;
	*before = bsum ? 100.0 * (double)b / (double)bsum : 0;
	*change = after - *before;
	if (!b && part)
		return UIDIFF_NEW;
	if (b && !part)
		return UIDIFF_GONE;
	return UIDIFF_BOTH;
}

struct sortent {
	double change;
	double after;
	uint64_t key;
	struct rank_row row;
};

static int sort_cmp(const void *pa, const void *pb)
{
	const struct sortent *a = pa, *b = pb;
	double x = fabs(a->change), y = fabs(b->change);

	if (x != y)
		return x > y ? -1 : 1;
	if (a->after != b->after)
		return a->after > b->after ? -1 : 1;
	return a->key < b->key ? -1 : a->key > b->key;
}

void uidiff_sort(const struct ui *ui, struct rank_row *rows, size_t n)
{
	struct sortent *s;
	size_t i;

	if (!ui->diff || n < 2)
		return;
	s = calloc(n, sizeof(*s));
	if (!s) {
		ui_status(ui, true, "out of memory sorting %zu rows by their change", n);
		return;
	}
	for (i = 0; i < n; i++) {
		double before;

		uidiff_row(ui, &rows[i], &before, &s[i].change);
		s[i].after = s[i].change + before;
		s[i].key = uidiff_is_before(ui, rows[i].stack)
				   ? export_stack_key(ui->diff->ks, rows[i].stack)
				   : after_key(ui, rows[i].stack);
		s[i].row = rows[i];
	}
	qsort(s, n, sizeof(*s), sort_cmp);
	for (i = 0; i < n; i++)
		rows[ui->rank.invert ? n - 1 - i : i] = s[i].row;
	free(s);
}

size_t uidiff_finish(struct ui *ui, struct rank_row *rows, size_t n, size_t cap)
{
	struct uidiff *d = ui->diff;
	const struct rank_opts *r = &ui->rank;
	/* a text or comm filter matches AFTER's names: BEFORE's stacks are not tried */
	bool filtered = r->match || r->attr_match;
	size_t i;

	if (!d)
		return n;
	uidiff_recount(ui);
	d->ngone = 0;
	if (!filtered) {
		/* BEFORE's keys no row of AFTER has: GONE rows */
		if (!++d->round)
			d->round = 1;
		for (i = 0; i < n; i++) {
			struct uidiff_ent *e = find(d, after_key(ui, rows[i].stack));

			if (e)
				e->seen = d->round;
		}
		for (i = 0; i < d->n && n < cap; i++) {
			const struct uidiff_ent *e = &d->e[i];

			if (e->seen == d->round || !(ui->delta ? e->delta : e->total))
				continue;
			rows[n].stack = e->st;
			rows[n].total = 0;
			rows[n].delta = 0;
			n++;
			d->ngone++;
		}
	}
	if (ui->diff_sort)
		uidiff_sort(ui, rows, n);
	return n;
}

void uidiff_forget(struct ui *ui)
{
	if (ui->diff)
		hmap_clear(&ui->diff->keys);
}

void uidiff_free(struct ui *ui)
{
	size_t i;

	if (!ui->diff)
		return;
	hmap_done(&ui->diff->mine);
	hmap_done(&ui->diff->keys);
	for (i = 0; i < ui->diff->n; i++)
		free(ui->diff->e[i].more);
	free(ui->diff->e);
	free(ui->diff);
	ui->diff = NULL;
}
