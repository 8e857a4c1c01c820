/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ingest.h - turn ring-buffer pages into counted stacks. The hot path.
 *
 * No I/O here: the session reads pages and map snapshots from tracefs and
 * hands the bytes in; benchmarks and tests hand in pages built in memory.
 *
 * Attribution: ftrace writes a stack record right after the event it belongs
 * to, on the same CPU. An interrupt can slip its own event and stack in
 * between, so each CPU keeps a small stack of events still waiting for their
 * stack record; a stack record pops the most recent one. A page that reports
 * missed events empties the CPU's waiting events (their stacks may be gone).
 *
 * Kernel stack ids (stackmap mode) resolve through by_id[], filled from the
 * map snapshot of the current generation by ingest_map_put(). A record whose
 * id is not known is queued; the owner re-reads the snapshot (at most once
 * per drain) and calls ingest_resolve(). ingest_new_generation() forgets
 * every id: no record read before a reset resolves through the map read
 * after it.
 */
#ifndef STACKTOP_INGEST_H
#define STACKTOP_INGEST_H

#define INGEST_QUEUE_MAX 65536 /* queued ids before the owner must resolve */
#define INGEST_NEW_PIDS	 1024
#define INGEST_PID_MAX	 (1 << 22) /* the kernel's PID_MAX_LIMIT */
#define INGEST_HELPERS	 64	   /* stacktop's helper processes left out */
/* ids possible while the map's table_size is unknown: above every RFC's 2^(bits+1) */
#define INGEST_ID_DEFAULT (1u << 22)
#define INGEST_ID_MAX	  (1u << 31) /* the kernel returns ids as an int */

#define INGEST_OFFCPU_MAX   65536 /* tasks followed off the CPU at once */
#define INGEST_OFFCPU_MARKS 1024  /* switches and wakeups held per task between settles */
#define INGEST_PREEMPTED    0x100 /* sched_switch prev_state: TASK_REPORT_MAX, "R+" */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/evfmt.h"

struct evfmt;
struct stack_table;
struct ingest;

/**
 * struct ingest_stats - counters since start or the last reset
 * @events: stack-carrying events counted
 * @records: ring-buffer records read
 * @lost: events missing from the counts: @overrun + @dropped, plus what a
 *        source adds itself (perf's lost samples, --oncpu)
 * @overrun: events the kernel overwrote before they were read, whole or in
 *           part (an event read whose stack was overwritten is one); from
 *           the records the kernel overwrote (see ingest_set_kernel_losses())
 * @dropped: events the kernel refused (a full buffer, a commit overrun):
 *           each refused record is one event missing, its own record or
 *           its stack's
 * @events_read: event records read with their stack: what @lost is out of
 *               (0 without a ring buffer: the events counted stand for it)
 * @orphans: stack records with no event before them
 * @bad_pages: pages or records that failed to parse
 * @fallbacks: full kernel_stack records while in stackmap mode
 * @unresolved: stack ids not found in the snapshot after a re-read
 * @bad_ids: stack ids that cannot exist: at or above the map's table_size
 *           (ingest_set_id_limit()), in records or in a snapshot; never counted
 * @bytes: ring-buffer bytes read: the committed data of every page (records
 *         with their headers, time extends, padding); a record handed in
 *         alone (ingest_record()) adds its bytes with its header
 * @kstack_records: kernel_stack records read
 * @kstack_bytes: their ring-buffer bytes
 * @stackid_records: stack_id records read
 * @stackid_bytes: their ring-buffer bytes
 * @stackid_counted: stack_id records counted through the map (depth known)
 * @sized_records: stack records whose depth is known: every kernel_stack
 *                 record, and every stack_id record counted through the map
 *                 (filled by ingest_stats(), from the counters above)
 * @sized_bytes: the ring-buffer bytes of those records, as read (filled by
 *               ingest_stats())
 * @offcpu_dropped: switches not followed: more than INGEST_OFFCPU_MAX tasks,
 *                  or INGEST_OFFCPU_MARKS records of one task between settles
 * @offcpu_woken: off-CPU times that end at the task's wakeup: its switch-in
 *                was never recorded (see ingest_set_offcpu())
 * @offcpu_unpaired: blocked switch-outs followed by another switch-out of the
 *                   same task with neither a switch-in nor a wakeup between:
 *                   not counted
 * @alt_bytes: what the same records would have taken in the other
 *             representation: a counted stack_id as a kernel_stack record of
 *             the resolved depth; in stacks mode a kernel_stack record of at
 *             most STACKMAP_MAX_DEPTH frames as a stack_id record (deeper
 *             ones stay full: the kernel falls back); in stackmap mode a
 *             kernel_stack fallback as itself
 *
 * Ring-buffer cost of the two representations (issue 13): in stackmap mode
 * the map saves 1 - @sized_bytes / @alt_bytes of the stack records' bytes
 * (per event: @sized_bytes / @sized_records read against @alt_bytes /
 * @sized_records with full stacks); in stacks mode the map would cut the
 * stack records' bytes by 1 - @alt_bytes / @sized_bytes, and the whole
 * ring buffer's use by (@sized_bytes - @alt_bytes) / @bytes.
 * @damaged: records that cannot be right: shorter than the fields their
 * format declares (not read), or (replay) with a timestamp out of order
 */
struct ingest_stats {
	uint64_t events;
	uint64_t records;
	uint64_t lost;
	uint64_t overrun;
	uint64_t dropped;
	uint64_t events_read;
	uint64_t orphans;
	uint64_t bad_pages;
	uint64_t fallbacks;
	uint64_t fallback_stacks; /* distinct stacks among them the map could have held */
	uint64_t unresolved;
	uint64_t bad_ids;
	uint64_t bytes;
	uint64_t kstack_records;
	uint64_t ustack_records; /* ftrace user_stack records */
	uint64_t ustack_one;	 /* of them, a single frame (no frame-pointer chain) */
	uint64_t kstack_bytes;
	uint64_t stackid_records;
	uint64_t stackid_bytes;
	uint64_t stackid_counted;
	uint64_t sized_records;
	uint64_t sized_bytes;
	uint64_t alt_bytes;
	uint64_t offcpu_dropped;
	uint64_t offcpu_sleeps; /* switch-outs ended: at a switch-in or at the wakeup */
	uint64_t offcpu_woken;
	uint64_t offcpu_unpaired;
	uint64_t damaged;
	uint64_t filtered;
	uint64_t foreign;    /* records of events the session does not trace, skipped */
	uint64_t tick_whole; /* --oncpu=tick: stacks with no interrupt entry frame, kept whole */
	/* what @overrun, @dropped and @events_read are derived from (ingest_stats()) */
	uint64_t event_records; /* records read that are events (not stacks) */
	uint64_t gap_records;	/* records the pages say were missed (one for an unknown count) */
	uint64_t k_overrun;	/* records the kernel says it overwrote (per-CPU stats) */
	uint64_t k_refused;	/* records it refused (dropped events, commit overrun) */
	uint64_t cut_events;	/* events read whose stack was in a gap */
	uint64_t cut_pending;	/* kernel stacks read whose user stack was in a gap */
	uint64_t was_overrun;	/* @overrun, @dropped, @events_read as last derived */
	uint64_t was_dropped;
	uint64_t was_read;
};

/**
 * ingest_new() - a page consumer
 * @fmt: event formats (borrowed)
 * @table: where stacks are counted (borrowed)
 * @ncpus: number of CPU slots (ingest_page()'s @slot is below this)
 *
 * Return: the consumer (free with ingest_free()), NULL on OOM.
 */
struct ingest *ingest_new(struct evfmt *fmt, struct stack_table *table, unsigned int ncpus);

/**
 * struct ingest_config - how a consumer reads what it is given (set once by
 * its owner, ingest_configure(); the filters, the weights, off-CPU and the
 * user stacks can change while it runs and keep setters of their own)
 * @stackmap: stackmap mode: kernel_stack records are counted as map
 *            fallbacks
 * @defer: queue every stack id record, known or not. The owner then decides
 *         when ids are resolved: after it has checked (through
 *         stack_map_stat) that no reset happened since the records were
 *         read, so that a reset by another program can never make an old id
 *         resolve through the new map
 * @keep_unresolved: rank the hits of an id no map resolves under a stack of
 *                   one pseudo frame, STACK_IP_UNRESOLVED(id), instead of
 *                   only counting them in ingest_stats's @unresolved (which
 *                   still counts them): a recording read without its stack
 *                   map still shows every id, each on its own row (replay)
 * @self_pid: events of this pid are not counted (stacktop's own: its reads
 *            of the ring buffer are events too); 0 for none
 * @type_cb: how to name an event type not added to the format set yet: an
 *           event index for @type, or negative to ignore the record; NULL:
 *           ignored
 * @type_ctx: passed to @type_cb
 * @func_cb: key function-tracer entries by the traced function: the event
 *           index for the function at @ip (the entry's `ip` field), or
 *           negative to ignore the entry; called once per address. NULL:
 *           every function entry counts under the one ftrace:function event
 * @func_ctx: passed to @func_cb
 * @trim: --oncpu=tick: @ntrim address ranges, [trim[2k], trim[2k+1]), of
 *        the interrupt entry code (x86's __irqentry_text): every stack is
 *        cut after its first frame in one of them, so that it starts at
 *        the interrupted function; a stack cut to nothing is the one frame
 *        STACK_IP_USER_MODE (the interrupt came from user space); a stack
 *        with no such frame is kept whole and counted (@tick_whole)
 * @ntrim: ranges in @trim; 0: stacks are kept as they come
 * @comm_frame: with @trim, the frame that names the command of @pid (a
 *              STACK_IP_COMM() word, 0 for none): a stack cut to
 *              STACK_IP_USER_MODE gets it as its root, one [user space]
 *              row per command; NULL: one row for all
 * @comm_ctx: passed to @comm_frame
 * @records_per_event: the ring-buffer records every event writes (2: the
 *                     event and its stack); 0 when it varies (user stacks
 *                     the kernel walks: none in NMI; --trigger: a stack only
 *                     where the trigger fires), and the ratio of the records
 *                     read stands for it: @overrun is then an estimate
 */
struct ingest_config {
	bool stackmap;
	unsigned int records_per_event;
	bool defer;
	bool keep_unresolved;
	int self_pid;
	int (*type_cb)(void *ctx, int type);
	void *type_ctx;
	int (*func_cb)(void *ctx, uint64_t ip);
	void *func_ctx;
	const uint64_t *trim;
	unsigned int ntrim;
	uint64_t (*comm_frame)(void *ctx, int pid);
	void *comm_ctx;
};

/**
 * ingest_configure() - apply @c (every field: start from ingest_config())
 * @ing: consumer
 * @c: configuration, copied
 */
void ingest_configure(struct ingest *ing, const struct ingest_config *c);

/**
 * ingest_config() - the configuration in force (all zero after ingest_new())
 * @ing: consumer
 *
 * Return: it, owned by @ing.
 */
const struct ingest_config *ingest_config(const struct ingest *ing);

/**
 * ingest_free() - free; NULL is a no-op
 * @ing: consumer
 */
void ingest_free(struct ingest *ing);

/**
 * ingest_set_id_limit() - the number of possible stack ids: the map's
 * table_size (ids are hash slots, 0 <= id < table_size)
 * @ing: consumer
 * @limit: table_size; 0 restores the default, INGEST_ID_DEFAULT
 *
 * Ids at or above it are counted in &ingest_stats.bad_ids and dropped;
 * below it they resolve whatever their size (by_id[] grows on demand).
 */
void ingest_set_id_limit(struct ingest *ing, uint64_t limit);

/**
 * ingest_set_weight() - weigh the hits of an event by one of its fields
 * @ing: consumer (its table must be weighted: stack_table_set_weighted())
 * @event: event index
 * @fl: the field (evfmt_field()); NULL: no weight for this event
 *
 * A hit's weight is the field's value in the event record; negative values
 * weigh 0.
 *
 * Return: 0 or -ENOMEM.
 */
int ingest_set_weight(struct ingest *ing, unsigned int event, const struct evfmt_field *fl);

/**
 * struct ingest_offcpu - off-CPU time from sched_switch (and sched_waking)
 * @event: index of sched:sched_switch
 * @prev_state: its prev_state field
 * @next_pid: its next_pid field
 * @all: count every switch-out (preemptions too), not only blocking ones
 * @wake: @wake_event is set: wakeups split the time and stand in for a
 *        switch-in the kernel did not record
 * @wake_event: index of sched:sched_waking (or sched_wakeup)
 * @wake_pid: its pid field (the task woken)
 * @split: count the blocked time (switch-out to wakeup) under
 *         @blocked_event and the run-queue time (wakeup to switch-in) under
 *         @runq_event instead of the whole under @event
 * @blocked_event: index of a named event (evfmt_add_named())
 * @runq_event: index of a named event
 */
struct ingest_offcpu {
	unsigned int event;
	struct evfmt_field prev_state;
	struct evfmt_field next_pid;
	bool all;
	bool wake;
	unsigned int wake_event;
	struct evfmt_field wake_pid;
	bool split;
	unsigned int blocked_event;
	unsigned int runq_event;
};

/**
 * ingest_set_offcpu() - count off-CPU time instead of switches
 * @ing: consumer (its table must be weighted)
 * @o: the sched_switch fields (copied); NULL turns it off
 *
 * Per pid, the switch-outs (prev_pid), switch-ins (next_pid) and wakeups
 * (@o->wake_pid) read are held in time-stamp order until
 * ingest_offcpu_settle(): CPUs are read one after the other, so a task's
 * records come out of order across CPUs. A switch-out is paired with the
 * next switch-in of the same pid (on any CPU) and its stack counted once,
 * weighing the nanoseconds in between (the records' time stamps). When
 * another switch-out comes first, the switch-in was not recorded (some
 * kernels record nothing an idle task does in task context, see
 * doc/design.md): the time up to the wakeup between them counts
 * (&ingest_stats.offcpu_woken), or nothing (&ingest_stats.offcpu_unpaired).
 * Blocked switches only (prev_state has a state bit and no
 * INGEST_PREEMPTED) unless @o->all. At most INGEST_OFFCPU_MAX tasks are
 * followed; beyond, &ingest_stats.offcpu_dropped counts the switches lost.
 */
void ingest_set_offcpu(struct ingest *ing, const struct ingest_offcpu *o);

/**
 * ingest_offcpu_settle() - pair what the last reads brought
 * @ing: consumer
 *
 * Called after each drain of all CPUs: the switch-outs whose switch-in (or
 * next switch-out) has been read are counted; the rest waits. A switch-out
 * whose stack has not come yet (a stack id not resolved yet) waits for it.
 */
void ingest_offcpu_settle(struct ingest *ing);

/**
 * ingest_forget_offcpu() - drop the tasks waiting to be switched in (their
 * stacks are gone after a stack_table_clear())
 * @ing: consumer
 */
void ingest_forget_offcpu(struct ingest *ing);

/**
 * typedef ingest_tgid_fn - the process a thread belongs to
 * @ctx: context given to ingest_set_procs()
 * @tid: the event's common_pid
 *
 * Return: its tgid, or -1 when unknown (the event is not counted).
 */
typedef int (*ingest_tgid_fn)(void *ctx, int tid);

/**
 * ingest_set_tids() - count only events of these threads (common_pid)
 * @ing: consumer
 * @tids: thread ids (copied); NULL/0 for no thread filter
 * @n: entries
 *
 * With both ingest_set_tids() and ingest_set_procs() an event counts when
 * either one takes it; with neither, every event counts.
 *
 * Return: 0 or -ENOMEM.
 */
int ingest_set_tids(struct ingest *ing, const int *tids, int n);

/**
 * ingest_set_procs() - count only events of threads of these processes
 * @ing: consumer
 * @tgids: process ids (copied); NULL/0 for no process filter
 * @n: entries
 * @fn: maps an event's thread to its process (called once per event of a
 *      thread other than the last one asked about, so it should cache)
 * @ctx: passed to @fn
 *
 * Return: 0 or -ENOMEM.
 */
int ingest_set_procs(struct ingest *ing, const int *tgids, int n, ingest_tgid_fn fn, void *ctx);

/**
 * ingest_page() - consume one sub-buffer page
 * @ing: consumer
 * @slot: CPU slot (0..ncpus-1), selects the waiting-event stack
 * @cpu: CPU number recorded with each hit
 * @buf: the page
 * @len: bytes read
 *
 * Return: 0, or -EBADMSG when the page (or a record in it) was malformed;
 * everything before the fault is counted.
 */
int ingest_page(struct ingest *ing, unsigned int slot, unsigned int cpu, const void *buf,
		size_t len);

/**
 * ingest_record() - consume one record already cut out of its page (a
 * trace.dat read through libtracecmd)
 * @ing: consumer
 * @slot: CPU slot
 * @cpu: CPU number
 * @data: payload (starts with common_type)
 * @size: payload bytes
 * @missed: events lost before it: 0 none, -1 unknown count, > 0 count
 */
void ingest_record(struct ingest *ing, unsigned int slot, unsigned int cpu, const void *data,
		   uint32_t size, long long missed);

/**
 * ingest_record_at() - ingest_record() with the record's time stamp (off-CPU
 * time needs it)
 * @ing: consumer
 * @slot: CPU slot
 * @cpu: CPU number
 * @data: payload
 * @size: payload bytes
 * @missed: as for ingest_record()
 * @ts: time stamp, trace-clock nanoseconds
 */
void ingest_record_at(struct ingest *ing, unsigned int slot, unsigned int cpu, const void *data,
		      uint32_t size, long long missed, uint64_t ts);

/**
 * ingest_map_put() - one record of a map snapshot: @id now means @ips
 * @ing: consumer
 * @id: kernel stack_id
 * @ips: frames, leaf first
 * @nr: frames
 * @old_abi: the snapshot came from an RFC v1-v3 kernel (64-frame merging)
 *
 * Return: the interned stack, NULL when @id is absurd or on OOM.
 */
struct stack *ingest_map_put(struct ingest *ing, uint32_t id, const uint64_t *ips, uint32_t nr,
			     bool old_abi);

/**
 * ingest_needs_map() - whether a queued id is missing from the snapshot
 * @ing: consumer
 */
bool ingest_needs_map(const struct ingest *ing);

/**
 * ingest_drop_pending() - count every queued id as unresolved and drop it
 * (their generation cannot be told: a reset happened while they were read)
 * @ing: consumer
 *
 * Return: ids dropped.
 */
unsigned int ingest_drop_pending(struct ingest *ing);

/**
 * ingest_pending() - stack ids waiting for a fresher snapshot
 * @ing: consumer
 */
unsigned int ingest_pending(const struct ingest *ing);

/**
 * ingest_resolve() - count the queued ids the snapshot now knows; the rest
 * are unresolved (not in this generation's map) and dropped
 * @ing: consumer
 *
 * Return: ids resolved.
 */
unsigned int ingest_resolve(struct ingest *ing);

/**
 * ingest_new_generation() - forget every id and queued record (a reset)
 * @ing: consumer
 */
void ingest_new_generation(struct ingest *ing);

/**
 * ingest_forget_waiting() - drop the events waiting for stacks on every CPU
 * @ing: consumer
 */
void ingest_forget_waiting(struct ingest *ing);

struct usym;

/**
 * ingest_set_user() - pair each kernel stack with the user_stack after it
 * @ing: ingest
 * @u: symbolizer that interns the user frames (usym.h); NULL: off
 *
 * While on, a kernel_stack (or, in stackmap mode, a stack_id) waits for the
 * user_stack record the kernel writes next on the same CPU, and the stack
 * interned is the kernel frames, usym_sep(tgid), the user frames as tokens
 * and, when the kernel's walk stopped at its limit, USYM_CUT. An id keeps
 * its user part while it waits for the map (ingest_resolve()); the joined
 * stack carries the ids and STACK_F_MAPPED of the kernel one.
 */
void ingest_set_user(struct ingest *ing, struct usym *u);

/**
 * struct ingest_held - an event whose kernel stack waits for a user stack
 * from elsewhere (the dwarf mode: a perf sample, see ujoin.h)
 * @ts: the kernel_stack record's time stamp (the instance's trace clock)
 * @value: the hit's weight, or its switch-out time (off-CPU)
 * @pid: the event's common_pid (a thread id)
 * @cpu: the CPU it was recorded on
 * @event: the session's event index
 * @kind: private to ingest (hit, off-CPU, skipped)
 */
struct ingest_held {
	uint64_t ts;
	uint64_t value;
	int32_t pid;
	uint16_t cpu;
	uint16_t event;
	uint8_t kind;
};

/**
 * typedef ingest_hold_fn - takes an event's kernel stack to count it later
 * @ctx: the caller's context
 * @h: the event (copy it)
 * @frames: its kernel frames, leaf first (copy them)
 * @n: how many
 *
 * Return: true when kept (the caller counts it with ingest_count_held()),
 * false to have ingest count it now without user frames.
 */
typedef bool (*ingest_hold_fn)(void *ctx, const struct ingest_held *h, const uint64_t *frames,
			       unsigned int n);

/**
 * ingest_set_user_hold() - hand every counted kernel stack to @fn instead
 * of counting it (stacks mode); NULL: off
 * @ing: ingest
 * @fn: the callback
 * @ctx: passed to it
 */
void ingest_set_user_hold(struct ingest *ing, ingest_hold_fn fn, void *ctx);

/**
 * ingest_wants() - whether an event of thread @tid of process @tgid can be
 * counted (-p, --tid, stacktop's own pid), for a source that knows both
 * @ing: ingest
 * @tgid: process id
 * @tid: thread id
 */
bool ingest_wants(const struct ingest *ing, int tgid, int tid);

/**
 * ingest_exclude_pid() - leave out the events of @pid as those of
 *	stacktop's own pid are (@self_pid): one of the processes stacktop
 *	forks for itself (the reader of other users' files, its zygote)
 * @ing: ingest
 * @pid: the process (single-threaded: its pid is its only tid)
 *
 * Nothing without @self_pid (--show-self, --tracefs). Safe from another
 * thread than the one that reads (the first INGEST_HELPERS pids are kept).
 */
void ingest_exclude_pid(struct ingest *ing, int pid);

/**
 * ingest_count_held() - count an event @fn kept, with its frames now
 * @ing: ingest
 * @h: the event as @fn received it
 * @frames: the kernel frames, then (when known) usym_sep(tgid) and the user
 *	frames as tokens
 * @n: how many
 */
void ingest_count_held(struct ingest *ing, const struct ingest_held *h, const uint64_t *frames,
		       unsigned int n);

/**
 * ingest_count_stack() - count one hit whose stack a source read itself
 *	(an on-CPU sample's call chain), under the pid filter and the memory
 *	limit as every other hit
 * @ing: ingest
 * @event: the session's event index
 * @tgid: the process
 * @tid: the thread (the hit's pid in the breakdown)
 * @cpu: the CPU
 * @frames: kernel frames leaf first, then (when known) usym_sep(tgid) and
 *	the user frames as tokens
 * @n: how many (at least 1)
 * @hits: the hits it stands for (1; about N for a stack sampled 1 in N)
 */
void ingest_count_stack(struct ingest *ing, unsigned int event, int tgid, int tid, unsigned int cpu,
			const uint64_t *frames, unsigned int n, uint64_t hits);

/**
 * ingest_flush_user() - count kernel stacks whose user_stack never came
 * @ing: ingest
 *
 * Call once per refresh: a stack waiting since the previous call is counted
 * without user frames (one left by the last read can still get them).
 */
void ingest_flush_user(struct ingest *ing);

/**
 * ingest_new_pids() - pids seen for the first time since the last
 * ingest_clear_new_pids() (at most INGEST_NEW_PIDS of them), so that the
 * owner can learn their command names while the processes still exist
 * @ing: consumer
 * @ret: the pids (owned by @ing)
 * @ret_comms: if not NULL, receives per pid the name its first event gave
 *             its task (sched_switch's prev_comm), "" when that event had
 *             none (owned by @ing)
 *
 * Return: how many.
 */
unsigned int ingest_new_pids(struct ingest *ing, const int32_t **ret,
			     const char *const **ret_comms);

/**
 * ingest_clear_new_pids() - empty the list of new pids; the pids in it are
 *	new again, so that the next read lists them again with the name
 *	their events carry then: a name follows the task's renames (an exec,
 *	prctl(PR_SET_NAME)) from one read to the next, where the events name
 *	their task (sched_switch's prev_comm)
 * @ing: consumer
 */
void ingest_clear_new_pids(struct ingest *ing);

/**
 * ingest_stats() - the counters (writable: the session zeroes them on reset);
 * the derived ones (@sized_records, @sized_bytes, @overrun, @dropped,
 * @events_read) are brought up to date
 * @ing: consumer
 *
 * The kernel counts ring-buffer records, not events: an event and its stack
 * are two records (three with a user stack), and a page it overwrites
 * loses whole records, which may cut an event from its stack. @overrun
 * turns the records into events. Of the G records missed (the larger of the
 * pages' counts and the kernel's per-CPU count, @gap_records and
 * @k_overrun), A events were read whose stack was missed (@cut_events) and
 * O stack records were read whose event was missed (@orphans), so that
 * with k records an event G = k * (events missed whole) + (k - 1) * A + O,
 * and for k = 2 the events missing are exactly (G + A + O) / 2. With
 * @records_per_event 0 the same sum (less the kernel stacks read whose user
 * stack was missed, counted) is scaled by the event records read over the
 * records read: an estimate.
 */
struct ingest_stats *ingest_stats(struct ingest *ing);

/**
 * ingest_set_kernel_losses() - what the kernel says it lost: the records it
 *	overwrote and those it refused, summed over the CPUs read, since
 *	start or the last reset (per_cpu/cpuN/stats: overrun; dropped events
 *	and commit overrun)
 * @ing: consumer
 * @overwritten: records overwritten
 * @refused: records refused
 */
void ingest_set_kernel_losses(struct ingest *ing, uint64_t overwritten, uint64_t refused);

#endif /* STACKTOP_INGEST_H */
