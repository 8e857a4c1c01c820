/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tfs.h - the only code that touches tracefs paths.
 *
 * Everything is relative to one root directory file descriptor, opened
 * once: the system's tracefs (found, or mounted if absent) or any directory
 * given with --tracefs (the simulator, a fixture tree). Errors come back as
 * negative errno values, with the kernel's own errno preserved (EBUSY from
 * stack_map, EINVAL from an option).
 *
 * stacktop runs as root, so a path below the root must never lead anywhere
 * else: every path is resolved beneath the root with no symlink in any
 * component and no "..", with openat2(RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS),
 * or on kernels without it one component at a time with O_NOFOLLOW (a
 * symlink gives -ELOOP, an escape -EXDEV). And the root itself must be a
 * real tracefs, or a directory that only root (or the caller) owns and can
 * write: in a tree another user controls, that user could swap a file for a
 * symlink between two checks.
 */
#ifndef STACKTOP_TFS_H
#define STACKTOP_TFS_H

#include <stdbool.h>
#include <stddef.h>

/**
 * struct tfs - an open tracefs root
 * @root: path of the root (owned)
 * @fd: directory descriptor of the root
 * @mounted: stacktop mounted it and unmounts it on tfs_close()
 */
struct tfs {
	char *root;
	int fd;
	bool mounted;
};

/**
 * tfs_open() - open a tracefs root
 * @root: directory to use, or NULL to find the system's tracefs at
 *        /sys/kernel/tracing or /sys/kernel/debug/tracing, mounting it at
 *        /sys/kernel/tracing when it is not mounted
 * @ret: the handle on success (free with tfs_close())
 *
 * Return: 0, -ENODEV (no tracefs and it cannot be mounted), -EPERM/-EACCES
 * (not privileged; or @root fails tfs_check_root()), -ENOENT (@root does
 * not exist), -ENOMEM.
 */
int tfs_open(const char *root, struct tfs **ret);

/**
 * tfs_check_root() - whether an open directory is safe to use as a root
 * @fd: the directory
 *
 * Return: 0 for a tracefs (statfs magic), or a directory owned by root or
 * the effective user and not writable by group or others; -EPERM otherwise,
 * -ENOTDIR, -errno.
 */
int tfs_check_root(int fd);

/**
 * tfs_resolve() - open a path beneath a directory, following no symlink
 * @dirfd: the directory
 * @rel: relative path (absolute paths and ".." are refused with -EXDEV)
 * @flags: open(2) flags (O_NOFOLLOW and O_CLOEXEC are added; no O_CREAT)
 *
 * Async-signal-safe (plain system calls, no allocation): the fatal-signal
 * restore uses it.
 *
 * Return: a file descriptor, -ELOOP when a component is a symlink, -EXDEV,
 * -errno.
 */
int tfs_resolve(int dirfd, const char *rel, int flags);

/**
 * tfs_test_disable_openat2() - make tfs_resolve() use its fallback walk, as
 * on a kernel without openat2() (tests only)
 */
void tfs_test_disable_openat2(void);

/**
 * tfs_close() - close the root, unmount it if stacktop mounted it; NULL is a no-op
 * @t: handle
 */
void tfs_close(struct tfs *t);

/**
 * tfs_read() - read a whole file
 * @t: root
 * @rel: path relative to the root
 * @ret_buf: NUL-terminated contents, free() it
 * @ret_len: if not NULL, bytes read (binary-safe)
 *
 * Return: 0 or -errno.
 */
int tfs_read(struct tfs *t, const char *rel, char **ret_buf, size_t *ret_len);

/**
 * tfs_read_long() - read a file holding one integer
 * @t: root
 * @rel: path
 * @ret: the value
 *
 * Return: 0, -EBADMSG when it is not a number, -errno.
 */
int tfs_read_long(struct tfs *t, const char *rel, long long *ret);

/**
 * tfs_write() - write a string to a file in one write(), opened with O_TRUNC
 * as `echo str > file` does
 * @t: root
 * @rel: path
 * @str: data
 *
 * Return: 0 or -errno as the kernel returned it.
 */
int tfs_write(struct tfs *t, const char *rel, const char *str);

/**
 * tfs_write_mode() - write a string to a file in one write(), opened with
 * @mode: O_TRUNC (replace, as `>`), O_APPEND (add a line, as `>>`: a
 * kprobe_events or trigger file that O_TRUNC would clear), or 0 (no flag:
 * the file's own append semantics, as set_event_pid's)
 * @t: root
 * @rel: path
 * @str: data
 * @mode: see above
 *
 * Return: 0 or -errno as the kernel returned it (a short write: -EIO).
 */
int tfs_write_mode(struct tfs *t, const char *rel, const char *str, int mode);

/**
 * tfs_open_file() - open a file under the root
 * @t: root
 * @rel: path
 * @flags: open(2) flags (O_NOFOLLOW and O_CLOEXEC are added)
 *
 * tfs_resolve() on the root: async-signal-safe.
 *
 * Return: a file descriptor or -errno (-ELOOP: a symlink on the way).
 */
int tfs_open_file(struct tfs *t, const char *rel, int flags);

/**
 * tfs_exists() - whether @rel exists (symlinks are not followed)
 * @t: root
 * @rel: path
 */
bool tfs_exists(struct tfs *t, const char *rel);

/**
 * tfs_mkdir() - create a directory (an instance)
 * @t: root
 * @rel: path
 *
 * Return: 0 or -errno.
 */
int tfs_mkdir(struct tfs *t, const char *rel);

/**
 * tfs_rmdir() - remove a directory (an instance)
 * @t: root
 * @rel: path
 *
 * Async-signal-safe.
 *
 * Return: 0 or -errno.
 */
int tfs_rmdir(struct tfs *t, const char *rel);

#endif /* STACKTOP_TFS_H */
