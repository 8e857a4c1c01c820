// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * export.c - see export.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "brief.h"
#include "export.h"
#include "format.h"
#include "ksym.h"
#include "session.h"
#include "stack_table.h"

#define EXPORT_MAX_TOP 100000

/* 0, or the errno of the failed write (EPIPE when the reader went away) */
static int export_flush(FILE *f)
{
	errno = 0;
	if (fflush(f) == EOF || ferror(f))
		return errno ? -errno : -EIO;
	return 0;
}

static void report_header(FILE *f, struct session *s, const struct report_opts *o, int iteration,
			  const struct rank_summary *sum)
{
	const struct session_stats *st = session_stats(s);
	char rate[16], lost[16], lostd[16], ovr[16], drp[16];
	double dt = st->interval_sec > 0 ? st->interval_sec : 1;

	fmt_rate(rate, sizeof(rate), (double)st->events_delta / dt);
	fmt_count(lost, sizeof(lost), st->lost);
	fmt_count(lostd, sizeof(lostd), st->lost_delta);
	fmt_count(ovr, sizeof(ovr), st->overrun);
	fmt_count(drp, sizeof(drp), st->dropped);
	if (st->mode == SESSION_REPLAY)
		fprintf(f, "stacktop %s - mode replay - %s - %.2fs recorded\n", STACKTOP_VERSION,
			st->tracefs, st->interval_sec);
	else
		fprintf(f, "stacktop %s - mode %s - kernel %s - iteration %d - %.2fs\n",
			STACKTOP_VERSION, session_mode_name(st->mode), st->kernel, iteration,
			st->interval_sec);
	fprintf(f, "events: %s\n", session_traced(s));
	fprintf(f,
		"hits: %llu total, %llu in interval (%s/s); stacks: %zu unique; lost: %s (+%s) overrun: %s dropped: %s; self cpu %.1f%%\n",
		(unsigned long long)st->events, (unsigned long long)st->events_delta, rate,
		stack_table_count(session_table(s)), lost, lostd, ovr, drp, st->self_cpu);
	if (st->mode == SESSION_STACKMAP || st->mode == SESSION_PASSIVE) {
		fprintf(f, "stack map: ");
		if (st->have_map_stat) {
			fprintf(f, "entries %llu", (unsigned long long)st->map.entries);
			if (st->map.capacity)
				fprintf(f, "/%llu", (unsigned long long)st->map.capacity);
			fprintf(f, ", %s %llu, drops %llu",
				st->map.v1_names ? "hits" : "successes",
				(unsigned long long)st->map.successes,
				(unsigned long long)st->map.drops);
			if (st->map.success_rate >= 0)
				fprintf(f, ", success rate %d%%", st->map.success_rate);
		} else {
			fprintf(f, "stat unavailable");
		}
		fprintf(f, "; fallbacks %llu (+%llu); unresolved ids %llu; generation %u; option %s\n",
			(unsigned long long)st->fallbacks, (unsigned long long)st->fallbacks_delta,
			(unsigned long long)st->unresolved, st->generation,
			st->stackmap_on ? "on" : "off");
	}
	if (st->bad_pages || st->orphans)
		fprintf(f, "damaged data: %llu malformed pages, %llu stack records with no event before them (not counted)\n",
			(unsigned long long)st->bad_pages, (unsigned long long)st->orphans);
	if (st->drains_cut)
		fprintf(f, "note: reading fell behind the kernel (%llu reads ended on their time budget with data left; what the kernel overwrote is in lost/overrun)\n",
			(unsigned long long)st->drains_cut);
	if (!st->tracing_on && st->mode != SESSION_PASSIVE && st->mode != SESSION_REPLAY)
		fprintf(f, "note: tracing is off in %s\n", st->tracefs);
	fprintf(f, "showing %zu of %zu stacks, ranked by %s%s\n\n",
		sum->matched < (size_t)o->top ? sum->matched : (size_t)o->top, sum->matched,
		o->rank.key == RANK_DELTA   ? "hits in the interval"
		: o->rank.key == RANK_TOTAL ? "total hits"
		: o->rank.key == RANK_DEPTH ? "depth"
					    : "kernel id",
		o->rank.invert ? " (ascending)" : "");
}


int export_report(FILE *f, struct session *s, const struct report_opts *o, int iteration)
{
	struct stack_table *t = session_table(s);
	struct ksym *ks = session_ksym(s);
	const struct session_stats *st = session_stats(s);
	struct rank_summary sum;
	struct rank_row *rows;
	size_t n, i;
	int top = o->top > 0 ? (o->top < EXPORT_MAX_TOP ? o->top : EXPORT_MAX_TOP) : 20;
	double dt = st->interval_sec > 0 ? st->interval_sec : 1;

	rows = calloc((size_t)top, sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	n = stack_table_rank(t, &o->rank, rows, (size_t)top, &sum);
	report_header(f, s, o, iteration, &sum);
	fprintf(f, "%4s %-11s %7s %8s %6s %7s %-24s %-22s %s\n", "RANK", "IDS", "HITS", "TOTAL",
		"%", "RATE/s", "EVENT", "COMM/PID", "STACK (leaf < callers)");
	for (i = 0; i < n; i++) {
		const struct stack *sk = rows[i].stack;
		struct stack_top top_of;
		char ids[32], hits[16], total[16], pct[16], rate[16], leaf[256], who[64], comm[24];

		stack_top_of(t, sk, false, &top_of);
		fmt_ids(ids, sizeof(ids), sk->ids, sk->nids, !!(sk->flags & STACK_F_MOREIDS));
		fmt_count(hits, sizeof(hits), rows[i].delta);
		fmt_count(total, sizeof(total), rows[i].total);
		fmt_percent(pct, sizeof(pct), o->delta ? rows[i].delta : rows[i].total,
			    o->delta ? sum.delta : sum.total);
		fmt_rate(rate, sizeof(rate), (double)rows[i].delta / dt);
		brief_format(leaf, sizeof(leaf), ks, sk, 3, 1);
		if (top_of.pid >= 0) {
			fmt_fit(comm, sizeof(comm), session_comm(s, top_of.pid), 15);
			snprintf(who, sizeof(who), "%s/%d", comm, top_of.pid);
		} else {
			snprintf(who, sizeof(who), "-");
		}
		fprintf(f, "%4zu %-11s %7s %8s %6s %7s %-24s %-22s %s%s\n", i + 1, ids, hits, total,
			pct, rate, top_of.event >= 0 ? session_event(s, (unsigned int)top_of.event) : "-",
			who, leaf, sk->flags & STACK_F_FALLBACK ? " (full stack)" : "");
	}
	if (!n)
		fprintf(f, "  (no stacks yet%s)\n",
			sum.matched ? "" : ": no event with a stack has been recorded");
	for (i = 0; i < n && (int)i < o->expand; i++) {
		const struct stack *sk = rows[i].stack;
		char ids[32];
		unsigned int j;

		fmt_ids(ids, sizeof(ids), sk->ids, sk->nids, !!(sk->flags & STACK_F_MOREIDS));
		fprintf(f, "\n#%zu  hits %llu  total %llu  depth %u  ids %s%s%s%s\n", i + 1,
			(unsigned long long)rows[i].delta, (unsigned long long)rows[i].total,
			sk->depth, ids, sk->flags & STACK_F_FALLBACK ? "  [full kernel_stack]" : "",
			sk->flags & STACK_F_MERGED64 ? "  [64 frames: may merge deeper stacks]" : "",
			sk->flags & STACK_F_CUT ? "  [cut]" : "");
		for (j = 0; j < sk->depth; j++) {
			char fr[320];

			fmt_frame(fr, sizeof(fr), ks, sk->ips[j]);
			fprintf(f, "    %s\n", fr);
		}
	}
	fputc('\n', f);
	free(rows);
	return export_flush(f);
}

struct folded_ctx {
	FILE *f;
	struct session *s;
	const struct rank_opts *rank;
	bool delta;
	int lines;
};

static int folded_one(struct stack *sk, void *arg)
{
	struct folded_ctx *c = arg;
	struct stack_table *t = session_table(c->s);
	struct ksym *ks = session_ksym(c->s);
	const struct rank_opts *o = c->rank;
	uint64_t n = 0;
	int j;

	if (o && rank_filters_attrs(o)) {
		const struct stack_attr *a;

		for (a = sk->attrs; a; a = a->next) {
			if (!rank_attr_passes(o, a))
				continue;
			n += c->delta ? stack_attr_delta(t, a) : a->total;
		}
	} else {
		n = c->delta ? stack_delta(t, sk) : sk->total;
	}
	if (!n || (o && o->match && !o->match(sk, o->match_ctx)))
		return 0;
	for (j = sk->depth - 1; j >= 0; j--) {
		char fn[256], *p;

		fmt_func(fn, sizeof(fn), ks, sk->ips[j], 0);
		/* ';' separates frames and ' ' the count: keep both out of names */
		for (p = fn; *p; p++)
			if (*p == ';' || *p == ' ')
				*p = '_';
		fprintf(c->f, "%s%s_[k]", j == sk->depth - 1 ? "" : ";", fn);
	}
	fprintf(c->f, "%s%llu\n", sk->depth ? " " : "[empty] ", (unsigned long long)n);
	c->lines++;
	return ferror(c->f) ? -EIO : 0;
}

int export_folded(FILE *f, struct session *s, const struct rank_opts *rank, bool delta)
{
	struct folded_ctx c = { .f = f, .s = s, .rank = rank, .delta = delta };
	int r;

	r = stack_table_foreach(session_table(s), folded_one, &c);
	if (fflush(f) && !r)
		r = -errno;
	return r < 0 ? r : c.lines;
}

static void json_str(FILE *f, const char *str)
{
	const unsigned char *p = (const unsigned char *)str;

	fputc('"', f);
	for (; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

int export_json(FILE *f, struct session *s, const struct report_opts *o, int iteration)
{
	const struct session_stats *st = session_stats(s);
	struct stack_table *t = session_table(s);
	struct ksym *ks = session_ksym(s);
	int top = o->top > 0 ? (o->top < EXPORT_MAX_TOP ? o->top : EXPORT_MAX_TOP) : 20;
	struct rank_summary sum;
	struct rank_row *rows;
	size_t n, i;

	rows = calloc((size_t)top, sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	n = stack_table_rank(t, &o->rank, rows, (size_t)top, &sum);
	fprintf(f, "{\"iteration\":%d,\"mode\":\"%s\",\"interval\":%.3f,", iteration,
		session_mode_name(st->mode), st->interval_sec);
	fprintf(f, "\"events\":");
	json_str(f, session_traced(s));
	fprintf(f,
		",\"hits\":%llu,\"hits_delta\":%llu,\"unique\":%zu,\"matched\":%zu,"
		"\"lost\":%llu,\"overrun\":%llu,\"dropped\":%llu,\"orphans\":%llu,"
		"\"bad_pages\":%llu,\"fallbacks\":%llu,\"unresolved\":%llu,"
		"\"generation\":%u,\"tracing_on\":%s,\"stackmap_on\":%s,\"drains_cut\":%llu",
		(unsigned long long)st->events, (unsigned long long)st->events_delta,
		stack_table_count(t), sum.matched, (unsigned long long)st->lost,
		(unsigned long long)st->overrun, (unsigned long long)st->dropped,
		(unsigned long long)st->orphans, (unsigned long long)st->bad_pages,
		(unsigned long long)st->fallbacks, (unsigned long long)st->unresolved,
		st->generation, st->tracing_on ? "true" : "false",
		st->stackmap_on ? "true" : "false", (unsigned long long)st->drains_cut);
	if (st->have_map_stat)
		fprintf(f,
			",\"map\":{\"entries\":%llu,\"capacity\":%llu,\"table_size\":%llu,"
			"\"successes\":%llu,\"drops\":%llu,\"success_rate\":%d}",
			(unsigned long long)st->map.entries, (unsigned long long)st->map.capacity,
			(unsigned long long)st->map.table_size,
			(unsigned long long)st->map.successes, (unsigned long long)st->map.drops,
			st->map.success_rate);
	fprintf(f, ",\"stacks\":[");
	for (i = 0; i < n; i++) {
		const struct stack *sk = rows[i].stack;
		const struct stack_attr *a;
		unsigned int j;

		fprintf(f, "%s{\"total\":%llu,\"delta\":%llu,\"depth\":%u,\"ids\":[", i ? "," : "",
			(unsigned long long)rows[i].total, (unsigned long long)rows[i].delta,
			sk->depth);
		for (j = 0; j < sk->nids; j++)
			fprintf(f, "%s%u", j ? "," : "", sk->ids[j]);
		fprintf(f, "],\"more_ids\":%s,\"fallback\":%s,\"mapped\":%s,\"merged64\":%s,"
			"\"cut\":%s,\"frames\":[",
			sk->flags & STACK_F_MOREIDS ? "true" : "false",
			sk->flags & STACK_F_FALLBACK ? "true" : "false",
			sk->flags & STACK_F_MAPPED ? "true" : "false",
			sk->flags & STACK_F_MERGED64 ? "true" : "false",
			sk->flags & STACK_F_CUT ? "true" : "false");
		for (j = 0; j < sk->depth; j++)
			fprintf(f, "%s\"0x%llx\"", j ? "," : "", (unsigned long long)sk->ips[j]);
		fprintf(f, "],\"symbols\":[");
		for (j = 0; j < sk->depth; j++) {
			char fr[320];

			fmt_frame(fr, sizeof(fr), ks, sk->ips[j]);
			if (j)
				fputc(',', f);
			json_str(f, fr);
		}
		fprintf(f, "],\"by\":[");
		for (a = sk->attrs; a; a = a->next) {
			fprintf(f, "{\"event\":");
			json_str(f, session_event(s, a->event));
			fprintf(f, ",\"cpu\":%u,\"pid\":%d,\"comm\":", a->cpu, a->pid);
			json_str(f, session_comm(s, a->pid));
			fprintf(f, ",\"total\":%llu,\"delta\":%u}%s", (unsigned long long)a->total,
				stack_attr_delta(t, a), a->next ? "," : "");
		}
		fprintf(f, "]}");
	}
	fprintf(f, "]}\n");
	free(rows);
	return export_flush(f);
}

FILE *export_create_file(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	FILE *f;

	if (fd < 0)
		return NULL;
	f = fdopen(fd, "w");
	if (!f) {
		int e = errno;

		close(fd);
		unlink(path);
		errno = e;
	}
	return f;
}
