/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mapsnap.h - the kernel stack map as the sources see it: snapshots of
 * stack_map_bin (or the stack_map text), generations, and the resolution
 * of the stack ids ingest queued.
 *
 * Used by the stackmap source (ids in the ring buffer), the passive source
 * (hits are ref_count deltas) and the saved-map replay (a file instead of
 * tracefs). A generation ends with every reset of the map: an id read
 * before it never resolves through a snapshot read after it.
 */
#ifndef STACKTOP_MAPSNAP_H
#define STACKTOP_MAPSNAP_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/stackmap_health.h"

struct ingest;
struct ksym;
struct session_stats;
struct stack_table;
struct tfs;

/**
 * struct mapsnap - one reader of the kernel's stack map
 * @tfs: tracefs holding stack_map_bin, stack_map and stack_map_stat (NULL
 *       when only a saved file is read)
 * @ing: ingest whose id queue and id -> stack map this feeds
 * @table: where ref_count deltas are counted (@count_refs)
 * @ksym: symbols, to turn the text map's "sym+off" frames into addresses
 * @stats: the session's counters this updates (map_reads, map, map_abi,
 *         have_map_stat, generation)
 * @count_refs: every snapshot counts what each ref_count grew by as hits
 *              (passive mode, a saved map alone)
 * @prev_ref: the ref_count seen last time, per id (@count_refs)
 * @nprev: entries in @prev_ref
 * @read_this_drain: a snapshot was read since the last drain began (an
 *                   unknown id triggers at most one read per drain)
 * @discard_ids: the ring buffer holds ids of an unknown generation (an
 *               old-ABI map was reset under it): drop, do not resolve
 * @old_abi: v1-v3 map: its 64-frame truncation merges stacks
 * @watch: the map's health, from every stack_map_stat read (copied to
 *         @stats->health)
 * @fb_base: ingest's fallback_stacks when @watch started (its generation)
 */
struct mapsnap {
	struct tfs *tfs;
	struct ingest *ing;
	struct stack_table *table;
	struct ksym *ksym;
	struct session_stats *stats;
	bool count_refs;
	uint32_t *prev_ref;
	uint32_t nprev;
	bool read_this_drain;
	bool discard_ids;
	bool old_abi;
	struct stackmap_names *names; /* saved-map frames kallsyms does not know, or NULL */
	uint64_t named_frames;	      /* frames interned in @names */
	struct stackmap_watch watch;
	uint64_t fb_base;
};

/**
 * mapsnap_init() - set up a reader; nothing is read yet
 * @m: reader
 * @tfs: tracefs, NULL for a saved map only
 * @ing: ingest
 * @table: stack table
 * @ksym: symbols
 * @stats: counters to update
 * @count_refs: count ref_count deltas as hits
 */
void mapsnap_init(struct mapsnap *m, struct tfs *tfs, struct ingest *ing, struct stack_table *table,
		  struct ksym *ksym, struct session_stats *stats, bool count_refs);

/**
 * mapsnap_read() - read the kernel's snapshot of the current generation
 * (stack_map_bin, else the stack_map text)
 * @m: reader
 *
 * Return: 0 or -errno (logged).
 */
int mapsnap_read(struct mapsnap *m);

/**
 * mapsnap_load_fd() - read a saved stack_map_bin or stack_map text
 * @m: reader
 * @fd: the file, opened once by regfile_open() (core/regfile.h: a regular
 *	file; read through this descriptor, never by name)
 * @max: the most bytes it may hold (--max-memory): -EFBIG past it
 * @name: its name, for messages
 *
 * Return: 0, -EBADMSG (neither format, or empty), -EFBIG, -errno.
 */
int mapsnap_load_fd(struct mapsnap *m, int fd, uint64_t max, const char *name);

/**
 * mapsnap_stat_check() - read stack_map_stat into the counters
 * @m: reader
 *
 * Return: 1 when the map's counters went down since the last read
 * (somebody reset it), 0 when not, -errno.
 */
int mapsnap_stat_check(struct mapsnap *m);

/**
 * mapsnap_health_mark() - every record read so far is sized (the start of a
 *	drain): what the map saved up to here counts as before the pool filled
 *	if the next reads find it full (stackmap_watch_mark())
 * @m: reader
 */
void mapsnap_health_mark(struct mapsnap *m);

/**
 * mapsnap_health_tick() - close the interval of the map's health (its
 *	deltas, growth rate, time until full, advice) into the counters
 * @m: reader (after its tick's mapsnap_stat_check())
 */
void mapsnap_health_tick(struct mapsnap *m);

/**
 * mapsnap_health_rebase() - the map's counts since start begin again here
 *	(passive mode's r rebases stacktop's counts; the map stays as it is)
 * @m: reader
 */
void mapsnap_health_rebase(struct mapsnap *m);

/**
 * mapsnap_new_generation() - forget every id of the old generation
 * @m: reader
 */
void mapsnap_new_generation(struct mapsnap *m);

/**
 * mapsnap_external_reset() - somebody else reset the map: drop the ids
 * read since the last check (they may belong to either generation) and
 * start a new generation
 * @m: reader
 */
void mapsnap_external_reset(struct mapsnap *m);

/**
 * mapsnap_checkpoint() - resolve the ids queued since the last checkpoint,
 * reading a snapshot if one is unknown, unless the map was reset meanwhile
 * @m: reader
 */
void mapsnap_checkpoint(struct mapsnap *m);

/**
 * mapsnap_fini() - free what the reader holds
 * @m: reader
 */
void mapsnap_fini(struct mapsnap *m);

#endif /* STACKTOP_MAPSNAP_H */
