// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * export.c - see export.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "brief.h"
#include "export.h"
#include "export_priv.h"
#include "format.h"
#include "ksym.h"
#include "session.h"
#include "stack_table.h"
#include "usym.h"

#define EXPORT_MAX_TOP 100000

int export_flush(FILE *f)
{
	errno = 0;
	if (fflush(f) == EOF || ferror(f))
		return errno ? -errno : -EIO;
	return 0;
}


/* -u: how user stacks are taken, and (dwarf) how many events got none, why */
static void export_user_line(FILE *f, const struct session_stats *st)
{
	const struct ujoin_stats *j = &st->ujoin;
	uint64_t without = 0;
	int w;

	if (st->user == SESSION_USER_OFF)
		return;
	if (st->user == SESSION_USER_FP) {
		fprintf(f, "user stacks: fp (the kernel's frame-pointer walk, %d frames)%s%s\n",
			USYM_FP_FRAMES, st->user_note[0] ? "; " : "", st->user_note);
		return;
	}
	for (w = UJOIN_OK + 1; w < UJOIN_WHY_MAX; w++)
		without += j->why[w];
	fprintf(f, "user stacks: dwarf; %llu events with a user stack, %llu without",
		(unsigned long long)j->why[UJOIN_OK], (unsigned long long)without);
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
	fprintf(f, "; perf samples %llu (%llu lost, %llu duplicates, %llu of events not counted)\n",
		(unsigned long long)j->samples, (unsigned long long)j->lost,
		(unsigned long long)j->dup_samples, (unsigned long long)j->orphan_samples);
}

static void report_header(FILE *f, struct session *s, const struct report_opts *o, int iteration,
			  const struct rank_summary *sum)
{
	const struct session_stats *st = session_stats(s);
	char rate[16], lost[16], lostd[16], ovr[16], drp[16];
	struct session_ringbuf rb;
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
	if (session_norigins(s) > 1) {
		unsigned int i;

		fprintf(f, "origins:");
		for (i = 0; i < session_norigins(s); i++)
			fprintf(f, "%s %s", i ? "," : "", session_origin(s, i));
		fprintf(f, " (ORIGIN: the one with most hits, + when others have hits too)\n");
	}
	fprintf(f,
		"hits: %llu total, %llu in interval (%s/s); stacks: %zu unique; lost: %s (+%s) overrun: %s dropped: %s; self cpu %.1f%%\n",
		(unsigned long long)st->events, (unsigned long long)st->events_delta, rate,
		stack_table_count(session_table(s)), lost, lostd, ovr, drp, st->self_cpu);
	export_user_line(f, st);
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
		fprintf(f, "; fallbacks %llu (+%llu); unresolved ids %llu; bad ids %llu; generation %u; option %s\n",
			(unsigned long long)st->fallbacks, (unsigned long long)st->fallbacks_delta,
			(unsigned long long)st->unresolved, (unsigned long long)st->bad_ids,
			st->generation, st->stackmap_on ? "on" : "off");
	}
	if (session_ringbuf_saving(st, &rb)) {
		if (st->mode == SESSION_STACKMAP)
			fprintf(f, "ring buffer: %.1f B per event read, %.1f B with full stacks: map saves %.0f%%\n",
				rb.read_per_event, rb.alt_per_event, rb.saving_pct);
		else
			fprintf(f, "ring buffer: %.1f B of stack per event, %.1f B as stack ids: stackmap would cut ring-buffer use by %.0f%%\n",
				rb.read_per_event, rb.alt_per_event, rb.saving_pct);
	}
	if (st->mode == SESSION_REPLAY && st->unresolved && !session_norigins(s))
		fprintf(f, "unresolved stack ids: %llu hits of ids no stack map resolves, one row per id (give --map with the stack_map_bin saved with the recording)\n",
			(unsigned long long)st->unresolved);
	if (st->bad_pages || st->orphans || st->damaged)
		fprintf(f, "damaged data: %llu malformed pages, %llu damaged records, %llu stack records with no event before them (not counted)\n",
			(unsigned long long)st->bad_pages, (unsigned long long)st->damaged,
			(unsigned long long)st->orphans);
	{
		char mem[16], lim[16], rss[16];

		fmt_bytes(mem, sizeof(mem), st->mem_bytes);
		fmt_bytes(lim, sizeof(lim), st->mem_limit);
		fmt_bytes(rss, sizeof(rss), st->mem_rss);
		if (session_user(s)) {
			char us[16];

			fmt_bytes(us, sizeof(us), st->mem_usym);
			fprintf(f, "memory: %s of %s kept, user symbols %s", mem, lim, us);
			if (st->mem_unwind) {
				fmt_bytes(us, sizeof(us), st->mem_unwind);
				fprintf(f, ", unwind tables %s", us);
			}
			fprintf(f, " (process %s)", rss);
		} else {
			fprintf(f, "memory: %s of %s kept (process %s)", mem, lim, rss);
		}
		if (st->mem_folded)
			fprintf(f, "; %llu records of exited processes folded into their command",
				(unsigned long long)st->mem_folded);
		fputc('\n', f);
		if (st->mem_over_stacks || st->mem_over_hits)
			fprintf(f, "note: over --max-memory: %llu new stacks not kept, %llu hits counted without their stack or process\n",
				(unsigned long long)st->mem_over_stacks,
				(unsigned long long)st->mem_over_hits);
		if (st->mem_usym_refused)
			fprintf(f,
				"note: over --max-memory: %llu user frames not kept (the symbolizer's quarter is full; stacks end in the cut mark)\n",
				(unsigned long long)st->mem_usym_refused);
		if (st->usym_files_big)
			fprintf(f,
				"note: over --max-memory: the symbols of %llu files not loaded (larger than the symbolizer's quarter; their frames show the file offset)\n",
				(unsigned long long)st->usym_files_big);
		if (st->usym_files_refused)
			fprintf(f,
				"note: %llu mapped files not read (not a regular file, or on a FUSE mount; their frames show the file offset)\n",
				(unsigned long long)st->usym_files_refused);
	}
	if (st->drains_cut)
		fprintf(f, "note: reading fell behind the kernel (%llu reads ended on their time budget with data left; what the kernel overwrote is in lost/overrun)\n",
			(unsigned long long)st->drains_cut);
	if (!st->tracing_on && st->mode != SESSION_PASSIVE && st->mode != SESSION_REPLAY)
		fprintf(f, "note: tracing is off in %s\n", st->tracefs);
	if (session_unit(s) != UNIT_NONE) {
		uint64_t wd, wt = stack_table_weights(session_table(s), &wd);
		char a[16], b[16];

		fmt_weight(a, sizeof(a), wt, session_unit(s));
		fmt_weight(b, sizeof(b), wd, session_unit(s));
		fprintf(f, "weight: %s %s total, %s in interval", session_weight_name(s), a, b);
		/* a view filter (--comm, p, /) keeps part of it: say how much */
		if (o->rank.weight && (sum->total != wt || sum->delta != wd)) {
			fmt_weight(a, sizeof(a), sum->total, session_unit(s));
			fmt_weight(b, sizeof(b), sum->delta, session_unit(s));
			fprintf(f, "; shown stacks %s total, %s in interval", a, b);
		}
		fprintf(f, "%s\n", o->rank.weight ? "" : " (ranked by hits)");
		/* --offcpu: how the switches paired (doc/design.md, "Off-CPU") */
		if (session_unit(s) == UNIT_NS &&
		    (st->offcpu_woken || st->offcpu_unpaired || st->offcpu_dropped))
			fprintf(f, "off-CPU pairing: %llu times ended at the wakeup (no switch-in recorded), %llu switch-outs with neither (not counted), %llu not followed\n",
				(unsigned long long)st->offcpu_woken,
				(unsigned long long)st->offcpu_unpaired,
				(unsigned long long)st->offcpu_dropped);
	}
	{
		unsigned int depth;
		bool func;

		session_group(s, &depth, &func);
		if (depth || func) {
			fprintf(f, "grouped by ");
			if (depth)
				fprintf(f, "the first %u frame%s%s", depth, depth == 1 ? "" : "s",
					func ? ", " : "");
			fprintf(f, "%s\n", func ? "function" : "");
		}
	}
	/* what the view is limited to (a snapshot read back brings its own) */
	if (o->rank.event >= 0 || o->rank.pid >= 0 || o->rank.cpu >= 0 || o->rank.hide_idle ||
	    o->filter || o->comm) {
		const char *sep = "";
		char clean[512];

		fputs("filters: ", f);
		if (o->rank.event >= 0) {
			fmt_sanitize(clean, sizeof(clean), session_event(s, (unsigned int)o->rank.event),
				     strlen(session_event(s, (unsigned int)o->rank.event)));
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
	fprintf(f, "showing %zu of %zu stacks, ranked by %s%s%s\n\n",
		sum->matched < (size_t)o->top ? sum->matched : (size_t)o->top, sum->matched,
		o->rank.key == RANK_DELTA   ? (o->rank.weight ? "weight" : "hits") :
		o->rank.key == RANK_TOTAL ? (o->rank.weight ? "total weight" : "total hits")
		: o->rank.key == RANK_DEPTH ? "depth"
					    : "kernel id",
		o->rank.key == RANK_DELTA ? " in the interval" : "",
		o->rank.invert ? " (ascending)" : "");
}


/*
 * Off-CPU: the threads of one stack, each with its time off the CPU as a
 * share of its wall time (the interval; totals: since start)
 */
/*
 * An expanded stack's amount: the exact number, and in its unit when the
 * weight has one ("1.03s (1027825954ns)"), so neither a reader nor a
 * script has to guess what a bare 1027825954 counts.
 */
static void expand_amount(char *buf, size_t size, uint64_t v, int unit)
{
	char h[16];

	if (unit != UNIT_NS && unit != UNIT_BYTES) {
		snprintf(buf, size, "%llu", (unsigned long long)v);
		return;
	}
	fmt_weight(h, sizeof(h), v, unit);
	snprintf(buf, size, "%s (%llu%s)", h, (unsigned long long)v, unit == UNIT_NS ? "ns" : "B");
}

static void report_wall(FILE *f, struct session *s, const struct report_opts *o,
			const struct stack *sk, double dt)
{
	struct stack_table *t = session_table(s);
	const struct stack_attr *a;
	int pids[8], n = 0, i;
	uint64_t ns[8], rq[8];
	bool split = false;

	for (a = sk->attrs; a; a = a->next) {
		uint64_t d, w = export_attr_total(t, &o->rank, a, &d);
		bool runq = !strcmp(session_event(s, a->event), "offcpu:runqueue");

		if (o->delta)
			w = d;
		if (!w || !export_attr_passes(&o->rank, a))
			continue;
		for (i = 0; i < n && pids[i] != a->pid; i++)
			;
		if (i == n) {
			if (n == 8)
				continue;
			pids[n] = a->pid;
			rq[n] = 0;
			ns[n++] = 0;
		}
		ns[i] += w;
		if (runq) {
			rq[i] += w; /* --offcpu=wait: the part spent runnable */
			split = true;
		}
	}
	for (i = 0; i < n; i++) {
		char tm[16], pct[16], comm[24], bl[16], q[16], parts[64] = "";

		fmt_weight(tm, sizeof(tm), ns[i], UNIT_NS);
		fmt_fit(comm, sizeof(comm), session_comm(s, pids[i]), 15);
		if (split) {
			fmt_weight(bl, sizeof(bl), ns[i] - rq[i], UNIT_NS);
			fmt_weight(q, sizeof(q), rq[i], UNIT_NS);
			snprintf(parts, sizeof(parts), " (blocked %s, run queue %s)", bl, q);
		}
		if (o->delta) {
			fmt_percent(pct, sizeof(pct), ns[i], (uint64_t)(dt * 1e9));
			fprintf(f, "      off-CPU %s/%d: %s%s, %s%% of the interval\n", comm, pids[i],
				tm, parts, pct);
		} else {
			fprintf(f, "      off-CPU %s/%d: %s%s\n", comm, pids[i], tm, parts);
		}
	}
}

int export_report(FILE *f, struct session *s, const struct report_opts *o, int iteration)
{
	struct stack_table *t = session_table(s);
	struct ksym *ks = session_ksym(s);
	const struct session_stats *st = session_stats(s);
	struct rank_summary sum;
	struct rank_row *rows;
	unsigned int common;
	size_t n, i;
	int top = o->top > 0 ? (o->top < EXPORT_MAX_TOP ? o->top : EXPORT_MAX_TOP) : 20;
	double dt = st->interval_sec > 0 ? st->interval_sec : 1;
	int unit = o->rank.weight ? (int)session_unit(s) : UNIT_NONE;
	bool origins = session_norigins(s) > 1;

	rows = calloc((size_t)top, sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	n = stack_table_rank(t, &o->rank, rows, (size_t)top, &sum);
	report_header(f, s, o, iteration, &sum);
	/* leaf frames every row shares are said once, the rows start after them */
	common = brief_common(ks, rows, n);
	if (common) {
		char shared[512];

		brief_common_format(shared, sizeof(shared), ks, rows[0].stack, common);
		fprintf(f, "every stack below starts with: %s (left out as \"...\")\n", shared);
	}
	fprintf(f, "%4s %-11s %7s %8s %6s %7s %-24s %-22s ", "RANK", "IDS",
		!o->rank.weight ? "HITS" : session_unit(s) == UNIT_NS ? "TIME" : "WEIGHT", "TOTAL",
		"%", o->rank.weight ? "PER s" : "RATE/s", "EVENT", "COMM/PID");
	if (origins)
		fprintf(f, "%-16s ", "ORIGIN");
	fprintf(f, "%s\n", "STACK (leaf < callers)");
	for (i = 0; i < n; i++) {
		const struct stack *sk = rows[i].stack;
		struct stack_top top_of;
		char ids[32], hits[16], total[16], pct[16], rate[16], leaf[256], who[64], comm[24];

		/* who hits it most by the count the table ranks, under the filters */
		stack_top_of(t, sk, o->delta, &o->rank, &top_of);
		if (top_of.pid < 0 && o->delta)
			stack_top_of(t, sk, false, &o->rank, &top_of);
		fmt_ids(ids, sizeof(ids), sk->ids, sk->nids, !!(sk->flags & STACK_F_MOREIDS));
		fmt_weight(hits, sizeof(hits), rows[i].delta, unit);
		fmt_weight(total, sizeof(total), rows[i].total, unit);
		fmt_percent(pct, sizeof(pct), o->delta ? rows[i].delta : rows[i].total,
			    o->delta ? sum.delta : sum.total);
		if (unit != UNIT_NONE)
			fmt_weight(rate, sizeof(rate), (uint64_t)((double)rows[i].delta / dt), unit);
		else
			fmt_rate(rate, sizeof(rate), (double)rows[i].delta / dt);
		brief_format_after(leaf, sizeof(leaf), ks, sk, common, 3, 1);
		if (top_of.pid >= 0) {
			char more[24] = "";
			int room;

			/* "dd/123 +4": four more pids hit this stack */
			if (top_of.npids > 1)
				snprintf(more, sizeof(more), " +%u", top_of.npids - 1);
			room = 22 - (int)strlen(more) - snprintf(NULL, 0, "/%d", top_of.pid);
			fmt_fit(comm, sizeof(comm), session_comm(s, top_of.pid),
				room < 6 ? 6 : room > 15 ? 15 : room);
			snprintf(who, sizeof(who), "%s/%d%s", comm, top_of.pid, more);
		} else if (top_of.pid < -1) {
			/* exited processes folded into their command */
			fmt_fit(comm, sizeof(comm), session_comm(s, top_of.pid), 15);
			snprintf(who, sizeof(who), "%s/-", comm);
		} else {
			snprintf(who, sizeof(who), "-");
		}
		fprintf(f, "%4zu %-11s %7s %8s %6s %7s %-24s %-22s ", i + 1, ids, hits, total,
			pct, rate, top_of.event >= 0 ? session_event(s, (unsigned int)top_of.event) : "-",
			who);
		if (origins) {
			char org[40];
			bool more;
			int og = export_top_origin(s, sk, &o->rank, o->delta, &more);

			snprintf(org, sizeof(org), "%s%s", og >= 0 ? session_origin(s, (unsigned int)og) : "-",
				 more ? "+" : "");
			fprintf(f, "%-16s ", org);
		}
		fprintf(f, "%s%s\n", leaf, sk->flags & STACK_F_FALLBACK ? " (full stack)" : "");
	}
	if (!n)
		fprintf(f, "  (no stacks yet%s)\n",
			sum.matched ? "" : ": no event with a stack has been recorded");
	for (i = 0; i < n && (int)i < o->expand; i++) {
		const struct stack *sk = rows[i].stack;
		char ids[32], dv[48], tv[48];
		unsigned int j;

		fmt_ids(ids, sizeof(ids), sk->ids, sk->nids, !!(sk->flags & STACK_F_MOREIDS));
		expand_amount(dv, sizeof(dv), rows[i].delta, unit);
		expand_amount(tv, sizeof(tv), rows[i].total, unit);
		fprintf(f, "\n#%zu  %s %s  total %s  depth %u  ids %s%s%s%s\n", i + 1,
			o->rank.weight ? session_weight_name(s) : "hits", dv, tv, sk->depth, ids, sk->flags & STACK_F_FALLBACK ? "  [full kernel_stack]" : "",
			sk->flags & STACK_F_MERGED64 ? "  [64 frames: may merge deeper stacks]" : "",
			sk->flags & STACK_F_CUT ? "  [cut]" : "");
		for (j = 0; j < sk->depth; j++) {
			char fr[320];

			fmt_frame(fr, sizeof(fr), ks, sk->ips[j]);
			fprintf(f, "    %s\n", fr);
		}
		if (unit == UNIT_NS)
			report_wall(f, s, o, sk, dt);
	}
	fputc('\n', f);
	free(rows);
	return export_flush(f);
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

/* one root of a folded stack: a command (and pid) and its hits */
struct folded_root {
	char comm[64];
	int pid;
	uint64_t n;
};

static int root_cmp(const void *pa, const void *pb)
{
	const struct folded_root *a = pa, *b = pb;
	int r = strcmp(a->comm, b->comm);

	if (r)
		return r;
	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

/* folded frames must not carry the separators ';' and ' ' */
static void folded_clean(char *p)
{
	for (; *p; p++)
		if (*p == ';' || *p == ' ')
			*p = '_';
}

/*
 * root first: user frames (no suffix) then kernel frames (`_[k]`), down to
 * the first frame after the tracing machinery (brief_skip(): the screen
 * leaves it out too, and it varies with who else traces the event)
 */
static void folded_frames(FILE *f, struct ksym *ks, const struct stack *sk, bool first)
{
	int j, skip = (int)brief_skip(ks, sk);

	for (j = sk->depth - 1; j >= skip; j--) {
		bool user = usym_is_user(sk->ips[j]);
		char fn[256];

		if (usym_is_sep(sk->ips[j]))
			continue;
		fmt_func(fn, sizeof(fn), ks, sk->ips[j], 0);
		folded_clean(fn);
		fprintf(f, "%s%s%s", first ? "" : ";", fn, user ? "" : "_[k]");
		first = false;
	}
}

/* the roots of @sk under @o, merged by command (and pid); returns how many */
static int folded_roots(struct session *s, const struct stack *sk, const struct report_opts *o,
			struct folded_root **buf, size_t *cap)
{
	struct stack_table *t = session_table(s);
	const struct stack_attr *a;
	size_t n = 0, i, m;

	for (a = sk->attrs; a; a = a->next) {
		uint64_t d, c = export_attr_total(t, &o->rank, a, &d);

		if (o->delta)
			c = d;
		if (!c || !export_attr_passes(&o->rank, a))
			continue;
		if (n == *cap) {
			size_t nc = *cap ? *cap * 2 : 16;
			struct folded_root *nb = realloc(*buf, nc * sizeof(*nb));

			if (!nb)
				return -ENOMEM;
			*buf = nb;
			*cap = nc;
		}
		if (a->pid == -1)
			snprintf((*buf)[n].comm, sizeof((*buf)[n].comm), "[unknown]");
		else
			snprintf((*buf)[n].comm, sizeof((*buf)[n].comm), "%s",
				 session_comm(s, a->pid));
		folded_clean((*buf)[n].comm);
		(*buf)[n].pid = o->root == EXPORT_ROOT_PID ? a->pid : 0;
		(*buf)[n].n = c;
		n++;
	}
	if (!n)
		return 0;
	qsort(*buf, n, sizeof(**buf), root_cmp);
	for (i = 1, m = 0; i < n; i++) {
		if (!root_cmp(&(*buf)[i], &(*buf)[m]))
			(*buf)[m].n += (*buf)[i].n;
		else
			(*buf)[++m] = (*buf)[i];
	}
	return (int)(m + 1);
}

int export_folded_root(FILE *f, struct session *s, const struct report_opts *o)
{
	struct ksym *ks = session_ksym(s);
	struct folded_root *roots = NULL;
	struct rank_summary sum;
	struct rank_row *rows;
	size_t n, i, cap = 0;
	int lines = 0, r;

	r = export_rows(s, &o->rank, SIZE_MAX, &rows, &n, &sum);
	if (r < 0)
		return r;
	for (i = 0; i < n && r >= 0; i++) {
		const struct stack *sk = rows[i].stack;
		uint64_t c = o->delta ? rows[i].delta : rows[i].total;
		int nr, k;

		if (!c)
			continue;
		if (o->root == EXPORT_ROOT_NONE) {
			folded_frames(f, ks, sk, true);
			fprintf(f, "%s%" PRIu64 "\n", sk->depth ? " " : "[empty] ", c);
			lines++;
			continue;
		}
		nr = folded_roots(s, sk, o, &roots, &cap);
		if (nr < 0) {
			r = nr;
			break;
		}
		for (k = 0; k < nr; k++) {
			fputs(roots[k].comm, f);
			if (o->root == EXPORT_ROOT_PID && roots[k].pid >= 0)
				fprintf(f, ";%d", roots[k].pid);
			folded_frames(f, ks, sk, false);
			fprintf(f, " %" PRIu64 "\n", roots[k].n);
			lines++;
		}
		if (ferror(f))
			r = -EIO;
	}
	free(roots);
	free(rows);
	if (r < 0)
		return r;
	r = export_flush(f);
	return r < 0 ? r : lines;
}

int export_folded(FILE *f, struct session *s, const struct rank_opts *rank, bool delta)
{
	struct report_opts o = { .delta = delta, .root = EXPORT_ROOT_NONE };

	if (rank)
		o.rank = *rank;
	else
		o.rank = (struct rank_opts){ .key = RANK_TOTAL, .event = -1, .pid = -1, .cpu = -1 };
	return export_folded_root(f, s, &o);
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

static const char *const rank_key_names[] = {
	[RANK_DELTA] = "hits", [RANK_TOTAL] = "total", [RANK_DEPTH] = "depth", [RANK_ID] = "id",
	[RANK_EVENT] = "event", [RANK_COMM] = "comm",
};

/* the ring-buffer byte counters and what the stack map saves (issue 13) */
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
		fprintf(f, ",\"with_stack\":%llu,\"no_sample\":%llu,\"sample_lost\":%llu,"
			"\"unwind_failed\":%llu,\"no_maps\":%llu,\"samples\":%llu,"
			"\"samples_lost\":%llu,\"duplicates\":%llu,\"unclaimed\":%llu,"
			"\"overflow\":%llu",
			(unsigned long long)j->why[UJOIN_OK],
			(unsigned long long)j->why[UJOIN_NO_SAMPLE],
			(unsigned long long)j->why[UJOIN_SAMPLE_LOST],
			(unsigned long long)j->why[UJOIN_UNWIND_FAILED],
			(unsigned long long)j->why[UJOIN_NO_MAPS],
			(unsigned long long)j->samples, (unsigned long long)j->lost,
			(unsigned long long)j->dup_samples, (unsigned long long)j->orphan_samples,
			(unsigned long long)j->overflow);
	fputc('}', f);
}

static void json_ringbuf(FILE *f, const struct session_stats *st)
{
	struct session_ringbuf rb;

	fprintf(f, ",\"ringbuf\":{\"bytes\":%llu,\"sized_records\":%llu,\"sized_bytes\":%llu,"
		"\"alt_bytes\":%llu",
		(unsigned long long)st->rb_bytes, (unsigned long long)st->sized_records,
		(unsigned long long)st->sized_bytes, (unsigned long long)st->alt_bytes);
	if (session_ringbuf_saving(st, &rb))
		fprintf(f, ",\"bytes_per_event\":%.2f,\"alt_per_event\":%.2f,\"%s\":%.2f",
			rb.read_per_event, rb.alt_per_event,
			st->mode == SESSION_STACKMAP ? "map_saves_pct" : "map_would_save_pct",
			rb.saving_pct);
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
	fprintf(f,
		",\"hits\":%llu,\"hits_delta\":%llu,\"unique\":%zu,\"matched\":%zu,"
		"\"matched_total\":%llu,\"matched_delta\":%llu,"
		"\"lost\":%llu,\"overrun\":%llu,\"dropped\":%llu,\"orphans\":%llu,"
		"\"bad_pages\":%llu,\"damaged\":%llu,\"fallbacks\":%llu,\"unresolved\":%llu,\"bad_ids\":%llu,"
		"\"generation\":%u,\"tracing_on\":%s,\"stackmap_on\":%s,\"drains_cut\":%llu",
		(unsigned long long)st->events, (unsigned long long)st->events_delta,
		stack_table_count(session_table(s)), sum->matched,
		(unsigned long long)sum->total, (unsigned long long)sum->delta,
		(unsigned long long)st->lost,
		(unsigned long long)st->overrun, (unsigned long long)st->dropped,
		(unsigned long long)st->orphans, (unsigned long long)st->bad_pages,
		(unsigned long long)st->damaged, (unsigned long long)st->fallbacks, (unsigned long long)st->unresolved,
		(unsigned long long)st->bad_ids, st->generation, st->tracing_on ? "true" : "false",
		st->stackmap_on ? "true" : "false", (unsigned long long)st->drains_cut);
	fprintf(f,
		",\"memory\":{\"bytes\":%llu,\"limit\":%llu,\"rss\":%llu,\"folded\":%llu,"
		"\"over_stacks\":%llu,\"over_hits\":%llu,\"usym\":%llu,\"usym_refused\":%llu,"
		"\"unwind\":%llu,\"usym_files_refused\":%llu,\"usym_files_big\":%llu}",
		(unsigned long long)st->mem_bytes, (unsigned long long)st->mem_limit,
		(unsigned long long)st->mem_rss, (unsigned long long)st->mem_folded,
		(unsigned long long)st->mem_over_stacks, (unsigned long long)st->mem_over_hits,
		(unsigned long long)st->mem_usym, (unsigned long long)st->mem_usym_refused,
		(unsigned long long)st->mem_unwind, (unsigned long long)st->usym_files_refused,
		(unsigned long long)st->usym_files_big);
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
		if (!strcmp(session_weight_name(s), "off-CPU"))
			fprintf(f, ",\"ended_at_wakeup\":%llu,\"unpaired\":%llu,\"dropped\":%llu",
				(unsigned long long)st->offcpu_woken,
				(unsigned long long)st->offcpu_unpaired,
				(unsigned long long)st->offcpu_dropped);
		fputc('}', f);
	}
	{
		unsigned int depth;
		bool func;

		session_group(s, &depth, &func);
		if (depth || func)
			fprintf(f, ",\"group\":{\"depth\":%u,\"function\":%s}", depth,
				func ? "true" : "false");
	}
	if (st->have_map_stat)
		fprintf(f,
			",\"map\":{\"entries\":%llu,\"capacity\":%llu,\"table_size\":%llu,"
			"\"successes\":%llu,\"drops\":%llu,\"success_rate\":%d}",
			(unsigned long long)st->map.entries, (unsigned long long)st->map.capacity,
			(unsigned long long)st->map.table_size,
			(unsigned long long)st->map.successes, (unsigned long long)st->map.drops,
			st->map.success_rate);
}

/* the user part of a stack: its process, frames and whether it was cut */
static void json_user(FILE *f, struct ksym *ks, const struct stack *sk, unsigned int kd)
{
	struct usym *u = ksym_usym(ks);
	bool cut = false, any = false;
	unsigned int j;

	fprintf(f, ",\"tgid\":%u,\"user_frames\":[", (unsigned int)(sk->ips[kd] & 0xffffffffu));
	for (j = kd + 1; j < sk->depth; j++) {
		uint64_t addr = 0;
		uint32_t tgid;
		char fr[320];

		if (sk->ips[j] == USYM_CUT) {
			cut = true;
			continue;
		}
		if (u)
			usym_lookup(u, sk->ips[j], &tgid, &addr);
		fmt_frame(fr, sizeof(fr), ks, sk->ips[j]);
		fprintf(f, "%s{\"addr\":\"0x%llx\",\"symbol\":", any ? "," : "",
			(unsigned long long)addr);
		export_json_str(f, fr);
		fputc('}', f);
		any = true;
	}
	fprintf(f, "],\"user_cut\":%s", cut ? "true" : "false");
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
	bool any = false;

	fprintf(f, "%s{\"key\":\"%016" PRIx64 "\",\"total\":%llu,\"delta\":%llu,",
		first ? "" : ",", key, (unsigned long long)row->total,
		(unsigned long long)row->delta);
	if (stack_table_weighted(t)) {
		uint64_t wd, wt = stack_weight(t, sk, &wd);

		fprintf(f, "\"hits\":%llu,\"hits_delta\":%llu,\"weight\":%llu,\"weight_delta\":%llu,",
			(unsigned long long)sk->total,
			(unsigned long long)stack_delta(t, sk), (unsigned long long)wt,
			(unsigned long long)wd);
	}
	fprintf(f, "\"depth\":%u,\"ids\":[", kd);
	for (j = 0; j < sk->nids; j++)
		fprintf(f, "%s%u", j ? "," : "", sk->ids[j]);
	fprintf(f, "],%s\"more_ids\":%s,\"fallback\":%s,\"mapped\":%s,\"merged64\":%s,"
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
	/* the top pid by the view's count, and how many pids hit the stack */
	stack_top_of(t, sk, o->delta, &o->rank, &top_of);
	if (top_of.pid < 0 && o->delta)
		stack_top_of(t, sk, false, &o->rank, &top_of);
	fprintf(f, "]");
	if (kd < sk->depth)
		json_user(f, ks, sk, kd);
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
	size_t limit = o->top > 0 ? (size_t)o->top : SIZE_MAX;
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

FILE *export_create_file(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
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

static const char *const format_names[] = {
	[EXPORT_TEXT] = "text",		  [EXPORT_JSON] = "json",
	[EXPORT_FOLDED] = "folded",	  [EXPORT_PPROF] = "pprof",
	[EXPORT_SPEEDSCOPE] = "speedscope",
};

int export_format_parse(const char *name)
{
	int i;

	for (i = 0; i < EXPORT_FORMAT_MAX; i++)
		if (!strcmp(name, format_names[i]))
			return i;
	return -EINVAL;
}

const char *export_format_name(enum export_format fmt)
{
	return (unsigned int)fmt < EXPORT_FORMAT_MAX ? format_names[fmt] : "?";
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a > b && !strcasecmp(s + a - b, suffix);
}

int export_format_guess(const char *path)
{
	static const struct {
		const char *suffix;
		enum export_format fmt;
	} map[] = {
		/* longest first: ".speedscope.json" before ".json" */
		{ ".speedscope.json", EXPORT_SPEEDSCOPE },
		{ ".speedscope", EXPORT_SPEEDSCOPE },
		{ ".json", EXPORT_JSON },
		{ ".pb.gz", EXPORT_PPROF },
		{ ".pprof", EXPORT_PPROF },
		{ ".pb", EXPORT_PPROF },
		{ ".folded", EXPORT_FOLDED },
		{ ".collapsed", EXPORT_FOLDED },
		{ ".txt", EXPORT_TEXT },
	};
	const char *base = strrchr(path, '/');
	size_t i;

	base = base ? base + 1 : path;
	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (ends_with(base, map[i].suffix))
			return map[i].fmt;
	return -EINVAL;
}

int export_write(FILE *f, struct session *s, const struct report_opts *o, enum export_format fmt,
		 int iteration)
{
	switch (fmt) {
	case EXPORT_TEXT:
		return export_report(f, s, o, iteration);
	case EXPORT_JSON:
		return export_json(f, s, o, iteration);
	case EXPORT_FOLDED:
		return export_folded_root(f, s, o);
	case EXPORT_PPROF:
		return export_pprof(f, s, o);
	case EXPORT_SPEEDSCOPE:
		return export_speedscope(f, s, o);
	default:
		return -EINVAL;
	}
}

static int file_err(char *err, size_t errsz, int r, const char *path, const char *dir,
		    const char *what)
{
	char p[PATH_MAX], d[PATH_MAX];

	if (!err || !errsz)
		return r;
	fmt_sanitize(p, sizeof(p), path, strlen(path));
	fmt_sanitize(d, sizeof(d), dir, strlen(dir));
	switch (-r) {
	case ELOOP:
		snprintf(err, errsz, "%s is a symbolic link: not writing through it", p);
		break;
	case EISDIR:
		snprintf(err, errsz, "%s is a directory", p);
		break;
	case EROFS:
		snprintf(err, errsz, "cannot write %s: %s is on a read-only file system", p, d);
		break;
	case ENOSPC:
		snprintf(err, errsz, "cannot write %s: no space left in %s (nothing written)", p, d);
		break;
	case EDQUOT:
		snprintf(err, errsz, "cannot write %s: disk quota exceeded in %s (nothing written)",
			 p, d);
		break;
	case EACCES:
	case EPERM:
		snprintf(err, errsz, "cannot write %s: no permission to create files in %s", p, d);
		break;
	case ENOENT:
	case ENOTDIR:
		snprintf(err, errsz, "cannot write %s: no such directory %s", p, d);
		break;
	default:
		snprintf(err, errsz, "cannot %s %s: %s", what, p, strerror(-r));
		break;
	}
	return r;
}

/* a fresh temporary name next to @path: "<dir>/.<base>.<random>.tmp" */
static int temp_name(char *buf, size_t size, const char *dir, const char *base)
{
	uint32_t rnd;
	int n;

	if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != sizeof(rnd))
		rnd = (uint32_t)getpid() ^ (uint32_t)time(NULL) ^ (uint32_t)(uintptr_t)buf;
	n = snprintf(buf, size, "%s/.%s.%08x.tmp", dir, base, rnd);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int export_write_file(struct session *s, const struct report_opts *o, enum export_format fmt,
		      int iteration, const char *path, char *err, size_t errsz)
{
	char dir[PATH_MAX], tmp[PATH_MAX + 32];
	const char *slash, *base;
	struct stat sb;
	FILE *f = NULL;
	int r, w, tries, dfd;

	if (err && errsz)
		err[0] = '\0';
	slash = strrchr(path, '/');
	base = slash ? slash + 1 : path;
	if (!*base)
		return file_err(err, errsz, -EISDIR, path, path, "write");
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else if ((size_t)(slash - path) >= sizeof(dir))
		return file_err(err, errsz, -ENAMETOOLONG, path, path, "write");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);

	/* the target: absent, or a regular file (never a symlink we would replace) */
	if (lstat(path, &sb) == 0) {
		if (S_ISLNK(sb.st_mode))
			return file_err(err, errsz, -ELOOP, path, dir, "write");
		if (S_ISDIR(sb.st_mode))
			return file_err(err, errsz, -EISDIR, path, dir, "write");
		if (!S_ISREG(sb.st_mode)) {
			if (err && errsz)
				snprintf(err, errsz, "%s exists and is not a regular file", base);
			return -EINVAL;
		}
	} else if (errno != ENOENT) {
		return file_err(err, errsz, -errno, path, dir, "write");
	}

	for (tries = 0; tries < 64; tries++) {
		r = temp_name(tmp, sizeof(tmp), dir, base);
		if (r < 0)
			return file_err(err, errsz, r, path, dir, "write");
		f = export_create_file(tmp);
		if (f || errno != EEXIST)
			break;
	}
	if (!f)
		return file_err(err, errsz, -errno, path, dir, "create");

	w = export_write(f, s, o, fmt, iteration);
	r = w < 0 ? w : export_flush(f);
	if (!r && fsync(fileno(f)) < 0)
		r = -errno;
	if (fclose(f) && !r)
		r = errno ? -errno : -EIO;
	if (!r && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0) {
		unlink(tmp);
		return file_err(err, errsz, r, path, dir, "write");
	}
	/* the rename itself durable */
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	return w;
}
