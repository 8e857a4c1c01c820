// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * replay.c - the sources of the -r files: trace.dat files and JSON
 * snapshots told apart by content, a stack map saved next to a recording
 * (or --map), several snapshots merged; no kernel is touched.
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

#include "core/format.h"
#include "core/log.h"
#include "core/stack_table.h"
#include "core/stack_mem.h"
#include "ingest/snapshot.h"
#include "kernel/comm.h"
#include "kernel/stackmap.h"
#include "session/priv.h"
#include "session/session.h"
#include "source/source.h"
#include "sym/ksym.h"

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
			return fmt_error(err, errsz, r, "cannot read %s: %s", o->files[i],
					 strerror(-r));
		if (r) {
			(*nsnap)++;
			continue;
		}
		if (s->opts.replay)
			return fmt_error(
				err, errsz, -EINVAL,
				"-r %s: one trace.dat at a time (several -r are JSON snapshots)",
				o->files[i]);
		s->opts.replay = o->files[i];
	}
	if (*nsnap && s->opts.replay)
		return fmt_error(err, errsz, -EINVAL,
				 "-r: a trace.dat and JSON snapshots cannot be read together");
	if (*nsnap && s->opts.map_file)
		return fmt_error(err, errsz, -EINVAL,
				 "--map resolves a trace.dat's ids: not with JSON snapshots");
	if (*nsnap >= SESSION_MAX_SOURCES)
		return fmt_error(err, errsz, -E2BIG, "at most %d snapshots at a time",
				 SESSION_MAX_SOURCES - 1);
	return 0;
}

/* recordings: read once, at the first drain; no kernel is touched */
int session_open_replay(struct session *s, char *err, size_t errsz)
{
	const struct session_opts *opts = &s->opts;
	unsigned int depth;
	bool func;
	int r, i, nsnap = 0;

	s->c.tr.mode = s->c.stats.mode = SESSION_REPLAY;
	s->recording = true;
	s->c.stats.tracing_on = true;
	s->c.comms = comm_cache_new(NULL, false);
	s->c.table = stack_table_new();
	if (s->c.table)
		stack_table_set_limit(s->c.table,
				      opts->max_memory ? opts->max_memory : SESSION_MAX_MEMORY);
	s->c.tr.ksym = ksym_new(opts->kallsyms);
	s->c.map_names = stackmap_names_new();
	if (!s->c.comms || !s->c.table || !s->c.tr.ksym || !s->c.map_names)
		return -ENOMEM;
	r = sort_files(s, &nsnap, err, errsz);
	if (r < 0)
		return r;
	if (s->opts.replay && !s->opts.map_file)
		find_saved_map(s, s->opts.replay);
	/*
	 * a trace.dat brings its own symbols (replay_dat.c), a snapshot its
	 * own symbol texts (replay_json.c): the live kallsyms only for a map
	 * alone, or when asked for
	 */
	if (opts->kallsyms) {
		r = ksym_load(s->c.tr.ksym, NULL);
		if (r < 0)
			log_warn("cannot read %s: %s", opts->kallsyms, ksym_strerror(r));
	} else if (!s->opts.replay && !nsnap) {
		r = ksym_load(s->c.tr.ksym, NULL);
		if (r < 0)
			log_warn("cannot read /proc/kallsyms (%s): frames stay numeric",
				 ksym_strerror(r));
	}
	/* the sources: the events first, then the map that resolves their ids */
	r = 0;
	for (i = 0; r == 0 && i < opts->nfiles; i++)
		if (opts->files[i] != s->opts.replay)
			r = session_add_source(s, &source_replay_json_ops, opts->files[i], err,
					       errsz);
	if (r == 0 && s->opts.replay)
		r = session_add_source(s, &source_replay_dat_ops, NULL, err, errsz);
	if (r == 0 && s->opts.map_file)
		r = session_add_source(s, &source_replay_map_ops, NULL, err, errsz);
	if (r < 0)
		return r;
	/* stacks read grouped are shown grouped, as they were seen (--depth/--by-func win) */
	replay_json_finish(&s->c, &depth, &func);
	if (!opts->group_depth && !opts->group_func && (depth || func) &&
	    session_set_group(s, depth, func) < 0)
		log_warn("out of memory grouping the snapshot's stacks as they were");
	if (!s->c.ing || session_set_filters(s, false) < 0 ||
	    ((opts->group_depth || opts->group_func) &&
	     session_set_group(s, opts->group_depth, opts->group_func) < 0))
		return -ENOMEM;
	return 0;
}
