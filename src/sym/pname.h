/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pname.h - the names of pseudo frames that stand for a command: the
 * [user space] row of --oncpu without -u is split by command as
 * [user space] < COMMAND, the command a frame of its own
 * (STACK_IP_COMM(id)), so that every view, format and diff tells the
 * programs apart. The names are interned once for the process's life
 * (a command's name is short and there are few of them), so that a frame
 * word is the same in every table of the run.
 */
#ifndef STACKTOP_PNAME_H
#define STACKTOP_PNAME_H

#include <stdint.h>

/* names kept at most; past it a command gets no frame of its own */
#define PNAME_MAX 65536

/**
 * pname_comm() - the frame that stands for command @comm
 * @comm: its name (as sanitized for the screen: kept as given, cut to 63
 *        bytes)
 *
 * Return: STACK_IP_COMM(id), the same word for the same name; 0 when the
 * table is full or out of memory (the caller keeps the frame out).
 */
uint64_t pname_comm(const char *comm);

/**
 * pname_get() - the name a STACK_IP_COMM() frame stands for
 * @ip: frame
 *
 * Return: the name, or NULL when @ip is no such frame.
 */
const char *pname_get(uint64_t ip);

#endif /* STACKTOP_PNAME_H */
