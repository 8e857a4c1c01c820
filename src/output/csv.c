// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * csv.c - the ranked rows as comma-separated values (export_csv(),
 * formats.h), for a spreadsheet, pandas or sqlite's .import: a header
 * line, then a row per matching stack, best first.
 *
 * Fields are quoted as RFC 4180 says (a field holding a comma, a quote or a
 * line break is quoted, its quotes doubled) after fmt_sanitize() made the
 * kernel's and the processes' strings printable. A text field that starts
 * with =, +, - or @ would be read as a formula by a spreadsheet (a
 * process may name itself "=cmd|..."): it gets a leading ' as OWASP's
 * CSV-injection advice has it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/format.h"
#include "core/rank.h"
#include "output/formats.h"
#include "output/losses.h"
#include "output/rows.h"
#include "session/session.h"
#include "sym/frame.h"
#include "sym/ksym.h"

/* @clean, sanitized, as one field: quoted and defused as needed */
static void csv_put(FILE *f, const char *clean)
{
	const char *p;

	if (!strpbrk(clean, ",\"\r\n") && !strchr("=+-@", clean[0] ? clean[0] : 'x')) {
		fputs(clean, f);
		return;
	}
	fputc('"', f);
	if (clean[0] && strchr("=+-@", clean[0]))
		fputc('\'', f);
	for (p = clean; *p; p++) {
		if (*p == '"')
			fputc('"', f);
		fputc(*p, f);
	}
	fputc('"', f);
}

void export_csv_field(FILE *f, const char *s)
{
	char small[4096], *big;
	size_t len = strlen(s), want;

	want = fmt_sanitize(small, sizeof(small), s, len);
	/* a deep stack's frames stay whole: sanitized again at their length */
	big = want >= sizeof(small) ? malloc(want + 1) : NULL;
	if (big)
		fmt_sanitize(big, want + 1, s, len);
	csv_put(f, big ? big : small);
	free(big);
}

/* the frames of @sk, leaf first, as function names joined by ';' */
static void csv_stack(FILE *f, struct ksym *ks, const struct stack *sk)
{
	char *buf, fn[320];
	size_t cap = 4096, len = 0;
	unsigned int j;

	buf = malloc(cap);
	if (!buf)
		return;
	buf[0] = '\0';
	for (j = 0; j < sk->depth; j++) {
		size_t l;

		fmt_func(fn, sizeof(fn), ks, sk->ips[j], 0);
		l = strlen(fn);
		if (len + l + 2 > cap) {
			char *nb = realloc(buf, cap * 2 + l);

			if (!nb)
				break;
			buf = nb;
			cap = cap * 2 + l;
		}
		if (j)
			buf[len++] = ';';
		memcpy(buf + len, fn, l + 1);
		len += l;
	}
	export_csv_field(f, buf);
	free(buf);
}

/* the command and pid that hit @sk most ("", -1 when none) */
static void csv_who(FILE *f, struct session *s, const struct report_opts *o, const struct stack *sk)
{
	struct stack_top top;

	stack_top_of(session_table(s), sk, o->delta, &o->rank, &top);
	if (top.pid < 0 && o->delta)
		stack_top_of(session_table(s), sk, false, &o->rank, &top);
	export_csv_field(f, top.event >= 0 ? session_event(s, (unsigned int)top.event) : "");
	fputc(',', f);
	export_csv_field(f, top.pid != -1 ? session_comm(s, top.pid) : "");
	fprintf(f, ",%d,%u,", top.pid >= 0 ? top.pid : -1, top.npids);
}

int export_csv(FILE *f, struct session *s, const struct report_opts *o, int iteration)
{
	const struct session_stats *st = session_stats(s);
	double dt = st->interval_sec > 0 ? st->interval_sec : 1;
	struct ksym *ks = session_ksym(s);
	struct rank_summary sum;
	struct rank_row *rows;
	bool sampled = export_sampled(st);
	size_t n, i;
	int r;

	r = export_rows(s, &o->rank, o->top > 0 ? (size_t)o->top : SIZE_MAX, &rows, &n, &sum);
	if (r < 0)
		return r;
	/* --sample: each count an estimate, its 95% half width beside it */
	fprintf(f,
		"refresh,rank,key,%s,%s_total,percent,%s_per_sec,%sevent,comm,pid,pids,depth,stack\n",
		o->rank.weight ? "weight" : "hits", o->rank.weight ? "weight" : "hits",
		o->rank.weight ? "weight" : "hits",
		sampled ? "hits_total_ci95,sample_period," : "");
	for (i = 0; i < n; i++) {
		const struct stack *sk = rows[i].stack;
		uint64_t v = o->delta ? rows[i].delta : rows[i].total;
		uint64_t all = o->delta ? sum.delta : sum.total;

		fprintf(f, "%d,%zu,%016" PRIx64 ",%" PRIu64 ",%" PRIu64 ",%.2f,%.1f,",
			iteration > 0 ? iteration : 1, i + 1, export_stack_key(ks, sk),
			rows[i].delta, rows[i].total, all ? 100.0 * (double)v / (double)all : 0.0,
			(double)rows[i].delta / dt);
		if (sampled)
			fprintf(f, "%" PRIu64 ",%u,",
				export_sample_ci95(rows[i].total, st->events, st),
				export_sample_n(st));
		csv_who(f, s, o, sk);
		fprintf(f, "%u,", sk->depth);
		csv_stack(f, ks, sk);
		fputc('\n', f);
	}
	free(rows);
	r = export_flush(f);
	return r < 0 ? r : (int)(n > INT32_MAX ? INT32_MAX : n);
}

int export_csv_note(char *buf, size_t size, struct session *s, const struct report_opts *o)
{
	struct fmt_out out;

	fmt_out_init(&out, buf, size);
	export_losses_note(&out, s, o->delta, "");
	return fmt_out_ret(&out);
}
