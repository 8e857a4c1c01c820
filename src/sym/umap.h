/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * umap.h - a process's file mapping as the DWARF unwinder takes it
 * (dwunwind.h): the type its two files (dwunwind.c, the walk, and
 * dwunwind_file.c, the files' unwind tables) and its callers share.
 */
#ifndef STACKTOP_UMAP_H
#define STACKTOP_UMAP_H

#include <stddef.h>
#include <stdint.h>

/**
 * struct umap - one file mapping of a process (a line of /proc/PID/maps or a
 * PERF_RECORD_MMAP2)
 * @start: first address
 * @end: one past the last address
 * @pgoff: file offset mapped at @start
 * @path: the file ("/usr/lib/...") as the process names it (in its mount
 *	namespace); anything not starting with '/' (anon, "[stack]", "[vdso]")
 *	is never opened
 * @dev: the file's device (major << 32 | minor), from /proc/PID/maps or the
 *	MMAP2 record: the file read must be this one; 0: never opened
 * @ino: its inode
 * @image: the mapping's bytes when its code is in no file (the [vdso]: a copy
 *	of the process's memory from @start, an ELF image), read instead of
 *	@path; NULL otherwise. The caller keeps it while the unwinder lives: it
 *	is cached by its address (one copy per build-id, see
 *	dwunwind_image_buildid()).
 * @image_size: its size
 *
 * A process's table is an array sorted by @start, without overlaps, holding
 * every file mapping (not only the executable ones: the unwind tables are
 * often in a read-only segment of their own).
 */
struct umap {
	uint64_t start;
	uint64_t end;
	uint64_t pgoff;
	const char *path;
	uint64_t dev;
	uint64_t ino;
	const uint8_t *image;
	size_t image_size;
};

#endif /* STACKTOP_UMAP_H */
