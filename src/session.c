// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * session.c - see session.h.
 *
 * What every source shares: tracefs and the restore journal, the event
 * formats and their pattern expansion, ingest, the stack table, symbols,
 * the comm cache (comm.c) and the header's counters. The sources
 * (source.h, src/source/) do the reading; ingest.c turns it into counted
 * stacks. The session chooses the sources at open and loops over them in
 * drain, tick and reset.
 */
#include <errno.h>
#include <fcntl.h>
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

#include "comm.h"
#include "evfmt.h"
#include "ingest.h"
#include "format.h"
#include "ksym.h"
#include "log.h"
#include "session.h"
#include "source.h"
#include "stack_table.h"
#include "stackmap.h"
#include "state.h"
#include "tfs.h"
#include "usym.h"


static const char *const mode_names[SESSION_MODE_MAX] = {
	[SESSION_AUTO] = "auto",
	[SESSION_STACKMAP] = "stackmap",
	[SESSION_STACKS] = "stacks",
	[SESSION_PASSIVE] = "passive",
	[SESSION_REPLAY] = "replay",
};

const char *session_mode_name(enum session_mode mode)
{
	return mode < SESSION_MODE_MAX ? mode_names[mode] : "?";
}

int session_mode_parse(const char *name)
{
	int i;

	for (i = 0; i < SESSION_MODE_MAX; i++)
		if (!strcmp(name, mode_names[i]))
			return i;
	return -EINVAL;
}

int session_errf(char *err, size_t errsz, int r, const char *fmt, ...)
{
	char raw[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	if (err && errsz)
		fmt_sanitize(err, errsz, raw, sizeof(raw));
	return r;
}

static double ts_diff(const struct timespec *a, const struct timespec *b)
{
	return (double)(a->tv_sec - b->tv_sec) + (double)(a->tv_nsec - b->tv_nsec) / 1e9;
}

/* ---- paths -------------------------------------------------------------- */

void session_path(const struct session *s, char *buf, size_t size, const char *rel)
{
	snprintf(buf, size, "%s%s", s->prefix, rel);
}

/* ---- comm cache ----------------------------------------------------------- */

const char *session_comm(struct session *s, int pid)
{
	return comm_cache_get(s->comms, pid);
}

/* learn the names of pids new in this drain while they still exist */
static void comm_learn_new(struct session *s)
{
	const int32_t *pids;
	unsigned int n;

	n = ingest_new_pids(s->ing, &pids);
	comm_cache_learn(s->comms, pids, n);
	ingest_clear_new_pids(s->ing);
}

/* ---- reading the buffers ------------------------------------------------------ */

void session_sync_stats(struct session *s)
{
	const struct ingest_stats *is = ingest_stats(s->ing);

	s->stats.events = is->events;
	s->stats.records = is->records;
	s->stats.lost = is->lost;
	s->stats.orphans = is->orphans;
	s->stats.bad_pages = is->bad_pages;
	s->stats.damaged = is->damaged;
	s->stats.fallbacks = is->fallbacks;
	s->stats.unresolved = is->unresolved;
	/*
	 * Losses and fallbacks are found while reading, between ticks: "+n"
	 * counts them from the last tick on, so that a total shown before the
	 * next tick never rises with a "+0" beside it
	 */
	s->stats.lost_delta = s->stats.lost >= s->last_lost ? s->stats.lost - s->last_lost : s->stats.lost;
	s->stats.fallbacks_delta = s->stats.fallbacks >= s->last_fallbacks ?
					   s->stats.fallbacks - s->last_fallbacks : s->stats.fallbacks;
}

/* replay: everything at once, at the first drain */
static int replay_all(struct session *s)
{
	long long n = 0;
	int i;

	if (s->replayed)
		return 0;
	s->replayed = true;
	for (i = 0; i < s->nsources; i++) {
		struct source *src = &s->sources[i];

		if (src->ops->drain)
			n += src->ops->drain(src, 0);
	}
	session_sync_stats(s);
	stack_table_tick(s->table); /* the recording is one interval */
	s->stats.events_delta = s->stats.events;
	s->stats.fallbacks_delta = s->stats.fallbacks;
	s->stats.lost_delta = s->stats.lost;
	return n > 0 ? (int)(n > 0x7fffffff ? 0x7fffffff : n) : 0;
}

int session_drain(struct session *s, unsigned int max_pages)
{
	int i, r, pages = 0;

	if (s->recording)
		return replay_all(s);
	for (i = 0; i < s->nsources; i++) {
		struct source *src = &s->sources[i];

		if (!src->ops->drain)
			continue;
		r = src->ops->drain(src, max_pages);
		if (r > 0)
			pages += r;
	}
	comm_learn_new(s);
	session_sync_stats(s);
	return pages;
}

int session_pollfds(const struct session *s, struct pollfd *fds, int max)
{
	int i, n = 0;

	for (i = 0; i < s->nsources && n < max; i++) {
		const struct source *src = &s->sources[i];

		if (src->ops->pollfds)
			n += src->ops->pollfds(src, fds + n, max - n);
	}
	return n;
}

int session_tick(struct session *s)
{
	struct timespec now;
	struct rusage ru;
	long long v;
	double dt;
	int i;

	if (s->recording) {
		replay_all(s);
		return 0;
	}

	clock_gettime(CLOCK_MONOTONIC, &now);
	dt = ts_diff(&now, &s->last_tick);
	if (getrusage(RUSAGE_SELF, &ru) == 0) {
		struct timeval used;

		timeradd(&ru.ru_utime, &ru.ru_stime, &used);
		if (dt > 0)
			s->stats.self_cpu = 100.0 *
					    ((double)(used.tv_sec - s->last_cpu.tv_sec) +
					     (double)(used.tv_usec - s->last_cpu.tv_usec) / 1e6) / dt;
		s->last_cpu = used;
	}
	s->last_tick = now;
	s->stats.interval_sec = dt;

	s->stats.overrun = s->stats.dropped = 0;
	for (i = 0; i < s->nsources; i++) {
		struct source *src = &s->sources[i];

		if (src->ops->tick)
			src->ops->tick(src);
		if (src->ops->stats)
			src->ops->stats(src, &s->stats);
	}
	{
		char rel[128];

		session_path(s, rel, sizeof(rel), "tracing_on");
		if (tfs_read_long(s->tfs, rel, &v) == 0)
			s->stats.tracing_on = v != 0;
	}
	if (tfs_exists(s->tfs, "options/stackmap") &&
	    tfs_read_long(s->tfs, "options/stackmap", &v) == 0)
		s->stats.stackmap_on = v != 0;

	s->stats.events_delta = s->stats.events - s->last_events;
	s->stats.lost_delta = s->stats.lost - s->last_lost;
	s->stats.overrun_delta = s->stats.overrun - s->last_overrun;
	s->stats.dropped_delta = s->stats.dropped - s->last_dropped;
	s->stats.fallbacks_delta = s->stats.fallbacks - s->last_fallbacks;
	s->last_events = s->stats.events;
	s->last_lost = s->stats.lost;
	s->last_overrun = s->stats.overrun;
	s->last_dropped = s->stats.dropped;
	s->last_fallbacks = s->stats.fallbacks;

	ingest_flush_user(s->ing);
	if (s->usym)
		usym_tick(s->usym);
	stack_table_tick(s->table);
	comm_cache_tick(s->comms);
	if (ksym_refresh(s->ksym) == 1)
		log_info("kernel symbols reloaded (%zu)", ksym_count(s->ksym));
	return 0;
}

/* ---- reset and option --------------------------------------------------------- */

void session_zero_counts(struct session *s)
{
	/* the table's stacks go away: so must every id pointing at them */
	ingest_new_generation(s->ing);
	stack_table_clear(s->table);
	memset(ingest_stats(s->ing), 0, sizeof(struct ingest_stats));
	session_sync_stats(s);
	s->last_events = s->last_fallbacks = s->last_lost = 0;
}

int session_reset(struct session *s)
{
	int i, r;

	/* a recording has no map to reset */
	if (!s->nsources)
		return -EOPNOTSUPP;
	for (i = 0; i < s->nsources; i++)
		if (!s->sources[i].ops->reset)
			return -EOPNOTSUPP;
	for (i = 0; i < s->nsources; i++) {
		r = s->sources[i].ops->reset(&s->sources[i]);
		if (r < 0)
			return r;
	}
	return 0;
}

int session_set_stackmap(struct session *s, bool on)
{
	int r;

	if (!s->tfs || !tfs_exists(s->tfs, "options/stackmap"))
		return -EOPNOTSUPP;
	if (s->instance)
		return -EINVAL; /* the option lives at the top level only */
	r = state_write(s->state, "options/stackmap", on ? "1" : "0");
	if (r == 0)
		s->stats.stackmap_on = on;
	return r;
}

/* ---- accessors ------------------------------------------------------------------- */

struct stack_table *session_table(struct session *s)
{
	return s->table;
}

struct ksym *session_ksym(struct session *s)
{
	return s->ksym;
}

const struct session_stats *session_stats(const struct session *s)
{
	return &s->stats;
}

unsigned int session_nevents(const struct session *s)
{
	return s->fmt ? s->fmt->nnames : 0;
}

const char *session_event(const struct session *s, unsigned int idx)
{
	if (s->map_events)
		return "stack_map";
	return s->fmt && idx < s->fmt->nnames ? s->fmt->names[idx] : "?";
}

const char *session_traced(const struct session *s)
{
	return s->traced ? s->traced : "";
}

/* ---- open / close ------------------------------------------------------------------ */

/* instances named stacktop.<pid> whose pid is gone are leftovers of a killed run */
static void remove_stale_instances(struct session *s)
{
	char **names = NULL;
	int n = 0, i;

	if (session_list_dir(s, "instances", &names, &n) < 0)
		return;
	for (i = 0; i < n; i++) {
		char rel[300], *end;
		long pid;

		if (strncmp(names[i], "stacktop.", 9))
			continue;
		pid = strtol(names[i] + 9, &end, 10);
		if (*end || pid <= 0 || pid == getpid() || state_pid_is_stacktop(s->opts.rundir, (int)pid))
			continue;
		snprintf(rel, sizeof(rel), "instances/%s", names[i]);
		if (tfs_rmdir(s->tfs, rel) == 0)
			log_info("removed stale instance %s", names[i]);
	}
	session_free_list(names, n);
}

/* names come from the command line and the kernel: sanitized once, here */
void session_traced_append(struct session *s, const char *name)
{
	size_t old = s->traced ? strlen(s->traced) : 0, len = strlen(name);
	char *t = realloc(s->traced, old + len + 2);

	if (!t)
		return;
	if (old)
		t[old++] = ',';
	fmt_sanitize(t + old, len + 1, name, len);
	s->traced = t;
}

int session_type_cb(void *ctx, int type)
{
	struct session *s = ctx;

	return evfmt_add_type(s->fmt, s->tfs, type);
}

static unsigned int count_cpus(struct session *s)
{
	char **names = NULL;
	int n = 0;

	if (session_list_dir(s, "per_cpu", &names, &n) < 0)
		return 1;
	session_free_list(names, n);
	return n > 0 ? (unsigned int)n : 1;
}

/* one more source; its open is called right away */
static int add_source(struct session *s, const struct source_ops *ops, char *err, size_t errsz)
{
	struct source *src;

	if (s->nsources >= SESSION_MAX_SOURCES)
		return -E2BIG;
	src = &s->sources[s->nsources++];
	src->ops = ops;
	src->s = s;
	return ops->open(src, err, errsz);
}

/* recordings: read once, at the first drain; no kernel is touched */
static int open_replay(const struct session_opts *opts, struct session **ret, char *err,
		       size_t errsz)
{
	struct session *s = calloc(1, sizeof(*s));
	int r;

	if (!s)
		return -ENOMEM;
	s->opts = *opts;
	s->mode = s->stats.mode = SESSION_REPLAY;
	s->recording = true;
	s->stats.tracing_on = true;
	s->comms = comm_cache_new(NULL, false);
	s->table = stack_table_new();
	s->ksym = ksym_new(opts->kallsyms);
	s->names = stackmap_names_new();
	if (!s->comms || !s->table || !s->ksym || !s->names) {
		r = -ENOMEM;
		goto fail;
	}
	/* a trace.dat brings its own symbols (replay_dat.c) */
	if (opts->kallsyms) {
		r = ksym_load(s->ksym, NULL);
		if (r < 0)
			log_warn("cannot read %s: %s", opts->kallsyms, ksym_strerror(r));
	} else if (!opts->replay) {
		r = ksym_load(s->ksym, NULL);
		if (r < 0)
			log_warn("cannot read /proc/kallsyms (%s): frames stay numeric", ksym_strerror(r));
	}
	/* the sources: the events first, then the map that resolves their ids */
	r = 0;
	if (opts->replay)
		r = add_source(s, &source_replay_dat_ops, err, errsz);
	if (r == 0 && opts->map_file)
		r = add_source(s, &source_replay_map_ops, err, errsz);
	if (r < 0)
		goto fail;
	if (!s->ing || ingest_set_pids(s->ing, opts->pids, opts->npids) < 0) {
		r = -ENOMEM;
		goto fail;
	}
	*ret = s;
	return 0;
fail:
	session_close(s);
	return r;
}

int session_open(const struct session_opts *opts, struct session **ret, char *err, size_t errsz)
{
	struct session *s;
	struct utsname un;
	bool have_map;
	int r, n;

	if (err && errsz)
		err[0] = '\0';
	if ((opts->replay || opts->map_file) && opts->user)
		return session_errf(err, errsz, -EOPNOTSUPP,
				    "--user needs a live kernel: a recording has no processes to name frames from");
	if (opts->replay || opts->map_file)
		return open_replay(opts, ret, err, errsz);
	if (!opts->tracefs && geteuid() != 0)
		return session_errf(err, errsz, -EPERM,
			    "stacktop needs root to trace the kernel (try: sudo stacktop)");
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->opts = *opts;
	s->table = stack_table_new();
	s->ksym = ksym_new(opts->kallsyms);
	s->usym = usym_new(NULL);
	if (!s->table || !s->ksym || !s->usym) {
		r = -ENOMEM;
		goto fail;
	}
	ksym_set_usym(s->ksym, s->usym);

	r = tfs_open(opts->tracefs, &s->tfs);
	if (r < 0) {
		if (r == -EPERM && opts->tracefs)
			session_errf(err, errsz, r,
				     "refusing --tracefs %s: neither tracefs nor a root-owned directory only root can write",
				     opts->tracefs);
		else if (r == -EPERM)
			session_errf(err, errsz, r, "not allowed to mount tracefs (run as root)");
		else if (opts->tracefs)
			session_errf(err, errsz, r, "cannot open tracefs at %s: %s", opts->tracefs,
			     strerror(-r));
		else
			session_errf(err, errsz, r,
			     "no tracefs: mount it with 'mount -t tracefs nodev /sys/kernel/tracing' (kernel without CONFIG_FTRACE?)");
		goto fail;
	}
	s->comms = comm_cache_new(s->tfs, !opts->tracefs);
	if (!s->comms) {
		r = -ENOMEM;
		goto fail;
	}
	fmt_sanitize(s->stats.tracefs, sizeof(s->stats.tracefs), s->tfs->root, strlen(s->tfs->root));
	if (!tfs_exists(s->tfs, "events/header_page")) {
		r = session_errf(err, errsz, -ENODEV, "%s does not look like tracefs (no events/header_page)",
			 s->tfs->root);
		goto fail;
	}
	r = state_recover(s->tfs, opts->rundir, &n);
	if (r < 0)
		log_warn("could not undo everything a killed stacktop left: %s", strerror(-r));
	else if (n)
		log_info("restored tracefs state left by %d killed stacktop run(s)", n);
	remove_stale_instances(s);

	r = evfmt_new(s->tfs, &s->fmt);
	if (r < 0) {
		session_errf(err, errsz, r, "%s",
		     r == -ENODEV ? "this kernel cannot record stack traces (no ftrace/kernel_stack event)"
				  : "cannot use the ring-buffer page header (events/header_page) or the stack event formats");
		goto fail;
	}
	r = ksym_load(s->ksym, NULL);
	if (r == -EACCES)
		log_warn("kernel addresses are hidden (kptr_restrict): frames stay numeric");
	else if (r < 0)
		log_warn("cannot read %s: %s", opts->kallsyms ? opts->kallsyms : "/proc/kallsyms",
			 ksym_strerror(r));

	have_map = tfs_exists(s->tfs, "options/stackmap") &&
		   (tfs_exists(s->tfs, "stack_map") || tfs_exists(s->tfs, "stack_map_bin"));
	s->mode = opts->mode;
	if (s->mode == SESSION_AUTO)
		s->mode = have_map && !opts->user ? SESSION_STACKMAP : SESSION_STACKS;
	if (opts->user && s->mode != SESSION_STACKS) {
		r = session_errf(err, errsz, -EOPNOTSUPP,
			 "--user needs --mode stacks (user stacks are paired with the private instance's kernel_stack records)");
		goto fail;
	}
	s->user_on = opts->user != SESSION_USER_OFF;
	if ((s->mode == SESSION_STACKMAP || s->mode == SESSION_PASSIVE) && !have_map) {
		r = session_errf(err, errsz, -EOPNOTSUPP,
			 "--mode %s needs a kernel with the ftrace stackmap series (no options/stackmap or stack_map in %s)",
			 session_mode_name(s->mode), s->tfs->root);
		goto fail;
	}
	s->stats.mode = s->mode;
	s->ing = ingest_new(s->fmt, s->table, count_cpus(s));
	if (!s->ing || ingest_set_pids(s->ing, opts->pids, opts->npids) < 0) {
		r = -ENOMEM;
		goto fail;
	}
	ingest_set_stackmap(s->ing, s->mode == SESSION_STACKMAP);
	ingest_set_defer(s->ing, s->mode == SESSION_STACKMAP);
	ingest_set_type_cb(s->ing, session_type_cb, s);
	if (s->user_on)
		ingest_set_user(s->ing, s->usym);
	if (!opts->show_self && !opts->tracefs)
		ingest_set_self(s->ing, (int)getpid());
	if (uname(&un) == 0)
		fmt_sanitize(s->stats.kernel, sizeof(s->stats.kernel), un.release,
			     sizeof(un.release));

	r = state_open(s->tfs, opts->rundir, &s->state);
	if (r < 0) {
		session_errf(err, errsz, r, "cannot keep a restore journal in %s: %s",
		     opts->rundir ? opts->rundir : "/run/stacktop", strerror(-r));
		goto fail;
	}
	if (s->mode == SESSION_STACKMAP) {
		int owner;

		r = state_lock_top(s->state, &owner);
		if (r == -EBUSY && opts->mode == SESSION_AUTO) {
			/* the top level is taken: a private instance still works */
			log_warn("another stacktop (pid %d) owns the top-level tracing; using the stacks mode",
				 owner);
			s->mode = s->stats.mode = SESSION_STACKS;
			ingest_set_stackmap(s->ing, false);
			ingest_set_defer(s->ing, false);
		} else if (r < 0) {
			session_errf(err, errsz, r,
			     r == -EBUSY ? "another stacktop (pid %d) owns the top-level tracing: use --mode stacks or --mode passive"
					 : "cannot claim the top-level tracing (pid %d): %s",
			     owner, strerror(-r));
			goto fail;
		}
	}

	/* the sources: one per mode today */
	switch (s->mode) {
	case SESSION_STACKS:
		r = add_source(s, &source_instance_ops, err, errsz);
		break;
	case SESSION_STACKMAP:
		r = add_source(s, &source_stackmap_ops, err, errsz);
		break;
	case SESSION_PASSIVE:
		r = add_source(s, &source_passive_ops, err, errsz);
		break;
	default:
		r = -EINVAL;
	}
	if (r < 0) {
		if (err && !err[0])
			session_errf(err, errsz, r, "cannot set up tracing: %s", strerror(-r));
		goto fail;
	}
	clock_gettime(CLOCK_MONOTONIC, &s->last_tick);
	{
		struct rusage ru;

		/* the first interval's CPU is counted from here, not from exec */
		if (getrusage(RUSAGE_SELF, &ru) == 0)
			timeradd(&ru.ru_utime, &ru.ru_stime, &s->last_cpu);
	}
	if (opts->reset_first) {
		r = session_reset(s);
		if (r < 0)
			log_warn("reset failed: %s", strerror(-r));
	}
	session_tick(s);
	*ret = s;
	return 0;
fail:
	session_close(s);
	return r;
}

void session_close(struct session *s)
{
	int i, r;

	if (!s)
		return;
	/* first: an instance cannot be removed while its buffers are open */
	for (i = s->nsources - 1; i >= 0; i--)
		if (s->sources[i].ops->close)
			s->sources[i].ops->close(&s->sources[i]);
	if (s->state) {
		r = state_restore(s->state);
		if (r < 0)
			log_err("could not restore all tracefs state (%s); the next stacktop run will retry",
				strerror(-r));
		state_free(s->state);
	}
	tfs_close(s->tfs);
	evfmt_free(s->fmt);
	stack_table_free(s->table);
	ksym_free(s->ksym);
	stackmap_names_free(s->names);
	ingest_free(s->ing);
	comm_cache_free(s->comms);
	usym_free(s->usym);
	free(s->traced);
	free(s);
}

int session_set_user(struct session *s, bool on)
{
	char rel[160];
	int r;

	if (on == s->user_on)
		return 0;
	if (s->recording || !s->tfs || s->mode != SESSION_STACKS || !s->instance)
		return -EOPNOTSUPP;
	session_path(s, rel, sizeof(rel), "options/userstacktrace");
	if (!tfs_exists(s->tfs, rel))
		return -EOPNOTSUPP;
	r = tfs_write(s->tfs, rel, on ? "1" : "0");
	if (r < 0)
		return r;
	s->user_on = on;
	ingest_set_user(s->ing, on ? s->usym : NULL);
	return 0;
}

bool session_user(const struct session *s)
{
	return s->user_on;
}
