/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ufile_priv.h - the parts of sym/ufile.h's module that other modules do
 * not see: the checks made where they are called (ufile.c), and the
 * protocol between the run (ufile_client.c) and its reader processes
 * (ufile_reader.c).
 *
 * The run and a reader talk over a SOCK_SEQPACKET socketpair, one request
 * at a time: a struct ufile_rq (its path cut to its length), answered by
 * one struct ufile_rp (an open, an error), or for a read by one message
 * per chunk of at most UFILE_CHUNK bytes, each a struct ufile_rp followed
 * by the bytes, the last one marked. A close is not answered. The run
 * waits for every message with a deadline; past it the reader is
 * abandoned (SIGKILL through its pidfd, its socket closed), and the next
 * request goes to a new one. The readers are forked by the "zygote"
 * (ufile_reader.c), itself forked by ufile_reader_start() while the run
 * had no thread and no tracefs descriptor: asked over its own socketpair,
 * it forks a reader and hands back the run's end of the reader's socket
 * and a pidfd of it (SCM_RIGHTS) with its pid.
 */
#ifndef STACKTOP_UFILE_PRIV_H
#define STACKTOP_UFILE_PRIV_H

#include <limits.h>
#include <stdint.h>

#include "sym/ufile.h"

#define UFILE_CHUNK (64u << 10) /* bytes of a file in one message */

/* struct ufile_rq @op */
enum ufile_op {
	UFILE_OP_OPEN_MAPPED = 1,
	UFILE_OP_OPEN_AT,
	UFILE_OP_PREAD,
	UFILE_OP_CLOSE,
	UFILE_OP_PROC, /* @len bytes at @off of @proc/@pid/@path, opened, read, closed */
};

/*
 * struct ufile_rq - a request
 * @op: enum ufile_op
 * @slot: PREAD, CLOSE: the reader's descriptor slot
 * @pid: OPEN_*: the process
 * @flags: OPEN_AT: UFILE_* flags
 * @has_want: OPEN_*: @want is given
 * @has_path: OPEN_MAPPED: @path is given (else NULL)
 * @start: OPEN_MAPPED: the mapping
 * @end: OPEN_MAPPED
 * @off: PREAD, PROC: where
 * @len: PREAD: how many bytes; PROC: at most
 * @want: OPEN_*: what the file must be
 * @proc: OPEN_*: the proc root
 * @path: OPEN_*: the path (NUL-terminated; the message ends after it)
 */
struct ufile_rq {
	uint32_t op;
	int32_t slot;
	uint32_t pid;
	uint32_t flags;
	uint8_t has_want;
	uint8_t has_path;
	uint64_t start;
	uint64_t end;
	uint64_t off;
	uint64_t len;
	struct ufile_want want;
	char proc[64];
	char path[PATH_MAX];
};

/*
 * struct ufile_rp - an answer
 * @ret: OPEN_*: the slot or -errno; PREAD: the bytes that follow, or -errno
 * @last: PREAD: the last message of the answer
 * @st: OPEN_*: what was opened
 */
struct ufile_rp {
	int32_t ret;
	uint32_t last;
	struct ufile_stat st;
};

/* ufile.c: ufile_open_mapped() made in the calling process (see ufile.h) */
int ufile_local_open_mapped(const char *proc, uint32_t pid, uint64_t start, uint64_t end,
			    const char *path, const struct ufile_want *want, struct ufile_stat *st);
/* ufile.c: ufile_open_at() made in the calling process */
int ufile_local_open_at(const char *proc, uint32_t pid, const char *path, unsigned int flags,
			const struct ufile_want *want, struct ufile_stat *st);
/* ufile.c: ufile_proc_stream() made in the calling process */
int64_t ufile_local_proc_stream(const char *proc, uint32_t pid, const char *name, uint64_t off,
				uint64_t max, ufile_chunk_fn *fn, void *ctx);
/* ufile.c: a chunk of @proc/@pid/@name (opened once into *@fd) at @off: bytes, 0 at its end, -errno
 */
ssize_t ufile_proc_chunk(int *fd, const char *proc, uint32_t pid, const char *name, char *buf,
			 size_t len, uint64_t off);
/* ufile.c: ufile_pread() of a real descriptor */
int ufile_local_pread(int fd, void *buf, size_t len, uint64_t off);

/*
 * ufile_reader.c: the zygote forked (a session of its own, stdio on
 * /dev/null, every other descriptor closed, not a child of the caller),
 * serving on the other end of @sock; 0 or -errno
 */
int ufile_zygote_fork(int sock);

/* ufile_reader.c: a helper process of the run (the zygote, a reader), told
 * to ufile_reader_on_helper()'s callback */
void ufile_helper_add(pid_t pid);

#endif /* STACKTOP_UFILE_PRIV_H */
