/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * format.c - pure formatters: sanitized names, counts, rates, sizes, and
 * the appender they share (struct fmt_out, also used by the frame
 * formatters of sym/frame.c).
 *
 * The appender keeps snprintf semantics: the wanted length is always
 * counted, what is written is a prefix of the full text, and a UTF-8
 * character is never cut in half.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* wcwidth */
#endif
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

#include "core/format.h"

/* Truncating 1150.0 / 1000 * 100 must give 115, not 114.99999... */
#define FP_SLACK 1e-6

void fmt_out_init(struct fmt_out *o, char *buf, size_t size)
{
	o->buf = buf;
	o->size = buf ? size : 0;
	o->len = 0;
	o->wr = 0;
	o->full = o->size == 0;
}

size_t fmt_out_done(struct fmt_out *o)
{
	if (o->size)
		o->buf[o->wr] = '\0';
	return o->len;
}

/* Append bytes that may be cut anywhere (ASCII). */
void fmt_out_bytes(struct fmt_out *o, const char *s, size_t n)
{
	if (!o->full) {
		size_t room = o->size - 1 - o->wr;
		size_t k = n < room ? n : room;

		memcpy(o->buf + o->wr, s, k);
		o->wr += k;
		if (k < n)
			o->full = true;
	}
	o->len += n;
}

/* Append one character that must not be cut. */
static void out_char(struct fmt_out *o, const char *s, size_t n)
{
	if (!o->full) {
		if (o->wr + n <= o->size - 1) {
			memcpy(o->buf + o->wr, s, n);
			o->wr += n;
		} else {
			o->full = true;
		}
	}
	o->len += n;
}

void fmt_out_str(struct fmt_out *o, const char *s)
{
	fmt_out_bytes(o, s, strlen(s));
}

void fmt_out_printf(struct fmt_out *o, const char *fmt, ...)
{
	char tmp[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n > 0)
		fmt_out_bytes(o, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

/*
 * Decode one UTF-8 character at s[0..n). Return its byte length and set
 * *cp, or 0 for an invalid, overlong, surrogate, out-of-range or truncated
 * sequence.
 */
static size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
	unsigned char c = s[0];
	size_t len, i;
	uint32_t v;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		v = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		v = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		v = c & 0x07;
	} else {
		return 0; /* continuation byte, C0/C1 overlong lead, F5..FF */
	}
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = (v << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && v < 0x800) || (len == 4 && v < 0x10000))
		return 0; /* overlong */
	if ((v >= 0xd800 && v <= 0xdfff) || v > 0x10ffff)
		return 0;
	*cp = v;
	return len;
}

/* Code points a terminal would act on, or that reorder text around them. */
static bool cp_is_control(uint32_t cp)
{
	if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f))
		return true;
	if (cp == 0x061c || cp == 0x200e || cp == 0x200f || cp == 0x2028 || cp == 0x2029)
		return true;
	if ((cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069))
		return true;
	return false;
}

void fmt_out_sanitized(struct fmt_out *o, const char *src, size_t len)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t i = 0;

	while (i < len && s[i]) {
		uint32_t cp;
		size_t n;

		if (s[i] >= 0x20 && s[i] < 0x7f) {
			out_char(o, (const char *)s + i, 1);
			i++;
			continue;
		}
		n = utf8_decode(s + i, len - i, &cp);
		if (n == 0 || cp_is_control(cp)) {
			out_char(o, "?", 1);
			i += n ? n : 1;
			continue;
		}
		/* a NUL inside a sequence was rejected by utf8_decode() */
		out_char(o, (const char *)s + i, n);
		i += n;
	}
}

size_t fmt_sanitize(char *dst, size_t size, const char *src, size_t len)
{
	struct fmt_out o;

	fmt_out_init(&o, dst, size);
	if (src)
		fmt_out_sanitized(&o, src, len);
	return fmt_out_done(&o);
}

int fmt_out_ret(struct fmt_out *o)
{
	size_t n = fmt_out_done(o);

	return n > INT32_MAX ? INT32_MAX : (int)n;
}

/*
 * Three significant digits, truncated (never rounded up, so that the
 * result always fits): 1.23, 12.3, 123. @v is the value in hundredths of
 * the unit.
 */
static void out_scaled(struct fmt_out *o, uint64_t hundredths, const char *unit)
{
	if (hundredths < 1000)
		fmt_out_printf(o, "%" PRIu64 ".%02" PRIu64 "%s", hundredths / 100, hundredths % 100,
			       unit);
	else if (hundredths < 10000)
		fmt_out_printf(o, "%" PRIu64 ".%" PRIu64 "%s", hundredths / 100,
			       (hundredths / 10) % 10, unit);
	else
		fmt_out_printf(o, "%" PRIu64 "%s", hundredths / 100, unit);
}

int fmt_count(char *buf, size_t size, uint64_t n)
{
	static const char *const units[] = { "M", "G", "T", "P", "E" };
	uint64_t scale = 1000000;
	struct fmt_out o;
	unsigned int u = 0;

	fmt_out_init(&o, buf, size);
	if (n < 1000000) {
		fmt_out_printf(&o, "%" PRIu64, n);
		return fmt_out_ret(&o);
	}
	while (u + 1 < sizeof(units) / sizeof(units[0]) && n / scale >= 1000) {
		scale *= 1000;
		u++;
	}
	out_scaled(&o, n / (scale / 100), units[u]);
	return fmt_out_ret(&o);
}

/* @v / @div with one decimal below 10, none above: "9.5", "123" */
static void out_unit(struct fmt_out *o, uint64_t v, uint64_t div, const char *unit)
{
	uint64_t whole = v / div;

	if (whole < 10)
		fmt_out_printf(o, "%" PRIu64 ".%" PRIu64 "%s", whole, (v % div) * 10 / div, unit);
	else
		fmt_out_printf(o, "%" PRIu64 "%s", whole, unit);
}

int fmt_weight(char *buf, size_t size, uint64_t v, int unit)
{
	static const char *const bunits[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	struct fmt_out o;
	unsigned int u;

	if (unit != 2 && unit != 3)
		return fmt_count(buf, size, v);
	fmt_out_init(&o, buf, size);
	if (unit == 2) {
		if (v < 1000) {
			fmt_out_printf(&o, "%" PRIu64 "B", v);
		} else {
			/* 1000 KiB and up read as 0.9MiB: never more than 6 columns */
			for (u = 0; u + 1 < 6 && v >> (10 * (u + 1)) >= 1000; u++)
				;
			out_unit(&o, v, 1ULL << (10 * (u + 1)), bunits[u]);
		}
	} else if (v < 1000) {
		fmt_out_printf(&o, "%" PRIu64 "ns", v);
	} else if (v < 1000000) {
		out_unit(&o, v, 1000, "us");
	} else if (v < 1000000000) {
		out_unit(&o, v, 1000000, "ms");
	} else {
		out_unit(&o, v, 1000000000, "s");
	}
	return fmt_out_ret(&o);
}

int fmt_rate(char *buf, size_t size, double per_sec)
{
	static const char *const units[] = { "k", "M", "G", "T", "P", "E" };
	struct fmt_out o;
	unsigned int u = 0;
	double scale = 1000.0;

	fmt_out_init(&o, buf, size);
	if (!isfinite(per_sec) || per_sec < 0) {
		fmt_out_str(&o, "-");
		return fmt_out_ret(&o);
	}
	if (per_sec < 10.0) {
		/* tenths, truncated: 0.5, 9.9 */
		uint64_t tenths = (uint64_t)(per_sec * 10.0 + FP_SLACK);

		fmt_out_printf(&o, "%" PRIu64 ".%" PRIu64, tenths / 10, tenths % 10);
		return fmt_out_ret(&o);
	}
	if (per_sec < 1000.0) {
		fmt_out_printf(&o, "%" PRIu64, (uint64_t)(per_sec + FP_SLACK));
		return fmt_out_ret(&o);
	}
	while (u + 1 < sizeof(units) / sizeof(units[0]) && per_sec / scale >= 1000.0) {
		scale *= 1000.0;
		u++;
	}
	if (per_sec / scale >= 1000.0) {
		fmt_out_str(&o, "999E");
		return fmt_out_ret(&o);
	}
	out_scaled(&o, (uint64_t)(per_sec / scale * 100.0 + FP_SLACK), units[u]);
	return fmt_out_ret(&o);
}

int fmt_duration(char *buf, size_t size, double sec)
{
	struct fmt_out o;
	uint64_t s;

	fmt_out_init(&o, buf, size);
	if (!isfinite(sec) || sec < 0 || sec > 1e15) {
		fmt_out_str(&o, "-");
		return fmt_out_ret(&o);
	}
	s = (uint64_t)sec;
	if (sec > 0 && s == 0)
		fmt_out_str(&o, "<1s"); /* "full in 0s" said it was full (issue 27) */
	else if (s < 60)
		fmt_out_printf(&o, "%" PRIu64 "s", s);
	else if (s < 3600)
		fmt_out_printf(&o, "%" PRIu64 "m%02" PRIu64 "s", s / 60, s % 60);
	else if (s < 86400)
		fmt_out_printf(&o, "%" PRIu64 "h%02" PRIu64 "m", s / 3600, s % 3600 / 60);
	else
		fmt_out_printf(&o, "%" PRIu64 "d%02" PRIu64 "h", s / 86400, s % 86400 / 3600);
	return fmt_out_ret(&o);
}

int fmt_percent(char *buf, size_t size, uint64_t part, uint64_t whole)
{
	struct fmt_out o;
	unsigned __int128 tenths;

	fmt_out_init(&o, buf, size);
	if (!whole) {
		fmt_out_str(&o, "-");
		return fmt_out_ret(&o);
	}
	/* truncated, so that "100" means all of it */
	tenths = (unsigned __int128)part * 1000 / whole;
	if (tenths >= 1000) {
		uint64_t pct = tenths / 10 > UINT64_MAX ? UINT64_MAX : (uint64_t)(tenths / 10);

		fmt_out_printf(&o, "%" PRIu64, pct);
	} else {
		fmt_out_printf(&o, "%u.%u", (unsigned int)(tenths / 10),
			       (unsigned int)(tenths % 10));
	}
	return fmt_out_ret(&o);
}

int fmt_ids(char *buf, size_t size, const uint32_t *ids, unsigned int nids, int more)
{
	struct fmt_out o;

	fmt_out_init(&o, buf, size);
	if (!ids)
		nids = 0;
	if (!nids && !more) {
		fmt_out_str(&o, "-");
		return fmt_out_ret(&o);
	}
	for (unsigned int i = 0; i < nids; i++)
		fmt_out_printf(&o, i ? ",%" PRIu32 : "%" PRIu32, ids[i]);
	if (more)
		fmt_out_str(&o, nids ? ",+" : "+");
	return fmt_out_ret(&o);
}

/*
 * One display character of @s: its byte length, its columns, and the bytes
 * to emit (the input, or "?" for anything a terminal would act on).
 */
static size_t fit_char(const char *s, size_t n, int *cols, const char **emit, size_t *emit_len)
{
	uint32_t cp;
	size_t len = utf8_decode((const unsigned char *)s, n, &cp);
	int w;

	if (len == 0 || cp_is_control(cp)) {
		*cols = 1;
		*emit = "?";
		*emit_len = 1;
		return len ? len : 1;
	}
	w = wcwidth((wchar_t)cp);
	*cols = w < 0 ? 1 : w; /* unknown to this locale: assume one column */
	*emit = s;
	*emit_len = len;
	return len;
}

int fmt_fit(char *dst, size_t size, const char *src, int width)
{
	size_t n, i, wr = 0, bytes = 0;
	int cols = 0, total = 0;

	if (!dst || !size)
		return 0;
	dst[0] = '\0';
	if (!src || width <= 0)
		return 0;
	n = strlen(src);

	for (i = 0; i < n;) {
		const char *e;
		size_t el;
		int w;

		i += fit_char(src + i, n - i, &w, &e, &el);
		total += w;
		bytes += el;
		if (total > width || bytes > size - 1)
			break;
	}
	if (i >= n && total <= width && bytes <= size - 1) {
		/* fits as a whole */
		for (i = 0; i < n;) {
			const char *e;
			size_t el;
			int w;

			i += fit_char(src + i, n - i, &w, &e, &el);
			memcpy(dst + wr, e, el);
			wr += el;
		}
		dst[wr] = '\0';
		return total;
	}

	/* cut: keep what fits in one column and one byte less, then '~' */
	if (size < 2)
		return 0;
	for (i = 0; i < n;) {
		const char *e;
		size_t el;
		int w;

		i += fit_char(src + i, n - i, &w, &e, &el);
		if (cols + w > width - 1 || wr + el > size - 2)
			break;
		memcpy(dst + wr, e, el);
		wr += el;
		cols += w;
	}
	dst[wr++] = '~';
	dst[wr] = '\0';
	return cols + 1;
}

int fmt_bytes(char *buf, size_t size, uint64_t n)
{
	static const char units[] = "KMGTPE";
	unsigned int u = 0;
	uint64_t scale = 1024;

	if (n < 1024)
		return snprintf(buf, size, "%" PRIu64 "B", n);
	while (units[u + 1] && n / scale >= 1024) {
		scale *= 1024;
		u++;
	}
	if (n / scale < 10)
		return snprintf(buf, size, "%" PRIu64 ".%" PRIu64 "%c", n / scale,
				(n % scale) * 10 / scale, units[u]);
	return snprintf(buf, size, "%" PRIu64 "%c", n / scale, units[u]);
}

int fmt_error(char *err, size_t errsz, int r, const char *fmt, ...)
{
	char raw[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	if (err && errsz)
		fmt_sanitize(err, errsz, raw, sizeof(raw));
	return r;
}
