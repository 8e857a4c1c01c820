/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * uelf.h - the function symbols of an ELF file another user controls, read
 * with pread() from a descriptor (ufile.h) or from memory, every size
 * checked against the file and a byte budget before anything is allocated.
 *
 * Symbols come from the file's .symtab; without one, from the separate
 * debug file its build-id names (uelf_opts.debug_open: the caller decides
 * where it may be), else from .dynsym together with the .symtab of the
 * xz-compressed ELF in .gnu_debugdata ("MiniDebugInfo"), decompressed with
 * liblzma under a memory limit and an output cap, both within the budget.
 * ELF32 and ELF64, little-endian.
 */
#ifndef STACKTOP_UELF_H
#define STACKTOP_UELF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * struct uelf_src - where an ELF file's bytes are
 * @fd: a descriptor read with pread (when @mem is NULL)
 * @mem: the bytes in memory (an image copied from a process, a decompressed
 *	.gnu_debugdata), or NULL
 * @size: the file's (or the image's) size
 */
struct uelf_src {
	int fd;
	const uint8_t *mem;
	uint64_t size;
};

/**
 * struct uelf_opts - how a file's symbols are loaded
 * @budget: bytes the result may hold; what loading needs on the way (a
 *	string table, a decompressed .gnu_debugdata) counts too. 0: 256 MiB.
 * @debug_open: a descriptor on the debug file of build-id @bid, or -errno
 *	(NULL: none looked for)
 * @ctx: for @debug_open
 */
struct uelf_opts {
	size_t budget;
	int (*debug_open)(const uint8_t *bid, int len, void *ctx);
	void *ctx;
};

/**
 * struct uelf_sym - one function symbol
 * @start: its address (ELF virtual address)
 * @size: its size (never 0: a symbol without a size says nothing about
 *	where it ends)
 * @name: offset of its name in struct uelf @names
 */
struct uelf_sym {
	uint64_t start;
	uint64_t size;
	uint32_t name;
};

/* where struct uelf's symbols came from (@from) */
#define UELF_SYMTAB    0x1
#define UELF_DEBUGFILE 0x2
#define UELF_DYNSYM    0x4
#define UELF_DEBUGDATA 0x8

/**
 * struct uelf - a file's function symbols, sorted by address
 * @syms: the symbols, one per address
 * @nsyms: how many
 * @names: their names, NUL-terminated
 * @bytes: memory held by all of this
 * @from: UELF_* bits
 * @fstarts: a file without a .symtab (nor one in a debug file): where its
 *	functions start (ELF virtual addresses, sorted), from the search table
 *	of its .eh_frame_hdr, for the functions no symbol names; else NULL
 * @nfstarts: how many
 */
struct uelf {
	struct uelf_sym *syms;
	size_t nsyms;
	char *names;
	size_t bytes;
	unsigned int from;
	uint64_t *fstarts;
	size_t nfstarts;
	/* private */
	struct uelf_load *loads;
	unsigned int nloads;
	size_t names_len, names_cap;
};

/**
 * uelf_load() - read a file's symbols and program headers
 * @src: the file
 * @o: budget and debug-file lookup
 * @ret: receives the result (uelf_free())
 *
 * Return: 0; -ENOEXEC (not an ELF file this reads), -E2BIG (over the
 * budget), -EIO (cut short: truncated), -ENOMEM.
 */
int uelf_load(const struct uelf_src *src, const struct uelf_opts *o, struct uelf **ret);

/**
 * uelf_buildid() - the GNU build-id of a file
 * @src: the file
 * @bid: receives it
 * @max: room in @bid
 *
 * Return: its length, or -ENOENT, -ENOEXEC, -EIO.
 */
int uelf_buildid(const struct uelf_src *src, uint8_t *bid, size_t max);

/**
 * uelf_vaddr() - the virtual address of file offset @off (the PT_LOAD
 * segment holding it)
 * @e: the file's symbols
 * @off: file offset
 * @ret: receives the address
 *
 * Return: 0, or -ENOENT when no segment holds @off.
 */
int uelf_vaddr(const struct uelf *e, uint64_t off, uint64_t *ret);

/**
 * uelf_find() - the symbol covering @vaddr
 * @e: the file's symbols
 * @vaddr: address
 *
 * Return: the symbol (index into @e->syms), or NULL.
 */
const struct uelf_sym *uelf_find(const struct uelf *e, uint64_t vaddr);

/**
 * struct uelf_sec - a section of an ELF file, inside the file
 * @name: its name (cut at 31 bytes)
 * @type: SHT_*
 * @flags: SHF_* (SHF_COMPRESSED: its bytes start with an Elf64_Chdr)
 * @offset: where its bytes are
 * @size: how many
 * @addralign: its alignment
 * @entsize: the size of its entries, 0 if none
 */
struct uelf_sec {
	char name[32];
	uint32_t type;
	uint64_t flags;
	uint64_t offset;
	uint64_t size;
	uint64_t addralign;
	uint64_t entsize;
};

/**
 * struct uelf_info - what kind of ELF file
 * @is64: ELFCLASS64
 * @type: e_type
 * @machine: e_machine
 */
struct uelf_info {
	bool is64;
	uint16_t type;
	uint16_t machine;
};

/**
 * uelf_sections() - the sections of a file whose names @want takes (the
 *	first @max, in the file's order), each checked to lie inside the file;
 *	sections without bytes (SHT_NOBITS) are left out
 * @src: the file
 * @want: which names
 * @ret: receives them
 * @max: room in @ret
 * @info: receives the file's class, type and machine
 *
 * Return: how many, or -ENOEXEC (not an ELF file this reads, a section past
 * its end), -EIO, -ENOMEM.
 */
int uelf_sections(const struct uelf_src *src, bool (*want)(const char *name), struct uelf_sec *ret,
		  unsigned int max, struct uelf_info *info);

/**
 * uelf_func_start() - the start of the function holding @vaddr that no
 *	symbol names, from the unwind tables' list of functions (@fstarts)
 * @e: the file's symbols
 * @vaddr: address
 * @ret: receives the start
 *
 * Return: 0, or -ENOENT (no list, or @vaddr before the first function or
 * past the last one's segment).
 */
int uelf_func_start(const struct uelf *e, uint64_t vaddr, uint64_t *ret);

/**
 * uelf_free() - free what uelf_load() returned; NULL is a no-op
 * @e: symbols
 */
void uelf_free(struct uelf *e);

#endif /* STACKTOP_UELF_H */
