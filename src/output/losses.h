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
 * The numbers: overrun (per-CPU stats) counts the records the writer
 * overwrote before stacktop read them; lost (page headers) counts the same
 * records as the reader meets the gap, at least one per gap (the kernel
 * stores the exact count on the page only when it fits); dropped (per-CPU
 * stats) the records a full buffer refused (overwrite off). The records
 * gone are max(lost, overrun) + dropped. A record is an event, its stack,
 * its user stack, or an event whose stack is not counted (a wakeup of
 * --offcpu): the share is records gone per record written, gone / (read +
 * gone), and the events a view misses are its count times gone / read, on
 * the assumption that the losses strike every stack alike.
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
 * @lost: records the ring buffer reported missing
 * @overrun: records the kernel overwrote (the same records as @lost)
 * @dropped: records the kernel refused
 * @records: records read in the period (0: not known, an older snapshot)
 */
struct export_losses {
	bool delta;
	uint64_t lost;
	uint64_t overrun;
	uint64_t dropped;
	uint64_t records;
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

/* records that never reached stacktop: max(lost, overrun) + dropped */
uint64_t export_losses_gone(const struct export_losses *l);

/**
 * export_losses_share() - the share of the records written that never
 *	reached stacktop, gone / (records + gone)
 * @l: losses
 *
 * Return: 0..1, or -1 when the records read are not known.
 */
double export_losses_share(const struct export_losses *l);

/**
 * export_losses_scale() - what a view counting @shown misses:
 *	@shown * gone / records, rounded
 * @l: losses
 * @shown: the view's count (hits or a weight) in the same period
 *
 * Return: the estimate, 0 when nothing was lost or the records are not known.
 */
uint64_t export_losses_scale(const struct export_losses *l, uint64_t shown);

/**
 * export_losses_text() - one line for a reader: "lost 1234, overrun 1234,
 *	dropped 0 ring-buffer records in the last interval (10000 read): about
 *	11.0% of the events are missing from the counts"
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
