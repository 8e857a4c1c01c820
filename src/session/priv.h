/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * priv.h - the session's own state, shared by the files of src/session/
 * and nothing else: the outputs and the screen go through session.h, the
 * sources see only the part they share (struct source_ctx, embedded here
 * as @c).
 *
 * The files, each using only the ones listed before it (session.c, named
 * after session.h, calls none of the others):
 *	session.c  what the session tells the outputs and the screen
 *	group.c    grouping (--depth, --by-func): the table ranked
 *	weight.c   --weight and --offcpu: what ingest weighs
 *	pids.c     -p and --tid: checked, handed to ingest
 *	run.c      make and free a session, add its sources, drain, tick,
 *	           reset (the sources' host callbacks live here)
 *	user.c     -u: the dwarf source or the fp option, `u`
 *	replay.c   the sources of -r files
 *	open.c     session_open(): the kernel's sources, or replay.c's
 */
#ifndef STACKTOP_SESSION_PRIV_H
#define STACKTOP_SESSION_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/time.h>
#include <time.h>

#include "core/opts.h"
#include "kernel/state.h"
#include "source/source.h"

#define SESSION_MAX_SOURCES 64

/* a reset's own drain: the buffers are stopped (stackmap) or ours alone */
#define SESSION_RESET_PAGES 65536
#define SESSION_RESET_MS    500

/*
 * struct session - one run against one tracefs (or a set of files)
 * @c: what the sources share; c.tr.opts points at @opts
 * @opts: the options (a copy; -r may fill in the trace.dat and the map)
 * @sources: the sources, in the order they are read
 * @view: the grouped table (session_set_group()), NULL if none
 */
struct session {
	struct source_ctx c;
	struct session_opts opts;

	struct source sources[SESSION_MAX_SOURCES];
	int nsources;

	struct stack_table *view;
	unsigned int group_depth;
	bool group_func;
	uint8_t group_by[SESSION_GROUP_KEYS + 1]; /* --group-by: enum session_group_key, 0-ended */
	bool recording;				  /* read once; the recording is one interval */
	bool replayed;

	uint64_t last[HC_N];	    /* the counters at the last tick (core/counters.h) */
	uint64_t comm_unnamed_seen; /* comm_cache_unnamed() at the last sync */
	struct timespec last_tick;
	struct timeval last_cpu;

	struct tgid_cache *tgids; /* tid -> tgid for -p (live, on this system) */
	struct proctree *tree;	  /* -- CMD: the command's process tree */
	char user_note[160];	  /* why -u took fp rather than dwarf */
	char *found_map;	  /* a stack map found next to the trace.dat */
	bool proc_pids;		  /* pids are this machine's: exited ones can fold */
	uint64_t fold_floor;	  /* fold again only past this (bytes in use) */
	char leftovers[STATE_NOTE_MAX +
		       128];	    /* the first run whose leftovers were undone at open */
	int nleftovers;		    /* runs whose leftovers were undone (or tried) at open */
	char tick_event[96];	    /* --oncpu=tick: the event (tick.c) */
	const char *tick_events[1]; /* the session's -e list then */
	uint64_t tick_trim[2];	    /* the interrupt entry code's addresses */
	uint64_t end_at;	    /* CLOCK_MONOTONIC ns the run ends at (0: unknown) */
	bool ending_told;	    /* the sources were told (source_ops.ending) */
};

/* group.c: rebuild the grouped table from the table (@keep: its order) */
void session_regroup(struct session *s, bool keep);

/* tick.c: --oncpu=tick's event in the -e list, and where its stacks are cut */
int session_setup_tick(struct session *s, char *err, size_t errsz);

/* weight.c: the events and fields --weight or --offcpu needs */
int session_setup_weight(struct session *s, char *err, size_t errsz);

/* pids.c: -p and --tid into ingest (@use_proc: this system's /proc tells
 * processes from threads; false for a recording or a simulator) */
int session_set_filters(struct session *s, bool use_proc);
/* pids.c: every -p names a running process, every --tid a running thread */
int session_check_pids(const struct session_opts *o, char *err, size_t errsz);

/* run.c: a session with nothing open yet (its context wired), or NULL */
struct session *session_new(const struct session_opts *opts);
/* run.c: add one source (@arg: its file, or NULL) and open it */
int session_add_source(struct session *s, const struct source_ops *ops, const char *arg, char *err,
		       size_t errsz);
/* run.c: drop every count (a source's reset took effect) */
void session_zero_counts(struct session *s);
/* run.c: copy ingest's counters into the header's */
void session_sync_stats(struct session *s);

/* session.c: add the comm cache's failed lookups since the last call to comm_unnamed */
void session_sync_comm(struct session *s);

/* user.c: the dwarf user-stack source, or fp when plain -u cannot have it */
int session_setup_user_dwarf(struct session *s, char *err, size_t errsz);

/* replay.c: the sources of the -r files (and --map) */
int session_open_replay(struct session *s, char *err, size_t errsz);

#endif /* STACKTOP_SESSION_PRIV_H */
