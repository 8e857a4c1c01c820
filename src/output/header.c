// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * header.c - see header.h: what a session's header says, read once from
 * the session, and the batch report's header printed from it.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/format.h"
#include "core/stack_table.h"
#include "core/rank.h"
#include "output/counters.h"
#include "output/header.h"
#include "output/losses.h"
#include "session/session.h"
#include "sym/usym.h"

int export_group_by_text(char *buf, size_t size, const uint8_t *keys)
{
	size_t n = 0;
	unsigned int i;

	if (size)
		buf[0] = '\0';
	for (i = 0; keys && i < SESSION_GROUP_KEYS && keys[i]; i++)
		n += (size_t)snprintf(n < size ? buf + n : NULL, n < size ? size - n : 0, "%s%s",
				      i ? "," : "", session_group_key_name(keys[i]));
	return (int)n;
}

void report_head_settings(struct report_head *h, struct session *s)
{
	h->user = session_user(s);
	h->unit = session_unit(s);
	h->weight_name = session_weight_name(s);
	session_group(s, &h->group_depth, &h->group_func);
	export_group_by_text(h->group_by, sizeof(h->group_by), session_group_by(s));
}

void report_head_fill(struct report_head *h, struct session *s)
{
	unsigned int i, n = session_norigins(s);

	free(h->origin);
	memset(h, 0, sizeof(*h));
	h->st = *session_stats(s);
	h->mode = session_mode_name(h->st.mode);
	h->traced = session_traced(s);
	h->nstacks = stack_table_count(session_table(s));
	report_head_settings(h, s);
	if (h->unit != UNIT_NONE)
		h->weight_total = stack_table_weights(session_table(s), &h->weight_delta);
	h->origin = n ? calloc(n, sizeof(*h->origin)) : NULL;
	if (h->origin) {
		for (i = 0; i < n; i++)
			h->origin[i] = session_origin(s, i);
		h->norigins = n;
	}
}

void report_head_done(struct report_head *h)
{
	free(h->origin);
	h->origin = NULL;
	h->norigins = 0;
}

/* dwarf: the perf rings, as --user-buffer set them or as they grew */
static void head_user_ring(FILE *f, const struct session_stats *st)
{
	char ring[16];

	if (!st->user_ring)
		return;
	fmt_bytes(ring, sizeof(ring), st->user_ring);
	fprintf(f, "; %u bytes of stack a sample, perf ring %s a CPU%s", st->user_stack, ring,
		!st->user_ring_auto   ? " (--user-buffer)"
		: st->user_ring_grown ? " (grown on losses)"
				      : "");
}

/* -u: how user stacks are taken, and (dwarf) how many events got none, why */
static void head_user_line(FILE *f, const struct session_stats *st)
{
	const struct ujoin_stats *j = &st->ujoin;
	uint64_t without = 0;
	int w;

	if (st->user == SESSION_USER_OFF)
		return;
	if (st->user == SESSION_USER_FP &&
	    (st->mode == SESSION_ONCPU || st->mode == SESSION_SAMPLED)) {
		fprintf(f,
			"user stacks: fp (perf's call chains, the kernel's frame-pointer walk)\n");
		return;
	}
	if (st->user == SESSION_USER_FP) {
		fprintf(f, "user stacks: fp (the kernel's frame-pointer walk, %d frames)%s%s\n",
			USYM_FP_FRAMES, st->user_note[0] ? "; " : "", st->user_note);
		return;
	}
	for (w = UJOIN_OK + 1; w < UJOIN_WHY_MAX; w++)
		without += j->why[w];
	if (st->mode == SESSION_ONCPU) {
		/* each sample unwound from its copy of the stack: no join */
		char text[320];

		export_user_text(text, sizeof(text), st);
		fprintf(f, "%s", text);
		head_user_ring(f, st);
		fputc('\n', f);
		return;
	}
	fprintf(f, "user stacks: dwarf");
	if (st->user_period > 1)
		fprintf(f, ", 1 event in %u sampled (--user-sample)", st->user_period);
	fprintf(f, "; %llu events with a user stack (%.1f%%), %llu without",
		(unsigned long long)j->why[UJOIN_OK],
		j->why[UJOIN_OK] + without
			? 100.0 * (double)j->why[UJOIN_OK] / (double)(j->why[UJOIN_OK] + without)
			: 0.0,
		(unsigned long long)without);
	if (without) {
		const char *sep = ": ";

		for (w = UJOIN_OK + 1; w < UJOIN_WHY_MAX; w++) {
			if (!j->why[w])
				continue;
			fprintf(f, "%s%llu %s", sep, (unsigned long long)j->why[w],
				ujoin_why_name((enum ujoin_why)w));
			sep = ", ";
		}
	}
	fprintf(f, "; perf samples %llu (%llu lost, %llu duplicates, %llu of events not counted)",
		(unsigned long long)j->samples, (unsigned long long)j->lost,
		(unsigned long long)j->dup_samples, (unsigned long long)j->orphan_samples);
	head_user_ring(f, st);
	fputc('\n', f);
}

/* "18:52:03": the time of day of @when, local */
static void head_clock(char *buf, size_t size, int64_t when)
{
	time_t t = (time_t)when;
	struct tm tm;

	if (!localtime_r(&t, &tm) || !strftime(buf, size, "%H:%M:%S", &tm))
		snprintf(buf, size, "%lld", (long long)when);
}

/* "52%" of @drops among the events, "-" with none */
static void head_share(char *buf, size_t size, uint64_t successes, uint64_t drops)
{
	double p = stackmap_fallback_pct(successes, drops);

	if (p < 0)
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%.0f%%", p);
}

/*
 * The map's pool (stackmap and passive modes): how full, how fast it fills
 * and when it will be full at that rate, since when it is full, what share
 * of the events falls back to full stacks, what the map saves before and
 * after; when it is full or will be within STACKMAP_WARN_SEC, a second
 * line says what to do.
 */
static void head_pool_lines(FILE *f, const struct session_stats *st)
{
	const struct stackmap_health *h = &st->health;
	char g[16], t[16] = "", clk[16], in[16], run[16];
	const char *room;
	double before = 0, after = 0;
	int split;

	if (!h->known || !st->have_map_stat)
		return;
	fputs("map pool: ", f);
	if (h->capacity)
		fprintf(f, "%llu of %llu entries (%.0f%%)", (unsigned long long)h->entries,
			(unsigned long long)h->capacity,
			100.0 * (double)h->entries / (double)h->capacity);
	else
		fprintf(f, "%llu entries (of a pool this kernel does not size)",
			(unsigned long long)h->entries);
	fmt_rate(g, sizeof(g), h->growth);
	if (h->full) {
		head_clock(clk, sizeof(clk), h->full_since);
		fmt_duration(t, sizeof(t), h->full_for);
		if (h->full_at_start)
			fprintf(f, "; FULL since stacktop started (%s, %s ago)", clk, t);
		else
			fprintf(f, "; FULL since %s (%s ago)", clk, t);
		if (h->growth_before > 0) {
			fmt_rate(g, sizeof(g), h->growth_before);
			fprintf(f, ", after growing %s/s", g);
		}
		if (h->fell_back) {
			fprintf(f, "; %llu stacks wanted in, %llu of them found no room",
				(unsigned long long)h->demand, (unsigned long long)h->fell_back);
			if (h->growth > 0) {
				fmt_rate(g, sizeof(g), h->growth);
				fprintf(f, " (+%s/s)", g);
			}
		}
	} else if (h->growth < 0) {
		fputs("; growth not measured yet", f);
	} else if (h->growth == 0 || !h->capacity) {
		fprintf(f, h->growth == 0 ? "; not growing" : "; growing %s/s", g);
	} else {
		fmt_duration(t, sizeof(t), h->eta);
		fprintf(f, "; %sgrowing %s/s: full in %s at this rate", h->warn ? "WARNING: " : "",
			g, t);
	}
	if (h->full || h->drops_run) {
		head_share(in, sizeof(in), h->successes_delta, h->drops_delta);
		head_share(run, sizeof(run), h->successes_run, h->drops_run);
		fprintf(f,
			"; events falling back to full stacks: %s in the interval (%llu drops), %s since start (%llu)",
			in, (unsigned long long)h->drops_delta, run,
			(unsigned long long)h->drops_run);
	}
	split = session_map_saves_split(st, &before, &after);
	if (split & 1)
		fprintf(f, "; map saves %.0f%% before it filled", before);
	if (split & 2)
		fprintf(f, "%s%.0f%% since", split & 1 ? ", " : "; map saves ", after);
	fputc('\n', f);
	if (!h->warn)
		return;
	fputs("map advice: ", f);
	if (h->full)
		fputs("the map is full: every new stack costs a full kernel_stack record in the ring buffer. ",
		      f);
	else
		fprintf(f, "at this rate the map is full in %s. ", t);
	if (st->mode == SESSION_PASSIVE)
		fputs("It belongs to the tool that records (r only rebases stacktop's counts): writing 0 to stack_map with tracing off empties it",
		      f);
	else
		fputs("r on the screen (--reset-first at start) empties it and restarts the counts",
		      f);
	if (!h->bits_advice) {
		fputs("\n", f);
		return;
	}
	room = h->settled ? "and a minute more at this rate"
			  : "twice over (the rate is not measured over 10 s yet)";
	if (h->advice_short)
		fprintf(f,
			"; even ftrace_stackmap.bits=%u (%llu entries, the kernel's maximum) would not hold the %llu stacks seen %s\n",
			h->bits_advice, 1ULL << h->bits_advice, (unsigned long long)h->demand,
			room);
	else
		fprintf(f,
			"; for room, boot with ftrace_stackmap.bits=%u (2^%u = %llu entries, against %llu now) to hold the %llu stacks seen %s\n",
			h->bits_advice, h->bits_advice, 1ULL << h->bits_advice,
			(unsigned long long)h->capacity, (unsigned long long)h->demand, room);
}

/* the lines of the batch header the counters are said in (CP_*, output/counters.c) */
enum { LINE_ALL, LINE_ANY, LINE_EACH };
static const struct {
	const char *head, *sep, *tail;
	unsigned char when; /* every counter; the line when one is not 0; a line for each not 0 */
	bool human;	    /* counts made short ("1.2k"), else in full */
} head_lines[] = {
	[CP_LOSS] = { "", " ", "", LINE_ALL, true },
	[CP_MAP] = { "; ", "; ", "\n", LINE_ALL, false },
	[CP_DAMAGED] = { "damaged data: ", ", ", "\n", LINE_ANY, false },
	[CP_OVER] = { "note: over --max-memory: ", ", ", "\n", LINE_ANY, false },
	[CP_NOTE] = { "", "", "\n", LINE_EACH, false },
	[CP_OFFCPU] = { "off-CPU pairing: ", ", ", "\n", LINE_ANY, false },
};

/* the counters of line @line, as the line's shape says */
static void head_line(FILE *f, const struct session_stats *st, unsigned int line)
{
	const struct counter_word *c[HC_N];
	unsigned int n = counter_words_at(line, c), i;
	bool any = head_lines[line].when == LINE_ALL, first = true;
	char words[512];

	for (i = 0; i < n && !any; i++)
		any = head_counter_value(st, &head_counters[c[i]->counter]) != 0;
	if (!any)
		return;
	for (i = 0; i < n; i++) {
		if (head_lines[line].when == LINE_EACH &&
		    !head_counter_value(st, &head_counters[c[i]->counter]))
			continue;
		counter_said(words, sizeof(words), st, c[i], head_lines[line].human);
		if (head_lines[line].when == LINE_EACH)
			fprintf(f, "%s%s", words, head_lines[line].tail);
		else
			fprintf(f, "%s%s", first ? head_lines[line].head : head_lines[line].sep,
				words);
		first = false;
	}
	if (head_lines[line].when != LINE_EACH)
		fputs(head_lines[line].tail, f);
}

bool report_lost_hint(const struct session_stats *st, char *buf, size_t size)
{
	unsigned int kb = st->buffer_kb, more = kb < (1u << 20) ? kb * 4 : 1u << 22;

	if (!st->lost || !kb)
		return false;
	if (st->mode == SESSION_STACKS)
		snprintf(buf, size,
			 "lost events: the ring buffer (%u KiB a CPU) filled before stacktop "
			 "read it; give it more room: --buffer-kb %u",
			 kb, more);
	else if (st->mode == SESSION_STACKMAP)
		snprintf(buf, size,
			 "lost events: the top level's ring buffer (%u KiB a CPU) filled before "
			 "stacktop read it; give it more room: buffer_size_kb (e.g. %u)",
			 kb, more);
	else
		return false;
	return true;
}

/* the first lines: who, what is traced, the origins, the hits and losses, user stacks */
static void head_first_lines(FILE *f, const struct report_head *h, int iteration)
{
	const struct session_stats *st = &h->st;
	double dt = st->interval_sec > 0 ? st->interval_sec : 1;
	char rate[16];

	fmt_rate(rate, sizeof(rate), (double)st->events_delta / dt);
	if (st->mode == SESSION_REPLAY)
		fprintf(f, "stacktop %s - mode replay - %s - %.2fs recorded\n", STACKTOP_VERSION,
			st->tracefs, st->interval_sec);
	else
		fprintf(f, "stacktop %s - mode %s - kernel %s - iteration %d - %.2fs\n",
			STACKTOP_VERSION, h->mode, st->kernel, iteration, st->interval_sec);
	/* the default is not CPU time: say what it is, and what is (-- CMD, issue 27) */
	if (!strcmp(h->traced, "sched:sched_switch (default)"))
		fprintf(f,
			"events: %s: context switches, where tasks block or yield (--oncpu "
			"counts CPU time)\n",
			h->traced);
	else
		fprintf(f, "events: %s\n", h->traced);
	if (h->norigins > 1) {
		unsigned int i;

		fprintf(f, "origins:");
		for (i = 0; i < h->norigins; i++)
			fprintf(f, "%s %s", i ? "," : "", h->origin[i]);
		fprintf(f, " (ORIGIN: the one with most hits, + when others have hits too)\n");
	}
	fprintf(f, "hits: %llu total, %llu in interval (%s/s); stacks: %zu unique; ",
		(unsigned long long)st->events, (unsigned long long)st->events_delta, rate,
		h->nstacks);
	head_line(f, st, CP_LOSS);
	fprintf(f, "; self cpu %.1f%%\n", st->self_cpu);
	head_user_line(f, st);
}

/* stackmap and passive modes: the map's counters and its pool */
static void head_map_lines(FILE *f, const struct session_stats *st)
{
	if (st->mode != SESSION_STACKMAP && st->mode != SESSION_PASSIVE)
		return;
	fprintf(f, "stack map: ");
	if (st->have_map_stat) {
		fprintf(f, "entries %llu", (unsigned long long)st->map.entries);
		if (st->map.capacity)
			fprintf(f, "/%llu", (unsigned long long)st->map.capacity);
		fprintf(f, ", %s %llu, drops %llu", st->map.v1_names ? "hits" : "successes",
			(unsigned long long)st->map.successes, (unsigned long long)st->map.drops);
		if (st->map.success_rate >= 0)
			fprintf(f, ", success rate %d%%", st->map.success_rate);
	} else {
		fprintf(f, "stat unavailable");
	}
	head_line(f, st, CP_MAP);
	head_pool_lines(f, st);
}

/* the ring buffer's cost, what replay could not resolve, damage */
static void head_data_lines(FILE *f, const struct report_head *h)
{
	const struct session_stats *st = &h->st;
	struct session_ringbuf rb;

	if (session_ringbuf_saving(st, &rb)) {
		if (st->mode == SESSION_STACKMAP)
			fprintf(f,
				"ring buffer: %.1f B per event read, %.1f B with full stacks: map saves %.0f%%\n",
				rb.read_per_event, rb.alt_per_event, rb.saving_pct);
		else
			fprintf(f,
				"ring buffer: %.1f B of stack per event, %.1f B as stack ids: stackmap would cut ring-buffer use by %.0f%%\n",
				rb.read_per_event, rb.alt_per_event, rb.saving_pct);
	}
	if (st->mode == SESSION_REPLAY && st->unresolved && !h->norigins)
		fprintf(f,
			"unresolved stack ids: %llu hits of ids no stack map resolves, one row per id (give --map with the stack_map_bin saved with the recording)\n",
			(unsigned long long)st->unresolved);
	head_line(f, st, CP_DAMAGED);
}

/* memory against --max-memory, and what the limit cost */
static void head_memory_lines(FILE *f, const struct report_head *h)
{
	const struct session_stats *st = &h->st;
	char mem[16], lim[16], rss[16], hint[200];

	fmt_bytes(mem, sizeof(mem), st->mem_bytes);
	fmt_bytes(lim, sizeof(lim), st->mem_limit);
	fmt_bytes(rss, sizeof(rss), st->mem_rss);
	if (h->user) {
		char us[16];

		fmt_bytes(us, sizeof(us), st->mem_usym);
		fprintf(f, "memory: %s of %s kept, user symbols %s", mem, lim, us);
		if (st->mem_unwind) {
			fmt_bytes(us, sizeof(us), st->mem_unwind);
			fprintf(f, ", unwind tables and maps %s", us);
		}
		fprintf(f, " (process %s)", rss);
	} else {
		fprintf(f, "memory: %s of %s kept (process %s)", mem, lim, rss);
	}
	if (st->mem_folded)
		fprintf(f, "; %llu records of exited processes folded into their command",
			(unsigned long long)st->mem_folded);
	fputc('\n', f);
	head_line(f, st, CP_OVER);
	head_line(f, st, CP_NOTE);
	if (report_lost_hint(st, hint, sizeof(hint)))
		fprintf(f, "note: %s\n", hint);
	if (st->overhead_target)
		fprintf(f,
			"overhead: --overhead %.1f%%: a stack costs ~%.2f us here (the kernel's "
			"unwinding, measured at start and scaled by depth, and stacktop's "
			"reading); 1 in %u sampled over the interval (by its hits; %u to %u), "
			"%u now, about %.1f%% of the CPUs\n",
			st->overhead_target / 1000.0, st->stack_cost_ns / 1000.0,
			st->overhead_n ? st->overhead_n : st->sample_period,
			st->overhead_n_min ? st->overhead_n_min : st->sample_period,
			st->overhead_n_max ? st->overhead_n_max : st->sample_period,
			st->sample_period, st->overhead_est / 1000.0);
	if (!st->tracing_on && st->mode != SESSION_PASSIVE && st->mode != SESSION_REPLAY &&
	    st->mode != SESSION_ONCPU && st->mode != SESSION_SAMPLED)
		fprintf(f, "note: tracing is off in %s\n", st->tracefs);
}

/* weighted sessions: the weight, in the view too; --offcpu: how the switches paired */
static void head_weight_lines(FILE *f, const struct report_head *h, const struct report_opts *o,
			      const struct rank_summary *sum)
{
	uint64_t wd = h->weight_delta, wt = h->weight_total;
	char a[16], b[16];

	if (h->unit == UNIT_NONE)
		return;
	fmt_weight(a, sizeof(a), wt, h->unit);
	fmt_weight(b, sizeof(b), wd, h->unit);
	fprintf(f, "weight: %s %s total, %s in interval", h->weight_name, a, b);
	/* a view filter (--comm, p, /) keeps part of it: say how much */
	if (o->rank.weight && (sum->total != wt || sum->delta != wd)) {
		fmt_weight(a, sizeof(a), sum->total, h->unit);
		fmt_weight(b, sizeof(b), sum->delta, h->unit);
		fprintf(f, "; shown stacks %s total, %s in interval", a, b);
	}
	fprintf(f, "%s\n", o->rank.weight ? "" : " (ranked by hits)");
	/* doc/design.md, "Off-CPU" */
	if (h->unit != UNIT_NS)
		return;
	if (h->st.offcpu_woken)
		fprintf(f,
			"off-CPU: %llu of %llu sleeps (%.1f%%) ended at the wakeup: the kernel "
			"recorded no switch-in for them (an idle CPU giving itself up is not "
			"traced), so their time leaves out the wait in the run queue\n",
			(unsigned long long)h->st.offcpu_woken,
			(unsigned long long)h->st.offcpu_sleeps,
			100.0 * (double)h->st.offcpu_woken /
				(double)(h->st.offcpu_sleeps ? h->st.offcpu_sleeps : 1));
	head_line(f, &h->st, CP_OFFCPU);
}

/* how the view is grouped, and what it is limited to (a snapshot read back brings its own) */
static void head_view_lines(FILE *f, const struct report_head *h, const struct report_opts *o,
			    const char *event)
{
	const char *sep = "";
	char clean[512];

	if (h->group_by[0])
		fprintf(f, "grouped by %s (--group-by)\n", h->group_by);
	if (h->group_depth || h->group_func) {
		fprintf(f, "grouped by ");
		if (h->group_depth)
			fprintf(f, "the first %u frame%s%s", h->group_depth,
				h->group_depth == 1 ? "" : "s", h->group_func ? ", " : "");
		fprintf(f, "%s\n", h->group_func ? "function" : "");
	}
	if (o->rank.event < 0 && o->rank.pid < 0 && o->rank.cpu < 0 && !o->rank.hide_idle &&
	    !o->filter && !o->comm)
		return;
	fputs("filters: ", f);
	if (o->rank.event >= 0) {
		fmt_sanitize(clean, sizeof(clean), event ? event : "?",
			     strlen(event ? event : "?"));
		fprintf(f, "event %s", clean);
		sep = ", ";
	}
	if (o->rank.pid >= 0) {
		fprintf(f, "%spid %d", sep, o->rank.pid);
		sep = ", ";
	}
	if (o->rank.cpu >= 0) {
		fprintf(f, "%scpu %d", sep, o->rank.cpu);
		sep = ", ";
	}
	if (o->rank.hide_idle) {
		fprintf(f, "%sidle stacks hidden", sep);
		sep = ", ";
	}
	if (o->comm) {
		fmt_sanitize(clean, sizeof(clean), o->comm, strlen(o->comm));
		fprintf(f, "%scomm \"%s\"", sep, clean);
		sep = ", ";
	}
	if (o->filter) {
		fmt_sanitize(clean, sizeof(clean), o->filter, strlen(o->filter));
		fprintf(f, "%stext \"%s\" (the screen's: the stacks written passed it)", sep,
			clean);
	}
	fputc('\n', f);
}

void report_head_print(FILE *f, const struct report_head *h, const struct report_opts *o,
		       int iteration, const struct rank_summary *sum, const char *event)
{
	head_first_lines(f, h, iteration);
	head_map_lines(f, &h->st);
	head_data_lines(f, h);
	head_memory_lines(f, h);
	head_weight_lines(f, h, o, sum);
	head_view_lines(f, h, o, event);
	fprintf(f, "showing %zu of %zu stacks, ranked by %s%s%s\n\n",
		sum->matched < (size_t)o->top ? sum->matched : (size_t)o->top, sum->matched,
		o->rank.key == RANK_DELTA   ? (o->rank.weight ? "weight" : "hits")
		: o->rank.key == RANK_TOTAL ? (o->rank.weight ? "total weight" : "total hits")
		: o->rank.key == RANK_DEPTH ? "depth"
					    : "kernel id",
		o->rank.key == RANK_DELTA ? " in the interval" : "",
		o->rank.invert ? " (ascending)" : "");
}
