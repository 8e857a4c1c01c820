// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * diffcol.c - see diffcol.h. BEFORE does not change: its counts are read
 * once into an array sorted by key; each drawn row looks its key up.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "diffcol.h"
#include "export.h"
#include "session.h"
#include "stack_table.h"
#include "tui.h"

struct uidiff_ent {
	uint64_t key;
	uint64_t delta;
	uint64_t total;
};

struct uidiff {
	struct uidiff_ent *e;
	size_t n;
	uint64_t sum_delta;
	uint64_t sum_total;
};

static int ent_cmp(const void *pa, const void *pb)
{
	const struct uidiff_ent *a = pa, *b = pb;

	return a->key < b->key ? -1 : a->key > b->key;
}

static int add(struct stack *st, void *ctx)
{
	struct uidiff *d = ctx;
	(void)st;
	d->n++;
	return 0;
}

struct fill {
	struct uidiff *d;
	struct session *s;
};

static int fill(struct stack *st, void *ctx)
{
	struct fill *f = ctx;
	struct uidiff_ent *e = &f->d->e[f->d->n++];

	e->key = export_stack_key(session_ksym(f->s), st);
	e->total = st->total;
	e->delta = stack_delta(session_table(f->s), st);
	f->d->sum_total += e->total;
	f->d->sum_delta += e->delta;
	return 0;
}

int uidiff_new(struct ui *ui, struct session *before)
{
	struct uidiff *d = calloc(1, sizeof(*d));
	struct fill f = { .d = d, .s = before };
	size_t n;

	if (!d)
		return -ENOMEM;
	stack_table_foreach(session_table(before), add, d);
	n = d->n;
	d->e = calloc(n ? n : 1, sizeof(*d->e));
	if (!d->e) {
		free(d);
		return -ENOMEM;
	}
	d->n = 0;
	stack_table_foreach(session_table(before), fill, &f);
	qsort(d->e, d->n, sizeof(*d->e), ent_cmp);
	ui->diff = d;
	return 0;
}

bool uidiff_cell(struct ui *ui, const struct stack *st, uint64_t part, uint64_t whole, char *buf,
		 size_t size)
{
	const struct uidiff *d = ui->diff;
	struct uidiff_ent k = { .key = export_stack_key(ui->ks, st) }, *e;
	uint64_t bsum = ui->delta ? d->sum_delta : d->sum_total;
	double after = whole ? 100.0 * (double)part / (double)whole : 0, before;

	e = d->n ? bsearch(&k, d->e, d->n, sizeof(*d->e), ent_cmp) : NULL;
	if (!e || !(ui->delta ? e->delta : e->total)) {
		snprintf(buf, size, "NEW");
		return true;
	}
	before = bsum ? 100.0 * (double)(ui->delta ? e->delta : e->total) / (double)bsum : 0;
	snprintf(buf, size, "%+.1f", after - before);
	return false;
}

void uidiff_free(struct ui *ui)
{
	if (!ui->diff)
		return;
	free(ui->diff->e);
	free(ui->diff);
	ui->diff = NULL;
}
