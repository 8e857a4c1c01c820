// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * passive.c - the passive source: a stackmap kernel whose buffer somebody
 * else consumes. Nothing is read from the ring buffer; every tick reads a
 * snapshot of the map, and the hits are what each ref_count grew by.
 */
#include <errno.h>
#include <stdlib.h>

#include "core/log.h"
#include "kernel/evfmt.h"
#include "kernel/trace.h"
#include "source/mapsnap.h"
#include "source/source.h"

static int passive_open(struct source *src, char *err, size_t errsz)
{
	struct source_ctx *s = src->ctx;
	struct mapsnap *m;

	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	src->priv = m;
	mapsnap_init(m, s->tr.tfs, s->ing, s->table, s->tr.ksym, &s->stats, true);
	s->map_events = true;
	trace_traced_append(&s->tr, "stack_map (passive)");
	if (evfmt_add_type(s->tr.fmt, s->tr.tfs, 0) < 0)
		return -ENOMEM;
	mapsnap_stat_check(m); /* the table_size bounds the ids of the first read */
	return mapsnap_read(m);
}

static int passive_drain(struct source *src, struct drain_budget *budget)
{
	struct mapsnap *m = src->priv;

	(void)budget;
	m->read_this_drain = false;
	return 0;
}

static int passive_tick(struct source *src)
{
	struct mapsnap *m = src->priv;

	/* after a reset every ref_count starts from 0 again */
	if (mapsnap_stat_check(m) == 1) {
		log_warn("the stack map was reset: counting from the new map");
		mapsnap_new_generation(m);
	}
	m->read_this_drain = false;
	mapsnap_read(m); /* the session adds what it counted after the tick */
	mapsnap_stat_check(m);
	mapsnap_health_tick(m);
	return 0;
}

/* not ours to wipe: another consumer owns the buffer; rebase instead */
static int passive_reset(struct source *src)
{
	struct source_ctx *s = src->ctx;

	s->host.zero_counts(s->host.host);
	s->stats.generation++;
	/* the pool's successes, drops and fallback share since the r, too */
	mapsnap_health_rebase(src->priv);
	return 0;
}

static void passive_close(struct source *src)
{
	if (src->priv)
		mapsnap_fini(src->priv);
	free(src->priv);
	src->priv = NULL;
}

const struct source_ops source_passive_ops = {
	.name = "passive",
	.open = passive_open,
	.drain = passive_drain,
	.tick = passive_tick,
	.reset = passive_reset,
	.close = passive_close,
};
