/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dwunwind_file.h - the unwind tables of the files processes map, read
 * before libunwind asks (dwunwind_file.c), for the walk in dwunwind.c: a
 * small table of files, least recently used out past a bound in bytes.
 * Not for other modules: dwunwind.h is the interface.
 */
#ifndef STACKTOP_DWUNWIND_FILE_H
#define STACKTOP_DWUNWIND_FILE_H

#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sym/cfi_scan.h"
#include "sym/umap.h"

#define DW_NFILES 64

/*
 * A file's unwind tables, read into memory before libunwind asks for them:
 * libunwind calls the accessors under a lock that blocks every signal
 * (lock_acquire(): sigprocmask(SIG_SETMASK, full)), so nothing in them may
 * open or read a file. @win holds the file's bytes from .eh_frame_hdr to
 * the end of .eh_frame (what find_proc_info and the CIE/FDE reads need);
 * code bytes are not read.
 */
struct uwfile {
	uint64_t dev, ino;    /* a file's, or */
	const uint8_t *image; /* the caller's image (struct umap @image) */
	bool failed;	      /* could not be read: not tried again */
	uint8_t *win;	      /* bytes [win_off, win_off + win_len) of the file */
	uint64_t win_off;
	size_t win_len;
	uint64_t stamp; /* last use, for eviction */
	bool elf_ok;	/* an x86_64 ELF64 file */
	bool have_hdr;	/* .eh_frame_hdr with a binary-search table */
	uint64_t hdr_vaddr;
	uint64_t table_vaddr;
	uint64_t table_off; /* its file offset: the table is in @win */
	uint64_t fde_count;
	Elf64_Phdr *phdr; /* a copy */
	unsigned int phnum;
};

/*
 * struct uwfiles - the files read so far
 * @f: the entries (zeroed: empty)
 * @clock: the last stamp given
 * @bytes: what the entries hold
 * @limit: the bound on @bytes (a file larger alone is not read)
 */
struct uwfiles {
	struct uwfile f[DW_NFILES];
	uint64_t clock;
	size_t bytes;
	size_t limit;
};

/* the entry of @m's file (or image), read now if needed: never under libunwind's lock */
struct uwfile *dw_file_get(struct uwfiles *fs, const struct umap *m, uint32_t pid);
/* the entry of @m's file, or NULL when it was never read (reads nothing) */
struct uwfile *dw_file_find(struct uwfiles *fs, const struct umap *m);
/* file offset of @vaddr via the PT_LOAD headers; false when none holds it */
bool dw_file_vaddr_off(const struct uwfile *f, uint64_t vaddr, uint64_t *off);
/* @len bytes at file offset @off, from what was read; NULL when not read */
const uint8_t *dw_win_at(const struct uwfile *f, uint64_t off, uint64_t len);
/*
 * the FDE libunwind would take for @ip in @f mapped with load bias @bias,
 * checked by cfi_scan_fde() (CFI_OK when there is none)
 */
enum cfi_verdict dw_file_check_fde(const struct uwfile *f, uint64_t bias, uint64_t ip);
/* every entry dropped (what they hold freed) */
void dw_files_drop(struct uwfiles *fs);

#endif /* STACKTOP_DWUNWIND_FILE_H */
