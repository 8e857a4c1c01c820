// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snapshot_stack.c - see snapshot_stack.h: one stack of a snapshot's
 * "stacks", every member checked (its key, frames and symbols, user
 * frames, counts by event, CPU and process, trend and histogram) before
 * it is handed over.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/format.h"
#include "core/hist.h"
#include "core/stack_table.h"
#include "core/ujoin.h"
#include "ingest/jsonrd.h"
#include "ingest/snapshot.h"
#include "ingest/snapshot_priv.h"
#include "ingest/snapshot_stack.h"

/*
 * A stack's list field @name opens: never twice (@seen), always an array;
 * the reader is left on its first element.
 */
static int list_open(struct json_rd *r, bool seen, const char *where, const char *name)
{
	if (seen)
		return jr_fail(r, -EBADMSG, "%s\"%s\" appears twice", where, name);
	if (jr_kind(r) != '[')
		return jr_fail(r, -EBADMSG, "%s\"%s\" has the wrong type", where, name);
	r->i++;
	return 0;
}

static int parse_by(struct json_rd *r, const struct snapshot *sn, struct snap_by *b,
		    const char *where)
{
	bool first = true, ev = false, cpu = false, pid = false, total = false, delta = false;
	uint64_t v = 0;
	int e, i;

	if (jr_kind(r) != '{')
		return jr_fail(r, -EBADMSG, "%s\"by\" has an entry that is not an object", where);
	r->i++;
	b->pid = -1;
	while ((e = jr_next_key(r, &first)) == 1) {
		if (!strcmp(r->s, "event")) {
			char name[512];

			e = jr_need_string(r, where, "event");
			if (e)
				return e;
			fmt_sanitize(name, sizeof(name), r->s, r->slen);
			i = snapshot_find_event(sn, name);
			if (i < 0)
				return jr_fail(r, -EBADMSG, "%sevent not in \"events\"", where);
			b->event = (unsigned int)i;
			ev = true;
		} else if (!strcmp(r->s, "cpu")) {
			e = jr_int(r, 0, 65535, false, &i, where, "cpu");
			b->cpu = (unsigned int)i;
			cpu = true;
		} else if (!strcmp(r->s, "pid")) {
			e = jr_int(r, -1, INT32_MAX, false, &b->pid, where, "pid");
			pid = true;
		} else if (!strcmp(r->s, "origin")) {
			e = jr_int(r, 0, sn->norigins ? (long)sn->norigins - 1 : 0, true, &i, where,
				   "origin");
			b->origin = i < 0 ? 0 : (unsigned int)i;
		} else if (!strcmp(r->s, "comm")) {
			e = jr_need_string(r, where, "comm");
			if (!e) {
				free(b->comm);
				b->comm = jr_dup_clean(r);
				if (!b->comm)
					e = -ENOMEM;
			}
		} else if (!strcmp(r->s, "total")) {
			e = jr_count(r, &b->total, where, "total");
			total = true;
		} else if (!strcmp(r->s, "delta")) {
			e = jr_count(r, &v, where, "delta");
			delta = true;
		} else if (!strcmp(r->s, "weight")) {
			e = jr_count(r, &b->weight, where, "weight");
		} else if (!strcmp(r->s, "weight_delta")) {
			e = jr_count(r, &b->weight_delta, where, "weight_delta");
		} else {
			e = jr_skip(r, 4);
		}
		if (e)
			return e;
	}
	if (e)
		return e;
	if (!ev || !cpu || !pid || !b->comm || !total || !delta)
		return jr_fail(r, -EBADMSG, "%s\"%s\" is missing", where,
			       !ev	  ? "event"
			       : !cpu	  ? "cpu"
			       : !pid	  ? "pid"
			       : !b->comm ? "comm"
			       : !total	  ? "total"
					  : "delta");
	if (v > b->total || v > UINT32_MAX)
		return jr_fail(r, -EBADMSG, "%s\"delta\" is larger than \"total\"", where);
	b->delta = (uint32_t)v;
	if (b->weight_delta > b->weight)
		return jr_fail(r, -EBADMSG, "%s\"weight_delta\" is larger than \"weight\"", where);
	return 0;
}

static int parse_user_frame(struct json_rd *r, struct snap_stack *st, size_t j, const char *where)
{
	bool first = true, addr = false;
	int e;

	if (jr_kind(r) != '{')
		return jr_fail(r, -EBADMSG, "%s\"user_frames\"[%zu] is not an object", where, j);
	r->i++;
	st->usyms[j] = NULL;
	st->ulines[j] = NULL;
	while ((e = jr_next_key(r, &first)) == 1) {
		if (!strcmp(r->s, "addr")) {
			if (jr_kind(r) != '"' || (e = jr_string(r, true)) ||
			    jr_parse_hex(r->s, &st->uaddrs[j]) < 0)
				return e < 0 ? e
					     : jr_fail(r, -EBADMSG,
						       "%s\"user_frames\"[%zu]: \"addr\" is not a hex address",
						       where, j);
			addr = true;
		} else if (!strcmp(r->s, "symbol")) {
			e = jr_need_string(r, where, "symbol");
			if (!e) {
				free(st->usyms[j]);
				st->usyms[j] = jr_dup_clean(r);
				if (!st->usyms[j])
					e = -ENOMEM;
			}
		} else if (!strcmp(r->s, "line")) {
			/* its source line (an inlined call's, or the call's in its caller) */
			e = jr_need_string(r, where, "line");
			if (!e) {
				free(st->ulines[j]);
				st->ulines[j] = jr_dup_clean(r);
				if (!st->ulines[j])
					e = -ENOMEM;
			}
		} else {
			e = jr_skip(r, 5);
		}
		if (e)
			return e;
	}
	if (e)
		return e;
	if (!addr || !st->usyms[j])
		return jr_fail(r, -EBADMSG, "%s\"user_frames\"[%zu]: \"%s\" is missing", where, j,
			       addr ? "symbol" : "addr");
	return 0;
}

/* "trend"/"trend_weight": counts, oldest first; the newest STACK_TREND kept */
static int parse_trend(struct json_rd *r, uint64_t *out, unsigned int *n, const char *where,
		       const char *name)
{
	uint64_t ring[STACK_TREND];
	bool fe = true;
	size_t k = 0, i;
	int e;

	e = list_open(r, false, where, name);
	if (e)
		return e;
	while ((e = jr_next_elem(r, &fe)) == 1) {
		e = jr_count(r, &ring[k % STACK_TREND], where, name);
		if (e)
			return e;
		k++;
	}
	if (e)
		return e;
	*n = (unsigned int)(k < STACK_TREND ? k : STACK_TREND);
	for (i = 0; i < *n; i++)
		out[i] = ring[(k - *n + i) % STACK_TREND];
	return 0;
}

/* "hist": [{"low": L, "high": H|null, "count": C}]: each low a bucket's of the scale */
static int parse_hist(struct json_rd *r, const struct snapshot *sn, struct snap_stack *st,
		      const char *where)
{
	bool fe = true;
	size_t j = 0;
	int e;

	e = list_open(r, st->have_hist, where, "hist");
	if (e)
		return e;
	st->have_hist = true;
	while ((e = jr_next_elem(r, &fe)) == 1) {
		bool first = true, lo = false, cnt = false, hi_null = false, hi = false;
		uint64_t low = 0, high = 0, count = 0;
		unsigned int b;

		if (jr_kind(r) != '{')
			return jr_fail(r, -EBADMSG, "%s\"hist\"[%zu] is not an object", where, j);
		r->i++;
		while ((e = jr_next_key(r, &first)) == 1) {
			if (!strcmp(r->s, "low")) {
				e = jr_count(r, &low, where, "low");
				lo = true;
			} else if (!strcmp(r->s, "high")) {
				if (jr_kind(r) == 'n') {
					e = jr_skip(r, 5);
					hi_null = true;
				} else {
					e = jr_count(r, &high, where, "high");
				}
				hi = true;
			} else if (!strcmp(r->s, "count")) {
				e = jr_count(r, &count, where, "count");
				cnt = true;
			} else {
				e = jr_skip(r, 5);
			}
			if (e)
				return e;
		}
		if (e)
			return e;
		if (!lo || !cnt)
			return jr_fail(r, -EBADMSG, "%s\"hist\"[%zu]: \"%s\" is missing", where, j,
				       lo ? "count" : "low");
		b = hist_bucket(sn->hist_scale, low);
		if (hist_low(sn->hist_scale, b) != low ||
		    (hi && (hi_null ? hist_high(sn->hist_scale, b) != UINT64_MAX
				    : hist_high(sn->hist_scale, b) != high)))
			return jr_fail(r, -EBADMSG, "%s\"hist\"[%zu] is not a %s bucket", where, j,
				       sn->hist_scale == HIST_TIME ? "time" : "log2");
		st->hist[b] = st->hist[b] + count < count ? UINT64_MAX : st->hist[b] + count;
		j++;
	}
	return e;
}

/* what parse_stack() has seen of one stack, for the checks at its end */
struct stack_seen {
	uint64_t total, delta, hits, hits_delta;
	bool key, have_total, have_delta, have_hits, have_hits_delta, ids, frames, syms, by;
};

static int parse_ids(struct json_rd *r, struct snap_stack *st, const char *where)
{
	bool fe = true;
	size_t j = 0;
	int e = list_open(r, false, where, "ids");

	if (e)
		return e;
	st->nids = 0;
	while ((e = jr_next_elem(r, &fe)) == 1) {
		struct json_num x;

		if (jr_kind(r) != '0' || (e = jr_number(r, &x)) || x.type != N_INT ||
		    x.u > UINT32_MAX)
			return e < 0 ? e
				     : jr_fail(r, -EBADMSG, "%s\"ids\"[%zu] is not a stack id",
					       where, j);
		if (st->nids < 2)
			st->ids[st->nids++] = (uint32_t)x.u;
		else
			st->flags |= STACK_F_MOREIDS;
		j++;
	}
	return e;
}

static int parse_frames(struct json_rd *r, struct snap_stack *st, bool again, const char *where)
{
	bool fe = true;
	size_t cap = 0;
	int e = list_open(r, again, where, "frames");

	if (e)
		return e;
	while ((e = jr_next_elem(r, &fe)) == 1) {
		if (st->depth >= STACK_MAX_DEPTH)
			return jr_fail(r, -EBADMSG, "%smore than %d frames", where,
				       STACK_MAX_DEPTH);
		if (ARRAY_GROW(st->ips, cap, st->depth + 1) < 0)
			return -ENOMEM;
		if (jr_kind(r) != '"' || (e = jr_string(r, true)) ||
		    jr_parse_hex(r->s, &st->ips[st->depth]) < 0)
			return e < 0 ? e
				     : jr_fail(r, -EBADMSG, "%s\"frames\"[%u] is not a hex address",
					       where, st->depth);
		st->depth++;
	}
	return e;
}

static int parse_symbols(struct json_rd *r, struct snap_stack *st, bool again, const char *where)
{
	bool fe = true;
	size_t cap = 0;
	int e = list_open(r, again, where, "symbols");

	if (e)
		return e;
	while ((e = jr_next_elem(r, &fe)) == 1) {
		if (st->nsyms >= STACK_MAX_DEPTH)
			return jr_fail(r, -EBADMSG, "%smore than %d symbols", where,
				       STACK_MAX_DEPTH);
		if (jr_kind(r) != '"')
			return jr_fail(r, -EBADMSG, "%s\"symbols\"[%u] is not a string", where,
				       st->nsyms);
		e = jr_string(r, true);
		if (e)
			return e;
		if (ARRAY_GROW(st->syms, cap, st->nsyms + 1) < 0)
			return -ENOMEM;
		st->syms[st->nsyms] = jr_dup_clean(r);
		if (!st->syms[st->nsyms])
			return -ENOMEM;
		st->nsyms++;
	}
	return e;
}

static int parse_by_list(struct json_rd *r, const struct snapshot *sn, struct snap_stack *st,
			 bool again, const char *where)
{
	bool fe = true;
	size_t cap = 0;
	int e = list_open(r, again, where, "by");

	if (e)
		return e;
	while ((e = jr_next_elem(r, &fe)) == 1) {
		if (ARRAY_GROW(st->by, cap, st->nby + 1) < 0)
			return -ENOMEM;
		memset(&st->by[st->nby], 0, sizeof(*st->by));
		st->nby++;
		e = parse_by(r, sn, &st->by[st->nby - 1], where);
		if (e)
			return e;
	}
	return e;
}

static int parse_user_frames(struct json_rd *r, struct snap_stack *st, const char *where)
{
	bool fe = true;
	size_t capu = 0;
	int e = list_open(r, st->uaddrs, where, "user_frames");

	if (e)
		return e;
	st->uaddrs = calloc(1, sizeof(*st->uaddrs));
	if (!st->uaddrs)
		return -ENOMEM;
	while ((e = jr_next_elem(r, &fe)) == 1) {
		size_t c2 = capu, c3 = capu;

		if (st->nuser >= STACK_MAX_DEPTH)
			return jr_fail(r, -EBADMSG, "%smore than %d user frames", where,
				       STACK_MAX_DEPTH);
		if (ARRAY_GROW(st->uaddrs, capu, st->nuser + 1) < 0 ||
		    ARRAY_GROW(st->usyms, c2, st->nuser + 1) < 0 ||
		    ARRAY_GROW(st->ulines, c3, st->nuser + 1) < 0)
			return -ENOMEM;
		st->nuser++;
		e = parse_user_frame(r, st, st->nuser - 1, where);
		if (e)
			return e;
	}
	return e;
}

static int parse_tgid(struct json_rd *r, struct snap_stack *st, const char *where)
{
	struct json_num x;
	int e = 0;

	if (jr_kind(r) != '0' || (e = jr_number(r, &x)) || x.type != N_INT || x.u > UINT32_MAX)
		return e < 0 ? e : jr_fail(r, -EBADMSG, "%s\"tgid\" is not a process id", where);
	st->tgid = (int64_t)x.u;
	return 0;
}

static int parse_user_missing(struct json_rd *r, struct snap_stack *st, const char *where)
{
	int e = jr_need_string(r, where, "user_missing");

	if (!e)
		st->user_missing = (uint8_t)ujoin_why_parse(r->s);
	if (!e && !st->user_missing)
		e = jr_fail(r, -EBADMSG, "%s\"user_missing\" is not a reason stacktop writes",
			    where);
	return e;
}

static int parse_user_cut_why(struct json_rd *r, struct snap_stack *st, const char *where)
{
	static const char *const why[] = { "depth", "stack", "unwind", "memory", "refused" };
	unsigned int i;
	int e = jr_need_string(r, where, "user_cut_why");

	for (i = 0; !e && i < sizeof(why) / sizeof(why[0]); i++)
		if (!strcmp(r->s, why[i]))
			break;
	if (!e && i == sizeof(why) / sizeof(why[0]))
		e = jr_fail(r, -EBADMSG,
			    "%s\"user_cut_why\" is not depth, stack, unwind, memory or refused",
			    where);
	if (!e)
		st->user_cut_why = (uint8_t)i;
	return e;
}

static int parse_key(struct json_rd *r, struct snap_stack *st, const char *where)
{
	int e = jr_need_string(r, where, "key");

	if (e)
		return e;
	if (r->slen != 16 || strspn(r->s, "0123456789abcdef") != 16)
		return jr_fail(r, -EBADMSG, "%s\"key\" is not 16 hex digits", where);
	memcpy(st->key, r->s, 17);
	return 0;
}

/* a member that is a flag of the stack, or one this reader does not know (skipped) */
static int parse_flag(struct json_rd *r, struct snap_stack *st, const char *k)
{
	static const struct {
		const char *name;
		unsigned int flag;
	} flags[] = {
		{ "more_ids", STACK_F_MOREIDS }, { "fallback", STACK_F_FALLBACK },
		{ "mapped", STACK_F_MAPPED },	 { "merged64", STACK_F_MERGED64 },
		{ "cut", STACK_F_CUT },
	};
	size_t i;
	bool on;
	int e;

	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (!strcmp(k, flags[i].name))
			break;
	if (i == sizeof(flags) / sizeof(flags[0]))
		return jr_skip(r, 2);
	e = jr_bool(r, &on);
	if (on)
		st->flags |= flags[i].flag;
	return e;
}

/* the counts of a stack: hits or, in a weighted run, hits beside the ranked weights */
static int parse_count_member(struct json_rd *r, struct snap_stack *st, struct stack_seen *v,
			      const char *k, const char *where, bool *known)
{
	*known = true;
	if (!strcmp(k, "total")) {
		v->have_total = true;
		return jr_count(r, &v->total, where, "total");
	}
	if (!strcmp(k, "delta")) {
		v->have_delta = true;
		return jr_count(r, &v->delta, where, "delta");
	}
	if (!strcmp(k, "hits")) {
		/* a weighted run's stacks rank weights: their hits are apart */
		v->have_hits = true;
		return jr_count(r, &v->hits, where, "hits");
	}
	if (!strcmp(k, "hits_delta")) {
		v->have_hits_delta = true;
		return jr_count(r, &v->hits_delta, where, "hits_delta");
	}
	if (!strcmp(k, "weight"))
		return jr_count(r, &st->weight, where, "weight");
	if (!strcmp(k, "weight_delta"))
		return jr_count(r, &st->weight_delta, where, "weight_delta");
	*known = false;
	return 0;
}

/* one member @k of a stack object */
static int parse_stack_member(struct json_rd *r, const struct snapshot *sn, struct snap_stack *st,
			      struct stack_seen *v, const char *k, const char *where)
{
	bool known;
	int e = parse_count_member(r, st, v, k, where, &known);

	if (known)
		return e;
	if (!strcmp(k, "key")) {
		v->key = true;
		return parse_key(r, st, where);
	}
	if (!strcmp(k, "ids")) {
		v->ids = true;
		return parse_ids(r, st, where);
	}
	if (!strcmp(k, "frames")) {
		e = parse_frames(r, st, v->frames, where);
		v->frames = true;
		return e;
	}
	if (!strcmp(k, "symbols")) {
		e = parse_symbols(r, st, v->syms, where);
		v->syms = true;
		return e;
	}
	if (!strcmp(k, "by")) {
		e = parse_by_list(r, sn, st, v->by, where);
		v->by = true;
		return e;
	}
	if (!strcmp(k, "tgid"))
		return parse_tgid(r, st, where);
	if (!strcmp(k, "user_frames"))
		return parse_user_frames(r, st, where);
	if (!strcmp(k, "user_cut"))
		return jr_bool(r, &st->user_cut);
	if (!strcmp(k, "user_missing"))
		return parse_user_missing(r, st, where);
	if (!strcmp(k, "user_cut_why"))
		return parse_user_cut_why(r, st, where);
	if (!strcmp(k, "trend"))
		return parse_trend(r, st->trend, &st->ntrend, where, "trend");
	if (!strcmp(k, "trend_weight"))
		return parse_trend(r, st->trend_w, &st->ntrend_w, where, "trend_weight");
	if (!strcmp(k, "hist"))
		return parse_hist(r, sn, st, where);
	return parse_flag(r, st, k);
}

/* the members a stack needs, and that they agree */
static int check_stack(struct json_rd *r, struct snap_stack *st, struct stack_seen *v,
		       const char *where)
{
	if (!v->key)
		return jr_fail(r, -EBADMSG, "%s\"key\" is missing", where);
	if (v->have_hits || v->have_hits_delta) {
		if (!v->have_hits || !v->have_hits_delta)
			return jr_fail(r, -EBADMSG, "%s\"%s\" is missing", where,
				       v->have_hits ? "hits_delta" : "hits");
		v->total = v->hits;
		v->delta = v->hits_delta;
	} else if (!v->have_total || !v->have_delta) {
		return jr_fail(r, -EBADMSG, "%s\"%s\" is missing", where,
			       v->have_total ? "delta" : "total");
	}
	if (!v->ids || !v->frames || !v->syms || !v->by)
		return jr_fail(r, -EBADMSG, "%s\"%s\" is missing", where,
			       !v->ids	    ? "ids"
			       : !v->frames ? "frames"
			       : !v->syms   ? "symbols"
					    : "by");
	if (st->nsyms != st->depth)
		return jr_fail(r, -EBADMSG, "%s\"symbols\" and \"frames\" differ in length", where);
	if (v->delta > v->total || v->delta > UINT32_MAX)
		return jr_fail(r, -EBADMSG, "%s\"delta\" is larger than \"total\"", where);
	if (st->weight_delta > st->weight)
		return jr_fail(r, -EBADMSG, "%s\"weight_delta\" is larger than \"weight\"", where);
	if (st->uaddrs && st->tgid < 0)
		return jr_fail(r, -EBADMSG, "%s\"user_frames\" without \"tgid\"", where);
	/* kernel frames, the separator, user frames and a cut mark in one table stack */
	if (st->uaddrs && st->depth + st->nuser + 2 > STACK_MAX_DEPTH)
		return jr_fail(r, -EBADMSG, "%smore than %d frames with the user part", where,
			       STACK_MAX_DEPTH);
	/* (and no cut mark: the separator and the mark are its two words) */
	if (st->user_missing && (!st->uaddrs || st->nuser || st->user_cut || st->tgid < 0))
		return jr_fail(r, -EBADMSG,
			       "%s\"user_missing\" with user frames, a cut or without \"tgid\"",
			       where);
	return 0;
}

int snapshot_parse_stack(struct json_rd *r, const struct snapshot *sn, struct snap_stack *st,
			 size_t idx)
{
	struct stack_seen v = { 0 };
	bool first = true;
	char where[48];
	int e;

	snprintf(where, sizeof(where), "stack %zu: ", idx + 1);
	if (jr_kind(r) != '{') {
		e = jr_skip(r, 1);
		return e < 0 ? e : jr_fail(r, -EBADMSG, "%snot an object", where);
	}
	r->i++;
	st->tgid = -1;
	while ((e = jr_next_key(r, &first)) == 1) {
		e = parse_stack_member(r, sn, st, &v, r->s, where);
		if (e)
			return e;
	}
	if (e)
		return e;
	e = check_stack(r, st, &v, where);
	if (e)
		return e;
	if (!st->uaddrs) {
		st->tgid = -1;
		st->user_cut = false;
	}
	if (!st->user_cut)
		st->user_cut_why = 0;
	st->total = v.total;
	st->delta = (uint32_t)v.delta;
	return 0;
}
