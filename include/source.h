/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * source.h - where the stacks of a session come from.
 *
 * The session (session.c) keeps what every source shares: tracefs and the
 * restore journal, the event formats, ingest, the stack table, symbols, the
 * comm cache and the header's counters. A source is one kind of input: the
 * private instance of stacks mode, the top-level stack map, the passive map
 * reader, a trace-cmd recording, a saved map. A session holds a list of
 * sources and runs them together; each lives in one file under
 * src/source/.
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
 *	reset(src)            drop every count (and, where the source owns it,
 *	                      the kernel's map); return 0 or -errno
 *	close(src)            undo open, free @src->priv
 *
 * Adding a source: a new file src/source/<name>.c defining a
 * `const struct source_ops source_<name>_ops`, its line below and in
 * src/meson.build, and one line in session_open() (live) or open_replay()
 * (recordings) where the sources are chosen.
 */
#ifndef STACKTOP_SOURCE_H
#define STACKTOP_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <sys/time.h>
#include <time.h>

#include "session.h"

struct pollfd;
struct source;
struct usym;

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
	int (*reset)(struct source *src);
	void (*close)(struct source *src);
};

/**
 * struct source - one source of a session
 * @ops: its kind
 * @s: the session it feeds
 * @priv: its state (owned by the source)
 */
struct source {
	const struct source_ops *ops;
	struct session *s;
	void *priv;
};

extern const struct source_ops source_instance_ops;
extern const struct source_ops source_stackmap_ops;
extern const struct source_ops source_passive_ops;
extern const struct source_ops source_replay_dat_ops;
extern const struct source_ops source_replay_map_ops;
extern const struct source_ops source_replay_json_ops;
#if defined(STACKTOP_USER_UNWIND) && STACKTOP_USER_UNWIND
extern const struct source_ops source_perf_user_ops; /* perf_user.h: --user=dwarf */
/* perf_user.c: `u` on the screen turns the dwarf join on and off */
void perf_user_set_on(struct source *src, bool on);
/* perf_user.c: bytes of unwind tables and vdso images it holds */
size_t perf_user_memory(const struct source *src);
#endif

/* the snapshots' shared part (replay_json.c) */
void replay_json_finish(struct session *s);
void replay_json_free(struct session *s);

#define SESSION_MAX_SOURCES 64

/*
 * struct session - the shared part the sources work on. Only session.c and
 * src/source/ see it; everybody else goes through session.h.
 */
struct session {
	struct session_opts opts;
	enum session_mode mode;
	struct tfs *tfs;       /* NULL for a recording */
	struct state *state;   /* restore journal (live) */
	struct evfmt *fmt;     /* event formats */
	struct stack_table *table;
	struct stack_table *view; /* the grouped table (session_set_group()), NULL if none */
	unsigned int group_depth;
	bool group_func;
	enum session_unit unit;
	char weight_name[64];
	struct ksym *ksym;
	struct stackmap_names *map_names; /* saved-map frames kallsyms does not know */
	struct ingest *ing;    /* created by the session (live) or a source */
	char prefix[64];       /* "" or "instances/stacktop.<pid>/" */
	bool instance;         /* the events live in a private instance */
	bool recording;        /* read once; the recording is one interval */
	bool replayed;
	bool map_events;       /* hits are ref_counts: the only "event" is the map */

	struct source sources[SESSION_MAX_SOURCES];
	int nsources;

	struct session_stats stats;
	uint64_t last_events, last_lost, last_overrun, last_dropped, last_fallbacks;
	struct timespec last_tick;
	struct timeval last_cpu;

	struct comm_cache *comms;
	struct tgid_cache *tgids; /* tid -> tgid for -p (live, on this system) */
	char *traced;
	struct usym *usym;     /* user frames (usym.h) */
	bool user_on;          /* user stacks are being taken */
	enum session_user user_mode; /* how: SESSION_USER_FP or _DWARF (OFF: neither) */
	char user_note[160];   /* why -u took fp rather than dwarf */

	bool trigger_mode;     /* --trigger: stacks come from stacktrace triggers only */
	char **probe_events;   /* "GROUP:EVENT" of the kprobes created (probes.c) */
	int nprobe_events;
	/* read-back snapshots (replay_json.c) */
	char **names;          /* event names when there are no formats */
	unsigned int nnames;
	void *snapdb;          /* struct snapdb: symbols, keys, comms, origins */
	uint64_t snap_events_delta;
	char *found_map;       /* a stack map found next to the trace.dat */
	bool proc_pids;        /* pids are this machine's: exited ones can fold */
	uint64_t fold_floor;   /* fold again only past this (bytes in use) */
	size_t mem_limit;      /* --max-memory: the table and the user symbolizer together */
};

/*
 * struct event_spec - one -e or --trigger argument: "SYS:EVENT" (globs),
 * the kernel filter after " if ", and a trigger's count (0: unlimited)
 */
struct event_spec {
	char pattern[256];
	char filter[1024];
	unsigned long count;
};

/* the session's helpers for its sources (session.c, events.c) */
int session_errf(char *err, size_t errsz, int r, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void session_path(const struct session *s, char *buf, size_t size, const char *rel);
int session_list_dir(struct session *s, const char *rel, char ***ret, int *ret_n);
void session_free_list(char **l, int n);
void session_traced_append(struct session *s, const char *name);
int session_setup_events(struct session *s, char *err, size_t errsz);
int session_parse_spec(const char *text, bool counted, struct event_spec *sp);
int session_write(struct session *s, const char *rel, const char *value);
int session_write_filter(struct session *s, const char *sys, const char *ev, const char *expr,
			 char *err, size_t errsz);
size_t session_error_log_len(struct session *s, const char *log_rel);
void session_kernel_error(struct session *s, const char *log_rel, size_t seen, char *buf,
			  size_t size);
/* probes.c: kprobes (before the source opens), the function tracer (after its events) */
int session_setup_kprobes(struct session *s, char *err, size_t errsz);
int session_setup_function(struct session *s, char *err, size_t errsz);
int session_func_cb(void *ctx, uint64_t ip);
int session_type_cb(void *ctx, int type);
void session_sync_stats(struct session *s);
int session_drain_reset(struct session *s, bool *more);

/* a reset's own drain: the buffers are stopped (stackmap) or ours alone */
#define SESSION_RESET_PAGES 65536
#define SESSION_RESET_MS    500
void session_zero_counts(struct session *s);
void session_regroup(struct session *s, bool keep);
int session_setup_pid_filter(struct session *s, char *err, size_t errsz);

/*
 * struct cpubufs - the per-CPU trace_pipe_raw readers of one instance
 * (src/source/cpubufs.c), shared by the ring-buffer sources.
 */
struct cpu_reader {
	int cpu;
	int fd;
	uint64_t overrun;
	uint64_t dropped;
};

struct cpubufs {
	struct cpu_reader *cpus;
	int ncpus;
	uint8_t *page;
};

/* called when ingest's id queue is nearly full, in the middle of a drain */
typedef void (*cpubufs_full_fn)(void *ctx);

int cpubufs_open(struct cpubufs *b, struct session *s, char *err, size_t errsz);
int cpubufs_drain(struct cpubufs *b, struct session *s, struct drain_budget *budget,
		  cpubufs_full_fn full, void *ctx);
void cpubufs_read_stats(struct cpubufs *b, struct session *s);
void cpubufs_stats(const struct cpubufs *b, struct session_stats *st);
int cpubufs_pollfds(const struct cpubufs *b, struct pollfd *fds, int max);
void cpubufs_close(struct cpubufs *b);

#endif /* STACKTOP_SOURCE_H */
