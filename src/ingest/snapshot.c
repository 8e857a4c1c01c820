// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snapshot.c - see snapshot.h. A streaming reader of our own schema (on
 * the JSON reader of jsonrd.h): the document is never held whole, neither
 * as text nor as a tree. This file: the header (pass 2), freeing, telling
 * a snapshot from a trace.dat; snapshot_read.c: passes 1 and 3, the stacks.
 *
 * Three passes over the input (a file is read through a 256 KiB window):
 *  1. scan: every top-level value is checked for JSON syntax (as a JSON
 *     parser would: errors name the byte), and the last one's start and the
 *     extent of its "stacks" value are noted (JSON Lines: the last counts);
 *  2. header: the last value's fields but "stacks" (seeked over) are read
 *     and checked, so that "events" and "origins" are known in any order;
 *  3. stacks: the "stacks" array is read one stack at a time, each checked
 *     and handed to the caller (or collected), then freed.
 * Memory is what the caller keeps of each stack, not the document's size.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/counters.h"
#include "core/format.h"
#include "core/hist.h"
#include "core/rank.h"
#include "ingest/jsonrd.h"
#include "ingest/snapshot.h"
#include "ingest/snapshot_priv.h"

struct header {
	bool schema, version, mode, view, stacks;
	bool counts[HC_N][2]; /* counter (and its delta) seen */
	char *view_event;     /* resolved once "events" is known */
	bool view_event_set;
	unsigned int matched; /* bits: "matched", "matched_total", "matched_delta" seen */
};

static const char *const sort_names[] = {
	[RANK_DELTA] = "hits", [RANK_TOTAL] = "total", [RANK_DEPTH] = "depth",
	[RANK_ID] = "id",      [RANK_EVENT] = "event", [RANK_COMM] = "comm"
};

static int parse_view(struct json_rd *r, struct snapshot *sn, struct header *h)
{
	struct snap_view *w = &sn->view;
	const char *where = "view: ";
	bool first = true, sort = false, counts = false, top = false;
	int e, i;

	if (h->view)
		return jr_fail(r, -EBADMSG, "\"view\" appears twice");
	h->view = true;
	if (jr_kind(r) != '{')
		return jr_fail(r, -EBADMSG, "\"view\" has the wrong type");
	r->i++;
	w->event = -1;
	w->pid = w->cpu = -1;
	while ((e = jr_next_key(r, &first)) == 1) {
		if (!strcmp(r->s, "sort")) {
			e = jr_need_string(r, where, "sort");
			if (e)
				return e;
			w->sort = -1;
			for (i = 0; i < RANK_KEY_MAX; i++)
				if (!strcmp(r->s, sort_names[i]))
					w->sort = i;
			if (w->sort < 0)
				return jr_fail(r, -EBADMSG, "view: unknown sort");
			sort = true;
		} else if (!strcmp(r->s, "counts")) {
			e = jr_need_string(r, where, "counts");
			if (e)
				return e;
			if (!strcmp(r->s, "delta"))
				w->delta = true;
			else if (!strcmp(r->s, "total"))
				w->delta = false;
			else
				return jr_fail(r, -EBADMSG,
					       "view: \"counts\" is neither delta nor total");
			counts = true;
		} else if (!strcmp(r->s, "ascending")) {
			e = jr_bool(r, &w->ascending);
		} else if (!strcmp(r->s, "hide_idle")) {
			e = jr_bool(r, &w->hide_idle);
		} else if (!strcmp(r->s, "event")) {
			free(h->view_event);
			h->view_event = NULL;
			if (jr_kind(r) == '"') {
				e = jr_string(r, true);
				if (!e && !(h->view_event = jr_dup_clean(r)))
					e = -ENOMEM;
			} else {
				e = jr_skip(r, 2);
			}
		} else if (!strcmp(r->s, "pid")) {
			e = jr_int(r, -1, INT32_MAX, true, &w->pid, where, "pid");
		} else if (!strcmp(r->s, "cpu")) {
			e = jr_int(r, -1, 65535, true, &w->cpu, where, "cpu");
		} else if (!strcmp(r->s, "top")) {
			e = jr_int(r, 0, 100000, false, &w->top, where, "top");
			top = true;
		} else if (!strcmp(r->s, "filter") || !strcmp(r->s, "comm")) {
			char **to = !strcmp(r->s, "filter") ? &w->filter : &w->comm;

			free(*to);
			*to = NULL;
			if (jr_kind(r) == '"') {
				e = jr_string(r, true);
				if (!e && !(*to = jr_dup_clean(r)))
					e = -ENOMEM;
			} else {
				e = jr_skip(r, 2);
			}
		} else {
			e = jr_skip(r, 2);
		}
		if (e)
			return e;
	}
	if (e)
		return e;
	if (!sort)
		return jr_fail(r, -EBADMSG, "view: \"sort\" is missing");
	if (!counts)
		return jr_fail(r, -EBADMSG, "view: \"counts\" is missing");
	if (!top)
		return jr_fail(r, -EBADMSG, "view: \"top\" is missing");
	return 0;
}

/* "weight": {"name": ..., "unit": ..., "ranked": bool}: a weighted run */
static int parse_weight(struct json_rd *r, struct snapshot *sn)
{
	bool first = true;
	int e;

	if (jr_kind(r) != '{')
		return jr_skip(r, 1);
	r->i++;
	while ((e = jr_next_key(r, &first)) == 1) {
		if (!strcmp(r->s, "name")) {
			e = jr_copy_clean(r, sn->weight_name, sizeof(sn->weight_name));
		} else if (!strcmp(r->s, "unit")) {
			e = jr_need_string(r, "weight: ", "unit");
			if (e)
				return e;
			if (strcmp(r->s, "bytes") && strcmp(r->s, "nanoseconds") &&
			    strcmp(r->s, "count"))
				return jr_fail(r, -EBADMSG, "weight: unknown \"unit\"");
			snprintf(sn->weight_unit, sizeof(sn->weight_unit), "%s", r->s);
		} else if (!strcmp(r->s, "ranked")) {
			e = jr_bool(r, &sn->weight_ranked);
		} else if (!strcmp(r->s, "hist_scale")) {
			e = jr_need_string(r, "weight: ", "hist_scale");
			if (e)
				return e;
			if (strcmp(r->s, "time") && strcmp(r->s, "log2"))
				return jr_fail(r, -EBADMSG, "weight: unknown \"hist_scale\"");
			sn->hist_scale = !strcmp(r->s, "time") ? HIST_TIME : HIST_LOG2;
			sn->have_hist_scale = true;
		} else {
			e = jr_skip(r, 2);
		}
		if (e)
			return e;
	}
	if (!e && !sn->weight_unit[0])
		return jr_fail(r, -EBADMSG, "weight: \"unit\" is missing");
	if (!e && !sn->weight_name[0])
		snprintf(sn->weight_name, sizeof(sn->weight_name), "weight");
	/* written before "hist_scale" existed: the unit says it */
	if (!e && !sn->have_hist_scale)
		sn->hist_scale = !strcmp(sn->weight_unit, "nanoseconds") ? HIST_TIME : HIST_LOG2;
	return e;
}

/* "group": {"depth": N, "function": bool}, as the view was grouped */
static int parse_group(struct json_rd *r, struct snapshot *sn)
{
	bool first = true;
	int e, d;

	if (jr_kind(r) != '{')
		return jr_skip(r, 1);
	r->i++;
	while ((e = jr_next_key(r, &first)) == 1) {
		if (!strcmp(r->s, "depth")) {
			e = jr_int(r, 0, STACK_MAX_DEPTH, false, &d, "group: ", "depth");
			sn->group_depth = (unsigned int)(d < 0 ? 0 : d);
		} else if (!strcmp(r->s, "function")) {
			e = jr_bool(r, &sn->group_func);
		} else {
			e = jr_skip(r, 2);
		}
		if (e)
			return e;
	}
	return e;
}

/* the counters a snapshot carries at its root: the rows of core/counters.h read */
#define HC_READ_ROW(field, type, delta, from, json, read, ...)                                     \
	{ HCJK_##json, HCR_##read, HCJD_##json && HCD_##delta != HCD_ND },
static const struct {
	const char *key;
	unsigned char read; /* HCR_* */
	bool delta;	    /* with "key_delta" */
} counters[HC_N] = { SESSION_COUNTERS(HC_READ_ROW) };
#undef HC_READ_ROW

/*
 * @key, when it is a counter's (or its delta's): read into @sn's @count
 * (@count_delta). Return: 1 read, 0 not a counter's, or a negative errno.
 */
static int parse_counter(struct json_rd *r, struct snapshot *sn, struct header *h, const char *key)
{
	size_t kl = strlen(key), l;
	char name[64];
	int i, d;

	for (i = 0; i < HC_N; i++) {
		if (counters[i].read == HCR_NO)
			continue;
		l = strlen(counters[i].key);
		d = !strcmp(key, counters[i].key) ? 0
		    : counters[i].delta && kl == l + 6 && !strncmp(key, counters[i].key, l) &&
				    !strcmp(key + l, "_delta")
			    ? 1
			    : -1;
		if (d < 0)
			continue;
		snprintf(name, sizeof(name), "%s", key);
		h->counts[i][d] = true;
		d = jr_count(r, d ? &sn->count_delta[i] : &sn->count[i], "", name);
		return d < 0 ? d : 1;
	}
	return 0;
}

/* the first counter a snapshot must have and has not, as "\"key\" is missing" */
static int counters_missing(struct json_rd *r, const struct header *h)
{
	int i;

	for (i = 0; i < HC_N; i++) {
		if (counters[i].read >= HCR_REQ && !h->counts[i][0])
			return jr_fail(r, -EBADMSG, "\"%s\" is missing", counters[i].key);
		if (counters[i].read == HCR_REQ2 && !h->counts[i][1])
			return jr_fail(r, -EBADMSG, "\"%s_delta\" is missing", counters[i].key);
	}
	return 0;
}

/* "schema": "stacktop-snapshot" */
static int parse_schema(struct json_rd *r, struct header *h)
{
	int e;

	if (jr_kind(r) != '"' || (e = jr_string(r, true)) || strcmp(r->s, "stacktop-snapshot"))
		return jr_fail(r, -EBADMSG,
			       "not a stacktop snapshot (no \"schema\": \"stacktop-snapshot\")");
	h->schema = true;
	return 0;
}

/* "version": 2, the one this reader reads */
static int parse_version(struct json_rd *r, struct header *h)
{
	struct json_num x;
	int e;

	if (jr_kind(r) != '0')
		return jr_fail(r, -EBADMSG, "\"version\" has the wrong type");
	e = jr_number(r, &x);
	if (e)
		return e;
	if (x.type != N_INT || x.u != 2)
		return jr_fail(r, -EPROTONOSUPPORT,
			       "snapshot version %s%" PRIu64 ": this stacktop reads version 2",
			       x.type == N_NEG ? "-" : "", x.u);
	h->version = true;
	return 0;
}

/* "interval": seconds, anything but a number skipped */
static int parse_interval(struct json_rd *r, struct snapshot *sn)
{
	struct json_num x;
	int e;

	if (jr_kind(r) != '0')
		return jr_skip(r, 1);
	e = jr_number(r, &x);
	if (e)
		return e;
	sn->interval = x.type == N_NEG ? -x.d : x.d;
	if (!(sn->interval >= 0 && sn->interval < 1e9))
		return jr_fail(r, -EBADMSG, "\"interval\" is out of range");
	return 0;
}

/* "stacks": only its place here, its stacks are read in pass 3 */
static int parse_stacks_place(struct json_rd *r, struct header *h, uint64_t stacks_at,
			      uint64_t stacks_end)
{
	h->stacks = true;
	if (jr_kind(r) != '[')
		return jr_fail(r, -EBADMSG, "\"stacks\" has the wrong type");
	/* read in pass 3: seek over it */
	if (jr_off(r) == stacks_at)
		return jr_seek(r, stacks_end);
	return jr_skip(r, 1);
}

/* "matched", "matched_total", "matched_delta": what the view matched when written */
static int parse_matched(struct json_rd *r, struct snapshot *sn, struct header *h, const char *key)
{
	uint64_t *v = !strcmp(key, "matched")	      ? &sn->matched
		      : !strcmp(key, "matched_total") ? &sn->matched_total
						      : &sn->matched_delta;
	int e = jr_count(r, v, "", key);

	h->matched |= v == &sn->matched ? 1 : v == &sn->matched_total ? 2 : 4;
	sn->have_matched = h->matched == 7;
	return e < 0 ? e : 0;
}

/* one member @key of the root object, its value next in @r */
static int parse_member(struct json_rd *r, struct snapshot *sn, struct header *h, const char *key,
			uint64_t stacks_at, uint64_t stacks_end)
{
	int e;

	if (!strcmp(key, "schema"))
		return parse_schema(r, h);
	if (!strcmp(key, "version"))
		return parse_version(r, h);
	if (!strcmp(key, "host"))
		return jr_copy_clean(r, sn->host, sizeof(sn->host));
	if (!strcmp(key, "kernel"))
		return jr_copy_clean(r, sn->kernel, sizeof(sn->kernel));
	if (!strcmp(key, "source"))
		return jr_copy_clean(r, sn->source, sizeof(sn->source));
	if (!strcmp(key, "time"))
		return jr_copy_clean(r, sn->time, sizeof(sn->time));
	if (!strcmp(key, "mode")) {
		e = jr_need_string(r, "", "mode");
		if (!e)
			fmt_sanitize(sn->mode, sizeof(sn->mode), r->s, r->slen);
		h->mode = true;
		return e;
	}
	if (!strcmp(key, "interval"))
		return parse_interval(r, sn);
	if (!strcmp(key, "events"))
		return jr_str_array(r, SNAPSHOT_MAX_EVENTS, &sn->events, &sn->nevents, "events");
	if (!strcmp(key, "origins"))
		return jr_str_array(r, SNAPSHOT_MAX_ORIGINS, &sn->origins, &sn->norigins,
				    "origins");
	if (!strcmp(key, "view"))
		return parse_view(r, sn, h);
	if (!strcmp(key, "group"))
		return parse_group(r, sn);
	if (!strcmp(key, "weight"))
		return parse_weight(r, sn);
	if (!strcmp(key, "stacks"))
		return parse_stacks_place(r, h, stacks_at, stacks_end);
	if (!strcmp(key, "matched") || !strcmp(key, "matched_total") ||
	    !strcmp(key, "matched_delta"))
		return parse_matched(r, sn, h, key);
	e = parse_counter(r, sn, h, key);
	return e == 0 ? jr_skip(r, 1) : e < 0 ? e : 0;
}

/* what a snapshot must have, once its root is read; the view's event resolved */
static int header_complete(struct json_rd *r, struct snapshot *sn, const struct header *h)
{
	int e = -EBADMSG, i;

	if (!h->schema)
		return jr_fail(r, e,
			       "not a stacktop snapshot (no \"schema\": \"stacktop-snapshot\")");
	if (!h->version)
		return jr_fail(r, e, "\"version\" is missing");
	if (!h->mode)
		return jr_fail(r, e, "\"mode\" is missing");
	if (counters_missing(r, h))
		return e;
	if (!sn->events)
		return jr_fail(r, e, "\"events\" is missing");
	if (!h->view)
		return jr_fail(r, e, "\"view\" is missing");
	if (!h->stacks)
		return jr_fail(r, e, "\"stacks\" is missing");
	if (h->view_event) {
		for (i = 0; i < (int)sn->nevents; i++)
			if (!strcmp(sn->events[i], h->view_event))
				sn->view.event = i;
		if (sn->view.event < 0)
			return jr_fail(r, e, "view: event not in \"events\"");
	}
	return 0;
}

/* the root object's fields but "stacks"; @stacks_at/@stacks_end: where that is */
int snapshot_parse_header(struct json_rd *r, struct snapshot *sn, uint64_t stacks_at,
			  uint64_t stacks_end)
{
	struct header h = { 0 };
	bool first = true;
	int e;

	if (jr_kind(r) != '{') {
		e = jr_skip(r, 0);
		return e < 0 ? e
			     : jr_fail(r, -EBADMSG, "not a stacktop snapshot (not a JSON object)");
	}
	r->i++;
	while ((e = jr_next_key(r, &first)) == 1) {
		e = parse_member(r, sn, &h, r->s, stacks_at, stacks_end);
		if (e)
			break;
	}
	if (!e)
		e = header_complete(r, sn, &h);
	free(h.view_event);
	return e;
}

void snapshot_stack_clear(struct snap_stack *st)
{
	size_t j;

	for (j = 0; st->syms && j < st->nsyms; j++)
		free(st->syms[j]);
	for (j = 0; st->usyms && j < st->nuser; j++)
		free(st->usyms[j]);
	for (j = 0; st->ulines && j < st->nuser; j++)
		free(st->ulines[j]);
	for (j = 0; j < st->nby; j++)
		free(st->by[j].comm);
	free(st->syms);
	free(st->ips);
	free(st->uaddrs);
	free(st->usyms);
	free(st->ulines);
	free(st->by);
	memset(st, 0, sizeof(*st));
}

int snapshot_find_event(const struct snapshot *sn, const char *name)
{
	unsigned int i;

	for (i = 0; i < sn->nevents; i++)
		if (!strcmp(sn->events[i], name))
			return (int)i;
	return -1;
}

void snapshot_free(struct snapshot *sn)
{
	size_t i;

	if (!sn)
		return;
	for (i = 0; i < sn->nstacks && sn->stacks; i++)
		snapshot_stack_clear(&sn->stacks[i]);
	free(sn->stacks);
	for (i = 0; i < sn->nevents; i++)
		free(sn->events[i]);
	free(sn->events);
	for (i = 0; i < sn->norigins; i++)
		free(sn->origins[i]);
	free(sn->origins);
	free(sn->view.filter);
	free(sn->view.comm);
	free(sn);
}

int snapshot_is_json(int fd)
{
	char buf[64];
	ssize_t n;
	int i;

	n = pread(fd, buf, sizeof(buf), 0);
	if (n < 0)
		return -errno;
	for (i = 0; i < n; i++) {
		if (strchr(" \t\r\n", buf[i]) && buf[i])
			continue;
		return buf[i] == '{';
	}
	return 0;
}
