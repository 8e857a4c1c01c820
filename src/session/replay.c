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
#include "core/regfile.h"
#include "core/stack_table.h"
#include "core/stack_mem.h"
#include "ingest/snapshot.h"
#include "kernel/comm.h"
#include "kernel/stackmap.h"
#include "session/priv.h"
#include "session/session.h"
#include "source/source.h"
#include "sym/ksym.h"

/*
 * A stack map saved next to the recording (stack_map_bin, else stack_map),
 * in a directory its user may write: opened now, once, as every file a user
 * controls (core/regfile.h): a regular file (a FIFO there does not block,
 * a symlink to /dev/zero is refused), at most --max-memory's bytes; the
 * map's source reads that descriptor.
 */
static void find_saved_map(struct session *s, const char *dat)
{
	static const char *const names[] = { "stack_map_bin", "stack_map" };
	const char *slash = strrchr(dat, '/');
	size_t dir = slash ? (size_t)(slash - dat) + 1 : 0, i;
	size_t max = s->opts.max_memory ? s->opts.max_memory : SESSION_MAX_MEMORY;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *p = malloc(dir + strlen(names[i]) + 1);
		int fd;

		if (!p)
			return;
		memcpy(p, dat, dir);
		strcpy(p + dir, names[i]);
		fd = regfile_open(p, REGFILE_NOFOLLOW, max, NULL);
		if (fd >= 0) {
			log_info("using the stack map saved next to the recording: %s", p);
			s->found_map = p;
			s->opts.map_file = p;
			s->c.map_fd = fd;
			s->c.have_map_fd = true;
			return;
		}
		if (fd != -ENOENT)
			log_warn("%s next to the recording not used: %s", p,
				 fd == -ELOOP	 ? "a symlink"
				 : fd == -EINVAL ? "not a regular file"
				 : fd == -EFBIG	 ? "larger than --max-memory"
						 : strerror(-fd));
		free(p);
	}
}

/* the -r files: at most one trace.dat, any number of JSON snapshots */
static int sort_files(struct session *s, int *nsnap, char *err, size_t errsz)
{
	const struct session_opts *o = &s->opts;
	int i, r, fd;

	*nsnap = 0;
	for (i = 0; i < o->nfiles; i++) {
		/*
		 * a regular file (a FIFO or a device is never opened), opened once:
		 * a trace.dat is read through this descriptor from here on, never
		 * by its name again (a user renaming another file over it in
		 * their directory changes nothing)
		 */
		fd = regfile_open(o->files[i], 0, 0, NULL);
		r = fd < 0 ? fd : snapshot_is_json(fd);
		if (r == -EINVAL || r == -ELOOP)
			return fmt_error(err, errsz, r, "cannot read %s: not a regular file",
					 o->files[i]);
		if (r < 0) {
			if (fd >= 0)
				close(fd);
			return fmt_error(err, errsz, r, "cannot read %s: %s", o->files[i],
					 strerror(-r));
		}
		if (r) {
			close(fd); /* (a snapshot: opened and checked again by its reader) */
			(*nsnap)++;
			continue;
		}
		if (s->opts.replay) {
			close(fd);
			return fmt_error(
				err, errsz, -EINVAL,
				"-r %s: one trace.dat at a time (several -r are JSON snapshots)",
				o->files[i]);
		}
		s->opts.replay = o->files[i];
		s->c.dat_fd = fd;
		s->c.have_dat_fd = true;
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
