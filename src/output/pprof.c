// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pprof.c - the pprof profile (profile.proto, gzip'd), hand-encoded from
 * a copy of its counts and names (pprof_copy.h): on any thread, the
 * session untouched (--serve's server writes it while the collector reads).
 *
 * The few messages pprof needs are written directly as protobuf: varints
 * and length-delimited fields, nested messages encoded into their own
 * buffer first. Field numbers follow github.com/google/pprof
 * proto/profile.proto:
 *
 *   Profile:   1 sample_type, 2 sample, 3 mapping, 4 location, 5 function,
 *              6 string_table, 9 time_nanos, 10 duration_nanos,
 *              11 period_type, 12 period, 13 comment, 14 default_sample_type
 *   ValueType: 1 type, 2 unit (string indexes)
 *   Sample:    1 location_id (packed, leaf first), 2 value (packed), 3 label
 *   Label:     1 key, 2 str, 3 num
 *   Mapping:   1 id, 2 memory_start, 3 memory_limit, 5 filename, 7 has_functions
 *   Location:  1 id, 2 mapping_id, 3 address, 4 line
 *   Line:      1 function_id
 *   Function:  1 id, 2 name, 3 system_name, 4 filename
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/hmap.h"
#include "output/formats.h"
#include "output/losses.h"
#include "output/pprof_copy.h"
#include "output/rows.h"
#include "output/since.h"

#define KERNEL_MAPPING "[kernel.kallsyms]"

struct pbuf {
	uint8_t *p;
	size_t len;
	size_t cap;
	bool oom;
};

static void pb_put(struct pbuf *b, const void *data, size_t n)
{
	if (b->oom || !n)
		return;
	if (b->len + n > b->cap) {
		size_t nc = b->cap ? b->cap : 256;
		uint8_t *np;

		while (nc < b->len + n)
			nc *= 2;
		np = realloc(b->p, nc);
		if (!np) {
			b->oom = true;
			return;
		}
		b->p = np;
		b->cap = nc;
	}
	memcpy(b->p + b->len, data, n);
	b->len += n;
}

static void pb_varint(struct pbuf *b, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = 0;

	do {
		tmp[n] = (uint8_t)(v & 0x7f);
		v >>= 7;
		if (v)
			tmp[n] |= 0x80;
		n++;
	} while (v);
	pb_put(b, tmp, n);
}

/* a varint field (wire type 0); zero is the default and is left out */
static void pb_uint(struct pbuf *b, unsigned int field, uint64_t v)
{
	if (!v)
		return;
	pb_varint(b, (uint64_t)field << 3);
	pb_varint(b, v);
}

/* a length-delimited field (wire type 2) */
static void pb_bytes(struct pbuf *b, unsigned int field, const void *data, size_t n)
{
	pb_varint(b, (uint64_t)field << 3 | 2);
	pb_varint(b, n);
	pb_put(b, data, n);
}

/* a nested message; @sub is emptied for reuse */
static void pb_msg(struct pbuf *b, unsigned int field, struct pbuf *sub)
{
	if (sub->oom)
		b->oom = true;
	pb_bytes(b, field, sub->p, sub->len);
	sub->len = 0;
}

/* ---- interning: strings, functions, locations ---------------------------- */

struct pprof {
	const struct pprof_copy *c;
	const struct pprof_names *n;
	struct export_since *since; /* a window's start, indexed; NULL: since start */
	struct pbuf out;	    /* the Profile message */
	struct pbuf sub;	    /* a nested message being built */
	struct pbuf sub2;	    /* one level deeper (Line in Location, Label in Sample) */
	const char **strs;	    /* string table, index order (the copy's, or @own's) */
	size_t nstrs;
	size_t capstrs;
	char **own; /* strings made while writing (a CPU's number past 1023), freed after */
	size_t nown;
	struct hmap strmap; /* FNV hash of a string -> index + 1 (hmap_chain()) */
	uint32_t *strid;    /* a string of the table -> its index here + 1 */
	uint32_t *funcid;   /* a Function of the table -> its id here */
	uint32_t *locid;    /* a Location of the table -> its id here */
	uint64_t nfuncs;    /* function ids given: 1 .. nfuncs */
	uint64_t nlocs;	    /* location ids given: 1 .. nlocs */
	uint64_t lo, hi;    /* address range of the locations */
	uint64_t ulo, uhi;  /* ... of the user-space ones (-u), mapping 2 */
	bool user;	    /* some location is a user frame */
	uint64_t *locids;
	size_t caplocids;
	uint64_t sum_total; /* the values written: what --folded-lost scales */
	uint64_t sum_delta;
	bool oom;
};

static uint64_t str_hash(const char *p)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *p; p++) {
		h ^= (unsigned char)*p;
		h *= 0x100000001b3ULL;
	}
	return h;
}

/*
 * the string table index of @str, added when new: the pointer kept (a
 * string of the copy or a literal, which outlive the writing), or a copy
 * of it (@dup)
 */
static uint64_t pp_str_at(struct pprof *p, const char *str, bool dup)
{
	uint64_t h = str_hash(str), k;

	/* the chain of keys h, hmap_chain(h), ... until the string or a free key */
	for (k = h;; k = hmap_chain(k)) {
		uint64_t *slot = hmap_slot(&p->strmap, k, NULL);

		if (!slot) {
			p->oom = true;
			return 0;
		}
		if (*slot) {
			if (!strcmp(p->strs[*slot - 1], str))
				return *slot - 1;
			continue;
		}
		if (p->nstrs == p->capstrs) {
			size_t nc = p->capstrs ? p->capstrs * 2 : 256;
			const char **ns = realloc(p->strs, nc * sizeof(*ns));

			if (!ns) {
				p->oom = true;
				return 0;
			}
			p->strs = ns;
			p->capstrs = nc;
		}
		if (dup) {
			char **no = realloc(p->own, (p->nown + 1) * sizeof(*no));

			if (no)
				p->own = no;
			str = no ? strdup(str) : NULL;
			if (!str) {
				p->oom = true;
				return 0;
			}
			p->own[p->nown++] = (char *)str;
		}
		p->strs[p->nstrs++] = str;
		*slot = p->nstrs;
		return p->nstrs - 1;
	}
}

static uint64_t pp_str(struct pprof *p, const char *str)
{
	return pp_str_at(p, str, false);
}

/* a string of the table of names: looked up by its text once */
static uint64_t pp_name(struct pprof *p, uint32_t i)
{
	if (!p->strid[i])
		p->strid[i] = (uint32_t)pp_str(p, pprof_names_str(p->n, i)) + 1;
	return p->strid[i] - 1;
}

/* a Function of the table: its id, the Function written when new */
static uint64_t pp_func(struct pprof *p, uint32_t i)
{
	const struct pprof_func *f = pprof_names_func(p->n, i);
	uint64_t ni, fi;

	if (p->funcid[i])
		return p->funcid[i];
	ni = pp_name(p, f->name);
	fi = pp_name(p, f->file);
	p->funcid[i] = (uint32_t)++p->nfuncs;
	/* the Function message goes straight into the profile */
	pb_uint(&p->sub, 1, p->funcid[i]);
	pb_uint(&p->sub, 2, ni);
	pb_uint(&p->sub, 3, ni);
	pb_uint(&p->sub, 4, fi);
	pb_msg(&p->out, 5, &p->sub);
	return p->funcid[i];
}

/* a Location's Lines into p->sub: each frame's function (written first) and source line */
static void pp_lines(struct pprof *p, const struct pprof_loc *lc)
{
	uint64_t fid[64];
	unsigned int k, n = lc->nlines < 64 ? lc->nlines : 64;

	/* the Functions go to the profile through p->sub: before the Location uses it */
	for (k = 0; k < n; k++)
		fid[k] = pp_func(p, pprof_names_line(p->n, lc->line0 + k)->func);
	for (k = 0; k < n; k++) {
		pb_uint(&p->sub2, 1, fid[k]);
		pb_uint(&p->sub2, 2, pprof_names_line(p->n, lc->line0 + k)->line);
		pb_msg(&p->sub, 4, &p->sub2);
	}
}

/* a Location of the table: its id, the Location (and its Functions) written when new */
static uint64_t pp_loc(struct pprof *p, uint32_t i)
{
	const struct pprof_loc *lc = pprof_names_loc(p->n, i);
	uint64_t id;

	if (p->locid[i])
		return p->locid[i];
	id = p->locid[i] = (uint32_t)++p->nlocs;
	if (lc->user) {
		/* a user frame: its own mapping, its real address */
		if (!p->user || lc->addr < p->ulo)
			p->ulo = lc->addr;
		if (!p->user || lc->addr > p->uhi)
			p->uhi = lc->addr;
		p->user = true;
	} else {
		if (id == 1 || lc->addr < p->lo)
			p->lo = lc->addr;
		if (id == 1 || lc->addr > p->hi)
			p->hi = lc->addr;
	}
	pp_lines(p, lc);
	pb_uint(&p->sub, 1, id);
	pb_uint(&p->sub, 2, lc->user ? 2 : 1);
	pb_uint(&p->sub, 3, lc->addr);
	pb_msg(&p->out, 4, &p->sub);
	return id;
}

static void pp_label_str(struct pprof *p, const char *key, const char *val, bool dup)
{
	pb_uint(&p->sub2, 1, pp_str(p, key));
	pb_uint(&p->sub2, 2, pp_str_at(p, val, dup));
	pb_msg(&p->sub, 3, &p->sub2);
}

static void pp_label_num(struct pprof *p, const char *key, int64_t val)
{
	pb_uint(&p->sub2, 1, pp_str(p, key));
	pb_varint(&p->sub2, 3 << 3);
	pb_varint(&p->sub2, (uint64_t)val);
	pb_msg(&p->sub, 3, &p->sub2);
}

/*
 * the CPU as a string label: Go's profile reader drops a numeric label whose
 * value is 0 (it takes num 0 for "no number"), and with it every sample of
 * CPU 0 from -tags and -tagfocus cpu=0 (issue 27)
 */
static void pp_label_cpu(struct pprof *p, unsigned int cpu)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%u", cpu);
	pp_label_str(p, "cpu", buf, true);
}

/* one Sample: the stack's locations, values [hits, hits_interval], labels */
static void pp_sample(struct pprof *p, size_t depth, uint64_t total, uint64_t delta,
		      const struct pprof_rec *r)
{
	struct pbuf packed = { 0 };
	size_t j;

	for (j = 0; j < depth; j++)
		pb_varint(&packed, p->locids[j]);
	pb_bytes(&p->sub, 1, packed.p, packed.len);
	packed.len = 0;
	pb_varint(&packed, total);
	pb_varint(&packed, delta);
	pb_bytes(&p->sub, 2, packed.p, packed.len);
	if (packed.oom)
		p->oom = true;
	free(packed.p);
	p->sum_total += total;
	p->sum_delta += delta;
	if (r) {
		const struct pprof_copy *c = p->c;

		pp_label_str(p, "event",
			     r->event < c->nevents ? c->text + c->events[r->event] : "?", false);
		if (r->pid >= 0) {
			pp_label_str(p, "comm", c->text + r->comm, false);
			pp_label_num(p, "pid", r->pid);
			pp_label_cpu(p, r->cpu);
		} else if (r->pid < -1) {
			/* exited processes folded into their command: no one pid */
			pp_label_str(p, "comm", c->text + r->comm, false);
			pp_label_cpu(p, r->cpu);
		}
	}
	pb_msg(&p->out, 2, &p->sub);
}

static bool pp_failed(const struct pprof *p)
{
	return p->oom || p->sub.oom || p->sub2.oom || p->out.oom;
}

/* the records' counts in the window (what each counted since it opened) */
static uint64_t rec_since(const struct pprof *p, const struct pprof_rec *r)
{
	return export_since_get(p->since, p->c->generation, r->key, r->total);
}

/*
 * The window's samples (p->since): each record's count since the window
 * opened; a record folded into its command's in the window (a new record
 * holding the old ones' counts) is held to what the stack counted in it.
 * A stack that counted nothing in the window is left out, its Locations too.
 */
static int pp_stack_since(struct pprof *p, const struct pprof_row *row)
{
	const struct pprof_rec *r, *end = p->c->recs + row->rec0 + row->nrec;
	uint64_t win = export_since_get(p->since, p->c->generation, row->key, row->total), sum = 0,
		 excess;
	unsigned int j;
	int n = 0;

	/* with records filtered, the row's count is theirs: only they tell */
	if (!win && !p->c->filters)
		return 0;
	for (r = p->c->recs + row->rec0; r < end; r++)
		sum += rec_since(p, r);
	if (!sum && (p->c->filters || !win))
		return 0;
	for (j = 0; j < row->stk->n; j++)
		p->locids[j] = pp_loc(p, row->stk->locs[j]);
	excess = !p->c->filters && sum > win ? sum - win : 0;
	sum = 0;
	for (r = p->c->recs + row->rec0; r < end; r++) {
		uint64_t v = rec_since(p, r);

		if (excess && stack_pid_folded(r->pid)) {
			uint64_t cut = v < excess ? v : excess;

			v -= cut;
			excess -= cut;
		}
		if (!v)
			continue;
		pp_sample(p, row->stk->n, v, r->delta, r);
		sum += v;
		n++;
	}
	/* hits no record holds: unlabelled */
	if (!p->c->filters && win > sum) {
		pp_sample(p, row->stk->n, win - sum, 0, NULL);
		n++;
	}
	return pp_failed(p) ? -ENOMEM : n;
}

static int pp_stack(struct pprof *p, const struct pprof_row *row)
{
	const struct pprof_rec *r, *end = p->c->recs + row->rec0 + row->nrec;
	uint64_t tsum = 0, dsum = 0;
	unsigned int j;
	int n = 0;

	if (row->stk->n > p->caplocids) {
		uint64_t *nl = realloc(p->locids, row->stk->n * sizeof(*nl));

		if (!nl)
			return -ENOMEM;
		p->locids = nl;
		p->caplocids = row->stk->n;
	}
	if (p->since)
		return pp_stack_since(p, row);
	for (j = 0; j < row->stk->n; j++)
		p->locids[j] = pp_loc(p, row->stk->locs[j]);
	for (r = p->c->recs + row->rec0; r < end; r++) {
		pp_sample(p, row->stk->n, r->total, r->delta, r);
		tsum += r->total;
		dsum += r->delta;
		n++;
	}
	/* hits no record holds (a record could not be allocated): unlabelled */
	if (!p->c->filters && (row->total > tsum || row->delta > dsum)) {
		pp_sample(p, row->stk->n, row->total > tsum ? row->total - tsum : 0,
			  row->delta > dsum ? row->delta - dsum : 0, NULL);
		n++;
	}
	return pp_failed(p) ? -ENOMEM : n;
}

static void pp_value_type(struct pprof *p, unsigned int field, const char *type, const char *unit)
{
	pb_uint(&p->sub, 1, pp_str(p, type));
	pb_uint(&p->sub, 2, pp_str(p, unit));
	pb_msg(&p->out, field, &p->sub);
}

static void pp_header(struct pprof *p)
{
	const struct pprof_copy *c = p->c;
	const char *name = c->text + c->name, *iname = c->text + c->iname,
		   *unit = c->text + c->unit;
	unsigned int i;

	pp_str(p, ""); /* string_table[0] must be "" */
	pp_value_type(p, 1, name, unit);
	pp_value_type(p, 1, iname, unit);
	pp_value_type(p, 11, name, unit);
	pb_uint(&p->out, 12, 1);
	pb_uint(&p->out, 14, pp_str(p, c->delta && !p->since ? iname : name));
	pb_uint(&p->out, 9, c->time_ns);
	if (p->since) {
		struct timespec t0 = export_since_opened(p->since);
		double d = (double)(c->at.tv_sec - t0.tv_sec) +
			   (double)(c->at.tv_nsec - t0.tv_nsec) / 1e9;

		pb_uint(&p->out, 10, d > 0 ? (uint64_t)(d * 1e9) : 0);
	} else if (c->interval_sec > 0) {
		pb_uint(&p->out, 10, (uint64_t)(c->interval_sec * 1e9));
	}
	for (i = 0; i < c->ncomments; i++)
		pb_uint(&p->out, 13, pp_str(p, c->text + c->comments[i]));
}

/*
 * --folded-lost: one more sample, a location of its own named
 * EXPORT_LOST_FRAME, valued at the share of both sample types the ring
 * buffer lost (losses.h)
 */
static void pp_lost(struct pprof *p)
{
	uint64_t vt, vd, id;

	vt = export_losses_scale(&p->c->lost_total, p->sum_total);
	vd = export_losses_scale(&p->c->lost_delta, p->sum_delta);
	if (!vt && !vd)
		return;
	/* Function, Location (no mapping: it is no address), Sample */
	id = ++p->nfuncs;
	pb_uint(&p->sub, 1, id);
	pb_uint(&p->sub, 2, pp_str(p, EXPORT_LOST_FRAME));
	pb_uint(&p->sub, 3, pp_str(p, EXPORT_LOST_FRAME));
	pb_msg(&p->out, 5, &p->sub);
	pb_uint(&p->sub2, 1, id);
	id = ++p->nlocs;
	pb_uint(&p->sub, 1, id);
	pb_msg(&p->sub, 4, &p->sub2);
	pb_msg(&p->out, 4, &p->sub);
	if (p->caplocids < 1) {
		uint64_t *nl = realloc(p->locids, sizeof(*nl));

		if (!nl) {
			p->oom = true;
			return;
		}
		p->locids = nl;
		p->caplocids = 1;
	}
	p->locids[0] = id;
	pp_sample(p, 1, vt, vd, NULL);
}

static void pp_trailer(struct pprof *p)
{
	size_t i;

	/* the one mapping: the kernel, whose functions are already named */
	pb_uint(&p->sub, 1, 1);
	pb_uint(&p->sub, 2, p->lo);
	pb_uint(&p->sub, 3, p->hi + 1);
	pb_uint(&p->sub, 5, pp_str(p, KERNEL_MAPPING));
	pb_uint(&p->sub, 7, 1);
	pb_msg(&p->out, 3, &p->sub);
	if (p->user) {
		/* user frames (-u): named already, from many files and processes */
		pb_uint(&p->sub, 1, 2);
		pb_uint(&p->sub, 2, p->ulo);
		pb_uint(&p->sub, 3, p->uhi + 1);
		pb_uint(&p->sub, 5, pp_str(p, "[user]"));
		pb_uint(&p->sub, 7, 1);
		pb_msg(&p->out, 3, &p->sub);
	}
	for (i = 0; i < p->nstrs; i++)
		pb_bytes(&p->out, 6, p->strs[i], strlen(p->strs[i]));
}

int export_pprof_copy(FILE *f, const struct pprof_copy *c, struct export_since *since, bool gz)
{
	struct pprof p = { .c = c, .n = c->names, .since = since };
	size_t i;
	int r = 0, samples = 0;

	p.strid = calloc(c->nstrs ? c->nstrs : 1, sizeof(*p.strid));
	p.funcid = calloc(c->nfuncs ? c->nfuncs : 1, sizeof(*p.funcid));
	p.locid = calloc(c->nlocs ? c->nlocs : 1, sizeof(*p.locid));
	if (!p.strid || !p.funcid || !p.locid || (since && export_since_index(since) < 0))
		r = -ENOMEM;
	if (r >= 0)
		pp_header(&p);
	for (i = 0; r >= 0 && i < c->nrows; i++) {
		r = pp_stack(&p, &c->rows[i]);
		if (r >= 0)
			samples += r;
	}
	if (r >= 0 && c->lost_stack)
		pp_lost(&p);
	if (r >= 0) {
		pp_trailer(&p);
		r = pp_failed(&p) ? -ENOMEM : 0;
	}
	if (r >= 0 && p.out.len > UINT32_MAX)
		r = -EFBIG;
	if (r >= 0 && gz)
		r = export_gzip(f, p.out.p, p.out.len);
	else if (r >= 0)
		r = fwrite(p.out.p, 1, p.out.len, f) == p.out.len ? export_flush(f) : -EIO;
	for (i = 0; i < p.nown; i++)
		free(p.own[i]);
	free(p.own);
	free(p.strs);
	hmap_done(&p.strmap);
	free(p.strid);
	free(p.funcid);
	free(p.locid);
	free(p.locids);
	free(p.out.p);
	free(p.sub.p);
	free(p.sub2.p);
	return r < 0 ? r : samples;
}

int export_pprof(FILE *f, struct session *s, const struct report_opts *o)
{
	struct pprof_names *n = pprof_names_new(s);
	struct pprof_copy *c = n ? pprof_copy_take(s, n, o) : NULL;
	int r = c ? export_pprof_copy(f, c, NULL, true) : -ENOMEM;

	pprof_copy_put(c);
	pprof_names_put(n);
	return r;
}
