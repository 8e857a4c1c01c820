/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * udwarf.h - the inlined calls and source lines of a file's code, from its
 * DWARF (.debug_info, .debug_line and what they refer to), through
 * elfutils' libdw.
 *
 * The file is another user's (a binary, a library, their debug file): it
 * is never opened or mapped by libdw. Its debug sections are read with
 * ufile's reads (uelf_src: a handle of the reader process, or memory),
 * every size checked against the file and a byte budget first (a
 * compressed section by the size its header declares, before libdw
 * inflates it), and copied into one image in memory - an ELF file of those
 * sections alone - that libdw is given (elf_memory(), dwarf_begin_elf()).
 * What libdw builds from it (abbreviations, line tables, the scopes of a
 * lookup) is bounded by the image: lookups read nothing more.
 *
 * Without libdw (the build summary says so) udwarf_open() says -ENOTSUP
 * and frames have no lines and no inlined calls.
 */
#ifndef STACKTOP_UDWARF_H
#define STACKTOP_UDWARF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct uelf_src;
struct udwarf;

/**
 * struct udwarf_frame - one function of the chain at an address
 * @name: its name (the linkage name when there is one: mangled), NULL
 *	when the DWARF gives none; owned by the udwarf
 * @file: the source file of @line, as the DWARF names it (a path), NULL
 *	when unknown; owned by the udwarf
 * @line: the line: for the innermost frame the address's, for each outer
 *	one the line of the call that was inlined; 0 when unknown
 * @inlined: an inlined call (DW_TAG_inlined_subroutine), false for the
 *	function the code was compiled in (the last frame)
 */
struct udwarf_frame {
	const char *name;
	const char *file;
	unsigned int line;
	bool inlined;
};

#define UDWARF_FRAMES_MAX 32 /* inlined calls of one address at most (deeper: cut) */

/**
 * udwarf_has_debug() - whether a file carries DWARF line and scope data
 *	(a .debug_info and .debug_line, plain or compressed)
 * @src: the file
 *
 * Return: true when it does; false otherwise or when it cannot be read.
 */
bool udwarf_has_debug(const struct uelf_src *src);

/**
 * udwarf_debuglink() - the file's .gnu_debuglink: the name of its separate
 *	debug file and that file's CRC-32
 * @src: the file
 * @name: receives the name (a file name, no '/': checked)
 * @size: room in @name
 * @crc: receives the CRC-32 the debug file must have
 *
 * Return: 0, or -ENOENT (none, or a name with a '/' or no NUL).
 */
int udwarf_debuglink(const struct uelf_src *src, char *name, size_t size, uint32_t *crc);

/**
 * udwarf_crc32() - the CRC-32 of a whole file (GNU debuglink's), read in
 *	chunks
 * @src: the file
 * @crc: receives it
 *
 * Return: 0, or -errno from the reads.
 */
int udwarf_crc32(const struct uelf_src *src, uint32_t *crc);

/**
 * udwarf_size() - the bytes a file's DWARF takes once read: its debug
 *	sections, the compressed ones at the size they declare (nothing is
 *	inflated)
 * @src: the file
 *
 * Return: the bytes, 0 when it has none or cannot be read.
 */
uint64_t udwarf_size(const struct uelf_src *src);

/**
 * udwarf_open() - the DWARF of a file, for lookups
 * @src: the file (the binary itself, or its debug file)
 * @budget: bytes it may hold: the image of its debug sections, inflated,
 *	and libdw's own tables (estimated); more is -E2BIG
 * @ret: receives it (udwarf_free())
 *
 * Return: 0; -ENOENT (no .debug_info or .debug_line), -E2BIG, -ENOEXEC
 * (not a 64-bit ELF file, a section past its end, a compressed section
 * libdw cannot read), -ENOTSUP (built without libdw), -EIO/-ETIMEDOUT
 * (read), -ENOMEM.
 */
int udwarf_open(const struct uelf_src *src, size_t budget, struct udwarf **ret);

/**
 * udwarf_frames() - the chain of functions at an address: the innermost
 *	inlined call first, the function the code was compiled in last, each
 *	with its source line
 * @d: the DWARF
 * @vaddr: the address (ELF virtual address of the code)
 * @ret: receives the frames (their strings valid until udwarf_free())
 * @max: room in @ret
 *
 * Return: how many (0: the DWARF does not cover @vaddr).
 */
unsigned int udwarf_frames(struct udwarf *d, uint64_t vaddr, struct udwarf_frame *ret,
			   unsigned int max);

/**
 * udwarf_bytes() - what @d holds (its image, inflated sections, libdw's
 *	tables as estimated)
 * @d: the DWARF
 */
size_t udwarf_bytes(const struct udwarf *d);

/**
 * udwarf_free() - free @d; NULL is a no-op
 * @d: the DWARF
 */
void udwarf_free(struct udwarf *d);

#endif /* STACKTOP_UDWARF_H */
