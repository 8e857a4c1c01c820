// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pprof_copy.c - see pprof_copy.h: the table of names (the frames resolved
 * as the profile writes them) and the copy of a profile's counts.
 *
 * The table's arrays are chunked (struct pprof_seg): an entry never moves
 * once written, so a writer on another thread reads the entries a copy
 * refers to (all written before the copy was handed over) while the
 * session's thread appends others. The maps that find an entry again
 * (strings, Functions, Locations, stacks) are the session's thread's only.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/format.h"
#include "core/hmap.h"
#include "core/mix64.h"
#include "output/counters.h"
#include "output/losses.h"
#include "output/pprof_copy.h"
#include "output/rows.h"
#include "output/since.h"
#include "session/session.h"
#include "sym/brief.h"
#include "sym/frame.h"
#include "sym/ksym.h"
#include "sym/usym.h"

#define KERNEL_MAPPING "[kernel.kallsyms]"
#define LINES_MAX      64   /* Lines of one Location at most (the innermost calls go) */
#define NAMES_SLACK    4096 /* stacks a table may hold past twice the session's */

/* a chunked array: entry i at chunk[i >> SEG_BITS]; chunks never move */
#define SEG_BITS 12
#define SEG_MAX	 16384 /* chunks: 64M entries at most */

struct pprof_seg {
	void *chunk[SEG_MAX];
	size_t n;
	size_t esz;
};

/* the strings and the stacks' Location lists: blocks that never move */
struct blk {
	struct blk *next;
	size_t used, cap;
	char data[];
};

struct pprof_names {
	int refs;
	uint32_t generation; /* the session's counts' when made */
	struct ksym *ks;     /* its symbols ... */
	unsigned long loads; /* ... their reloads then */
	bool by_func;	     /* ... and how they named frames (--by-func: function starts) */
	struct pprof_seg strs, funcs, locs, lines;
	struct blk *blks;
	size_t bytes;
	size_t nstacks;
	/* the session's thread's only */
	struct hmap strmap;  /* FNV hash of a string -> index + 1 (hmap_chain()) */
	struct hmap funcmap; /* name << 32 | file -> index + 1 */
	struct hmap locmap;  /* a Location's frames' hash -> index + 1 */
	struct hmap stkmap;  /* a stack's address and hash -> its struct pprof_stk */
	bool oom;
};

static void *seg_at(const struct pprof_seg *s, size_t i)
{
	return (char *)s->chunk[i >> SEG_BITS] + (i & ((1u << SEG_BITS) - 1)) * s->esz;
}

/* a new entry at the end (its index: s->n - 1), NULL when out of room */
static void *seg_add(struct pprof_names *n, struct pprof_seg *s)
{
	size_t c = s->n >> SEG_BITS;

	if (c >= SEG_MAX)
		return NULL;
	if (!s->chunk[c]) {
		s->chunk[c] = calloc(1u << SEG_BITS, s->esz);
		if (!s->chunk[c])
			return NULL;
		n->bytes += ((size_t)1 << SEG_BITS) * s->esz;
	}
	return seg_at(s, s->n++);
}

static void seg_done(struct pprof_seg *s)
{
	size_t c;

	for (c = 0; c < SEG_MAX && s->chunk[c]; c++)
		free(s->chunk[c]);
}

/* @len bytes in a block, aligned for a uint32_t */
static void *blk_alloc(struct pprof_names *n, size_t len)
{
	struct blk *b = n->blks;
	void *p;

	len = (len + 3) & ~(size_t)3;
	if (!b || b->cap - b->used < len) {
		size_t cap = len > 65536 ? len : 65536;

		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->used = 0;
		b->cap = cap;
		b->next = n->blks;
		n->blks = b;
		n->bytes += sizeof(*b) + cap;
	}
	p = b->data + b->used;
	b->used += len;
	return p;
}

/*
 * how the session names frames now: a table made otherwise names them
 * otherwise. A table that resolved many more stacks than the session
 * holds (stacks gone, their addresses reused: a long run's groups) is
 * started again, so that it stays within twice the session's stacks.
 */
static bool names_match(const struct pprof_names *n, struct session *s)
{
	size_t live = stack_table_count(session_table(s));
	unsigned int depth;
	bool funcs;

	session_group(s, &depth, &funcs);
	return n->generation == session_stats(s)->generation && n->ks == session_ksym(s) &&
	       n->loads == ksym_reloads(session_ksym(s)) && n->by_func == funcs &&
	       n->nstacks <= 2 * live + NAMES_SLACK;
}

struct pprof_names *pprof_names_new(struct session *s)
{
	struct pprof_names *n = calloc(1, sizeof(*n));
	unsigned int depth;

	if (!n)
		return NULL;
	n->refs = 1;
	n->strs.esz = sizeof(const char *);
	n->funcs.esz = sizeof(struct pprof_func);
	n->locs.esz = sizeof(struct pprof_loc);
	n->lines.esz = sizeof(struct pprof_line);
	n->generation = session_stats(s)->generation;
	n->ks = session_ksym(s);
	n->loads = ksym_reloads(session_ksym(s));
	session_group(s, &depth, &n->by_func);
	n->bytes = sizeof(*n);
	return n;
}

void pprof_names_put(struct pprof_names *n)
{
	struct blk *b;

	if (!n || __atomic_sub_fetch(&n->refs, 1, __ATOMIC_ACQ_REL))
		return;
	seg_done(&n->strs);
	seg_done(&n->funcs);
	seg_done(&n->locs);
	seg_done(&n->lines);
	while ((b = n->blks)) {
		n->blks = b->next;
		free(b);
	}
	hmap_done(&n->strmap);
	hmap_done(&n->funcmap);
	hmap_done(&n->locmap);
	hmap_done(&n->stkmap);
	free(n);
}

int pprof_names_fit(struct pprof_names **n, struct session *s)
{
	struct pprof_names *o = *n;

	if (o && !o->oom && names_match(o, s))
		return 0;
	pprof_names_put(o);
	*n = pprof_names_new(s);
	return *n ? 0 : -ENOMEM;
}

size_t pprof_names_bytes(const struct pprof_names *n)
{
	if (!n)
		return 0;
	return n->bytes + hmap_bytes(&n->strmap) + hmap_bytes(&n->funcmap) +
	       hmap_bytes(&n->locmap) + hmap_bytes(&n->stkmap);
}

size_t pprof_names_stacks(const struct pprof_names *n)
{
	return n ? n->nstacks : 0;
}

const char *pprof_names_str(const struct pprof_names *n, uint32_t i)
{
	return *(const char *const *)seg_at(&n->strs, i);
}

const struct pprof_func *pprof_names_func(const struct pprof_names *n, uint32_t i)
{
	return seg_at(&n->funcs, i);
}

const struct pprof_loc *pprof_names_loc(const struct pprof_names *n, uint32_t i)
{
	return seg_at(&n->locs, i);
}

const struct pprof_line *pprof_names_line(const struct pprof_names *n, uint32_t i)
{
	return seg_at(&n->lines, i);
}

/* ---- resolving: the session's thread ------------------------------------- */

static uint64_t str_hash(const char *p)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *p; p++) {
		h ^= (unsigned char)*p;
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* the table's index of @str, added when new */
static uint32_t names_str(struct pprof_names *n, const char *str)
{
	uint64_t k;

	/* the chain of keys h, hmap_chain(h), ... until the string or a free key */
	for (k = str_hash(str);; k = hmap_chain(k)) {
		uint64_t *slot = hmap_slot(&n->strmap, k, NULL);
		const char **e;
		size_t len;
		char *dup;

		if (!slot) {
			n->oom = true;
			return 0;
		}
		if (*slot) {
			if (!strcmp(pprof_names_str(n, (uint32_t)(*slot - 1)), str))
				return (uint32_t)(*slot - 1);
			continue;
		}
		len = strlen(str) + 1;
		dup = blk_alloc(n, len);
		e = seg_add(n, &n->strs);
		if (!dup || !e) {
			n->oom = true;
			return 0;
		}
		memcpy(dup, str, len);
		*e = dup;
		*slot = n->strs.n;
		return (uint32_t)(n->strs.n - 1);
	}
}

/* a frame's file: a user frame's, its source file (DWARF), its module, the kernel */
static void frame_file(struct ksym *ks, uint64_t ip, char *file, size_t size, uint32_t *line)
{
	char src[512], *colon;
	struct ksym_hit h;

	*line = 0;
	if ((usym_is_user(ip)
		     ? usym_srcline(ksym_usym(ks), ip, src, sizeof(src), true)
		     : usym_kernel_srcline(ksym_usym(ks), ip, true, src, sizeof(src), true)) > 0 &&
	    (colon = strrchr(src, ':')) != NULL) {
		long long l;

		*colon = '\0';
		l = strtoll(colon + 1, NULL, 10);
		*line = l > 0 && l <= UINT32_MAX ? (uint32_t)l : 0;
		snprintf(file, size, "%s", src);
	} else if (usym_is_user(ip)) {
		char full[400], *o;
		size_t l;

		/* "func (file)": the file is the function's */
		fmt_func(full, sizeof(full), ks, ip, 1);
		o = strrchr(full, '(');
		l = strlen(full);
		if (o && l && full[l - 1] == ')' && o > full) {
			full[l - 1] = '\0';
			snprintf(file, size, "%s", o + 1);
		} else {
			snprintf(file, size, "[user]");
		}
	} else if (ks && ksym_lookup_frame(ks, ip, &h) == 0 && h.module) {
		char mod[96];

		fmt_sanitize(mod, sizeof(mod), h.module, strlen(h.module));
		snprintf(file, size, "[%s]", mod);
	} else {
		snprintf(file, size, KERNEL_MAPPING);
	}
}

/*
 * the Function of a frame: its name, its module as the file name (a user
 * frame's file; its source file when the DWARF gave its line, *@line)
 */
static uint32_t names_func(struct pprof_names *n, struct ksym *ks, uint64_t ip, uint32_t *line)
{
	char name[256], file[512];
	uint64_t *slot;
	uint32_t ni, fi;
	size_t l;
	struct pprof_func *f;

	fmt_func(name, sizeof(name), ks, ip, 0);
	/* an inlined call is a Line of its caller's Location: no mark in its name */
	l = strlen(name);
	if (usym_is_inline(ksym_usym(ks), ip) && l > 10 && !strcmp(name + l - 10, " (inlined)"))
		name[l - 10] = '\0';
	frame_file(ks, ip, file, sizeof(file), line);
	ni = names_str(n, name);
	fi = names_str(n, file);
	slot = hmap_slot(&n->funcmap, (uint64_t)ni << 32 | fi, NULL);
	if (!slot) {
		n->oom = true;
		return 0;
	}
	if (!*slot) {
		f = seg_add(n, &n->funcs);
		if (!f) {
			n->oom = true;
			return 0;
		}
		f->name = ni;
		f->file = fi;
		*slot = n->funcs.n;
	}
	return (uint32_t)(*slot - 1);
}

/*
 * The Location of @cnt frames: the calls inlined at an address (innermost
 * first) and the frame they were inlined into, the last one (@cnt 1: a
 * frame alone). Its Lines in that order, as pprof expects them.
 */
static uint32_t names_loc(struct pprof_names *n, struct ksym *ks, const uint64_t *ips,
			  unsigned int cnt)
{
	uint64_t ip = ips[cnt - 1], key = ip, *slot, addr = ip;
	uint32_t fid[LINES_MAX], line[LINES_MAX], tgid;
	struct pprof_line *ln;
	struct pprof_loc *lc;
	unsigned int k;

	/* a group's key: a hash of its frames (an inlined call's token follows its caller's) */
	if (cnt > 1)
		key = mix64(ip);
	for (k = 0; k + 1 < cnt; k++)
		key = mix64(key ^ ips[k]);
	if (hmap_get(&n->locmap, key, &addr) && addr)
		return (uint32_t)(addr - 1);
	addr = ip;
	if (usym_is_user(ip) && usym_lookup(ksym_usym(ks), ip, &tgid, &addr) < 0)
		addr = 0; /* a user frame: its real address, its own mapping */
	if (cnt > LINES_MAX) {
		ips += cnt - LINES_MAX;
		cnt = LINES_MAX;
	}
	for (k = 0; k < cnt; k++)
		fid[k] = names_func(n, ks, ips[k], &line[k]);
	lc = seg_add(n, &n->locs);
	if (!lc) {
		n->oom = true;
		return 0;
	}
	lc->addr = addr;
	lc->user = usym_is_user(ip);
	lc->nlines = (uint16_t)cnt;
	lc->line0 = (uint32_t)n->lines.n;
	for (k = 0; k < cnt; k++) {
		ln = seg_add(n, &n->lines);
		if (!ln) {
			n->oom = true;
			return 0;
		}
		ln->func = fid[k];
		ln->line = line[k];
	}
	slot = hmap_slot(&n->locmap, key, NULL);
	if (!slot)
		n->oom = true;
	else
		*slot = n->locs.n;
	return (uint32_t)(n->locs.n - 1);
}

/*
 * A stack's Locations, resolved the first time it is asked for: from the
 * first frame after the tracing machinery, as folded; the calls inlined at
 * an address are Lines of the Location of the frame they were inlined into
 * (the next one that is not inlined)
 */
static const struct pprof_stk *names_stack(struct pprof_names *n, struct ksym *ks,
					   const struct stack *sk)
{
	/*
	 * by its address and its frames' hash: a regrouped table's stacks
	 * (--depth, --by-func changed on the screen) may reuse the addresses
	 */
	uint64_t key = mix64((uint64_t)(uintptr_t)sk) ^ ((uint64_t)sk->hash << 16 | sk->depth),
		 *slot;
	struct pprof_stk *st;
	unsigned int j, k;

	slot = hmap_slot(&n->stkmap, key, NULL);
	if (!slot) {
		n->oom = true;
		return NULL;
	}
	if (*slot)
		return (const struct pprof_stk *)(uintptr_t)*slot;
	st = blk_alloc(n, sizeof(*st) + sk->depth * sizeof(st->locs[0]));
	if (!st) {
		n->oom = true;
		return NULL;
	}
	st->n = 0;
	for (j = brief_skip(ks, sk); j < sk->depth; j++) {
		k = j;
		if (usym_is_sep(sk->ips[j]))
			continue; /* the separator is no location */
		while (k + 1 < sk->depth && usym_is_inline(ksym_usym(ks), sk->ips[k]) &&
		       !usym_is_sep(sk->ips[k + 1]))
			k++;
		st->locs[st->n++] = names_loc(n, ks, sk->ips + j, k - j + 1);
		j = k;
	}
	/* the Locations may have grown the map: the slot is found again */
	if (hmap_put(&n->stkmap, key, (uint64_t)(uintptr_t)st) < 0) {
		n->oom = true;
		return NULL;
	}
	n->nstacks++;
	return st;
}

/* ---- the copy -------------------------------------------------------------- */

/* @str into the copy's text: its offset (0, "", when out of memory) */
static uint32_t copy_text(struct pprof_copy *c, const char *str, bool *oom)
{
	size_t len = strlen(str) + 1;
	uint32_t at;

	if (c->textlen + len > c->textcap) {
		size_t nc = c->textcap ? c->textcap * 2 : 4096;
		char *nt;

		while (nc < c->textlen + len)
			nc *= 2;
		nt = nc > UINT32_MAX ? NULL : realloc(c->text, nc);
		if (!nt) {
			*oom = true;
			return 0;
		}
		c->text = nt;
		c->textcap = nc;
	}
	at = (uint32_t)c->textlen;
	memcpy(c->text + at, str, len);
	c->textlen += len;
	return at;
}

/* the header's words: the sample type, its unit, the comments go tool pprof -top prints */
static void copy_header(struct pprof_copy *c, struct session *s, const struct report_opts *o,
			bool *oom)
{
	const struct session_stats *st = session_stats(s);
	char comment[512];
	unsigned int i;

	copy_text(c, "", oom); /* offset 0: "" */
	snprintf(comment, sizeof(comment), "%s", o->rank.weight ? session_weight_name(s) : "hits");
	c->name = copy_text(c, comment, oom);
	snprintf(comment + strlen(comment), sizeof(comment) - strlen(comment), "_interval");
	c->iname = copy_text(c, comment, oom);
	c->unit = copy_text(c, export_unit_name(s, &o->rank), oom);
	snprintf(comment, sizeof(comment), "stacktop %s, mode %s, kernel %s", STACKTOP_VERSION,
		 session_mode_name(st->mode), st->kernel);
	c->comments[c->ncomments++] = copy_text(c, comment, oom);
	snprintf(comment, sizeof(comment), "events: %s", session_traced(s));
	c->comments[c->ncomments++] = copy_text(c, comment, oom);
	/* what the samples miss */
	export_losses_get(s, false, &c->lost_total);
	export_losses_get(s, true, &c->lost_delta);
	for (i = 0; i < 2; i++) {
		const struct export_losses *l = i == 0 ? &c->lost_delta : &c->lost_total;

		if (!export_losses_any(l))
			continue;
		export_losses_text(comment + 8, sizeof(comment) - 8, l);
		memcpy(comment, "losses: ", 8);
		c->comments[c->ncomments++] = copy_text(c, comment, oom);
	}
	if (export_user_text(comment, sizeof(comment), st) > 0)
		c->comments[c->ncomments++] = copy_text(c, comment, oom);
	/* the counters that say what the samples leave out (output/counters.c) */
	memcpy(comment, "counters: ", 10);
	if (counters_named(comment + 10, sizeof(comment) - 10, st, CP_PROFILE) > 0)
		c->comments[c->ncomments++] = copy_text(c, comment, oom);
	c->interval_sec = st->interval_sec;
	c->generation = st->generation;
	c->nevents = session_nevents(s);
	c->events = calloc(c->nevents ? c->nevents : 1, sizeof(*c->events));
	if (!c->events)
		*oom = true;
	for (i = 0; c->events && i < c->nevents; i++)
		c->events[i] = copy_text(c, session_event(s, i), oom);
}

/* a record's command: copied once a pid (@comms: pid -> offset + 1) */
static uint32_t copy_comm(struct pprof_copy *c, struct session *s, struct hmap *comms, int pid,
			  bool *oom)
{
	uint64_t *slot = hmap_slot(comms, (uint64_t)(uint32_t)pid, NULL);

	if (!slot) {
		*oom = true;
		return 0;
	}
	if (!*slot)
		*slot = (uint64_t)copy_text(c, session_comm(s, pid), oom) + 1;
	return (uint32_t)(*slot - 1);
}

static int copy_rec(struct pprof_copy *c, size_t *cap)
{
	if (c->nrecs == *cap) {
		size_t nc = *cap ? *cap * 2 : 1024;
		struct pprof_rec *nr = realloc(c->recs, nc * sizeof(*nr));

		if (!nr)
			return -ENOMEM;
		c->recs = nr;
		*cap = nc;
	}
	return 0;
}

/* a ranked stack: its Locations (resolved when new), its counts, its records that pass */
static int copy_row(struct pprof_copy *c, struct session *s, const struct report_opts *o,
		    const struct rank_row *rr, struct pprof_row *row, struct hmap *comms,
		    size_t *cap, bool *oom)
{
	struct stack_table *t = session_table(s);
	const struct stack_attr *a;

	row->stk = names_stack(c->names, session_ksym(s), rr->stack);
	if (!row->stk)
		return -ENOMEM;
	row->key = export_since_key_stack(rr->stack);
	row->total = rr->total;
	row->delta = rr->delta;
	row->rec0 = (uint32_t)c->nrecs;
	for (a = rr->stack->attrs; a; a = a->next) {
		struct pprof_rec *r;
		uint64_t d, tot;

		if (!export_attr_passes(&o->rank, a))
			continue;
		tot = export_attr_total(t, &o->rank, a, &d);
		if (!tot && !d)
			continue;
		if (copy_rec(c, cap) < 0)
			return -ENOMEM;
		r = &c->recs[c->nrecs++];
		r->key = export_since_key_attr(a);
		r->total = tot;
		r->delta = d;
		r->pid = a->pid;
		r->event = a->event;
		r->cpu = a->cpu;
		r->comm = a->pid != -1 ? copy_comm(c, s, comms, a->pid, oom) : 0;
	}
	row->nrec = (uint32_t)(c->nrecs - row->rec0);
	return 0;
}

struct pprof_copy *pprof_copy_take(struct session *s, struct pprof_names *n,
				   const struct report_opts *o)
{
	struct pprof_copy *c = calloc(1, sizeof(*c));
	struct hmap comms = { 0 };
	struct rank_summary sum;
	struct rank_row *rr = NULL;
	struct timespec ts;
	size_t nr = 0, i, cap = 0;
	bool oom = false;
	int r;

	if (!c)
		return NULL;
	c->refs = 1;
	__atomic_add_fetch(&n->refs, 1, __ATOMIC_RELAXED);
	c->names = n;
	c->lost_stack = o->lost_stack;
	c->delta = o->delta;
	c->filters = rank_filters_attrs(&o->rank);
	clock_gettime(CLOCK_REALTIME, &ts);
	c->time_ns = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	clock_gettime(CLOCK_MONOTONIC, &c->at);
	copy_header(c, s, o, &oom);
	r = export_rows(s, &o->rank, SIZE_MAX, &rr, &nr, &sum);
	if (r >= 0 && !oom) {
		c->rows = calloc(nr ? nr : 1, sizeof(*c->rows));
		r = c->rows ? 0 : -ENOMEM;
	}
	for (i = 0; r >= 0 && !oom && i < nr; i++)
		r = copy_row(c, s, o, &rr[i], &c->rows[i], &comms, &cap, &oom);
	c->nrows = i;
	free(rr);
	hmap_done(&comms);
	c->nstrs = (uint32_t)n->strs.n;
	c->nfuncs = (uint32_t)n->funcs.n;
	c->nlocs = (uint32_t)n->locs.n;
	if (r < 0 || oom || n->oom) {
		pprof_copy_put(c);
		return NULL;
	}
	return c;
}

struct pprof_copy *pprof_copy_get(struct pprof_copy *c)
{
	__atomic_add_fetch(&c->refs, 1, __ATOMIC_RELAXED);
	return c;
}

void pprof_copy_put(struct pprof_copy *c)
{
	if (!c || __atomic_sub_fetch(&c->refs, 1, __ATOMIC_ACQ_REL))
		return;
	pprof_names_put(c->names);
	free(c->rows);
	free(c->recs);
	free(c->text);
	free(c->events);
	free(c);
}
