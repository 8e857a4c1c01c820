/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * symcache.h - symbol text per kernel address, and cached filter results.
 *
 * The filter (\), the comm filter (p) and the search (/) look at the text of
 * every frame of every ranked stack. Symbolizing all of that on each refresh
 * would cost more than the whole ingest, so the UI keeps:
 *  - one symbol entry per distinct address: "func [module]" and the
 *    symbol's start address (the merge key of the caller tree);
 *  - per filter (struct textmatch), one result per symbol entry and one per
 *    stack, tagged with the filter's generation: a stack is matched against
 *    its frames once per filter text, not once per refresh.
 * Everything is dropped when ksym reloads (symcache_sync()) or when the
 * stack table is cleared (textmatch_forget_stacks()). No curses here.
 */
#ifndef STACKTOP_UI_SYMCACHE_H
#define STACKTOP_UI_SYMCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/hmap.h"
#include "ui/uifmt.h"

struct ksym;
struct session;
struct stack;

/**
 * struct symcache - address -> symbol entry
 * @ks: symbols (owned by the session)
 * @ksym_n: ksym_count() when the entries were made
 * @epoch: bumped whenever the entries are dropped
 * @ip2id: address -> entry index + 1
 * @names: sanitized "func [module]" per entry
 * @starts: symbol start (or the address itself when unknown) per entry
 * @n: entries
 * @cap: room
 * @skips: stack -> brief_skip() + 1 (frames never change; dropped with the
 *	table's stacks, symcache_forget_stacks())
 */
struct symcache {
	struct ksym *ks;
	size_t ksym_n;
	bool funcs; /* the frames named are function starts (ksym_funcs()) */
	uint32_t epoch;
	struct hmap ip2id;
	char **names;
	uint64_t *starts;
	size_t n;
	size_t cap;
	struct hmap skips;
};

/**
 * symcache_init() - an empty cache over @ks
 * @sc: cache
 * @ks: symbols (may be NULL: bare addresses)
 */
void symcache_init(struct symcache *sc, struct ksym *ks);

/**
 * symcache_done() - free every entry
 * @sc: cache
 */
void symcache_done(struct symcache *sc);

/**
 * symcache_sync() - drop the entries when the symbol table was reloaded
 * @sc: cache
 *
 * Return: true when the entries were dropped.
 */
bool symcache_sync(struct symcache *sc);

/**
 * symcache_skip() - brief_skip() of @st (the tracing machinery's frames it
 *	starts with), cached per stack
 * @sc: cache
 * @st: stack
 */
unsigned int symcache_skip(struct symcache *sc, const struct stack *st);

/**
 * symcache_forget_stacks() - drop what is cached per stack (the table was
 *	cleared: its stack pointers are gone)
 * @sc: cache
 */
void symcache_forget_stacks(struct symcache *sc);

/**
 * symcache_id() - the entry of @ip, made on first use
 * @sc: cache
 * @ip: kernel address
 *
 * Return: entry index, or UINT32_MAX on OOM.
 */
uint32_t symcache_id(struct symcache *sc, uint64_t ip);

/**
 * symcache_name() - "func [module]" of an entry ("?" for UINT32_MAX)
 * @sc: cache
 * @id: entry
 */
const char *symcache_name(const struct symcache *sc, uint32_t id);

/**
 * symcache_start() - the symbol start of an entry
 * @sc: cache
 * @id: entry
 */
uint64_t symcache_start(const struct symcache *sc, uint32_t id);

/**
 * struct textmatch - one text filter and its cached results
 * @text: the text as typed
 * @terms: @text split at '|'
 * @gen: bumped whenever @text changes
 * @epoch: symcache epoch of @symres
 * @symres: per symbol entry: gen << 1 | matched (0: not computed)
 * @nsymres: entries in @symres
 * @stacks: stack pointer -> gen << 1 | matched (frames only)
 * @pids: pid -> gen << 1 | matched (comm)
 * @whole: a comm filter matching whole names (exact or glob), not substrings
 */
struct textmatch {
	char text[128];
	struct uifmt_terms terms;
	uint32_t gen;
	uint32_t epoch;
	uint64_t *symres;
	size_t nsymres;
	struct hmap stacks;
	struct hmap pids;
	bool whole;
};

/**
 * textmatch_init() - an empty filter: matches everything, caches nothing
 * @tm: filter
 */
void textmatch_init(struct textmatch *tm);

/**
 * textmatch_done() - free the cached results
 * @tm: filter
 */
void textmatch_done(struct textmatch *tm);

/**
 * textmatch_set() - change the text; cached results become stale
 * @tm: filter
 * @text: new text ("" turns the filter off)
 *
 * Return: true when the filter is on.
 */
bool textmatch_set(struct textmatch *tm, const char *text);

/**
 * textmatch_set_comm() - the `p` filter's text: "=NAME" (or any text with
 * glob characters *?[) matches whole command names, exactly or as a glob;
 * other text matches names that contain it
 * @tm: filter
 * @text: new text ("" turns the filter off)
 *
 * Return: true when the filter is on.
 */
bool textmatch_set_comm(struct textmatch *tm, const char *text);

/**
 * textmatch_whole() - the filter matches whole names (textmatch_set_comm())
 * @tm: filter
 */
static inline bool textmatch_whole(const struct textmatch *tm)
{
	return tm->whole;
}

/**
 * textmatch_active() - the filter has at least one term
 * @tm: filter
 */
bool textmatch_active(const struct textmatch *tm);

/**
 * textmatch_forget_stacks() - drop per-stack results (the table was cleared)
 * @tm: filter
 */
void textmatch_forget_stacks(struct textmatch *tm);

/**
 * textmatch_forget_pids() - drop per-pid results (a pid's comm changes on exec)
 * @tm: filter
 */
void textmatch_forget_pids(struct textmatch *tm);

/**
 * textmatch_sym() - does the text of a symbol entry match
 * @tm: filter
 * @sc: symbols
 * @id: entry
 */
bool textmatch_sym(struct textmatch *tm, struct symcache *sc, uint32_t id);

/**
 * textmatch_frames() - does any frame of @st match (cached per stack)
 * @tm: filter
 * @sc: symbols
 * @st: stack
 */
bool textmatch_frames(struct textmatch *tm, struct symcache *sc, const struct stack *st);

/**
 * textmatch_comm() - does the comm of any pid that hit @st match
 * @tm: filter
 * @s: session (for session_comm())
 * @st: stack
 */
bool textmatch_comm(struct textmatch *tm, struct session *s, const struct stack *st);

/**
 * textmatch_pid() - does the comm of @pid match (cached per pid)
 * @tm: filter
 * @s: session
 * @pid: pid
 */
bool textmatch_pid(struct textmatch *tm, struct session *s, int pid);

#endif /* STACKTOP_UI_SYMCACHE_H */
