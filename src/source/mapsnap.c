// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mapsnap.c - see mapsnap.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ingest/ingest.h"
#include "sym/ksym.h"
#include "core/log.h"
#include "core/regfile.h"
#include "source/mapsnap.h"
#include "source/stats.h"
#include "core/stack_table.h"
#include "kernel/stackmap.h"
#include "kernel/tfs.h"

void mapsnap_init(struct mapsnap *m, struct tfs *tfs, struct ingest *ing, struct stack_table *table,
		  struct ksym *ksym, struct session_stats *stats, bool count_refs)
{
	memset(m, 0, sizeof(*m));
	m->tfs = tfs;
	m->ing = ing;
	m->table = table;
	m->ksym = ksym;
	m->stats = stats;
	m->count_refs = count_refs;
	stackmap_watch_reset(&m->watch);
}

static double mono_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* a read of stack_map_stat into the map's health (a new base after a reset) */
static void health_stat(struct mapsnap *m, const struct stackmap_stat *st, bool fresh)
{
	if (fresh) {
		stackmap_watch_reset(&m->watch);
		m->fb_base = ingest_stats(m->ing)->fallback_stacks;
	}
	stackmap_watch_stat(&m->watch, st, mono_sec(), (int64_t)time(NULL));
	m->stats->health = m->watch.h;
}

void mapsnap_health_rebase(struct mapsnap *m)
{
	stackmap_watch_rebase(&m->watch);
	m->fb_base = ingest_stats(m->ing)->fallback_stacks;
	m->stats->health = m->watch.h;
}

void mapsnap_health_mark(struct mapsnap *m)
{
	const struct ingest_stats *is = ingest_stats(m->ing);
	struct stackmap_rb rb = { is->sized_records, is->sized_bytes, is->alt_bytes };

	stackmap_watch_mark(&m->watch, &rb);
}

void mapsnap_health_tick(struct mapsnap *m)
{
	const struct ingest_stats *is = ingest_stats(m->ing);
	struct stackmap_rb rb = { is->sized_records, is->sized_bytes, is->alt_bytes };

	stackmap_watch_tick(
		&m->watch, mono_sec(),
		is->fallback_stacks >= m->fb_base ? is->fallback_stacks - m->fb_base : 0, &rb);
	m->stats->health = m->watch.h;
}

void mapsnap_fini(struct mapsnap *m)
{
	free(m->prev_ref);
	m->prev_ref = NULL;
	m->nprev = 0;
}

/*
 * Room for @id's previous ref_count. No limit of its own: the ids that get
 * here were accepted by ingest_map_put(), below the map's table_size
 * (ingest_set_id_limit()) and INGEST_ID_MAX.
 */
static int prev_grow(struct mapsnap *m, uint32_t id)
{
	uint64_t n = m->nprev ? m->nprev : 1024;
	uint32_t *np;

	while (n <= id)
		n *= 2;
	if (n > INGEST_ID_MAX)
		n = INGEST_ID_MAX;
	np = realloc(m->prev_ref, n * sizeof(*np));
	if (!np)
		return -ENOMEM;
	memset(np + m->nprev, 0, (n - m->nprev) * sizeof(*np));
	m->prev_ref = np;
	m->nprev = (uint32_t)n;
	return 0;
}

static int map_put(struct mapsnap *m, uint32_t id, uint32_t ref, const uint64_t *ips, uint32_t nr)
{
	struct stack *st = ingest_map_put(m->ing, id, ips, nr, m->old_abi);
	uint32_t d;

	if (!st || !m->count_refs)
		return 0; /* an absurd id: ignore the record, keep the rest */
	if (id >= m->nprev && prev_grow(m, id) < 0)
		return 0;
	/* passive: hits are what ref_count grew by; a smaller one means a reset */
	d = ref >= m->prev_ref[id] ? ref - m->prev_ref[id] : ref;
	if (d) {
		stack_table_hit(m->table, st, 0, 0, -1, d);
		ingest_stats(m->ing)->events += d;
	}
	m->prev_ref[id] = ref;
	return 0;
}

static int map_visit_bin(void *ctx, uint32_t id, uint32_t ref, const uint64_t *ips, uint32_t nr)
{
	return map_put(ctx, id, ref, ips, nr);
}

static int map_visit_text(void *ctx, uint32_t id, uint32_t ref, uint32_t depth,
			  const struct stackmap_frame *fr, uint32_t n)
{
	struct mapsnap *m = ctx;
	uint64_t ips[STACKMAP_MAX_DEPTH];
	uint32_t i;

	(void)depth;
	for (i = 0; i < n && i < STACKMAP_MAX_DEPTH; i++) {
		uint64_t a = 0;

		if (fr[i].trampoline)
			a = STACKMAP_TRAMPOLINE;
		else if (!fr[i].sym)
			a = fr[i].addr;
		else if (ksym_addr_of(m->ksym, fr[i].sym, fr[i].sym_len, fr[i].mod, fr[i].mod_len,
				      &a) == 0)
			a += fr[i].off;
		else if (m->names && stackmap_names_intern(m->names, &fr[i], &a) == 0)
			m->named_frames++; /* shown as written, never merged as 0x0 */
		ips[i] = a;
	}
	return map_put(m, id, ref, ips, i);
}

/* read the kernel's map snapshot of the current generation */
int mapsnap_read(struct mapsnap *m)
{
	struct stackmap_bin_info info;
	char *buf;
	size_t len;
	int r;

	m->stats->map_reads++;
	r = tfs_read(m->tfs, "stack_map_bin", &buf, &len);
	if (r == 0) {
		r = stackmap_bin_parse(buf, len, map_visit_bin, m, &info);
		free(buf);
		if (r == 0) {
			m->old_abi = info.magic == STACKMAP_BIN_MAGIC_OLD;
			if (!m->old_abi)
				m->stats->map_abi = 4;
			if (info.truncated)
				log_warn("stack_map_bin: snapshot cut short after %u of %u stacks",
					 info.parsed, info.nr_stacks);
			return 0;
		}
		log_warn("stack_map_bin: %s; reading stack_map instead",
			 r == -EPROTO ? "unknown magic or version" : "malformed");
	} else if (r != -ENOENT) {
		log_warn("stack_map_bin: %s; reading stack_map instead", strerror(-r));
	}
	r = tfs_read(m->tfs, "stack_map", &buf, &len);
	if (r < 0) {
		log_warn("cannot read the stack map: %s", strerror(-r));
		return r;
	}
	r = stackmap_text_parse(buf, len, map_visit_text, m);
	free(buf);
	if (r < 0)
		log_warn("stack_map: malformed text");
	return r < 0 ? r : 0;
}

/*
 * Read stack_map_stat: returns 1 when the map's counters went down since
 * the last read (somebody reset it), 0 when not, negative on error.
 */
int mapsnap_stat_check(struct mapsnap *m)
{
	struct stackmap_stat st;
	char *buf;
	int r, reset = 0;

	r = tfs_read(m->tfs, "stack_map_stat", &buf, NULL);
	if (r < 0) {
		m->stats->have_map_stat = false;
		return r;
	}
	r = stackmap_stat_parse(buf, &st);
	free(buf);
	if (r < 0)
		return r;
	if (m->stats->have_map_stat &&
	    (st.successes < m->stats->map.successes || st.entries < m->stats->map.entries ||
	     st.drops < m->stats->map.drops))
		reset = 1;
	/* a first read, or the first after a reset (ours clears have_map_stat) */
	health_stat(m, &st, reset || !m->stats->have_map_stat);
	m->stats->map = st;
	m->stats->have_map_stat = true;
	/* ids are slots of the table: anything at or above it is damage */
	ingest_set_id_limit(m->ing, st.table_size);
	if (st.v1_names)
		m->stats->map_abi = 1;
	return reset;
}

/*
 * Somebody else reset the map. Ids read since the last check may belong to
 * either generation: drop them. On v1-v3 the reset kept the ring buffer,
 * so the ids still in it are as ambiguous: drop those too, up to the end of
 * the next complete drain. (v4 wiped the buffer with the map.)
 */
void mapsnap_external_reset(struct mapsnap *m)
{
	unsigned int n = ingest_drop_pending(m->ing);

	log_warn("the stack map was reset by another program: new generation (%u ids dropped)", n);
	mapsnap_new_generation(m);
	if (m->old_abi || m->stats->map_abi == 1)
		m->discard_ids = true;
}

/*
 * Resolve the ids read since the last checkpoint, but only if the map was
 * not reset meanwhile: the records could then belong to either generation,
 * and a guess could attribute hits to the wrong stack. Those are counted as
 * unresolved instead.
 */
void mapsnap_checkpoint(struct mapsnap *m)
{
	if (!ingest_pending(m->ing))
		return;
	if (m->discard_ids) {
		ingest_drop_pending(m->ing);
		return;
	}
	/* snapshot first, then the stat: a reset in between is caught below */
	if (ingest_needs_map(m->ing) && !m->read_this_drain) {
		m->read_this_drain = true;
		mapsnap_read(m);
	}
	if (mapsnap_stat_check(m) == 1) {
		/* since the last check, so before or while these ids were read */
		mapsnap_external_reset(m);
		return;
	}
	ingest_resolve(m->ing);
}

/* forget every id of the old generation */
void mapsnap_new_generation(struct mapsnap *m)
{
	ingest_new_generation(m->ing);
	if (m->prev_ref)
		memset(m->prev_ref, 0, m->nprev * sizeof(*m->prev_ref));
	m->stats->generation++;
}

/* a saved stack_map_bin (or stack_map text) for replay */
int mapsnap_load_fd(struct mapsnap *m, int fd, uint64_t max, const char *name)
{
	struct stackmap_bin_info info;
	size_t len;
	char *buf;
	int r;

	r = regfile_read(fd, max, &buf, &len);
	if (r < 0)
		return r;
	r = stackmap_bin_parse(buf, len, map_visit_bin, m, &info);
	if (r == 0) {
		m->old_abi = info.magic == STACKMAP_BIN_MAGIC_OLD;
		if (info.truncated)
			log_warn("%s: cut short after %u of %u stacks", name, info.parsed,
				 info.nr_stacks);
	} else {
		r = stackmap_text_parse(buf, len, map_visit_text, m);
		if (r > 0)
			r = 0;
		else if (r == 0)
			r = -EBADMSG; /* neither format, or empty */
	}
	free(buf);
	return r;
}
