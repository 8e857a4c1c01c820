// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * source.c - what the sources share besides their context: the drain
 * budget and the names of the event indexes.
 */
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "kernel/evfmt.h"
#include "source/source.h"

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

bool drain_budget_spent(struct drain_budget *b)
{
	if (b->used >= b->pages || (b->stop && *b->stop) || mono_ns() >= b->deadline) {
		b->more = true;
		return true;
	}
	return false;
}

unsigned int source_nevents(const struct source_ctx *c)
{
	return c->tr.fmt ? c->tr.fmt->nnames : c->nnames;
}

const char *source_event(const struct source_ctx *c, unsigned int idx)
{
	if (c->map_events)
		return "stack_map";
	if (!c->tr.fmt)
		return idx < c->nnames ? c->names[idx] : "?";
	return idx < c->tr.fmt->nnames ? c->tr.fmt->names[idx] : "?";
}
