/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * snapshot_stack.h - one stack of a snapshot read (snapshot_stack.c), for
 * pass 3 of the reader (snapshot_read.c).
 */
#ifndef STACKTOP_SNAPSHOT_STACK_H
#define STACKTOP_SNAPSHOT_STACK_H

#include <stddef.h>

#include "ingest/jsonrd.h"
#include "ingest/snapshot.h"

/**
 * snapshot_parse_stack() - the stack object at the reader, every member
 *	checked, into @st
 * @r: the reader, on the object
 * @sn: the snapshot's header (its events, CPUs, the version's rules)
 * @st: receives the stack (zeroed by the caller; snapshot_stack_clear()
 *	frees it)
 * @idx: its index in "stacks", for the messages
 *
 * Return: 0, or a negative errno with the reader's message set.
 */
int snapshot_parse_stack(struct json_rd *r, const struct snapshot *sn, struct snap_stack *st,
			 size_t idx);

#endif /* STACKTOP_SNAPSHOT_STACK_H */
