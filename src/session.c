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

#include "brief.h"
#include "comm.h"
#include "evfmt.h"
#include "ingest.h"
#include "format.h"
#include "ksym.h"
#include "log.h"
#include "session.h"
#include "signals.h"
#include "source.h"
#include "stack_table.h"
#include "snapshot.h"
#include "stackmap.h"
#include "state.h"
#include "tfs.h"
#include "usym.h"
#include "tgid.h"
#include "session_priv.h"


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
	if (stack_pid_folded(pid)) {
		const char *c = stack_table_folded_comm(s->table, pid);

		return c ? c : "?";
	}
	if (pid == STACK_PID_OVER)
		return "[memory limit]";
	return comm_cache_get(s->comms, pid);
}

/* ---- memory ---------------------------------------------------------------- */

static bool pid_exited(void *ctx, int pid, char *comm)
{
	struct session *s = ctx;

	if (!s->proc_pids || kill(pid, 0) == 0 || errno != ESRCH)
		return false;
	/* the name learned while it ran (sanitized by the comm cache) */
	snprintf(comm, 16, "%s", comm_cache_get(s->comms, pid));
	return true;
}

/*
 * Near the limit (3/4), fold the records of exited pids into their comm.
 * The next fold waits until the table grew by 1/16 of the limit again, so a
 * table full of live pids is not walked after every drain.
 */
static void memory_check(struct session *s)
{
	struct stack_mem m;
	uint64_t used;
	long n;

	/*
	 * the table gets what the user symbolizer (at most a quarter) and the
	 * dwarf unwinder's tables (at most an eighth) leave
	 */
	if (s->usym && s->mem_limit)
		stack_table_set_limit(s->table, s->mem_limit - usym_memory(s->usym) -
							session_unwind_memory(s));

	stack_table_mem(s->table, &m);
	used = m.bytes - m.free_bytes;
	if (!m.limit || used < m.limit / 4 * 3 || used < s->fold_floor)
		return;
	n = stack_table_fold(s->table, pid_exited, s);
	if (n < 0)
		log_warn("cannot fold the records of exited processes: %s", strerror((int)-n));
	else if (n > 0)
		log_debug("memory: %ld records of exited processes folded into their command", n);
	stack_table_mem(s->table, &m);
	s->fold_floor = m.bytes - m.free_bytes + m.limit / 16;
}

static void memory_stats(struct session *s)
{
	struct stack_mem m;
	long pages = 0, rss = 0;
	FILE *f;

	stack_table_mem(s->table, &m);
	s->stats.mem_bytes = m.bytes;
	s->stats.mem_limit = s->mem_limit ? s->mem_limit : m.limit;
	s->stats.mem_usym = s->usym ? usym_memory(s->usym) : 0;
	s->stats.mem_usym_refused = s->usym ? usym_refused(s->usym) : 0;
	s->stats.mem_unwind = session_unwind_memory(s);
	s->stats.usym_files_refused = s->usym ? usym_files_refused(s->usym) : 0;
	s->stats.usym_files_big = s->usym ? usym_files_big(s->usym) : 0;
	s->stats.mem_folded = m.folded;
	s->stats.mem_over_stacks = m.over_stacks;
	s->stats.mem_over_hits = m.over_hits;
	f = fopen("/proc/self/statm", "re");
	if (f) {
		if (fscanf(f, "%ld %ld", &pages, &rss) == 2 && rss > 0)
			s->stats.mem_rss = (uint64_t)rss * (uint64_t)sysconf(_SC_PAGESIZE);
		fclose(f);
	}
}

/* learn the names of pids new in this drain while they still exist */
static void comm_learn_new(struct session *s)
{
	const char *const *comms;
	const int32_t *pids;
	unsigned int n;

	n = ingest_new_pids(s->ing, &pids, &comms);
	comm_cache_learn(s->comms, pids, comms, n);
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
	s->stats.bad_ids = is->bad_ids;
	s->stats.rb_bytes = is->bytes;
	s->stats.sized_records = is->sized_records;
	s->stats.sized_bytes = is->sized_bytes;
	s->stats.alt_bytes = is->alt_bytes;
	s->stats.offcpu_woken = is->offcpu_woken;
	s->stats.offcpu_unpaired = is->offcpu_unpaired;
	s->stats.offcpu_dropped = is->offcpu_dropped;
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
	/* a recording is finite; its sources read it whole */
	struct drain_budget b = { .pages = UINT_MAX, .deadline = UINT64_MAX };
	long long n = 0;
	int i;

	if (s->replayed)
		return 0;
	s->replayed = true;
	for (i = 0; i < s->nsources; i++) {
		struct source *src = &s->sources[i];

		if (src->ops->drain)
			n += src->ops->drain(src, &b);
	}
	session_sync_stats(s);
	stack_table_tick(s->table); /* the recording is one interval */
	memory_stats(s);
	if (s->snapdb) {
		/* snapshots: their own interval counts, as they were seen */
		s->stats.events_delta = s->snap_events_delta;
		s->stats.fallbacks_delta = 0;
		s->stats.lost_delta = 0;
		return n > 0 ? (int)(n > 0x7fffffff ? 0x7fffffff : n) : 0;
	}
	s->stats.events_delta = s->stats.events;
	s->stats.fallbacks_delta = s->stats.fallbacks;
	s->stats.lost_delta = s->stats.lost;
	return n > 0 ? (int)(n > 0x7fffffff ? 0x7fffffff : n) : 0;
}

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

static int drain_bounded(struct session *s, unsigned int max_pages, unsigned int max_ms,
			 bool *ret_more)
{
	struct drain_budget b = {
		.pages = max_pages ? max_pages : SESSION_DRAIN_PAGES,
		.deadline = mono_ns() + (uint64_t)(max_ms ? max_ms : SESSION_DRAIN_MS) * 1000000ULL,
		.stop = &sig_stop,
		.started = mono_ns(),
	};
	int i, r, pages = 0;

	for (i = 0; i < s->nsources; i++) {
		struct source *src = &s->sources[i];

		if (!src->ops->drain)
			continue;
		r = src->ops->drain(src, &b);
		if (r > 0)
			pages += r;
	}
	ingest_offcpu_settle(s->ing); /* every CPU read: pair the switches across them */
	comm_learn_new(s);
	memory_check(s);
	session_sync_stats(s);
	/* the stop flag is no reason to say the reader falls behind */
	if (b.more && !sig_stop)
		s->stats.drains_cut++;
	s->stats.behind = b.more;
	if (ret_more)
		*ret_more = b.more;
	return pages;
}

int session_drain_for(struct session *s, unsigned int max_pages, unsigned int max_ms, bool *more)
{
	if (more)
		*more = false;
	if (s->recording)
		return replay_all(s);
	return drain_bounded(s, max_pages, max_ms, more);
}

int session_drain(struct session *s, unsigned int max_pages)
{
	return session_drain_for(s, max_pages, 0, NULL);
}

/* the sources' resets: a drain of its own budget, whatever the caller's */
int session_drain_reset(struct session *s, bool *more)
{
	return drain_bounded(s, SESSION_RESET_PAGES, SESSION_RESET_MS, more);
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
		session_regroup(s, true);
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
	session_sync_stats(s); /* a tick may count too (the dwarf join's last records) */
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

	s->stats.user = s->user_on ? s->user_mode : SESSION_USER_OFF;
	s->stats.targets_gone = session_targets_gone(s);
	memcpy(s->stats.user_note, s->user_note, sizeof(s->stats.user_note));
	ingest_flush_user(s->ing);
	if (s->usym)
		usym_tick(s->usym);
	stack_table_tick(s->table);
	memory_stats(s);
	comm_cache_tick(s->comms);
	if (s->tgids)
		tgid_cache_tick(s->tgids);
	if (ksym_refresh(s->ksym) == 1)
		log_info("kernel symbols reloaded (%zu)", ksym_count(s->ksym));
	session_regroup(s, true);
	return 0;
}

/* ---- reset and option --------------------------------------------------------- */

void session_zero_counts(struct session *s)
{
	s->fold_floor = 0;
	/* the table's stacks go away: so must every id pointing at them */
	ingest_new_generation(s->ing);
	stack_table_clear(s->table);
	session_regroup(s, false);
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
	return s->fmt ? s->fmt->nnames : s->nnames;
}

const char *session_event(const struct session *s, unsigned int idx)
{
	if (s->map_events)
		return "stack_map";
	if (!s->fmt)
		return idx < s->nnames ? s->names[idx] : "?";
	return idx < s->fmt->nnames ? s->fmt->names[idx] : "?";
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

unsigned int session_count_cpus(struct session *s)
{
	char **names = NULL;
	int n = 0;

	if (session_list_dir(s, "per_cpu", &names, &n) < 0)
		return 1;
	session_free_list(names, n);
	return n > 0 ? (unsigned int)n : 1;
}

/* one more source; its open is called right away */
int session_add_source(struct session *s, const struct source_ops *ops, char *err, size_t errsz)
{
	struct source *src;

	if (s->nsources >= SESSION_MAX_SOURCES)
		return -E2BIG;
	src = &s->sources[s->nsources++];
	src->ops = ops;
	src->s = s;
	return ops->open(src, err, errsz);
}

int session_open(const struct session_opts *opts, struct session **ret, char *err, size_t errsz)
{
	struct session *s;
	struct utsname un;
	bool have_map;
	int r, n;

	if (err && errsz)
		err[0] = '\0';
	if ((opts->replay || opts->map_file || opts->nfiles) && opts->user)
		return session_errf(err, errsz, -EOPNOTSUPP,
				    "--user needs a live kernel: a recording has no processes to name frames from");
	if (opts->replay || opts->map_file || opts->nfiles)
		return session_open_replay(opts, ret, err, errsz);
	if (!opts->tracefs && geteuid() != 0)
		return session_errf(err, errsz, -EPERM,
			    "stacktop needs root to trace the kernel (try: sudo stacktop)");
	/* pids of this system: checked before tracefs is touched */
	if (!opts->tracefs) {
		r = session_check_pids(opts, err, errsz);
		if (r < 0)
			return r;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->opts = *opts;
	s->table = stack_table_new();
	s->ksym = ksym_new(opts->kallsyms);
	/* a --tracefs may be a simulator: its tgids are not this machine's */
	s->usym = usym_new(opts->tracefs ? "" : NULL);
	if (!s->table || !s->ksym || !s->usym) {
		r = -ENOMEM;
		goto fail;
	}
	ksym_set_usym(s->ksym, s->usym);
	/* before anything is interned: the weights live next to the counts */
	if (opts->weight || opts->offcpu)
		stack_table_set_weighted(s->table, true);
	s->mem_limit = opts->max_memory ? opts->max_memory : SESSION_MAX_MEMORY;
	stack_table_set_limit(s->table, s->mem_limit);
	/* user frames: a quarter of the limit at most, the table has the rest */
	usym_set_limit(s->usym, s->mem_limit / 4);
	/* a --tracefs may be a simulator: its pids are not this machine's */
	s->proc_pids = !opts->tracefs;

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
		s->mode = have_map && opts->user != SESSION_USER_DWARF ? SESSION_STACKMAP
								       : SESSION_STACKS;
	if (opts->user && s->mode == SESSION_PASSIVE) {
		r = session_errf(err, errsz, -EOPNOTSUPP,
			 "--user needs --mode stacks or stackmap (passive mode changes no option)");
		goto fail;
	}
	if (opts->user == SESSION_USER_DWARF && s->mode != SESSION_STACKS) {
		r = session_errf(err, errsz, -EOPNOTSUPP, "--user=dwarf needs --mode stacks");
		goto fail;
	}
	s->user_on = opts->user != SESSION_USER_OFF;
	s->user_mode = opts->user;
	if (opts->user == SESSION_USER_DWARF && !STACKTOP_USER_UNWIND) {
		r = session_errf(err, errsz, -EOPNOTSUPP,
			 "--user=dwarf: this stacktop was built without libunwind (see the build summary; --user=fp works)");
		goto fail;
	}
	/* perf samples this kernel: a --tracefs (a simulator, say) is not it */
	if (opts->user == SESSION_USER_DWARF && opts->tracefs) {
		r = session_errf(err, errsz, -EOPNOTSUPP,
			 "--user=dwarf samples this machine's kernel with perf: not with --tracefs (--user=fp works)");
		goto fail;
	}
	if (opts->user == SESSION_USER_AUTO) {
		s->user_mode = STACKTOP_USER_UNWIND && !opts->tracefs && s->mode == SESSION_STACKS
				       ? SESSION_USER_DWARF
				       : SESSION_USER_FP;
		if (s->mode != SESSION_STACKS)
			snprintf(s->user_note, sizeof(s->user_note),
				 "fp: the stackmap mode's records join no perf sample (--user=dwarf takes the stacks mode)");
		else if (!STACKTOP_USER_UNWIND)
			snprintf(s->user_note, sizeof(s->user_note),
				 "fp: this build has no libunwind (no dwarf mode)");
		else if (opts->tracefs)
			snprintf(s->user_note, sizeof(s->user_note),
				 "fp: dwarf samples this machine's kernel, not a --tracefs");
	}
	if ((s->mode == SESSION_STACKMAP || s->mode == SESSION_PASSIVE) && !have_map) {
		r = session_errf(err, errsz, -EOPNOTSUPP,
			 "--mode %s needs a kernel with the ftrace stackmap series (no options/stackmap or stack_map in %s)",
			 session_mode_name(s->mode), s->tfs->root);
		goto fail;
	}
	s->stats.mode = s->mode;
	s->ing = ingest_new(s->fmt, s->table, session_count_cpus(s));
	if (!s->ing || session_set_filters(s, !opts->tracefs) < 0) {
		r = -ENOMEM;
		goto fail;
	}
	ingest_set_stackmap(s->ing, s->mode == SESSION_STACKMAP);
	ingest_set_defer(s->ing, s->mode == SESSION_STACKMAP);
	ingest_set_type_cb(s->ing, session_type_cb, s);
	if (s->user_mode == SESSION_USER_FP)
		ingest_set_user(s->ing, s->usym);
	ingest_set_func_cb(s->ing, session_func_cb, s);
	s->trigger_mode = opts->ntriggers > 0;
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

	if (s->mode == SESSION_PASSIVE && (opts->nkprobes || opts->nfunctions || opts->ntriggers)) {
		r = session_errf(err, errsz, -EINVAL,
				 "--mode passive changes nothing in tracefs: no --function, --kprobe or --trigger");
		goto fail;
	}
	/* before the source: its instance must go first on restore (probes.c) */
	r = session_setup_kprobes(s, err, errsz);
	if (r < 0)
		goto fail;

	/* the sources: one per mode today */
	switch (s->mode) {
	case SESSION_STACKS:
		r = session_add_source(s, &source_instance_ops, err, errsz);
		break;
	case SESSION_STACKMAP:
		r = session_add_source(s, &source_stackmap_ops, err, errsz);
		break;
	case SESSION_PASSIVE:
		r = session_add_source(s, &source_passive_ops, err, errsz);
		break;
	default:
		r = -EINVAL;
	}
	if (r < 0) {
		if (err && !err[0])
			session_errf(err, errsz, r, "cannot set up tracing: %s", strerror(-r));
		goto fail;
	}
	r = session_setup_user_dwarf(s, err, errsz);
	if (r < 0)
		goto fail;
	r = session_setup_weight(s, err, errsz);
	if (r < 0)
		goto fail;
	if ((opts->group_depth || opts->group_func) &&
	    session_set_group(s, opts->group_depth, opts->group_func) < 0) {
		r = -ENOMEM;
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
	stack_table_free(s->view);
	stack_table_free(s->table);
	ksym_free(s->ksym);
	stackmap_names_free(s->map_names);
	ingest_free(s->ing);
	comm_cache_free(s->comms);
	usym_free(s->usym);
	tgid_cache_free(s->tgids);
	replay_json_free(s);
	for (i = 0; i < (int)s->nnames; i++)
		free(s->names[i]);
	free(s->names);
	free(s->found_map);
	free(s->traced);
	for (i = 0; i < s->nprobe_events; i++)
		free(s->probe_events[i]);
	free(s->probe_events);
	free(s);
}