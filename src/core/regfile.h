/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * regfile.h - a file root names on the command line that may lie where
 * other users write (a recording, the stack map saved next to it, a JSON
 * snapshot), opened once and read through that one descriptor.
 *
 * The path is reached with O_PATH (no open of the file itself: a FIFO
 * there does not block, a device's driver is not called, a symlink to
 * /dev/zero or /dev/watchdog opens nothing), checked to be a regular file
 * (and not larger than a cap), and only then opened for reading through
 * /proc/self/fd/N: that inode, whatever is renamed over the path since.
 * Every reader of the file reads that descriptor, or another description
 * of the same inode (regfile_reopen(): a library that moves the offset,
 * a child process), never the path again: a user watching the directory
 * cannot swap in another file between the checks and the reads.
 */
#ifndef STACKTOP_REGFILE_H
#define STACKTOP_REGFILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#define REGFILE_NOFOLLOW 0x1 /* the path's last component may not be a symlink */

/**
 * regfile_open() - @path's regular file, opened for reading
 * @path: the file
 * @flags: REGFILE_NOFOLLOW
 * @max: refuse a file larger than this (-EFBIG); 0: any size
 * @st: receives its stat, or NULL
 *
 * Return: a descriptor (O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
 * close() it), or -errno: -EINVAL (not a regular file: a FIFO, a device, a
 * directory, a socket), -ELOOP (a symlink, with REGFILE_NOFOLLOW), -EFBIG,
 * -ENOENT...
 */
int regfile_open(const char *path, unsigned int flags, uint64_t max, struct stat *st);

/**
 * regfile_reopen() - another open file description of @fd's file: its own
 * offset, for a reader that seeks (through /proc/self/fd: the same inode,
 * checked)
 * @fd: a descriptor from regfile_open()
 *
 * Return: the new descriptor (O_RDONLY | O_CLOEXEC), or -errno (-ESTALE:
 * not the same file).
 */
int regfile_reopen(int fd);

/**
 * regfile_read() - all of @fd's file from its start, with a NUL after it
 * @fd: a descriptor from regfile_open()
 * @max: -EFBIG when the file holds more than this (it may grow while read)
 * @ret: receives the bytes (free() them)
 * @ret_len: receives how many
 *
 * Return: 0, or -errno.
 */
int regfile_read(int fd, uint64_t max, char **ret, size_t *ret_len);

#endif /* STACKTOP_REGFILE_H */
