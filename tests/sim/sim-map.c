// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sim-map.c - the kernel side of the stackmap RFC: a lock-free hash map of
 * stacks (modelled single-threaded) and the three tracefs views of it.
 *
 * Model (trace_stackmap.c of the RFC, per version):
 *  - table of 2^(bits+1) slots, pool of 2^bits elements;
 *  - a 32-bit hash of the IPs with a per-map seed (0 is forced to 1), linear
 *    probing from hash & (size - 1); v2+ give up after 64 probes, v1 walks
 *    the whole table;
 *  - a claimed slot with no pool element left stays a gravestone, counts
 *    as a drop and makes the caller fall back to a full stack;
 *  - the stack_id is the slot index;
 *  - @race simulates the cmpxchg race: the matching slot is passed over (its
 *    element is "not yet published") and the stack lands in a second slot.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define BIN_MAGIC_V4	0x46534D42U	/* 'FSMB', version 1 */
#define BIN_MAGIC_V1	0x464D5342U	/* v1-v3, version 2 */

int map_init(struct sim_map *m, unsigned int bits, uint32_t seed)
{
	memset(m, 0, sizeof(*m));
	m->bits = bits;
	m->size = 1U << (bits + 1);
	m->max_elts = 1U << bits;
	m->seed = seed;
	m->table = calloc(m->size, sizeof(*m->table));
	m->pool = calloc(m->max_elts, sizeof(*m->pool));
	if (!m->table || !m->pool) {
		map_free(m);
		return -ENOMEM;
	}
	return 0;
}

void map_free(struct sim_map *m)
{
	free(m->table);
	free(m->pool);
	m->table = NULL;
	m->pool = NULL;
}

/**
 * map_reset() - clear table, pool and counters; the seed stays, as in the
 * kernel (so a stack usually gets its old id back)
 * @m: map
 */
void map_reset(struct sim_map *m)
{
	memset(m->table, 0, m->size * sizeof(*m->table));
	memset(m->pool, 0, (size_t)m->next_elt * sizeof(*m->pool));
	m->next_elt = 0;
	m->successes = 0;
	m->drops = 0;
}

static uint32_t map_hash(const uint64_t *ips, unsigned int nr, uint32_t seed)
{
	uint64_t h = seed ^ (nr * 0x9e3779b97f4a7c15ULL);
	unsigned int i;

	for (i = 0; i < nr; i++) {
		h ^= ips[i];
		h *= 0xff51afd7ed558ccdULL;
		h ^= h >> 33;
	}
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 29;
	return (uint32_t)h ? (uint32_t)h : 1;
}

/**
 * map_get_id() - find or insert a stack
 * @m: map
 * @abi: RFC version (1-4)
 * @ips: frames
 * @nr: number of frames
 * @race: pass over an existing match (simulated insert race)
 * @ret_new: set to whether a new element was inserted
 *
 * Return: the stack id (slot index), -E2BIG (v4, deeper than 64) or
 * -ENOSPC (pool full or probe limit; counted in drops).
 */
int map_get_id(struct sim_map *m, int abi, const uint64_t *ips, unsigned int nr, bool race,
	       bool *ret_new)
{
	unsigned int idx, i, limit;
	uint32_t key;

	*ret_new = false;
	if (nr > SIM_MAP_MAX_DEPTH) {
		if (abi >= 4)
			return -E2BIG;
		nr = SIM_MAP_MAX_DEPTH;		/* v1-v3 truncate */
	}
	key = map_hash(ips, nr, m->seed);
	idx = key & (m->size - 1);
	limit = abi == 1 ? m->size : SIM_MAP_MAX_PROBE;

	for (i = 0; i < limit; i++, idx = (idx + 1) & (m->size - 1)) {
		struct sim_slot *s = &m->table[idx];
		struct sim_elt *e;

		if (!s->key) {
			s->key = key;
			if (m->next_elt >= m->max_elts) {
				s->elt = -1;
				m->drops++;
				return -ENOSPC;
			}
			s->elt = (int32_t)m->next_elt++;
			e = &m->pool[s->elt];
			e->nr = nr;
			e->ref = 1;
			memcpy(e->ips, ips, nr * sizeof(*ips));
			m->successes++;
			*ret_new = true;
			return (int)idx;
		}
		if (s->key != key || s->elt < 0 || race)
			continue;
		e = &m->pool[s->elt];
		if (e->nr == nr && !memcmp(e->ips, ips, nr * sizeof(*ips))) {
			e->ref++;
			m->successes++;
			return (int)idx;
		}
	}
	m->drops++;
	return -ENOSPC;
}

/**
 * map_render_text() - the stack_map file
 * @m: map
 * @abi: RFC version; v4 prints the trampoline marker as a label
 * @syms: symbols for %pS
 * @sb: output
 */
void map_render_text(const struct sim_map *m, int abi, const struct sim_syms *syms,
		     struct sbuf *sb)
{
	unsigned int idx, i;

	for (idx = 0; idx < m->size; idx++) {
		const struct sim_slot *s = &m->table[idx];
		const struct sim_elt *e;

		if (!s->key || s->elt < 0)
			continue;
		e = &m->pool[s->elt];
		sbuf_printf(sb, "stack_id %u [ref %u, depth %u]\n", idx, e->ref, e->nr);
		for (i = 0; i < e->nr; i++) {
			if (abi >= 4 && e->ips[i] == SIM_TRAMPOLINE) {
				sbuf_printf(sb, "  [%u] [FTRACE TRAMPOLINE]\n", i);
				continue;
			}
			sbuf_printf(sb, "  [%u] ", i);
			syms_print_ps(syms, e->ips[i], sb);
			sbuf_add(sb, "\n", 1);
		}
		sbuf_add(sb, "\n", 1);
	}
}

/**
 * map_render_stat() - the stack_map_stat file, v1 or v2+ key names
 * @m: map
 * @abi: RFC version
 * @sb: output
 */
void map_render_stat(const struct sim_map *m, int abi, struct sbuf *sb)
{
	uint64_t total = m->successes + m->drops;

	if (abi == 1) {
		sbuf_printf(sb, "entries:    %u / %u\n", m->next_elt, m->max_elts);
		sbuf_printf(sb, "table_size: %u\n", m->size);
		sbuf_printf(sb, "hits:       %llu\n", (unsigned long long)m->successes);
		sbuf_printf(sb, "drops:      %llu\n", (unsigned long long)m->drops);
		if (total)
			sbuf_printf(sb, "hit_rate:   %llu%%\n",
				    (unsigned long long)(m->successes * 100 / total));
		return;
	}
	sbuf_printf(sb, "entries:      %u / %u\n", m->next_elt, m->max_elts);
	sbuf_printf(sb, "table_size:   %u\n", m->size);
	sbuf_printf(sb, "successes:    %llu\n", (unsigned long long)m->successes);
	sbuf_printf(sb, "drops:        %llu\n", (unsigned long long)m->drops);
	if (total)
		sbuf_printf(sb, "success_rate: %llu%%\n",
			    (unsigned long long)(m->successes * 100 / total));
}

static void bin_u32(struct sbuf *sb, uint32_t v, bool swap)
{
	if (swap)
		v = __builtin_bswap32(v);
	sbuf_add(sb, &v, 4);
}

static void bin_u64(struct sbuf *sb, uint64_t v, bool swap)
{
	if (swap)
		v = __builtin_bswap64(v);
	sbuf_add(sb, &v, 8);
}

/**
 * map_render_bin() - the stack_map_bin snapshot
 * @m: map
 * @abi: RFC version (magic and version differ for v4)
 * @swap: write the other byte order (a big-endian kernel's file)
 * @fault: damage to inject
 * @sb: output
 */
void map_render_bin(const struct sim_map *m, int abi, bool swap, enum sim_bin_fault fault,
		    struct sbuf *sb)
{
	uint32_t magic = abi >= 4 ? BIN_MAGIC_V4 : BIN_MAGIC_V1;
	uint32_t version = abi >= 4 ? 1 : 2;
	size_t last = 0, nr_off;
	uint32_t nr_stacks = 0, last_nr = 0;
	unsigned int idx, i;

	if (fault == SIM_BIN_MAGIC)
		magic = 0x0badf00d;
	bin_u32(sb, magic, swap);
	bin_u32(sb, version, swap);
	nr_off = sb->len;
	bin_u32(sb, 0, swap);
	bin_u32(sb, 0, swap);

	for (idx = 0; idx < m->size; idx++) {
		const struct sim_slot *s = &m->table[idx];
		const struct sim_elt *e;

		if (!s->key || s->elt < 0)
			continue;
		e = &m->pool[s->elt];
		last = sb->len;
		last_nr = e->nr;
		bin_u32(sb, idx, swap);
		bin_u32(sb, e->nr, swap);
		bin_u32(sb, e->ref, swap);
		bin_u32(sb, 0, swap);
		for (i = 0; i < e->nr; i++)
			bin_u64(sb, e->ips[i], swap);
		nr_stacks++;
	}
	if (fault == SIM_BIN_COUNT)
		nr_stacks += 3;
	if (swap)
		nr_stacks = __builtin_bswap32(nr_stacks);
	memcpy(sb->p + nr_off, &nr_stacks, 4);

	switch (fault) {
	case SIM_BIN_TRUNCATE:
		if (last)
			sb->len = last + 16 + (last_nr / 2) * 8 + 4;
		else
			sb->len = 12;
		break;
	case SIM_BIN_SHORT:
		sb->len = 10;
		break;
	case SIM_BIN_EMPTY:
		sb->len = 0;
		break;
	default:
		break;
	}
}
