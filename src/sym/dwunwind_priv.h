/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dwunwind_priv.h - what dwunwind.c (the walk, libunwind's accessors) and
 * dwunwind_file.c (the files' unwind tables, read before) share.
 */
#ifndef STACKTOP_DWUNWIND_PRIV_H
#define STACKTOP_DWUNWIND_PRIV_H

#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libunwind.h>

#include "sym/dwunwind.h"

#define NFILES       64
#define LIMIT_DEFAULT (64u << 20) /* bytes of unwind tables kept (dwunwind_set_limit()) */
#define LOADS_MAX    8            /* files read for one sample (each a restart) */

/*
 * A file's unwind tables, read into memory before libunwind asks for them:
 * libunwind calls the accessors under a lock that blocks every signal
 * (lock_acquire(): sigprocmask(SIG_SETMASK, full)), so nothing in them may
 * open or read a file. @win holds the file's bytes from .eh_frame_hdr to
 * the end of .eh_frame (what find_proc_info and the CIE/FDE reads need);
 * code bytes are not read.
 */
struct uwfile {
	uint64_t dev, ino;      /* a file's, or */
	const uint8_t *image;   /* the caller's image (struct umap @image) */
	bool failed;            /* could not be read: not tried again */
	uint8_t *win;           /* bytes [win_off, win_off + win_len) of the file */
	uint64_t win_off;
	size_t win_len;
	uint64_t stamp;         /* last use, for eviction */
	bool elf_ok;            /* an x86_64 ELF64 file */
	bool have_hdr;          /* .eh_frame_hdr with a binary-search table */
	uint64_t hdr_vaddr;
	uint64_t table_vaddr;
	uint64_t fde_count;
	Elf64_Phdr *phdr;       /* a copy */
	unsigned int phnum;
};

/* an address space whose cache belongs to one maps_id */
struct uspace {
	unw_addr_space_t as;
	uint64_t id;
	uint64_t stamp;
};

#define NSPACES 8

struct dwunwind {
	unw_addr_space_t as;    /* maps_id 0: no caching */
	struct uspace spaces[NSPACES];
	struct uwfile files[NFILES];
	uint64_t clock;
	size_t bytes;           /* what the files hold */
	size_t limit;
};

/* dwunwind_file.c */
void dw_file_close(struct dwunwind *u, struct uwfile *f);
bool dw_file_vaddr_off(const struct uwfile *f, uint64_t vaddr, uint64_t *off);
const uint8_t *dw_win_at(const struct uwfile *f, uint64_t off, uint64_t len);
struct uwfile *dw_file_find(struct dwunwind *u, const struct umap *m);
struct uwfile *dw_file_get(struct dwunwind *u, const struct umap *m, uint32_t pid);

#endif /* STACKTOP_DWUNWIND_PRIV_H */
