/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hmap.h - a small open-addressing map from u64 keys to u64 values
 * (src/core/hmap.c), the one the project uses wherever it needs one.
 *
 * A value is a number, an index into an array the caller keeps, or a
 * pointer. The UI keeps all of its per-stack and per-address state
 * (expanded stacks, expanded tree nodes, symbol and filter caches) in
 * these maps, keyed by a stack pointer, an address or a path hash, so
 * that nothing UI-specific is ever stored in the core's structures. The
 * core's caller tree indexes its nodes and functions here, the snapshot
 * reader its symbols, stacks and comms, the user symbolizer its tokens,
 * processes and files, pprof its strings, functions and locations.
 *
 * Keys that are hashes of something larger (a string, an address and a
 * process) are not unique: the things that share a hash @h sit at @h,
 * hmap_chain(@h), hmap_chain(hmap_chain(@h)) ... A lookup walks that
 * chain, comparing the things, until it finds its own or a free key, where
 * an insert puts it. Such a map never deletes (a hole would cut a chain).
 *
 * Tables that stay outside, each for a reason:
 * - the stack table's stacks and breakdown records (core/stack_table.c),
 *   probed inline on every hit with the hash the entry keeps and compared
 *   in place: a map from a hash to an index would add a load and a second
 *   cache line to every hit (doc/performance.md);
 * - the off-CPU switch-outs waiting for their switch-in (ingest/offcpu.c):
 *   records kept inline, looked up on every sched_switch, expired in bulk;
 * - the interned map paths of the dwarf source (source/perf_user_maps.c):
 *   reference-counted, swept when no table names them (a chain of hashes
 *   cannot lose a member);
 * - the pid caches, core/pidcache.h, and ksym's cache of known addresses:
 *   fixed in size, they forget instead of growing.
 */
#ifndef STACKTOP_HMAP_H
#define STACKTOP_HMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * struct hmap - the map; zero-initialise (or hmap_init()) before use
 * @keys: slots (0 marks an empty slot; key 0 lives in @zero_val)
 * @vals: values of the slots
 * @cap: slots, a power of two (0 before the first insert)
 * @len: entries stored
 * @has_zero: key 0 is present
 * @zero_val: its value
 */
struct hmap {
	uint64_t *keys;
	uint64_t *vals;
	size_t cap;
	size_t len;
	bool has_zero;
	uint64_t zero_val;
};

/**
 * hmap_init() - an empty map (allocates nothing)
 * @m: map
 */
void hmap_init(struct hmap *m);

/**
 * hmap_done() - free the slots; the map is empty and reusable afterwards
 * @m: map
 */
void hmap_done(struct hmap *m);

/**
 * hmap_clear() - forget every entry, keeping the allocation
 * @m: map
 */
void hmap_clear(struct hmap *m);

/**
 * hmap_get() - look up @key
 * @m: map
 * @key: key
 * @ret: receives the value when found (may be NULL)
 *
 * Return: true when @key is present.
 */
bool hmap_get(const struct hmap *m, uint64_t key, uint64_t *ret);

/**
 * hmap_put() - insert or replace
 * @m: map
 * @key: key
 * @val: value
 *
 * Return: 0, or -ENOMEM (the map is unchanged).
 */
int hmap_put(struct hmap *m, uint64_t key, uint64_t val);

/**
 * hmap_slot() - the value of @key, inserted as 0 when it is absent
 * @m: map
 * @key: key
 * @ret_new: set to true when @key was inserted by this call, false when it
 *           was there (may be NULL)
 *
 * For "find, or add" in one probe: the caller fills the value of a new key.
 * The pointer is valid until the next change to @m.
 *
 * Return: the value's place, or NULL when out of memory (@m is unchanged).
 */
uint64_t *hmap_slot(struct hmap *m, uint64_t key, bool *ret_new);

/**
 * hmap_del() - remove @key
 * @m: map
 * @key: key
 *
 * Return: true when it was present.
 */
bool hmap_del(struct hmap *m, uint64_t key);

/**
 * hmap_copy() - make @dst hold exactly the entries of @src
 * @dst: map (initialised); its old entries are dropped
 * @src: map to copy
 *
 * Return: 0, or -ENOMEM (then @dst holds part of @src)
 */
int hmap_copy(struct hmap *dst, const struct hmap *src);

/**
 * hmap_len() - entries stored
 * @m: map
 */
size_t hmap_len(const struct hmap *m);

/**
 * hmap_bytes() - the memory the map holds
 * @m: map
 *
 * Return: bytes of its slots.
 */
size_t hmap_bytes(const struct hmap *m);

/**
 * hmap_grow_bytes() - what one more key would add to hmap_bytes()
 * @m: map
 *
 * For a caller that bounds its memory before it inserts.
 *
 * Return: the bytes the slots grow by when the next new key makes them
 * double (or allocates the first ones), else 0.
 */
size_t hmap_grow_bytes(const struct hmap *m);

/**
 * hmap_mix() - a 64-bit hash step, for path keys (never returns 0)
 * @h: running hash
 * @v: value to mix in
 */
uint64_t hmap_mix(uint64_t h, uint64_t v);

/**
 * hmap_chain() - the key after @key in a chain of things sharing a hash
 * @key: a key of the chain
 *
 * See the top of this file: a lookup tries @h, hmap_chain(@h), ... until
 * it finds its thing or a free key.
 *
 * Return: the next key (a function of @key alone).
 */
uint64_t hmap_chain(uint64_t key);

/**
 * hmap_next() - walk the entries, in no order
 * @m: map (not changed during the walk)
 * @pos: 0 to start; advanced by each call
 * @key: receives the key
 * @val: receives the value
 *
 * Return: true with an entry, false when there are no more.
 */
bool hmap_next(const struct hmap *m, size_t *pos, uint64_t *key, uint64_t *val);

#endif /* STACKTOP_HMAP_H */
