/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * header.h - what the header of a view says about its session: the
 * counters (struct session_stats), the mode, what is traced, the origins
 * of merged snapshots, the stacks kept, user stacks, weights and grouping.
 * Computed once per refresh (report_head_fill(): the only place the
 * session is asked), then printed by whoever shows it: the batch report
 * as lines (report_head_print()), the screen as its header's segments
 * (ui/header.c). Neither reads the session for its header.
 */
#ifndef STACKTOP_HEADER_H
#define STACKTOP_HEADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "output/rows.h"
#include "source/stats.h"

struct session;

/**
 * struct report_head - a session's header, as of its last tick
 * @st: the counters (a copy)
 * @mode: the mode's name ("stackmap", "replay", ...)
 * @traced: what is traced, comma-separated (owned by the session)
 * @origin: the names of the origins of merged snapshots (owned by the
 *	    session; the array by the head), NULL when there are none
 * @norigins: entries in @origin
 * @nstacks: stacks (or groups) in the table ranked
 * @user: user stacks are being taken
 * @unit: what the weights count, UNIT_NONE when unweighted
 * @weight_name: what is weighed ("off-CPU", a field), "" when unweighted
 * @weight_total: the table's weight since start (weighted sessions)
 * @weight_delta: and in the last interval
 * @group_depth: grouped by the first N frames, 0: not by depth
 * @group_func: grouped by function
 * @group_by: --group-by's keys ("dso,sym"), "" when not
 */
struct report_head {
	struct session_stats st;
	const char *mode;
	const char *traced;
	const char **origin;
	unsigned int norigins;
	size_t nstacks;
	bool user;
	enum session_unit unit;
	const char *weight_name;
	uint64_t weight_total;
	uint64_t weight_delta;
	unsigned int group_depth;
	bool group_func;
	char group_by[40];
};

/**
 * export_group_by_text() - --group-by's keys as words, "dso,sym" ("" for none)
 * @buf: output
 * @size: its size
 * @keys: enum session_group_key, outermost first, 0-ended (NULL: none)
 *
 * Return: the wanted length (snprintf semantics).
 */
int export_group_by_text(char *buf, size_t size, const uint8_t *keys);

/**
 * report_lost_hint() - what to do about records lost in the ring buffer,
 * in words (the batch header's note, the screen's status line)
 * @st: session statistics (@lost not 0)
 * @buf: receives the sentence
 * @size: its size
 *
 * Return: true when there is something to say (a ring buffer stacktop reads
 * through tracefs, of known size).
 */
bool report_lost_hint(const struct session_stats *st, char *buf, size_t size);

/**
 * report_head_fill() - read the header of @s (after its session_tick())
 * @h: head; zeroed before its first fill, refilled as often as wanted
 * @s: session
 *
 * The strings stay the session's: valid until the session is closed.
 */
void report_head_fill(struct report_head *h, struct session *s);

/**
 * report_head_settings() - read again only what the screen can change
 *	between two refreshes: user stacks, the weight, the grouping
 * @h: a filled head
 * @s: session
 */
void report_head_settings(struct report_head *h, struct session *s);

/**
 * report_head_done() - free what report_head_fill() allocated
 * @h: head (zeroed, or filled)
 */
void report_head_done(struct report_head *h);

/**
 * report_head_print() - the batch report's header: the session's lines,
 *	then the view's (its filters, how many stacks it shows, how ranked)
 * @f: output
 * @h: the session's header
 * @o: the view
 * @iteration: the batch iteration (1 for the first)
 * @sum: the view's ranking summary
 * @event: the name of @o's event filter (NULL when it has none)
 */
void report_head_print(FILE *f, const struct report_head *h, const struct report_opts *o,
		       int iteration, const struct rank_summary *sum, const char *event);

#endif /* STACKTOP_HEADER_H */
