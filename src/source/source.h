/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * source.h - where the stacks of a session come from.
 *
 * A source is one kind of input: the private instance of the stacks mode,
 * the top-level stack map, the passive map reader, a trace-cmd recording,
 * a saved map, a JSON snapshot, the perf samples of --user=dwarf. Each
 * lives in one file of src/source/. The session (src/session/) chooses
 * them, runs them together, and hands each the context they share,
 * struct source_ctx: the kernel side (struct trace: tracefs, the journal,
 * the event formats, the options), ingest, the stack table, symbols, the
 * comm cache and the header's counters. A source sees that context and
 * nothing of the session above it.
 *
 * Contract (single-threaded, the session calls; every op but open may be
 * NULL, which means "nothing to do"; reset NULL means "cannot reset"):
 *
 *	open(src, err)        set up; fill @err with a user-facing reason and
 *	                      return -errno on failure (close is still called)
 *	pollfds(src, fds, n)  descriptors that become readable when the source
 *	                      has data; return how many were written
 *	drain(src, budget)    read what is there within @budget (pages, a
 *	                      deadline, the stop flag: see struct
 *	                      drain_budget); set budget->more when it stopped
 *	                      with data left; return the pages read or -errno
 *	tick(src)             once per refresh: read the source's own counters,
 *	                      notice external changes (a reset of the map)
 *	stats(src, st)        add the source's counters into @st
 *	ending(src)           the run ends within SESSION_LET_GO_MS (batch's
 *	                      last interval): let go of what only the run needs
 *	                      and is slow to undo, in the background; reading
 *	                      goes on until the end
 *	reset(src)            drop every count (and, where the source owns it,
 *	                      the kernel's map); return 0 or -errno. A reset
 *	                      that needs the buffers read, or the counts
 *	                      dropped, asks the session through ctx->host
 *	close(src)            undo open, free @src->priv
 *
 * Adding a source: a new file src/source/<name>.c defining a
 * `const struct source_ops source_<name>_ops`, its line below and in
 * src/meson.build, and one line where the session chooses the sources
 * (session/open.c for the kernel, session/replay.c for files).
 */
#ifndef STACKTOP_SOURCE_H
#define STACKTOP_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>

#include "kernel/trace.h"
#include "source/stats.h"

struct pollfd;
struct source;
struct source_ctx;

/**
 * struct drain_budget - how much one drain may do; every drain has one
 * @pages: at most this many pages (never 0)
 * @deadline: CLOCK_MONOTONIC nanoseconds; no page is read after it
 * @stop: when it reads non-zero (a stop signal), the drain ends at once
 * @used: pages read so far in this drain, over all sources
 * @more: set when the drain stopped on its budget (or the stop flag) with
 *        data possibly left in the buffers
 * @started: when the drain began (CLOCK_MONOTONIC ns; 0 when unknown): what
 *        the kernel wrote before it is read unless some source set @more
 */
struct drain_budget {
	unsigned int pages;
	uint64_t deadline;
	const volatile sig_atomic_t *stop;
	unsigned int used;
	bool more;
	uint64_t started; /* CLOCK_MONOTONIC ns when the drain began (0: unknown) */
};

/**
 * drain_budget_spent() - whether @b allows no further page (and if so, mark
 * it as stopped with data left)
 * @b: budget
 *
 * Checks the page count, the stop flag and the clock, in that order.
 */
bool drain_budget_spent(struct drain_budget *b);

/**
 * struct source_ops - what a kind of source does (see the contract above)
 * @name: short name, for messages
 * @open: set up
 * @pollfds: descriptors to poll
 * @drain: read, bounded
 * @tick: per refresh
 * @stats: counters into the header's
 * @ending: the run's end is near
 * @reset: drop the counts
 * @close: undo open
 */
struct source_ops {
	const char *name;
	int (*open)(struct source *src, char *err, size_t errsz);
	int (*pollfds)(const struct source *src, struct pollfd *fds, int max);
	int (*drain)(struct source *src, struct drain_budget *budget);
	int (*tick)(struct source *src);
	void (*stats)(const struct source *src, struct session_stats *st);
	void (*ending)(struct source *src);
	int (*reset)(struct source *src);
	void (*close)(struct source *src);
};

/**
 * struct source - one source of a session
 * @ops: its kind
 * @ctx: what it works on (shared by the session's sources)
 * @arg: its input when it reads a file (a snapshot's path), else NULL
 * @priv: its state (owned by the source)
 */
struct source {
	const struct source_ops *ops;
	struct source_ctx *ctx;
	const char *arg;
	void *priv;
};

/**
 * struct source_host - what a source's reset may ask of the session that
 * holds it: the one way back up, a pair of callbacks the session hands
 * down when it makes the context (doc/design.md, "Layers")
 * @drain: read every source of the session within a reset's own budget
 *	   (SESSION_RESET_PAGES, _MS); *@more set when data was left
 * @zero_counts: drop every count: the table, ingest's counters and ids,
 *	   the interval's baselines
 * @host: the session, passed back to both
 */
struct source_host {
	int (*drain)(void *host, bool *more);
	void (*zero_counts)(void *host);
	void *host;
};

/**
 * struct source_ctx - what a session shares with its sources
 * @tr: the kernel side: tracefs, journal, formats, options, paths
 * @ing: ingest (made by the session for the kernel, by a source for a file)
 * @table: the stack table
 * @usym: the user symbolizer (-u, or a snapshot with user frames), or NULL
 * @comms: the comm cache
 * @map_names: frames of a saved map that kallsyms does not know, or NULL
 * @stats: the header's counters
 * @mem_limit: --max-memory, 0 for none: the table, the user symbolizer (a
 *	quarter at most) and the dwarf unwinder's tables (an eighth) together
 * @map_events: hits are ref_counts: the only "event" is the map
 * @user_on: user stacks are being taken
 * @user_mode: how: SESSION_USER_FP or _DWARF (OFF: neither)
 * @unit: what a weight counts (UNIT_NONE: unweighted)
 * @weight_name: what is weighed, for titles ("" when unweighted)
 * @names: event names when there are no formats (snapshots)
 * @nnames: entries in @names
 * @snapdb: the snapshots' shared state (replay_json.c), or NULL
 * @snap_delta: the snapshots' own interval counts, by enum session_counter
 * @host: the session's reset helpers
 */
struct source_ctx {
	struct trace tr;
	struct ingest *ing;
	struct stack_table *table;
	struct usym *usym;
	struct comm_cache *comms;
	struct stackmap_names *map_names;
	struct session_stats stats;
	size_t mem_limit;
	bool have_map_fd; /* @map_fd: the saved map found next to a recording, opened */
	int map_fd;	  /* (core/regfile.h; the map's source takes and closes it) */
	bool have_dat_fd; /* @dat_fd: -r's trace.dat, opened once (the trace.dat source */
	int dat_fd;	  /* takes it: replay_open_fd()) */
	bool map_events;
	bool user_on;
	enum session_user user_mode;
	enum session_unit unit;
	char weight_name[64];
	char **names;
	unsigned int nnames;
	void *snapdb;
	uint64_t snap_delta[HC_N];
	struct source_host host;
};

/**
 * source_nevents() - the number of event indexes known
 * @c: context
 */
unsigned int source_nevents(const struct source_ctx *c);

/**
 * source_event() - "system:event" name of an event index
 * @c: context
 * @idx: index as stored in struct stack_attr
 *
 * Return: the name (owned by the context), "?" when out of range.
 */
const char *source_event(const struct source_ctx *c, unsigned int idx);

extern const struct source_ops source_instance_ops;
extern const struct source_ops source_stackmap_ops;
extern const struct source_ops source_passive_ops;
extern const struct source_ops source_oncpu_ops;
/* oncpu.c: bytes of unwind tables, maps and vdso copies (-u dwarf) */
size_t oncpu_memory(const struct source *src);
extern const struct source_ops source_replay_dat_ops;
extern const struct source_ops source_replay_map_ops;
extern const struct source_ops source_replay_json_ops;
#if defined(STACKTOP_USER_UNWIND) && STACKTOP_USER_UNWIND
extern const struct source_ops source_perf_user_ops; /* perf_user.h: --user=dwarf */
/* perf_user_join.c: `u` on the screen turns the dwarf join on and off */
void perf_user_set_on(struct source *src, bool on);
/* perf_user.c: bytes of unwind tables and vdso images it holds */
size_t perf_user_memory(const struct source *src);
#endif

/*
 * The snapshots' shared part (replay_json.c): after the last snapshot
 * source opened, finish() sets the interval counts and says which grouping
 * the snapshots were written with (the session applies it unless the
 * command line chose one); free() drops the shared state.
 */
void replay_json_finish(struct source_ctx *c, unsigned int *ret_depth, bool *ret_func);
/* drops what replay_json_finish() and the snapshot sources shared (@c stays) */
void replay_json_free(struct source_ctx *c);
/* the origins and the view of the snapshots read (session_norigins() etc.) */
unsigned int replay_json_norigins(const struct source_ctx *c);
/* the name of origin @idx (a file the snapshots came from), "?" past the last */
const char *replay_json_origin(const struct source_ctx *c, unsigned int idx);
/* the view the snapshots were written with into @ret; false when none said one */
bool replay_json_view(const struct source_ctx *c, struct session_view *ret);

#endif /* STACKTOP_SOURCE_H */
