/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * uifmt.h - pure, curses-free helpers of the interactive screen.
 *
 * Everything here takes plain values and writes into caller buffers
 * (snprintf semantics where text is produced), so it is unit-tested without
 * a terminal (tests/tui/test-uifmt.c). The curses code in ui/ only decides
 * where the results go and which attributes they get.
 */
#ifndef STACKTOP_UI_UIFMT_H
#define STACKTOP_UI_UIFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct session_stats;

/* ---- column layout ------------------------------------------------------ */

/**
 * struct col_spec - a column the table would like to show
 * @min: narrowest useful width
 * @want: preferred width (for a flexible column: the width it grows to
 *        first; the last flexible column takes whatever is left)
 * @prio: 0 is never dropped; higher numbers are dropped first when the
 *        terminal is too narrow
 * @flex: the column grows with the terminal
 * @hidden: never shown (it would say the same in every row)
 */
struct col_spec {
	int min;
	int want;
	int prio;
	bool flex;
	bool hidden; /* not shown at any width */
};

/**
 * struct col_pos - where a column landed
 * @x: first column on screen
 * @w: width, 0 when the column is hidden
 */
struct col_pos {
	int x;
	int w;
};

/**
 * uifmt_layout() - fit columns into @width, one blank between columns
 * @specs: columns, left to right
 * @n: number of columns
 * @width: terminal columns available
 * @out: @n positions
 *
 * Columns with the highest @prio are dropped until the minimum widths fit;
 * fixed columns then get their @want, flexible ones share the rest (up to
 * @want each, the last one unbounded). Nothing ever extends past @width.
 *
 * Return: the number of columns shown.
 */
int uifmt_layout(const struct col_spec *specs, int n, int width, struct col_pos *out);

/* ---- text match (search, filters) ------------------------------------- */

#define UIFMT_MAX_TERMS 8
#define UIFMT_TERM_LEN	64

/**
 * struct uifmt_terms - a filter text split at '|' (htop style: any term)
 * @n: terms
 * @term: the terms, trimmed of blanks, NUL-terminated
 */
struct uifmt_terms {
	int n;
	char term[UIFMT_MAX_TERMS][UIFMT_TERM_LEN];
};

/**
 * uifmt_terms_parse() - split @text at '|', drop empty terms
 * @text: user input
 * @ret: filled
 *
 * Return: number of terms (0: the filter is off).
 */
int uifmt_terms_parse(const char *text, struct uifmt_terms *ret);

/**
 * uifmt_terms_match() - does @text contain any term, ignoring ASCII case
 * @t: terms
 * @text: text to look in
 *
 * Return: true on a match; false when there are no terms.
 */
bool uifmt_terms_match(const struct uifmt_terms *t, const char *text);

/* ---- input parsing ---------------------------------------------------- */

/**
 * uifmt_parse_delay() - a refresh delay in seconds ("2", "0.5", "1.5s")
 * @text: input
 * @ret: seconds, written on success
 *
 * Return: 0, -EINVAL (not a number), -ERANGE (outside 0.1 .. 3600).
 */
int uifmt_parse_delay(const char *text, double *ret);

/**
 * uifmt_parse_pid() - a pid ("1234") or nothing
 * @text: input
 * @ret: the pid, written when the text is a number
 *
 * Return: 1 for a pid, 0 when @text is not a number (a comm then).
 */
int uifmt_parse_pid(const char *text, int *ret);

/* ---- messages and names ----------------------------------------------- */

/**
 * uifmt_folded_name() - "stacktop-YYYYmmdd-HHMMSS.folded" (local time),
 * with "-N" before the suffix when @seq > 0
 * @buf: output
 * @size: size of @buf
 * @when: time stamp
 * @seq: 0 for the plain name, N for the N-th alternative
 *
 * Return: wanted length.
 */
int uifmt_folded_name(char *buf, size_t size, time_t when, int seq);

/**
 * uifmt_save_name() - "stacktop-YYYYmmdd-HHMMSS" (local time), "-N" for the
 * N-th alternative, then @suffix (".json", ".pb.gz", ...)
 * @buf: output
 * @size: size of @buf
 * @when: time stamp
 * @seq: 0 for the plain name, N for the N-th alternative
 * @suffix: the format's suffix
 *
 * Return: wanted length.
 */
int uifmt_save_name(char *buf, size_t size, time_t when, int seq, const char *suffix);

/**
 * uifmt_reset_result() - the status line after session_reset()
 * @buf: output
 * @size: size of @buf
 * @err: its return value
 * @stackmap: the session works on the kernel map (else stacks mode)
 *
 * Return: wanted length.
 */
int uifmt_reset_result(char *buf, size_t size, int err, bool stackmap);

/**
 * uifmt_stackmap_result() - the status line after session_set_stackmap()
 * @buf: output
 * @size: size of @buf
 * @err: its return value
 * @on: the state that was asked for
 *
 * Return: wanted length.
 */
int uifmt_stackmap_result(char *buf, size_t size, int err, bool on);

/* ---- header ------------------------------------------------------------ */

#define UIFMT_SEG_LABEL 24
#define UIFMT_SEG_VALUE 96

/**
 * struct uifmt_seg - one "label value" item of a header line
 * @label: dim part ("events/s")
 * @value: bright part ("12.3k")
 * @alert: the value deserves attention (losses, drops, tracing off)
 */
struct uifmt_seg {
	char label[UIFMT_SEG_LABEL];
	char value[UIFMT_SEG_VALUE];
	bool alert;
};

/**
 * uifmt_header_rates() - the counters line: rate, events, stacks, ring-buffer
 * losses (interval and total), own CPU; in stacks mode what the stack map
 * would save in the ring buffer (session_ringbuf_saving())
 * @st: session statistics
 * @nstacks: unique stacks in the table
 * @segs: output array
 * @max: its size
 *
 * Return: segments written.
 */
int uifmt_header_rates(const struct session_stats *st, size_t nstacks, struct uifmt_seg *segs,
		       int max);

/**
 * uifmt_header_map() - the kernel map line (stackmap and passive modes):
 * entries/capacity, successes, drops, success rate, fallbacks, unresolved
 * and bad ids, generation, option state; in stackmap mode what the map saves
 * in the ring buffer (session_ringbuf_saving())
 * @st: session statistics
 * @segs: output array
 * @max: its size
 *
 * Return: segments written (0 when the mode has no kernel map).
 */
int uifmt_header_map(const struct session_stats *st, struct uifmt_seg *segs, int max);

/**
 * uifmt_header_pool() - the map's pool line (stackmap and passive modes),
 * from st->health: filling, "pool 37% 6.0k/16.4k  growth +12/s  full in
 * 14m49s"; full, "pool FULL since 18:52:03 (1m20s)  fallback 52% now, 50%
 * since start  fix r empties it; boot ftrace_stackmap.bits=12 (4.1k)  saves
 * 82% before full, 16% since  no room 493 stacks +4.1/s". Every segment is an
 * alert when the pool is full or will be within STACKMAP_WARN_SEC.
 * @st: session statistics
 * @segs: output array
 * @max: its size
 *
 * Return: segments written (0 when the mode has no kernel map).
 */
int uifmt_header_pool(const struct session_stats *st, struct uifmt_seg *segs, int max);

/**
 * uifmt_delay() - a delay for the header: "1s", "0.5s", "2.25s"
 * @buf: output
 * @size: size of @buf
 * @sec: seconds
 *
 * Return: wanted length.
 */
int uifmt_delay(char *buf, size_t size, double sec);

/* ---- sparklines (the TREND column) ------------------------------------- */

#define UIFMT_SPARK_LEVELS 8

/**
 * uifmt_spark_level() - the height of one value in a sparkline scaled to
 * @max: 0 for 0 (a blank: nothing happened), else 1 (the lowest bar) to
 * UIFMT_SPARK_LEVELS (@max and above), rounded up so that any count shows
 * @v: the value
 * @max: the largest value of the line (0: every level is 0)
 */
int uifmt_spark_level(uint64_t v, uint64_t max);

/**
 * uifmt_spark() - a sparkline of @n values, each scaled to the largest of
 * them (a row's own shape: what rises, what falls): "▁▂▃▅▇█" in UTF-8,
 * "._-=+*#@" otherwise; the last @width values when there are more
 * @buf: output (4 bytes per value at most)
 * @size: size of @buf
 * @v: the values, oldest first
 * @n: how many
 * @width: columns at most
 * @utf8: the terminal's charset is UTF-8
 *
 * Return: columns written.
 */
int uifmt_spark(char *buf, size_t size, const uint64_t *v, int n, int width, bool utf8);

#endif /* STACKTOP_UI_UIFMT_H */
