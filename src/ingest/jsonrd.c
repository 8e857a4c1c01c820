// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * jsonrd.c - see jsonrd.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/array.h"
#include "core/format.h"
#include "ingest/jsonrd.h"

int jr_fail(struct json_rd *r, int e, const char *fmt, ...)
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

uint64_t jr_off(const struct json_rd *r)
{
	return r->base + r->i;
}

static int bad(struct json_rd *r, const char *what)
{
	r->syntax = true;
	return jr_fail(r, -EBADMSG, "not valid JSON at byte %" PRIu64 ": %s", jr_off(r), what);
}

static int rd_fill(struct json_rd *r)
{
	ssize_t got;

	if (r->fd < 0 || jr_off(r) >= r->len)
		return 0;
	r->base += r->n;
	r->n = r->i = 0;
	do
		got = read(r->fd, r->buf, JSON_RD_WINDOW);
	while (got < 0 && errno == EINTR);
	if (got < 0)
		return jr_fail(r, -errno, "cannot read: %s", strerror(errno));
	if (r->base + (uint64_t)got > r->len)
		got = (ssize_t)(r->len - r->base); /* grown since: read what it was */
	r->n = (size_t)got;
	return (int)got;
}

/* the next byte, -1 at the end (or on a read error: r->err set) */
static int peekc(struct json_rd *r)
{
	if (r->i >= r->n && rd_fill(r) <= 0)
		return -1;
	return (unsigned char)r->p[r->i];
}

static int getc_(struct json_rd *r)
{
	int c = peekc(r);

	if (c >= 0)
		r->i++;
	return c;
}

int jr_seek(struct json_rd *r, uint64_t off)
{
	if (off >= r->base && off <= r->base + r->n) {
		r->i = (size_t)(off - r->base);
		return 0;
	}
	if (lseek(r->fd, (off_t)off, SEEK_SET) < 0)
		return jr_fail(r, -errno, "cannot seek: %s", strerror(errno));
	r->base = off;
	r->n = r->i = 0;
	return 0;
}

int jr_ws(struct json_rd *r)
{
	int c;

	while ((c = peekc(r)) == ' ' || c == '\t' || c == '\n' || c == '\r')
		r->i++;
	return c;
}

/* the end of the input, or a read error */
static int eof(struct json_rd *r)
{
	if (r->err && r->err[0])
		return -EIO;
	return bad(r, "unexpected end");
}

int jr_expect(struct json_rd *r, int want)
{
	int c = jr_ws(r);

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

static int literal(struct json_rd *r, const char *word)
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
	return c >= '0' && c <= '9'   ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
				      : -1;
}

static int sput(struct json_rd *r, const char *b, size_t n, bool keep)
{
	if (!keep)
		return 0;
	if (r->slen + n >= JSON_RD_STRING)
		return jr_fail(r, -EBADMSG, "a string at byte %" PRIu64 " is longer than %u bytes",
			       jr_off(r), JSON_RD_STRING);
	if (r->slen + n + 1 > r->scap && ARRAY_GROW(r->s, r->scap, r->slen + n + 1) < 0)
		return -ENOMEM;
	memcpy(r->s + r->slen, b, n);
	r->slen += n;
	r->s[r->slen] = '\0';
	return 0;
}

static int hex4(struct json_rd *r, unsigned int *ret)
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
int jr_string(struct json_rd *r, bool keep)
{
	int c, e;

	e = jr_expect(r, '"');
	if (e)
		return e;
	r->slen = 0;
	if (keep && (e = sput(r, "", 0, true)) < 0)
		return e;
	for (;;) {
		size_t j = r->i;

		/* a run of plain bytes at once */
		while (j < r->n && r->p[j] != '"' && r->p[j] != '\\' &&
		       (unsigned char)r->p[j] >= 0x20)
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
			case '"':
			case '\\':
			case '/':
				u[0] = (char)c;
				break;
			case 'b':
				u[0] = '\b';
				break;
			case 'f':
				u[0] = '\f';
				break;
			case 'n':
				u[0] = '\n';
				break;
			case 'r':
				u[0] = '\r';
				break;
			case 't':
				u[0] = '\t';
				break;
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

int jr_number(struct json_rd *r, struct json_num *ret)
{
	char b[72];
	size_t n = 0;
	int c, digits = 0;
	bool frac = false;

	memset(ret, 0, sizeof(*ret));
	jr_ws(r);
#define TAKE()                                                                                     \
	do {                                                                                       \
		if (n + 1 >= sizeof(b))                                                            \
			return bad(r, "number too long");                                          \
		b[n++] = (char)c;                                                                  \
		r->i++;                                                                            \
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
int jr_skip(struct json_rd *r, int depth)
{
	struct json_num x;
	int c = jr_ws(r), e;

	if (c < 0)
		return eof(r);
	if (c == '"')
		return jr_string(r, false);
	if (c == '{' || c == '[') {
		int close = c == '{' ? '}' : ']';

		if (depth >= JSON_RD_NESTING)
			return bad(r, "nesting too deep");
		r->i++;
		if (jr_ws(r) == close) {
			r->i++;
			return 0;
		}
		for (;;) {
			if (close == '}') {
				e = jr_string(r, false);
				if (!e)
					e = jr_expect(r, ':');
				if (e)
					return e;
			}
			e = jr_skip(r, depth + 1);
			if (e)
				return e;
			c = jr_ws(r);
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
	return jr_number(r, &x);
}

/* ---- objects and arrays -------------------------------------------------------- */

/* after '{' or a member: 1 and the key in r->s for another member, 0 at '}' */
int jr_next_key(struct json_rd *r, bool *first)
{
	int c = jr_ws(r), e;

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
	e = jr_string(r, true);
	if (!e)
		e = jr_expect(r, ':');
	return e ? e : 1;
}

/* after '[' or an element: 1 when another element follows, 0 at ']' */
int jr_next_elem(struct json_rd *r, bool *first)
{
	int c = jr_ws(r);

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
int jr_kind(struct json_rd *r)
{
	int c = jr_ws(r);

	if (c == '-' || (c >= '0' && c <= '9'))
		return '0';
	return c;
}

/* ---- typed fields ------------------------------------------------------------------ */

int jr_count(struct json_rd *r, uint64_t *ret, const char *where, const char *name)
{
	struct json_num x;
	int e;

	if (jr_kind(r) != '0')
		return jr_fail(r, -EBADMSG, "%s\"%s\" has the wrong type", where, name);
	e = jr_number(r, &x);
	if (e)
		return e;
	if (x.type == N_FLOAT)
		return jr_fail(r, -EBADMSG, "%s\"%s\" has the wrong type", where, name);
	if (x.type == N_NEG && x.u)
		return jr_fail(r, -EBADMSG, "%s\"%s\" is negative", where, name);
	if (x.big)
		return jr_fail(r, -EBADMSG, "%s\"%s\" is out of range", where, name);
	*ret = x.type == N_NEG ? 0 : x.u;
	return 0;
}

/* an integer in [lo, hi], or null (-1) when @nullable */
int jr_int(struct json_rd *r, long lo, long hi, bool nullable, int *ret, const char *where,
	   const char *name)
{
	struct json_num x;
	int64_t v;
	int e;

	if (nullable && jr_kind(r) == 'n') {
		*ret = -1;
		return literal(r, "null");
	}
	if (jr_kind(r) != '0')
		return jr_fail(r, -EBADMSG, "%s\"%s\" is not an integer", where, name);
	e = jr_number(r, &x);
	if (e)
		return e;
	if (x.type == N_FLOAT)
		return jr_fail(r, -EBADMSG, "%s\"%s\" is not an integer", where, name);
	if (x.big || x.u > (uint64_t)INT64_MAX)
		return jr_fail(r, -EBADMSG, "%s\"%s\" is out of range", where, name);
	v = x.type == N_NEG ? -(int64_t)x.u : (int64_t)x.u;
	if (v < lo || v > hi)
		return jr_fail(r, -EBADMSG, "%s\"%s\" %" PRId64 " is out of range", where, name, v);
	*ret = (int)v;
	return 0;
}

/* true or false; anything else is skipped and false (as before: lenient) */
int jr_bool(struct json_rd *r, bool *ret)
{
	int c = jr_kind(r);

	*ret = false;
	if (c == 't') {
		*ret = true;
		return literal(r, "true");
	}
	return jr_skip(r, 1);
}

int jr_need_string(struct json_rd *r, const char *where, const char *name)
{
	if (jr_kind(r) != '"')
		return jr_fail(r, -EBADMSG, "%s\"%s\" has the wrong type", where, name);
	return jr_string(r, true);
}

/* a sanitized copy of r->s */
char *jr_dup_clean(struct json_rd *r)
{
	size_t cap = r->slen * 4 + 1; /* every byte may become \xNN */
	char *d = malloc(cap);

	if (d)
		fmt_sanitize(d, cap, r->s, r->slen);
	return d;
}

/* a string into @dst (sanitized); another type is skipped and "" */
int jr_copy_clean(struct json_rd *r, char *dst, size_t size)
{
	int e;

	dst[0] = '\0';
	if (jr_kind(r) != '"')
		return jr_skip(r, 1);
	e = jr_string(r, true);
	if (!e)
		fmt_sanitize(dst, size, r->s, r->slen);
	return e;
}

int jr_parse_hex(const char *s, uint64_t *ret)
{
	uint64_t v = 0;
	int n = 0;

	if (s[0] != '0' || s[1] != 'x' || !s[2])
		return -1;
	for (s += 2; *s; s++, n++) {
		int d = *s >= '0' && *s <= '9'	 ? *s - '0'
			: *s >= 'a' && *s <= 'f' ? *s - 'a' + 10
						 : -1;

		if (d < 0 || n >= 16)
			return -1;
		v = v << 4 | (uint64_t)d;
	}
	*ret = v;
	return 0;
}

int jr_str_array(struct json_rd *r, unsigned int max, char ***ret, unsigned int *ret_n,
		 const char *name)
{
	size_t cap = 0, i = 0;
	bool first = true;
	int e;

	if (*ret)
		return jr_fail(r, -EBADMSG, "\"%s\" appears twice", name);
	if (jr_kind(r) != '[')
		return jr_fail(r, -EBADMSG, "\"%s\" is not an array", name);
	r->i++;
	*ret = calloc(1, sizeof(char *));
	if (!*ret)
		return -ENOMEM;
	cap = 1;
	while ((e = jr_next_elem(r, &first)) == 1) {
		if (i >= max)
			return jr_fail(r, -EBADMSG, "\"%s\" has more than %u entries", name, max);
		if (jr_kind(r) != '"')
			return jr_fail(r, -EBADMSG, "\"%s\"[%zu] is not a string", name, i);
		e = jr_string(r, true);
		if (e)
			return e;
		if (ARRAY_GROW(*ret, cap, i + 1) < 0)
			return -ENOMEM;
		(*ret)[i] = jr_dup_clean(r);
		if (!(*ret)[i])
			return -ENOMEM;
		*ret_n = (unsigned int)++i;
	}
	return e;
}

/* ---- the header (pass 2) ------------------------------------------------------------- */
