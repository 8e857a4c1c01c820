// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * json.c - the JSON snapshot (export_json(), formats.h; schema version
 * EXPORT_JSON_VERSION, doc/formats.md): the header's counters, the view,
 * and every stack with its frames, symbols and breakdown records. Read
 * back by ingest/snapshot.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "core/format.h"
#include "core/hist.h"
#include "core/stack_table.h"
#include "core/rank.h"
#include "output/counters.h"
#include "output/formats.h"
#include "output/rows.h"
#include "session/session.h"
#include "sym/brief.h"
#include "sym/frame.h"
#include "sym/ksym.h"
#include "sym/usym.h"

/* the wall clock, as seconds since the epoch and as an RFC 3339 UTC string */
static void json_time(FILE *f)
{
	struct timespec ts;
	struct tm tm;
	char stamp[32];

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
	fprintf(f, "\"timestamp\":%lld.%03ld,\"time\":\"%s.%03ldZ\"", (long long)ts.tv_sec,
		ts.tv_nsec / 1000000, stamp, ts.tv_nsec / 1000000);
}

static const char *const rank_key_names[] = {
	[RANK_DELTA] = "hits", [RANK_TOTAL] = "total", [RANK_DEPTH] = "depth",
	[RANK_ID] = "id",      [RANK_EVENT] = "event", [RANK_COMM] = "comm",
};

/* "user": how user stacks are taken; dwarf: the join's outcome by reason */
static void json_user_stats(FILE *f, const struct session_stats *st)
{
	const struct ujoin_stats *j = &st->ujoin;

	if (st->user == SESSION_USER_OFF)
		return;
	fprintf(f, ",\"user\":{\"mode\":\"%s\",\"note\":",
		st->user == SESSION_USER_DWARF ? "dwarf" : "fp");
	export_json_str(f, st->user_note);
	if (st->user == SESSION_USER_DWARF)
		fprintf(f,
			",\"with_stack\":%llu,\"no_sample\":%llu,\"sample_lost\":%llu,"
			"\"unwind_failed\":%llu,\"no_maps\":%llu,\"samples\":%llu,"
			"\"samples_lost\":%llu,\"duplicates\":%llu,\"unclaimed\":%llu,"
			"\"overflow\":%llu",
			(unsigned long long)j->why[UJOIN_OK],
			(unsigned long long)j->why[UJOIN_NO_SAMPLE],
			(unsigned long long)j->why[UJOIN_SAMPLE_LOST],
			(unsigned long long)j->why[UJOIN_UNWIND_FAILED],
			(unsigned long long)j->why[UJOIN_NO_MAPS], (unsigned long long)j->samples,
			(unsigned long long)j->lost, (unsigned long long)j->dup_samples,
			(unsigned long long)j->orphan_samples, (unsigned long long)j->overflow);
	/* --user-sample (1: every event), and the perf rings (bytes a CPU) */
	if (st->user == SESSION_USER_DWARF)
		fprintf(f,
			",\"period\":%u,\"not_sampled\":%llu,\"stack_bytes\":%u,"
			"\"ring_bytes\":%llu,\"ring_bytes_total\":%llu,\"ring_grown\":%llu,"
			"\"ring_full\":%llu,\"ring_auto\":%s",
			st->user_period ? st->user_period : 1,
			(unsigned long long)j->why[UJOIN_NOT_SAMPLED], st->user_stack,
			(unsigned long long)st->user_ring, (unsigned long long)st->user_ring_total,
			(unsigned long long)st->user_ring_grown,
			(unsigned long long)st->user_ring_full,
			st->user_ring_auto ? "true" : "false");
	fputc('}', f);
}

/*
 * The counters of JSON place @place (core/counters.h), in the list's order,
 * each "key":value after @first (the first) or ","; a counter's "key_delta"
 * right after it, or in HCJ_LOSS after every total
 */
static void json_counters(FILE *f, const struct session_stats *st, unsigned int place,
			  const char *first)
{
	int pass, i;

	for (pass = 0; pass < (place == HCJ_LOSS ? 2 : 1); pass++) {
		for (i = 0; i < HC_N; i++) {
			const struct head_counter *c = &head_counters[i];
			uint64_t v = head_counter_value(st, c);

			if (c->jplace != place)
				continue;
			if (!pass) {
				fprintf(f, "%s\"%s\":", first, c->jkey);
				if (c->type == HCY_BOOL)
					fputs(v ? "true" : "false", f);
				else
					fprintf(f, "%llu", (unsigned long long)v);
				first = ",";
			}
			if (c->jdelta && pass == (place == HCJ_LOSS))
				fprintf(f, ",\"%s_delta\":%llu", c->jkey,
					(unsigned long long)head_counter_delta(st, c));
		}
	}
}

/* the ring-buffer byte counters and what the stack map saves (issue 13) */
static void json_ringbuf(FILE *f, const struct session_stats *st)
{
	struct session_ringbuf rb;

	fputs(",\"ringbuf\":{", f);
	json_counters(f, st, HCJ_RINGBUF, "");
	if (session_ringbuf_saving(st, &rb))
		fprintf(f, ",\"bytes_per_event\":%.2f,\"alt_per_event\":%.2f,\"%s\":%.2f",
			rb.read_per_event, rb.alt_per_event,
			st->mode == SESSION_STACKMAP ? "map_saves_pct" : "map_would_save_pct",
			rb.saving_pct);
	fputc('}', f);
}

/* a number, or null when @known is false */
static void json_num(FILE *f, const char *key, bool known, double v)
{
	if (known)
		fprintf(f, ",\"%s\":%.2f", key, v);
	else
		fprintf(f, ",\"%s\":null", key);
}

/* the map's pool (issue 20): fill, growth, since when full, fallbacks, advice */
static void json_pool(FILE *f, const struct session_stats *st)
{
	const struct stackmap_health *h = &st->health;
	double before = 0, after = 0, fi, fr;
	int split;

	if (!h->known)
		return;
	fi = stackmap_fallback_pct(h->successes_delta, h->drops_delta);
	fr = stackmap_fallback_pct(h->successes_run, h->drops_run);
	split = session_map_saves_split(st, &before, &after);
	fprintf(f, ",\"pool\":{\"full\":%s,\"warn\":%s,\"demand\":%llu,\"fell_back\":%llu",
		h->full ? "true" : "false", h->warn ? "true" : "false",
		(unsigned long long)h->demand, (unsigned long long)h->fell_back);
	json_num(f, "fill_pct", h->capacity > 0,
		 h->capacity ? 100.0 * (double)h->entries / (double)h->capacity : 0);
	json_num(f, "growth_per_sec", h->growth >= 0, h->growth);
	json_num(f, "full_in_sec", h->eta >= 0, h->eta);
	if (h->full)
		fprintf(f, ",\"full_since\":%lld,\"full_for_sec\":%.2f,\"full_at_start\":%s",
			(long long)h->full_since, h->full_for, h->full_at_start ? "true" : "false");
	else
		fputs(",\"full_since\":null,\"full_for_sec\":null,\"full_at_start\":false", f);
	json_num(f, "growth_before_full", h->full && h->growth_before >= 0, h->growth_before);
	fprintf(f, ",\"interval\":{\"successes\":%llu,\"drops\":%llu",
		(unsigned long long)h->successes_delta, (unsigned long long)h->drops_delta);
	json_num(f, "fallback_pct", fi >= 0, fi);
	fprintf(f, "},\"since_start\":{\"successes\":%llu,\"drops\":%llu",
		(unsigned long long)h->successes_run, (unsigned long long)h->drops_run);
	json_num(f, "fallback_pct", fr >= 0, fr);
	fputc('}', f);
	json_num(f, "saves_before_full_pct", split & 1, before);
	json_num(f, "saves_since_full_pct", split & 2, after);
	if (h->bits)
		fprintf(f, ",\"bits\":%u", h->bits);
	else
		fputs(",\"bits\":null", f);
	if (h->bits_advice)
		fprintf(f, ",\"advice_bits\":%u,\"advice_short\":%s", h->bits_advice,
			h->advice_short ? "true" : "false");
	else
		fputs(",\"advice_bits\":null,\"advice_short\":false", f);
	fputc('}', f);
}

static void json_view(FILE *f, struct session *s, const struct report_opts *o)
{
	const struct rank_opts *r = &o->rank;

	fprintf(f, ",\"view\":{\"sort\":\"%s\",\"ascending\":%s,\"counts\":\"%s\",\"event\":",
		(unsigned int)r->key < RANK_KEY_MAX ? rank_key_names[r->key] : "hits",
		r->invert ? "true" : "false", o->delta ? "delta" : "total");
	if (r->event >= 0)
		export_json_str(f, session_event(s, (unsigned int)r->event));
	else
		fputs("null", f);
	if (r->pid >= 0)
		fprintf(f, ",\"pid\":%d", r->pid);
	else
		fputs(",\"pid\":null", f);
	if (r->cpu >= 0)
		fprintf(f, ",\"cpu\":%d", r->cpu);
	else
		fputs(",\"cpu\":null", f);
	fputs(",\"filter\":", f);
	if (o->filter) {
		char buf[512];

		fmt_sanitize(buf, sizeof(buf), o->filter, strlen(o->filter));
		export_json_str(f, buf);
	} else {
		fputs("null", f);
	}
	fputs(",\"comm\":", f);
	if (o->comm) {
		char buf[512];

		fmt_sanitize(buf, sizeof(buf), o->comm, strlen(o->comm));
		export_json_str(f, buf);
	} else {
		fputs("null", f);
	}
	fprintf(f, ",\"hide_idle\":%s,\"top\":%d}", r->hide_idle ? "true" : "false",
		o->top > 0 ? o->top : 0);
}

static void json_header(FILE *f, struct session *s, const struct report_opts *o, int iteration,
			const struct rank_summary *sum)
{
	const struct session_stats *st = session_stats(s);
	struct utsname un;
	char host[256], buf[256];
	unsigned int i, nev;

	if (session_norigins(s) == 1)
		snprintf(buf, sizeof(buf), "%s", session_origin(s, 0)); /* a snapshot read back */
	else if (gethostname(buf, sizeof(buf)) < 0)
		buf[0] = '\0';
	buf[sizeof(buf) - 1] = '\0';
	fmt_sanitize(host, sizeof(host), buf, strlen(buf));
	fprintf(f, "{\"schema\":\"stacktop-snapshot\",\"version\":%d,\"stacktop\":\"%s\",",
		EXPORT_JSON_VERSION, STACKTOP_VERSION);
	json_time(f);
	fputs(",\"host\":", f);
	export_json_str(f, host);
	/* the traced kernel; in replay the recording's is not known */
	fputs(",\"kernel\":", f);
	if (st->mode == SESSION_REPLAY && !(session_norigins(s) && st->kernel[0])) {
		fputs("null", f); /* a snapshot read back keeps its own */
	} else if (st->kernel[0]) {
		export_json_str(f, st->kernel);
	} else if (uname(&un) == 0) {
		fmt_sanitize(buf, sizeof(buf), un.release, strlen(un.release));
		export_json_str(f, buf);
	} else {
		fputs("null", f);
	}
	fputs(",\"source\":", f);
	export_json_str(f, st->tracefs);
	fprintf(f, ",\"iteration\":%d,\"mode\":\"%s\",\"interval\":%.3f,", iteration,
		session_mode_name(st->mode), st->interval_sec);
	fprintf(f, "\"events\":[");
	/* event indexes of the "by" records; a map alone has the one "stack_map" */
	nev = session_nevents(s);
	if (!nev && strcmp(session_event(s, 0), "?"))
		nev = 1;
	for (i = 0; i < nev; i++) {
		if (i)
			fputc(',', f);
		export_json_str(f, session_event(s, i));
	}
	fprintf(f, "],\"traced\":");
	export_json_str(f, session_traced(s));
	if (session_norigins(s) > 1) {
		/* several snapshots read together: what "origin" of "by" indexes */
		fputs(",\"origins\":[", f);
		for (i = 0; i < session_norigins(s); i++) {
			if (i)
				fputc(',', f);
			export_json_str(f, session_origin(s, i));
		}
		fputc(']', f);
	}
	json_view(f, s, o);
	json_counters(f, st, HCJ_HEAD, ",");
	fprintf(f, ",\"unique\":%zu,\"matched\":%zu,\"matched_total\":%llu,\"matched_delta\":%llu",
		stack_table_count(session_table(s)), sum->matched, (unsigned long long)sum->total,
		(unsigned long long)sum->delta);
	json_counters(f, st, HCJ_LOSS, ",");
	json_counters(f, st, HCJ_ROOT, ",");
	fputs(",\"memory\":{", f);
	json_counters(f, st, HCJ_MEM, "");
	fputc('}', f);
	json_ringbuf(f, st);
	json_user_stats(f, st);
	if (session_unit(s) != UNIT_NONE) {
		uint64_t wd, wt = stack_table_weights(session_table(s), &wd);

		fprintf(f, ",\"weight\":{\"name\":");
		export_json_str(f, session_weight_name(s));
		fprintf(f, ",\"unit\":\"%s\",\"ranked\":%s,\"total\":%llu,\"delta\":%llu",
			session_unit(s) == UNIT_BYTES ? "bytes"
			: session_unit(s) == UNIT_NS  ? "nanoseconds"
						      : "count",
			o->rank.weight ? "true" : "false", (unsigned long long)wt,
			(unsigned long long)wd);
		fprintf(f, ",\"hist_scale\":\"%s\"",
			stack_table_hist_scale(session_table(s)) == HIST_TIME ? "time" : "log2");
		if (!strcmp(session_weight_name(s), "off-CPU"))
			json_counters(f, st, HCJ_OFFCPU, ",");
		fputc('}', f);
	}
	{
		unsigned int depth;
		bool func;

		const uint8_t *keys = session_group_by(s);

		session_group(s, &depth, &func);
		if (depth || func)
			fprintf(f, ",\"group\":{\"depth\":%u,\"function\":%s}", depth,
				func ? "true" : "false");
		/* --group-by: the rows are these keys' values, outermost first */
		if (keys[0]) {
			unsigned int k;

			fputs(",\"group_by\":[", f);
			for (k = 0; k < SESSION_GROUP_KEYS && keys[k]; k++)
				fprintf(f, "%s\"%s\"", k ? "," : "",
					session_group_key_name(keys[k]));
			fputc(']', f);
		}
	}
	if (st->have_map_stat) {
		fprintf(f,
			",\"map\":{\"entries\":%llu,\"capacity\":%llu,\"table_size\":%llu,"
			"\"successes\":%llu,\"drops\":%llu,\"success_rate\":%d",
			(unsigned long long)st->map.entries, (unsigned long long)st->map.capacity,
			(unsigned long long)st->map.table_size,
			(unsigned long long)st->map.successes, (unsigned long long)st->map.drops,
			st->map.success_rate);
		json_pool(f, st);
		fputc('}', f);
	}
}

/*
 * the user part of a stack: its process, frames and whether it was cut;
 * "user_missing" says why an event has none (usym_none(): tgid 0, no frames)
 */
static void json_user(FILE *f, struct ksym *ks, const struct stack *sk, unsigned int kd)
{
	struct usym *u = ksym_usym(ks);
	uint64_t none = usym_stack_none(sk->ips, sk->depth);
	uint64_t cut = 0;
	bool any = false;
	unsigned int j;

	if (none) {
		fprintf(f,
			",\"tgid\":0,\"user_frames\":[],\"user_cut\":false,\"user_missing\":\"%s\"",
			ujoin_why_name((enum ujoin_why)usym_none_why(none)));
		return;
	}
	fprintf(f, ",\"tgid\":%u,\"user_frames\":[", (unsigned int)(sk->ips[kd] & 0xffffffffu));
	for (j = kd + 1; j < sk->depth; j++) {
		uint64_t addr = 0;
		uint32_t tgid;
		char fr[320];

		if (usym_is_cut(sk->ips[j])) {
			cut = sk->ips[j];
			continue;
		}
		if (u)
			usym_lookup(u, sk->ips[j], &tgid, &addr);
		fmt_frame(fr, sizeof(fr), ks, sk->ips[j]);
		fprintf(f, "%s{\"addr\":\"0x%llx\",\"symbol\":", any ? "," : "",
			(unsigned long long)addr);
		export_json_str(f, fr);
		/* an inlined call (a frame of its own at its caller's address), the source line */
		if (usym_is_inline(u, sk->ips[j]))
			fputs(",\"inlined\":true", f);
		if (usym_srcline(u, sk->ips[j], fr, sizeof(fr), true) > 0) {
			fputs(",\"line\":", f);
			export_json_str(f, fr);
		}
		fputc('}', f);
		any = true;
	}
	fprintf(f, "],\"user_cut\":%s", cut ? "true" : "false");
	if (cut)
		fprintf(f, ",\"user_cut_why\":\"%s\"", usym_cut_why(cut));
}

/*
 * "trend": the hits of the stack's last intervals, oldest first (the last
 * is "hits_delta"/"delta"); "trend_weight" the same in weight; "hist" the
 * single weights in log2 buckets, the buckets with a count
 */
static void json_trend_hist(FILE *f, struct stack_table *t, const struct stack *sk)
{
	uint64_t v[STACK_TREND], c[HIST_BUCKETS];
	unsigned int scale = stack_table_hist_scale(t), b;
	int n = stack_trend(t, sk, false, v, STACK_TREND), i, pass;
	bool any = false;

	for (pass = 0; pass < (stack_table_weighted(t) ? 2 : 1) && n >= 0; pass++) {
		if (pass)
			stack_trend(t, sk, true, v, STACK_TREND);
		fprintf(f, ",\"%s\":[", pass ? "trend_weight" : "trend");
		for (i = 0; i < n; i++)
			fprintf(f, "%s%llu", i ? "," : "", (unsigned long long)v[i]);
		fputc(']', f);
	}
	if (!stack_hist(t, sk, c))
		return;
	fputs(",\"hist\":[", f);
	for (b = 0; b < HIST_BUCKETS; b++) {
		uint64_t hi = hist_high(scale, b);

		if (!c[b])
			continue;
		fprintf(f, "%s{\"low\":%llu,\"high\":", any ? "," : "",
			(unsigned long long)hist_low(scale, b));
		if (hi == UINT64_MAX)
			fputs("null", f);
		else
			fprintf(f, "%llu", (unsigned long long)hi);
		fprintf(f, ",\"count\":%llu}", (unsigned long long)c[b]);
		any = true;
	}
	fputc(']', f);
}

static void json_stack(FILE *f, struct session *s, const struct report_opts *o,
		       const struct rank_row *row, bool first)
{
	struct stack_table *t = session_table(s);
	struct ksym *ks = session_ksym(s);
	const struct stack *sk = row->stack;
	const struct stack_attr *a;
	struct stack_top top_of;
	uint64_t key = export_stack_key(ks, sk);
	/* kernel frames in frames/symbols; the user part in user_frames */
	unsigned int kd = usym_user_start(sk->ips, sk->depth), j;
	const struct session_stats *st = session_stats(s);
	bool any = false;

	fprintf(f, "%s{\"key\":\"%016" PRIx64 "\",\"total\":%llu,\"delta\":%llu,", first ? "" : ",",
		key, (unsigned long long)row->total, (unsigned long long)row->delta);
	/* --sample: the counts are estimates, with their 95% half widths */
	if (export_sampled(st))
		fprintf(f, "\"total_ci95\":%llu,\"delta_ci95\":%llu,",
			(unsigned long long)export_sample_ci95(row->total, st->events, st),
			(unsigned long long)export_sample_ci95(row->delta, st->events_delta, st));
	if (stack_table_weighted(t)) {
		uint64_t wd, wt = stack_weight(t, sk, &wd);

		fprintf(f,
			"\"hits\":%llu,\"hits_delta\":%llu,\"weight\":%llu,\"weight_delta\":%llu,",
			(unsigned long long)sk->total, (unsigned long long)stack_delta(t, sk),
			(unsigned long long)wt, (unsigned long long)wd);
	}
	fprintf(f, "\"depth\":%u,\"ids\":[", kd);
	for (j = 0; j < sk->nids; j++)
		fprintf(f, "%s%u", j ? "," : "", sk->ids[j]);
	fprintf(f,
		"],%s\"more_ids\":%s,\"fallback\":%s,\"mapped\":%s,\"merged64\":%s,"
		"\"cut\":%s,\"frames\":[",
		sk->flags & STACK_F_OVER ? "\"over_limit\":true," : "",
		sk->flags & STACK_F_MOREIDS ? "true" : "false",
		sk->flags & STACK_F_FALLBACK ? "true" : "false",
		sk->flags & STACK_F_MAPPED ? "true" : "false",
		sk->flags & STACK_F_MERGED64 ? "true" : "false",
		sk->flags & STACK_F_CUT ? "true" : "false");
	for (j = 0; j < kd; j++)
		fprintf(f, "%s\"0x%llx\"", j ? "," : "", (unsigned long long)sk->ips[j]);
	fprintf(f, "],\"symbols\":[");
	for (j = 0; j < kd; j++) {
		char fr[320];

		fmt_frame(fr, sizeof(fr), ks, sk->ips[j]);
		if (j)
			fputc(',', f);
		export_json_str(f, fr);
	}
	/* --vmlinux: each kernel frame's source line (its call's: the byte before), "" unknown */
	if (usym_has_vmlinux(ksym_usym(ks))) {
		fputs("],\"lines\":[", f);
		for (j = 0; j < kd; j++) {
			char ln[600];

			usym_kernel_srcline(ksym_usym(ks), sk->ips[j], true, ln, sizeof(ln), true);
			if (j)
				fputc(',', f);
			export_json_str(f, ln);
		}
	}
	/* the top pid by the view's count, and how many pids hit the stack */
	stack_top_of(t, sk, o->delta, &o->rank, &top_of);
	if (top_of.pid < 0 && o->delta)
		stack_top_of(t, sk, false, &o->rank, &top_of);
	fprintf(f, "]");
	if (kd < sk->depth)
		json_user(f, ks, sk, kd);
	json_trend_hist(f, t, sk);
	fprintf(f, ",\"top\":");
	if (top_of.pid >= 0) {
		fprintf(f, "{\"pid\":%d,\"comm\":", top_of.pid);
		export_json_str(f, session_comm(s, top_of.pid));
		fprintf(f, ",\"hits\":%llu,\"pids\":%u}", (unsigned long long)top_of.pid_hits,
			top_of.npids);
	} else {
		fprintf(f, "null");
	}
	fprintf(f, ",\"by\":[");
	for (a = sk->attrs; a; a = a->next) {
		if (!export_attr_passes(&o->rank, a))
			continue;
		fprintf(f, "%s{\"event\":", any ? "," : "");
		export_json_str(f, session_event(s, a->event));
		fprintf(f, ",\"cpu\":%u,\"pid\":%d,\"comm\":", a->cpu, a->pid < -1 ? -1 : a->pid);
		export_json_str(f, a->pid == -1 ? "?" : session_comm(s, a->pid));
		if (stack_pid_folded(a->pid))
			fputs(",\"exited\":true", f);
		else if (a->pid == STACK_PID_OVER)
			fputs(",\"over_limit\":true", f);
		if (session_norigins(s) > 1)
			fprintf(f, ",\"origin\":%u", a->origin);
		fprintf(f, ",\"total\":%llu,\"delta\":%llu", (unsigned long long)a->total,
			(unsigned long long)stack_attr_delta(t, a));
		if (stack_table_weighted(t)) {
			uint64_t wd, wt = stack_attr_weight(t, a, &wd);

			fprintf(f, ",\"weight\":%llu,\"weight_delta\":%llu", (unsigned long long)wt,
				(unsigned long long)wd);
		}
		fputc('}', f);
		any = true;
	}
	fprintf(f, "]}");
}

int export_json(FILE *f, struct session *s, const struct report_opts *o, int iteration)
{
	/* every stack the view matches, whatever --top: a snapshot read back
	 * (-r, --diff) takes its shares over the whole interval (issue 35) */
	size_t limit = SIZE_MAX;
	struct rank_summary sum;
	struct rank_row *rows;
	size_t n, i;
	int r;

	r = export_rows(s, &o->rank, limit, &rows, &n, &sum);
	if (r < 0)
		return r;
	json_header(f, s, o, iteration, &sum);
	fprintf(f, ",\"stacks\":[");
	for (i = 0; i < n; i++)
		json_stack(f, s, o, &rows[i], i == 0);
	fprintf(f, "]}\n");
	free(rows);
	return export_flush(f);
}
