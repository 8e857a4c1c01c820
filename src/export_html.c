// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * export_html.c - the flame graph page (--format html): one self-contained
 * HTML file, its page (src/flame/) built into stacktop, the profile in it
 * once as JSON.
 *
 * The writer merges the stacks into a call tree itself (a trie keyed by
 * parent node and frame name) and writes it in preorder, children in the
 * alphabetical order of their names, so the page only lays it out: the
 * file stays small (shared callers are written once) and opens fast. Frame
 * names are deduplicated into one table. What the folded output leaves out
 * (the tracing machinery at the leaf, brief_skip()) is in the tree, marked
 * as its own kind: the page hides it unless asked.
 *
 * Every string goes through fmt_sanitize() and is written as a JSON string
 * with '<', '>' and '&' escaped, so a symbol or comm holding "</script>" or
 * markup stays data; the page sets all text with textContent.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "brief.h"
#include "export.h"
#include "export_priv.h"
#include "flame_page.h"
#include "format.h"
#include "hmap.h"
#include "ksym.h"
#include "session.h"
#include "stackmap.h"
#include "usym.h"

/* frame kinds: the page's KIND table has the same order */
enum html_kind {
	HK_KERNEL,
	HK_MODULE,
	HK_USER,
	HK_TRACING, /* leaf-side tracing machinery (brief_skip()): hidden by default */
	HK_COMM,    /* --folded-root: the command */
	HK_PID,	    /* --folded-root pid: the process */
	HK_OTHER,   /* markers: unresolved ids, trampolines, empty stacks, cut walks */
};

#define HTML_EMPTY   "[empty]"
#define HTML_OVER    "[stacks not kept: over --max-memory]"
#define HTML_UNKNOWN "[unknown]"
#define HTML_NONE    UINT32_MAX

struct hname {
	char *label;
	char *where; /* module or file, "" for none */
	uint8_t kind;
};

struct hnode {
	uint64_t h; /* self hits */
	uint64_t w; /* self weight */
	uint32_t name;
	uint32_t child; /* first child (unordered until written) */
	uint32_t next;	/* next sibling */
	uint32_t depth;
};

/*
 * Names are interned as they are met (ids in order of arrival), then
 * sorted once: @final maps an arrival id to its rank in alphabetical
 * order, the id the page gets, so that children sort by it.
 */
struct html {
	struct session *s;
	const struct report_opts *o;
	uint64_t *ips;	      /* every frame address, sorted, unique */
	uint32_t *ip_name;    /* the name id of each as a frame (HTML_NONE: not yet) */
	uint32_t *ip_mach;    /* the same as tracing machinery */
	size_t nips;
	struct hname *names;
	size_t nnames, cnames;
	struct hmap name_index; /* hash of (label, where, kind) -> name id */
	uint32_t *final;
	struct hnode *nodes;
	size_t nnodes, cnodes;
	struct hmap index; /* parent << 32 | name -> node */
	bool weighted;
};

static int name_cmp(const struct hname *a, const struct hname *b)
{
	int r = strcmp(a->label, b->label);

	if (r)
		return r;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	return strcmp(a->where, b->where);
}

static uint64_t name_hash(const char *label, const char *where, enum html_kind kind)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	const char *p;

	for (p = label; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
	h = (h ^ 0xff) * 0x100000001b3ULL;
	for (p = where; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
	return hmap_mix(h, kind);
}

/* the id of a name, added when new */
static int name_intern(struct html *c, const char *label, const char *where, enum html_kind kind,
		       uint32_t *ret)
{
	struct hname key = { .label = (char *)label, .where = (char *)where, .kind = (uint8_t)kind };
	uint64_t h = name_hash(label, where, kind), v;
	struct hname *n;
	int r;

	/* a 64-bit hash shared by two names: the next slot of the chain */
	while (hmap_get(&c->name_index, h, &v)) {
		if (!name_cmp(&c->names[v], &key)) {
			*ret = (uint32_t)v;
			return 0;
		}
		h = hmap_mix(h, 1);
	}
	if (c->nnames == c->cnames) {
		size_t nc = c->cnames ? c->cnames * 2 : 256;
		struct hname *nn = realloc(c->names, nc * sizeof(*nn));

		if (!nn)
			return -ENOMEM;
		c->names = nn;
		c->cnames = nc;
	}
	if (c->nnames >= HTML_NONE)
		return -E2BIG;
	n = &c->names[c->nnames];
	n->label = strdup(label);
	n->where = strdup(where);
	n->kind = (uint8_t)kind;
	if (!n->label || !n->where || (r = hmap_put(&c->name_index, h, c->nnames)) < 0) {
		free(n->label);
		free(n->where);
		return -ENOMEM;
	}
	*ret = (uint32_t)c->nnames++;
	return 0;
}

static const struct html *sort_ctx;

static int name_order(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;

	return name_cmp(&sort_ctx->names[a], &sort_ctx->names[b]);
}

/* the alphabetical order of the names: c->final[arrival id] = page id */
static int names_done(struct html *c, uint32_t **ret_order)
{
	uint32_t *order = malloc((c->nnames ? c->nnames : 1) * sizeof(*order));
	size_t i;

	c->final = malloc((c->nnames ? c->nnames : 1) * sizeof(*c->final));
	if (!order || !c->final) {
		free(order);
		return -ENOMEM;
	}
	for (i = 0; i < c->nnames; i++)
		order[i] = (uint32_t)i;
	sort_ctx = c; /* qsort() has no context argument; the writer runs on one thread */
	qsort(order, c->nnames, sizeof(*order), name_order);
	sort_ctx = NULL;
	for (i = 0; i < c->nnames; i++)
		c->final[order[i]] = (uint32_t)i;
	*ret_order = order;
	return 0;
}

/* a frame's label, module or file, and kind */
static enum html_kind frame_name(struct ksym *ks, uint64_t ip, char *label, size_t lsize,
				 char *where, size_t wsize)
{
	struct ksym_hit h;

	fmt_func(label, lsize, ks, ip, 0);
	where[0] = '\0';
	if (usym_is_user(ip)) {
		char full[512];
		size_t n = strlen(label), m;

		if (ip == USYM_CUT)
			return HK_OTHER;
		/* usym_format() with the file: "label (file)" */
		fmt_func(full, sizeof(full), ks, ip, 1);
		m = strlen(full);
		if (m > n + 3 && !strncmp(full, label, n) && !strncmp(full + n, " (", 2) &&
		    full[m - 1] == ')')
			snprintf(where, wsize, "%.*s", (int)(m - n - 3), full + n + 2);
		return HK_USER;
	}
	if (ip == STACKMAP_TRAMPOLINE || STACK_IP_IS_UNRESOLVED(ip))
		return HK_OTHER;
	if (ks && ksym_lookup(ks, ip, &h) == 0 && h.module) {
		fmt_sanitize(where, wsize, h.module, strlen(h.module));
		return HK_MODULE;
	}
	return HK_KERNEL;
}

static int u64_cmp(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? -1 : a > b;
}

/* what a row counts in the view (hits or weight, filtered); 0: not in the graph */
static uint64_t row_value(const struct html *c, const struct rank_row *row)
{
	return c->o->delta ? row->delta : row->total;
}

/* every frame address of the rows in the graph, sorted, each named on first use */
static int frames_collect(struct html *c, const struct rank_row *rows, size_t n)
{
	size_t total = 0, i, j, m = 0;

	for (i = 0; i < n; i++)
		if (row_value(c, &rows[i]))
			total += rows[i].stack->depth;
	c->ips = malloc((total ? total : 1) * sizeof(*c->ips));
	if (!c->ips)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		for (j = 0; j < rows[i].stack->depth && row_value(c, &rows[i]); j++)
			if (!usym_is_sep(rows[i].stack->ips[j]))
				c->ips[m++] = rows[i].stack->ips[j];
	qsort(c->ips, m, sizeof(*c->ips), u64_cmp);
	for (i = 0, j = 0; i < m; i++)
		if (!j || c->ips[i] != c->ips[j - 1])
			c->ips[j++] = c->ips[i];
	c->nips = j;
	c->ip_name = malloc((j ? j : 1) * sizeof(*c->ip_name));
	c->ip_mach = malloc((j ? j : 1) * sizeof(*c->ip_mach));
	if (!c->ip_name || !c->ip_mach)
		return -ENOMEM;
	for (i = 0; i < c->nips; i++)
		c->ip_name[i] = c->ip_mach[i] = HTML_NONE;
	return 0;
}

/* the name id of frame @ip, as a frame or as tracing machinery */
static int frame_id(struct html *c, uint64_t ip, bool mach, uint32_t *ret)
{
	const uint64_t *hit = bsearch(&ip, c->ips, c->nips, sizeof(ip), u64_cmp);
	uint32_t *slot;
	char label[256], where[256];
	enum html_kind k;

	if (!hit)
		return -EINVAL;
	slot = mach ? &c->ip_mach[hit - c->ips] : &c->ip_name[hit - c->ips];
	if (*slot == HTML_NONE) {
		int r;

		k = frame_name(session_ksym(c->s), ip, label, sizeof(label), where, sizeof(where));
		r = name_intern(c, label, where, mach ? HK_TRACING : k, slot);
		if (r < 0)
			return r;
	}
	*ret = *slot;
	return 0;
}

/* a stack's root: its command (and pid) and what it counts there */
struct hroot {
	char comm[64];
	int pid;
	uint64_t h, w;
};

static int hroot_cmp(const void *pa, const void *pb)
{
	const struct hroot *a = pa, *b = pb;
	int r = strcmp(a->comm, b->comm);

	if (r)
		return r;
	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

/* the hits and weight of record @a under the view */
static void attr_counts(struct html *c, const struct stack_attr *a, uint64_t *h, uint64_t *w)
{
	struct stack_table *t = session_table(c->s);
	uint64_t wd = 0, wt = 0;

	*h = c->o->delta ? stack_attr_delta(t, a) : a->total;
	if (c->weighted)
		wt = stack_attr_weight(t, a, &wd);
	*w = c->o->delta ? wd : wt;
}

/*
 * The roots of @sk: one per command (and pid) with hits under the view
 * (--folded-root), or one without a name holding the whole stack.
 */
static int stack_roots(struct html *c, const struct stack *sk, struct hroot **buf, size_t *cap)
{
	struct stack_table *t = session_table(c->s);
	const struct rank_opts *ro = &c->o->rank;
	const struct stack_attr *a;
	size_t n = 0, i, m;

	if (!*cap) {
		*buf = malloc(16 * sizeof(**buf));
		if (!*buf)
			return -ENOMEM;
		*cap = 16;
	}
	if (c->o->root == EXPORT_ROOT_NONE && !rank_filters_attrs(ro)) {
		uint64_t wd = 0, wt = 0;

		if (c->weighted)
			wt = stack_weight(t, sk, &wd);
		(*buf)[0] = (struct hroot){ .pid = 0,
					    .h = c->o->delta ? stack_delta(t, sk) : sk->total,
					    .w = c->o->delta ? wd : wt };
		return 1;
	}
	for (a = sk->attrs; a; a = a->next) {
		uint64_t h, w;

		if (!export_attr_passes(ro, a))
			continue;
		attr_counts(c, a, &h, &w);
		if (!h && !w)
			continue;
		if (n == *cap) {
			size_t nc = *cap * 2;
			struct hroot *nb = realloc(*buf, nc * sizeof(*nb));

			if (!nb)
				return -ENOMEM;
			*buf = nb;
			*cap = nc;
		}
		(*buf)[n].comm[0] = '\0';
		(*buf)[n].pid = 0;
		if (c->o->root != EXPORT_ROOT_NONE) {
			const char *comm = a->pid == -1 ? HTML_UNKNOWN : session_comm(c->s, a->pid);

			fmt_sanitize((*buf)[n].comm, sizeof((*buf)[n].comm), comm, strlen(comm));
			if (c->o->root == EXPORT_ROOT_PID)
				(*buf)[n].pid = a->pid;
		}
		(*buf)[n].h = h;
		(*buf)[n].w = w;
		n++;
	}
	if (!n)
		return 0;
	qsort(*buf, n, sizeof(**buf), hroot_cmp);
	for (i = 1, m = 0; i < n; i++) {
		if (!hroot_cmp(&(*buf)[i], &(*buf)[m])) {
			(*buf)[m].h += (*buf)[i].h;
			(*buf)[m].w += (*buf)[i].w;
		} else {
			(*buf)[++m] = (*buf)[i];
		}
	}
	return (int)(m + 1);
}

/* what a root counts in the view: what the widths are proportional to */
static uint64_t root_value(const struct html *c, const struct hroot *rt)
{
	return c->o->rank.weight ? rt->w : rt->h;
}

/* the child of @parent named @name, made when absent */
static int node_child(struct html *c, uint32_t parent, uint32_t name, uint32_t *ret)
{
	uint64_t key = (uint64_t)parent << 32 | name, v;
	struct hnode *nd;
	int r;

	if (hmap_get(&c->index, key, &v)) {
		*ret = (uint32_t)v;
		return 0;
	}
	if (c->nnodes == c->cnodes) {
		size_t nc = c->cnodes * 2;
		struct hnode *nn;

		if (nc > UINT32_MAX - 1)
			return -E2BIG;
		nn = realloc(c->nodes, nc * sizeof(*nn));
		if (!nn)
			return -ENOMEM;
		c->nodes = nn;
		c->cnodes = nc;
	}
	r = hmap_put(&c->index, key, c->nnodes);
	if (r < 0)
		return r;
	nd = &c->nodes[c->nnodes];
	*nd = (struct hnode){ .name = name,
			      .child = HTML_NONE,
			      .next = c->nodes[parent].child,
			      .depth = c->nodes[parent].depth + 1 };
	c->nodes[parent].child = (uint32_t)c->nnodes;
	*ret = (uint32_t)c->nnodes++;
	return 0;
}

/* one stack under @node (the root, or its command/pid): root first */
static int tree_add(struct html *c, const struct stack *sk, uint32_t node, uint64_t h, uint64_t w)
{
	unsigned int skip = brief_skip(session_ksym(c->s), sk);
	uint32_t id;
	int j, r;

	if (!sk->depth) {
		r = name_intern(c, sk->flags & STACK_F_OVER ? HTML_OVER : HTML_EMPTY, "", HK_OTHER,
				&id);
		if (r < 0 || (r = node_child(c, node, id, &node)) < 0)
			return r;
	}
	for (j = (int)sk->depth - 1; j >= 0; j--) {
		if (usym_is_sep(sk->ips[j]))
			continue;
		r = frame_id(c, sk->ips[j], (unsigned int)j < skip, &id);
		if (r < 0 || (r = node_child(c, node, id, &node)) < 0)
			return r;
	}
	c->nodes[node].h += h;
	c->nodes[node].w += w;
	return 0;
}

static int tree_build(struct html *c, const struct rank_row *rows, size_t n, size_t *ret_stacks)
{
	struct hroot *roots = NULL;
	size_t cap = 0, i;
	int r = 0;

	*ret_stacks = 0;
	for (i = 0; i < n && r >= 0; i++) {
		const struct stack *sk = rows[i].stack;
		bool any = false;
		int nr, k;

		if (!row_value(c, &rows[i]))
			continue;
		nr = stack_roots(c, sk, &roots, &cap);
		if (nr < 0)
			r = nr;
		for (k = 0; k < nr && r >= 0; k++) {
			uint32_t node = 0, id;
			char pid[16];

			if (!root_value(c, &roots[k]))
				continue;
			if (c->o->root != EXPORT_ROOT_NONE) {
				r = name_intern(c, roots[k].comm, "", HK_COMM, &id);
				if (r >= 0)
					r = node_child(c, node, id, &node);
			}
			/* as folded lines: no pid frame for hits of no process */
			if (r >= 0 && c->o->root == EXPORT_ROOT_PID && roots[k].pid >= 0) {
				snprintf(pid, sizeof(pid), "%d", roots[k].pid);
				r = name_intern(c, pid, "", HK_PID, &id);
				if (r >= 0)
					r = node_child(c, node, id, &node);
			}
			if (r >= 0)
				r = tree_add(c, sk, node, roots[k].h, roots[k].w);
			any = true;
		}
		if (any)
			(*ret_stacks)++;
	}
	free(roots);
	return r;
}

/*
 * A JSON string that is safe inside an HTML <script> element: sanitized,
 * and '<', '>', '&' (and the JavaScript line separators) as \u escapes, so
 * no "</script>" or "<!--" can appear.
 */
static void html_str(FILE *f, const char *str)
{
	char buf[1024];
	const unsigned char *p = (const unsigned char *)buf;

	fmt_sanitize(buf, sizeof(buf), str, strlen(str));
	fputc('"', f);
	for (; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f || *p == '<' || *p == '>' || *p == '&')
			fprintf(f, "\\u%04x", *p);
		else if (p[0] == 0xe2 && p[1] == 0x80 && (p[2] == 0xa8 || p[2] == 0xa9)) {
			fprintf(f, "\\u%04x", p[2] == 0xa8 ? 0x2028 : 0x2029);
			p += 2;
		} else
			fputc(*p, f);
	}
	fputc('"', f);
}

/* what the view is limited to, as the text report's "filters:" line says it */
static void html_filters(char *buf, size_t size, struct session *s, const struct report_opts *o)
{
	const struct rank_opts *r = &o->rank;
	size_t len = 0;

	buf[0] = '\0';
#define ADD(...)                                                                                   \
	do {                                                                                       \
		if (len < size)                                                                    \
			len += (size_t)snprintf(buf + len, size - len, "%s", len ? ", " : "");     \
		if (len < size)                                                                    \
			len += (size_t)snprintf(buf + len, size - len, __VA_ARGS__);               \
	} while (0)
	if (r->event >= 0)
		ADD("event %s", session_event(s, (unsigned int)r->event));
	if (r->pid >= 0)
		ADD("pid %d", r->pid);
	if (r->cpu >= 0)
		ADD("cpu %d", r->cpu);
	if (r->hide_idle)
		ADD("idle stacks hidden");
	if (o->comm)
		ADD("comm \"%s\"", o->comm);
	if (o->filter)
		ADD("text \"%s\"", o->filter);
#undef ADD
}

static void html_meta(FILE *f, struct session *s, const struct report_opts *o,
		      const struct rank_summary *sum)
{
	const struct session_stats *st = session_stats(s);
	struct utsname un;
	struct timespec ts;
	struct tm tm;
	char buf[512];

	fprintf(f, "\"meta\":{\"stacktop\":\"%s\",\"host\":", STACKTOP_VERSION);
	if (session_norigins(s) == 1)
		snprintf(buf, sizeof(buf), "%s", session_origin(s, 0)); /* a snapshot read back */
	else if (gethostname(buf, sizeof(buf)) < 0)
		buf[0] = '\0';
	buf[sizeof(buf) - 1] = '\0';
	html_str(f, buf);
	fputs(",\"kernel\":", f);
	if (st->mode == SESSION_REPLAY && !(session_norigins(s) && st->kernel[0]))
		fputs("null", f);
	else if (st->kernel[0])
		html_str(f, st->kernel);
	else if (uname(&un) == 0)
		html_str(f, un.release);
	else
		fputs("null", f);
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S UTC", &tm);
	fprintf(f, ",\"time\":\"%s\",\"mode\":\"%s\",\"source\":", buf,
		session_mode_name(st->mode));
	html_str(f, st->tracefs);
	fputs(",\"events\":", f);
	html_str(f, session_traced(s));
	fprintf(f,
		",\"interval\":%.3f,\"counts\":\"%s\",\"hits\":%" PRIu64 ",\"stacks\":%zu,"
		"\"matched\":%zu,\"lost\":%" PRIu64 ",\"lost_delta\":%" PRIu64
		",\"overrun\":%" PRIu64 ",\"dropped\":%" PRIu64 ",\"root\":\"%s\",\"user\":",
		st->interval_sec, o->delta ? "delta" : "total", st->events,
		stack_table_count(session_table(s)), sum->matched, st->lost, st->lost_delta,
		st->overrun, st->dropped,
		o->root == EXPORT_ROOT_PID    ? "pid"
		: o->root == EXPORT_ROOT_COMM ? "comm"
					      : "none");
	if (st->user == SESSION_USER_FP)
		fputs("\"fp\"", f);
	else if (st->user == SESSION_USER_DWARF)
		fputs("\"dwarf\"", f);
	else
		fputs("null", f);
	html_filters(buf, sizeof(buf), s, o);
	fputs(",\"filters\":", f);
	if (buf[0])
		html_str(f, buf);
	else
		fputs("null", f);
	fputs(",\"weight\":", f);
	if (stack_table_weighted(session_table(s)) && session_unit(s) != UNIT_NONE) {
		fputs("{\"name\":", f);
		html_str(f, session_weight_name(s));
		fprintf(f, ",\"unit\":\"%s\",\"ranked\":%s}",
			export_unit_name(s, &(struct rank_opts){ .weight = true }),
			o->rank.weight ? "true" : "false");
	} else {
		fputs("null", f);
	}
	fputc('}', f);
}

static int u64_desc(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? 1 : a > b ? -1 : 0;
}

/* the tree in preorder, children by name id (= alphabetical): depth, name, counts */
static int nodes_write(FILE *f, struct html *c)
{
	uint32_t *st = malloc(c->nnodes * sizeof(*st));
	uint64_t *kids = malloc(c->nnodes * sizeof(*kids));
	size_t len = 0;
	bool first = true;

	if (!st || !kids) {
		free(st);
		free(kids);
		return -ENOMEM;
	}
	/* every node is pushed once: the stack never holds more than nnodes */
	st[len++] = 0;
	while (len) {
		uint32_t n = st[--len], k;
		const struct hnode *nd = &c->nodes[n];
		size_t cnt = 0, i;

		if (c->weighted)
			fprintf(f, "%s%u,%d,%" PRIu64 ",%" PRIu64, first ? "" : ",", nd->depth,
				n ? (int)c->final[nd->name] : -1, nd->h, nd->w);
		else
			fprintf(f, "%s%u,%d,%" PRIu64, first ? "" : ",", nd->depth,
				n ? (int)c->final[nd->name] : -1, nd->h);
		first = false;
		for (k = nd->child; k != HTML_NONE; k = c->nodes[k].next)
			kids[cnt++] = (uint64_t)c->final[c->nodes[k].name] << 32 | k;
		/* the smallest name on top of the stack */
		qsort(kids, cnt, sizeof(*kids), u64_desc);
		for (i = 0; i < cnt; i++)
			st[len++] = (uint32_t)kids[i];
	}
	free(st);
	free(kids);
	return 0;
}

static void html_free(struct html *c)
{
	size_t i;

	for (i = 0; i < c->nnames; i++) {
		free(c->names[i].label);
		free(c->names[i].where);
	}
	free(c->names);
	free(c->final);
	free(c->ips);
	free(c->ip_name);
	free(c->ip_mach);
	free(c->nodes);
	hmap_done(&c->index);
	hmap_done(&c->name_index);
}

int export_html(FILE *f, struct session *s, const struct report_opts *o)
{
	struct html c = { .s = s, .o = o };
	struct rank_summary sum;
	struct rank_row *rows;
	uint32_t *order = NULL;
	size_t n, i, stacks = 0;
	int r;

	c.weighted = stack_table_weighted(session_table(s)) && session_unit(s) != UNIT_NONE;
	hmap_init(&c.index);
	hmap_init(&c.name_index);
	r = export_rows(s, &o->rank, SIZE_MAX, &rows, &n, &sum);
	if (r < 0)
		return r;
	c.cnodes = 1024;
	c.nodes = calloc(c.cnodes, sizeof(*c.nodes));
	if (!c.nodes) {
		r = -ENOMEM;
		goto out;
	}
	c.nodes[0] = (struct hnode){ .child = HTML_NONE, .next = HTML_NONE };
	c.nnodes = 1;
	r = frames_collect(&c, rows, n);
	if (r >= 0)
		r = tree_build(&c, rows, n, &stacks);
	if (r >= 0)
		r = names_done(&c, &order);
	if (r < 0)
		goto out;

	fwrite(flame_page_head, 1, flame_page_head_len, f);
	fputs("{\"format\":\"stacktop-flame\",\"version\":1,", f);
	html_meta(f, s, o, &sum);
	fputs(",\"kinds\":[\"kernel\",\"module\",\"user\",\"tracing\",\"command\",\"pid\",\"other\"]"
	      ",\"names\":[",
	      f);
	for (i = 0; i < c.nnames; i++) {
		const struct hname *nm = &c.names[order[i]];

		fputs(i ? ",[" : "[", f);
		html_str(f, nm->label);
		fprintf(f, ",%u", nm->kind);
		if (nm->where[0]) {
			fputc(',', f);
			html_str(f, nm->where);
		}
		fputc(']', f);
	}
	fprintf(f, "],\"stride\":%d,\"nodes\":[", c.weighted ? 4 : 3);
	r = nodes_write(f, &c);
	if (r < 0)
		goto out;
	fputs("]}", f);
	fwrite(flame_page_tail, 1, flame_page_tail_len, f);
	r = export_flush(f);
out:
	free(order);
	html_free(&c);
	free(rows);
	if (r < 0)
		return r;
	return stacks > INT32_MAX ? INT32_MAX : (int)stacks;
}
