/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-snapshot.c - snapshot_parse() (the reader of `-r snap.json`) on
 * arbitrary bytes.
 *
 * Checks what the rest of stacktop relies on: on success every index is in
 * range, delta never exceeds total, depth never exceeds STACK_MAX_DEPTH
 * (with the user part: kernel frames, separator, user frames and cut mark),
 * user frames come with a process, every kept string is free of control
 * bytes; on failure an error message is set. The input is read by the
 * streaming reader from memory (snapshot_parse()) and, every few inputs,
 * from a file through its read window (snapshot_load(): the same answer).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ingest/snapshot.h"
#include "core/stack.h"

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

	int r = snapshot_parse((const char *)data, size, &sn, err, sizeof(err));

	/* the file reader (a small window when built with -DSNAPSHOT_WINDOW) agrees */
	{
		static int fd = -1;
		struct snapshot *sf = NULL;
		char path[64], ferr[256];
		int rf;

		if (fd < 0)
			fd = memfd_create("fuzz-snapshot", 0);
		if (fd >= 0 && !ftruncate(fd, 0) && pwrite(fd, data, size, 0) == (ssize_t)size) {
			snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
			rf = snapshot_load(path, &sf, ferr, sizeof(ferr));
			if (rf != r || (r < 0 && strcmp(err, ferr)) ||
			    (r == 0 && sf->nstacks != sn->nstacks))
				__builtin_trap();
			snapshot_free(sf);
		}
	}
	if (r < 0) {
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
		if (st->nsyms != st->depth)
			__builtin_trap();
		for (j = 0; j < st->depth; j++)
			clean(st->syms[j]);
		if (st->uaddrs && (st->tgid < 0 || st->tgid > UINT32_MAX ||
				   st->depth + st->nuser + 2 > STACK_MAX_DEPTH))
			__builtin_trap();
		if (!st->uaddrs && (st->tgid != -1 || st->nuser || st->user_cut))
			__builtin_trap();
		for (j = 0; j < st->nuser; j++)
			clean(st->usyms[j]);
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
