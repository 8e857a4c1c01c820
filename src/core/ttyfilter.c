// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ttyfilter.c - a traced command's output made safe for root's terminal
 * (see ttyfilter.h). The states follow ECMA-48's shapes: ESC, then an
 * intermediate (0x20-0x2f) or a final byte; CSI (ESC '['), parameters
 * (0x30-0x3f), intermediates, a final (0x40-0x7e); a control string (ESC
 * ']', 'P', '_', '^', 'X') up to ST (ESC '\') or BEL.
 */
#include <stdbool.h>
#include <string.h>

#include "core/ttyfilter.h"

enum {
	TF_TEXT,
	TF_ESC,	    /* after ESC */
	TF_ESC_INT, /* ESC and intermediates: up to its final byte, dropped */
	TF_CSI,	    /* collecting a CSI sequence */
	TF_CSI_BAD, /* a CSI sequence judged already: dropped up to its final byte */
	TF_STR,	    /* a control string: dropped up to ST or BEL */
	TF_STR_ESC, /* ESC inside a control string */
	TF_C2,	    /* a 0xc2 lead byte: U+0080-U+009F are C1 controls */
};

/* a CSI sequence that may reach the terminal: SGR, cursor moves, erasing, numeric parameters */
static bool csi_ok(const struct ttyfilter *f, char final)
{
	unsigned int i;

	if (!strchr("mABCDEFGHJKdf", final))
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

		if (f->state == TF_C2) {
			f->state = TF_TEXT;
			if (c >= 0x80 && c <= 0x9f)
				continue; /* a C1 control in UTF-8: dropped with its lead byte */
			out[n++] = (char)0xc2; /* and @c as text, below */
		}
		switch (f->state) {
		case TF_TEXT:
			if (c == 0x1b)
				f->state = TF_ESC;
			else if (c == 0xc2)
				f->state = TF_C2;
			else if (c >= 0x20 ? c != 0x7f : c && strchr("\t\n\r\b", c))
				out[n++] = (char)c;
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
		}
	}
	return n;
}
