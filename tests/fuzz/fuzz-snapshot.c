/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-snapshot.c - snapshot_parse() (the reader of `-r snap.json`) on
 * arbitrary bytes.
 *
 * Checks what the rest of stacktop relies on: on success every index is in
 * range, delta never exceeds total, depth never exceeds STACK_MAX_DEPTH,
 * every kept string is free of control bytes; on failure an error message
 * is set.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "snapshot.h"
#include "stack_table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void clean(const char *s)
{
	for (; s && *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct snapshot *sn;
	char err[256];
	size_t i, j;

	if (snapshot_parse((const char *)data, size, &sn, err, sizeof(err)) < 0) {
		if (!err[0])
			__builtin_trap();
		clean(err);
		return 0;
	}
	clean(sn->host);
	clean(sn->kernel);
	for (i = 0; i < sn->nevents; i++)
		clean(sn->events[i]);
	clean(sn->view.filter);
	if (sn->view.event >= 0 && (unsigned int)sn->view.event >= sn->nevents)
		__builtin_trap();
	for (i = 0; i < sn->nstacks; i++) {
		const struct snap_stack *st = &sn->stacks[i];

		if (st->delta > st->total || st->depth > STACK_MAX_DEPTH || strlen(st->key) != 16)
			__builtin_trap();
		for (j = 0; j < st->depth; j++)
			clean(st->syms[j]);
		for (j = 0; j < st->nby; j++) {
			const struct snap_by *b = &st->by[j];

			if (b->event >= sn->nevents || b->delta > b->total || b->pid < -1 ||
			    (sn->norigins ? b->origin >= sn->norigins : b->origin != 0))
				__builtin_trap();
			clean(b->comm);
		}
	}
	snapshot_free(sn);
	return 0;
}
