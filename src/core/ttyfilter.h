/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ttyfilter.h - what a traced command writes, made safe for root's
 * terminal. `stacktop -- CMD` runs CMD as the invoking user on a pty of
 * its own and relays the pty's output to stacktop's terminal (as sudo's
 * use_pty does); CMD's bytes are that user's, so a relay that copied them
 * raw would let the user drive root's terminal: queries it answers into
 * root's input (device attributes, cursor position, window title and size
 * reports, DECRQSS), clipboard and title writes (OSC), a reset, a charset
 * switch. The filter keeps text (UTF-8, tab, newline, carriage return,
 * backspace) and the CSI sequences of colours, cursor moves and erasing
 * with numeric parameters (what compilers, test runners and ls print);
 * every other escape sequence, string (OSC, DCS, APC, PM, SOS), C0 and C1
 * control is dropped, C1 both in UTF-8 (U+0080-U+009F) and raw (bytes
 * 0x80-0x9f outside a whole UTF-8 character: an 8-bit terminal takes 0x9b
 * for CSI); for a terminal that is not UTF-8 (@eight_bit), every byte
 * 0x80-0x9f. Stateful: a sequence cut between two reads is judged whole.
 */
#ifndef STACKTOP_TTYFILTER_H
#define STACKTOP_TTYFILTER_H

#include <stdbool.h>
#include <stddef.h>

#define TTYFILTER_SEQ 32 /* bytes of a CSI sequence kept (a longer one is dropped) */

/**
 * struct ttyfilter - the state between two calls (zeroed: text, a UTF-8 terminal)
 * @state: where in a sequence the last byte left it
 * @seq: the CSI sequence so far (ESC '[' and its parameters)
 * @nseq: its length
 * @u8: a UTF-8 sequence begun
 * @nu8: its bytes so far
 * @want: its continuation bytes
 * @eight_bit: the terminal is not UTF-8: every byte 0x80-0x9f is a C1
 *	control to it (set by the caller, ttyfilter_utf8_locale())
 */
struct ttyfilter {
	int state;
	char seq[TTYFILTER_SEQ + 2];
	unsigned int nseq;
	unsigned char u8[4];
	unsigned int nu8, want;
	bool eight_bit;
};

/**
 * ttyfilter_utf8_locale() - whether the locale the environment names
 * (LC_ALL, else LC_CTYPE, else LANG) is UTF-8: what the terminal is taken to be
 *
 * Return: true for a name with "UTF-8" or "utf8" in it (any case).
 */
bool ttyfilter_utf8_locale(void);

/**
 * ttyfilter_run() - filter @len bytes of @in into @out
 * @f: the state (zeroed before the first call)
 * @in: the bytes read
 * @len: how many
 * @out: receives what may reach a terminal: room for @len + TTYFILTER_SEQ + 2
 *	bytes (a sequence held from the last call is written when it ends)
 *
 * Return: the bytes written to @out.
 */
size_t ttyfilter_run(struct ttyfilter *f, const char *in, size_t len, char *out);

#endif /* STACKTOP_TTYFILTER_H */
