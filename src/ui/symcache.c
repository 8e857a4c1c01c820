// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * symcache.c - symbol text per address and cached filter results.
 */
#include <stdlib.h>
#include <string.h>

#include "kernel/comm.h"
#include "core/format.h"
#include "sym/brief.h"
#include "sym/frame.h"
#include "sym/ksym.h"
#include "session/session.h"
#include "core/stack.h"
#include "ui/symcache.h"
#include "sym/usym.h"

void symcache_init(struct symcache *sc, struct ksym *ks)
{
	memset(sc, 0, sizeof(*sc));
	sc->ks = ks;
	sc->ksym_n = ks ? ksym_count(ks) : 0;
	sc->funcs = ksym_funcs(ks);
	hmap_init(&sc->ip2id);
	hmap_init(&sc->skips);
}

static void symcache_drop(struct symcache *sc)
{
	size_t i;

	for (i = 0; i < sc->n; i++)
		free(sc->names[i]);
	sc->n = 0;
	hmap_clear(&sc->ip2id);
	sc->epoch++;
}

void symcache_done(struct symcache *sc)
{
	symcache_drop(sc);
	free(sc->names);
	free(sc->starts);
	hmap_done(&sc->ip2id);
	hmap_done(&sc->skips);
	memset(sc, 0, sizeof(*sc));
}

unsigned int symcache_skip(struct symcache *sc, const struct stack *st)
{
	uint64_t v;
	unsigned int skip;

	if (hmap_get(&sc->skips, (uintptr_t)st, &v))
		return (unsigned int)(v - 1);
	skip = brief_skip(sc->ks, st);
	hmap_put(&sc->skips, (uintptr_t)st, skip + 1);
	return skip;
}

void symcache_forget_stacks(struct symcache *sc)
{
	hmap_clear(&sc->skips);
}

bool symcache_sync(struct symcache *sc)
{
	size_t n = sc->ks ? ksym_count(sc->ks) : 0;
	bool funcs = ksym_funcs(sc->ks);

	/* new symbols, or frames that are now functions (--by-func) or no longer */
	if (n == sc->ksym_n && funcs == sc->funcs)
		return false;
	sc->ksym_n = n;
	sc->funcs = funcs;
	symcache_drop(sc);
	return true;
}

uint32_t symcache_id(struct symcache *sc, uint64_t ip)
{
	struct ksym_hit hit;
	uint64_t v;
	char buf[512];
	char *name;

	if (hmap_get(&sc->ip2id, ip, &v))
		return (uint32_t)(v - 1);
	if (sc->n == sc->cap) {
		size_t cap = sc->cap ? sc->cap * 2 : 1024;
		char **names = realloc(sc->names, cap * sizeof(*names));
		uint64_t *starts;

		if (!names)
			return UINT32_MAX;
		sc->names = names;
		starts = realloc(sc->starts, cap * sizeof(*starts));
		if (!starts)
			return UINT32_MAX;
		sc->starts = starts;
		sc->cap = cap;
	}
	fmt_func(buf, sizeof(buf), sc->ks, ip, 1);
	name = strdup(buf);
	if (!name)
		return UINT32_MAX;
	if (hmap_put(&sc->ip2id, ip, sc->n + 1)) {
		free(name);
		return UINT32_MAX;
	}
	sc->names[sc->n] = name;
	if (usym_is_user(ip))
		sc->starts[sc->n] = usym_start(ksym_usym(sc->ks), ip); /* one node per function */
	else if (sc->ks && !ksym_lookup_frame(sc->ks, ip, &hit))
		sc->starts[sc->n] = hit.start;
	else
		sc->starts[sc->n] = ip;
	return (uint32_t)sc->n++;
}

const char *symcache_name(const struct symcache *sc, uint32_t id)
{
	return id < sc->n ? sc->names[id] : "?";
}

uint64_t symcache_start(const struct symcache *sc, uint32_t id)
{
	return id < sc->n ? sc->starts[id] : 0;
}

void textmatch_init(struct textmatch *tm)
{
	memset(tm, 0, sizeof(*tm));
	tm->gen = 1;
	hmap_init(&tm->stacks);
	hmap_init(&tm->pids);
}

void textmatch_done(struct textmatch *tm)
{
	free(tm->symres);
	hmap_done(&tm->stacks);
	hmap_done(&tm->pids);
	memset(tm, 0, sizeof(*tm));
}

bool textmatch_set(struct textmatch *tm, const char *text)
{
	tm->whole = false;
	snprintf(tm->text, sizeof(tm->text), "%s", text ? text : "");
	uifmt_terms_parse(tm->text, &tm->terms);
	tm->gen++;
	/* old generations can never match again: keep the maps small */
	hmap_clear(&tm->stacks);
	hmap_clear(&tm->pids);
	return tm->terms.n > 0;
}

bool textmatch_set_comm(struct textmatch *tm, const char *text)
{
	bool whole = text && (text[0] == '=' || strpbrk(text, "*?["));
	bool on = textmatch_set(tm, text && text[0] == '=' ? text + 1 : text);

	tm->whole = whole;
	return on;
}

static bool terms_match_whole(const struct uifmt_terms *t, const char *comm)
{
	int i;

	for (i = 0; i < t->n; i++)
		if (comm_match(t->term[i], comm))
			return true;
	return false;
}

bool textmatch_active(const struct textmatch *tm)
{
	return tm->terms.n > 0;
}

void textmatch_forget_stacks(struct textmatch *tm)
{
	hmap_clear(&tm->stacks);
	hmap_clear(&tm->pids);
}

static void textmatch_check_epoch(struct textmatch *tm, const struct symcache *sc)
{
	if (tm->epoch == sc->epoch)
		return;
	tm->epoch = sc->epoch;
	if (tm->symres)
		memset(tm->symres, 0, tm->nsymres * sizeof(*tm->symres));
	hmap_clear(&tm->stacks);
}

bool textmatch_sym(struct textmatch *tm, struct symcache *sc, uint32_t id)
{
	uint64_t tag = (uint64_t)tm->gen << 1;
	bool res;

	textmatch_check_epoch(tm, sc);
	if (id >= sc->n)
		return false;
	if (id >= tm->nsymres) {
		size_t n = sc->cap > id ? sc->cap : (size_t)id + 1;
		uint64_t *r = realloc(tm->symres, n * sizeof(*r));

		if (!r)
			return uifmt_terms_match(&tm->terms, sc->names[id]);
		memset(r + tm->nsymres, 0, (n - tm->nsymres) * sizeof(*r));
		tm->symres = r;
		tm->nsymres = n;
	}
	if ((tm->symres[id] & ~1ULL) == tag)
		return tm->symres[id] & 1;
	res = uifmt_terms_match(&tm->terms, sc->names[id]);
	tm->symres[id] = tag | res;
	return res;
}

bool textmatch_frames(struct textmatch *tm, struct symcache *sc, const struct stack *st)
{
	uint64_t tag = (uint64_t)tm->gen << 1, v;
	bool res = false;
	unsigned int i;

	textmatch_check_epoch(tm, sc);
	if (hmap_get(&tm->stacks, (uintptr_t)st, &v) && (v & ~1ULL) == tag)
		return v & 1;
	for (i = 0; i < st->depth && !res; i++)
		res = textmatch_sym(tm, sc, symcache_id(sc, st->ips[i]));
	hmap_put(&tm->stacks, (uintptr_t)st, tag | res);
	return res;
}

bool textmatch_pid(struct textmatch *tm, struct session *s, int pid)
{
	uint64_t tag = (uint64_t)tm->gen << 1, v, key = (uint64_t)(uint32_t)pid;
	bool res;

	const char *comm;

	if (hmap_get(&tm->pids, key, &v) && (v & ~1ULL) == tag)
		return v & 1;
	comm = session_comm(s, pid);
	res = tm->whole ? terms_match_whole(&tm->terms, comm) : uifmt_terms_match(&tm->terms, comm);
	/* an unknown comm may be learned later: do not remember that answer */
	if (strcmp(comm, "?"))
		hmap_put(&tm->pids, key, tag | res);
	return res;
}

void textmatch_forget_pids(struct textmatch *tm)
{
	hmap_clear(&tm->pids);
}

bool textmatch_comm(struct textmatch *tm, struct session *s, const struct stack *st)
{
	const struct stack_attr *a;
	int last = -2;

	for (a = st->attrs; a; a = a->next) {
		if (a->pid == last)
			continue;
		last = a->pid;
		if (textmatch_pid(tm, s, a->pid))
			return true;
	}
	return false;
}
