/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * format.h - pure, colour-free formatters shared by batch output and the UI.
 *
 * Every function writes at most @size bytes including the NUL, always
 * terminates (when @size > 0) and returns the length it wanted to write
 * (snprintf semantics). Strings from the kernel or from processes pass
 * through fmt_sanitize() before they reach a terminal.
 */
#ifndef STACKTOP_FORMAT_H
#define STACKTOP_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * struct fmt_out - an appender with snprintf semantics, for formatters
 * built from pieces (this file's, and the frame formatters of sym/frame.h)
 * @buf: output
 * @size: size of @buf
 * @len: the length wanted so far
 * @wr: bytes written so far
 * @full: nothing more fits
 *
 * fmt_out_init() it on a buffer, append, and fmt_out_ret() (or
 * fmt_out_done()) ends it: the text is NUL-terminated, a prefix of the
 * whole, never cut inside a UTF-8 character that came through
 * fmt_out_sanitized().
 */
struct fmt_out {
	char *buf;
	size_t size;
	size_t len;
	size_t wr;
	bool full;
};

/* start appending to @buf of @size bytes (NULL or 0: count only) */
void fmt_out_init(struct fmt_out *o, char *buf, size_t size);
/* ASCII bytes, which may be cut anywhere */
void fmt_out_bytes(struct fmt_out *o, const char *s, size_t n);
/* an ASCII string */
void fmt_out_str(struct fmt_out *o, const char *s);
/* printf-formatted ASCII, at most 127 bytes */
void fmt_out_printf(struct fmt_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* untrusted text, sanitized as fmt_sanitize() does */
void fmt_out_sanitized(struct fmt_out *o, const char *src, size_t len);
/* terminate; the wanted length */
size_t fmt_out_done(struct fmt_out *o);
/* terminate; the wanted length as an int (INT32_MAX at most) */
int fmt_out_ret(struct fmt_out *o);

/**
 * fmt_sanitize() - copy @src, replacing bytes a terminal would interpret
 * @dst: output
 * @size: size of @dst
 * @src: input (need not be NUL-terminated)
 * @len: bytes of @src to read (stops early at a NUL)
 *
 * Control characters (C0, DEL, C1 as UTF-8 or raw) and invalid UTF-8 become
 * '?'; valid printable UTF-8 is kept. An escape sequence loses its ESC (or
 * C1 introducer), which leaves the rest as inert text: "\e[31m" prints
 * "?[31m". Each byte of an invalid, overlong, surrogate or cut sequence
 * becomes one '?'. Bidirectional overrides/isolates (U+202A-202E,
 * U+2066-2069, U+200E/F, U+061C) and U+2028/2029 are also replaced, so a
 * name cannot reorder or break the line around it. Output is never cut
 * inside a UTF-8 character.
 *
 * Return: length of the sanitized string.
 */
size_t fmt_sanitize(char *dst, size_t size, const char *src, size_t len);

/**
 * fmt_count() - a count in at most 6 columns: 999999, 1.23M, 45.6G
 *
 * Three significant digits, truncated (1239999 is "1.23M"), units M G T P E.
 * @buf: output
 * @size: size of @buf
 * @n: count
 *
 * Return: wanted length.
 */
int fmt_count(char *buf, size_t size, uint64_t n);

/**
 * fmt_weight() - a weight in at most 6 columns, in the unit its field names
 *
 * @unit 2 (UNIT_BYTES): "999B", "9.5KiB", "999KiB", "0.9MiB", "1.2MiB" ...
 * "EiB"; @unit 3 (UNIT_NS): "950ns", "9.5us", "123us", "1.2ms", "123ms",
 * "1.2s", "1234s"; anything else as fmt_count(). Truncated, not rounded.
 * @buf: output
 * @size: size of @buf
 * @v: value
 * @unit: an enum session_unit
 *
 * Return: wanted length.
 */
int fmt_weight(char *buf, size_t size, uint64_t v, int unit);

/**
 * fmt_rate() - events per second, like fmt_count() ("12.3k")
 *
 * "0.5" and "9.9" below 10, "999" below 1000, then three significant
 * digits with k M G T P E (truncated); "-" for a negative or non-finite
 * rate.
 * @buf: output
 * @size: size of @buf
 * @per_sec: rate
 *
 * Return: wanted length.
 */
int fmt_rate(char *buf, size_t size, double per_sec);

/**
 * fmt_duration() - a span of time, two units at most: "45s", "3m05s",
 * "2h03m", "4d07h"; "<1s" for a span under a second but not 0; "-" for a
 * negative or non-finite span. Truncated.
 * @buf: output
 * @size: size of @buf
 * @sec: seconds
 *
 * Return: wanted length.
 */
int fmt_duration(char *buf, size_t size, double sec);

/**
 * fmt_percent() - "12.3" (no sign), "100" and "0.0"; "-" when @whole is 0
 *
 * Truncated, so "100" means all of it; above 100 prints an integer.
 * @buf: output
 * @size: size of @buf
 * @part: numerator
 * @whole: denominator
 *
 * Return: wanted length.
 */
int fmt_percent(char *buf, size_t size, uint64_t part, uint64_t whole);

/**
 * fmt_ids() - kernel ids of a stack: "42", "42,4025", "42,+" or "-"
 * @buf: output
 * @size: size of @buf
 * @ids: ids
 * @nids: number of ids
 * @more: more ids were seen than given
 *
 * Return: wanted length.
 */
int fmt_ids(char *buf, size_t size, const uint32_t *ids, unsigned int nids, int more);

/**
 * fmt_fit() - cut @src to @width display columns, ending in '~' when cut
 * @dst: output
 * @size: size of @dst
 * @src: sanitized UTF-8 input
 * @width: columns available
 *
 * Columns come from wcwidth() (so they depend on LC_CTYPE; a character the
 * locale does not know counts as one column). Controls and invalid UTF-8
 * still present in @src are written as '?'. The '~' is also used when
 * @size, not @width, runs out; a character is never cut in half.
 *
 * Return: columns used (not snprintf semantics).
 */
int fmt_fit(char *dst, size_t size, const char *src, int width);

/**
 * fmt_bytes() - a size in binary units: "512B", "16.0K", "1.5M", "256M", "2.0G"
 * @buf: output
 * @size: size of @buf
 * @n: bytes
 *
 * One decimal below 10 units, none above (truncated).
 *
 * Return: wanted length.
 */
int fmt_bytes(char *buf, size_t size, uint64_t n);

/**
 * fmt_error() - a user-facing error into a caller's buffer, sanitized
 * @err: receives the message (may be NULL)
 * @errsz: size of @err
 * @r: what to return
 * @fmt: printf format
 *
 * The one way every layer reports why it failed: the caller passes its
 * buffer down, the callee fills it and returns the -errno, and nothing
 * reaches up for an error buffer.
 *
 * Return: @r.
 */
int fmt_error(char *err, size_t errsz, int r, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif /* STACKTOP_FORMAT_H */
