// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * diff.c - see diff.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sym/brief.h"
#include "output/counters.h"
#include "output/diff.h"
#include "output/rows.h"
#include "core/format.h"
#include "sym/frame.h"
#include "session/session.h"
#include "core/stack_table.h"
#include "core/rank.h"

static int row_cmp(const void *pa, const void *pb)
{
	const struct diff_row *a = pa, *b = pb;
	double x = fabs(a->change), y = fabs(b->change);

	if (x != y)
		return x > y ? -1 : 1;
	if (a->share_after != b->share_after)
		return a->share_after > b->share_after ? -1 : 1;
	return a->key < b->key ? -1 : a->key > b->key;
}

static int key_cmp(const void *pa, const void *pb)
{
	const struct diff_row *a = pa, *b = pb;

	return a->key < b->key ? -1 : a->key > b->key;
}

static double pct(uint64_t n, uint64_t total)
{
	return total ? 100.0 * (double)n / (double)total : 0;
}

int diff_event_map(struct session *from, int ev, struct session *to)
{
	const char *name;
	unsigned int i;

	if (ev < 0)
		return -1;
	name = session_event(from, (unsigned int)ev);
	for (i = 0; i < session_nevents(to); i++)
		if (!strcmp(session_event(to, i), name))
			return (int)i;
	return DIFF_NO_EVENT;
}

int diff_compute(struct session *before, struct session *after, const struct report_opts *o,
		 struct diff *ret)
{
	struct rank_row *rb = NULL, *ra = NULL;
	struct rank_opts bo = o->rank;
	struct rank_summary sb, sa;
	size_t nb, na, i, j, n;
	struct diff_row *rows;
	int r;

	memset(ret, 0, sizeof(*ret));
	/* the event filter is AFTER's index: BEFORE's event of the same name */
	bo.event = diff_event_map(after, o->rank.event, before);
	r = export_rows(before, &bo, SIZE_MAX, &rb, &nb, &sb);
	if (r < 0)
		return r;
	r = export_rows(after, &o->rank, SIZE_MAX, &ra, &na, &sa);
	if (r < 0) {
		free(rb);
		return r;
	}
	rows = calloc(nb + na + 1, sizeof(*rows));
	if (!rows) {
		free(rb);
		free(ra);
		return -ENOMEM;
	}
	ret->total_before = o->delta ? sb.delta : sb.total;
	ret->total_after = o->delta ? sa.delta : sa.total;
	/* the before side, by key; a key twice (two stacks, one symbol text) adds up */
	for (i = 0, n = 0; i < nb; i++) {
		uint64_t c = o->delta ? rb[i].delta : rb[i].total;

		if (!c)
			continue;
		rows[n].key = export_stack_key(session_ksym(before), rb[i].stack);
		rows[n].before = rb[i].stack;
		rows[n].hits_before = c;
		n++;
	}
	qsort(rows, n, sizeof(*rows), key_cmp);
	for (i = 1, j = 0; i < n; i++) {
		if (rows[i].key == rows[j].key)
			rows[j].hits_before += rows[i].hits_before;
		else
			rows[++j] = rows[i];
	}
	nb = n ? j + 1 : 0;
	n = nb;
	for (i = 0; i < na; i++) {
		uint64_t c = o->delta ? ra[i].delta : ra[i].total;
		struct diff_row k = { .key = export_stack_key(session_ksym(after), ra[i].stack) },
				*hit;

		if (!c)
			continue;
		hit = nb ? bsearch(&k, rows, nb, sizeof(*rows), key_cmp) : NULL;
		if (!hit) {
			/* several after-stacks of one key: the first row takes them all */
			for (j = nb; j < n && rows[j].key != k.key; j++)
				;
			hit = &rows[j];
			if (j == n) {
				hit->key = k.key;
				n++;
			}
		}
		if (!hit->after)
			hit->after = ra[i].stack;
		hit->hits_after += c;
	}
	for (i = 0; i < n; i++) {
		rows[i].share_before = pct(rows[i].hits_before, ret->total_before);
		rows[i].share_after = pct(rows[i].hits_after, ret->total_after);
		rows[i].change = rows[i].share_after - rows[i].share_before;
		if (!rows[i].before)
			ret->nnew++;
		if (!rows[i].after)
			ret->ngone++;
	}
	qsort(rows, n, sizeof(*rows), row_cmp);
	ret->rows = rows;
	ret->n = n;
	free(rb);
	free(ra);
	return 0;
}

void diff_free(struct diff *d)
{
	free(d->rows);
	memset(d, 0, sizeof(*d));
}

static const char *mark(const struct diff_row *r)
{
	return !r->before ? "NEW" : !r->after ? "GONE" : "";
}

/* the stack of a row, with the symbols of the session it comes from */
static void row_stack(const struct diff_row *r, struct session *before, struct session *after,
		      const struct stack **sk, struct ksym **ks)
{
	*sk = r->after ? r->after : r->before;
	*ks = session_ksym(r->after ? after : before);
}

static void side_json(FILE *f, struct session *s, const struct diff *d, bool before)
{
	const struct session_stats *st = session_stats(s);
	const struct counter_word *w[HC_N];
	unsigned int n, i;

	fputs("{\"source\":", f);
	export_json_str(f, st->tracefs);
	fprintf(f, ",\"mode\":\"%s\",\"hits\":%" PRIu64 ",\"unique\":%zu",
		session_mode_name(st->mode), before ? d->total_before : d->total_after,
		stack_table_count(session_table(s)));
	/* the counters that say what a side's counts leave out (output/counters.c) */
	n = counter_words_at(CP_DIFF, w);
	for (i = 0; i < n; i++)
		fprintf(f, ",\"%s\":%" PRIu64, head_counters[w[i]->counter].jkey,
			head_counter_value(st, &head_counters[w[i]->counter]));
	fputc('}', f);
}

/* "before: FILE (MODE), N hits", and the counters of that side that are not 0 */
static void side_text(FILE *f, const char *name, struct session *s, uint64_t hits)
{
	const struct session_stats *st = session_stats(s);
	char more[256];

	fprintf(f, "%s %s (%s), %" PRIu64 " hits", name, st->tracefs, session_mode_name(st->mode),
		hits);
	if (counters_named(more, sizeof(more), st, CP_DIFF) > 0)
		fprintf(f, "; %s", more);
	fputc('\n', f);
}

static void write_json(FILE *f, struct session *before, struct session *after,
		       const struct report_opts *o, const struct diff *d, int iteration)
{
	size_t n = o->top > 0 && (size_t)o->top < d->n ? (size_t)o->top : d->n, i;

	fprintf(f,
		"{\"schema\":\"stacktop-diff\",\"version\":%d,\"stacktop\":\"%s\",\"iteration\":%d,"
		"\"counts\":\"%s\",\"before\":",
		DIFF_JSON_VERSION, STACKTOP_VERSION, iteration, o->delta ? "delta" : "total");
	side_json(f, before, d, true);
	fputs(",\"after\":", f);
	side_json(f, after, d, false);
	fprintf(f, ",\"new\":%zu,\"gone\":%zu,\"stacks\":[", d->nnew, d->ngone);
	for (i = 0; i < n; i++) {
		const struct diff_row *r = &d->rows[i];
		const struct stack *sk;
		struct ksym *ks;
		unsigned int j;

		row_stack(r, before, after, &sk, &ks);
		fprintf(f, "%s{\"key\":\"%016" PRIx64 "\",\"mark\":", i ? "," : "", r->key);
		if (*mark(r))
			fprintf(f, "\"%s\"", !r->before ? "new" : "gone");
		else
			fputs("null", f);
		fprintf(f,
			",\"hits_before\":%" PRIu64 ",\"hits_after\":%" PRIu64
			",\"share_before\":%.4f,\"share_after\":%.4f,\"change\":%.4f,\"depth\":%u,"
			"\"symbols\":[",
			r->hits_before, r->hits_after, r->share_before, r->share_after, r->change,
			sk->depth);
		for (j = 0; j < sk->depth; j++) {
			char fr[320];

			fmt_frame(fr, sizeof(fr), ks, sk->ips[j]);
			if (j)
				fputc(',', f);
			export_json_str(f, fr);
		}
		fputs("]}", f);
	}
	fputs("]}\n", f);
}

static void write_text(FILE *f, struct session *before, struct session *after,
		       const struct report_opts *o, const struct diff *d, int iteration)
{
	size_t n = (size_t)(o->top > 0 ? o->top : 20), i;
	const struct stack **sks;
	struct ksym **kss;
	int *fr;

	if (n > d->n)
		n = d->n;
	fprintf(f, "stacktop %s - diff - iteration %d\n", STACKTOP_VERSION, iteration);
	side_text(f, "before:", before, d->total_before);
	side_text(f, "after: ", after, d->total_after);
	fprintf(f,
		"%zu stacks: %zu new, %zu gone; share = hits %s / all hits; showing %zu, ranked by the change of share\n\n",
		d->n, d->nnew, d->ngone, o->delta ? "in the interval" : "in total", n);
	fprintf(f, "%4s %8s %8s %8s %-4s %s\n", "RANK", "BEFORE%", "AFTER%", "CHANGE", "",
		"STACK (leaf < callers)");
	/* rows that share their first frames show those that tell them apart */
	sks = calloc(n ? n : 1, sizeof(*sks));
	kss = calloc(n ? n : 1, sizeof(*kss));
	fr = calloc(n ? n : 1, sizeof(*fr));
	if (sks && kss && fr) {
		for (i = 0; i < n; i++)
			row_stack(&d->rows[i], before, after, &sks[i], &kss[i]);
		if (brief_apart(kss, sks, n, 0, 3, fr) < 0)
			memset(fr, 0, n * sizeof(*fr));
	}
	for (i = 0; i < n; i++) {
		const struct diff_row *r = &d->rows[i];
		const struct stack *sk;
		struct ksym *ks;
		char leaf[1024];

		row_stack(r, before, after, &sk, &ks);
		brief_format(leaf, sizeof(leaf), ks, sk, fr && fr[i] ? fr[i] : 3, 1);
		fprintf(f, "%4zu %7.2f%% %7.2f%% %+7.2f %-4s %s\n", i + 1, r->share_before,
			r->share_after, r->change, mark(r), leaf);
	}
	free(sks);
	free(kss);
	free(fr);
	if (!d->n)
		fprintf(f, "  (no stacks on either side)\n");
	fputc('\n', f);
}

int diff_write(FILE *f, struct session *before, struct session *after, const struct report_opts *o,
	       bool json, int iteration)
{
	struct diff d;
	int r;

	r = diff_compute(before, after, o, &d);
	if (r < 0)
		return r;
	if (json)
		write_json(f, before, after, o, &d, iteration);
	else
		write_text(f, before, after, o, &d, iteration);
	diff_free(&d);
	return export_flush(f);
}
