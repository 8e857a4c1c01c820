/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * uelf_priv.h - what the ELF symbol reader's files share, each using only
 * the ones before it (uelf.c, named after uelf.h, calls neither):
 *	uelf.c       one file read: headers, sections, notes, a symbol table
 *	uelf_xz.c    .gnu_debugdata: the .symtab of an xz-compressed ELF file
 *	uelf_fde.c   .eh_frame_hdr: where the functions no symbol names start
 *	uelf_load.c  uelf_load(): which tables make a file's symbols
 */
#ifndef STACKTOP_UELF_PRIV_H
#define STACKTOP_UELF_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sym/uelf.h"

#define NOTES_MAX 8 /* note segments and sections looked at for a build-id */

struct uelf_load {
	uint64_t off;
	uint64_t filesz;
	uint64_t vaddr;
};

struct shdr {
	uint32_t name;
	uint32_t type;
	uint32_t link;
	uint64_t flags;
	uint64_t offset;
	uint64_t size;
	uint64_t addralign;
	uint64_t entsize;
};

struct note {
	uint64_t off;
	uint64_t size;
	uint64_t align;
};

/* what loading holds, against the budget */
struct acct {
	size_t held;
	size_t budget;
};

/* one file being read */
struct rd {
	const struct uelf_src *src;
	struct acct *a;
	bool is64;
	uint16_t type, machine; /* e_type, e_machine */
	unsigned int shnum;
	struct shdr *sh;
	char *shstr;
	size_t shstr_len;
	struct note notes[NOTES_MAX];
	unsigned int nnotes;
	struct uelf_load *loads;
	unsigned int nloads;
	struct uelf_load ehhdr; /* PT_GNU_EH_FRAME (filesz 0: none) */
};

/* uelf.c */
/* @n more bytes held against @a's budget; -E2BIG past it */
int uelf_take(struct acct *a, size_t n);
/* @n bytes taken with uelf_take() given back to @a */
void uelf_give(struct acct *a, size_t n);
void *uelf_src_get(struct rd *r, uint64_t off, size_t len, int *err);
/* a buffer uelf_src_get() gave (@len bytes; NULL is fine) freed and given back */
void uelf_src_put(struct rd *r, void *b, size_t len);
/* @r reads ELF file @src: its headers, program and section tables checked; 0 or -errno */
int uelf_rd_open(struct rd *r, const struct uelf_src *src, struct acct *a);
/* what uelf_rd_open() holds freed (not @r itself) */
void uelf_rd_free(struct rd *r);
/* the index of @r's first section of @type (and @name, unless NULL), -1 when none */
int uelf_find_sec(const struct rd *r, uint32_t type, const char *name);
/* the GNU build-id of @r into @bid (at most @max bytes): its length, or -ENOENT */
int uelf_rd_buildid(struct rd *r, uint8_t *bid, size_t max);
int uelf_add_symbols(struct rd *r, struct uelf *e, size_t *cap, unsigned int idx);

/* uelf_xz.c: the .symtab of section @idx's xz-compressed ELF file into @e */
int uelf_add_debugdata(struct rd *r, struct uelf *e, size_t *cap, unsigned int idx);

/*
 * uelf_fde.c: the functions' starts of @r's .eh_frame_hdr search table into
 * @e->fstarts (none when it has no table, or one encoded otherwise than the
 * GNU linkers write it); 0, or -errno when it could not be read (the file's
 * symbols do without it)
 */
int uelf_add_fstarts(struct rd *r, struct uelf *e);

#endif /* STACKTOP_UELF_PRIV_H */
