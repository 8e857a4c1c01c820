// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * run.c - a session's life: made (session_new(), its context wired to
 * the sources' host callbacks), its sources added and opened, drained,
 * ticked, reset, closed. What every source shares lives in struct
 * source_ctx (source.h); the session reads ingest's counters into the
 * header's, keeps the interval's baselines, and watches its memory.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "core/log.h"
#include "core/stack_table.h"
#include "core/stack_mem.h"
#include "ingest/ingest.h"
#include "kernel/comm.h"
#include "kernel/evfmt.h"
#include "kernel/proctree.h"
#include "kernel/signals.h"
#include "kernel/stackmap.h"
#include "kernel/state.h"
#include "kernel/tfs.h"
#include "kernel/tgid.h"
#include "kernel/trace.h"
#include "session/priv.h"
#include "session/session.h"
#include "sym/ksym.h"
#include "sym/ufile.h"
#include "sym/usym.h"

static double ts_diff(const struct timespec *a, const struct timespec *b)
{
	return (double)(a->tv_sec - b->tv_sec) + (double)(a->tv_nsec - b->tv_nsec) / 1e9;
}

static bool pid_exited(void *ctx, int pid, char *comm)
{
	struct session *s = ctx;

	if (!s->proc_pids || kill(pid, 0) == 0 || errno != ESRCH)
		return false;
	/* the name learned while it ran (sanitized by the comm cache) */
	snprintf(comm, 16, "%s", comm_cache_get(s->c.comms, pid));
	return true;
}

/* what the dwarf user-stack source holds: its unwind tables and vdso copies */
static size_t unwind_memory(const struct session *s)
{
	size_t b = 0;
#if STACKTOP_USER_UNWIND
	int i;

	for (i = 0; i < s->nsources; i++)
		if (s->sources[i].ops == &source_perf_user_ops)
			b += perf_user_memory(&s->sources[i]);
		else if (s->sources[i].ops == &source_oncpu_ops)
			b += oncpu_memory(&s->sources[i]); /* --oncpu -u dwarf */
#else
	(void)s;
#endif
	return b;
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
	if (s->c.usym && s->c.mem_limit)
		stack_table_set_limit(s->c.table,
				      s->c.mem_limit - usym_memory(s->c.usym) - unwind_memory(s));

	stack_table_mem(s->c.table, &m);
	used = m.bytes - m.free_bytes;
	if (!m.limit || used < m.limit / 4 * 3 || used < s->fold_floor)
		return;
	n = stack_table_fold(s->c.table, pid_exited, s);
	if (n < 0)
		log_warn("cannot fold the records of exited processes: %s", strerror((int)-n));
	else if (n > 0)
		log_debug("memory: %ld records of exited processes folded into their command", n);
	stack_table_mem(s->c.table, &m);
	s->fold_floor = m.bytes - m.free_bytes + m.limit / 16;
}

static void memory_stats(struct session *s)
{
	struct ufile_reader_stats rs;
	struct stack_mem m;
	long pages = 0, rss = 0;
	FILE *f;

	stack_table_mem(s->c.table, &m);
	s->c.stats.mem_bytes = m.bytes;
	s->c.stats.mem_limit = s->c.mem_limit ? s->c.mem_limit : m.limit;
	s->c.stats.mem_usym = s->c.usym ? usym_memory(s->c.usym) : 0;
	s->c.stats.mem_usym_refused = s->c.usym ? usym_refused(s->c.usym) : 0;
	s->c.stats.mem_unwind = unwind_memory(s);
	s->c.stats.usym_files_refused = s->c.usym ? usym_files_refused(s->c.usym) : 0;
	s->c.stats.usym_files_big = s->c.usym ? usym_files_big(s->c.usym) : 0;
	ufile_reader_stats(&rs);
	s->c.stats.user_files_stalled = rs.stalls;
	s->c.stats.mem_folded = m.folded;
	s->c.stats.mem_over_stacks = m.over_stacks;
	s->c.stats.mem_over_hits = m.over_hits;
	s->c.stats.mem_trend = m.trend_bytes;
	s->c.stats.mem_trend_refused = m.trend_refused;
	f = fopen("/proc/self/statm", "re");
	if (f) {
		if (fscanf(f, "%ld %ld", &pages, &rss) == 2 && rss > 0)
			s->c.stats.mem_rss = (uint64_t)rss * (uint64_t)sysconf(_SC_PAGESIZE);
		fclose(f);
	}
}

/* learn the names of pids new in this drain while they still exist */
static void comm_learn_new(struct session *s)
{
	const char *const *comms;
	const int32_t *pids;
	unsigned int n;

	n = ingest_new_pids(s->c.ing, &pids, &comms);
	comm_cache_learn(s->c.comms, pids, comms, n);
	ingest_clear_new_pids(s->c.ing);
}

/* where each counter is (core/counters.h): the session's, its interval's, ingest's */
#define HC_AT_ROW(field, type, delta, from, ...)                                                   \
	{ HC_OFF(field), HC_DOFF_##delta(field), HC_IOFF_##from, HCD_##delta },
static const struct {
	size_t off, doff, ioff;
	unsigned char delta;
} hc_at[HC_N] = { SESSION_COUNTERS(HC_AT_ROW) };
#undef HC_AT_ROW

/* what is copied from ingest, or has an interval count, is read as 64 bits */
#define HC_AT_CHECK(field, type, delta, from, ...)                                                 \
	_Static_assert((HCD_##delta == HCD_ND && !HCI_##from) ||                                   \
			       sizeof(((struct session_stats *)0)->field) == sizeof(uint64_t),     \
		       #field ": a row with a delta or from ingest is a 64-bit count");
SESSION_COUNTERS(HC_AT_CHECK)
#undef HC_AT_CHECK

/* the interval's count of counter @i: @v */
static inline void hc_set_delta(struct session *s, int i, uint64_t v)
{
	memcpy((char *)&s->c.stats + hc_at[i].doff, &v, sizeof(v));
}

void session_sync_stats(struct session *s)
{
	const struct ingest_stats *is = ingest_stats(s->c.ing);
	int i;

	for (i = 0; i < HC_N; i++) {
		uint64_t v;

		if (hc_at[i].ioff == SIZE_MAX)
			continue;
		v = session_counter_get(is, hc_at[i].ioff);
		memcpy((char *)&s->c.stats + hc_at[i].off, &v, sizeof(v));
		/*
		 * Losses and fallbacks (HCD_DL) are found while reading, between
		 * ticks: "+n" counts them from the last tick on, so that a total
		 * shown before the next tick never rises with a "+0" beside it
		 */
		if (hc_at[i].delta == HCD_DL)
			hc_set_delta(s, i, v >= s->last[i] ? v - s->last[i] : v);
	}
	session_sync_comm(s);
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
	stack_table_tick(s->c.table); /* the recording is one interval */
	memory_stats(s);
	/*
	 * snapshots: their own interval counts, as they were seen (0 for a
	 * counter they do not carry); a recording: all of it
	 */
	for (i = 0; i < HC_N; i++)
		if (hc_at[i].delta != HCD_ND)
			hc_set_delta(s, i,
				     s->c.snapdb ? s->c.snap_delta[i]
						 : session_counter_get(&s->c.stats, hc_at[i].off));
	return n > 0 ? (int)(n > 0x7fffffff ? 0x7fffffff : n) : 0;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * How long before the end the sources let go of what is slow to undo: the
 * instance's pid list takes 60-400 ms of grace periods on a busy machine
 */
#define SESSION_LET_GO_MS 500

/* near the end: the sources let go (once) */
static void session_let_go(struct session *s)
{
	int i;

	if (!s->end_at || s->ending_told || mono_ns() + SESSION_LET_GO_MS * 1000000ULL < s->end_at)
		return;
	s->ending_told = true;
	for (i = 0; i < s->nsources; i++)
		if (s->sources[i].ops->ending)
			s->sources[i].ops->ending(&s->sources[i]);
}

void session_ending(struct session *s, double secs)
{
	s->end_at = mono_ns() + (uint64_t)(secs > 0 ? secs * 1e9 : 0);
	/* an end this near (a stop signal: 0) lets go now, not at the next drain */
	session_let_go(s);
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

	s->c.stats.rb_drains++;
	session_let_go(s);
	/* -- CMD: the forks reported so far place the records about to be read */
	if (s->tree)
		proctree_update(s->tree);
	for (i = 0; i < s->nsources; i++) {
		struct source *src = &s->sources[i];

		if (!src->ops->drain)
			continue;
		r = src->ops->drain(src, &b);
		if (r > 0)
			pages += r;
	}
	ingest_offcpu_settle(s->c.ing); /* every CPU read: pair the switches across them */
	comm_learn_new(s);
	memory_check(s);
	session_sync_stats(s);
	/* the stop flag is no reason to say the reader falls behind */
	if (b.more && !sig_stop)
		s->c.stats.drains_cut++;
	s->c.stats.behind = b.more;
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

/* the sources' resets (struct source_host): a drain of its own budget, whatever the caller's */
static int host_drain(void *host, bool *more)
{
	return drain_bounded(host, SESSION_RESET_PAGES, SESSION_RESET_MS, more);
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
			s->c.stats.self_cpu = 100.0 *
					      ((double)(used.tv_sec - s->last_cpu.tv_sec) +
					       (double)(used.tv_usec - s->last_cpu.tv_usec) / 1e6) /
					      dt;
		s->c.stats.self_cpu_milli = (uint32_t)(s->c.stats.self_cpu * 1000.0 + 0.5);
		s->last_cpu = used;
	}
	s->last_tick = now;
	s->c.stats.interval_sec = dt;

	for (i = 0; i < s->nsources; i++) {
		struct source *src = &s->sources[i];

		if (src->ops->tick)
			src->ops->tick(src);
		if (src->ops->stats)
			src->ops->stats(src, &s->c.stats);
	}
	session_sync_stats(s); /* a tick may count too (the dwarf join's last records) */
	{
		char rel[128];

		trace_path(&s->c.tr, rel, sizeof(rel), "tracing_on");
		if (tfs_read_long(s->c.tr.tfs, rel, &v) == 0)
			s->c.stats.tracing_on = v != 0;
	}
	if (tfs_exists(s->c.tr.tfs, "options/stackmap") &&
	    tfs_read_long(s->c.tr.tfs, "options/stackmap", &v) == 0)
		s->c.stats.stackmap_on = v != 0;

	for (i = 0; i < HC_N; i++) {
		uint64_t cur;

		/* a flag or a plain number has no interval: it is not 64 bits either */
		if (hc_at[i].delta == HCD_ND)
			continue;
		cur = session_counter_get(&s->c.stats, hc_at[i].off);
		hc_set_delta(s, i, cur - s->last[i]);
		s->last[i] = cur;
	}

	s->c.stats.user = s->c.user_on ? s->c.user_mode : SESSION_USER_OFF;
	s->c.stats.targets_gone = session_targets_gone(s);
	memcpy(s->c.stats.user_note, s->user_note, sizeof(s->c.stats.user_note));
	ingest_flush_user(s->c.ing);
	if (s->c.usym)
		usym_tick(s->c.usym);
	stack_table_tick(s->c.table);
	memory_stats(s);
	comm_cache_tick(s->c.comms);
	if (s->tgids)
		tgid_cache_tick(s->tgids);
	if (ksym_refresh(s->c.tr.ksym) == 1)
		log_info("kernel symbols reloaded (%zu)", ksym_count(s->c.tr.ksym));
	s->c.stats.ksym_reloads = ksym_reloads(s->c.tr.ksym);
	session_regroup(s, true);
	return 0;
}

void session_zero_counts(struct session *s)
{
	s->fold_floor = 0;
	/* the table's stacks go away: so must every id pointing at them */
	ingest_new_generation(s->c.ing);
	stack_table_clear(s->c.table);
	session_regroup(s, false);
	memset(ingest_stats(s->c.ing), 0, sizeof(struct ingest_stats));
	s->c.stats.comm_unnamed = 0;
	session_sync_stats(s);
	memset(s->last, 0, sizeof(s->last)); /* the sources zero theirs with the counts */
}

static void host_zero_counts(void *host)
{
	session_zero_counts(host);
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

/* one more source; its open is called right away */
int session_add_source(struct session *s, const struct source_ops *ops, const char *arg, char *err,
		       size_t errsz)
{
	struct source *src;

	if (s->nsources >= SESSION_MAX_SOURCES)
		return -E2BIG;
	src = &s->sources[s->nsources++];
	src->ops = ops;
	src->ctx = &s->c;
	src->arg = arg;
	return ops->open(src, err, errsz);
}

struct session *session_new(const struct session_opts *opts)
{
	struct session *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->opts = *opts;
	s->c.tr.opts = &s->opts;
	s->c.host.drain = host_drain;
	s->c.host.zero_counts = host_zero_counts;
	s->c.host.host = s;
	return s;
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
	if (s->c.tr.state) {
		r = state_restore(s->c.tr.state);
		if (r < 0)
			log_err("could not restore all tracefs state (%s); the next stacktop run will retry",
				strerror(-r));
		state_free(s->c.tr.state);
	}
	tfs_close(s->c.tr.tfs);
	evfmt_free(s->c.tr.fmt);
	stack_table_free(s->view);
	stack_table_free(s->c.table);
	ksym_free(s->c.tr.ksym);
	stackmap_names_free(s->c.map_names);
	ufile_reader_on_helper(NULL, NULL);
	ingest_free(s->c.ing);
	comm_cache_free(s->c.comms);
	usym_free(s->c.usym);
	tgid_cache_free(s->tgids);
	proctree_free(s->tree);
	replay_json_free(&s->c);
	for (i = 0; i < (int)s->c.nnames; i++)
		free(s->c.names[i]);
	free(s->c.names);
	free(s->found_map);
	if (s->c.have_map_fd)
		close(s->c.map_fd); /* (found, never read: an error before) */
	if (s->c.have_dat_fd)
		close(s->c.dat_fd);
	trace_done(&s->c.tr);
	free(s);
}
