// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * counters.c - see counters.h: SESSION_COUNTERS as a table, the table of
 * the words that say them, and the few ways the writers put a counter
 * into words.
 */
#include <stdio.h>
#include <string.h>

#include "core/format.h"
#include "output/counters.h"
#include "source/stats.h"
#include "sym/ufile.h"

/* the remedy of 1-frame user stacks: a build without libunwind has no dwarf */
#if STACKTOP_USER_UNWIND
#define USTACK_ONE_REMEDY "--user=dwarf walks it, in the stacks mode"
#else
#define USTACK_ONE_REMEDY                                                                          \
	"this stacktop was built without libunwind: a build with it walks them by --user=dwarf"
#endif

#define UFILE_STR_(x) #x
#define UFILE_STR(x)  UFILE_STR_(x)

#define HC_ROW(field_, type_, delta_, from_, json_, read_)                                         \
	[HC_##field_] = {                                                                          \
		.field = #field_,                                                                  \
		.off = HC_OFF(field_),                                                             \
		.doff = HC_DOFF_##delta_(field_),                                                  \
		.type = HCY_##type_,                                                               \
		.delta = HCD_##delta_,                                                             \
		.jplace = HCJP_##json_,                                                            \
		.jkey = HCJK_##json_,                                                              \
		.jdelta = HCJD_##json_ && HCD_##delta_ != HCD_ND,                                  \
		.read = HCR_##read_,                                                               \
	},

const struct head_counter head_counters[HC_N] = { SESSION_COUNTERS(HC_ROW) };

/* a count is 64 bits wide, its delta too; the others are what their type says */
#define HC_CHECK(field_, type_, ...)                                                               \
	_Static_assert(sizeof(((struct session_stats *)0)->field_) == sizeof(HC_CTYPE_##type_),    \
		       "the member of " #field_ " is not of its row's type");
SESSION_COUNTERS(HC_CHECK)
#undef HC_CHECK

/*
 * The words: a row per place a counter is said in, grouped by place; in a
 * place, the counters come in the rows' order. A new counter shown
 * somewhere is a row here (and one in core/counters.h).
 *
 * LINE(line, field, "words"): a line of the batch header (output/header.c
 *	says how each line is laid out), "%s" standing for the value and a
 *	second one for the delta
 * SEG(place, field, "label", how): a segment of the screen's header
 *	(ui/uifmt.c), @how one of PLAIN, DELTA ("total (+n)", an alert when
 *	n > 0), NZ_ALERT (only when not 0, an alert), NZ_DELTA (only when not
 *	0, "total (+n)")
 * NAMED(place, field): named by its JSON key, with its value, when not 0
 */
/* clang-format off */
#define LINE(line, field, words)	{ CP_##line, HC_##field, 0, words }
#define SEG(place, field, label, how)	{ CP_SCREEN_##place, HC_##field, CW_SHOW_##how, label }
#define NAMED(place, field)		{ CP_##place, HC_##field, 0, NULL }

static const struct counter_word counter_words[] = {
	/* the batch header's loss line: lost: 3 (+1) overrun: 0 dropped: 0 */
	LINE(LOSS, lost, "lost: %s (+%s)"),
	LINE(LOSS, overrun, "overrun: %s"),
	LINE(LOSS, dropped, "dropped: %s"),
	/* stackmap and passive modes: the map's line */
	LINE(MAP, fallbacks, "fallbacks %s (+%s)"),
	LINE(MAP, unresolved, "unresolved ids %s"),
	LINE(MAP, bad_ids, "bad ids %s"),
	LINE(MAP, generation, "generation %s"),
	LINE(MAP, stackmap_on, "option %s"),
	/* "damaged data: ", those not 0 */
	LINE(DAMAGED, bad_pages, "%s malformed pages"),
	LINE(DAMAGED, damaged, "%s damaged records"),
	LINE(DAMAGED, orphans, "%s stack records with no event before them (not counted)"),
	/* "note: over --max-memory: ", those not 0 */
	LINE(OVER, mem_over_stacks, "%s new stacks not kept"),
	LINE(OVER, mem_over_hits, "%s hits counted without their stack or process"),
	/* a line of its own each, when not 0 */
	LINE(NOTE, mem_usym_refused,
	     "note: over --max-memory: %s user frames not kept (the symbolizer's quarter is "
	     "full; stacks end in the cut mark)"),
	LINE(NOTE, usym_files_big,
	     "note: over --max-memory: the symbols of %s files not loaded (larger than the "
	     "symbolizer's quarter; their frames show the file offset)"),
	LINE(NOTE, usym_files_refused,
	     "note: %s mapped files not read (not a regular file, on a FUSE mount, or its "
	     "reads stalled; their frames show the file offset)"),
	LINE(NOTE, user_files_stalled,
	     "note: %s reads of other users' files stalled (abandoned after "
	     UFILE_STR(UFILE_DEADLINE_MS) " ms; after " UFILE_STR(UFILE_STALLS_MAX) ", none "
	     "is read: their frames show the file offset)"),
	LINE(NOTE, drains_cut,
	     "note: reading fell behind the kernel (%s reads ended on their time budget "
	     "with data left; what the kernel overwrote is in lost/overrun)"),
	LINE(NOTE, throttled,
	     "note: perf throttled the sampling %s times (over "
	     "kernel.perf_event_max_sample_rate: fewer samples than asked)"),
	LINE(NOTE, exact_events,
	     "exact: %s events counted by perf (+%s); the rows' hits add up to it, each its "
	     "share of the samples' weights (a sample stands for the hits since the one "
	     "before): an estimate with its 95% interval"),
	LINE(NOTE, sample_unplaced,
	     "note: %s of the exact count's hits came before any sample of their event: in "
	     "no row yet"),
	LINE(NOTE, comm_unnamed,
	     "note: %s pid lookups found no command name (+%s in the interval; their rows "
	     "show ?: the process ended before stacktop asked, and saved_cmdlines or the "
	     "recording did not name it)"),
	LINE(NOTE, tick_whole,
	     "note: %s tick stacks had no interrupt entry frame: kept whole (--oncpu=tick "
	     "starts a stack at the interrupted function)"),
	LINE(NOTE, foreign,
	     "note: %s records of events this run does not trace were skipped, with their "
	     "stacks (left in the ring buffer by a run before it)"),
	LINE(NOTE, ustack_one,
	     "note: %s user stacks were a single frame: the frame-pointer walk found no "
	     "chain (code built without frame pointers; " USTACK_ONE_REMEDY ")"),
	/* "off-CPU pairing: ", after the share ended at the wakeup */
	LINE(OFFCPU, offcpu_unpaired, "%s switch-outs with neither (not counted)"),
	LINE(OFFCPU, offcpu_dropped, "%s not followed"),
	/* the screen's header: the losses */
	SEG(LOSS, lost, "lost", DELTA),
	SEG(LOSS, dropped, "dropped", DELTA),
	SEG(LOSS, overrun, "overrun", DELTA),
	SEG(LOSS, throttled, "throttled", NZ_ALERT),
	/* the events' segments */
	SEG(EVENTS, events, "events", PLAIN),
	SEG(EVENTS, filtered, "left out", NZ_DELTA),
	SEG(EVENTS, exact_events, "exact", NZ_DELTA),
	SEG(EVENTS, tick_whole, "untrimmed", NZ_ALERT),
	/* after the rates */
	SEG(RATES, comm_unnamed, "unnamed", NZ_DELTA),
	SEG(RATES, ustack_one, "1-frame user stacks", NZ_ALERT),
	/* stackmap mode: the map's */
	SEG(MAP, fallbacks, "fallbacks", DELTA),
	SEG(MAP, unresolved, "unresolved", NZ_ALERT),
	SEG(MAP, bad_ids, "bad ids", NZ_ALERT),
	SEG(MAP, generation, "gen", PLAIN),
	/* each side of --diff names these (none yet) */
	/* pprof's comments and speedscope's name name these */
	NAMED(PROFILE, exact_events),
	NAMED(PROFILE, sample_period),
};
/* clang-format on */
#undef LINE
#undef SEG
#undef NAMED

uint64_t head_counter_value(const struct session_stats *st, const struct head_counter *c)
{
	const char *p = (const char *)st + c->off;
	uint32_t v32;
	bool b;

	switch (c->type) {
	case HCY_U32:
		memcpy(&v32, p, sizeof(v32));
		return v32;
	case HCY_BOOL:
		memcpy(&b, p, sizeof(b));
		return b;
	default: {
		uint64_t v;

		memcpy(&v, p, sizeof(v));
		return v;
	}
	}
}

uint64_t head_counter_delta(const struct session_stats *st, const struct head_counter *c)
{
	uint64_t v;

	if (c->doff == SIZE_MAX)
		return 0;
	memcpy(&v, (const char *)st + c->doff, sizeof(v));
	return v;
}

unsigned int counter_words_at(unsigned int place, const struct counter_word **ret)
{
	unsigned int n = 0, i;

	for (i = 0; i < sizeof(counter_words) / sizeof(counter_words[0]) && n < HC_N; i++)
		if (counter_words[i].place == place)
			ret[n++] = &counter_words[i];
	return n;
}

/* @v as the header writes it: bytes, a flag, a count in full or made short */
static void hc_format(char *buf, size_t size, const struct head_counter *c, uint64_t v, bool human)
{
	if (c->type == HCY_BOOL)
		snprintf(buf, size, "%s", v ? "on" : "off");
	else if (c->type == HCY_BYTES && human)
		fmt_bytes(buf, size, v);
	else if (human && c->type != HCY_U32)
		fmt_count(buf, size, v);
	else
		snprintf(buf, size, "%llu", (unsigned long long)v);
}

/* @n bytes of @s at @len, as far as they fit; @len counts them all */
static void hc_put(char *buf, size_t size, size_t *len, const char *s, size_t n)
{
	if (*len + 1 < size) {
		size_t m = n < size - *len - 1 ? n : size - *len - 1;

		memcpy(buf + *len, s, m);
		buf[*len + m] = '\0';
	}
	*len += n;
}

int counter_said(char *buf, size_t size, const struct session_stats *st,
		 const struct counter_word *cw, bool human)
{
	const struct head_counter *c = &head_counters[cw->counter];
	char v[2][32];
	const char *w = cw->words, *s;
	size_t len = 0;
	int k = 0;

	hc_format(v[0], sizeof(v[0]), c, head_counter_value(st, c), human);
	hc_format(v[1], sizeof(v[1]), c, head_counter_delta(st, c), human);
	if (!w)
		return snprintf(buf, size, "%s %s", c->jkey ? c->jkey : c->field, v[0]);
	if (size)
		buf[0] = '\0';
	/* the words are data, not a format: "%s" is the one thing replaced */
	while (k < 2 && (s = strstr(w, "%s"))) {
		hc_put(buf, size, &len, w, (size_t)(s - w));
		hc_put(buf, size, &len, v[k], strlen(v[k]));
		w = s + 2;
		k++;
	}
	hc_put(buf, size, &len, w, strlen(w));
	return (int)len;
}

int counters_named(char *buf, size_t size, const struct session_stats *st, unsigned int place)
{
	const struct counter_word *w[HC_N];
	unsigned int n = counter_words_at(place, w), i;
	const char *sep = "";
	size_t len = 0;

	if (size)
		buf[0] = '\0';
	for (i = 0; i < n; i++) {
		const struct head_counter *c = &head_counters[w[i]->counter];
		uint64_t v = head_counter_value(st, c);
		int k;

		if (!v)
			continue;
		k = snprintf(len < size ? buf + len : NULL, len < size ? size - len : 0,
			     "%s%s %llu", sep, c->jkey ? c->jkey : c->field, (unsigned long long)v);
		if (k > 0)
			len += (size_t)k;
		sep = ", ";
	}
	return (int)len;
}
