// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * session_replay.c - opening recordings and snapshots (-r): trace.dat files
 * and JSON snapshots told apart by content, a stack map saved next to a
 * recording, several snapshots merged.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "sym/brief.h"
#include "kernel/comm.h"
#include "kernel/evfmt.h"
#include "ingest/ingest.h"
#include "core/format.h"
#include "sym/ksym.h"
#include "core/log.h"
#include "session/session.h"
#include "kernel/signals.h"
#include "source/source.h"
#include "core/stack_table.h"
#include "ingest/snapshot.h"
#include "kernel/stackmap.h"
#include "kernel/state.h"
#include "kernel/tfs.h"
#include "sym/usym.h"
#include "kernel/tgid.h"
#include "session/session_priv.h"

/* a stack map saved next to the recording (stack_map_bin, else stack_map) */
static void find_saved_map(struct session *s, const char *dat)
{
	static const char *const names[] = { "stack_map_bin", "stack_map" };
	const char *slash = strrchr(dat, '/');
	size_t dir = slash ? (size_t)(slash - dat) + 1 : 0, i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *p = malloc(dir + strlen(names[i]) + 1);

		if (!p)
			return;
		memcpy(p, dat, dir);
		strcpy(p + dir, names[i]);
		if (access(p, R_OK) == 0) {
			log_info("using the stack map saved next to the recording: %s", p);
			s->found_map = p;
			s->opts.map_file = p;
			return;
		}
		free(p);
	}
}

/* the -r files: at most one trace.dat, any number of JSON snapshots */
static int sort_files(struct session *s, int *nsnap, char *err, size_t errsz)
{
	const struct session_opts *o = &s->opts;
	int i, r;

	*nsnap = 0;
	for (i = 0; i < o->nfiles; i++) {
		r = snapshot_is_json(o->files[i]);
		if (r < 0)
			return session_errf(err, errsz, r, "cannot read %s: %s", o->files[i],
					    strerror(-r));
		if (r) {
			(*nsnap)++;
			continue;
		}
		if (s->opts.replay)
			return session_errf(err, errsz, -EINVAL,
					    "-r %s: one trace.dat at a time (several -r are JSON snapshots)",
					    o->files[i]);
		s->opts.replay = o->files[i];
	}
	if (*nsnap && s->opts.replay)
		return session_errf(err, errsz, -EINVAL,
				    "-r: a trace.dat and JSON snapshots cannot be read together");
	if (*nsnap && s->opts.map_file)
		return session_errf(err, errsz, -EINVAL,
				    "--map resolves a trace.dat's ids: not with JSON snapshots");
	if (*nsnap >= SESSION_MAX_SOURCES)
		return session_errf(err, errsz, -E2BIG, "at most %d snapshots at a time",
				    SESSION_MAX_SOURCES - 1);
	return 0;
}

/* recordings: read once, at the first drain; no kernel is touched */
int session_open_replay(const struct session_opts *opts, struct session **ret, char *err,
		       size_t errsz)
{
	struct session *s = calloc(1, sizeof(*s));
	int r, i, nsnap = 0;

	if (!s)
		return -ENOMEM;
	s->opts = *opts;
	s->mode = s->stats.mode = SESSION_REPLAY;
	s->recording = true;
	s->stats.tracing_on = true;
	s->comms = comm_cache_new(NULL, false);
	s->table = stack_table_new();
	if (s->table)
		stack_table_set_limit(s->table, opts->max_memory ? opts->max_memory
								 : SESSION_MAX_MEMORY);
	s->ksym = ksym_new(opts->kallsyms);
	s->map_names = stackmap_names_new();
	if (!s->comms || !s->table || !s->ksym || !s->map_names) {
		r = -ENOMEM;
		goto fail;
	}
	r = sort_files(s, &nsnap, err, errsz);
	if (r < 0)
		goto fail;
	if (s->opts.replay && !s->opts.map_file)
		find_saved_map(s, s->opts.replay);
	/*
	 * a trace.dat brings its own symbols (replay_dat.c), a snapshot its
	 * own symbol texts (replay_json.c): the live kallsyms only for a map
	 * alone, or when asked for
	 */
	if (opts->kallsyms) {
		r = ksym_load(s->ksym, NULL);
		if (r < 0)
			log_warn("cannot read %s: %s", opts->kallsyms, ksym_strerror(r));
	} else if (!s->opts.replay && !nsnap) {
		r = ksym_load(s->ksym, NULL);
		if (r < 0)
			log_warn("cannot read /proc/kallsyms (%s): frames stay numeric", ksym_strerror(r));
	}
	/* the sources: the events first, then the map that resolves their ids */
	r = 0;
	for (i = 0; r == 0 && i < opts->nfiles; i++)
		if (opts->files[i] != s->opts.replay)
			r = session_add_source(s, &source_replay_json_ops, err, errsz);
	if (r == 0 && s->opts.replay)
		r = session_add_source(s, &source_replay_dat_ops, err, errsz);
	if (r == 0 && s->opts.map_file)
		r = session_add_source(s, &source_replay_map_ops, err, errsz);
	if (r < 0)
		goto fail;
	replay_json_finish(s);
	if (!s->ing || session_set_filters(s, false) < 0 ||
	    ((opts->group_depth || opts->group_func) &&
	     session_set_group(s, opts->group_depth, opts->group_func) < 0)) {
		r = -ENOMEM;
		goto fail;
	}
	*ret = s;
	return 0;
fail:
	session_close(s);
	return r;
}

