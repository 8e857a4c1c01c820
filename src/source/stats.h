/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stats.h - the counters of a session, as its header shows them: the
 * sources fill them (struct source_ops.stats and tick, the map reader),
 * the session adds what ingest counted, and the outputs and the screen
 * read them (session_stats()). Plain values, no functions but the derived
 * ring-buffer saving.
 */
#ifndef STACKTOP_STATS_H
#define STACKTOP_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/counters.h"
#include "core/opts.h"
#include "core/ujoin.h"
#include "kernel/stackmap.h"
#include "kernel/stackmap_health.h"

/* the events whose exact counts (--sample) the counters keep apart */
#define STATS_EXACT_MAX 64

/* what a weight counts, from the field's name */
enum session_unit {
	UNIT_NONE,  /* unweighted: hits */
	UNIT_PLAIN, /* a number */
	UNIT_BYTES, /* a field named *bytes*, *size*, *len* */
	UNIT_NS,    /* nanoseconds: off-CPU time, a field named *ns*, *time*, *lat* */
};

/**
 * struct session_view - the view a read-back snapshot was written with
 * @sort: enum rank_key
 * @ascending: ascending order
 * @delta: ranks by the last interval (false: totals)
 * @event: event index filter, -1 for none
 * @pid: pid filter, -1 for none
 * @cpu: CPU filter, -1 for none
 * @hide_idle: idle stacks hidden
 * @top: stacks kept (0: all)
 * @filter: the screen's text filter, NULL for none (owned by the session)
 * @count: a weighted snapshot ranked by hits, not weights (--count)
 */
struct session_view {
	int sort;
	bool ascending;
	bool delta;
	int event;
	int pid;
	int cpu;
	bool hide_idle;
	int top;
	const char *filter;
	const char *comm;
	bool count;
};

/**
 * struct session_stats - what the header shows; all counts are since start
 * or the last reset unless named *_delta (last closed interval)
 */
struct session_stats {
	enum session_mode mode;
	char kernel[96];     /* uname release, sanitized */
	char tracefs[128];   /* root in use */
	double interval_sec; /* length of the last closed interval */
	/*
	 * the header's counters: one member per row of SESSION_COUNTERS
	 * (core/counters.h: what each counts), and a member field_delta, the
	 * last closed interval's count, where the row keeps one
	 */
	SESSION_COUNTERS(HC_MEMBERS)
	uint64_t map_reads; /* stack_map_bin snapshots read */
	bool have_map_stat;
	struct stackmap_stat map; /* valid when have_map_stat */
	struct stackmap_health
		health;	 /* the map's pool: fill, growth, since when full (health.known) */
	int map_abi;	 /* 1-4 when known from the files, else 0 */
	double self_cpu; /* stacktop's CPU % over the last interval */
	/* --sample: each event's every hit as perf counts it, by the session's event index */
	uint64_t exact_by_event[STATS_EXACT_MAX];
	bool behind;		  /* the last drain ran out of budget, data left */
	bool targets_gone;	  /* every -p process / --tid thread exited (at the last tick) */
	enum session_user user;	  /* the way user stacks are taken (OFF, FP or DWARF) */
	char user_note[160];	  /* why -u took fp rather than dwarf, "" if it did not */
	struct ujoin_stats ujoin; /* dwarf: events with and without a user stack, and why */
	unsigned int user_period; /* dwarf: one event in this many has a sample (1: all) */
	unsigned int user_stack;  /* dwarf: user stack bytes copied per sample */
	uint64_t user_ring;	  /* dwarf: the largest perf ring of a CPU, bytes */
	uint64_t user_ring_total; /* dwarf: every CPU's perf ring, bytes */
	uint64_t user_ring_grown; /* dwarf: rings replaced by a larger one after losses */
	uint64_t user_ring_full;  /* dwarf: rings found full when read (samples lost) */
	bool user_ring_auto;	  /* dwarf: rings grow where samples are lost (no --user-buffer)
				   */
};

/*
 * Where a row of SESSION_COUNTERS keeps its count in struct session_stats,
 * and its interval's (HC_DOFF_##delta(field): SIZE_MAX when it has none)
 */
#define HC_OFF(field)	  offsetof(struct session_stats, field)
#define HC_DOFF_ND(field) SIZE_MAX
#define HC_DOFF_D(field)  offsetof(struct session_stats, field##_delta)
#define HC_DOFF_DL(field) offsetof(struct session_stats, field##_delta)
/* and in struct ingest_stats (HC_IOFF_##from: expanded where ingest/ingest.h is) */
#define HC_IOFF_ING(member) offsetof(struct ingest_stats, member)
#define HC_IOFF_SRC	    SIZE_MAX

/*
 * session_counter_add() - add @v to the 64-bit counter at @off of @base
 * (struct session_stats, struct ingest_stats)
 */
static inline void session_counter_add(void *base, size_t off, uint64_t v)
{
	uint64_t x;

	memcpy(&x, (char *)base + off, sizeof(x));
	x += v;
	memcpy((char *)base + off, &x, sizeof(x));
}

/* the 64-bit counter at @off of @base */
static inline uint64_t session_counter_get(const void *base, size_t off)
{
	uint64_t x;

	memcpy(&x, (const char *)base + off, sizeof(x));
	return x;
}

/**
 * struct session_ringbuf - what the stack map saves in the ring buffer
 * @read_per_event: ring-buffer bytes of a stack record, as read (mean)
 * @alt_per_event: the same events' stack records in the other representation:
 *                 full stacks in stackmap mode, stack ids in stacks mode
 * @saving_pct: stackmap mode: share of the stack records' bytes the map
 *              saves, 100 * (alt - read) / alt; stacks mode: share of all the
 *              ring buffer read that the map would save, 100 * (read - alt) /
 *              bytes read (events included; stacks deeper than
 *              STACKMAP_MAX_DEPTH stay full)
 */
struct session_ringbuf {
	double read_per_event;
	double alt_per_event;
	double saving_pct;
};

/**
 * session_ringbuf_saving() - the stack map's value on this workload, from
 * the counters of @st (since start or the last reset)
 * @st: stats
 * @rb: filled when the answer is known
 *
 * Return: true in stackmap and stacks modes once a stack record of known
 * depth was read; false otherwise (passive and replay modes read no stacks
 * from a ring buffer of their own).
 */
static inline bool session_ringbuf_saving(const struct session_stats *st,
					  struct session_ringbuf *rb)
{
	double n = (double)st->sized_records, b = (double)st->sized_bytes,
	       a = (double)st->alt_bytes;

	if ((st->mode != SESSION_STACKMAP && st->mode != SESSION_STACKS) || !st->sized_records ||
	    !st->rb_bytes || !st->alt_bytes)
		return false;
	rb->read_per_event = b / n;
	rb->alt_per_event = a / n;
	if (st->mode == SESSION_STACKMAP)
		rb->saving_pct = 100.0 * (a - b) / a;
	else
		rb->saving_pct = 100.0 * (b - a) / (double)st->rb_bytes;
	return true;
}

/**
 * session_map_saves_split() - stackmap mode: what the map saved in the
 *	ring buffer before its pool filled, and since (the same measure as
 *	session_ringbuf_saving()'s saving_pct)
 * @st: stats
 * @before: percent before it filled, when the return has bit 1
 * @after: percent since, when the return has bit 2
 *
 * Return: 0 when the pool is not full (or the mode has no saving); bit 1:
 * @before is known (not when it was full at start), bit 2: @after is.
 */
static inline int session_map_saves_split(const struct session_stats *st, double *before,
					  double *after)
{
	const struct stackmap_rb *f = &st->health.rb_at_full;
	int r = 0;

	if (st->mode != SESSION_STACKMAP || !st->health.full)
		return 0;
	if (!st->health.full_at_start && f->records && f->alt) {
		*before = 100.0 * ((double)f->alt - (double)f->bytes) / (double)f->alt;
		r |= 1;
	}
	if (st->sized_records > f->records && st->alt_bytes > f->alt) {
		double a = (double)(st->alt_bytes - f->alt),
		       b = (double)(st->sized_bytes - f->bytes);

		*after = 100.0 * (a - b) / a;
		r |= 2;
	}
	return r;
}

#endif /* STACKTOP_STATS_H */
