/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * snapshot.h - read a JSON snapshot (doc/formats.md, schema version 2)
 * back into memory: the header's counters, the view, and every stack with
 * its frames, symbols and breakdown records.
 *
 * The file is untrusted input: its size is bounded (SNAPSHOT_MAX_BYTES),
 * the nesting depth and each string's length too, every field is
 * type-checked, numbers are range checked, and every string is sanitized
 * (fmt_sanitize()) before it is kept. A file of several snapshots (JSON
 * Lines, one per refresh) yields the last one. Errors name the field and
 * the stack they were found in, and JSON syntax errors the byte.
 *
 * The reader streams: a file is read through a small window, never whole,
 * and snapshot_load_each() hands over one stack at a time, so that reading
 * costs the memory of what the caller keeps, not of the document.
 */
#ifndef STACKTOP_SNAPSHOT_H
#define STACKTOP_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/counters.h"
#include "core/hist.h"
#include "core/stack_table.h"
#include "core/rank.h"

#define SNAPSHOT_MAX_BYTES   (256u << 20)
#define SNAPSHOT_MAX_EVENTS  4096
#define SNAPSHOT_MAX_ORIGINS 256

/**
 * struct snap_by - one breakdown record
 * @event: index into struct snapshot's @events
 * @cpu: CPU
 * @pid: pid, -1 for none
 * @origin: index into struct snapshot's @origins (0 when it has none)
 * @comm: command name (sanitized)
 * @total: hits since start
 * @delta: hits in the last interval
 * @weight: weight since start (a weighted snapshot), else 0
 * @weight_delta: weight in the last interval
 */
struct snap_by {
	unsigned int event;
	unsigned int cpu;
	int pid;
	unsigned int origin;
	char *comm;
	uint64_t total;
	uint32_t delta;
	uint64_t weight;
	uint64_t weight_delta;
};

/**
 * struct snap_stack - one stack of the snapshot
 * @key: the stable key, 16 hex digits
 * @total: hits since start under the view's filters
 * @delta: hits in the last interval
 * @depth: frames
 * @ids: kernel stack ids (at most STACK_MAX_IDS kept; more sets @more_ids)
 * @nids: entries in @ids
 * @flags: enum stack_flags
 * @ips: kernel addresses, leaf first (@depth of them; NULL when @depth is 0:
 *	"frames":[] is a valid stack, one with no kernel frame)
 * @syms: symbols as the writer printed them, leaf first (sanitized)
 * @nsyms: entries in @syms (@depth once the stack is read)
 * @tgid: the process of the user part, -1 when the stack has none
 * @uaddrs: user addresses, leaf first ("user_frames"), NULL for none
 * @usyms: their symbols as written, e.g. "main+0x1c (app)" (sanitized;
 *	an inlined call's "name (inlined) (app)")
 * @ulines: their source lines ("line": "path:123", sanitized), NULL each
 *	when not written
 * @nuser: entries in @uaddrs, @usyms and @ulines
 * @user_cut: the user walk stopped before its end ("user_cut")
 * @user_missing: why the event has no user stack ("user_missing", enum
 *	ujoin_why), 0 when it has one or none was wanted
 * @user_cut_why: why ("user_cut_why": 0 depth, 1 stack, 2 unwind, 3
 *	memory, 4 refused: the low bits of the cut mark, usym.h), 0 when not written
 * @by: breakdown records
 * @nby: entries in @by
 * @weight: weight since start (a weighted snapshot: "weight"), else 0
 * @weight_delta: weight in the last interval
 * @trend: hits of the last intervals, oldest first ("trend"; the newest
 *         STACK_TREND kept)
 * @ntrend: entries in @trend
 * @trend_w: their weights ("trend_weight"), @ntrend_w entries
 * @ntrend_w: entries in @trend_w
 * @hist: the single weights per log2 bucket ("hist", core/hist.h in the
 *        snapshot's @hist_scale)
 * @have_hist: "hist" was there
 */
struct snap_stack {
	char key[17];
	uint64_t total;
	uint32_t delta;
	uint64_t weight;
	uint64_t weight_delta;
	uint32_t depth;
	uint32_t ids[2];
	unsigned int nids;
	unsigned int flags;
	uint64_t *ips;
	char **syms;
	uint32_t nsyms;
	int64_t tgid;
	uint64_t *uaddrs;
	char **usyms;
	char **ulines;
	uint32_t nuser;
	bool user_cut;
	uint8_t user_missing;
	uint8_t user_cut_why;
	struct snap_by *by;
	size_t nby;
	uint64_t trend[STACK_TREND];
	unsigned int ntrend;
	uint64_t trend_w[STACK_TREND];
	unsigned int ntrend_w;
	uint64_t hist[HIST_BUCKETS];
	bool have_hist;
};

/**
 * struct snap_view - the view the snapshot was written with
 * @sort: enum rank_key
 * @ascending: inverted order
 * @delta: ranks and shows the last interval (false: totals)
 * @event: index into @events, -1 for none
 * @pid: -1 for none
 * @cpu: -1 for none
 * @hide_idle: idle stacks hidden
 * @top: stacks kept, 0 for all
 * @filter: the screen's text filter, NULL for none (sanitized)
 * @comm: the comm filter (`p`, --comm), NULL for none (sanitized): "=NAME"
 *	or a glob matches whole command names, other text a part of one
 */
struct snap_view {
	int sort;
	bool ascending;
	bool delta;
	int event;
	int pid;
	int cpu;
	bool hide_idle;
	int top;
	char *filter;
	char *comm;
};

/**
 * struct snapshot - one snapshot read back
 * @host: host name (sanitized)
 * @kernel: kernel release, "" when null
 * @mode: mode name
 * @source: tracefs root or replayed file
 * @time: RFC 3339 time
 * @interval: seconds of the last interval
 * @events: event names
 * @nevents: entries in @events
 * @origins: origins of a merged snapshot ("origins"), else none
 * @norigins: entries in @origins
 * @count: the header's counters, by enum session_counter (core/counters.h):
 *	those the list reads, 0 when absent (or not read)
 * @count_delta: and their last interval's, where the snapshot has one
 * @weight_name: what the weights weigh ("weight": "name"), "" when unweighted
 * @weight_unit: "bytes", "nanoseconds" or "count" ("" when unweighted)
 * @weight_ranked: the view ranked weights (false: hits, --count)
 * @hist_scale: the buckets of the stacks' "hist" (enum hist_scale)
 * @have_hist_scale: "hist_scale" was given (else the unit says it)
 * @group_depth: the stacks were grouped by their first N frames ("group"), 0: no
 * @group_func: the stacks were grouped by function
 * @view: the view
 * @matched: stacks the view matched when written ("matched"), and their
 *	hits ("matched_total", "matched_delta"); @have_matched: all three given.
 *	A file written with --top before snapshots held every stack has fewer
 * @matched_total: see @matched
 * @matched_delta: see @matched
 * @have_matched: see @matched
 * @stacks: the stacks, ranked (NULL from snapshot_load_each())
 * @nstacks: entries in @stacks (snapshot_load_each(): stacks handed over)
 */
struct snapshot {
	char host[128];
	char kernel[96];
	char mode[16];
	char source[256];
	char time[40];
	double interval;
	char **events;
	unsigned int nevents;
	char **origins;
	unsigned int norigins;
	uint64_t count[HC_N];
	uint64_t count_delta[HC_N];
	char weight_name[64];
	char weight_unit[16];
	bool weight_ranked;
	unsigned int hist_scale;
	bool have_hist_scale;
	unsigned int group_depth;
	bool group_func;
	struct snap_view view;
	uint64_t matched;
	uint64_t matched_total;
	uint64_t matched_delta;
	bool have_matched;
	struct snap_stack *stacks;
	size_t nstacks;
};

/**
 * snapshot_parse() - parse a snapshot from memory
 * @buf: the text (need not be NUL-terminated)
 * @len: its length
 * @ret: the snapshot (free with snapshot_free())
 * @err: receives a one-line reason on failure
 * @errsz: size of @err
 *
 * Return: 0, -EBADMSG (not JSON, not a stacktop snapshot, a field missing
 * or of the wrong type or range), -EPROTONOSUPPORT (another schema
 * version), -EFBIG, -ENOMEM.
 */
int snapshot_parse(const char *buf, size_t len, struct snapshot **ret, char *err, size_t errsz);

/**
 * snapshot_load() - read and parse a snapshot file
 * @path: file
 * @ret: the snapshot
 * @err: receives a one-line reason on failure (without the file name)
 * @errsz: size of @err
 *
 * Return: as snapshot_parse(), or -errno when the file cannot be read.
 */
int snapshot_load(const char *path, struct snapshot **ret, char *err, size_t errsz);

/**
 * typedef snapshot_stack_fn - receives one stack of snapshot_load_each()
 * @ctx: the caller's
 * @sn: the snapshot's header, view, events and origins (no stacks)
 * @st: the stack, checked; freed on return unless the callee takes its
 *      arrays (it then zeroes @st)
 *
 * Return: 0, or a negative errno that stops the reading and is returned.
 */
typedef int (*snapshot_stack_fn)(void *ctx, const struct snapshot *sn, struct snap_stack *st);

/**
 * snapshot_load_each() - read a snapshot file a stack at a time
 * @path: file
 * @fn: called for every stack, in order, once the header is read (NULL:
 *      collect them in the snapshot's @stacks, as snapshot_load())
 * @ctx: passed to @fn
 * @ret: the snapshot without its stacks (free with snapshot_free())
 * @err: receives a one-line reason on failure (without the file name)
 * @errsz: size of @err
 *
 * The whole file is checked for JSON syntax before any stack is handed
 * over; a stack that breaks the schema stops the reading there.
 *
 * Return: as snapshot_load(), or what @fn returned.
 */
int snapshot_load_each(const char *path, snapshot_stack_fn fn, void *ctx, struct snapshot **ret,
		       char *err, size_t errsz);

/**
 * snapshot_free() - free; NULL is a no-op
 * @sn: snapshot
 */
void snapshot_free(struct snapshot *sn);

/**
 * snapshot_is_json() - whether a file starts like JSON ('{' after blanks)
 * @fd: the file, opened (core/regfile.h); read with pread from its start
 *
 * Return: 1 yes, 0 no, -errno when it cannot be read.
 */
int snapshot_is_json(int fd);

#endif /* STACKTOP_SNAPSHOT_H */
