/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ufile.h - opening and reading files that other users control, as root,
 * without being hung, crashed or steered by them: the binaries and
 * libraries a process mapped, its perf-<pid>.map, debug files.
 *
 * Every file is first reached with O_PATH (no open of its own: no FIFO
 * wait, no device driver, no FUSE request) and checked with statx(...,
 * AT_STATX_DONT_SYNC) (cached attributes: no FUSE request either): it must
 * be a regular file, on a mount that is not FUSE (a FUSE daemon can leave an
 * open or a read waiting forever; an unprivileged user can mount one with
 * fusermount), found in the mount table of stacktop or of the process
 * (read after the file was pinned, so the answer is the pinned file's), and
 * be what the caller expects (the device and inode /proc/PID/maps gave, an
 * owner). Only then is it opened for reading, through /proc/self/fd/N (the
 * same inode, not the path again), with O_RDONLY | O_NONBLOCK | O_CLOEXEC:
 * O_NONBLOCK also makes a lease held by the file's owner fail the open at
 * once instead of waiting up to lease-break-time.
 *
 * Paths are walked one component at a time (O_PATH | O_NOFOLLOW): a
 * symlink ends the walk (ELOOP), except in UFILE_TRUSTED walks, where a
 * symlink owned by root in a directory only root can write is followed and
 * its target walked under the same rules; ".." is refused; the mount of
 * each directory is checked before anything is looked up in it.
 *
 * Reading is pread() into memory (ufile_pread()): never mmap, which a file
 * its owner truncates turns into SIGBUS. A short read is -EIO.
 *
 * No blocking read of a user's file in the run: any file a user controls
 * can be made to block an open or a read for ever (a FUSE daemon behind an
 * overlay the user mounted in a namespace of their own, a stalled NFS
 * server, the next stacking filesystem), and no filesystem-type list
 * foresees them all. Once ufile_reader_start() was called, the opens,
 * checks and reads are made by a reader process (ufile_reader.c) and the
 * descriptors these calls give are handles of its descriptors (use them
 * with ufile_pread(), ufile_read(), ufile_size(), ufile_close() only).
 * Each answer is awaited UFILE_DEADLINE_MS at most; past it the call fails
 * with -ETIMEDOUT, the reader is abandoned and a new one started; after
 * UFILE_STALLS_MAX stalls (or one after a stop signal) every call fails
 * with -ETIMEDOUT at once (ufile_client.c). Without ufile_reader_start()
 * (tests, tools) the calls are made in the caller's process.
 *
 * Devices are major << 32 | minor, as struct usym_map keeps them.
 */
#ifndef STACKTOP_UFILE_H
#define STACKTOP_UFILE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define UFILE_DEADLINE_MS 500 /* an answer of the reader awaited this long at most */
#define UFILE_HELPERS	  64  /* helper pids kept for ufile_reader_on_helper() */
#define UFILE_STALLS_MAX  2   /* stalls after which no file is read any more */

/**
 * struct ufile_stat - what an opened file is
 * @dev: its device as stat() gives it (major << 32 | minor)
 * @ino: its inode
 * @size: its size when opened
 * @uid: its owner
 * @mode: its mode bits
 */
struct ufile_stat {
	uint64_t dev;
	uint64_t ino;
	uint64_t size;
	uint32_t uid;
	uint32_t mode;
};

/* ufile_open_at() flags */
#define UFILE_TRUSTED 0x1 /* every component owned by root, not group/other-writable */
#define UFILE_OWNER   0x2 /* the file owned by one of @uids */

/**
 * struct ufile_want - what the file opened must be (every member optional)
 * @dev: its device (0: any); a file of btrfs (per-subvolume devices) is
 *	matched on @ino alone
 * @ino: its inode (0: any)
 * @uids: with UFILE_OWNER, the owners accepted
 * @nuids: how many
 * @max_size: refuse a larger file (-EFBIG); 0: any size
 */
struct ufile_want {
	uint64_t dev;
	uint64_t ino;
	uint32_t uids[4];
	unsigned int nuids;
	uint64_t max_size;
};

/**
 * ufile_open_mapped() - a descriptor on the file a process mapped
 * @proc: the proc root ("/proc")
 * @pid: the process
 * @start: the mapping's first address
 * @end: the address after its last
 * @path: the path /proc/PID/maps (or perf's MMAP2) named it by, in the
 *	process's mount namespace; NULL: no path fallback
 * @want: its device and inode (from the same line); both required
 * @st: receives what was opened
 *
 * Through /proc/PID/map_files/START-END (the very file mapped, even deleted
 * or replaced since); when that is gone (the process exited or unmapped
 * it), @path walked under /proc/PID/root, then under stacktop's own root -
 * and in every case the file opened must have @want's device and inode, so
 * a path that names another file in this mount namespace (or a FIFO, a
 * symlink, a device put there since) opens nothing.
 *
 * Return: the descriptor (O_RDONLY | O_CLOEXEC; a handle once
 * ufile_reader_start() was called: ufile_close() it), or -errno: -ELOOP (a
 * symlink), -EFTYPE-like -EINVAL (not a regular file), -EXDEV (a FUSE or
 * unknown mount), -ESTALE (another file), -ENOENT, -EPERM, -ETIMEDOUT (the
 * reader did not answer in time, or no longer reads), -ENOTCONN (no reader)...
 */
int ufile_open_mapped(const char *proc, uint32_t pid, uint64_t start, uint64_t end,
		      const char *path, const struct ufile_want *want, struct ufile_stat *st);

/**
 * ufile_open_at() - a descriptor on @path under a root, checked as above
 * @proc: the proc root ("/proc")
 * @pid: the process whose root to walk under (/proc/PID/root, its mount
 *	table), 0: stacktop's own root ("/")
 * @path: the path under it (leading '/' allowed, no "..")
 * @flags: UFILE_TRUSTED, UFILE_OWNER
 * @want: more checks, or NULL
 * @st: receives what was opened, or NULL
 *
 * Return: the descriptor (a handle, as above), or -errno (-EACCES: an
 * owner or a mode refused; -ETIMEDOUT, -ENOTCONN as above).
 */
int ufile_open_at(const char *proc, uint32_t pid, const char *path, unsigned int flags,
		  const struct ufile_want *want, struct ufile_stat *st);

/**
 * ufile_pread() - read exactly @len bytes at @off
 * @fd: descriptor (or handle) from ufile_open_*()
 * @buf: destination
 * @len: bytes
 * @off: file offset
 *
 * Return: 0, or -EIO when the file ends before (truncated), -ETIMEDOUT (the
 * reader stalled: abandoned), -errno.
 */
int ufile_pread(int fd, void *buf, size_t len, uint64_t off);

/**
 * ufile_read() - @len bytes at @off in a new buffer
 * @fd: descriptor
 * @off: file offset
 * @len: bytes (the caller bounds it)
 *
 * Return: the buffer (free()), or NULL (errno).
 */
void *ufile_read(int fd, uint64_t off, size_t len);

/**
 * ufile_size() - the size of an opened file (as it was when opened, for a
 * handle: no request)
 * @fd: descriptor (or handle) from ufile_open_*()
 * @size: receives it
 *
 * Return: 0, or -errno.
 */
int ufile_size(int fd, uint64_t *size);

/**
 * typedef ufile_chunk_fn - a piece of a file ufile_proc_stream() read
 * @ctx: the caller's
 * @data: the bytes
 * @len: how many (at most UFILE_PROC_CHUNK)
 *
 * Return: true for more, false: the rest is not wanted.
 */
typedef bool ufile_chunk_fn(void *ctx, const char *data, size_t len);

#define UFILE_PROC_CHUNK (64u << 10) /* bytes ufile_chunk_fn gets at most */

/**
 * ufile_proc_stream() - at most @max bytes at @off of @proc/@pid/@name
 * (a process's maps, or its memory: "mem" at an address), read like the
 * files of other users: by the reader process, within its deadline. A
 * process can make its own /proc files wait for good (a thread faulting
 * on a FUSE file its daemon never serves holds the mmap lock that maps'
 * fallback, mem, cmdline, map_files take; an exec that waits on one holds
 * the exec_update_lock every open of maps or mem takes): root's run never
 * reads them itself. @fn gets the bytes piece by piece, in order, with
 * ufile's lock held: it must not call ufile's functions.
 * @proc: the proc root ("/proc")
 * @pid: the process
 * @name: the file under @proc/@pid (no '/')
 * @off: where to start
 * @max: bytes at most
 * @fn: gets each piece
 * @ctx: for @fn
 *
 * Return: the bytes read (fewer than @max at the file's end, or where @fn
 * said stop), or -errno (-ETIMEDOUT: the reader stalled and was abandoned).
 */
int64_t ufile_proc_stream(const char *proc, uint32_t pid, const char *name, uint64_t off,
			  uint64_t max, ufile_chunk_fn *fn, void *ctx);

/**
 * ufile_proc_read() - ufile_proc_stream() into a buffer
 * @proc: the proc root
 * @pid: the process
 * @name: the file under @proc/@pid
 * @buf: receives at most @len bytes
 * @len: its size
 * @off: where to start
 *
 * Return: the bytes read, or -errno.
 */
int64_t ufile_proc_read(const char *proc, uint32_t pid, const char *name, void *buf, size_t len,
			uint64_t off);

/**
 * ufile_close() - let go of what ufile_open_*() gave (a handle's file is
 * closed by its reader); a negative @fd is ignored
 * @fd: descriptor (or handle)
 */
void ufile_close(int fd);

/**
 * ufile_reader_start() - from now on, every file opened and read through
 * this module is opened and read by a reader process the run can abandon
 * @stop: a flag a stop signal sets (the deadline then shortens to 100 ms,
 *	and one stall ends all reading), or NULL
 *
 * Call it early, while the process has no thread and holds nothing it
 * should not hand on (no tracefs descriptor, no terminal it opened): it
 * forks the zygote that forks the readers. Without it, the calls read in
 * the calling process.
 *
 * Return: 0, or -errno: then no file is read at all (the calls fail with
 * -ENOTCONN), which is safe.
 */
int ufile_reader_start(const volatile sig_atomic_t *stop);

/**
 * ufile_reader_end() - let go of the reader and the zygote (they end at the
 * end of their sockets; one stuck in the kernel later); never waits. Every
 * handle is let go of too.
 */
void ufile_reader_end(void);

/**
 * ufile_reader_on_helper() - be told the pid of every process the readers
 *	fork for this run (the zygote, each reader, a reader that replaces
 *	one abandoned after a stall), so that the run leaves them out of
 *	what it shows as it leaves out its own pid
 * @fn: called (under a lock of this module: it must not call it back)
 *	at once with each pid known so far, then with each new one from the
 *	thread that starts it; NULL: no more calls
 * @ctx: passed to @fn
 */
void ufile_reader_on_helper(void (*fn)(void *ctx, int pid), void *ctx);

/**
 * struct ufile_reader_stats - the readers of a run
 * @requests: requests sent
 * @stalls: requests abandoned past their deadline (their files not read)
 * @readers: reader processes started
 * @gave_up: no file is read any more (UFILE_STALLS_MAX stalls)
 * @pid: the reader now, 0: none
 */
struct ufile_reader_stats {
	uint64_t requests;
	uint64_t stalls;
	uint64_t readers;
	bool gave_up;
	pid_t pid;
};

/**
 * ufile_reader_stats() - what the readers did so far
 * @st: receives it
 */
void ufile_reader_stats(struct ufile_reader_stats *st);

/**
 * ufile_reader_set_deadline() - the deadline of an answer (tests)
 * @ms: milliseconds, 0: UFILE_DEADLINE_MS
 */
void ufile_reader_set_deadline(unsigned int ms);

/**
 * ufile_fs_refused() - whether a file of device @dev (as /proc/PID/maps
 * gives it) is on a mount ufile_open_mapped() refuses, from the mount
 * tables alone (nothing of the file is touched)
 * @proc: the proc root
 * @pid: the process (its mount table too), 0: stacktop's only
 * @dev: the device
 *
 * Return: true for a FUSE mount, or a device in no mount table that is
 * not a block device's (a detached mount).
 */
bool ufile_fs_refused(const char *proc, uint32_t pid, uint64_t dev);

#endif /* STACKTOP_UFILE_H */
