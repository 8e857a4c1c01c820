// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * metrics.c - see metrics.h. The names, types and labels are listed in
 * doc/serve.md; the header's counters come from output/counters.h's
 * table, so that a counter added there is in /metrics too.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "core/rank.h"
#include "core/stack_table.h"
#include "output/counters.h"
#include "output/metrics.h"
#include "output/rows.h"
#include "session/session.h"
#include "source/stats.h"
#include "sym/brief.h"

#define LEAF_MAX    160 /* a leaf function's label, cut */
#define PATH_MAX_   320 /* the first frames' label, cut */
#define PATH_FRAMES 5
#define EVENT_MAX   128 /* an event's name */

struct metrics_row {
	uint64_t key;
	uint64_t hits;
	uint64_t weight;
	char leaf[LEAF_MAX];
	char path[PATH_MAX_];
};

struct metrics_event {
	char name[EVENT_MAX];
	uint64_t hits;
};

struct metrics_snap {
	uint64_t refresh;
	double time;  /* CLOCK_REALTIME when taken */
	double start; /* the process's start, CLOCK_REALTIME */
	struct session_stats st;
	char mode[16];
	char weight_name[64]; /* "" when unweighted */
	unsigned int top;     /* the bound asked for */
	size_t stacks;	      /* distinct stacks with hits */
	unsigned int nevents;
	struct metrics_event *events;
	size_t nrows;
	struct metrics_row rows[];
};

struct ev_sum {
	struct metrics_event *ev;
	unsigned int n;
};

static int sum_events(struct stack *sk, void *ctx)
{
	struct ev_sum *e = ctx;
	const struct stack_attr *a;

	for (a = sk->attrs; a; a = a->next)
		if (a->event < e->n)
			e->ev[a->event].hits += a->total;
	return 0;
}

static double now_real(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * the process's start, seconds since the epoch: its start time in
 * /proc/self/stat (clock ticks after boot) placed on the real clock
 */
static double process_start(void)
{
	struct timespec boot, real;
	unsigned long long ticks = 0;
	char buf[1024], *p;
	size_t n;
	FILE *f;
	int i;

	f = fopen("/proc/self/stat", "re");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* after the command's ")": state is field 3, starttime field 22 */
	p = strrchr(buf, ')');
	for (i = 2; p && i < 22; i++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu", &ticks) != 1)
		return 0;
	clock_gettime(CLOCK_BOOTTIME, &boot);
	clock_gettime(CLOCK_REALTIME, &real);
	return (double)real.tv_sec + (double)real.tv_nsec / 1e9 -
	       ((double)boot.tv_sec + (double)boot.tv_nsec / 1e9) +
	       (double)ticks / (double)sysconf(_SC_CLK_TCK);
}

struct metrics_snap *metrics_snap_take(struct session *s, unsigned int top, uint64_t refresh)
{
	struct stack_table *t = session_table(s);
	struct rank_opts ro = { .key = RANK_TOTAL, .event = -1, .pid = -1, .cpu = -1 };
	struct rank_summary sum;
	struct rank_row *rows = NULL;
	struct metrics_snap *m;
	struct ev_sum es;
	size_t i, n = 0;

	if (top > METRICS_TOP_MAX)
		top = METRICS_TOP_MAX;
	if (top) {
		rows = calloc(top, sizeof(*rows));
		if (!rows)
			return NULL;
		n = stack_table_rank(t, &ro, rows, top, &sum);
	} else {
		stack_table_rank(t, &ro, NULL, 0, &sum);
	}
	m = calloc(1, sizeof(*m) + n * sizeof(m->rows[0]));
	if (!m) {
		free(rows);
		return NULL;
	}
	m->refresh = refresh;
	m->time = now_real();
	m->start = process_start();
	m->st = *session_stats(s);
	snprintf(m->mode, sizeof(m->mode), "%s", session_mode_name(m->st.mode));
	if (session_unit(s) != UNIT_NONE)
		snprintf(m->weight_name, sizeof(m->weight_name), "%s", session_weight_name(s));
	m->top = top;
	m->stacks = sum.matched;
	m->nevents = session_nevents(s);
	if (m->nevents) {
		m->events = calloc(m->nevents, sizeof(*m->events));
		if (!m->events) {
			free(rows);
			free(m);
			return NULL;
		}
		for (i = 0; i < m->nevents; i++)
			snprintf(m->events[i].name, EVENT_MAX, "%s",
				 session_event(s, (unsigned int)i));
		es.ev = m->events;
		es.n = m->nevents;
		stack_table_foreach(t, sum_events, &es);
	}
	for (i = 0; i < n; i++) {
		struct metrics_row *r = &m->rows[i];

		r->key = export_stack_key(session_ksym(s), rows[i].stack);
		r->hits = rows[i].total;
		if (m->weight_name[0])
			r->weight = stack_weight(t, rows[i].stack, NULL);
		brief_format(r->leaf, sizeof(r->leaf), session_ksym(s), rows[i].stack, 1, 0);
		brief_format(r->path, sizeof(r->path), session_ksym(s), rows[i].stack, PATH_FRAMES,
			     0);
	}
	m->nrows = n;
	free(rows);
	return m;
}

void metrics_snap_free(struct metrics_snap *m)
{
	if (!m)
		return;
	free(m->events);
	free(m);
}

uint64_t metrics_snap_refresh(const struct metrics_snap *m)
{
	return m->refresh;
}

/* ---- writing ------------------------------------------------------------ */

enum mkind { MK_COUNTER, MK_GAUGE };

/* a label's value: \, " and a line break escaped (the exposition format's rule) */
static void label_value(FILE *f, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fprintf(f, "\\%c", *v);
		else if (*v == '\n')
			fputs("\\n", f);
		else
			fputc(*v, f);
	}
}

/* # HELP and # TYPE of a family; a counter's samples add "_total" to @name */
static void family(FILE *f, bool om, const char *name, enum mkind k, const char *help)
{
	/* the text format names a counter as its samples; OpenMetrics, without _total */
	fprintf(f, "# HELP %s%s ", name, k == MK_COUNTER && !om ? "_total" : "");
	for (; *help; help++) {
		if (*help == '\\')
			fputs("\\\\", f);
		else if (*help == '\n')
			fputs("\\n", f);
		else
			fputc(*help, f);
	}
	fprintf(f, "\n# TYPE %s%s %s\n", name, k == MK_COUNTER && !om ? "_total" : "",
		k == MK_COUNTER ? "counter" : "gauge");
}

static void sample_u64(FILE *f, const char *name, enum mkind k, uint64_t v)
{
	fprintf(f, "%s%s %llu\n", name, k == MK_COUNTER ? "_total" : "", (unsigned long long)v);
}

static void sample_dbl(FILE *f, const char *name, enum mkind k, double v)
{
	fprintf(f, "%s%s %.15g\n", name, k == MK_COUNTER ? "_total" : "", v);
}

static void metric_u64(FILE *f, bool om, const char *name, enum mkind k, const char *help,
		       uint64_t v)
{
	family(f, om, name, k, help);
	sample_u64(f, name, k, v);
}

static void metric_dbl(FILE *f, bool om, const char *name, enum mkind k, const char *help, double v)
{
	family(f, om, name, k, help);
	sample_dbl(f, name, k, v);
}

/*
 * A row of the counters' table: a count (U64) is a counter; a byte count
 * is a gauge when it is memory held (mem_*), else a counter of bytes read;
 * a number (U32) and a flag (BOOL) are gauges
 */
static void write_counter(FILE *f, bool om, const struct session_stats *st,
			  const struct head_counter *c)
{
	char name[96], help[160];
	enum mkind k = MK_GAUGE;
	size_t l = strlen(c->field);

	if (c->type == HCY_U64 || (c->type == HCY_BYTES && strncmp(c->field, "mem_", 4)))
		k = MK_COUNTER;
	if (c->type == HCY_BYTES && (l < 6 || strcmp(c->field + l - 6, "_bytes")))
		snprintf(name, sizeof(name), "stacktop_%s_bytes", c->field);
	else
		snprintf(name, sizeof(name), "stacktop_%s", c->field);
	/* what it counts is said once, in core/counters.h and doc/formats.md */
	if (c->jkey)
		snprintf(help, sizeof(help),
			 "the header's counter %s (the JSON snapshot's \"%s\", doc/formats.md)",
			 c->field, c->jkey);
	else
		snprintf(help, sizeof(help), "the header's counter %s (core/counters.h)", c->field);
	metric_u64(f, om, name, k, help, head_counter_value(st, c));
}

static void write_map(FILE *f, bool om, const struct session_stats *st)
{
	const struct stackmap_health *h = &st->health;

	if (!st->have_map_stat)
		return;
	metric_u64(f, om, "stacktop_stackmap_entries", MK_GAUGE,
		   "stack_map_stat: stacks in the map's pool", st->map.entries);
	metric_u64(f, om, "stacktop_stackmap_capacity", MK_GAUGE, "stack_map_stat: the pool's size",
		   st->map.capacity);
	metric_u64(f, om, "stacktop_stackmap_table_size", MK_GAUGE,
		   "stack_map_stat: slots of the map's hash table", st->map.table_size);
	metric_u64(f, om, "stacktop_stackmap_successes", MK_COUNTER,
		   "stack_map_stat: events the map gave a stack id", st->map.successes);
	metric_u64(f, om, "stacktop_stackmap_drops", MK_COUNTER,
		   "stack_map_stat: events the map had no room for (full stacks instead)",
		   st->map.drops);
	if (!h->known)
		return;
	metric_u64(
		f, om, "stacktop_stackmap_demand", MK_GAUGE,
		"stacks a pool would have had to hold: its entries and the stacks that fell back",
		h->demand);
	metric_dbl(f, om, "stacktop_stackmap_growth", MK_GAUGE,
		   "growth of the demand per second (< 0: not measured yet)", h->growth);
	metric_u64(f, om, "stacktop_stackmap_full", MK_GAUGE,
		   "1 when the map refuses new stacks (its pool used up, or drops growing)",
		   h->full);
	metric_dbl(f, om, "stacktop_stackmap_full_seconds", MK_GAUGE,
		   "seconds since stacktop saw the map full (0: not full)",
		   h->full ? h->full_for : 0);
	metric_dbl(f, om, "stacktop_stackmap_eta_seconds", MK_GAUGE,
		   "seconds until the pool is full at its growth (0: full, < 0: not filling)",
		   h->eta);
	metric_u64(f, om, "stacktop_stackmap_warn", MK_GAUGE,
		   "1 when the map is full or will be within minutes at a settled growth", h->warn);
	metric_u64(f, om, "stacktop_stackmap_bits_advice", MK_GAUGE,
		   "the ftrace_stackmap.bits=N that would hold the demand (0: none due)",
		   h->bits_advice);
}

static void write_process(FILE *f, bool om, const struct metrics_snap *m)
{
	struct rusage ru;
	double cpu = 0;

	if (!getrusage(RUSAGE_SELF, &ru))
		cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
		      (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	metric_dbl(f, om, "process_cpu_seconds", MK_COUNTER,
		   "stacktop's own CPU time, user and system, every thread, seconds", cpu);
	metric_dbl(f, om, "process_start_time_seconds", MK_GAUGE,
		   "when stacktop started, seconds since the epoch", m->start);
	metric_dbl(f, om, "stacktop_self_cpu_percent", MK_GAUGE,
		   "stacktop's CPU over the last refresh interval, percent of one CPU",
		   m->st.self_cpu);
}

/* a stack's sample: its key, leaf function and first frames as labels */
static void stack_sample(FILE *f, const char *name, const struct metrics_row *r, uint64_t v)
{
	fprintf(f, "%s{stack=\"%016llx\",leaf=\"", name, (unsigned long long)r->key);
	label_value(f, r->leaf);
	fputs("\",path=\"", f);
	label_value(f, r->path);
	fprintf(f, "\"} %llu\n", (unsigned long long)v);
}

static void write_stacks(FILE *f, bool om, const struct metrics_snap *m)
{
	char help[160];
	size_t i;

	metric_u64(f, om, "stacktop_stacks", MK_GAUGE, "distinct stacks with hits", m->stacks);
	metric_u64(f, om, "stacktop_stack_series_max", MK_GAUGE,
		   "the most stacks stacktop_stack_hits lists (--serve-top)", m->top);
	family(f, om, "stacktop_stack_hits", MK_COUNTER,
	       "hits of the stacks with the most hits since start; stack: the stable key of "
	       "its frames (the JSON snapshot's), leaf: its leaf function, path: its first "
	       "frames");
	for (i = 0; i < m->nrows; i++)
		stack_sample(f, "stacktop_stack_hits_total", &m->rows[i], m->rows[i].hits);
	if (!m->weight_name[0])
		return;
	snprintf(help, sizeof(help), "the same stacks' weight: %s", m->weight_name);
	family(f, om, "stacktop_stack_weight", MK_COUNTER, help);
	for (i = 0; i < m->nrows; i++)
		stack_sample(f, "stacktop_stack_weight_total", &m->rows[i], m->rows[i].weight);
}

static void write_serve(FILE *f, bool om, const struct metrics_serve *sv)
{
	metric_dbl(f, om, "stacktop_serve_collector_seconds", MK_COUNTER,
		   "the collector's time on the server's behalf: the copies these figures come "
		   "from, the profiles' windows and copies, the snapshots",
		   sv->collector_sec);
	metric_dbl(f, om, "stacktop_serve_collector_cpu_seconds", MK_COUNTER,
		   "the collector thread's CPU time then", sv->collector_cpu);
	metric_dbl(f, om, "stacktop_serve_profile_seconds", MK_COUNTER,
		   "the part of the collector's time spent on the profiles: their windows "
		   "opened, their counts copied",
		   sv->profile_sec);
	metric_dbl(f, om, "stacktop_serve_writer_cpu_seconds", MK_COUNTER,
		   "the server thread's CPU time writing the profiles from their copies",
		   sv->writer_cpu);
	metric_u64(f, om, "stacktop_serve_copies", MK_COUNTER,
		   "copies of these figures published (one a refresh)", sv->copies);
	metric_u64(f, om, "stacktop_serve_profile_copies", MK_COUNTER,
		   "profiles' counts copied by the collector", sv->profile_copies);
	metric_u64(f, om, "stacktop_serve_profiles", MK_COUNTER, "profiles written", sv->profiles);
	metric_u64(f, om, "stacktop_serve_names_stacks", MK_GAUGE,
		   "stacks whose frames the profiles' table of names has resolved (once a stack)",
		   sv->names_stacks);
	metric_u64(f, om, "stacktop_serve_names_bytes", MK_GAUGE, "the memory that table holds",
		   sv->names_bytes);
	metric_u64(f, om, "stacktop_serve_snapshots", MK_COUNTER,
		   "JSON snapshots and flame pages written", sv->snapshots);
	metric_u64(f, om, "stacktop_serve_scrapes", MK_COUNTER, "/metrics answered", sv->scrapes);
	metric_u64(f, om, "stacktop_serve_refused", MK_COUNTER,
		   "requests refused (401, 404, 405, 400, 503)", sv->refused);
}

int metrics_write(FILE *f, const struct metrics_snap *m, const struct metrics_serve *sv, bool om)
{
	const struct session_stats *st = &m->st;
	unsigned int i;

	family(f, om, "stacktop_info", MK_GAUGE, "stacktop's version, mode and kernel");
	fprintf(f, "stacktop_info{version=\"%s\",mode=\"", STACKTOP_VERSION);
	label_value(f, m->mode);
	fputs("\",kernel=\"", f);
	label_value(f, st->kernel);
	fputs("\"} 1\n", f);
	metric_u64(f, om, "stacktop_refresh", MK_GAUGE,
		   "the refresh these figures were taken at (1, 2, ...)", m->refresh);
	metric_dbl(f, om, "stacktop_refresh_timestamp_seconds", MK_GAUGE,
		   "when they were taken, seconds since the epoch", m->time);
	metric_dbl(f, om, "stacktop_interval_seconds", MK_GAUGE,
		   "the length of the last refresh interval", st->interval_sec);
	write_process(f, om, m);
	family(f, om, "stacktop_event_hits", MK_COUNTER,
	       "hits of each event counted with their stack (without --sample: every hit, "
	       "exactly)");
	for (i = 0; i < m->nevents; i++) {
		fputs("stacktop_event_hits_total{event=\"", f);
		label_value(f, m->events[i].name);
		fprintf(f, "\"} %llu\n", (unsigned long long)m->events[i].hits);
	}
	family(f, om, "stacktop_event_count", MK_COUNTER,
	       "each event's every hit, exactly: with --sample as perf counts them (most have "
	       "no stack), else its hits with their stack");
	for (i = 0; i < m->nevents; i++) {
		bool sampled = m->st.sample_period > 1 && i < STATS_EXACT_MAX;

		fputs("stacktop_event_count_total{event=\"", f);
		label_value(f, m->events[i].name);
		fprintf(f, "\"} %llu\n",
			(unsigned long long)(sampled ? m->st.exact_by_event[i]
						     : m->events[i].hits));
	}
	for (i = 0; i < HC_N; i++)
		write_counter(f, om, st, &head_counters[i]);
	write_map(f, om, st);
	write_stacks(f, om, m);
	if (sv)
		write_serve(f, om, sv);
	if (om)
		fputs("# EOF\n", f);
	return export_flush(f);
}
