/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stack_table.h - unique kernel stacks and their counts.
 *
 * Stacks are interned by content (depth + instruction pointers), never by a
 * kernel stack_id: ids are hash slots of one map generation (see
 * doc/design.md). Each stack carries its counts and a short list of the
 * kernel ids it was seen under. Counts are broken down per
 * (event, cpu, pid) in `struct stack_attr` records chained from the stack.
 *
 * Intervals: stack_table_tick() closes the current interval in O(1). Each
 * counter remembers the epoch it was last written in, and readers use
 * stack_delta()/stack_attr_delta() to get the count of the last closed
 * interval.
 *
 * Ranking (stack_table_rank()) fills a separate array; the table itself is
 * never reordered, so pointers to stacks stay valid until
 * stack_table_clear() or stack_table_free().
 */
#ifndef STACKTOP_STACK_TABLE_H
#define STACKTOP_STACK_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define STACK_MAX_DEPTH 1024 /* deeper stacks are cut and flagged */
#define STACK_MAX_IDS	2    /* kernel ids kept inline per stack */

/*
 * The one frame of a stack that stands for a kernel stack id no map
 * resolved (a replay without its stack map): no kernel text lives at a
 * user-space address, so it never collides with a real frame; fmt_frame()
 * prints it as "[unresolved stack_id N]".
 */
#define STACK_IP_UNRESOLVED_BASE 0x0000bad500000000ULL
#define STACK_IP_UNRESOLVED(id) (STACK_IP_UNRESOLVED_BASE | (uint32_t)(id))
#define STACK_IP_IS_UNRESOLVED(ip) (((ip) >> 32) == (STACK_IP_UNRESOLVED_BASE >> 32))
/*
 * The frame the kernel's map writes for an ftrace trampoline (stackmap
 * v4's FTRACE_TRAMPOLINE_MARKER, kernel/stackmap.h's STACKMAP_TRAMPOLINE);
 * fmt_frame() prints it as "[FTRACE TRAMPOLINE]".
 */
#define STACK_IP_TRAMPOLINE 0x7fffffffULL

enum stack_flags {
	STACK_F_MAPPED = 1 << 0,   /* seen through a kernel stack_id */
	STACK_F_FALLBACK = 1 << 1, /* seen as a full kernel_stack record */
	STACK_F_CUT = 1 << 2,      /* deeper than STACK_MAX_DEPTH, cut */
	STACK_F_MERGED64 = 1 << 3, /* 64 frames from a pre-v4 map: may merge stacks */
	STACK_F_MOREIDS = 1 << 4,  /* seen under more ids than kept inline */
	STACK_F_OVER = 1 << 5,     /* no frames: the hits of stacks refused by the memory limit */
	STACK_F_NOTREND = 1 << 6,  /* its recent interval counts were refused by the memory limit */
};

/*
 * Breakdown records with a pid below 0 are not one process:
 *   -1                    no process (a hit from a saved stack map)
 *   STACK_PID_OVER        pids not kept: over the memory limit
 *   <= STACK_PID_FOLDED   processes that exited, folded into their comm
 *                         (stack_table_fold(); stack_table_folded_comm())
 */
#define STACK_PID_OVER   (-2)
#define STACK_PID_FOLDED (-3)

/**
 * stack_pid_folded() - whether a record's pid stands for exited processes
 * folded into their comm
 * @pid: stack_attr.pid
 */
static inline bool stack_pid_folded(int pid)
{
	return pid <= STACK_PID_FOLDED;
}

struct stack_attr;

/**
 * struct stack - one unique kernel stack
 * @attrs: breakdown records, newest first
 * @total: hits since start or the last reset
 * @cur: hits in interval @epoch
 * @last: hits in interval @epoch - 1
 * @epoch: interval @cur belongs to
 * @hash: hash of @ips
 * @depth: frames in @ips
 * @nids: kernel ids in @ids
 * @flags: enum stack_flags
 * @ids: kernel stack ids this stack was seen under (stackmap mode)
 * @trend: its slot of recent interval counts + 1, 0 for none (the table's;
 *         it sits in what was padding: the stack is no larger)
 * @ips: frames, leaf first
 */
struct stack {
	struct stack_attr *attrs;
	uint64_t total;
	uint64_t cur;
	uint64_t last;
	uint32_t epoch;
	uint32_t hash;
	uint16_t depth;
	uint8_t nids;
	uint8_t flags;
	uint32_t ids[STACK_MAX_IDS];
	uint32_t trend;
	uint64_t ips[];
};

/**
 * struct stack_attr - hits of one stack for one (event, cpu, pid)
 * @next: next record of the same stack
 * @stack: owner
 * @total: hits since start or reset
 * @cur: hits in interval @epoch
 * @last: hits in interval @epoch - 1
 * @epoch: interval @cur belongs to
 * @event: event index (see session_event())
 * @cpu: CPU the event was recorded on
 * @pid: the event's common_pid
 * @origin: where the hits came from: 0 for a live kernel or one file, else
 *          the index of the file among several read together (see
 *          session_origin())
 */
struct stack_attr {
	struct stack_attr *next;
	struct stack *stack;
	uint64_t total;
	uint64_t cur;
	uint64_t last;
	uint32_t epoch;
	uint16_t event;
	uint16_t cpu;
	int32_t pid;
	uint16_t origin;
};

struct stack_table;

/**
 * stack_table_new() - an empty table
 *
 * Return: the table (free with stack_table_free()), NULL on OOM.
 */
struct stack_table *stack_table_new(void);

/**
 * stack_table_free() - free the table, its stacks and records; NULL is a no-op
 * @t: table
 */
void stack_table_free(struct stack_table *t);

/**
 * stack_hash() - the hash stack_table_intern() uses for a frame array
 * @ips: frames
 * @depth: number of frames
 */
uint32_t stack_hash(const uint64_t *ips, unsigned int depth);

/**
 * stack_table_intern() - find or insert a stack by content
 * @t: table
 * @ips: frames, leaf first (copied on insert)
 * @depth: number of frames; above STACK_MAX_DEPTH the stack is cut and
 *         flagged STACK_F_CUT
 *
 * Return: the stack (owned by @t), NULL on OOM.
 */
struct stack *stack_table_intern(struct stack_table *t, const uint64_t *ips, unsigned int depth);

/**
 * stack_table_set_weighted() - keep a weight (a sum of per-hit values: bytes,
 * nanoseconds) next to every hit counter; only while the table is empty,
 * so that stacks and records of unweighted runs stay as small as before
 * @t: table
 * @on: weighted
 *
 * Return: 0, or -EBUSY when the table already holds stacks.
 */
int stack_table_set_weighted(struct stack_table *t, bool on);

/**
 * stack_table_weighted() - whether @t keeps weights
 * @t: table
 */
bool stack_table_weighted(const struct stack_table *t);

/**
 * stack_table_hit_w() - count @n hits of @s weighing @w in all
 * @t: table
 * @s: stack from stack_table_intern()
 * @event: event index
 * @cpu: CPU
 * @pid: common_pid of the event
 * @n: hits to add
 * @w: weight to add (ignored by an unweighted table)
 *
 * Return: 0, or -ENOMEM (the stack's own counts are still updated).
 */
int stack_table_hit_w(struct stack_table *t, struct stack *s, unsigned int event,
		      unsigned int cpu, int pid, uint64_t n, uint64_t w);

/**
 * stack_weight() - the weight of @s since start or reset (0 when unweighted)
 * @t: table
 * @s: stack
 * @ret_delta: if not NULL, receives the weight of the last closed interval
 */
uint64_t stack_weight(const struct stack_table *t, const struct stack *s, uint64_t *ret_delta);

/**
 * stack_attr_weight() - the weight of a breakdown record (0 when unweighted)
 * @t: table
 * @a: record
 * @ret_delta: if not NULL, receives the weight of the last closed interval
 */
uint64_t stack_attr_weight(const struct stack_table *t, const struct stack_attr *a,
			   uint64_t *ret_delta);

/**
 * stack_table_weights() - the weight of all stacks (0 when unweighted)
 * @t: table
 * @ret_delta: if not NULL, receives the weight of the last closed interval
 */
uint64_t stack_table_weights(const struct stack_table *t, uint64_t *ret_delta);

/* ---- per stack: the histogram of single weights, the recent intervals -- */

/**
 * stack_table_set_hist_scale() - how a weighted table buckets single
 * weights (enum hist_scale, core/hist.h: HIST_TIME for nanoseconds,
 * HIST_LOG2 otherwise); only while the table is empty
 * @t: table
 * @scale: enum hist_scale
 *
 * Return: 0, or -EBUSY when the table already holds stacks.
 */
int stack_table_set_hist_scale(struct stack_table *t, unsigned int scale);

/**
 * stack_table_hist_scale() - the scale of the histograms (enum hist_scale)
 * @t: table
 */
unsigned int stack_table_hist_scale(const struct stack_table *t);

/**
 * stack_hist() - how the single weights of @s's hits spread over the log2
 * buckets of core/hist.h, since start or reset (a weighted table keeps
 * HIST_BUCKETS 32-bit counters per stack, saturating; an unweighted one
 * none)
 * @t: table
 * @s: stack
 * @counts: receives HIST_BUCKETS counts
 *
 * Return: false when the table is unweighted (@counts zeroed).
 */
bool stack_hist(const struct stack_table *t, const struct stack *s, uint64_t *counts);

/**
 * stack_table_add_hist() - add @n values to bucket @b of @s (a snapshot
 * read back); nothing in an unweighted table
 * @t: table
 * @s: stack
 * @b: bucket, below HIST_BUCKETS
 * @n: values
 *
 * Return: 0, -EINVAL for a bucket out of range, -EOPNOTSUPP unweighted.
 */
int stack_table_add_hist(struct stack_table *t, struct stack *s, unsigned int b, uint64_t n);

#define STACK_TREND 16 /* closed intervals whose counts a stack keeps */

/**
 * stack_trend() - @s's hits (or weights) in each of the last closed
 * intervals, oldest first, the last being stack_delta()'s interval. The
 * table records them at stack_table_tick() for the stacks hit in the
 * interval it closes (nothing on the hit path), in slots of the stacks
 * hit in the last STACK_TREND intervals only.
 * @t: table
 * @s: stack
 * @weight: weights instead of hits (a weighted table)
 * @out: receives the counts
 * @n: room in @out
 *
 * Return: intervals written (at most @n and STACK_TREND, fewer in the
 * first intervals after start or reset), -ENOSPC when the memory limit
 * refused the stack a slot.
 */
int stack_trend(const struct stack_table *t, const struct stack *s, bool weight, uint64_t *out,
		unsigned int n);

/**
 * stack_trend_restart() - trends start with the next interval: the ones
 * closed so far (a session's set-up) are not drawn
 * @t: table
 */
void stack_trend_restart(struct stack_table *t);

/**
 * stack_table_add_trend() - add the counts of @n intervals before the
 * current one to @s's trend (a snapshot read back: its last interval is
 * the one stack_table_add() counts, which the next tick closes)
 * @t: table
 * @s: stack
 * @hits: @n hit counts, oldest first
 * @w: @n weights, or NULL
 * @n: intervals (at most STACK_TREND are kept: the newest)
 *
 * Return: 0, -ENOSPC when the memory limit refused a slot.
 */
int stack_table_add_trend(struct stack_table *t, struct stack *s, const uint64_t *hits,
			  const uint64_t *w, unsigned int n);

/**
 * struct stack_group - how stack_table_group() merges stacks
 * @depth: frames kept after the skipped ones (leaf side), 0 for all
 * @skip: if not NULL, how many leaf frames of a stack are not counted in
 *        @depth (the tracing machinery, brief_skip()); they are kept
 * @map: if not NULL, each frame is replaced by what it returns (a function
 *       grouping maps an address to its symbol's start)
 * @ctx: passed to @skip and @map
 * @keep: keep the stacks already in @dst, their counts zeroed, instead of
 *        clearing it: pointers to them stay valid from one grouping to the
 *        next (a group no longer hit stays, with no hits)
 */
struct stack_group {
	unsigned int depth;
	unsigned int (*skip)(void *ctx, const struct stack *s);
	uint64_t (*map)(void *ctx, uint64_t ip);
	void *ctx;
	bool keep;
};

/**
 * stack_table_group() - fill @dst with the stacks of @src merged by a key:
 * the first frames (leaf side) and/or their functions, as @g says. Counts,
 * weights and breakdown records are summed; the last closed interval of
 * @src is the last one of @dst; kernel ids and flags are united.
 * @dst: table, cleared first unless @g->keep; weighted when @src is
 * @src: table
 * @g: the grouping
 *
 * Return: 0 or -ENOMEM (@dst then holds what was merged so far).
 */
int stack_table_group(struct stack_table *dst, const struct stack_table *src,
		      const struct stack_group *g);

/**
 * stack_table_hit() - count @n hits of @s for (event, cpu, pid)
 * @t: table
 * @s: stack from stack_table_intern()
 * @event: event index
 * @cpu: CPU
 * @pid: common_pid of the event
 * @n: hits to add
 *
 * Return: 0, or -ENOMEM (the stack's own counts are still updated).
 */
int stack_table_hit(struct stack_table *t, struct stack *s, unsigned int event, unsigned int cpu,
		    int pid, uint64_t n);

/**
 * stack_table_add() - add counts read back from a snapshot: @total hits
 * since start, @delta of them in the current interval (the interval that
 * the next stack_table_tick() closes)
 * @t: table
 * @s: stack from stack_table_intern()
 * @event: event index
 * @cpu: CPU
 * @pid: pid, -1 for none
 * @origin: origin index (the file it came from)
 * @total: hits since start
 * @delta: hits in the interval (at most @total)
 *
 * Return: 0, or -ENOMEM (the stack's own counts are still updated).
 */
int stack_table_add(struct stack_table *t, struct stack *s, unsigned int event, unsigned int cpu,
		    int pid, unsigned int origin, uint64_t total, uint32_t delta);

/**
 * stack_table_add_w() - stack_table_add() with weights read back: @w since
 * start, @wdelta of it in the current interval (an unweighted table keeps
 * the counts only)
 * @t: table
 * @s: stack
 * @event: event index
 * @cpu: CPU
 * @pid: pid
 * @origin: origin index
 * @total: hits since start
 * @delta: hits of the current interval
 * @w: weight since start
 * @wdelta: weight of the current interval
 *
 * Return: 0, or -ENOMEM.
 */
int stack_table_add_w(struct stack_table *t, struct stack *s, unsigned int event,
		      unsigned int cpu, int pid, unsigned int origin, uint64_t total,
		      uint32_t delta, uint64_t w, uint64_t wdelta);

/**
 * stack_add_id() - remember that @s was seen under kernel id @id
 * @s: stack
 * @id: kernel stack_id
 */
void stack_add_id(struct stack *s, uint32_t id);

/**
 * stack_table_tick() - close the current interval
 * @t: table
 */
void stack_table_tick(struct stack_table *t);

/**
 * stack_table_clear() - forget every stack and count (a reset)
 * @t: table
 *
 * Pointers to stacks and records become invalid.
 */
void stack_table_clear(struct stack_table *t);

/**
 * stack_table_count() - number of unique stacks
 * @t: table
 */
size_t stack_table_count(const struct stack_table *t);

/**
 * stack_table_hits() - hits of all stacks
 * @t: table
 * @ret_delta: if not NULL, receives the hits of the last closed interval
 *
 * Return: total hits since start or reset.
 */
uint64_t stack_table_hits(const struct stack_table *t, uint64_t *ret_delta);

/**
 * stack_table_memory() - bytes held by the table (stacks, records, hashes)
 * @t: table
 */
size_t stack_table_memory(const struct stack_table *t);

/**
 * struct stack_mem - what the table holds against its memory limit
 * @bytes: bytes held (stack_table_memory())
 * @free_bytes: of which free records, reused before anything new is taken
 * @limit: the limit (0: none)
 * @folded: breakdown records of exited pids folded into their comm
 * @over_stacks: new stacks refused because of the limit (their hits go to
 *               the STACK_F_OVER stack)
 * @over_hits: hits counted on a stack but without their (event, cpu, pid)
 *             breakdown, or on the STACK_F_OVER stack
 * @trend_bytes: of @bytes, the slots of the recent interval counts
 * @trend_slots: slots in use (stacks hit in the last STACK_TREND intervals)
 * @trend_refused: stacks the limit refused a slot
 */
struct stack_mem {
	size_t bytes;
	size_t free_bytes;
	size_t limit;
	uint64_t folded;
	uint64_t over_stacks;
	uint64_t over_hits;
	size_t trend_bytes;
	size_t trend_slots;
	uint64_t trend_refused;
};

/**
 * stack_table_set_limit() - bound the memory the table holds
 * @t: table
 * @bytes: the limit; 0 for none
 *
 * Near the limit the owner folds the records of exited pids
 * (stack_table_fold()). At the limit nothing new is allocated: a new stack
 * counts on the one STACK_F_OVER stack, a new (event, cpu, pid) of a known
 * stack on its STACK_PID_OVER record (from a small reserve) or, with that
 * gone too, only on the stack. Totals are never lost.
 */
void stack_table_set_limit(struct stack_table *t, size_t bytes);

/**
 * stack_table_mem() - memory counters
 * @t: table
 * @ret: filled
 */
void stack_table_mem(const struct stack_table *t, struct stack_mem *ret);

/**
 * stack_table_fold() - fold the breakdown records of exited processes into
 * one record per (stack, event, cpu, comm)
 * @t: table
 * @exited: called once per pid > 0 seen in a record; returns true when the
 *          process is gone, with its command name (NUL-terminated, at most
 *          15 characters) in @comm
 * @ctx: passed to @exited
 *
 * The folded records keep their counts (total and interval); their pid
 * becomes STACK_PID_FOLDED or below, named by stack_table_folded_comm().
 * Records freed by the fold are reused before new memory is taken.
 *
 * Return: records of exited pids folded, or -ENOMEM (what was folded
 * before memory ran out stays folded; no count is lost).
 */
long stack_table_fold(struct stack_table *t, bool (*exited)(void *ctx, int pid, char *comm),
		      void *ctx);

/**
 * stack_table_folded_comm() - the command a folded pid stands for
 * @t: table
 * @pid: a pid for which stack_pid_folded() is true
 *
 * Return: the name (owned by @t), NULL when @pid is not a folded pid.
 */
const char *stack_table_folded_comm(const struct stack_table *t, int pid);

/**
 * stack_table_epoch() - the current interval number
 * @t: table
 */
uint32_t stack_table_epoch(const struct stack_table *t);

/**
 * stack_delta() - hits of @s in the last closed interval
 * @t: table
 * @s: stack
 */
uint64_t stack_delta(const struct stack_table *t, const struct stack *s);

/**
 * stack_attr_delta() - hits of @a in the last closed interval
 * @t: table
 * @a: record
 */
uint64_t stack_attr_delta(const struct stack_table *t, const struct stack_attr *a);

/**
 * stack_table_last_active() - the stacks hit in the last closed interval
 * @t: table
 * @ret: the stacks (owned by @t; valid until the next tick or clear)
 * @ret_n: how many
 * @ret_nhit: stacks with at least one hit since start or reset
 *
 * Return: false when the list is incomplete (memory ran out): walk them all.
 */
bool stack_table_last_active(const struct stack_table *t, struct stack *const **ret,
			     size_t *ret_n, size_t *ret_nhit);

/**
 * stack_table_foreach() - call @fn for every stack, in insertion order
 * @t: table
 * @fn: callback; a non-zero return stops the walk and is returned
 * @ctx: passed to @fn
 */
int stack_table_foreach(struct stack_table *t, int (*fn)(struct stack *s, void *ctx), void *ctx);

/* ---- ranking ---------------------------------------------------------- */

enum rank_key {
	RANK_DELTA,  /* hits in the last interval */
	RANK_TOTAL,  /* hits since start/reset */
	RANK_DEPTH,  /* number of frames */
	RANK_ID,     /* lowest kernel id */
	RANK_EVENT,  /* by event name: the screen orders the busiest stacks it ranked */
	RANK_COMM,   /* by comm: likewise; stack_table_rank() takes both as RANK_DELTA */
	RANK_KEY_MAX,
};

/**
 * struct rank_opts - what to rank and how
 * @key: sort key; ties are broken by total, then by hash (a stable order)
 * @invert: ascending instead of descending
 * @event: only count hits of this event index, -1 for all
 * @pid: only count hits of this pid, -1 for all
 * @cpu: only count hits on this CPU, -1 for all
 * @match: if not NULL, a stack is kept only when it returns true (text
 *         filters: frame names, comm); called only for stacks with hits
 * @match_ctx: passed to @match
 * @attr_match: if not NULL, only the hits of breakdown records that pass it
 *              are counted (a comm filter: the stack's other hits are not)
 * @attr_ctx: passed to @attr_match
 * @hide_idle: skip stacks with no hits in the last interval
 * @weight: rank by weights (stack_table_set_weighted()) instead of hits:
 *          the rows' and the summary's @total and @delta are then weights
 */
struct rank_opts {
	enum rank_key key;
	bool invert;
	int event;
	int pid;
	int cpu;
	bool (*match)(const struct stack *s, void *ctx);
	void *match_ctx;
	bool (*attr_match)(const struct stack_attr *a, void *ctx);
	void *attr_ctx;
	bool hide_idle;
	bool weight;
};

/**
 * rank_attr_passes() - whether a breakdown record's hits count under @o
 * @o: filters (event, pid, cpu, attr_match)
 * @a: record
 */
static inline bool rank_attr_passes(const struct rank_opts *o, const struct stack_attr *a)
{
	return (o->event < 0 || a->event == o->event) && (o->pid < 0 || a->pid == o->pid) &&
	       (o->cpu < 0 || a->cpu == o->cpu) && (!o->attr_match || o->attr_match(a, o->attr_ctx));
}

/**
 * rank_filters_attrs() - whether @o looks at breakdown records at all
 * @o: filters
 */
static inline bool rank_filters_attrs(const struct rank_opts *o)
{
	return o->event >= 0 || o->pid >= 0 || o->cpu >= 0 || o->attr_match;
}

/**
 * struct rank_row - one ranked stack, with counts under the filters
 * @stack: the stack
 * @total: hits since start/reset that pass the filters
 * @delta: hits in the last interval that pass the filters
 */
struct rank_row {
	struct stack *stack;
	uint64_t total;
	uint64_t delta;
};

/**
 * struct rank_summary - totals over every stack that passed the filters
 * @matched: stacks that passed
 * @total: their hits since start/reset
 * @delta: their hits in the last interval
 */
struct rank_summary {
	size_t matched;
	uint64_t total;
	uint64_t delta;
};

/**
 * stack_table_rank() - the top @k stacks under @o
 * @t: table
 * @o: key and filters
 * @out: array of at least @k rows, filled best first
 * @k: rows wanted
 * @ret_sum: if not NULL, totals of every matching stack
 *
 * Uses a bounded heap: O(n log k), no full sort, no allocation.
 *
 * Return: rows written (at most @k).
 */
size_t stack_table_rank(struct stack_table *t, const struct rank_opts *o, struct rank_row *out,
			size_t k, struct rank_summary *ret_sum);

/**
 * struct stack_top - who hits a stack most, by the view's count (the
 *	weight when the view ranks by weight: with --offcpu=wait the event
 *	with most time, not the one with most switches)
 * @event: event index with most hits, -1 if none
 * @pid: pid with most hits, -1 if none
 * @cpu: CPU with most hits, -1 if none
 * @event_hits / @pid_hits / @cpu_hits: their hit counts (hits, also when
 *	picked by weight)
 * @npids: pids with hits (@pid included)
 */
struct stack_top {
	int event;
	int pid;
	int cpu;
	uint64_t event_hits;
	uint64_t pid_hits;
	uint64_t cpu_hits;
	uint32_t npids;
};

/**
 * stack_top_of() - the most frequent event, pid and CPU of @s
 * @t: table (holds the scratch space)
 * @s: stack
 * @delta: count the last interval's hits instead of totals
 * @filter: if not NULL, only the records that pass it count
 *          (rank_attr_passes(): event, pid, CPU, attr_match); with
 *          @filter->weight (and a weighted table) the weights decide
 * @ret: filled
 *
 * Exact: the stack's records are summed per pid, event and CPU (a pid has a
 * record per event and CPU). O(records of @s); call it for the rows shown.
 * Ties go to the lowest number.
 */
void stack_top_of(struct stack_table *t, const struct stack *s, bool delta,
		  const struct rank_opts *filter, struct stack_top *ret);

#endif /* STACKTOP_STACK_TABLE_H */
