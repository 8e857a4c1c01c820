// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench-core.c - throughput of the hot path, as ratios against floors
 * measured in the same run on the same data (doc/performance.md):
 *
 *  ingest-ids    event + stack_id records through ingest_page(), against a
 *                memcpy of the same pages (the physical floor) and against
 *                the generic libtraceevent path (kbuffer walk +
 *                tep_get_field_val per record)
 *  ingest-full   event + kernel_stack records (depth 24) through
 *                ingest_page()
 *  rank          top 50 of 10^6 stacks (partial selection)
 *  rank+format   the same, then every number and frame of the 50 rows
 *                formatted as a screen would (fmt_count, fmt_percent,
 *                fmt_frame against 100,000 symbols): a frame without the draw
 *  memory        bytes per unique stack in the table
 *
 * Usage: bench-core [SCALE [ids|full|rank]]   (SCALE multiplies the work,
 * default 1; the second argument runs one part only, for a profiler).
 * SCALE 0 is a smoke run (a few pages, 10^4 stacks): the test suite runs it
 * so that the benchmark keeps building and running; it asserts no timing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event-parse.h>
#include <kbuffer.h>

#include "core/format.h"
#include "sym/frame.h"
#include "ingest/ingest.h"
#include "sym/ksym.h"
#include "pagegen.h"
#include "core/stack_table.h"
#include "core/stack_mem.h"
#include "core/rank.h"

#define NPAGES 1024

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char stackid_fmt[] =
	"name: stack_id\nID: 20\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:int stack_id;\toffset:8;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"<stack_id %d>\", REC->stack_id\n";

static const char event_fmt[] =
	"name: sched_switch\nID: 372\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"prev_pid=%d\", REC->prev_pid\n";

/* zipf-ish id choice over @nids ids, deterministic */
static uint32_t pick(uint32_t *seed, uint32_t nids)
{
	uint32_t r;

	*seed = *seed * 1103515245u + 12345u;
	r = (*seed >> 8) % 1000;
	return r < 500 ? r % 8 : r < 800 ? 8 + r % 64 : 72 + (*seed >> 4) % (nids - 72);
}

static uint8_t *make_pages(bool full, uint64_t *ret_records)
{
	uint8_t *pages = malloc((size_t)NPAGES * PG_SIZE);
	uint64_t recs = 0, ips[24];
	uint32_t seed = 1;
	struct pagegen pg;
	int i, j;

	for (i = 0; i < NPAGES; i++) {
		pagegen_start(&pg, 1000 + (uint64_t)i);
		while (pagegen_room(&pg, full ? 16 + 8 * 24 + 64 : 12 + 64)) {
			uint32_t id = pick(&seed, 400);

			pagegen_event(&pg, PG_EVENT_TYPE, (int32_t)(100 + id % 7));
			if (full) {
				for (j = 0; j < 24; j++)
					ips[j] = 0xffffffff81000000ull + id * 4096 +
						 (uint64_t)j * 64;
				pagegen_kstack(&pg, (int32_t)(100 + id % 7), ips, 24);
			} else {
				pagegen_stackid(&pg, (int32_t)(100 + id % 7), (int32_t)(id * 37));
			}
			recs += 2;
		}
		pagegen_finish(&pg, 0);
		memcpy(pages + (size_t)i * PG_SIZE, pg.buf, PG_SIZE);
	}
	*ret_records = recs;
	return pages;
}

static double bench_memcpy(const uint8_t *pages, int rounds)
{
	uint8_t *dst = malloc(PG_SIZE);
	double t0 = now();
	int r, i;

	for (r = 0; r < rounds; r++)
		for (i = 0; i < NPAGES; i++) {
			memcpy(dst, pages + (size_t)i * PG_SIZE, PG_SIZE);
			__asm__ volatile("" : : "r"(dst) : "memory");
		}
	t0 = now() - t0;
	free(dst);
	return t0;
}

static double bench_ingest(const uint8_t *pages, int rounds, bool ids, struct evfmt *fmt)
{
	struct stack_table *t = stack_table_new();
	struct ingest *ing = ingest_new(fmt, t, 1);
	uint64_t ips[4];
	double t0;
	int r, i;
	uint32_t id;

	if (ids) {
		ingest_configure(ing, &(struct ingest_config){ .stackmap = true });
		for (id = 0; id < 400; id++) {
			ips[0] = 0xffffffff81000000ull + id * 4096;
			ips[1] = ips[0] + 64;
			ips[2] = ips[0] + 128;
			ips[3] = ips[0] + 192;
			ingest_map_put(ing, id * 37, ips, 4, false);
		}
	}
	t0 = now();
	for (r = 0; r < rounds; r++)
		for (i = 0; i < NPAGES; i++)
			ingest_page(ing, 0, 0, pages + (size_t)i * PG_SIZE, PG_SIZE);
	t0 = now() - t0;
	if (ingest_stats(ing)->events == 0 || ingest_pending(ing))
		fprintf(stderr, "bench: nothing counted?\n");
	ingest_free(ing);
	stack_table_free(t);
	return t0;
}

static double bench_generic(const uint8_t *pages, int rounds)
{
	struct tep_handle *tep = tep_alloc();
	struct kbuffer *kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	struct tep_event *sid;
	struct trace_seq seq;
	unsigned long long ts, val, sum = 0;
	double t0;
	int r, i;

	tep_set_long_size(tep, 8);
	tep_parse_event(tep, stackid_fmt, sizeof(stackid_fmt) - 1, "ftrace");
	tep_parse_event(tep, event_fmt, sizeof(event_fmt) - 1, "sched");
	sid = tep_find_event_by_name(tep, "ftrace", "stack_id");
	trace_seq_init(&seq);
	t0 = now();
	for (r = 0; r < rounds; r++) {
		for (i = 0; i < NPAGES; i++) {
			void *data;

			kbuffer_load_subbuffer(kb, (void *)(pages + (size_t)i * PG_SIZE));
			for (data = kbuffer_read_event(kb, &ts); data;
			     data = kbuffer_next_event(kb, &ts)) {
				struct tep_record rec = { .ts = ts,
							  .data = data,
							  .size = kbuffer_event_size(kb) };

				if (tep_data_type(tep, &rec) == sid->id &&
				    tep_get_field_val(&seq, sid, "stack_id", &rec, &val, 0) == 0)
					sum += val;
			}
		}
	}
	t0 = now() - t0;
	if (!sum)
		fprintf(stderr, "bench: generic path read nothing?\n");
	trace_seq_destroy(&seq);
	kbuffer_free(kb);
	tep_free(tep);
	return t0;
}

/* 100,000 symbols 64 bytes apart, the frames' range, as /proc/kallsyms text */
static struct ksym *make_ksym(void)
{
	struct ksym *ks = ksym_new(NULL);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int i;

	if (!ks || !f)
		exit(1);
	for (i = 0; i < 100000; i++)
		fprintf(f, "%llx T bench_function_%d\n",
			0xffffffff81000000ull + (unsigned long long)i * 640, i);
	fclose(f);
	f = fmemopen(text, len, "r");
	if (!f || ksym_load(ks, f) < 0) {
		fprintf(stderr, "bench: ksym_load failed\n");
		exit(1);
	}
	fclose(f);
	free(text);
	return ks;
}

/* what a screen formats for @n ranked rows: counts, share, every frame */
static size_t format_rows(struct ksym *ks, const struct rank_row *rows, size_t n, uint64_t all)
{
	char buf[256];
	size_t i, out = 0;
	unsigned int j;

	for (i = 0; i < n; i++) {
		out += (size_t)fmt_count(buf, sizeof(buf), rows[i].delta);
		out += (size_t)fmt_count(buf, sizeof(buf), rows[i].total);
		out += (size_t)fmt_percent(buf, sizeof(buf), rows[i].delta, all);
		for (j = 0; j < rows[i].stack->depth; j++)
			out += (size_t)fmt_frame(buf, sizeof(buf), ks, rows[i].stack->ips[j]);
	}
	return out;
}

static void bench_rank(int scale)
{
	struct stack_table *t = stack_table_new();
	struct rank_opts o = { .key = RANK_DELTA, .event = -1, .pid = -1, .cpu = -1 };
	struct rank_row rows[50];
	struct rank_summary sum;
	struct ksym *ks = make_ksym();
	size_t n = scale ? 1000000 : 10000, i, mem, chars = 0;
	int reps = scale ? 5 * scale : 1;
	uint64_t ips[10];
	uint32_t seed = 7;
	double t0, best = 1e9;
	int r, j;

	for (i = 0; i < n; i++) {
		struct stack *s;

		for (j = 0; j < 10; j++)
			ips[j] = 0xffffffff81000000ull + i * 64 + (uint64_t)j;
		s = stack_table_intern(t, ips, 10);
		seed = seed * 1103515245u + 12345u;
		stack_table_hit(t, s, 0, 0, 1, 1 + (seed >> 20) % 100);
	}
	stack_table_tick(t);
	for (r = 0; r < reps; r++) {
		t0 = now();
		stack_table_rank(t, &o, rows, 50, NULL);
		t0 = now() - t0;
		if (t0 < best)
			best = t0;
	}
	mem = stack_table_memory(t);
	printf("rank         top 50 of %zu stacks, all hit in the last interval: %.2f ms (best of %d)\n",
	       n, best * 1e3, reps);
	best = 1e9;
	for (r = 0; r < reps; r++) {
		size_t k;

		t0 = now();
		k = stack_table_rank(t, &o, rows, 50, &sum);
		chars = format_rows(ks, rows, k, sum.delta);
		t0 = now() - t0;
		if (t0 < best)
			best = t0;
	}
	if (!chars)
		fprintf(stderr, "bench: nothing formatted?\n");
	printf("rank+format  the same, then the 50 rows' counts and 10 frames each formatted: "
	       "%.2f ms (%zu chars)\n",
	       best * 1e3, chars);
	/* the usual case: most stacks idle, 50,000 hit in the last interval */
	for (i = 0; i < n; i += 20) {
		for (j = 0; j < 10; j++)
			ips[j] = 0xffffffff81000000ull + i * 64 + (uint64_t)j;
		stack_table_hit(t, stack_table_intern(t, ips, 10), 0, 0, 1, 1 + (uint32_t)(i % 97));
	}
	stack_table_tick(t);
	best = 1e9;
	for (r = 0; r < reps; r++) {
		t0 = now();
		stack_table_rank(t, &o, rows, 50, NULL);
		t0 = now() - t0;
		if (t0 < best)
			best = t0;
	}
	printf("rank         top 50 of %zu stacks, %zu hit in the last interval: %.3f ms\n", n,
	       n / 20, best * 1e3);
	printf("memory       %.1f bytes per unique stack of 10 frames (%.1f + 8 per frame) "
	       "with one breakdown record each\n",
	       (double)mem / (double)n, (double)mem / (double)n - 80);
	stack_table_free(t);

	/* the stacks alone: interned, never hit (a map snapshot's stacks) */
	t = stack_table_new();
	for (i = 0; i < n; i++) {
		for (j = 0; j < 10; j++)
			ips[j] = 0xffffffff81000000ull + i * 64 + (uint64_t)j;
		stack_table_intern(t, ips, 10);
	}
	mem = stack_table_memory(t);
	printf("memory       %.1f bytes per unique stack of 10 frames (%.1f + 8 per frame) "
	       "for the stack alone (header, frames, hash slot)\n",
	       (double)mem / (double)n, (double)mem / (double)n - 80);
	stack_table_free(t);
	ksym_free(ks);
}

int main(int argc, char **argv)
{
	int scale = argc > 1 ? atoi(argv[1]) : 1;
	int rounds = scale > 0 ? 200 * scale : 2;
	uint64_t recs_ids, recs_full;
	uint8_t *ids = make_pages(false, &recs_ids);
	uint8_t *full = make_pages(true, &recs_full);
	struct evfmt fmt;
	double tm, ti, tg, tmf, tf;

	pagegen_init_fmt(&fmt);
	if (argc > 2) {
		if (!strcmp(argv[2], "ids"))
			printf("ids: %.3f s\n", bench_ingest(ids, rounds, true, &fmt));
		else if (!strcmp(argv[2], "full"))
			printf("full: %.3f s\n", bench_ingest(full, rounds, false, &fmt));
		else
			bench_rank(scale);
		free(ids);
		free(full);
		return 0;
	}
	tm = bench_memcpy(ids, rounds);
	ti = bench_ingest(ids, rounds, true, &fmt);
	tg = bench_generic(ids, rounds / 10 ? rounds / 10 : 1) * (rounds / 10 ? 10 : rounds);
	tmf = bench_memcpy(full, rounds);
	tf = bench_ingest(full, rounds, false, &fmt);

	printf("ingest-ids   %.1f M records/s (%.1f M stack ids/s); memcpy floor %.1f M records/s "
	       "(ratio %.1fx); libtraceevent kbuffer+tep_get_field_val %.1f M records/s "
	       "(stacktop %.1fx faster)\n",
	       (double)recs_ids * rounds / ti / 1e6, (double)recs_ids / 2 * rounds / ti / 1e6,
	       (double)recs_ids * rounds / tm / 1e6, ti / tm, (double)recs_ids * rounds / tg / 1e6,
	       tg / ti);
	printf("ingest-full  %.1f M stacks/s (depth 24, %.0f MB/s); memcpy floor ratio %.1fx\n",
	       (double)recs_full / 2 * rounds / tf / 1e6,
	       (double)NPAGES * PG_SIZE * rounds / tf / 1e6, tf / tmf);
	bench_rank(scale);
	free(ids);
	free(full);
	return 0;
}
