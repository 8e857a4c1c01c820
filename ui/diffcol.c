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

#include "diffcol.h"
#include "export.h"
#include "hmap.h"
#include "session.h"
#include "stack_table.h"
#include "tui.h"

struct uidiff_ent {
	uint64_t key;
	uint64_t delta;
	uint64_t total;
	struct stack *st; /* the first BEFORE stack of the key */
	uint32_t seen;    /* the uidiff_finish() round that saw the key in AFTER */
};

struct uidiff {
	struct uidiff_ent *e;
	size_t n;
	uint64_t sum_delta;
	uint64_t sum_total;
	struct ksym *ks;    /* BEFORE's symbols */
	struct hmap mine;   /* BEFORE's stack pointers -> 1 */
	struct hmap keys;   /* AFTER's stack pointers -> key (cache) */
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
	e->total = st->total;
	e->delta = stack_delta(session_table(f->s), st);
	e->st = st;
	f->d->sum_total += e->total;
	f->d->sum_delta += e->delta;
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
	/* one entry per key: two stacks of one symbol text add up */
	for (i = 1, j = 0; i < d->n; i++) {
		if (d->e[i].key == d->e[j].key) {
			d->e[j].total += d->e[i].total;
			d->e[j].delta += d->e[i].delta;
		} else {
			d->e[++j] = d->e[i];
		}
	}
	d->n = d->n ? j + 1 : 0;
	ui->diff = d;
	return 0;
}

static uint64_t after_key(struct ui *ui, const struct stack *st)
{
	struct uidiff *d = ui->diff;
	uint64_t k;

	if (hmap_get(&d->keys, (uintptr_t)st, &k))
		return k;
	k = export_stack_key(ui->ks, st);
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

struct ksym *uidiff_ksym(struct ui *ui, const struct stack *st)
{
	return uidiff_is_before(ui, st) ? ui->diff->ks : ui->ks;
}

size_t uidiff_ngone(const struct ui *ui)
{
	return ui->diff ? ui->diff->ngone : 0;
}

size_t uidiff_room(const struct ui *ui)
{
	return ui->diff ? ui->diff->n : 0;
}

enum uidiff_kind uidiff_row(struct ui *ui, const struct rank_row *rr, double *before,
			    double *change)
{
	struct uidiff *d = ui->diff;
	const struct uidiff_ent *e;
	uint64_t bsum = ui->delta ? d->sum_delta : d->sum_total, b = 0;
	uint64_t part = ui->delta ? rr->delta : rr->total;
	uint64_t whole = ui->delta ? ui->sum.delta : ui->sum.total;
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

void uidiff_sort(struct ui *ui, struct rank_row *rows, size_t n)
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
	bool filtered = r->match || r->attr_match || r->event >= 0 || r->pid >= 0 || r->cpu >= 0;
	size_t i;

	if (!d)
		return n;
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
	if (!ui->diff)
		return;
	hmap_done(&ui->diff->mine);
	hmap_done(&ui->diff->keys);
	free(ui->diff->e);
	free(ui->diff);
	ui->diff = NULL;
}
