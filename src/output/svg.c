// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * svg.c - the flame graph as a static SVG image (--format svg,
 * export_svg(), formats.h), in the style of flamegraph.pl: root at the
 * bottom, frames in alphabetical order within their caller, widths
 * proportional to the counts, a tooltip (<title>) per frame. No script:
 * it shows the same wherever an SVG image goes (an <img>, a README, an
 * issue), and nothing in it can run. The interactive graph is --format
 * html.
 *
 * The tree is flametree.c's; the tracing machinery is left out, as the
 * folded output leaves it. Frames are snapped to whole pixels as the page
 * draws them: a frame covering no pixel column is not written, which
 * bounds the file at one frame per column and row whatever the profile.
 * Text is sanitized and XML-escaped.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "core/format.h"

#include "output/flametree.h"
#include "output/formats.h"
#include "output/losses.h"
#include "output/rows.h"
#include "session/session.h"

#define SVG_WIDTH  1200
#define SVG_PAD	   10
#define SVG_ROW	   16
#define SVG_TOP	   60 /* title and facts */
#define SVG_BOTTOM 10
#define SVG_CHAR   7.2 /* a character of the 12px monospace font, about */

/* @str (sanitized) as XML text or attribute value */
static void svg_str(FILE *f, const char *str)
{
	char buf[1024];
	const unsigned char *p = (const unsigned char *)buf;

	fmt_sanitize(buf, sizeof(buf), str, strlen(str));
	for (; *p; p++) {
		if (*p == '&')
			fputs("&amp;", f);
		else if (*p == '<')
			fputs("&lt;", f);
		else if (*p == '>')
			fputs("&gt;", f);
		else if (*p == '"')
			fputs("&quot;", f);
		else if (*p == '\'')
			fputs("&#39;", f);
		else if (p[0] == 0xef && p[1] == 0xbf && (p[2] == 0xbe || p[2] == 0xbf)) {
			fputc('?', f); /* U+FFFE, U+FFFF: not XML characters */
			p += 2;
		} else
			fputc(*p, f);
	}
}

/* @str cut to @max characters (UTF-8), ".." at the end when cut */
static void svg_label(FILE *f, const char *str, int max)
{
	char buf[1024];
	int chars = 0;
	size_t i, cut = 0;

	for (i = 0; str[i]; i++)
		if (((unsigned char)str[i] & 0xc0) != 0x80 && chars++ == max - 2)
			cut = i;
	if (chars <= max) {
		svg_str(f, str);
		return;
	}
	if (max < 3)
		return;
	snprintf(buf, sizeof(buf), "%.*s..", (int)cut, str);
	svg_str(f, buf);
}

static uint32_t svg_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* the page's palette (output/flame/colour.js, BAND): hue, spread, saturation, lightness, spread */
static const double svg_band[FLAME_KIND_MAX][5] = {
	[FLAME_KERNEL] = { 20, 15, 82, 57, 8 }, [FLAME_MODULE] = { 48, 12, 78, 52, 8 },
	[FLAME_USER] = { 345, 18, 72, 62, 8 },	[FLAME_TRACING] = { 215, 0, 8, 72, 8 },
	[FLAME_COMM] = { 205, 14, 55, 66, 8 },	[FLAME_PID] = { 260, 10, 40, 72, 6 },
	[FLAME_OTHER] = { 0, 0, 0, 82, 4 },
};

static void svg_colour(char *buf, size_t size, const struct flame_name *nm)
{
	const double *b = svg_band[nm->kind < FLAME_KIND_MAX ? nm->kind : FLAME_OTHER];
	double v = svg_hash(nm->label) / 4294967296.0;
	double h = fmod(b[0] + b[1] * v, 360) / 60, s = b[2] / 100;
	double l = (b[3] + b[4] * (svg_hash(nm->label) % 1000) / 1000.0) / 100;
	double c = (1 - fabs(2 * l - 1)) * s, x = c * (1 - fabs(fmod(h, 2) - 1)), m = l - c / 2;
	double r = 0, g = 0, bl = 0;

	if (h < 1) {
		r = c;
		g = x;
	} else if (h < 2) {
		r = x;
		g = c;
	} else if (h < 3) {
		g = c;
		bl = x;
	} else if (h < 4) {
		g = x;
		bl = c;
	} else if (h < 5) {
		r = x;
		bl = c;
	} else {
		r = c;
		bl = x;
	}
	snprintf(buf, size, "rgb(%d,%d,%d)", (int)lround((r + m) * 255), (int)lround((g + m) * 255),
		 (int)lround((bl + m) * 255));
}

/* a count for the tooltips: "12 hits", or the weight in its unit ("1.03s") */
static void svg_amount(char *buf, size_t size, uint64_t v, struct session *s, bool weight)
{
	if (weight)
		fmt_weight(buf, size, v, session_unit(s));
	else
		snprintf(buf, size, "%" PRIu64 " hits", v);
}

/* the layout of a flame tree: each node's total, left edge and parent */
struct svg_layout {
	uint64_t *tot;	 /* the ranked amount: hits, or the weight */
	uint64_t *totw;	 /* the other one (0 when unweighted) */
	uint64_t *next;	 /* where a node's next child starts */
	uint64_t *start; /* the node's left edge, in amounts */
	uint32_t *parent;
	uint32_t *path; /* the last node seen at each depth */
	uint32_t maxd;	/* the deepest row drawn */
	bool weight;	/* boxes are weights */
};

static void svg_layout_free(struct svg_layout *g)
{
	free(g->tot);
	free(g->totw);
	free(g->next);
	free(g->start);
	free(g->parent);
	free(g->path);
}

/* parents from the depths, totals bottom up, left edges top down */
static int svg_layout(struct svg_layout *g, const struct flame_tree *ft, bool weight)
{
	size_t i;

	memset(g, 0, sizeof(*g));
	g->weight = weight;
	g->tot = calloc(ft->nnodes, sizeof(*g->tot));
	g->totw = calloc(ft->nnodes, sizeof(*g->totw));
	g->next = calloc(ft->nnodes, sizeof(*g->next));
	g->start = calloc(ft->nnodes, sizeof(*g->start));
	g->parent = calloc(ft->nnodes, sizeof(*g->parent));
	g->path = calloc(ft->nnodes + 1, sizeof(*g->path));
	if (!g->tot || !g->totw || !g->next || !g->start || !g->parent || !g->path)
		return -ENOMEM;
	for (i = 0; i < ft->nnodes; i++) {
		const struct flame_node *nd = &ft->nodes[i];

		g->parent[i] = nd->depth ? g->path[nd->depth - 1] : 0;
		g->path[nd->depth] = (uint32_t)i;
		g->tot[i] = weight ? nd->w : nd->h;
		g->totw[i] = ft->weighted ? (weight ? nd->h : nd->w) : 0;
		if (nd->depth > g->maxd &&
		    !(nd->name >= 0 && ft->names[nd->name].kind == FLAME_TRACING))
			g->maxd = nd->depth;
	}
	for (i = ft->nnodes; i-- > 1;) {
		g->tot[g->parent[i]] += g->tot[i];
		g->totw[g->parent[i]] += g->totw[i];
	}
	for (i = 1; i < ft->nnodes; i++) {
		g->start[i] = g->start[g->parent[i]] + g->next[g->parent[i]];
		g->next[g->parent[i]] += g->tot[i];
	}
	return 0;
}

/* the document's head: its size, style, title, the facts line and the notes */
static void svg_head(FILE *f, struct session *s, const struct report_opts *o,
		     const struct svg_layout *g, const struct export_losses *l, const char *notes,
		     int height)
{
	const struct session_stats *st = session_stats(s);
	char host[256], buf[512];
	struct utsname un;

	fprintf(f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">\n",
		SVG_WIDTH, height, SVG_WIDTH, height);
	fprintf(f,
		"<!-- stacktop %s, format svg: a static flame graph (no script); "
		"the interactive one is the html format -->\n",
		STACKTOP_VERSION);
	fputs("<style>text { font: 12px 'DejaVu Sans Mono', Menlo, Consolas, monospace; fill: #000; }"
	      " .title { font: bold 17px sans-serif; } .facts { font: 12px sans-serif; fill: #555; }"
	      " .notes { font: 12px sans-serif; fill: #a40000; }"
	      " rect.f:hover { stroke: #000; stroke-width: 1; }</style>\n",
	      f);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n",
		SVG_WIDTH, height);
	if (session_norigins(s) == 1)
		snprintf(host, sizeof(host), "%s", session_origin(s, 0));
	else if (gethostname(host, sizeof(host)) < 0)
		host[0] = '\0';
	host[sizeof(host) - 1] = '\0';
	fputs("<title>stacktop flame graph - ", f);
	svg_str(f, host);
	fprintf(f, "</title>\n<text class=\"title\" x=\"%d\" y=\"24\">stacktop flame graph - ",
		SVG_PAD);
	svg_str(f, host);
	fprintf(f, "</text>\n<text class=\"facts\" x=\"%d\" y=\"44\">", SVG_PAD);
	if (st->kernel[0])
		snprintf(buf, sizeof(buf), "kernel %s · ", st->kernel);
	else if (st->mode != SESSION_REPLAY && uname(&un) == 0)
		snprintf(buf, sizeof(buf), "kernel %s · ", un.release);
	else
		buf[0] = '\0';
	svg_str(f, buf);
	snprintf(buf, sizeof(buf), "events %s · ", session_traced(s));
	svg_str(f, buf);
	svg_amount(buf, sizeof(buf), g->tot[0], s, g->weight);
	svg_str(f, buf);
	if (g->weight) {
		fputc(' ', f);
		svg_str(f, session_weight_name(s));
	}
	fprintf(f, " (%s) · lost %s %" PRIu64 "</text>\n",
		o->delta ? "the last interval" : "since start",
		l->records_unit ? "records" : "events", export_losses_gone(l));
	if (notes[0]) {
		fprintf(f, "<text class=\"notes\" x=\"%d\" y=\"%d\">", SVG_PAD, 44 + SVG_ROW);
		svg_str(f, notes);
		fputs("</text>\n", f);
	}
}

/* node @i's box, its tooltip and its label where it fits */
static void svg_box(FILE *f, struct session *s, const struct flame_tree *ft,
		    const struct svg_layout *g, size_t i, double scale, int height)
{
	const struct flame_node *nd = &ft->nodes[i];
	const struct flame_name *nm = nd->name >= 0 ? &ft->names[nd->name] : NULL;
	double x = SVG_PAD + (double)g->start[i] * scale;
	long x0 = lround(x), x1 = lround(x + (double)g->tot[i] * scale), w;
	int y = height - SVG_BOTTOM - (int)(nd->depth + 1) * SVG_ROW;
	char colour[32], amount[64];

	if (x1 <= x0 || (nm && nm->kind == FLAME_TRACING))
		return;
	w = x1 - x0 >= 2 ? x1 - x0 - 1 : x1 - x0;
	svg_amount(amount, sizeof(amount), g->tot[i], s, g->weight);
	fputs("<g><title>", f);
	svg_str(f, nm ? nm->label : "all");
	if (nm && nm->where[0]) {
		fputs(nm->kind == FLAME_MODULE ? " [" : " (", f);
		svg_str(f, nm->where);
		fputs(nm->kind == FLAME_MODULE ? "]" : ")", f);
	}
	fprintf(f, " (%s, %.2f%%", amount,
		g->tot[0] ? 100.0 * (double)g->tot[i] / (double)g->tot[0] : 0);
	if (ft->weighted) {
		svg_amount(amount, sizeof(amount), g->totw[i], s, !g->weight);
		fprintf(f, "; %s", amount);
	}
	if (nm)
		svg_colour(colour, sizeof(colour), nm);
	else
		snprintf(colour, sizeof(colour), "rgb(199,199,199)");
	fprintf(f,
		")</title><rect class=\"f\" x=\"%ld\" y=\"%d\" width=\"%ld\" height=\"%d\" "
		"fill=\"%s\"/>",
		x0, y, w, SVG_ROW - 1, colour);
	if (w >= 22) {
		fprintf(f, "<text x=\"%ld\" y=\"%d\">", x0 + 3, y + SVG_ROW - 4);
		svg_label(f, nm ? nm->label : "all", (int)((double)(w - 6) / SVG_CHAR));
		fputs("</text>", f);
	}
	fputs("</g>\n", f);
}

int export_svg(FILE *f, struct session *s, const struct report_opts *o)
{
	const struct session_stats *st = session_stats(s);
	struct svg_layout g = { 0 };
	struct flame_tree ft;
	struct export_losses l;
	char buf[512], notes[1024];
	double scale;
	size_t i, stacks;
	int r, height;

	r = flametree_build(&ft, s, o);
	if (r < 0)
		goto out;
	r = svg_layout(&g, &ft, ft.weighted && o->rank.weight);
	if (r < 0)
		goto out;
	scale = g.tot[0] ? (SVG_WIDTH - 2 * SVG_PAD) / (double)g.tot[0] : 0;
	/* what the graph misses, a line of its own under the facts (losses.h) */
	export_losses_get(s, o->delta, &l);
	notes[0] = '\0';
	if (export_losses_any(&l))
		export_losses_text(notes, sizeof(notes), &l);
	if (export_user_text(buf, sizeof(buf), st) > 0 && strstr(buf, " without"))
		snprintf(notes + strlen(notes), sizeof(notes) - strlen(notes),
			 "%s%s (the [user stack ...] boxes)", notes[0] ? "; " : "", buf);
	height = SVG_TOP + (notes[0] ? SVG_ROW : 0) + (int)(g.maxd + 1) * SVG_ROW + SVG_BOTTOM;
	svg_head(f, s, o, &g, &l, notes, height);
	for (i = 0; i < ft.nnodes; i++)
		svg_box(f, s, &ft, &g, i, scale, height);
	fputs("</svg>\n", f);
	r = export_flush(f);
out:
	stacks = ft.stacks;
	flametree_free(&ft);
	svg_layout_free(&g);
	if (r < 0)
		return r;
	return stacks > INT32_MAX ? INT32_MAX : (int)stacks;
}
