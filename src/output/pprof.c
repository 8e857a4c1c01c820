// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pprof.c - the pprof profile (profile.proto, gzip'd), hand-encoded.
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

#include "sym/brief.h"
#include "output/counters.h"
#include "output/formats.h"
#include "output/losses.h"
#include "output/rows.h"
#include "output/since.h"
#include "core/format.h"
#include "core/hmap.h"
#include "core/mix64.h"
#include "sym/frame.h"
#include "sym/ksym.h"
#include "session/session.h"
#include "sym/usym.h"

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
	struct session *s;
	struct ksym *ks;
	struct pbuf out;  /* the Profile message */
	struct pbuf sub;  /* a nested message being built */
	struct pbuf sub2; /* one level deeper (Line in Location, Label in Sample) */
	char **strs;	  /* string table, index order */
	size_t nstrs;
	size_t capstrs;
	struct hmap strmap; /* FNV hash of a string -> index + 1 (hmap_chain()) */
	struct hmap funcs;  /* name index << 32 | file index -> function id */
	struct hmap locs;   /* address -> location id */
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

/* the string table index of @str, added when new */
static uint64_t pp_str(struct pprof *p, const char *str)
{
	uint64_t h = str_hash(str), k;

	/* the chain of keys h, hmap_chain(h), ... until the string or a free key */
	for (k = h;; k = hmap_chain(k)) {
		uint64_t *slot = hmap_slot(&p->strmap, k, NULL);
		char *dup;

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
			char **ns = realloc(p->strs, nc * sizeof(*ns));

			if (!ns) {
				p->oom = true;
				return 0;
			}
			p->strs = ns;
			p->capstrs = nc;
		}
		dup = strdup(str);
		if (!dup) {
			p->oom = true;
			return 0;
		}
		p->strs[p->nstrs++] = dup;
		*slot = p->nstrs;
		return p->nstrs - 1;
	}
}

/*
 * the function of a frame: its name, its module as the file name (a user
 * frame's file; its source file when the DWARF gave its line, *@line)
 */
static uint64_t pp_func(struct pprof *p, uint64_t ip, int64_t *line)
{
	char name[256], file[512], src[512], *colon;
	struct ksym_hit h;
	uint64_t ni, fi, *slot;
	size_t l;

	*line = 0;
	fmt_func(name, sizeof(name), p->ks, ip, 0);
	/* an inlined call is a Line of its caller's Location: no mark in its name */
	l = strlen(name);
	if (usym_is_inline(ksym_usym(p->ks), ip) && l > 10 && !strcmp(name + l - 10, " (inlined)"))
		name[l - 10] = '\0';
	if ((usym_is_user(ip) ? usym_srcline(ksym_usym(p->ks), ip, src, sizeof(src), true)
			      : usym_kernel_srcline(ksym_usym(p->ks), ip, true, src, sizeof(src),
						    true)) > 0 &&
	    (colon = strrchr(src, ':')) != NULL) {
		*colon = '\0';
		*line = strtoll(colon + 1, NULL, 10);
		snprintf(file, sizeof(file), "%s", src);
	} else if (usym_is_user(ip)) {
		char full[400], *o;

		/* "func (file)": the file is the function's */
		fmt_func(full, sizeof(full), p->ks, ip, 1);
		o = strrchr(full, '(');
		l = strlen(full);
		if (o && l && full[l - 1] == ')' && o > full) {
			full[l - 1] = '\0';
			snprintf(file, sizeof(file), "%s", o + 1);
		} else {
			snprintf(file, sizeof(file), "[user]");
		}
	} else if (p->ks && ksym_lookup_frame(p->ks, ip, &h) == 0 && h.module) {
		char mod[96];

		fmt_sanitize(mod, sizeof(mod), h.module, strlen(h.module));
		snprintf(file, sizeof(file), "[%s]", mod);
	} else {
		snprintf(file, sizeof(file), KERNEL_MAPPING);
	}
	ni = pp_str(p, name);
	fi = pp_str(p, file);
	slot = hmap_slot(&p->funcs, ni << 32 | fi, NULL);
	if (!slot) {
		p->oom = true;
		return 0;
	}
	if (!*slot) {
		*slot = ++p->nfuncs;
		/* the Function message goes straight into the profile */
		pb_uint(&p->sub, 1, *slot);
		pb_uint(&p->sub, 2, ni);
		pb_uint(&p->sub, 3, ni);
		pb_uint(&p->sub, 4, fi);
		pb_msg(&p->out, 5, &p->sub);
	}
	return *slot;
}

#define PP_LINES_MAX 64 /* Lines of one Location at most (the innermost calls go) */

/* a Location's Lines into p->sub: each frame's function (written first) and source line */
static void pp_lines(struct pprof *p, const uint64_t *ips, unsigned int n)
{
	uint64_t fid[PP_LINES_MAX];
	int64_t line[PP_LINES_MAX];
	unsigned int k;

	if (n > PP_LINES_MAX) {
		ips += n - PP_LINES_MAX;
		n = PP_LINES_MAX;
	}
	/* the Functions go to the profile through p->sub: before the Location uses it */
	for (k = 0; k < n; k++)
		fid[k] = pp_func(p, ips[k], &line[k]);
	for (k = 0; k < n; k++) {
		pb_uint(&p->sub2, 1, fid[k]);
		if (line[k] > 0)
			pb_uint(&p->sub2, 2, (uint64_t)line[k]);
		pb_msg(&p->sub, 4, &p->sub2);
	}
}

/*
 * The Location of @n frames: the calls inlined at an address (innermost
 * first) and the frame they were inlined into, the last one (@n 1: a frame
 * alone). Its Lines in that order, as pprof expects them.
 */
static uint64_t pp_loc(struct pprof *p, const uint64_t *ips, unsigned int n)
{
	uint64_t ip = ips[n - 1], key = ip, *slot, id;
	unsigned int k;

	/* a group's key: a hash of its frames (an inlined call's token follows its caller's) */
	if (n > 1)
		key = mix64(ip);
	for (k = 0; k + 1 < n; k++)
		key = mix64(key ^ ips[k]);
	slot = hmap_slot(&p->locs, key, NULL);
	if (!slot) {
		p->oom = true;
		return 0;
	}
	if (*slot)
		return *slot;
	id = *slot = ++p->nlocs;
	/* the functions may grow other maps, not this one: @slot stays valid */
	if (usym_is_user(ip)) {
		/* a user frame: its own mapping, its real address (the function's
		 * file is the frame's file, from its name) */
		uint64_t addr = 0;
		uint32_t tgid;

		if (usym_lookup(ksym_usym(p->ks), ip, &tgid, &addr) < 0)
			addr = 0;
		if (!p->user || addr < p->ulo)
			p->ulo = addr;
		if (!p->user || addr > p->uhi)
			p->uhi = addr;
		p->user = true;
		pp_lines(p, ips, n);
		pb_uint(&p->sub, 1, id);
		pb_uint(&p->sub, 2, 2);
		pb_uint(&p->sub, 3, addr);
		pb_msg(&p->out, 4, &p->sub);
		return id;
	}
	if (id == 1 || ip < p->lo)
		p->lo = ip;
	if (id == 1 || ip > p->hi)
		p->hi = ip;
	pp_lines(p, ips, n);
	pb_uint(&p->sub, 1, id);
	pb_uint(&p->sub, 2, 1);
	pb_uint(&p->sub, 3, ip);
	pb_msg(&p->out, 4, &p->sub);
	return id;
}

static void pp_label_str(struct pprof *p, const char *key, const char *val)
{
	pb_uint(&p->sub2, 1, pp_str(p, key));
	pb_uint(&p->sub2, 2, pp_str(p, val));
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
static void pp_label_cpu(struct pprof *p, int cpu)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%d", cpu);
	pp_label_str(p, "cpu", buf);
}

/* one Sample: the stack's locations, values [hits, hits_interval], labels */
static void pp_sample(struct pprof *p, size_t depth, uint64_t total, uint64_t delta,
		      const struct stack_attr *a)
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
	if (a) {
		pp_label_str(p, "event", session_event(p->s, a->event));
		if (a->pid >= 0) {
			pp_label_str(p, "comm", session_comm(p->s, a->pid));
			pp_label_num(p, "pid", a->pid);
			pp_label_cpu(p, a->cpu);
		} else if (a->pid < -1) {
			/* exited processes folded into their command: no one pid */
			pp_label_str(p, "comm", session_comm(p->s, a->pid));
			pp_label_cpu(p, a->cpu);
		}
	}
	pb_msg(&p->out, 2, &p->sub);
}

/*
 * The window's samples (@o->since): each record's count since the window
 * opened; a record folded into its command's in the window (a new record
 * holding the old ones' counts) is held to what the stack counted in it
 */
static int pp_stack_since(struct pprof *p, const struct report_opts *o, const struct rank_row *row,
			  unsigned int n_locs)
{
	struct stack_table *t = session_table(p->s);
	const struct stack *sk = row->stack;
	const struct stack_attr *a;
	uint64_t win = export_since_stack(o->since, p->s, sk, row->total), sum = 0, excess;
	int n = 0;

	if (!win)
		return 0;
	for (a = sk->attrs; a; a = a->next)
		if (export_attr_passes(&o->rank, a))
			sum += export_since_attr(o->since, p->s, a,
						 export_attr_total(t, &o->rank, a, NULL));
	excess = !rank_filters_attrs(&o->rank) && sum > win ? sum - win : 0;
	sum = 0;
	for (a = sk->attrs; a; a = a->next) {
		uint64_t d, tot = export_attr_total(t, &o->rank, a, &d), v;

		if (!export_attr_passes(&o->rank, a))
			continue;
		v = export_since_attr(o->since, p->s, a, tot);
		if (excess && stack_pid_folded(a->pid)) {
			uint64_t cut = v < excess ? v : excess;

			v -= cut;
			excess -= cut;
		}
		if (!v)
			continue;
		pp_sample(p, n_locs, v, d, a);
		sum += v;
		n++;
	}
	/* hits no record holds: unlabelled */
	if (!rank_filters_attrs(&o->rank) && win > sum) {
		pp_sample(p, n_locs, win - sum, 0, NULL);
		n++;
	}
	return p->oom || p->sub.oom || p->sub2.oom || p->out.oom ? -ENOMEM : n;
}

static int pp_stack(struct pprof *p, const struct report_opts *o, const struct rank_row *row)
{
	struct stack_table *t = session_table(p->s);
	const struct stack *sk = row->stack;
	const struct stack_attr *a;
	uint64_t tsum = 0, dsum = 0;
	int n = 0;
	unsigned int j, n_locs = 0;

	if (sk->depth > p->caplocids) {
		uint64_t *nl = realloc(p->locids, sk->depth * sizeof(*nl));

		if (!nl)
			return -ENOMEM;
		p->locids = nl;
		p->caplocids = sk->depth;
	}
	/*
	 * from the first frame after the tracing machinery, as folded; the
	 * calls inlined at an address are Lines of the Location of the frame
	 * they were inlined into (the next one that is not inlined)
	 */
	for (j = brief_skip(p->ks, sk); j < sk->depth; j++) {
		unsigned int k = j;

		if (usym_is_sep(sk->ips[j]))
			continue; /* the separator is no location */
		while (k + 1 < sk->depth && usym_is_inline(ksym_usym(p->ks), sk->ips[k]) &&
		       !usym_is_sep(sk->ips[k + 1]))
			k++;
		p->locids[n_locs++] = pp_loc(p, sk->ips + j, k - j + 1);
		j = k;
	}
	if (o->since)
		return pp_stack_since(p, o, row, n_locs);
	for (a = sk->attrs; a; a = a->next) {
		uint64_t d, tot = export_attr_total(t, &o->rank, a, &d);

		if (!export_attr_passes(&o->rank, a) || (!tot && !d))
			continue;
		pp_sample(p, n_locs, tot, d, a);
		tsum += tot;
		dsum += d;
		n++;
	}
	/* hits no record holds (a record could not be allocated): unlabelled */
	if (!rank_filters_attrs(&o->rank) && (row->total > tsum || row->delta > dsum)) {
		pp_sample(p, n_locs, row->total > tsum ? row->total - tsum : 0,
			  row->delta > dsum ? row->delta - dsum : 0, NULL);
		n++;
	}
	return p->oom || p->sub.oom || p->sub2.oom || p->out.oom ? -ENOMEM : n;
}

static void pp_value_type(struct pprof *p, unsigned int field, const char *type, const char *unit)
{
	pb_uint(&p->sub, 1, pp_str(p, type));
	pb_uint(&p->sub, 2, pp_str(p, unit));
	pb_msg(&p->out, field, &p->sub);
}

static void pp_header(struct pprof *p, const struct report_opts *o)
{
	const struct session_stats *st = session_stats(p->s);
	struct timespec ts;
	char comment[512];
	int i;

	const char *unit = export_unit_name(p->s, &o->rank);
	char name[80], iname[96];

	if (o->rank.weight)
		snprintf(name, sizeof(name), "%s", session_weight_name(p->s));
	else
		snprintf(name, sizeof(name), "hits");
	snprintf(iname, sizeof(iname), "%s_interval", name);
	pp_str(p, ""); /* string_table[0] must be "" */
	pp_value_type(p, 1, name, unit);
	pp_value_type(p, 1, iname, unit);
	pp_value_type(p, 11, name, unit);
	pb_uint(&p->out, 12, 1);
	pb_uint(&p->out, 14, pp_str(p, o->delta && !o->since ? iname : name));
	clock_gettime(CLOCK_REALTIME, &ts);
	pb_uint(&p->out, 9, (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec);
	if (o->since)
		pb_uint(&p->out, 10, (uint64_t)(export_since_seconds(o->since) * 1e9));
	else if (st->interval_sec > 0)
		pb_uint(&p->out, 10, (uint64_t)(st->interval_sec * 1e9));
	snprintf(comment, sizeof(comment), "stacktop %s, mode %s, kernel %s", STACKTOP_VERSION,
		 session_mode_name(st->mode), st->kernel);
	pb_uint(&p->out, 13, pp_str(p, comment));
	snprintf(comment, sizeof(comment), "events: %s", session_traced(p->s));
	pb_uint(&p->out, 13, pp_str(p, comment));
	/* what the samples miss (go tool pprof -top prints the comments) */
	for (i = 0; i < 2; i++) {
		struct export_losses l;

		export_losses_get(p->s, i == 0, &l);
		if (!export_losses_any(&l))
			continue;
		export_losses_text(comment + 8, sizeof(comment) - 8, &l);
		memcpy(comment, "losses: ", 8);
		pb_uint(&p->out, 13, pp_str(p, comment));
	}
	if (export_user_text(comment, sizeof(comment), st) > 0)
		pb_uint(&p->out, 13, pp_str(p, comment));
	/* the counters that say what the samples leave out (output/counters.c) */
	memcpy(comment, "counters: ", 10);
	if (counters_named(comment + 10, sizeof(comment) - 10, st, CP_PROFILE) > 0)
		pb_uint(&p->out, 13, pp_str(p, comment));
}

/*
 * --folded-lost: one more sample, a location of its own named
 * EXPORT_LOST_FRAME, valued at the share of both sample types the ring
 * buffer lost (losses.h)
 */
static void pp_lost(struct pprof *p)
{
	struct export_losses lt, ld;
	uint64_t vt, vd, id;

	export_losses_get(p->s, false, &lt);
	export_losses_get(p->s, true, &ld);
	vt = export_losses_scale(&lt, p->sum_total);
	vd = export_losses_scale(&ld, p->sum_delta);
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

/* the profile, gzip'd (@gz) or as the bare protobuf */
static int pprof_write(FILE *f, struct session *s, const struct report_opts *o, bool gz)
{
	struct pprof p = { .s = s, .ks = session_ksym(s) };
	struct rank_summary sum;
	struct rank_row *rows;
	size_t n, i;
	int r, samples = 0;

	r = export_rows(s, &o->rank, SIZE_MAX, &rows, &n, &sum);
	if (r < 0)
		return r;
	pp_header(&p, o);
	for (i = 0; i < n; i++) {
		r = pp_stack(&p, o, &rows[i]);
		if (r < 0)
			break;
		samples += r;
	}
	if (r >= 0 && o->lost_stack)
		pp_lost(&p);
	if (r >= 0) {
		pp_trailer(&p);
		r = p.oom || p.out.oom || p.sub.oom || p.sub2.oom ? -ENOMEM : 0;
	}
	if (r >= 0 && p.out.len > UINT32_MAX)
		r = -EFBIG;
	if (r >= 0 && gz)
		r = export_gzip(f, p.out.p, p.out.len);
	else if (r >= 0)
		r = fwrite(p.out.p, 1, p.out.len, f) == p.out.len ? export_flush(f) : -EIO;
	for (i = 0; i < p.nstrs; i++)
		free(p.strs[i]);
	free(p.strs);
	hmap_done(&p.strmap);
	hmap_done(&p.funcs);
	hmap_done(&p.locs);
	free(p.locids);
	free(p.out.p);
	free(p.sub.p);
	free(p.sub2.p);
	free(rows);
	return r < 0 ? r : samples;
}

int export_pprof(FILE *f, struct session *s, const struct report_opts *o)
{
	return pprof_write(f, s, o, true);
}

int export_pprof_raw(FILE *f, struct session *s, const struct report_opts *o)
{
	return pprof_write(f, s, o, false);
}
