/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pprof_copy.h - what a pprof profile says, copied from the session on its
 * thread so that any thread writes it (pprof.c: export_pprof_copy()).
 *
 * Two parts. The names (struct pprof_names) are the frames resolved the
 * way the profile writes them: each stack's Locations (its frames past the
 * tracing machinery, inlined calls grouped with the frame they were
 * inlined into), each Location's address and Lines, each Line's Function
 * and source line, each Function's name and file. They are resolved on the
 * session's thread (the symbols are its), once per stack, and kept: a
 * table only grows, in chunks that never move, so that a writer on another
 * thread reads what a copy refers to while the session's thread adds to it.
 * A reset of the counts (the stacks go) or a reload of the kernel's
 * symbols (the names may change) calls for a new table
 * (pprof_names_fit()), and so does a table grown past twice the stacks
 * the session holds (its memory follows theirs); copies keep the old one
 * alive (a reference each).
 *
 * The copy (struct pprof_copy, pprof_copy_take()) is the rest: the view's
 * stacks ranked, each with its Locations (in the table), its counts and
 * its records' (event, CPU, pid, command), and the header's words. It is
 * a few bytes a record: taking one costs the session's thread a pass over
 * the ranked stacks, never a symbol lookup for a stack it has resolved.
 *
 * --serve's collector keeps one table for every profile it serves and
 * hands each profile's copy to the server's thread; the -o x.pb.gz export
 * takes a table and a copy and writes them at once (the same bytes).
 */
#ifndef STACKTOP_PPROF_COPY_H
#define STACKTOP_PPROF_COPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "output/losses.h"

struct report_opts;
struct session;
struct pprof_names;

/* a Function: its name and file (the table's strings) */
struct pprof_func {
	uint32_t name;
	uint32_t file;
};

/* a Line: its Function (the table's), its source line (0: none) */
struct pprof_line {
	uint32_t func;
	uint32_t line;
};

/* a Location: its Lines (innermost first, at most 64), its mapping and address */
struct pprof_loc {
	uint64_t addr;
	uint32_t line0; /* its first Line in the table */
	uint16_t nlines;
	uint8_t user; /* a user frame: mapping 2, else the kernel's, 1 */
};

/* a stack's Locations (the table's), leaf first */
struct pprof_stk {
	uint32_t n;
	uint32_t locs[];
};

/* a Sample's record: one (event, CPU, pid) of a stack that passes the view */
struct pprof_rec {
	uint64_t key;	/* export_since_key_attr() */
	uint64_t total; /* what it counts (hits or weight) since start */
	uint64_t delta; /* ... in the last interval */
	int32_t pid;
	uint32_t comm; /* its command, in @text (pid -1: none) */
	uint16_t event;
	uint16_t cpu;
};

/* a ranked stack */
struct pprof_row {
	const struct pprof_stk *stk;
	uint64_t key; /* export_since_key_stack() */
	uint64_t total;
	uint64_t delta;
	uint32_t rec0; /* its records: @recs[rec0 .. rec0 + nrec) */
	uint32_t nrec;
};

#define PPROF_COMMENTS_MAX 8

/**
 * struct pprof_copy - one profile's counts and words (pprof_copy_take())
 * @names: the table its stacks' Locations are in (a reference)
 * @nstrs: its strings when taken (the ones the copy may name)
 * @nfuncs: its Functions then
 * @nlocs: its Locations then
 * @rows: the view's stacks, ranked
 * @nrows: how many
 * @recs: their records
 * @nrecs: how many
 * @text: NUL-terminated strings at offsets: commands, events, the header's
 * @events: each event index's name (@text offsets)
 * @nevents: how many
 * @name: the sample type ("hits" or the weight's name)
 * @iname: the interval's ("hits_interval")
 * @unit: its unit
 * @comments: the profile's comments
 * @ncomments: how many
 * @lost_total: the ring buffer's losses since start (--folded-lost)
 * @lost_delta: ... in the last interval
 * @lost_stack: add the lost events' sample (report_opts)
 * @delta: the default sample type is the interval's (report_opts)
 * @filters: the view filters records (rank_filters_attrs())
 * @generation: the session's counts' generation when taken
 * @interval_sec: the last interval's length
 * @time_ns: when taken (CLOCK_REALTIME)
 * @at: ... (CLOCK_MONOTONIC: a window's end)
 * @refs: references (pprof_copy_get(), pprof_copy_put())
 */
struct pprof_copy {
	struct pprof_names *names;
	uint32_t nstrs, nfuncs, nlocs;
	struct pprof_row *rows;
	size_t nrows;
	struct pprof_rec *recs;
	size_t nrecs;
	char *text;
	size_t textlen, textcap;
	uint32_t *events;
	unsigned int nevents;
	uint32_t name, iname, unit;
	uint32_t comments[PPROF_COMMENTS_MAX];
	unsigned int ncomments;
	struct export_losses lost_total, lost_delta;
	bool lost_stack, delta, filters;
	uint32_t generation;
	double interval_sec;
	uint64_t time_ns;
	struct timespec at;
	int refs;
};

/**
 * pprof_names_new() - an empty table of names
 * @s: the session whose stacks it names (its generation and symbols now)
 *
 * Return: the table, one reference (pprof_names_put()), NULL when out of memory.
 */
struct pprof_names *pprof_names_new(struct session *s);

/**
 * pprof_names_put() - drop a reference to a table (the last frees it)
 * @n: the table, or NULL
 */
void pprof_names_put(struct pprof_names *n);

/**
 * pprof_names_fit() - a table that names @s's stacks now: *@n when it
 *	still does, else a new one (the old one's reference dropped): the
 *	counts were reset, the kernel's symbols reloaded or the frames'
 *	naming changed (--by-func) since, or the table resolved more than
 *	twice the session's stacks and 4096 (stacks gone since: a long run
 *	keeps it near the stacks it holds)
 * @n: the table (NULL: a new one)
 * @s: session
 *
 * Return: 0, or -ENOMEM (*@n is then NULL).
 */
int pprof_names_fit(struct pprof_names **n, struct session *s);

/**
 * pprof_names_bytes() - the memory a table holds
 * @n: the table, or NULL (0)
 */
size_t pprof_names_bytes(const struct pprof_names *n);

/**
 * pprof_names_stacks() - how many stacks a table has resolved
 * @n: the table, or NULL (0)
 */
size_t pprof_names_stacks(const struct pprof_names *n);

/**
 * pprof_names_str() - a string of the table
 * @n: the table
 * @i: its index (below a copy's @nstrs)
 */
const char *pprof_names_str(const struct pprof_names *n, uint32_t i);

/**
 * pprof_names_func() - a Function of the table
 * @n: the table
 * @i: its index (below a copy's @nfuncs)
 */
const struct pprof_func *pprof_names_func(const struct pprof_names *n, uint32_t i);

/**
 * pprof_names_loc() - a Location of the table
 * @n: the table
 * @i: its index (below a copy's @nlocs)
 */
const struct pprof_loc *pprof_names_loc(const struct pprof_names *n, uint32_t i);

/**
 * pprof_names_line() - a Line of the table
 * @n: the table
 * @i: its index (a Location's @line0 + k)
 */
const struct pprof_line *pprof_names_line(const struct pprof_names *n, uint32_t i);

/**
 * pprof_copy_take() - copy what the profile of @s says under @o
 * @s: session (on its thread)
 * @n: the table of names (pprof_names_fit() first): the stacks it has not
 *     resolved yet are, now; the copy takes a reference
 * @o: the view (@o->rank's filters; the copy keeps no pointer to it)
 *
 * Return: the copy (pprof_copy_put() it), NULL when out of memory.
 */
struct pprof_copy *pprof_copy_take(struct session *s, struct pprof_names *n,
				   const struct report_opts *o);

/**
 * pprof_copy_get() - one more reference to a copy (another thread may hold one)
 * @c: the copy
 *
 * Return: @c.
 */
struct pprof_copy *pprof_copy_get(struct pprof_copy *c);

/**
 * pprof_copy_put() - drop a reference to a copy (the last frees it)
 * @c: the copy, or NULL
 */
void pprof_copy_put(struct pprof_copy *c);

#endif /* STACKTOP_PPROF_COPY_H */
