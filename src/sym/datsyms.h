/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * datsyms.h - the kallsyms text a trace-cmd recording carries.
 *
 * libtracecmd gives the recording's symbols by address only; turning a
 * saved stack_map text's "sym+0xoff" frames back into addresses needs them
 * by name, so the text itself is read from the file: its kallsyms section
 * (trace.dat file version 6, the layout of trace-cmd.dat(5)). Every size
 * read is checked against the file's size.
 */
#ifndef STACKTOP_DATSYMS_H
#define STACKTOP_DATSYMS_H

#include <stddef.h>

/**
 * datsyms_read() - the kallsyms section of a trace.dat
 * @fd: the recording, opened once (replay_fd(): read through a description
 *	of its own, never by its name again)
 * @ret: receives the text (NUL-terminated, free() it)
 * @ret_len: receives its length
 *
 * Return: 0, -ENOENT (the recording has no kallsyms: an empty section),
 * -EOPNOTSUPP (file version 7: compressed sections), -EBADMSG (not a
 * trace.dat, or a size past its end), -EFBIG, -errno.
 */
int datsyms_read(int fd, char **ret, size_t *ret_len);

#endif /* STACKTOP_DATSYMS_H */
