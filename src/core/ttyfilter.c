// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ttyfilter.c - a traced command's output made safe for root's terminal
 * (see ttyfilter.h). The states follow ECMA-48's shapes: ESC, then an
 * intermediate (0x20-0x2f) or a final byte; CSI (ESC '['), parameters
 * (0x30-0x3f), intermediates, a final (0x40-0x7e); a control string (ESC
 * ']', 'P', '_', '^', 'X') up to ST (ESC '\') or BEL. Bytes 0x80-0x9f are
 * C1 controls to an 8-bit terminal (0x9b is CSI, 0x9d OSC, 0x90 DCS): they
 * pass only inside a whole UTF-8 sequence of a character that is not
 * U+0080-U+009F, and never when the terminal is not UTF-8 (@eight_bit).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/ttyfilter.h"

enum {
	TF_TEXT,
	TF_ESC,	    /* after ESC */
	TF_ESC_INT, /* ESC and intermediates: up to its final byte, dropped */
	TF_CSI,	    /* collecting a CSI sequence */
	TF_CSI_BAD, /* a CSI sequence judged already: dropped up to its final byte */
	TF_STR,	    /* a control string: dropped up to ST or BEL */
	TF_STR_ESC, /* ESC inside a control string */
	TF_U8,	    /* a UTF-8 sequence begun: held until it is whole */
};

/* bytes a C1 control can be in an 8-bit terminal: 0x9b CSI, 0x9d OSC, 0x90 DCS, 0x9c ST... */
static bool is_c1(unsigned char c)
{
	return c >= 0x80 && c <= 0x9f;
}

/* the continuation bytes a UTF-8 lead byte announces; 0: not a lead byte */
static unsigned int u8_len(unsigned char c)
{
	return c >= 0xc2 && c <= 0xdf	? 1
	       : c >= 0xe0 && c <= 0xef ? 2
	       : c >= 0xf0 && c <= 0xf4 ? 3
					: 0;
}

/* a whole sequence's code point is text (not overlong, a surrogate, past U+10FFFF, a C1 control) */
static bool u8_ok(const unsigned char *b, unsigned int n)
{
	uint32_t cp = b[0] & (0x3f >> n), i;

	for (i = 1; i <= n; i++)
		cp = cp << 6 | (b[i] & 0x3f);
	if (n == 1)
		return cp >= 0xa0; /* U+0080-U+009F: C1 controls */
	if (n == 2)
		return cp >= 0x800 && (cp < 0xd800 || cp > 0xdfff);
	return cp >= 0x10000 && cp <= 0x10ffff;
}

/*
 * A byte of no whole UTF-8 sequence: a raw C1 control is dropped (an 8-bit
 * terminal, xterm in the C locale, acts on it: 0x9b 'c' asks its attributes),
 * any other byte is text (a UTF-8 terminal shows a replacement character)
 */
static size_t raw_byte(unsigned char c, char *out)
{
	if (is_c1(c))
		return 0;
	*out = (char)c;
	return 1;
}

/* the sequence held, judged: whole and text, or byte by byte */
static size_t u8_flush(struct ttyfilter *f, bool whole, char *out)
{
	size_t n = 0;
	unsigned int i;

	if (whole && u8_ok(f->u8, f->nu8 - 1)) {
		memcpy(out, f->u8, f->nu8);
		n = f->nu8;
	} else if (!whole || f->nu8 > 2 || (f->u8[0] == 0xc2 && !is_c1(f->u8[1]))) {
		for (i = 0; i < f->nu8; i++)
			n += raw_byte(f->u8[i], out + n);
	}
	/* (a whole U+0080-U+009F, 0xc2 and a C1 byte: dropped with its lead byte) */
	f->nu8 = 0;
	f->state = TF_TEXT;
	return n;
}

/*
 * a CSI sequence that may reach the terminal: SGR, cursor moves, erasing
 * (not the scrollback), numeric parameters
 */
static bool csi_ok(const struct ttyfilter *f, char final)
{
	unsigned int i;

	if (!strchr("mABCDEFGHJKdf", final))
		return false;
	/* ED 3 erases the scrollback: root's earlier output, earlier reports */
	if (final == 'J' && f->nseq == 3 && f->seq[2] == '3')
		return false;
	for (i = 2; i < f->nseq; i++)
		if (!(f->seq[i] >= '0' && f->seq[i] <= '9') && f->seq[i] != ';')
			return false;
	return true;
}

size_t ttyfilter_run(struct ttyfilter *f, const char *in, size_t len, char *out)
{
	size_t i, n = 0;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)in[i];

		if (f->state == TF_U8) {
			if (c >= 0x80 && c <= 0xbf && !(f->eight_bit && is_c1(c))) {
				f->u8[f->nu8++] = c;
				if (f->nu8 == f->want + 1)
					n += u8_flush(f, true, out + n);
				continue;
			}
			n += u8_flush(f, false, out + n); /* cut short: @c below */
		}
		switch (f->state) {
		case TF_TEXT:
			if (c == 0x1b) {
				f->state = TF_ESC;
			} else if (c >= 0x80 && f->eight_bit) {
				n += raw_byte(c, out + n); /* not UTF-8: every C1 byte is one */
			} else if (u8_len(c)) {
				f->state = TF_U8;
				f->want = u8_len(c);
				f->u8[0] = c;
				f->nu8 = 1;
			} else if (c >= 0x80) {
				n += raw_byte(c, out + n);
			} else if (c >= 0x20 ? c != 0x7f : c && strchr("\t\n\r\b", c)) {
				out[n++] = (char)c;
			}
			continue; /* (any other C0 control dropped) */
		case TF_ESC:
			if (c == '[') {
				f->state = TF_CSI;
				f->seq[0] = 0x1b;
				f->seq[1] = '[';
				f->nseq = 2;
			} else if (c && strchr("]P_^X", c)) {
				f->state = TF_STR;
			} else if (c >= 0x20 && c <= 0x2f) {
				f->state = TF_ESC_INT;
			} else {
				f->state = c == 0x1b ? TF_ESC
						     : TF_TEXT; /* ESC and its final, dropped */
			}
			continue;
		case TF_ESC_INT:
			if (c < 0x20 || c > 0x2f)
				f->state = TF_TEXT;
			continue;
		case TF_CSI:
			if (c >= 0x40 && c <= 0x7e) {
				if (csi_ok(f, (char)c)) {
					memcpy(out + n, f->seq, f->nseq);
					n += f->nseq;
					out[n++] = (char)c;
				}
				f->state = TF_TEXT;
			} else if (c >= 0x20 && c <= 0x3f && f->nseq < TTYFILTER_SEQ) {
				f->seq[f->nseq++] = (char)c;
			} else {
				/* too long, or a byte no CSI has: dropped to its end */
				f->state = c >= 0x20 && c <= 0x3f ? TF_CSI_BAD : TF_TEXT;
			}
			continue;
		case TF_CSI_BAD:
			if (c < 0x20 || c > 0x3f)
				f->state = TF_TEXT;
			continue;
		case TF_STR:
			if (c == 0x07)
				f->state = TF_TEXT;
			else if (c == 0x1b)
				f->state = TF_STR_ESC;
			continue;
		case TF_STR_ESC:
			f->state = c == '\\' ? TF_TEXT : c == 0x1b ? TF_STR_ESC : TF_STR;
			continue;
		case TF_U8:
			continue; /* (never: judged above) */
		}
	}
	return n;
}

bool ttyfilter_utf8_locale(void)
{
	static const char *const vars[] = { "LC_ALL", "LC_CTYPE", "LANG" };
	const char *v = NULL, *p;
	unsigned int i;

	for (i = 0; i < sizeof(vars) / sizeof(vars[0]) && !(v && *v); i++)
		v = getenv(vars[i]);
	if (!v || !*v)
		return false;
	for (p = v; *p; p++)
		if (!strncasecmp(p, "utf-8", 5) || !strncasecmp(p, "utf8", 4))
			return true;
	return false;
}
