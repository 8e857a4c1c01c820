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

#include "comm.h"
#include "evfmt.h"
#include "format.h"
#include "ingest.h"
#include "ksym.h"
#include "log.h"
#include "replay.h"
#include "source.h"
#include "stackmap.h"

static int replay_sym(void *ctx, uint64_t addr, struct ksym_hit *ret)
{
	struct source *src = ctx;
	const char *name = NULL;
	unsigned long long start = 0;
	unsigned long size = 0;

	/* frames of a saved map that no symbol table knows answer first */
	if (stackmap_names_lookup(src->s->names, addr, &ret->name, &ret->module, &ret->start,
				  &ret->size) == 0)
		return 0;
	if (!src->priv ||
	    tep_find_function_info(replay_tep(src->priv), addr, &name, &start, &size) == 0 ||
	    !name)
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

static int replay_dat_open(struct source *src, char *err, size_t errsz)
{
	struct session *s = src->s;
	const char *path = s->opts.replay;
	struct replay *rp;
	int r;

	char why[256] = "";

	r = replay_open(path, &rp, why, sizeof(why));
	if (r < 0)
		return session_errf(err, errsz, r, "cannot read %s: %s", path,
				    r == -EBADMSG ? why : strerror(-r));
	src->priv = rp;
	comm_cache_set_lookup(s->comms, replay_comm, rp);
	r = evfmt_from_tep(replay_tep(rp), &s->fmt);
	if (r < 0)
		return session_errf(err, errsz, r,
				    r == -EBADMSG ? "%s has impossible event formats (see above)"
						  : "%s has no stack trace events (record with -T or -O stacktrace)",
				    path);
	s->ing = ingest_new(s->fmt, s->table, replay_slots(rp));
	if (!s->ing)
		return -ENOMEM;
	ingest_set_type_cb(s->ing, session_type_cb, s);
	snprintf(s->stats.kernel, sizeof(s->stats.kernel), "recording");
	fmt_sanitize(s->stats.tracefs, sizeof(s->stats.tracefs), path, strlen(path));
	session_traced_append(s, replay_buffers(rp));
	/* the recording's own kallsyms: the live one may be another boot */
	if (!s->opts.kallsyms)
		ksym_set_resolver(s->ksym, replay_sym, src);
	return 0;
}

/* a recording is finite: it is read whole, whatever the budget */
static int replay_dat_drain(struct source *src, struct drain_budget *budget)
{
	struct session *s = src->s;
	double secs = 0;
	long long n;

	(void)budget;
	n = replay_run(src->priv, s->ing, &secs);
	if (n < 0)
		log_err("cannot read the recording: %s", strerror((int)-n));
	ingest_resolve(s->ing);
	s->stats.interval_sec = secs;
	return n > 0 ? (int)(n > 0x7fffffff ? 0x7fffffff : n) : 0;
}

static void replay_dat_close(struct source *src)
{
	struct session *s = src->s;

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
