/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * replay.h - read a trace-cmd trace.dat instead of the live kernel.
 *
 * libtracecmd opens the file and parses its event formats; every record
 * of every buffer (the top level and each instance) is handed to
 * ingest_record() in time order per buffer. A buffer's CPUs get their own
 * attribution slots, so a stack is never paired with another buffer's event.
 */
#ifndef STACKTOP_REPLAY_H
#define STACKTOP_REPLAY_H

#include <stddef.h>
#include <stdint.h>

/* neighbouring timestamps further apart than this are damage (an hour) */
#define REPLAY_MAX_GAP_NS 3600000000000ULL

struct ingest;
struct replay;

/**
 * replay_open() - open a trace.dat
 * @path: the file
 * @ret: the handle (free with replay_close())
 * @why: receives what is wrong with the file on -EBADMSG
 * @whysz: size of @why
 *
 * The file's structure (magic, version, header, and for version 7 every
 * section and per-CPU data range the options point to; for version 6 the
 * sections before the per-CPU data) is checked against the file's size
 * before libtracecmd reads it: a truncated or damaged file is refused with
 * a reason instead of crashing the library.
 *
 * The file is opened once (core/regfile.h: a regular file, nothing else
 * opened on the way); the probe child, libtracecmd and replay_fd()'s
 * readers read that file, never @path again.
 *
 * Return: 0, -ENOENT/-EACCES (cannot open), -EBADMSG (not a trace.dat, or
 * a damaged one, or not a regular file: see @why).
 */
int replay_open(const char *path, struct replay **ret, char *why, size_t whysz);

/**
 * replay_open_fd() - replay_open() of a file opened already
 * @fd: the file, from regfile_open() (core/regfile.h); the replay owns it
 *	from now on, whatever the result
 * @ret: the handle (free with replay_close())
 * @why: receives what is wrong with the file on -EBADMSG
 * @whysz: size of @why
 *
 * Return: as replay_open().
 */
int replay_open_fd(int fd, struct replay **ret, char *why, size_t whysz);

/**
 * replay_fd() - the recording's descriptor, for other readers of the same
 * file (datsyms_read()); owned by the replay
 * @r: replay
 */
int replay_fd(const struct replay *r);

/**
 * replay_tep() - the file's event formats and symbols (a struct tep_handle,
 * owned by the replay)
 * @r: replay
 */
void *replay_tep(struct replay *r);

/**
 * replay_slots() - attribution slots needed: CPUs times buffers
 * @r: replay
 */
unsigned int replay_slots(struct replay *r);

/**
 * replay_buffers() - the buffers in the file, as "top,name,..." (owned by @r)
 * @r: replay
 */
const char *replay_buffers(struct replay *r);

/**
 * replay_run() - feed every record to @ing
 * @r: replay
 * @ing: consumer
 * @ret_seconds: receives the time from the first to the last record,
 * leaving out timestamps that are damage
 *
 * Records whose timestamp goes back on their CPU, or lies more than
 * REPLAY_MAX_GAP_NS away from the bulk of the recording, are added to the
 * ingest's damaged counter (they are still attributed: their payload may
 * be fine).
 *
 * Return: records read, or -errno.
 */
long long replay_run(struct replay *r, struct ingest *ing, double *ret_seconds);

/**
 * replay_close() - close; NULL is a no-op
 * @r: replay
 */
void replay_close(struct replay *r);

#endif /* STACKTOP_REPLAY_H */
