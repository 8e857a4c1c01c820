/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dwunwind.h - unwind a user stack copied by perf (PERF_SAMPLE_REGS_USER and
 * PERF_SAMPLE_STACK_USER) offline, with libunwind's remote API and the
 * .eh_frame unwind tables of the files the process had mapped - the way
 * `perf record --call-graph dwarf` does. x86_64 only.
 *
 * (Named dwunwind, not unwind: include/ is on every compile's -I path and
 * <unwind.h> is a system header of GCC and of libunwind.)
 *
 * The caller gives, for one sample: the registers, the stack bytes copied
 * from the user stack pointer upwards, and the process's file mappings (the
 * symbolizer's table, see struct umap). The unwind tables are read from the
 * mapped files themselves (found through /proc/PID/map_files, or by name
 * checked by device and inode; their tables kept in memory, least recently
 * used out past dwunwind_set_limit()), so the files must still be there:
 * unwind while the session runs, not from a recording. The
 * [vdso] is in no file: the caller gives a copy of its image with the
 * mapping (struct umap @image), and its .eh_frame_hdr is used like a file's,
 * the way perf keeps a copy of the vdso to unwind through it.
 */
#ifndef STACKTOP_DWUNWIND_H
#define STACKTOP_DWUNWIND_H

#include <stddef.h>
#include <stdint.h>

#include "sym/umap.h"

/* the registers a sample needs, as bits of perf_event_attr.sample_regs_user */
#define DWUNWIND_REGS_MASK 0xff0fffULL /* AX..SS and R8..R15: not DS/ES/FS/GS */
#define DWUNWIND_NREGS	   24	       /* PERF_REG_X86_64_MAX */

/**
 * struct dwunwind_sample - what perf copied at the event
 * @regs: the user registers indexed by enum perf_event_x86_regs
 *	(PERF_REG_X86_IP, ...); entries outside DWUNWIND_REGS_MASK are unused
 * @stack: the bytes copied from regs[PERF_REG_X86_SP] upwards
 * @stack_size: how many (the sample's dyn_size)
 * @maps: the process's mappings (struct umap), sorted
 * @nmaps: how many
 * @pid: the process (its /proc/PID/map_files give the files)
 * @maps_id: an identity of @maps for caching, or 0: the same non-zero value
 *	promises the same mappings (and files), e.g. tgid << 32 | a generation
 *	bumped on every mmap/munmap/exec of the process. With it, what libunwind
 *	learned about an address is kept (a few address spaces, least recently
 *	used out); with 0 nothing is cached.
 */
struct dwunwind_sample {
	const uint64_t *regs;
	const uint8_t *stack;
	size_t stack_size;
	const struct umap *maps;
	size_t nmaps;
	uint32_t pid;
	uint64_t maps_id;
};

/* why the list of frames ends where it does (dwunwind_stack()'s @why) */
enum dwunwind_end {
	DWUNWIND_END_OUTERMOST, /* the unwinder reached the last frame */
	DWUNWIND_END_STACK,	/* a frame lies beyond the copied stack bytes */
	DWUNWIND_END_DEPTH,	/* @max frames */
	DWUNWIND_END_NOINFO,	/* no unwind table for a frame's code */
	DWUNWIND_END_ERROR,	/* libunwind gave up (bad table, loop) */
	DWUNWIND_END_REFUSED,	/* call frame info past stacktop's bounds (cfi_scan.h), or the
				 * walk's read budget spent: dwunwind_stack()'s @refused says which */
};

struct dwunwind;

/**
 * dwunwind_new() - create an unwinder (a libunwind address space and a
 * cache of open files)
 *
 * Return: the unwinder, or NULL (errno).
 */
struct dwunwind *dwunwind_new(void);

/**
 * dwunwind_stack() - unwind one sample
 * @u: the unwinder
 * @s: the sample
 * @ips: receives the frames, innermost first: ips[0] is the sampled
 *	instruction pointer, the others are return addresses (symbolize
 *	address - 1 for those)
 * @max: room in @ips
 * @why: receives why the list ends there (enum dwunwind_end); may be NULL
 *
 * Return: the number of frames (>= 1), or -ENOENT when the sampled IP is in
 * no file mapping or image of @s (the maps are unknown or stale), -EINVAL for a sample
 * without registers or stack, -ENOMEM.
 */
int dwunwind_stack(struct dwunwind *u, const struct dwunwind_sample *s, uint64_t *ips,
		   unsigned int max, enum dwunwind_end *why);

/**
 * dwunwind_refusal() - why the last dwunwind_stack() that ended with
 * DWUNWIND_END_REFUSED stopped: the scan's verdict on an FDE
 * (CFI_MALFORMED, CFI_TOO_LONG, CFI_NESTING, CFI_EXPR_LOOP) or CFI_BUDGET
 * @u: the unwinder
 *
 * Every walk is bounded whatever the files say: each FDE libunwind is
 * given is first checked by cfi_scan_fde(), and a walk that reads more
 * than DWUNWIND_WALK_READS words (libunwind reads its tables a byte a
 * call) fails there.
 *
 * Return: an enum cfi_verdict (CFI_OK before any refusal).
 */
int dwunwind_refusal(const struct dwunwind *u);

/* the words one walk may read (stack, registers aside, and table bytes) */
#define DWUNWIND_WALK_READS (1u << 18)

/**
 * dwunwind_end_name() - @why as words
 * @why: the reason
 *
 * Return: a static string.
 */
const char *dwunwind_end_name(enum dwunwind_end why);

/**
 * dwunwind_image_buildid() - the GNU build-id of an ELF image in memory (a
 * copy of a process's [vdso]), to keep one copy per build-id
 * @img: the image
 * @len: its size
 * @bid: receives the build-id
 * @max: room in @bid
 *
 * Return: the build-id's length, or -ENOENT when @img is no x86_64 ELF64 image
 * with a build-id note (or a longer one than @max).
 */
int dwunwind_image_buildid(const uint8_t *img, size_t len, uint8_t *bid, size_t max);

/**
 * dwunwind_set_limit() - bound the unwind tables kept in memory
 * @u: the unwinder
 * @bytes: the bound (0: the default, 64 MiB); a file whose tables alone
 *	are larger is not unwound through
 */
void dwunwind_set_limit(struct dwunwind *u, size_t bytes);

/**
 * dwunwind_memory() - bytes of unwind tables and kept walks
 * @u: the unwinder
 */
size_t dwunwind_memory(const struct dwunwind *u);

/**
 * struct dwunwind_stats - how samples were unwound
 * @walked: by libunwind
 * @replayed: as a walk kept for their maps_id, IP and stack pointer that
 *	read the same registers and stack words (no walk)
 * @used: walks that reached the outermost frame, by the bytes of the
 *	copied stack they read (up to the last word): up to 512 bytes, 1K,
 *	2K, 4K, 8K, 16K, 32K, more (how much of the copy a stack needs)
 */
struct dwunwind_stats {
	uint64_t walked;
	uint64_t replayed;
	uint64_t used[8];
};

/**
 * dwunwind_stats() - the counters since dwunwind_new()
 * @u: the unwinder
 * @st: filled
 */
void dwunwind_stats(const struct dwunwind *u, struct dwunwind_stats *st);

/**
 * dwunwind_forget() - drop the unwind tables read and what libunwind
 * learned (they are read again when needed; files are known by device and
 * inode, so an exec or an unmap does not make them stale)
 * @u: the unwinder
 */
void dwunwind_forget(struct dwunwind *u);

/**
 * dwunwind_free() - free the unwinder
 * @u: the unwinder, or NULL
 */
void dwunwind_free(struct dwunwind *u);

#endif /* STACKTOP_DWUNWIND_H */
