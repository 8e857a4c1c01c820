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
 * control is dropped. Stateful: a sequence cut between two reads is
 * judged whole.
 */
#ifndef STACKTOP_TTYFILTER_H
#define STACKTOP_TTYFILTER_H

#include <stddef.h>

#define TTYFILTER_SEQ 32 /* bytes of a CSI sequence kept (a longer one is dropped) */

/**
 * struct ttyfilter - the state between two calls (zeroed: text)
 * @state: where in a sequence the last byte left it
 * @seq: the CSI sequence so far (ESC '[' and its parameters)
 * @nseq: its length
 */
struct ttyfilter {
	int state;
	char seq[TTYFILTER_SEQ + 2];
	unsigned int nseq;
};

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
