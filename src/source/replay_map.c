// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * replay_map.c - a saved copy of stack_map_bin (or the stack_map text) as
 * a source. With a trace.dat before it, it resolves the recording's stack
 * ids; alone, its ref_counts are the hits (the only "event" is the map).
 * Read whole at open.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/format.h"
#include "core/log.h"
#include "core/regfile.h"
#include "core/stack_mem.h"
#include "core/stack_table.h"
#include "ingest/ingest.h"
#include "kernel/stackmap.h"
#include "kernel/trace.h"
#include "source/mapsnap.h"
#include "source/source.h"
#include "sym/ksym.h"

/* frames of the map that no symbol table knows, as written in it */
static int names_sym(void *ctx, uint64_t addr, struct ksym_hit *ret)
{
	return stackmap_names_lookup(ctx, addr, &ret->name, &ret->module, &ret->start, &ret->size);
}

static int replay_map_open(struct source *src, char *err, size_t errsz)
{
	struct source_ctx *s = src->ctx;
	const char *path = s->tr.opts->map_file;
	bool alone = !s->ing;
	struct stack_mem sm;
	struct mapsnap *m;
	int r, fd;

	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	src->priv = m;
	if (alone) {
		/* a map alone: no events, every hit is its ref_count */
		s->ing = ingest_new(NULL, s->table, 1);
		if (!s->ing)
			return -ENOMEM;
		s->map_events = true;
		snprintf(s->stats.kernel, sizeof(s->stats.kernel), "saved stack map");
		fmt_sanitize(s->stats.tracefs, sizeof(s->stats.tracefs), path, strlen(path));
		trace_traced_append(&s->tr, "stack_map file");
	}
	mapsnap_init(m, NULL, s->ing, s->table, s->tr.ksym, &s->stats, alone);
	m->names = s->map_names;
	/*
	 * the file opened once: found next to a recording (in a directory a user
	 * may write: opened then, no symlink), or --map's; a regular file, at
	 * most --max-memory's bytes
	 */
	stack_table_mem(s->table, &sm);
	if (s->have_map_fd) {
		fd = s->map_fd;
		s->have_map_fd = false;
	} else {
		fd = regfile_open(path, 0, sm.limit, NULL);
	}
	r = fd < 0 ? fd : mapsnap_load_fd(m, fd, sm.limit, path);
	if (fd >= 0)
		close(fd);
	if (r < 0)
		return fmt_error(err, errsz, r, "cannot read the stack map %s: %s", path,
				 r == -EBADMSG	? "neither stack_map_bin nor stack_map text"
				 : r == -EINVAL ? "not a regular file"
				 : r == -EFBIG	? "larger than --max-memory"
						: strerror(-r));
	if (m->named_frames) {
		/* with a trace.dat and no --kallsyms its resolver answers names first */
		if (!s->tr.opts->replay || s->tr.opts->kallsyms)
			ksym_set_resolver(s->tr.ksym, names_sym, s->map_names);
		if (s->tr.opts->replay && !s->tr.opts->kallsyms)
			log_warn(
				"%s: %llu frames kept as written (names become addresses only with --kallsyms)",
				path, (unsigned long long)m->named_frames);
		else
			log_warn("%s: %llu frames name symbols not in %s: shown as written", path,
				 (unsigned long long)m->named_frames,
				 s->tr.opts->kallsyms ? s->tr.opts->kallsyms : "/proc/kallsyms");
	}
	return 0;
}

static void replay_map_close(struct source *src)
{
	if (src->priv)
		mapsnap_fini(src->priv);
	free(src->priv);
	src->priv = NULL;
}

const struct source_ops source_replay_map_ops = {
	.name = "saved map",
	.open = replay_map_open,
	.close = replay_map_close,
};
