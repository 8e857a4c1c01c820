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
 *	drain(src, budget)    read what is there, at most @budget pages (0: no
 *	                      bound); return the pages read or -errno
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
#include <sys/time.h>
#include <time.h>

#include "session.h"

struct pollfd;
struct source;
struct usym;

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
	int (*drain)(struct source *src, unsigned int budget);
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

#define SESSION_MAX_SOURCES 4

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
	struct ksym *ksym;
	struct stackmap_names *names; /* saved-map frames kallsyms does not know */
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
	char *traced;
	struct usym *usym;     /* user frames (usym.h) */
	bool user_on;          /* user stacks are being taken */
};

/* the session's helpers for its sources (session.c, events.c) */
int session_errf(char *err, size_t errsz, int r, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void session_path(const struct session *s, char *buf, size_t size, const char *rel);
int session_list_dir(struct session *s, const char *rel, char ***ret, int *ret_n);
void session_free_list(char **l, int n);
void session_traced_append(struct session *s, const char *name);
int session_setup_events(struct session *s, char *err, size_t errsz);
int session_type_cb(void *ctx, int type);
void session_sync_stats(struct session *s);
void session_zero_counts(struct session *s);

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
int cpubufs_drain(struct cpubufs *b, struct session *s, unsigned int max_pages, bool *more,
		  cpubufs_full_fn full, void *ctx);
void cpubufs_read_stats(struct cpubufs *b, struct session *s);
void cpubufs_stats(const struct cpubufs *b, struct session_stats *st);
int cpubufs_pollfds(const struct cpubufs *b, struct pollfd *fds, int max);
void cpubufs_close(struct cpubufs *b);

#endif /* STACKTOP_SOURCE_H */
