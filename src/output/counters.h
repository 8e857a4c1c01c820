/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * counters.h - the header's counters as tables the writers iterate: the
 * numbers, one entry per row of SESSION_COUNTERS (core/counters.h, which
 * says what each column means), in the list's order; and the words, one
 * row per place a counter is said in (a line of the batch header, a place
 * of the screen's header, the notes of a profile), in the order they are
 * said there. The batch header (output/header.c), the JSON snapshot
 * (output/json.c), the diff, pprof's comments, speedscope's name and the
 * screen's header (ui/uifmt.c) print a counter from its entry, never by
 * its name.
 */
#ifndef STACKTOP_OUTPUT_COUNTERS_H
#define STACKTOP_OUTPUT_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/counters.h"

struct session_stats;

/**
 * struct head_counter - one row of SESSION_COUNTERS
 * @field: the member's name
 * @off: where the member is in struct session_stats
 * @doff: where its _delta member is, SIZE_MAX when it has none
 * @type: HCY_U64, HCY_BYTES, HCY_U32 or HCY_BOOL
 * @delta: HCD_ND, HCD_D or HCD_DL
 * @jplace: its place in the JSON snapshot (HCJ_*), HCJ_NONE: not written
 * @jkey: its key there
 * @jdelta: "key_delta" is written after it (or after its place's totals)
 * @read: HCR_*: whether the reader needs it
 */
struct head_counter {
	const char *field;
	size_t off;
	size_t doff;
	unsigned char type;
	unsigned char delta;
	unsigned char jplace;
	const char *jkey;
	bool jdelta;
	unsigned char read;
};

/* the rows, HC_N of them, indexed by enum session_counter */
extern const struct head_counter head_counters[HC_N];

/* where a counter is said: the places of the table of words (counter_words) */
enum counter_place {
	/* the lines of the batch header (output/header.c) */
	CP_LOSS,
	CP_MAP,
	CP_DAMAGED,
	CP_OVER,
	CP_NOTE,
	CP_OFFCPU,
	/* the places of the screen's header (ui/uifmt.c) */
	CP_SCREEN_LOSS,
	CP_SCREEN_EVENTS,
	CP_SCREEN_RATES,
	CP_SCREEN_MAP,
	/* named when not 0: each side of --diff; pprof's comments and speedscope's name */
	CP_DIFF,
	CP_PROFILE,
	CP_N
};

/* a screen segment's @show: bits (the delta shown, only when not 0, an alert) */
enum { CW_DELTA = 1, CW_NZ = 2, CW_ALERT = 4 };
#define CW_SHOW_PLAIN	 0
#define CW_SHOW_DELTA	 (CW_DELTA | CW_ALERT)
#define CW_SHOW_NZ_ALERT (CW_NZ | CW_ALERT)
#define CW_SHOW_NZ_DELTA (CW_NZ | CW_DELTA)

/**
 * struct counter_word - a counter said in one place
 * @place: enum counter_place
 * @counter: enum session_counter (its entry of head_counters)
 * @show: a screen segment's CW_SHOW_* bits, 0 elsewhere
 * @words: a line's sentence ("%s" the value, a second "%s" the delta), a
 *	segment's label; NULL where the counter is named (by its JSON key)
 */
struct counter_word {
	unsigned char place;
	unsigned char counter;
	unsigned char show;
	const char *words;
};

/**
 * head_counter_value() - a counter's value in @st
 * @st: stats
 * @c: the counter (an entry of head_counters)
 *
 * Return: its count (a flag as 0 or 1).
 */
uint64_t head_counter_value(const struct session_stats *st, const struct head_counter *c);

/**
 * head_counter_delta() - a counter's count in the last interval
 * @st: stats
 * @c: the counter
 *
 * Return: its _delta member, 0 when it has none.
 */
uint64_t head_counter_delta(const struct session_stats *st, const struct head_counter *c);

/**
 * counter_words_at() - the counters said in one place, in the table's order
 * @place: enum counter_place
 * @ret: receives up to HC_N rows
 *
 * Return: how many.
 */
unsigned int counter_words_at(unsigned int place, const struct counter_word **ret);

/**
 * counter_said() - a counter's words with its value: @w's words (or,
 *	without them, "key value") with the first "%s" replaced by the value
 *	and a second by the delta
 * @buf: output
 * @size: its size
 * @st: stats
 * @w: the row
 * @human: the counts as fmt_count() makes them ("1.2k"), else in full
 *
 * Return: the length written (cut to @size), as snprintf().
 */
int counter_said(char *buf, size_t size, const struct session_stats *st,
		 const struct counter_word *w, bool human);

/**
 * counters_named() - "key N, key N": the counters of place @place (CP_DIFF,
 *	CP_PROFILE) that are not 0
 * @buf: output ("" when there are none)
 * @size: its size
 * @st: stats
 * @place: the place
 *
 * Return: the length written (cut to @size), 0 when there are none.
 */
int counters_named(char *buf, size_t size, const struct session_stats *st, unsigned int place);

#endif /* STACKTOP_OUTPUT_COUNTERS_H */
