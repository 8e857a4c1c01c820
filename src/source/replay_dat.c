// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * replay_dat.c - a trace-cmd trace.dat as a source: the stack records of
 * every buffer in it, read whole at the first drain (replay.h does the
 * reading). No kernel: the recording's own formats, kallsyms and cmdlines
 * are used.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "core/format.h"
#include "core/log.h"
#include "ingest/ingest.h"
#include "ingest/replay.h"
#include "kernel/comm.h"
#include "kernel/evfmt.h"
#include "kernel/probes.h"
#include "kernel/stackmap.h"
#include "kernel/trace.h"
#include "source/source.h"
#include "sym/datsyms.h"
#include "sym/ksym.h"

static int replay_sym(void *ctx, uint64_t addr, struct ksym_hit *ret)
{
	struct source *src = ctx;
	const char *name = NULL;
	unsigned long long start = 0;
	unsigned long size = 0;

	/* frames of a saved map that no symbol table knows answer first */
	if (stackmap_names_lookup(src->ctx->map_names, addr, &ret->name, &ret->module, &ret->start,
				  &ret->size) == 0)
		return 0;
	if (!src->priv ||
	    tep_find_function_info(replay_tep(src->priv), addr, &name, &start, &size) == 0 || !name)
		return -ENOENT;
	ret->name = name;
	ret->module = NULL;
	ret->start = start;
	ret->size = size;
	return 0;
}

/* a recording names its pids from its own saved cmdlines */
static const char *replay_comm(void *ctx, int pid)
{
	return tep_data_comm_from_pid(replay_tep(ctx), pid);
}

/*
 * The recording's kallsyms text, by name too: a saved stack_map text names
 * its frames "sym+0xoff", and only the recording's symbols turn them back
 * into the addresses its kernel had (the tep resolver answers by address
 * only).
 */
static void load_own_kallsyms(struct source_ctx *s, struct replay *rp, const char *path)
{
	size_t len;
	char *txt;
	FILE *f;
	int r;

	r = datsyms_read(replay_fd(rp), &txt, &len);
	if (r < 0) {
		log_info("%s: no kallsyms text read (%s)", path, strerror(-r));
		return;
	}
	f = fmemopen(txt, len, "r");
	if (f) {
		r = ksym_load(s->tr.ksym, f);
		if (r < 0)
			log_info("%s: its kallsyms: %s", path, strerror(-r));
		fclose(f);
	}
	free(txt);
}

static int replay_dat_open(struct source *src, char *err, size_t errsz)
{
	struct source_ctx *s = src->ctx;
	const char *path = s->tr.opts->replay;
	struct replay *rp;
	int r;

	char why[256] = "";

	/* the file sort_files() opened (session/replay.c): read, never opened again */
	if (s->have_dat_fd) {
		s->have_dat_fd = false;
		r = replay_open_fd(s->dat_fd, &rp, why, sizeof(why));
	} else {
		r = replay_open(path, &rp, why, sizeof(why));
	}
	if (r < 0)
		return fmt_error(err, errsz, r, "cannot read %s: %s", path,
				 r == -EBADMSG ? why : strerror(-r));
	src->priv = rp;
	comm_cache_set_lookup(s->comms, replay_comm, rp);
	r = evfmt_from_tep(replay_tep(rp), &s->tr.fmt);
	if (r < 0)
		return fmt_error(
			err, errsz, r,
			r == -EBADMSG
				? "%s has impossible event formats (see above)"
				: "%s has no stack trace events (record with -T or -O stacktrace)",
			path);
	s->ing = ingest_new(s->tr.fmt, s->table, replay_slots(rp));
	if (!s->ing)
		return -ENOMEM;
	ingest_configure(
		s->ing,
		&(struct ingest_config){
			.type_cb = trace_type_cb,
			.type_ctx = &s->tr,
			/* function-tracer entries (trace-cmd record -p function -T): by function */
			.func_cb = probes_func_cb,
			.func_ctx = &s->tr,
			/* ids no saved map resolves still count, each on its own row */
			.keep_unresolved = true,
		});
	snprintf(s->stats.kernel, sizeof(s->stats.kernel), "recording");
	fmt_sanitize(s->stats.tracefs, sizeof(s->stats.tracefs), path, strlen(path));
	/* the recording's own kallsyms: the live one may be another boot */
	if (!s->tr.opts->kallsyms) {
		ksym_set_resolver(s->tr.ksym, replay_sym, src);
		load_own_kallsyms(s, rp, path);
	}
	return 0;
}

/* a recording is finite: it is read whole, whatever the budget */
static int replay_dat_drain(struct source *src, struct drain_budget *budget)
{
	struct source_ctx *s = src->ctx;
	double secs = 0;
	unsigned int i;
	long long n;

	(void)budget;
	n = replay_run(src->priv, s->ing, &secs);
	if (n < 0)
		log_err("cannot read the recording: %s", strerror((int)-n));
	ingest_resolve(s->ing);
	s->stats.interval_sec = secs;
	/* what was traced: the events the recording's stacks came with */
	for (i = 0; i < source_nevents(s); i++)
		trace_traced_append(&s->tr, source_event(s, i));
	if (!source_nevents(s))
		trace_traced_append(&s->tr, "none with a stack");
	if (ingest_stats(s->ing)->unresolved)
		log_warn(
			"%llu stack_id records name ids %s: each id is ranked as '[unresolved stack_id N]'; "
			"give --map with the stack_map_bin (or stack_map) saved with the recording "
			"(cat /sys/kernel/tracing/stack_map_bin > stack_map_bin next to the trace.dat)",
			(unsigned long long)ingest_stats(s->ing)->unresolved,
			s->tr.opts->map_file ? "the stack map does not hold"
					     : "no stack map resolves");
	return n > 0 ? (int)(n > 0x7fffffff ? 0x7fffffff : n) : 0;
}

static void replay_dat_close(struct source *src)
{
	struct source_ctx *s = src->ctx;

	/* the comm lookup points into the recording */
	if (src->priv && s->comms)
		comm_cache_set_lookup(s->comms, NULL, NULL);
	replay_close(src->priv);
	src->priv = NULL;
}

const struct source_ops source_replay_dat_ops = {
	.name = "trace.dat",
	.open = replay_dat_open,
	.drain = replay_dat_drain,
	.close = replay_dat_close,
};
