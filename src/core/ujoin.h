/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ujoin.h - join user-stack samples (perf_event_open, src/kernel/perfsamp.c) to the
 * ftrace records of the same event hits.
 *
 * The kernel part of a stack comes from the ftrace ring buffer (or the stack
 * map); the user part from a perf sample of the same tracepoint. Both fire in
 * the same tracepoint call, so a record and its sample have the same CPU, the
 * same tid, the same event and timestamps a few microseconds apart - provided
 * both clocks are the same: the instance's trace_clock must be "mono" and the
 * perf events use CLOCK_MONOTONIC (perfsamp does).
 *
 * The two streams arrive independently (drained at different times, each CPU
 * on its own), so both sides wait in bounded pending queues. A record is
 * matched with the pending sample of its key nearest in time within the
 * tolerance; when none comes before the timeout, the record is given out
 * without a user stack and a reason (enum ujoin_why). Samples nobody claims
 * are dropped and counted. Single-threaded; the caller gives the time.
 */
#ifndef STACKTOP_UJOIN_H
#define STACKTOP_UJOIN_H

#include <stdbool.h>
#include <stdint.h>

/**
 * struct ujoin_key - what a record and its sample share
 * @cpu: CPU the event fired on
 * @tid: thread id
 * @event: the caller's event number (same numbering on both sides)
 */
struct ujoin_key {
	uint32_t cpu;
	uint32_t tid;
	uint32_t event;
};

/**
 * enum ujoin_why - what happened to a record's user stack
 * @UJOIN_OK: matched, the sample's payload has the user stack
 * @UJOIN_NO_SAMPLE: no sample came within the timeout
 * @UJOIN_SAMPLE_LOST: no sample, and perf reported lost samples on that CPU
 *	around the record's time (PERF_RECORD_LOST)
 * @UJOIN_UNWIND_FAILED: matched, but the sample could not be unwound
 * @UJOIN_NO_MAPS: matched, but the process's mappings were not known
 * @UJOIN_WHY_MAX: number of reasons
 */
enum ujoin_why {
	UJOIN_OK,
	UJOIN_NO_SAMPLE,
	UJOIN_SAMPLE_LOST,
	UJOIN_UNWIND_FAILED,
	UJOIN_NO_MAPS,
	UJOIN_WHY_MAX,
};

/**
 * struct ujoin_match - one record given out, with or without its sample
 * @key: the record's key
 * @rec_ts: the record's timestamp
 * @rec: the caller's handle of the record (ujoin_add_record())
 * @sample: the matched sample's payload (NULL when none); ownership passes
 *	to the emit callback
 * @sample_ts: the matched sample's timestamp (0 when none)
 * @why: the outcome
 */
struct ujoin_match {
	struct ujoin_key key;
	uint64_t rec_ts;
	uint64_t rec;
	void *sample;
	uint64_t sample_ts;
	enum ujoin_why why;
};

/**
 * struct ujoin_stats - counters since ujoin_new()
 * @why: records given out, by outcome
 * @records: records added
 * @samples: samples added (duplicates included)
 * @dup_samples: samples dropped as duplicates (same key and timestamp as a
 *	pending or already matched one)
 * @orphan_samples: samples no record claimed before the timeout
 * @overflow: entries pushed out early because the pending queue was full
 * @lost: samples perf reported lost (sum of PERF_RECORD_LOST counts)
 */
struct ujoin_stats {
	uint64_t why[UJOIN_WHY_MAX];
	uint64_t records;
	uint64_t samples;
	uint64_t dup_samples;
	uint64_t orphan_samples;
	uint64_t overflow;
	uint64_t lost;
};

/**
 * struct ujoin_opts - the join's bounds
 * @tolerance_ns: largest |record - sample| time difference that still
 *	matches (0: 100 us)
 * @timeout_ns: how long an entry waits for its partner, measured against
 *	the time given to ujoin_advance() (0: 500 ms)
 * @max_pending: records plus samples waiting at most (0: 16384)
 * @emit: receives each record given out (matched or not); takes ownership
 *	of match->sample; neither callback may call into the join
 * @drop: frees the payload of a sample nobody claimed (may be NULL)
 * @ctx: passed to @emit and @drop
 */
struct ujoin_opts {
	uint64_t tolerance_ns;
	uint64_t timeout_ns;
	unsigned int max_pending;
	void (*emit)(void *ctx, const struct ujoin_match *m);
	void (*drop)(void *ctx, void *sample);
	void *ctx;
};

struct ujoin;

/**
 * ujoin_new() - create a join
 * @opts: bounds and callbacks (@opts->emit is required)
 *
 * Return: the join, or NULL (errno: EINVAL, ENOMEM).
 */
struct ujoin *ujoin_new(const struct ujoin_opts *opts);

/**
 * ujoin_add_record() - an ftrace record of an event that wants a user stack
 * @j: the join
 * @key: its CPU, tid and event
 * @ts: its timestamp (trace_clock "mono", ns)
 * @rec: the caller's handle, given back in struct ujoin_match
 *
 * Emits the record at once when its sample is pending already.
 *
 * Return: 0, or -ENOMEM.
 */
int ujoin_add_record(struct ujoin *j, const struct ujoin_key *key, uint64_t ts, uint64_t rec);

/**
 * ujoin_add_sample() - a perf sample of an event hit
 * @j: the join
 * @key: its CPU, tid and event
 * @ts: its timestamp (CLOCK_MONOTONIC, ns)
 * @sample: the caller's payload (the unwound stack), handed to emit or drop
 * @why: UJOIN_OK, or UJOIN_UNWIND_FAILED / UJOIN_NO_MAPS for a sample whose
 *	stack could not be had (the record still gets the reason)
 *
 * Return: 0, or -ENOMEM; on -ENOMEM and for a duplicate the payload has
 * been passed to the drop callback already.
 */
int ujoin_add_sample(struct ujoin *j, const struct ujoin_key *key, uint64_t ts, void *sample,
		     enum ujoin_why why);

/**
 * ujoin_add_lost() - perf lost samples on a CPU (PERF_RECORD_LOST)
 * @j: the join
 * @cpu: the CPU whose ring overflowed
 * @ts: the time of the LOST record (the samples were lost between the
 *	previous sample of that CPU and this time)
 * @count: how many
 */
void ujoin_add_lost(struct ujoin *j, uint32_t cpu, uint64_t ts, uint64_t count);

/**
 * ujoin_advance() - give out what waited too long
 * @j: the join
 * @now: the current time on the same clock
 *
 * Records older than @now minus the timeout are emitted without a sample,
 * samples that old are dropped.
 */
void ujoin_advance(struct ujoin *j, uint64_t now);

/**
 * ujoin_flush() - give out everything pending (at the end of a session)
 * @j: the join
 */
void ujoin_flush(struct ujoin *j);

/**
 * ujoin_stats() - the counters
 * @j: the join
 * @st: filled
 */
void ujoin_stats(const struct ujoin *j, struct ujoin_stats *st);

/**
 * ujoin_why_name() - a reason as words, for reports
 * @why: the reason
 *
 * Return: a static string.
 */
const char *ujoin_why_name(enum ujoin_why why);

/**
 * ujoin_free() - free the join; pending samples go to the drop callback,
 * pending records are discarded without being emitted
 * @j: the join, or NULL
 */
void ujoin_free(struct ujoin *j);

#endif /* STACKTOP_UJOIN_H */
