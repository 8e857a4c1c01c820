// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snapshot.c - see snapshot.h. A small streaming JSON reader of our own
 * schema: the document is never held whole, neither as text nor as a tree.
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

#include "core/format.h"
#include "ingest/snapshot.h"
#include "core/stack_table.h"

#define MAX_NESTING 16
#ifdef SNAPSHOT_WINDOW
#define WINDOW SNAPSHOT_WINDOW /* the fuzzer reads through a tiny window */
#else
#define WINDOW (256u << 10)
#endif
#define MAX_STRING (64u << 10) /* a longer string is no symbol, name or comm */

struct rd {
	const char *p;  /* the window */
	size_t n;       /* bytes in it */
	size_t i;       /* position in it */
	uint64_t base;  /* input offset of p[0] */
	uint64_t len;   /* input length */
	int fd;         /* -1: @p is the whole input */
	char *buf;      /* storage of the window (a file) */
	char *s;        /* the last string read, decoded, NUL-terminated */
	size_t slen;
	size_t scap;
	char *err;
	size_t errsz;
	bool syntax;    /* the error is a JSON syntax error */
};

static int fail(struct rd *r, int e, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(struct rd *r, int e, const char *fmt, ...)
{
	char raw[256];
	va_list ap;

	if (e == -ENOMEM)
		snprintf(raw, sizeof(raw), "out of memory");
	else {
		va_start(ap, fmt);
		vsnprintf(raw, sizeof(raw), fmt, ap);
		va_end(ap);
	}
	if (r->err && r->errsz && !r->err[0])
		fmt_sanitize(r->err, r->errsz, raw, strlen(raw));
	return e;
}

/* ---- input --------------------------------------------------------------------- */

static uint64_t rd_off(const struct rd *r)
{
	return r->base + r->i;
}

static int bad(struct rd *r, const char *what)
{
	r->syntax = true;
	return fail(r, -EBADMSG, "not valid JSON at byte %" PRIu64 ": %s", rd_off(r), what);
}

static int rd_fill(struct rd *r)
{
	ssize_t got;

	if (r->fd < 0 || rd_off(r) >= r->len)
		return 0;
	r->base += r->n;
	r->n = r->i = 0;
	do
		got = read(r->fd, r->buf, WINDOW);
	while (got < 0 && errno == EINTR);
	if (got < 0)
		return fail(r, -errno, "cannot read: %s", strerror(errno));
	if (r->base + (uint64_t)got > r->len)
		got = (ssize_t)(r->len - r->base); /* grown since: read what it was */
	r->n = (size_t)got;
	return (int)got;
}

/* the next byte, -1 at the end (or on a read error: r->err set) */
static int peekc(struct rd *r)
{
	if (r->i >= r->n && rd_fill(r) <= 0)
		return -1;
	return (unsigned char)r->p[r->i];
}

static int getc_(struct rd *r)
{
	int c = peekc(r);

	if (c >= 0)
		r->i++;
	return c;
}

static int rd_seek(struct rd *r, uint64_t off)
{
	if (off >= r->base && off <= r->base + r->n) {
		r->i = (size_t)(off - r->base);
		return 0;
	}
	if (lseek(r->fd, (off_t)off, SEEK_SET) < 0)
		return fail(r, -errno, "cannot seek: %s", strerror(errno));
	r->base = off;
	r->n = r->i = 0;
	return 0;
}

static int ws(struct rd *r)
{
	int c;

	while ((c = peekc(r)) == ' ' || c == '\t' || c == '\n' || c == '\r')
		r->i++;
	return c;
}

/* the end of the input, or a read error */
static int eof(struct rd *r)
{
	if (r->err && r->err[0])
		return -EIO;
	return bad(r, "unexpected end");
}

static int expect(struct rd *r, int want)
{
	int c = ws(r);

	if (c < 0)
		return eof(r);
	if (c != want) {
		char what[32];

		snprintf(what, sizeof(what), "'%c' expected", want);
		return bad(r, what);
	}
	r->i++;
	return 0;
}

static int literal(struct rd *r, const char *word)
{
	for (; *word; word++) {
		int c = getc_(r);

		if (c < 0)
			return eof(r);
		if (c != *word)
			return bad(r, "unexpected character");
	}
	return 0;
}

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
		: c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static int sput(struct rd *r, const char *b, size_t n, bool keep)
{
	if (!keep)
		return 0;
	if (r->slen + n >= MAX_STRING)
		return fail(r, -EBADMSG, "a string at byte %" PRIu64 " is longer than %u bytes",
			    rd_off(r), MAX_STRING);
	if (r->slen + n + 1 > r->scap) {
		size_t cap = r->scap ? r->scap * 2 : 256;
		char *s;

		while (cap < r->slen + n + 1)
			cap *= 2;
		s = realloc(r->s, cap);
		if (!s)
			return -ENOMEM;
		r->s = s;
		r->scap = cap;
	}
	memcpy(r->s + r->slen, b, n);
	r->slen += n;
	r->s[r->slen] = '\0';
	return 0;
}

static int hex4(struct rd *r, unsigned int *ret)
{
	unsigned int v = 0;
	int k, c, d;

	for (k = 0; k < 4; k++) {
		c = getc_(r);
		if (c < 0)
			return eof(r);
		d = hexval(c);
		if (d < 0)
			return bad(r, "invalid \\u escape");
		v = v << 4 | (unsigned int)d;
	}
	*ret = v;
	return 0;
}

/* a string (the opening quote next); decoded into r->s when @keep */
static int string(struct rd *r, bool keep)
{
	int c, e;

	e = expect(r, '"');
	if (e)
		return e;
	r->slen = 0;
	if (keep && (e = sput(r, "", 0, true)) < 0)
		return e;
	for (;;) {
		size_t j = r->i;

		/* a run of plain bytes at once */
		while (j < r->n && r->p[j] != '"' && r->p[j] != '\\' && (unsigned char)r->p[j] >= 0x20)
			j++;
		if (j > r->i) {
			e = sput(r, r->p + r->i, j - r->i, keep);
			r->i = j;
			if (e)
				return e;
			continue;
		}
		c = getc_(r);
		if (c < 0)
			return eof(r);
		if (c == '"')
			return 0;
		if (c < 0x20)
			return bad(r, "control character in a string");
		if (c != '\\') {
			/* a plain byte after a window's end */
			char b = (char)c;

			e = sput(r, &b, 1, keep);
			if (e)
				return e;
			continue;
		}
		c = getc_(r);
		if (c < 0)
			return eof(r);
		{
			char u[4];
			unsigned int cp, lo;
			size_t n = 1;

			switch (c) {
			case '"': case '\\': case '/':
				u[0] = (char)c;
				break;
			case 'b': u[0] = '\b'; break;
			case 'f': u[0] = '\f'; break;
			case 'n': u[0] = '\n'; break;
			case 'r': u[0] = '\r'; break;
			case 't': u[0] = '\t'; break;
			case 'u':
				e = hex4(r, &cp);
				if (e)
					return e;
				if (cp >= 0xd800 && cp < 0xdc00 && peekc(r) == '\\') {
					/* a surrogate pair */
					r->i++;
					if (getc_(r) != 'u')
						return bad(r, "invalid surrogate pair");
					e = hex4(r, &lo);
					if (e)
						return e;
					if (lo < 0xdc00 || lo > 0xdfff)
						return bad(r, "invalid surrogate pair");
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				} else if (cp >= 0xd800 && cp < 0xe000) {
					cp = 0xfffd; /* a lone surrogate */
				}
				if (cp < 0x80) {
					u[0] = (char)cp;
				} else if (cp < 0x800) {
					u[0] = (char)(0xc0 | cp >> 6);
					u[1] = (char)(0x80 | (cp & 0x3f));
					n = 2;
				} else if (cp < 0x10000) {
					u[0] = (char)(0xe0 | cp >> 12);
					u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
					u[2] = (char)(0x80 | (cp & 0x3f));
					n = 3;
				} else {
					u[0] = (char)(0xf0 | cp >> 18);
					u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
					u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
					u[3] = (char)(0x80 | (cp & 0x3f));
					n = 4;
				}
				break;
			default:
				return bad(r, "invalid escape");
			}
			e = sput(r, u, n, keep);
			if (e)
				return e;
		}
	}
}

enum ntype { N_INT, N_NEG, N_FLOAT };

struct num {
	enum ntype type;
	uint64_t u;    /* N_INT: the value; N_NEG: its magnitude */
	double d;      /* every number */
	bool big;      /* an integer beyond 64 bits */
};

static int number(struct rd *r, struct num *ret)
{
	char b[72];
	size_t n = 0;
	int c, digits = 0;
	bool frac = false;

	memset(ret, 0, sizeof(*ret));
	ws(r);
#define TAKE()                                                                  \
	do {                                                                    \
		if (n + 1 >= sizeof(b))                                         \
			return bad(r, "number too long");                       \
		b[n++] = (char)c;                                               \
		r->i++;                                                         \
	} while (0)
	c = peekc(r);
	if (c == '-')
		TAKE();
	c = peekc(r);
	if (c == '0') {
		TAKE();
		digits = 1;
	} else {
		while ((c = peekc(r)) >= '0' && c <= '9') {
			TAKE();
			digits++;
		}
	}
	if (!digits)
		return c < 0 ? eof(r) : bad(r, "unexpected character");
	if (peekc(r) == '.') {
		c = '.';
		TAKE();
		frac = true;
		digits = 0;
		while ((c = peekc(r)) >= '0' && c <= '9') {
			TAKE();
			digits++;
		}
		if (!digits)
			return bad(r, "invalid number");
	}
	c = peekc(r);
	if (c == 'e' || c == 'E') {
		TAKE();
		frac = true;
		c = peekc(r);
		if (c == '+' || c == '-')
			TAKE();
		digits = 0;
		while ((c = peekc(r)) >= '0' && c <= '9') {
			TAKE();
			digits++;
		}
		if (!digits)
			return bad(r, "invalid number");
	}
#undef TAKE
	b[n] = '\0';
	if (frac) {
		ret->type = N_FLOAT;
		ret->d = strtod(b, NULL);
		return 0;
	}
	ret->type = b[0] == '-' ? N_NEG : N_INT;
	{
		const char *q = b[0] == '-' ? b + 1 : b;

		/* most numbers are counts: no strtoull, no locale */
		for (; *q; q++) {
			unsigned int d = (unsigned int)(*q - '0');

			if (ret->u > (UINT64_MAX - d) / 10) {
				ret->big = true;
				break;
			}
			ret->u = ret->u * 10 + d;
		}
	}
	ret->d = (double)ret->u;
	return 0;
}

/* any value, checked and dropped */
static int skip(struct rd *r, int depth)
{
	struct num x;
	int c = ws(r), e;

	if (c < 0)
		return eof(r);
	if (c == '"')
		return string(r, false);
	if (c == '{' || c == '[') {
		int close = c == '{' ? '}' : ']';

		if (depth >= MAX_NESTING)
			return bad(r, "nesting too deep");
		r->i++;
		if (ws(r) == close) {
			r->i++;
			return 0;
		}
		for (;;) {
			if (close == '}') {
				e = string(r, false);
				if (!e)
					e = expect(r, ':');
				if (e)
					return e;
			}
			e = skip(r, depth + 1);
			if (e)
				return e;
			c = ws(r);
			if (c == ',') {
				r->i++;
				continue;
			}
			if (c == close) {
				r->i++;
				return 0;
			}
			return c < 0 ? eof(r) : bad(r, "',' or a closing bracket expected");
		}
	}
	if (c == 't')
		return literal(r, "true");
	if (c == 'f')
		return literal(r, "false");
	if (c == 'n')
		return literal(r, "null");
	return number(r, &x);
}

/* ---- objects and arrays -------------------------------------------------------- */

/* after '{' or a member: 1 and the key in r->s for another member, 0 at '}' */
static int next_key(struct rd *r, bool *first)
{
	int c = ws(r), e;

	if (c < 0)
		return eof(r);
	if (*first) {
		*first = false;
		if (c == '}') {
			r->i++;
			return 0;
		}
	} else if (c == '}') {
		r->i++;
		return 0;
	} else if (c == ',') {
		r->i++;
	} else {
		return bad(r, "',' or '}' expected");
	}
	e = string(r, true);
	if (!e)
		e = expect(r, ':');
	return e ? e : 1;
}

/* after '[' or an element: 1 when another element follows, 0 at ']' */
static int next_elem(struct rd *r, bool *first)
{
	int c = ws(r);

	if (c < 0)
		return eof(r);
	if (c == ']') {
		r->i++;
		return 0;
	}
	if (*first) {
		*first = false;
		return 1;
	}
	if (c != ',')
		return bad(r, "',' or ']' expected");
	r->i++;
	return 1;
}

/* the type of the next value: one of {["tfn or '0' for a number */
static int kind(struct rd *r)
{
	int c = ws(r);

	if (c == '-' || (c >= '0' && c <= '9'))
		return '0';
	return c;
}

/* ---- typed fields ------------------------------------------------------------------ */

static int get_count(struct rd *r, uint64_t *ret, const char *where, const char *name)
{
	struct num x;
	int e;

	if (kind(r) != '0')
		return fail(r, -EBADMSG, "%s\"%s\" has the wrong type", where, name);
	e = number(r, &x);
	if (e)
		return e;
	if (x.type == N_FLOAT)
		return fail(r, -EBADMSG, "%s\"%s\" has the wrong type", where, name);
	if (x.type == N_NEG && x.u)
		return fail(r, -EBADMSG, "%s\"%s\" is negative", where, name);
	if (x.big)
		return fail(r, -EBADMSG, "%s\"%s\" is out of range", where, name);
	*ret = x.type == N_NEG ? 0 : x.u;
	return 0;
}

/* an integer in [lo, hi], or null (-1) when @nullable */
static int get_int(struct rd *r, long lo, long hi, bool nullable, int *ret, const char *where,
		   const char *name)
{
	struct num x;
	int64_t v;
	int e;

	if (nullable && kind(r) == 'n') {
		*ret = -1;
		return literal(r, "null");
	}
	if (kind(r) != '0')
		return fail(r, -EBADMSG, "%s\"%s\" is not an integer", where, name);
	e = number(r, &x);
	if (e)
		return e;
	if (x.type == N_FLOAT)
		return fail(r, -EBADMSG, "%s\"%s\" is not an integer", where, name);
	if (x.big || x.u > (uint64_t)INT64_MAX)
		return fail(r, -EBADMSG, "%s\"%s\" is out of range", where, name);
	v = x.type == N_NEG ? -(int64_t)x.u : (int64_t)x.u;
	if (v < lo || v > hi)
		return fail(r, -EBADMSG, "%s\"%s\" %" PRId64 " is out of range", where, name, v);
	*ret = (int)v;
	return 0;
}

/* true or false; anything else is skipped and false (as before: lenient) */
static int get_bool(struct rd *r, bool *ret)
{
	int c = kind(r);

	*ret = false;
	if (c == 't') {
		*ret = true;
		return literal(r, "true");
	}
	return skip(r, 1);
}

static int need_string(struct rd *r, const char *where, const char *name)
{
	if (kind(r) != '"')
		return fail(r, -EBADMSG, "%s\"%s\" has the wrong type", where, name);
	return string(r, true);
}

/* a sanitized copy of r->s */
static char *dup_clean(struct rd *r)
{
	size_t cap = r->slen * 4 + 1; /* every byte may become \xNN */
	char *d = malloc(cap);

	if (d)
		fmt_sanitize(d, cap, r->s, r->slen);
	return d;
}

/* a string into @dst (sanitized); another type is skipped and "" */
static int copy_clean(struct rd *r, char *dst, size_t size)
{
	int e;

	dst[0] = '\0';
	if (kind(r) != '"')
		return skip(r, 1);
	e = string(r, true);
	if (!e)
		fmt_sanitize(dst, size, r->s, r->slen);
	return e;
}

static int parse_hex(const char *s, uint64_t *ret)
{
	uint64_t v = 0;
	int n = 0;

	if (s[0] != '0' || s[1] != 'x' || !s[2])
		return -1;
	for (s += 2; *s; s++, n++) {
		int d = *s >= '0' && *s <= '9' ? *s - '0' : *s >= 'a' && *s <= 'f' ? *s - 'a' + 10 : -1;

		if (d < 0 || n >= 16)
			return -1;
		v = v << 4 | (uint64_t)d;
	}
	*ret = v;
	return 0;
}

static int grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t nc;
	void *p;

	if (need <= *cap)
		return 0;
	nc = *cap ? *cap * 2 : 8;
	while (nc < need)
		nc *= 2;
	p = realloc(*arr, nc * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = nc;
	return 0;
}

static int str_array(struct rd *r, unsigned int max, char ***ret, unsigned int *ret_n,
		     const char *name)
{
	size_t cap = 0, i = 0;
	bool first = true;
	int e;

	if (*ret)
		return fail(r, -EBADMSG, "\"%s\" appears twice", name);
	if (kind(r) != '[')
		return fail(r, -EBADMSG, "\"%s\" is not an array", name);
	r->i++;
	*ret = calloc(1, sizeof(char *));
	if (!*ret)
		return -ENOMEM;
	cap = 1;
	while ((e = next_elem(r, &first)) == 1) {
		if (i >= max)
			return fail(r, -EBADMSG, "\"%s\" has more than %u entries", name, max);
		if (kind(r) != '"')
			return fail(r, -EBADMSG, "\"%s\"[%zu] is not a string", name, i);
		e = string(r, true);
		if (e)
			return e;
		if (grow((void **)ret, &cap, i + 1, sizeof(char *)) < 0)
			return -ENOMEM;
		(*ret)[i] = dup_clean(r);
		if (!(*ret)[i])
			return -ENOMEM;
		*ret_n = (unsigned int)++i;
	}
	return e;
}

/* ---- the header (pass 2) ------------------------------------------------------------- */

struct header {
	bool schema, version, mode, view, stacks;
	uint32_t counts; /* bit per counter seen */
	char *view_event; /* resolved once "events" is known */
	bool view_event_set;
};

static const char *const sort_names[] = { [RANK_DELTA] = "hits", [RANK_TOTAL] = "total",
					  [RANK_DEPTH] = "depth", [RANK_ID] = "id",
					  [RANK_EVENT] = "event", [RANK_COMM] = "comm" };

static int parse_view(struct rd *r, struct snapshot *sn, struct header *h)
{
	struct snap_view *w = &sn->view;
	const char *where = "view: ";
	bool first = true, sort = false, counts = false, top = false;
	int e, i;

	if (h->view)
		return fail(r, -EBADMSG, "\"view\" appears twice");
	h->view = true;
	if (kind(r) != '{')
		return fail(r, -EBADMSG, "\"view\" has the wrong type");
	r->i++;
	w->event = -1;
	w->pid = w->cpu = -1;
	while ((e = next_key(r, &first)) == 1) {
		if (!strcmp(r->s, "sort")) {
			e = need_string(r, where, "sort");
			if (e)
				return e;
			w->sort = -1;
			for (i = 0; i < RANK_KEY_MAX; i++)
				if (!strcmp(r->s, sort_names[i]))
					w->sort = i;
			if (w->sort < 0)
				return fail(r, -EBADMSG, "view: unknown sort");
			sort = true;
		} else if (!strcmp(r->s, "counts")) {
			e = need_string(r, where, "counts");
			if (e)
				return e;
			if (!strcmp(r->s, "delta"))
				w->delta = true;
			else if (!strcmp(r->s, "total"))
				w->delta = false;
			else
				return fail(r, -EBADMSG, "view: \"counts\" is neither delta nor total");
			counts = true;
		} else if (!strcmp(r->s, "ascending")) {
			e = get_bool(r, &w->ascending);
		} else if (!strcmp(r->s, "hide_idle")) {
			e = get_bool(r, &w->hide_idle);
		} else if (!strcmp(r->s, "event")) {
			free(h->view_event);
			h->view_event = NULL;
			if (kind(r) == '"') {
				e = string(r, true);
				if (!e && !(h->view_event = dup_clean(r)))
					e = -ENOMEM;
			} else {
				e = skip(r, 2);
			}
		} else if (!strcmp(r->s, "pid")) {
			e = get_int(r, -1, INT32_MAX, true, &w->pid, where, "pid");
		} else if (!strcmp(r->s, "cpu")) {
			e = get_int(r, -1, 65535, true, &w->cpu, where, "cpu");
		} else if (!strcmp(r->s, "top")) {
			e = get_int(r, 0, 100000, false, &w->top, where, "top");
			top = true;
		} else if (!strcmp(r->s, "filter") || !strcmp(r->s, "comm")) {
			char **to = !strcmp(r->s, "filter") ? &w->filter : &w->comm;

			free(*to);
			*to = NULL;
			if (kind(r) == '"') {
				e = string(r, true);
				if (!e && !(*to = dup_clean(r)))
					e = -ENOMEM;
			} else {
				e = skip(r, 2);
			}
		} else {
			e = skip(r, 2);
		}
		if (e)
			return e;
	}
	if (e)
		return e;
	if (!sort)
		return fail(r, -EBADMSG, "view: \"sort\" is missing");
	if (!counts)
		return fail(r, -EBADMSG, "view: \"counts\" is missing");
	if (!top)
		return fail(r, -EBADMSG, "view: \"top\" is missing");
	return 0;
}

/* "weight": {"name": ..., "unit": ..., "ranked": bool}: a weighted run */
static int parse_weight(struct rd *r, struct snapshot *sn)
{
	bool first = true;
	int e;

	if (kind(r) != '{')
		return skip(r, 1);
	r->i++;
	while ((e = next_key(r, &first)) == 1) {
		if (!strcmp(r->s, "name")) {
			e = copy_clean(r, sn->weight_name, sizeof(sn->weight_name));
		} else if (!strcmp(r->s, "unit")) {
			e = need_string(r, "weight: ", "unit");
			if (e)
				return e;
			if (strcmp(r->s, "bytes") && strcmp(r->s, "nanoseconds") && strcmp(r->s, "count"))
				return fail(r, -EBADMSG, "weight: unknown \"unit\"");
			snprintf(sn->weight_unit, sizeof(sn->weight_unit), "%s", r->s);
		} else if (!strcmp(r->s, "ranked")) {
			e = get_bool(r, &sn->weight_ranked);
		} else {
			e = skip(r, 2);
		}
		if (e)
			return e;
	}
	if (!e && !sn->weight_unit[0])
		return fail(r, -EBADMSG, "weight: \"unit\" is missing");
	if (!e && !sn->weight_name[0])
		snprintf(sn->weight_name, sizeof(sn->weight_name), "weight");
	return e;
}

/* "group": {"depth": N, "function": bool}, as the view was grouped */
static int parse_group(struct rd *r, struct snapshot *sn)
{
	bool first = true;
	int e, d;

	if (kind(r) != '{')
		return skip(r, 1);
	r->i++;
	while ((e = next_key(r, &first)) == 1) {
		if (!strcmp(r->s, "depth")) {
			e = get_int(r, 0, STACK_MAX_DEPTH, false, &d, "group: ", "depth");
			sn->group_depth = (unsigned int)(d < 0 ? 0 : d);
		} else if (!strcmp(r->s, "function")) {
			e = get_bool(r, &sn->group_func);
		} else {
			e = skip(r, 2);
		}
		if (e)
			return e;
	}
	return e;
}

static const struct {
	const char *name;
	size_t off;
} counters[] = {
#define C(f) { #f, offsetof(struct snapshot, f) }
	C(hits), C(hits_delta), C(lost), C(overrun), C(dropped), C(orphans), C(bad_pages),
	C(fallbacks), C(unresolved),
#undef C
};

/* the root object's fields but "stacks"; @stacks_at/@stacks_end: where that is */
static int parse_header(struct rd *r, struct snapshot *sn, uint64_t stacks_at,
			uint64_t stacks_end)
{
	struct header h = { 0 };
	bool first = true;
	size_t k;
	int e, i;

	if (kind(r) != '{') {
		e = skip(r, 0);
		return e < 0 ? e : fail(r, -EBADMSG, "not a stacktop snapshot (not a JSON object)");
	}
	r->i++;
	while ((e = next_key(r, &first)) == 1) {
		const char *key = r->s;

		if (!strcmp(key, "schema")) {
			if (kind(r) != '"' || (e = string(r, true)) ||
			    strcmp(r->s, "stacktop-snapshot")) {
				e = fail(r, -EBADMSG,
					 "not a stacktop snapshot (no \"schema\": \"stacktop-snapshot\")");
				break;
			}
			h.schema = true;
		} else if (!strcmp(key, "version")) {
			struct num x;

			if (kind(r) != '0') {
				e = fail(r, -EBADMSG, "\"version\" has the wrong type");
				break;
			}
			e = number(r, &x);
			if (e)
				break;
			if (x.type != N_INT || x.u != 2) {
				e = fail(r, -EPROTONOSUPPORT,
					 "snapshot version %s%" PRIu64 ": this stacktop reads version 2",
					 x.type == N_NEG ? "-" : "", x.u);
				break;
			}
			h.version = true;
		} else if (!strcmp(key, "host")) {
			e = copy_clean(r, sn->host, sizeof(sn->host));
		} else if (!strcmp(key, "kernel")) {
			e = copy_clean(r, sn->kernel, sizeof(sn->kernel));
		} else if (!strcmp(key, "source")) {
			e = copy_clean(r, sn->source, sizeof(sn->source));
		} else if (!strcmp(key, "time")) {
			e = copy_clean(r, sn->time, sizeof(sn->time));
		} else if (!strcmp(key, "mode")) {
			e = need_string(r, "", "mode");
			if (!e)
				fmt_sanitize(sn->mode, sizeof(sn->mode), r->s, r->slen);
			h.mode = true;
		} else if (!strcmp(key, "interval")) {
			if (kind(r) == '0') {
				struct num x;

				e = number(r, &x);
				if (e)
					break;
				sn->interval = x.type == N_NEG ? -x.d : x.d;
				if (!(sn->interval >= 0 && sn->interval < 1e9)) {
					e = fail(r, -EBADMSG, "\"interval\" is out of range");
					break;
				}
			} else {
				e = skip(r, 1);
			}
		} else if (!strcmp(key, "events")) {
			e = str_array(r, SNAPSHOT_MAX_EVENTS, &sn->events, &sn->nevents, "events");
		} else if (!strcmp(key, "origins")) {
			e = str_array(r, SNAPSHOT_MAX_ORIGINS, &sn->origins, &sn->norigins, "origins");
		} else if (!strcmp(key, "view")) {
			e = parse_view(r, sn, &h);
		} else if (!strcmp(key, "group")) {
			e = parse_group(r, sn);
		} else if (!strcmp(key, "weight")) {
			e = parse_weight(r, sn);
		} else if (!strcmp(key, "stacks")) {
			h.stacks = true;
			if (kind(r) != '[') {
				e = fail(r, -EBADMSG, "\"stacks\" has the wrong type");
				break;
			}
			/* read in pass 3: seek over it */
			if (rd_off(r) == stacks_at)
				e = rd_seek(r, stacks_end);
			else
				e = skip(r, 1);
		} else {
			for (k = 0; k < sizeof(counters) / sizeof(counters[0]); k++)
				if (!strcmp(key, counters[k].name))
					break;
			if (k < sizeof(counters) / sizeof(counters[0])) {
				e = get_count(r, (uint64_t *)((char *)sn + counters[k].off), "",
					      counters[k].name);
				h.counts |= 1u << k;
			} else {
				e = skip(r, 1);
			}
		}
		if (e)
			break;
	}
	if (e)
		goto out;
	if (!h.schema) {
		e = fail(r, -EBADMSG, "not a stacktop snapshot (no \"schema\": \"stacktop-snapshot\")");
		goto out;
	}
	e = -EBADMSG;
	if (!h.version) {
		fail(r, e, "\"version\" is missing");
		goto out;
	}
	if (!h.mode) {
		fail(r, e, "\"mode\" is missing");
		goto out;
	}
	for (k = 0; k < sizeof(counters) / sizeof(counters[0]); k++)
		if (!(h.counts & 1u << k)) {
			fail(r, e, "\"%s\" is missing", counters[k].name);
			goto out;
		}
	if (!sn->events) {
		fail(r, e, "\"events\" is missing");
		goto out;
	}
	if (!h.view) {
		fail(r, e, "\"view\" is missing");
		goto out;
	}
	if (!h.stacks) {
		fail(r, e, "\"stacks\" is missing");
		goto out;
	}
	if (h.view_event) {
		for (i = 0; i < (int)sn->nevents; i++)
			if (!strcmp(sn->events[i], h.view_event))
				sn->view.event = i;
		if (sn->view.event < 0) {
			fail(r, e, "view: event not in \"events\"");
			goto out;
		}
	}
	e = 0;
out:
	free(h.view_event);
	return e;
}

/* ---- stacks (pass 3) ------------------------------------------------------------------- */

static void stack_clear(struct snap_stack *st)
{
	size_t j;

	for (j = 0; st->syms && j < st->nsyms; j++)
		free(st->syms[j]);
	for (j = 0; st->usyms && j < st->nuser; j++)
		free(st->usyms[j]);
	for (j = 0; j < st->nby; j++)
		free(st->by[j].comm);
	free(st->syms);
	free(st->ips);
	free(st->uaddrs);
	free(st->usyms);
	free(st->by);
	memset(st, 0, sizeof(*st));
}

static int find_event(const struct snapshot *sn, const char *name)
{
	unsigned int i;

	for (i = 0; i < sn->nevents; i++)
		if (!strcmp(sn->events[i], name))
			return (int)i;
	return -1;
}

/*
 * A stack's list field @name opens: never twice (@seen), always an array;
 * the reader is left on its first element.
 */
static int list_open(struct rd *r, bool seen, const char *where, const char *name)
{
	if (seen)
		return fail(r, -EBADMSG, "%s\"%s\" appears twice", where, name);
	if (kind(r) != '[')
		return fail(r, -EBADMSG, "%s\"%s\" has the wrong type", where, name);
	r->i++;
	return 0;
}


static int parse_by(struct rd *r, const struct snapshot *sn, struct snap_by *b, const char *where)
{
	bool first = true, ev = false, cpu = false, pid = false, total = false, delta = false;
	uint64_t v = 0;
	int e, i;

	if (kind(r) != '{')
		return fail(r, -EBADMSG, "%s\"by\" has an entry that is not an object", where);
	r->i++;
	b->pid = -1;
	while ((e = next_key(r, &first)) == 1) {
		if (!strcmp(r->s, "event")) {
			char name[512];

			e = need_string(r, where, "event");
			if (e)
				return e;
			fmt_sanitize(name, sizeof(name), r->s, r->slen);
			i = find_event(sn, name);
			if (i < 0)
				return fail(r, -EBADMSG, "%sevent not in \"events\"", where);
			b->event = (unsigned int)i;
			ev = true;
		} else if (!strcmp(r->s, "cpu")) {
			e = get_int(r, 0, 65535, false, &i, where, "cpu");
			b->cpu = (unsigned int)i;
			cpu = true;
		} else if (!strcmp(r->s, "pid")) {
			e = get_int(r, -1, INT32_MAX, false, &b->pid, where, "pid");
			pid = true;
		} else if (!strcmp(r->s, "origin")) {
			e = get_int(r, 0, sn->norigins ? (long)sn->norigins - 1 : 0, true, &i, where,
				    "origin");
			b->origin = i < 0 ? 0 : (unsigned int)i;
		} else if (!strcmp(r->s, "comm")) {
			e = need_string(r, where, "comm");
			if (!e) {
				free(b->comm);
				b->comm = dup_clean(r);
				if (!b->comm)
					e = -ENOMEM;
			}
		} else if (!strcmp(r->s, "total")) {
			e = get_count(r, &b->total, where, "total");
			total = true;
		} else if (!strcmp(r->s, "delta")) {
			e = get_count(r, &v, where, "delta");
			delta = true;
		} else if (!strcmp(r->s, "weight")) {
			e = get_count(r, &b->weight, where, "weight");
		} else if (!strcmp(r->s, "weight_delta")) {
			e = get_count(r, &b->weight_delta, where, "weight_delta");
		} else {
			e = skip(r, 4);
		}
		if (e)
			return e;
	}
	if (e)
		return e;
	if (!ev || !cpu || !pid || !b->comm || !total || !delta)
		return fail(r, -EBADMSG, "%s\"%s\" is missing", where,
			    !ev ? "event" : !cpu ? "cpu" : !pid ? "pid" : !b->comm ? "comm"
			    : !total ? "total" : "delta");
	if (v > b->total || v > UINT32_MAX)
		return fail(r, -EBADMSG, "%s\"delta\" is larger than \"total\"", where);
	b->delta = (uint32_t)v;
	if (b->weight_delta > b->weight)
		return fail(r, -EBADMSG, "%s\"weight_delta\" is larger than \"weight\"", where);
	return 0;
}

static int parse_user_frame(struct rd *r, struct snap_stack *st, size_t j, const char *where)
{
	bool first = true, addr = false;
	int e;

	if (kind(r) != '{')
		return fail(r, -EBADMSG, "%s\"user_frames\"[%zu] is not an object", where, j);
	r->i++;
	st->usyms[j] = NULL;
	while ((e = next_key(r, &first)) == 1) {
		if (!strcmp(r->s, "addr")) {
			if (kind(r) != '"' || (e = string(r, true)) ||
			    parse_hex(r->s, &st->uaddrs[j]) < 0)
				return e < 0 ? e : fail(r, -EBADMSG,
						    "%s\"user_frames\"[%zu]: \"addr\" is not a hex address",
						    where, j);
			addr = true;
		} else if (!strcmp(r->s, "symbol")) {
			e = need_string(r, where, "symbol");
			if (!e) {
				free(st->usyms[j]);
				st->usyms[j] = dup_clean(r);
				if (!st->usyms[j])
					e = -ENOMEM;
			}
		} else {
			e = skip(r, 5);
		}
		if (e)
			return e;
	}
	if (e)
		return e;
	if (!addr || !st->usyms[j])
		return fail(r, -EBADMSG, "%s\"user_frames\"[%zu]: \"%s\" is missing", where, j,
			    addr ? "symbol" : "addr");
	return 0;
}

static int parse_stack(struct rd *r, const struct snapshot *sn, struct snap_stack *st, size_t idx)
{
	static const struct {
		const char *name;
		unsigned int flag;
	} flags[] = {
		{ "more_ids", STACK_F_MOREIDS }, { "fallback", STACK_F_FALLBACK },
		{ "mapped", STACK_F_MAPPED },	 { "merged64", STACK_F_MERGED64 },
		{ "cut", STACK_F_CUT },
	};
	uint64_t total = 0, delta = 0, hits = 0, hits_delta = 0;
	bool first = true, key = false, have_total = false, have_delta = false, have_hits = false,
	     have_hits_delta = false, ids = false, frames = false, syms = false, by = false;
	size_t cap, j, capu = 0;
	char where[48];
	int e;

	snprintf(where, sizeof(where), "stack %zu: ", idx + 1);
	if (kind(r) != '{') {
		e = skip(r, 1);
		return e < 0 ? e : fail(r, -EBADMSG, "%snot an object", where);
	}
	r->i++;
	st->tgid = -1;
	while ((e = next_key(r, &first)) == 1) {
		const char *k = r->s;
		bool f = true;

		if (!strcmp(k, "key")) {
			e = need_string(r, where, "key");
			if (e)
				return e;
			if (r->slen != 16 || strspn(r->s, "0123456789abcdef") != 16)
				return fail(r, -EBADMSG, "%s\"key\" is not 16 hex digits", where);
			memcpy(st->key, r->s, 17);
			key = true;
		} else if (!strcmp(k, "total")) {
			e = get_count(r, &total, where, "total");
			have_total = true;
		} else if (!strcmp(k, "delta")) {
			e = get_count(r, &delta, where, "delta");
			have_delta = true;
		} else if (!strcmp(k, "hits")) {
			/* a weighted run's stacks rank weights: their hits are apart */
			e = get_count(r, &hits, where, "hits");
			have_hits = true;
		} else if (!strcmp(k, "hits_delta")) {
			e = get_count(r, &hits_delta, where, "hits_delta");
			have_hits_delta = true;
		} else if (!strcmp(k, "weight")) {
			e = get_count(r, &st->weight, where, "weight");
		} else if (!strcmp(k, "weight_delta")) {
			e = get_count(r, &st->weight_delta, where, "weight_delta");
		} else if (!strcmp(k, "ids")) {
			bool fe = true;

			e = list_open(r, false, where, "ids");
			if (e)
				return e;
			st->nids = 0;
			j = 0;
			while ((e = next_elem(r, &fe)) == 1) {
				struct num x;

				if (kind(r) != '0' || (e = number(r, &x)) || x.type != N_INT ||
				    x.u > UINT32_MAX)
					return e < 0 ? e : fail(r, -EBADMSG,
							    "%s\"ids\"[%zu] is not a stack id", where, j);
				if (st->nids < 2)
					st->ids[st->nids++] = (uint32_t)x.u;
				else
					st->flags |= STACK_F_MOREIDS;
				j++;
			}
			ids = true;
		} else if (!strcmp(k, "frames")) {
			bool fe = true;

			e = list_open(r, frames, where, "frames");
			if (e)
				return e;
			cap = 0;
			while ((e = next_elem(r, &fe)) == 1) {
				if (st->depth >= STACK_MAX_DEPTH)
					return fail(r, -EBADMSG, "%smore than %d frames", where,
						    STACK_MAX_DEPTH);
				if (grow((void **)&st->ips, &cap, st->depth + 1, sizeof(*st->ips)) < 0)
					return -ENOMEM;
				if (kind(r) != '"' || (e = string(r, true)) ||
				    parse_hex(r->s, &st->ips[st->depth]) < 0)
					return e < 0 ? e : fail(r, -EBADMSG,
							    "%s\"frames\"[%u] is not a hex address",
							    where, st->depth);
				st->depth++;
			}
			frames = true;
		} else if (!strcmp(k, "symbols")) {
			bool fe = true;

			e = list_open(r, syms, where, "symbols");
			if (e)
				return e;
			cap = 0;
			while ((e = next_elem(r, &fe)) == 1) {
				if (st->nsyms >= STACK_MAX_DEPTH)
					return fail(r, -EBADMSG, "%smore than %d symbols", where,
						    STACK_MAX_DEPTH);
				if (kind(r) != '"')
					return fail(r, -EBADMSG, "%s\"symbols\"[%u] is not a string",
						    where, st->nsyms);
				e = string(r, true);
				if (e)
					return e;
				if (grow((void **)&st->syms, &cap, st->nsyms + 1, sizeof(*st->syms)) < 0)
					return -ENOMEM;
				st->syms[st->nsyms] = dup_clean(r);
				if (!st->syms[st->nsyms])
					return -ENOMEM;
				st->nsyms++;
			}
			syms = true;
		} else if (!strcmp(k, "by")) {
			bool fe = true;

			e = list_open(r, by, where, "by");
			if (e)
				return e;
			cap = 0;
			while ((e = next_elem(r, &fe)) == 1) {
				if (grow((void **)&st->by, &cap, st->nby + 1, sizeof(*st->by)) < 0)
					return -ENOMEM;
				memset(&st->by[st->nby], 0, sizeof(*st->by));
				st->nby++;
				e = parse_by(r, sn, &st->by[st->nby - 1], where);
				if (e)
					return e;
			}
			by = true;
		} else if (!strcmp(k, "tgid")) {
			struct num x;

			if (kind(r) != '0' || (e = number(r, &x)) || x.type != N_INT ||
			    x.u > UINT32_MAX)
				return e < 0 ? e : fail(r, -EBADMSG, "%s\"tgid\" is not a process id", where);
			st->tgid = (int64_t)x.u;
		} else if (!strcmp(k, "user_frames")) {
			bool fe = true;

			e = list_open(r, st->uaddrs, where, "user_frames");
			if (e)
				return e;
			capu = 0;
			st->uaddrs = calloc(1, sizeof(*st->uaddrs));
			if (!st->uaddrs)
				return -ENOMEM;
			while ((e = next_elem(r, &fe)) == 1) {
				size_t c2 = capu;

				if (st->nuser >= STACK_MAX_DEPTH)
					return fail(r, -EBADMSG, "%smore than %d user frames", where,
						    STACK_MAX_DEPTH);
				if (grow((void **)&st->uaddrs, &capu, st->nuser + 1,
					 sizeof(*st->uaddrs)) < 0 ||
				    grow((void **)&st->usyms, &c2, st->nuser + 1, sizeof(*st->usyms)) < 0)
					return -ENOMEM;
				st->nuser++;
				e = parse_user_frame(r, st, st->nuser - 1, where);
				if (e)
					return e;
			}
		} else if (!strcmp(k, "user_cut")) {
			e = get_bool(r, &st->user_cut);
		} else {
			f = false;
		}
		if (!f) {
			size_t i;

			for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
				if (!strcmp(k, flags[i].name))
					break;
			if (i < sizeof(flags) / sizeof(flags[0])) {
				bool on;

				e = get_bool(r, &on);
				if (on)
					st->flags |= flags[i].flag;
			} else {
				e = skip(r, 2);
			}
		}
		if (e)
			return e;
	}
	if (e)
		return e;
	if (!key)
		return fail(r, -EBADMSG, "%s\"key\" is missing", where);
	if (have_hits || have_hits_delta) {
		if (!have_hits || !have_hits_delta)
			return fail(r, -EBADMSG, "%s\"%s\" is missing", where,
				    have_hits ? "hits_delta" : "hits");
		total = hits;
		delta = hits_delta;
	} else if (!have_total || !have_delta) {
		return fail(r, -EBADMSG, "%s\"%s\" is missing", where,
			    have_total ? "delta" : "total");
	}
	if (!ids || !frames || !syms || !by)
		return fail(r, -EBADMSG, "%s\"%s\" is missing", where,
			    !ids ? "ids" : !frames ? "frames" : !syms ? "symbols" : "by");
	if (st->nsyms != st->depth)
		return fail(r, -EBADMSG, "%s\"symbols\" and \"frames\" differ in length", where);
	if (delta > total || delta > UINT32_MAX)
		return fail(r, -EBADMSG, "%s\"delta\" is larger than \"total\"", where);
	if (st->weight_delta > st->weight)
		return fail(r, -EBADMSG, "%s\"weight_delta\" is larger than \"weight\"", where);
	if (st->uaddrs && st->tgid < 0)
		return fail(r, -EBADMSG, "%s\"user_frames\" without \"tgid\"", where);
	/* kernel frames, the separator, user frames and a cut mark in one table stack */
	if (st->uaddrs && st->depth + st->nuser + 2 > STACK_MAX_DEPTH)
		return fail(r, -EBADMSG, "%smore than %d frames with the user part", where,
			    STACK_MAX_DEPTH);
	if (!st->uaddrs) {
		st->tgid = -1;
		st->user_cut = false;
	}
	st->total = total;
	st->delta = (uint32_t)delta;
	return 0;
}

/* ---- pass 1: the values of the input -------------------------------------------------- */

struct extent {
	uint64_t start;      /* the last top-level value */
	uint64_t stacks_at;  /* its "stacks" value, UINT64_MAX: none */
	uint64_t stacks_end;
};

/* every top-level value checked; where the last one and its "stacks" are */
static int scan(struct rd *r, struct extent *x)
{
	int n = 0, c, e;

	for (;;) {
		bool first = true;

		c = ws(r);
		if (c < 0)
			break;
		x->start = rd_off(r);
		x->stacks_at = UINT64_MAX;
		n++;
		if (c != '{') {
			e = skip(r, 0);
			if (e)
				return e;
			continue;
		}
		r->i++;
		/* the root object's members: note where "stacks" is */
		while ((e = next_key(r, &first)) == 1) {
			bool st = !strcmp(r->s, "stacks");
			uint64_t at;

			ws(r);
			at = rd_off(r);
			e = skip(r, 1);
			if (e)
				return e;
			if (st) {
				x->stacks_at = at;
				x->stacks_end = rd_off(r);
			}
		}
		if (e)
			return e;
	}
	if (r->err && r->err[0])
		return -EIO;
	return n ? 0 : fail(r, -EBADMSG, "empty: no snapshot in it");
}

/* ---- the reader --------------------------------------------------------------------- */

struct collect {
	struct snapshot *sn;
	size_t cap;
};

static int collect(void *ctx, const struct snapshot *sn, struct snap_stack *st)
{
	struct collect *c = ctx;

	(void)sn;
	if (grow((void **)&c->sn->stacks, &c->cap, c->sn->nstacks + 1, sizeof(*st)) < 0)
		return -ENOMEM;
	c->sn->stacks[c->sn->nstacks++] = *st;
	memset(st, 0, sizeof(*st)); /* moved */
	return 0;
}

static int run(struct rd *r, snapshot_stack_fn fn, void *ctx, struct snapshot **ret)
{
	struct extent x = { .stacks_at = UINT64_MAX };
	struct collect col = { 0 };
	struct snap_stack st;
	struct snapshot *sn;
	bool first = true;
	size_t idx = 0;
	int e;

	*ret = NULL;
	memset(&st, 0, sizeof(st));
	if (r->err && r->errsz)
		r->err[0] = '\0';
	e = scan(r, &x);
	if (e)
		goto fail;
	e = rd_seek(r, x.start);
	if (e)
		goto fail;
	sn = calloc(1, sizeof(*sn));
	if (!sn) {
		e = -ENOMEM;
		goto fail;
	}
	e = parse_header(r, sn, x.stacks_at, x.stacks_end);
	if (!e && x.stacks_at == UINT64_MAX)
		e = fail(r, -EBADMSG, "\"stacks\" is missing");
	if (!e)
		e = rd_seek(r, x.stacks_at);
	if (!e)
		e = expect(r, '[');
	if (e)
		goto fail_sn;
	col.sn = sn;
	if (!fn) {
		fn = collect;
		ctx = &col;
	}
	while ((e = next_elem(r, &first)) == 1) {
		e = parse_stack(r, sn, &st, idx);
		if (!e)
			e = fn(ctx, sn, &st);
		stack_clear(&st);
		if (e)
			goto fail_sn;
		idx++;
	}
	if (e)
		goto fail_sn;
	if (fn != collect)
		sn->nstacks = idx;
	*ret = sn;
	return 0;
fail_sn:
	stack_clear(&st);
	snapshot_free(sn);
fail:
	if (e == -ENOMEM)
		fail(r, e, "out of memory");
	else if (!r->err || !r->err[0])
		fail(r, e, "%s", strerror(-e));
	/* a syntax error is always "bad message", whatever came first */
	return r->syntax ? -EBADMSG : e;
}

int snapshot_parse(const char *buf, size_t len, struct snapshot **ret, char *err, size_t errsz)
{
	struct rd r = { .p = buf, .n = len, .len = len, .fd = -1, .err = err, .errsz = errsz };
	int e;

	*ret = NULL;
	if (err && errsz)
		err[0] = '\0';
	if (len > SNAPSHOT_MAX_BYTES)
		return fail(&r, -EFBIG, "larger than %u MiB", SNAPSHOT_MAX_BYTES >> 20);
	e = run(&r, NULL, NULL, ret);
	free(r.s);
	return e;
}

int snapshot_load_each(const char *path, snapshot_stack_fn fn, void *ctx, struct snapshot **ret,
		       char *err, size_t errsz)
{
	struct rd r = { .fd = -1, .err = err, .errsz = errsz };
	struct stat sb;
	int fd, e;

	*ret = NULL;
	if (err && errsz)
		err[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		e = fstat(fd, &sb) < 0 ? -errno : -EINVAL;
		close(fd);
		if (err && errsz)
			snprintf(err, errsz, "not a regular file");
		return e;
	}
	if ((uint64_t)sb.st_size > SNAPSHOT_MAX_BYTES) {
		close(fd);
		if (err && errsz)
			snprintf(err, errsz, "larger than %u MiB", SNAPSHOT_MAX_BYTES >> 20);
		return -EFBIG;
	}
	r.buf = malloc(WINDOW);
	if (!r.buf) {
		close(fd);
		return -ENOMEM;
	}
	r.p = r.buf;
	r.fd = fd;
	r.len = (uint64_t)sb.st_size;
	e = run(&r, fn, ctx, ret);
	close(fd);
	free(r.buf);
	free(r.s);
	return e;
}

int snapshot_load(const char *path, struct snapshot **ret, char *err, size_t errsz)
{
	return snapshot_load_each(path, NULL, NULL, ret, err, errsz);
}

void snapshot_free(struct snapshot *sn)
{
	size_t i;

	if (!sn)
		return;
	for (i = 0; i < sn->nstacks && sn->stacks; i++)
		stack_clear(&sn->stacks[i]);
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

int snapshot_is_json(const char *path)
{
	char buf[64];
	ssize_t n;
	int fd, i;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	for (i = 0; i < n; i++) {
		if (strchr(" \t\r\n", buf[i]) && buf[i])
			continue;
		return buf[i] == '{';
	}
	return 0;
}
