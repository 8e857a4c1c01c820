/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ujoin.h - join user-stack samples (perf_event_open, src/kernel/perfsamp.c) to the
 * ftrace records of the same event hits.
 *
 * The kernel part of a stack comes from the ftrace ring buffer (or the stack
 * map); the user part from a perf sample of the same tracepoint. Both fire in
 * the same tracepoint call, so a record and its sample have the same CPU, the
 * same tid, the same event and timestamps a few hundred nanoseconds apart
 * (more when an interrupt comes between the two probes) - provided both
 * clocks are the same: the instance's trace_clock must be "mono" and the
 * perf events use CLOCK_MONOTONIC (perfsamp does).
 *
 * The two streams arrive independently (drained at different times, each CPU
 * on its own), so both sides wait in bounded pending queues, one pair per
 * key. For a key, records and samples alternate in time (one thread's hits
 * come one after the other, each running both probes in a fixed order): a
 * sample belongs to the latest record before it (or, when perf's probe runs
 * first, the other way round: learned per event), once the records of its
 * CPU are known up to its time. A record passed by its key's next pair has
 * no sample and is given out with a reason (enum ujoin_why); a sample with
 * no record before it is dropped and counted; what waits longer is given
 * out at the timeout. A caller that holds a sample back to add it later,
 * out of order, says so (ujoin_hold()). Single-threaded; the caller gives
 * the time.
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
 * @UJOIN_NOT_SAMPLED: no sample, as expected: only one hit in
 *	struct ujoin_opts.period is sampled
 * @UJOIN_WHY_MAX: number of reasons
 */
enum ujoin_why {
	UJOIN_OK,
	UJOIN_NO_SAMPLE,
	UJOIN_SAMPLE_LOST,
	UJOIN_UNWIND_FAILED,
	UJOIN_NO_MAPS,
	UJOIN_NOT_SAMPLED,
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
 * @order_changes: events whose pairs showed perf's probe runs first (or
 *	back again)
 */
struct ujoin_stats {
	uint64_t why[UJOIN_WHY_MAX];
	uint64_t records;
	uint64_t samples;
	uint64_t dup_samples;
	uint64_t orphan_samples;
	uint64_t overflow;
	uint64_t lost;
	uint64_t order_changes;
};

/**
 * struct ujoin_opts - the join's bounds
 * @tolerance_ns: slack around a window of lost samples (0: 100 us)
 * @timeout_ns: how long an entry waits for its partner, measured against
 *	the time given to ujoin_advance() (0: 500 ms)
 * @max_pending: records plus samples waiting at most (0: 16384)
 * @period: one hit in @period has a sample (0 or 1: every hit); a record
 *	without one is UJOIN_NOT_SAMPLED, but for as many as perf reported
 *	lost around its time on its CPU (UJOIN_SAMPLE_LOST)
 * @emit: receives each record given out (matched or not); takes ownership
 *	of match->sample; neither callback may call into the join
 * @drop: frees the payload of a sample nobody claimed (may be NULL)
 * @ctx: passed to @emit and @drop
 */
struct ujoin_opts {
	uint64_t tolerance_ns;
	uint64_t timeout_ns;
	unsigned int max_pending;
	unsigned int period;
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
 * Emits the record at once when its sample is pending already and can be
 * told (and the records this one passed by, without theirs).
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
 * Emits the sample's record at once when it is pending already and no
 * other record of the CPU can come between them.
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
 * @count: how many: at most that many records of the CPU in that time
 *	without a sample are UJOIN_SAMPLE_LOST (0: an unknown number: every
 *	one, or with a period one in the period)
 */
void ujoin_add_lost(struct ujoin *j, uint32_t cpu, uint64_t ts, uint64_t count);

/**
 * ujoin_hold() - a sample of time @ts will be added later, after newer ones
 * @j: the join
 * @ts: its timestamp
 *
 * Until ujoin_release(), records it could match are not given up because a
 * newer sample of their key came (the timeout still applies).
 */
void ujoin_hold(struct ujoin *j, uint64_t ts);

/**
 * ujoin_release() - the samples held back were added (or dropped)
 * @j: the join
 */
void ujoin_release(struct ujoin *j);

/**
 * ujoin_advance() - give out what waited too long
 * @j: the join
 * @now: the current time on the same clock
 *
 * Everything older than @now minus the timeout has been added (both
 * streams): the pairs that tells are made, then records that old are
 * emitted without a sample, samples that old are dropped.
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
 * ujoin_why_parse() - the reason ujoin_why_name() wrote, of a missing user
 *	stack (not "ok")
 * @name: the words
 *
 * Return: the reason, or 0 (UJOIN_OK) when @name is none of them.
 */
enum ujoin_why ujoin_why_parse(const char *name);

/**
 * ujoin_free() - free the join; pending samples go to the drop callback,
 * pending records are discarded without being emitted
 * @j: the join, or NULL
 */
void ujoin_free(struct ujoin *j);

#endif /* STACKTOP_UJOIN_H */
