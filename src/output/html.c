// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * html.c - the flame graph page (--format html, export_html(), formats.h):
 * one self-contained HTML file, its page (output/flame/) built into stacktop, the profile in it
 * once as JSON.
 *
 * The writer merges the stacks into a call tree itself (flametree.c) and
 * writes it in preorder, children in the alphabetical order of their
 * names, so the page only lays it out: the file stays small (shared
 * callers are written once) and opens fast. Frame names are deduplicated
 * into one table. What the folded output leaves out (the tracing
 * machinery at the leaf, brief_skip()) is in the tree, marked as its own
 * kind: the page hides it unless asked.
 *
 * Every string goes through fmt_sanitize() and is written as a JSON string
 * with '<', '>' and '&' escaped, so a symbol or comm holding "</script>" or
 * markup stays data; the page sets all text with textContent.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "core/format.h"
#include "core/hmap.h"
#include "core/stack_table.h"
#include "core/rank.h"
#include "output/colblob.h"
#include "output/flame_page.h"
#include "output/flametree.h"
#include "output/formats.h"
#include "output/losses.h"
#include "output/rows.h"
#include "session/session.h"

/* a document of the page from this size on is written compressed (html_element()) */
#define HTML_GZIP_MIN (256 * 1024)

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

/*
 * What the graph misses (losses.h): the counters of the view's period, the
 * share (null when the records read are not known), the line the page
 * shows, and with -u how the user stacks were taken
 */
static void html_losses(FILE *f, struct session *s, const struct report_opts *o)
{
	const struct session_stats *st = session_stats(s);
	struct export_losses l;
	char buf[512];
	double share;

	export_losses_get(s, o->delta, &l);
	share = export_losses_share(&l);
	fprintf(f,
		",\"overrun_delta\":%" PRIu64 ",\"dropped_delta\":%" PRIu64 ",\"records\":%" PRIu64
		",\"records_delta\":%" PRIu64 ",\"gone\":%" PRIu64
		",\"gone_unit\":\"%s\",\"missing\":",
		st->overrun_delta, st->dropped_delta, st->records, st->records_delta,
		export_losses_gone(&l), l.records_unit ? "records" : "events");
	if (share >= 0)
		fprintf(f, "%.6f", share);
	else
		fputs("null", f);
	fputs(",\"losses\":", f);
	if (export_losses_any(&l)) {
		export_losses_text(buf, sizeof(buf), &l);
		html_str(f, buf);
	} else {
		fputs("null", f);
	}
	fputs(",\"user_stacks\":", f);
	if (export_user_text(buf, sizeof(buf), st) > 0)
		html_str(f, buf);
	else
		fputs("null", f);
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
	html_losses(f, s, o);
	/* --sample: the counts are estimates, the notes say so */
	fputs(",\"sampled\":", f);
	if (export_sample_text(buf, sizeof(buf), st) > 0)
		html_str(f, buf);
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

/*
 * The records under the self counts, for the page's filters (when there are
 * any): "ev" the event names, "attrs" flat (event, pid, cpu) triples,
 * "comms" [pid, command] pairs; the splits follow in html_splits_element().
 */
static void html_splits(FILE *f, struct session *s, const struct flame_tree *ft)
{
	size_t i, nev = session_nevents(s);
	struct hmap seen;
	uint64_t v;

	if (!ft->nsplits)
		return;
	fputs(",\"ev\":[", f);
	for (i = 0; i < nev; i++) {
		fputs(i ? "," : "", f);
		html_str(f, session_event(s, (unsigned int)i));
	}
	fputs("],\"attrs\":[", f);
	for (i = 0; i < ft->nattrs; i++)
		fprintf(f, "%s%u,%d,%u", i ? "," : "", ft->attrs[i].event, ft->attrs[i].pid,
			ft->attrs[i].cpu);
	fputs("],\"comms\":[", f);
	hmap_init(&seen);
	for (i = 0; i < ft->nattrs; i++) {
		int pid = ft->attrs[i].pid;

		/* written once a pid (a failed put writes it again: harmless) */
		if (pid == -1 || hmap_get(&seen, (uint32_t)pid + 1ULL, &v))
			continue;
		hmap_put(&seen, (uint32_t)pid + 1ULL, 1);
		fprintf(f, "[%d,", pid);
		html_str(f, session_comm(s, pid));
		fputs("],", f);
	}
	hmap_done(&seen);
	fputs("null]", f);
}

/*
 * The splits, the bulk of the records, in an element of their own after the
 * profile's (the page parses them at the first filter, not at open):
 * {"splits":[node, attr, hits[, weight], ...]}
 */
static void html_splits_json(FILE *f, const struct flame_tree *ft)
{
	size_t i;

	fputs("{\"splits\":[", f);
	for (i = 0; i < ft->nsplits; i++) {
		const struct flame_split *sp = &ft->splits[i];

		fprintf(f, "%s%u,%u,%" PRIu64, i ? "," : "", sp->node, sp->attr, sp->h);
		if (ft->weighted)
			fprintf(f, ",%" PRIu64, sp->w);
	}
	fputs("]}", f);
}

static int html_split_cmp(const void *a, const void *b)
{
	const struct flame_split *x = a, *y = b;

	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	return x->attr < y->attr ? -1 : x->attr > y->attr;
}

/*
 * The splits as columns, in node order: "node_gap" each one's node less
 * the previous one's (the first's from 0), "attr", "h", "w"
 */
static int html_splits_cols(FILE *f, const struct flame_tree *ft, struct colblob *c)
{
	struct flame_split *sp = malloc((ft->nsplits ? ft->nsplits : 1) * sizeof(*sp));
	uint64_t maxgap = 0, maxattr = 0, maxh = 0, maxw = 0;
	size_t i, n = ft->nsplits;

	if (!sp)
		return -ENOMEM;
	if (n)
		memcpy(sp, ft->splits, n * sizeof(*sp));
	qsort(sp, n, sizeof(*sp), html_split_cmp);
	for (i = 0; i < n; i++) {
		uint64_t gap = sp[i].node - (i ? sp[i - 1].node : 0);

		maxgap = gap > maxgap ? gap : maxgap;
		maxattr = sp[i].attr > maxattr ? sp[i].attr : maxattr;
		maxh = sp[i].h > maxh ? sp[i].h : maxh;
		maxw = sp[i].w > maxw ? sp[i].w : maxw;
	}
	colblob_column(c, "node_gap", colblob_type_for(maxgap), n);
	for (i = 0; i < n; i++)
		colblob_put(c, sp[i].node - (i ? sp[i - 1].node : 0));
	colblob_column(c, "attr", colblob_type_for(maxattr), n);
	for (i = 0; i < n; i++)
		colblob_put(c, sp[i].attr);
	colblob_column(c, "h", colblob_type_for(maxh), n);
	for (i = 0; i < n; i++)
		colblob_put(c, sp[i].h);
	if (ft->weighted) {
		colblob_column(c, "w", colblob_type_for(maxw), n);
		for (i = 0; i < n; i++)
			colblob_put(c, sp[i].w);
	}
	free(sp);
	fprintf(f, "{\"splits_n\":%zu,", n);
	colblob_spec(c, f);
	fputc('}', f);
	return 0;
}

/* base64 of @n bytes (RFC 4648, padded) */
static void html_base64(FILE *f, const unsigned char *b, size_t n)
{
	static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char out[4096];
	size_t i, o = 0;

	for (i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)b[i] << 16;

		if (i + 1 < n)
			v |= (uint32_t)b[i + 1] << 8;
		if (i + 2 < n)
			v |= b[i + 2];
		out[o++] = a[v >> 18];
		out[o++] = a[(v >> 12) & 63];
		out[o++] = i + 1 < n ? a[(v >> 6) & 63] : '=';
		out[o++] = i + 2 < n ? a[v & 63] : '=';
		if (o + 4 > sizeof(out)) {
			fwrite(out, 1, o, f);
			o = 0;
		}
	}
	fwrite(out, 1, o, f);
}

/*
 * A document of the page in element @id: JSON as it is when small; else
 * gzip-compressed in base64, in an element @id-gzip (JSON) or @id-cols (a
 * document of columns, colblob.h, @cols): the HTML parser reads a fraction
 * of the bytes, and most of a large page's open time was its parsing, then
 * the parsing of its numbers (doc/performance.md). @inside: the page's
 * element @id is open (the profile's; the page's tail closes what is
 * open), else the element is written whole.
 */
static int html_element(FILE *f, const char *id, bool inside, const char *doc, size_t len,
			bool cols)
{
	z_stream z;
	unsigned char *gz;
	uLong cap;
	int zr;

	if (!cols && len < HTML_GZIP_MIN) {
		if (!inside)
			fprintf(f, "<script id=\"%s\" type=\"application/json\">", id);
		fwrite(doc, 1, len, f);
		if (!inside)
			fputs("</script>\n", f);
		return 0;
	}
	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK)
		return -ENOMEM;
	cap = deflateBound(&z, (uLong)len);
	gz = malloc(cap);
	if (!gz) {
		deflateEnd(&z);
		return -ENOMEM;
	}
	z.next_in = (Bytef *)(uintptr_t)doc;
	z.avail_in = (uInt)len;
	z.next_out = gz;
	z.avail_out = (uInt)cap;
	zr = deflate(&z, Z_FINISH);
	if (zr == Z_STREAM_END) {
		fprintf(f, "%s<script id=\"%s-%s\" type=\"application/octet-stream\">",
			inside ? "</script>\n" : "", id, cols ? "cols" : "gzip");
		html_base64(f, gz, z.total_out);
		if (!inside)
			fputs("</script>\n", f);
	}
	deflateEnd(&z);
	free(gz);
	return zr == Z_STREAM_END ? 0 : -EIO;
}

/*
 * A tree's nodes as columns (colblob.h): "up" how many levels above the
 * node before it each node is, less one (its depth is that node's plus one
 * minus up: mostly 0, a run of callees), "name" its name, and the self
 * counts of the nodes that have any: "self_gap" each such node's index
 * less the previous one's (the first's from 0), "self_h", "self_w"; each
 * name after @prefix ("base_" for a differential page's BEFORE)
 */
static void html_tree_cols(struct colblob *c, const struct flame_tree *ft, const char *prefix)
{
	char col[32];

	uint64_t maxup = 0, maxh = 0, maxw = 0, maxgap = 0;
	size_t i, nself = 0, last = 0;

	for (i = 0; i < ft->nnodes; i++) {
		const struct flame_node *nd = &ft->nodes[i];
		uint64_t up = i ? ft->nodes[i - 1].depth + 1ULL - nd->depth : 0;

		maxup = up > maxup ? up : maxup;
		if (nd->h || nd->w) {
			maxgap = i - last > maxgap ? i - last : maxgap;
			last = i;
			nself++;
		}
		maxh = nd->h > maxh ? nd->h : maxh;
		maxw = nd->w > maxw ? nd->w : maxw;
	}
	snprintf(col, sizeof(col), "%sup", prefix);
	colblob_column(c, col, colblob_type_for(maxup), ft->nnodes);
	for (i = 0; i < ft->nnodes; i++)
		colblob_put(c, i ? ft->nodes[i - 1].depth + 1ULL - ft->nodes[i].depth : 0);
	snprintf(col, sizeof(col), "%sname", prefix);
	colblob_column(c, col, colblob_type_for(ft->nnames), ft->nnodes);
	for (i = 0; i < ft->nnodes; i++)
		colblob_put(c, ft->nodes[i].name < 0 ? 0 : (uint64_t)ft->nodes[i].name);
	snprintf(col, sizeof(col), "%sself_gap", prefix);
	colblob_column(c, col, colblob_type_for(maxgap), nself);
	for (i = 0, last = 0; i < ft->nnodes; i++)
		if (ft->nodes[i].h || ft->nodes[i].w) {
			colblob_put(c, i - last);
			last = i;
		}
	snprintf(col, sizeof(col), "%sself_h", prefix);
	colblob_column(c, col, colblob_type_for(maxh), nself);
	for (i = 0; i < ft->nnodes; i++)
		if (ft->nodes[i].h || ft->nodes[i].w)
			colblob_put(c, ft->nodes[i].h);
	if (!ft->weighted)
		return;
	snprintf(col, sizeof(col), "%sself_w", prefix);
	colblob_column(c, col, colblob_type_for(maxw), nself);
	for (i = 0; i < ft->nnodes; i++)
		if (ft->nodes[i].h || ft->nodes[i].w)
			colblob_put(c, ft->nodes[i].w);
}

/*
 * a tree's frame names and nodes, as the page reads a profile ("names",
 * "stride", and "nodes" or, with @c, "nodes_n" and the nodes as columns)
 */
static void html_tree(FILE *f, const struct flame_tree *ft, struct colblob *c, const char *prefix)
{
	size_t i;

	fputs("\"names\":[", f);
	for (i = 0; i < ft->nnames; i++) {
		const struct flame_name *nm = &ft->names[i];

		fputs(i ? ",[" : "[", f);
		html_str(f, nm->label);
		fprintf(f, ",%u", nm->kind);
		if (nm->where[0]) {
			fputc(',', f);
			html_str(f, nm->where);
		}
		fputc(']', f);
	}
	fprintf(f, "],\"stride\":%d,", ft->weighted ? 4 : 3);
	if (c) {
		fprintf(f, "\"nodes_n\":%zu", ft->nnodes);
		html_tree_cols(c, ft, prefix);
		return;
	}
	fputs("\"nodes\":[", f);
	for (i = 0; i < ft->nnodes; i++) {
		const struct flame_node *nd = &ft->nodes[i];

		if (ft->weighted)
			fprintf(f, "%s%u,%d,%" PRIu64 ",%" PRIu64, i ? "," : "", nd->depth,
				nd->name, nd->h, nd->w);
		else
			fprintf(f, "%s%u,%d,%" PRIu64, i ? "," : "", nd->depth, nd->name, nd->h);
	}
	fputc(']', f);
}

/*
 * --diff BEFORE AFTER -o d.html: BEFORE's tree as "base" (its names, nodes
 * and where it came from); the page draws AFTER's widths and colours each
 * frame by the change of its share (doc/formats.md, "html"); with @c, its
 * nodes as columns too ("base_up", ...)
 */
static int html_base(FILE *f, struct session *before, const struct report_opts *o,
		     struct session *after, struct colblob *c)
{
	struct report_opts bo = *o;
	struct flame_tree fb;
	int r;

	/* the view's event is AFTER's index: BEFORE's, by name (none: all its events) */
	if (o->rank.event >= 0) {
		const char *name = session_event(after, (unsigned int)o->rank.event);
		unsigned int i;

		bo.rank.event = -1;
		for (i = 0; name && i < session_nevents(before); i++)
			if (!strcmp(session_event(before, i), name))
				bo.rank.event = (int)i;
	}
	r = flametree_build(&fb, before, &bo);
	if (r == 0) {
		fputs(",\"base\":{\"source\":", f);
		html_str(f, session_stats(before)->tracefs);
		fputc(',', f);
		html_tree(f, &fb, c, "base_");
		fputc('}', f);
	}
	flametree_free(&fb);
	return r;
}

/*
 * what the page's documents are written from; @cols: as columns (a large
 * tree: html_compact())
 */
struct html_doc {
	struct session *s;
	const struct report_opts *o;
	const struct flame_tree *ft;
	struct session *before;
	bool cols;
};

/*
 * A tree this large goes into the page as columns, gzip'd (html_element()):
 * its JSON would be about this long (the nodes' numbers, the splits', the
 * names)
 */
static bool html_compact(const struct flame_tree *ft)
{
	size_t i, est = ft->nnodes * 10 + ft->nsplits * 12;

	for (i = 0; i < ft->nnames && est < HTML_GZIP_MIN; i++)
		est += strlen(ft->names[i].label) + strlen(ft->names[i].where) + 8;
	return est >= HTML_GZIP_MIN;
}

/* the profile: {"format":"stacktop-flame",...} */
static int html_data_json(FILE *m, const struct html_doc *d, struct colblob *c)
{
	fputs("{\"format\":\"stacktop-flame\",\"version\":1,", m);
	html_meta(m, d->s, d->o, &d->ft->sum);
	fputs(",\"kinds\":[\"kernel\",\"module\",\"user\",\"tracing\",\"command\",\"pid\","
	      "\"other\"],",
	      m);
	html_tree(m, d->ft, c, "");
	html_splits(m, d->s, d->ft);
	if (d->before) {
		int r = html_base(m, d->before, d->o, d->s, c);

		if (r < 0)
			return r;
	}
	if (c) {
		fputc(',', m);
		colblob_spec(c, m);
	}
	fputc('}', m);
	return 0;
}

static int html_splits_doc(FILE *m, const struct html_doc *d, struct colblob *c)
{
	if (c)
		return html_splits_cols(m, d->ft, c);
	html_splits_json(m, d->ft);
	return 0;
}

/*
 * a document written by @write into memory (JSON, or a JSON header and
 * columns), then as element @id (html_element())
 */
static int html_doc_element(FILE *f, const char *id, bool inside,
			    int (*write)(FILE *, const struct html_doc *, struct colblob *),
			    const struct html_doc *d)
{
	struct colblob c;
	char *json = NULL, *doc = NULL;
	size_t len = 0, dlen = 0;
	FILE *m;
	bool bad;
	int r;

	r = d->cols ? colblob_init(&c) : 0;
	if (r < 0)
		return r;
	m = open_memstream(&json, &len);
	if (!m) {
		r = -errno;
		goto out;
	}
	r = write(m, d, d->cols ? &c : NULL);
	bad = ferror(m);
	if (fclose(m) != 0 || bad || !json)
		r = r < 0 ? r : -ENOMEM;
	if (r == 0 && d->cols)
		r = colblob_finish(&c, json, len, &doc, &dlen);
	if (r == 0)
		r = d->cols ? html_element(f, id, inside, doc, dlen, true)
			    : html_element(f, id, inside, json, len, false);
out:
	if (d->cols)
		colblob_free(&c);
	free(doc);
	free(json);
	return r;
}

/* the page of @s; with @before, the differential page */
static int html_page(FILE *f, struct session *s, const struct report_opts *o,
		     struct session *before)
{
	struct flame_tree ft;
	struct html_doc d = { .s = s, .o = o, .ft = &ft, .before = before };
	const char *body;
	size_t stacks;
	int r;

	r = flametree_build(&ft, s, o);
	if (r < 0)
		goto out;
	d.cols = html_compact(&ft);
	fwrite(flame_page_head, 1, flame_page_head_len, f);
	r = html_doc_element(f, "stacktop-data", true, html_data_json, &d);
	if (r < 0)
		goto out;
	/* the splits after the script: it runs before they are parsed */
	body = memmem(flame_page_tail, flame_page_tail_len, "</body>", 7);
	if (!body)
		body = flame_page_tail + flame_page_tail_len;
	fwrite(flame_page_tail, 1, (size_t)(body - flame_page_tail), f);
	if (ft.nsplits) {
		r = html_doc_element(f, "stacktop-splits", false, html_splits_doc, &d);
		if (r < 0)
			goto out;
	}
	fwrite(body, 1, flame_page_tail_len - (size_t)(body - flame_page_tail), f);
	r = export_flush(f);
out:
	stacks = ft.stacks;
	flametree_free(&ft);
	if (r < 0)
		return r;
	return stacks > INT32_MAX ? INT32_MAX : (int)stacks;
}

int export_html(FILE *f, struct session *s, const struct report_opts *o)
{
	return html_page(f, s, o, NULL);
}

int export_html_diff(FILE *f, struct session *before, struct session *after,
		     const struct report_opts *o)
{
	return html_page(f, after, o, before);
}
