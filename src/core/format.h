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

#include <stddef.h>
#include <stdint.h>

struct ksym;

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
 * fmt_frame() - "func+0xoff/0xsize [module]" for a kernel address
 * @buf: output
 * @size: size of @buf
 * @ks: symbols (may be NULL: the bare address is printed)
 * @ip: address; the v4 trampoline marker prints "[FTRACE TRAMPOLINE]"
 *
 * Return: wanted length.
 */
int fmt_frame(char *buf, size_t size, struct ksym *ks, uint64_t ip);

/**
 * fmt_func() - just "func" (or "func [module]" when @with_module), for
 * narrow columns and folded output
 * @buf: output
 * @size: size of @buf
 * @ks: symbols (may be NULL)
 * @ip: address
 * @with_module: append " [module]" for module symbols
 *
 * Return: wanted length.
 */
int fmt_func(char *buf, size_t size, struct ksym *ks, uint64_t ip, int with_module);

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

#endif /* STACKTOP_FORMAT_H */
