// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rows.c - see rows.h.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "core/stack_table.h"
#include "core/rank.h"
#include "output/rows.h"
#include "session/session.h"
#include "source/stats.h"
#include "sym/brief.h"
#include "sym/frame.h"

int export_flush(FILE *f)
{
	errno = 0;
	if (fflush(f) == EOF || ferror(f))
		return errno ? -errno : -EIO;
	return 0;
}

int export_rows(struct session *s, const struct rank_opts *o, size_t limit, struct rank_row **rows,
		size_t *n, struct rank_summary *sum)
{
	struct stack_table *t = session_table(s);
	struct rank_opts all = { .key = RANK_TOTAL, .event = -1, .pid = -1, .cpu = -1 };
	size_t k;

	if (!o)
		o = &all;
	stack_table_rank(t, o, NULL, 0, sum);
	k = sum->matched < limit ? sum->matched : limit;
	*rows = calloc(k ? k : 1, sizeof(**rows));
	if (!*rows)
		return -ENOMEM;
	*n = stack_table_rank(t, o, *rows, k, sum);
	return 0;
}

const char *export_unit_name(struct session *s, const struct rank_opts *o)
{
	if (!o->weight)
		return "count";
	switch (session_unit(s)) {
	case UNIT_BYTES:
		return "bytes";
	case UNIT_NS:
		return "nanoseconds";
	default:
		return "count";
	}
}

void export_json_str(FILE *f, const char *str)
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

/*
 * The stable key of a stack: FNV-1a 64 over its symbols as the snapshot
 * prints them (leaf first, from the first frame after the tracing
 * machinery), each followed by '\n'. Symbols, not addresses: the key
 * survives KASLR and reboots into the same kernel.
 */
static uint64_t json_key_add(uint64_t h, const char *p)
{
	for (; *p; p++) {
		h ^= (unsigned char)*p;
		h *= 0x100000001b3ULL;
	}
	h ^= '\n';
	return h * 0x100000001b3ULL;
}

uint64_t export_stack_key(struct ksym *ks, const struct stack *sk)
{
	uint64_t key = 0xcbf29ce484222325ULL;
	unsigned int j;

	/* from the first frame after the tracing machinery (brief_skip()): who
	 * else traces the event decides whether __traceiter_* is there */
	for (j = brief_skip(ks, sk); j < sk->depth; j++) {
		char fr[320];

		fmt_frame(fr, sizeof(fr), ks, sk->ips[j]);
		key = json_key_add(key, fr);
	}
	return key;
}

/* the origin with most hits of @sk under @o, -1 when none; *@more: others too */
int export_top_origin(struct session *s, const struct stack *sk, const struct rank_opts *o,
		      bool delta, bool *more)
{
	struct stack_table *t = session_table(s);
	uint64_t best = 0, per[64] = { 0 };
	const struct stack_attr *a;
	int top = -1, seen = -1;

	*more = false;
	for (a = sk->attrs; a; a = a->next) {
		uint64_t c = delta ? stack_attr_delta(t, a) : a->total;

		if (!c || !export_attr_passes(o, a))
			continue;
		if (seen >= 0 && seen != a->origin)
			*more = true;
		seen = a->origin;
		if (a->origin < 64)
			per[a->origin] += c;
		if (a->origin < 64 && per[a->origin] > best) {
			best = per[a->origin];
			top = a->origin;
		}
	}
	return top;
}

bool export_sampled(const struct session_stats *st)
{
	/* a snapshot of a sampled run: its variance is read back, not its period */
	return st->sample_period > 1 || st->sample_var;
}

unsigned int export_sample_n(const struct session_stats *st)
{
	if (st->sample_period > 1)
		return st->sample_period;
	return st->samples ? (unsigned int)((st->exact_events + st->samples / 2) / st->samples) : 0;
}

uint64_t export_sample_ci95(uint64_t hits, uint64_t of, const struct session_stats *st)
{
	double p;

	if (!export_sampled(st) || !hits || !st->events)
		return 0;
	p = of > hits ? (double)hits / (double)of : 1;
	/* h (1 - h / H) sum(w^2) deff / sum(w): the ratio estimator's (sampest.h) */
	return (uint64_t)ceil(
		1.96 * sqrt((double)hits * (1 - p) * (double)st->sample_var / (double)st->events));
}

int export_sample_text(char *buf, size_t size, const struct session_stats *st)
{
	if (!export_sampled(st))
		return 0;
	return snprintf(buf, size,
			"stacks sampled: about 1 in %u hits has its stack (perf, the period "
			"randomized); each count is an estimate with a 95%% interval (JSON "
			"total_ci95, CSV hits_total_ci95), the rows adding up to the %llu hits "
			"of the events counted exactly",
			export_sample_n(st),
			(unsigned long long)(st->exact_events - st->sample_unplaced));
}

int export_gzip(FILE *f, const void *data, size_t len)
{
	uint8_t chunk[16384];
	z_stream z;
	int zr;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK)
		return -ENOMEM;
	z.next_in = (Bytef *)(uintptr_t)data; /* zlib's API: it does not write it */
	z.avail_in = (uInt)len;		      /* a profile over 4 GiB is not written */
	do {
		z.next_out = chunk;
		z.avail_out = sizeof(chunk);
		zr = deflate(&z, Z_FINISH);
		if (zr == Z_STREAM_ERROR)
			break;
		if (fwrite(chunk, 1, sizeof(chunk) - z.avail_out, f) != sizeof(chunk) - z.avail_out)
			break;
	} while (zr != Z_STREAM_END);
	deflateEnd(&z);
	if (zr != Z_STREAM_END) {
		int e = export_flush(f);

		return e ? e : -EIO;
	}
	return export_flush(f);
}
