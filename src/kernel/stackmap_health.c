// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * stackmap_health.c - see stackmap_health.h.
 */
#include <string.h>

#include "kernel/stackmap_health.h"

void stackmap_watch_reset(struct stackmap_watch *w)
{
	memset(w, 0, sizeof(*w));
	w->h.growth = -1;
	w->h.eta = -1;
	w->h.growth_before = -1;
}

void stackmap_watch_rebase(struct stackmap_watch *w)
{
	if (!w->have)
		return;
	w->base = w->last;
	w->h.successes_run = 0;
	w->h.drops_run = 0;
}

static void sample_push(struct stackmap_watch *w, double mono, uint64_t demand)
{
	unsigned int i;

	if (w->n == STACKMAP_WATCH_SAMPLES) {
		w->head = (w->head + 1) % STACKMAP_WATCH_SAMPLES;
		w->n--;
	}
	i = (w->head + w->n) % STACKMAP_WATCH_SAMPLES;
	w->t[i] = mono;
	w->d[i] = demand;
	w->n++;
}

/*
 * Growth per second from the newest sample at least the window old (else
 * the oldest); *@span: the seconds it was measured over
 */
static double sample_rate(const struct stackmap_watch *w, double mono, uint64_t demand,
			  double *span)
{
	unsigned int k, i, best = w->n;

	*span = 0;
	for (k = 0; k < w->n; k++) {
		i = (w->head + k) % STACKMAP_WATCH_SAMPLES;
		if (mono - w->t[i] >= STACKMAP_RATE_WINDOW)
			best = k;
	}
	if (best == w->n)
		best = 0;
	if (!w->n)
		return -1;
	i = (w->head + best) % STACKMAP_WATCH_SAMPLES;
	/* the session's first tick comes milliseconds after the first read */
	if (mono - w->t[i] < STACKMAP_RATE_MIN)
		return -1;
	*span = mono - w->t[i];
	return demand >= w->d[i] ? (double)(demand - w->d[i]) / (mono - w->t[i]) : 0;
}

static unsigned int log2_exact(uint64_t n)
{
	unsigned int b = 0;

	if (!n || (n & (n - 1)))
		return 0;
	while (n > 1) {
		n >>= 1;
		b++;
	}
	return b;
}

unsigned int stackmap_bits_for(uint64_t n)
{
	unsigned int b;

	for (b = STACKMAP_BITS_MIN; b <= STACKMAP_BITS_MAX; b++)
		if ((1ULL << b) >= n)
			return b;
	return STACKMAP_BITS_MAX + 1;
}

double stackmap_fallback_pct(uint64_t successes, uint64_t drops)
{
	if (!successes && !drops)
		return -1;
	return 100.0 * (double)drops / ((double)successes + (double)drops);
}

static void mark_full(struct stackmap_watch *w, double mono, int64_t wall, bool at_start)
{
	double span, g;

	/* how fast it was filling, up to this read (a fill within the first
	 * interval has no tick's measure) */
	if (!at_start) {
		g = sample_rate(w, mono, w->h.entries + w->h.fell_back, &span);
		if (g >= 0)
			w->h.growth_before = g;
	}
	w->h.full = true;
	w->h.full_at_start = at_start;
	w->h.full_since = wall;
	w->h.full_for = 0;
	w->h.eta = 0;
	w->h.warn = true;
	w->mono_full = mono;
	/* what was read up to the last mark: surely before it filled */
	if (!at_start)
		w->h.rb_at_full = w->rb_mark;
}

void stackmap_watch_mark(struct stackmap_watch *w, const struct stackmap_rb *rb)
{
	if (!w->h.full)
		w->rb_mark = *rb;
}

void stackmap_watch_stat(struct stackmap_watch *w, const struct stackmap_stat *st, double mono,
			 int64_t wall)
{
	struct stackmap_health *h = &w->h;
	bool at_cap = st->capacity && st->entries >= st->capacity;

	h->known = true;
	h->entries = st->entries;
	h->capacity = st->capacity;
	h->bits = log2_exact(st->capacity);
	if (!w->have) {
		w->have = true;
		w->base = w->last = w->tick = *st;
		sample_push(w, mono, st->entries + h->fell_back);
		if (at_cap)
			mark_full(w, mono, wall, true);
		return;
	}
	/* the pool used up, or the table refusing: drops grow from here on */
	if (!h->full && (at_cap || st->drops > w->last.drops))
		mark_full(w, mono, wall, false);
	w->last = *st;
	if (h->full)
		h->full_for = mono - w->mono_full;
}

void stackmap_watch_tick(struct stackmap_watch *w, double mono, uint64_t fell_back,
			 const struct stackmap_rb *rb)
{
	struct stackmap_health *h = &w->h;
	double need, span;
	uint64_t want;
	unsigned int n;

	if (!w->have)
		return;
	if (rb)
		stackmap_watch_mark(w, rb);
	h->successes_delta = w->last.successes - w->tick.successes;
	h->drops_delta = w->last.drops - w->tick.drops;
	h->successes_run = w->last.successes - w->base.successes;
	h->drops_run = w->last.drops - w->base.drops;
	w->tick = w->last;
	h->fell_back = fell_back;
	h->demand = h->entries + fell_back;
	h->growth = sample_rate(w, mono, h->demand, &span);
	/* a rate over less than the window is a start's burst of first sights */
	h->settled = span >= STACKMAP_RATE_WINDOW;
	sample_push(w, mono, h->demand);
	if (h->full) {
		h->eta = 0;
		h->full_for = mono - w->mono_full;
	} else {
		h->growth_before = h->growth;
		h->eta = h->capacity && h->growth > 0
				 ? (double)(h->capacity - h->entries) / h->growth
				 : -1;
	}
	h->warn = h->full || (h->settled && h->eta >= 0 && h->eta <= STACKMAP_WARN_SEC);
	h->bits_advice = 0;
	h->advice_short = false;
	if (!h->warn || !h->capacity)
		return;
	/*
	 * What was seen, and room for a minute more at this rate; before the
	 * rate is measured over its window (a start's burst of first sights
	 * would ask for 2^17 after a second), room for as many again
	 */
	if (h->settled)
		need = (double)h->demand + (h->growth > 0 ? h->growth * STACKMAP_ADVICE_SEC : 0);
	else
		need = 2.0 * (double)h->demand;
	want = need > 1e18 ? UINT64_MAX : (uint64_t)need;
	if ((double)want < need)
		want++;
	n = stackmap_bits_for(want);
	/* full with what it holds (a crowded table): a bigger one all the same */
	if (h->bits && n <= h->bits)
		n = h->bits + 1;
	if (n > STACKMAP_BITS_MAX) {
		n = STACKMAP_BITS_MAX;
		h->advice_short = true;
	}
	h->bits_advice = n;
}
