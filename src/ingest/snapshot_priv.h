/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * snapshot_priv.h - what the snapshot reader's two files share.
 */
#ifndef STACKTOP_SNAPSHOT_PRIV_H
#define STACKTOP_SNAPSHOT_PRIV_H

#include <stdint.h>

#include "ingest/jsonrd.h"
#include "ingest/snapshot.h"

/* pass 2: the header of the value at the reader, "stacks" (at @stacks_at) seeked over */
int snapshot_parse_header(struct json_rd *r, struct snapshot *sn, uint64_t stacks_at,
			  uint64_t stacks_end);

/* the index of event @name in the snapshot's "events", -1 when it is not there */
int snapshot_find_event(const struct snapshot *sn, const char *name);

/* free what a stack holds and zero it */
void snapshot_stack_clear(struct snap_stack *st);

#endif /* STACKTOP_SNAPSHOT_PRIV_H */
