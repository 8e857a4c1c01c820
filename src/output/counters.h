/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * counters.h - the header's counters as a table the writers iterate: one
 * entry per row of SESSION_COUNTERS (core/counters.h, which says what each
 * column means), in the list's order. The batch header (output/header.c),
 * the JSON snapshot (output/json.c), the diff, pprof's comments,
 * speedscope's name and the screen's header (ui/uifmt.c) print a counter
 * from its entry, never by its name.
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
 * @tline: its line of the batch header (HCT_*)
 * @tpos: its position among the line's
 * @text: its words there, "%s" the value, a second "%s" the delta
 * @splace: its place in the screen's header (HCS_*)
 * @spos: its position among the place's
 * @slabel: the segment's label
 * @show: HCS_SHOW_* bits
 * @extra: HCX_DIFF, HCX_NOTE bits
 * @help: what it counts
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
	unsigned char tline;
	unsigned char tpos;
	const char *text;
	unsigned char splace;
	unsigned char spos;
	unsigned char show;
	const char *slabel;
	unsigned char extra;
	const char *help;
};

/* the rows, HC_N of them, indexed by enum session_counter */
extern const struct head_counter head_counters[HC_N];

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
 * head_counters_at() - the counters of one line or place, in their
 *	position's order
 * @text: true: @where is a line of the batch header (HCT_*); false: a
 *	  place of the screen's header (HCS_*)
 * @where: the line or place
 * @ret: receives up to HC_N entries
 *
 * Return: how many.
 */
unsigned int head_counters_at(bool text, unsigned int where, const struct head_counter **ret);

/**
 * head_counter_words() - a counter's words with its value: @c's text (or,
 *	without one, "key value") with the first "%s" replaced by the value
 *	and a second by the delta
 * @buf: output
 * @size: its size
 * @st: stats
 * @c: the counter
 * @human: the counts as fmt_count() makes them ("1.2k"), else in full
 *
 * Return: the length written (cut to @size), as snprintf().
 */
int head_counter_words(char *buf, size_t size, const struct session_stats *st,
		       const struct head_counter *c, bool human);

/**
 * head_counters_brief() - "key N, key N": the counters whose row has
 *	@extra (HCX_DIFF, HCX_NOTE) and are not 0
 * @buf: output ("" when there are none)
 * @size: its size
 * @st: stats
 * @extra: the bit
 *
 * Return: the length written (cut to @size), 0 when there are none.
 */
int head_counters_brief(char *buf, size_t size, const struct session_stats *st, unsigned int extra);

#endif /* STACKTOP_OUTPUT_COUNTERS_H */
