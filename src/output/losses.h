/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * losses.h - what an export says about the events it does not hold: the
 * ring buffer's losses over the view's period (the last interval, or since
 * start), the share of the events they stand for, and with -u how the user
 * stacks were taken (dwarf: how many events have none, and why). Every
 * format carries them (doc/formats.md, "Losses"): the JSON snapshot as
 * counters, pprof as comments, speedscope in its names, the flame graphs
 * in their header, folded as a line on standard error (the batch loop's);
 * with --folded-lost the stacks formats also get a stack of their own,
 * EXPORT_LOST_FRAME, as wide as the estimated share.
 *
 * The numbers are events (ingest_stats() says how the kernel's counts of
 * records become events): overrun, the events the kernel overwrote before
 * stacktop read them (an event read whose stack was overwritten is one);
 * dropped, those it refused; lost, every event missing from the counts,
 * overrun + dropped (+ the samples perf lost: --oncpu). The share is lost
 * per event written, lost / (events read + lost), and the events a view
 * misses are its count times lost / events read, on the assumption that
 * the losses strike every stack alike. Without a ring buffer (perf's
 * samples) the hits stand for the events read. A snapshot written before
 * these counted events (no "events_read") counted records: its losses are
 * read as it meant them, max(lost, overrun) + dropped records gone out of
 * the records read.
 */
#ifndef STACKTOP_LOSSES_H
#define STACKTOP_LOSSES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct session;
struct session_stats;

/* the name of the stack that stands for the lost events (--folded-lost) */
#define EXPORT_LOST_FRAME "[lost events]"

/**
 * struct export_losses - the losses of one period
 * @delta: the last interval (false: since start)
 * @records_unit: an older snapshot's: the counts below are records
 * @lost: events missing from the counts (records: reported missing)
 * @overrun: of them, events the kernel overwrote
 * @dropped: of them, events the kernel refused
 * @read: what @lost is out of: the events read whole (records read; the
 *        hits without a ring buffer); 0: not known (an older snapshot)
 */
struct export_losses {
	bool delta;
	bool records_unit;
	uint64_t lost;
	uint64_t overrun;
	uint64_t dropped;
	uint64_t read;
};

/**
 * export_losses_get() - the losses of @s over the last interval or since start
 * @s: session (after its tick)
 * @delta: the last interval
 * @l: filled
 */
void export_losses_get(struct session *s, bool delta, struct export_losses *l);

/* whether anything was lost, overrun or dropped */
bool export_losses_any(const struct export_losses *l);

/* events missing from the counts (@lost; an older snapshot's records gone) */
uint64_t export_losses_gone(const struct export_losses *l);

/**
 * export_losses_share() - the share of the events written that are missing
 *	from the counts, gone / (read + gone)
 * @l: losses
 *
 * Return: 0..1, or -1 when what was read is not known.
 */
double export_losses_share(const struct export_losses *l);

/**
 * export_losses_scale() - what a view counting @shown misses:
 *	@shown * gone / read, rounded
 * @l: losses
 * @shown: the view's count (hits or a weight) in the same period
 *
 * Return: the estimate, 0 when nothing was lost or what was read is not known.
 */
uint64_t export_losses_scale(const struct export_losses *l, uint64_t shown);

/**
 * export_losses_text() - one line for a reader: "lost 1234 events in the
 *	last interval (overrun 1234, dropped 0; 10000 read): 11.0% of the
 *	events are missing from the counts"
 * @buf: output
 * @size: its size
 * @l: losses
 *
 * Return: wanted length (snprintf semantics).
 */
int export_losses_text(char *buf, size_t size, const struct export_losses *l);

struct fmt_out;

/**
 * export_losses_note() - what a format whose lines have no place for it
 *	says on the batch loop's standard error: the losses over the view's
 *	period (export_losses_text(), then @hint) and --sample's estimates
 *	(export_sample_text()), a line each
 * @out: appended to
 * @s: session
 * @delta: the view counts the last interval
 * @hint: after the losses' line ("" for none)
 */
void export_losses_note(struct fmt_out *out, struct session *s, bool delta, const char *hint);

/**
 * export_user_text() - "" without -u; else how user stacks are taken and,
 *	for dwarf, how many events have none: "user stacks: dwarf, 950 of 1000
 *	events (95.0%) with one; 50 without: 30 no sample, 20 unwind failed"
 * @buf: output
 * @size: its size
 * @st: the session's counters
 *
 * Return: wanted length (snprintf semantics).
 */
int export_user_text(char *buf, size_t size, const struct session_stats *st);

#endif /* STACKTOP_LOSSES_H */
