/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * export_priv.h - helpers shared by the export_*.c writers (not a public API).
 */
#ifndef STACKTOP_EXPORT_PRIV_H
#define STACKTOP_EXPORT_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "output/export.h"
#include "core/stack_table.h"

/* every stack matching @o, ranked; *@rows is malloc'd (free() it), even when empty */
int export_rows(struct session *s, const struct rank_opts *o, size_t limit, struct rank_row **rows,
		size_t *n, struct rank_summary *sum);

/* whether record @a counts under @o (no attribute filter: every record) */
static inline bool export_attr_passes(const struct rank_opts *o, const struct stack_attr *a)
{
	return !o || !rank_filters_attrs(o) || rank_attr_passes(o, a);
}

/* what record @a counts under @o: its weight when @o ranks by weight, else its hits */
static inline uint64_t export_attr_total(const struct stack_table *t, const struct rank_opts *o,
					 const struct stack_attr *a, uint64_t *ret_delta)
{
	if (o && o->weight)
		return stack_attr_weight(t, a, ret_delta);
	if (ret_delta)
		*ret_delta = stack_attr_delta(t, a);
	return a->total;
}

/* the pprof/speedscope unit name of what @o counts: "count", "bytes", "nanoseconds" */
const char *export_unit_name(struct session *s, const struct rank_opts *o);

/* a JSON string literal of @str (already sanitized text) */
void export_json_str(FILE *f, const char *str);

/* 0, or the errno of the failed write (EPIPE when the reader went away) */
int export_flush(FILE *f);

#endif /* STACKTOP_EXPORT_PRIV_H */
