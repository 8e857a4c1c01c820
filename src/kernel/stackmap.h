/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stackmap.h - parsers for the tracefs files of the ftrace stackmap series.
 *
 * RFC v1-v4 (see doc/stackmap-abi.md for the versions):
 *  - stack_map_bin: 16-byte header {magic, version, nr_stacks, reserved},
 *    then per record {stack_id, nr, ref_count, reserved} + u64 ips[nr],
 *    native byte order (detected from the magic). v4 magic 0x46534D42 with
 *    version 1; v1-v3 magic 0x464D5342 with version 2.
 *  - stack_map: text, "stack_id N [ref R, depth D]" then "  [i] sym+0xoff/0xsize [mod]"
 *    lines and a blank line per record.
 *  - stack_map_stat: "key: value" lines; v1 says hits/hit_rate, v2+
 *    successes/success_rate; "entries: N / M".
 *
 * Parsers take bytes and never touch files; they never trust a count from
 * the input beyond the bytes actually present.
 */
#ifndef STACKTOP_STACKMAP_H
#define STACKTOP_STACKMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define STACKMAP_BIN_MAGIC     0x46534D42u   /* v4: 'FSMB', version 1 */
#define STACKMAP_BIN_MAGIC_OLD 0x464D5342u   /* v1-v3, version 2 */
#define STACKMAP_TRAMPOLINE    0x7fffffffULL /* v4 FTRACE_TRAMPOLINE_MARKER */
#define STACKMAP_MAX_DEPTH     64
#define STACKMAP_BIN_HDR_SIZE  16
#define STACKMAP_BIN_REC_SIZE  16

/**
 * struct stackmap_bin_info - what the header of a stack_map_bin said
 * @magic: magic as read in host order after byte-order detection
 * @version: header version (1 for v4, 2 for v1-v3)
 * @nr_stacks: records the header announces
 * @parsed: complete records delivered to the visitor
 * @swapped: the file is in the other byte order than this host
 * @truncated: the data ended inside a record or before @nr_stacks records
 */
struct stackmap_bin_info {
	uint32_t magic;
	uint32_t version;
	uint32_t nr_stacks;
	uint32_t parsed;
	bool swapped;
	bool truncated;
};

/**
 * stackmap_bin_parse() - walk a stack_map_bin snapshot
 * @buf: file contents
 * @len: bytes in @buf
 * @visit: called per complete record with host-order ips (valid only during
 *         the call); a non-zero return stops the walk and is returned
 * @ctx: passed to @visit
 * @ret_info: if not NULL, filled (also on a truncated file)
 *
 * Records with nr above STACKMAP_MAX_DEPTH * 16 are treated as corruption.
 * The v4 magic requires version 1; the old magic accepts version 2 (v1-v3)
 * and 1 (accepted by the v1-era dump tool). Bytes after @nr_stacks records
 * are ignored. @ret_info is left untouched when the header itself is
 * rejected (-EBADMSG for a short header, -EPROTO).
 *
 * Return: 0 (check @ret_info->truncated), -EBADMSG when shorter than the
 * header or a record is corrupt, -EPROTO for an unknown magic or version,
 * or the visitor's non-zero value.
 */
int stackmap_bin_parse(const void *buf, size_t len,
		       int (*visit)(void *ctx, uint32_t id, uint32_t ref, const uint64_t *ips,
				    uint32_t nr),
		       void *ctx, struct stackmap_bin_info *ret_info);

/**
 * struct stackmap_frame - one frame line of the stack_map text
 * @sym: symbol name (not NUL-terminated), NULL for a bare address
 * @sym_len: length of @sym
 * @off: offset into the symbol
 * @mod: module name without brackets (not NUL-terminated), NULL for vmlinux
 * @mod_len: length of @mod
 * @addr: the address when the line is a bare hex address
 * @trampoline: the line is "[FTRACE TRAMPOLINE]"
 * @size: the symbol size after '/', 0 when the line has none
 */
struct stackmap_frame {
	const char *sym;
	size_t sym_len;
	uint64_t off;
	uint64_t size;
	const char *mod;
	size_t mod_len;
	uint64_t addr;
	bool trampoline;
};

/**
 * stackmap_text_parse() - walk the text of stack_map
 * @text: file contents (need not be NUL-terminated)
 * @len: bytes in @text
 * @visit: called per record: kernel id, ref count, depth from the header
 *         line, and the frames actually present (at most STACKMAP_MAX_DEPTH),
 *         valid only during the call; non-zero stops the walk
 * @ctx: passed to @visit
 *
 * A record cut short by the end of the text is still delivered with the
 * frames present; an unterminated last line that does not parse is taken
 * as cut by the read and dropped. Frame lines are the forms %pS prints:
 * "sym+0xoff/0xsize", with " [module]" for module text, a bare "0x..."
 * address, or "[FTRACE TRAMPOLINE]" (v4).
 *
 * Return: records delivered, -EBADMSG for a line that is neither a header,
 * a frame nor blank, or the visitor's non-zero value.
 */
int stackmap_text_parse(const char *text, size_t len,
			int (*visit)(void *ctx, uint32_t id, uint32_t ref, uint32_t depth,
				     const struct stackmap_frame *frames, uint32_t nframes),
			void *ctx);

/**
 * struct stackmap_stat - stack_map_stat
 * @entries: unique stacks stored
 * @capacity: pool size (the M of "entries: N / M"), 0 when not printed (v1 doc)
 * @table_size: hash slots
 * @successes: events served by the map (v1: hits)
 * @drops: events that fell back to a full stack because the map was full
 * @success_rate: percent, -1 when the line is absent (no events yet)
 * @v1_names: the file used v1's hits/hit_rate names
 */
struct stackmap_stat {
	uint64_t entries;
	uint64_t capacity;
	uint64_t table_size;
	uint64_t successes;
	uint64_t drops;
	int success_rate;
	bool v1_names;
};

/**
 * stackmap_stat_parse() - parse stack_map_stat text
 * @text: NUL-terminated file contents
 * @ret: filled on success; unknown keys are ignored
 *
 * Return: 0, -ENODATA for "stackmap not initialized", -EBADMSG when no known
 * key was found or a value is not a number.
 */
int stackmap_stat_parse(const char *text, struct stackmap_stat *ret);

/*
 * Frames of a saved stack_map text whose symbol is not in the kallsyms in
 * use (another kernel's map, or kallsyms read without root: every address
 * 0) get a synthetic address in a non-canonical range no kernel or user
 * address lies in: one STACKMAP_NAMED_SPAN-sized slot per (symbol, module,
 * size), plus the offset. Looked up again, the address gives the text back,
 * so such a frame displays as written and two stacks are never merged
 * because their frames could not be resolved.
 */
#define STACKMAP_NAMED_BASE 0x8000000000000000ULL
#define STACKMAP_NAMED_SPAN (1ULL << 32)

struct stackmap_names;

/**
 * stackmap_names_new() - an empty table of named frames
 *
 * Return: the table (free with stackmap_names_free()), NULL on OOM.
 */
struct stackmap_names *stackmap_names_new(void);

/**
 * stackmap_names_free() - free; NULL is a no-op
 * @n: table
 */
void stackmap_names_free(struct stackmap_names *n);

/**
 * stackmap_names_intern() - the synthetic address of a "sym+0xoff/0xsize
 * [mod]" frame
 * @n: table
 * @f: a frame with @f->sym set
 * @ret: receives the address (the same one for the same text)
 *
 * Return: 0, -EINVAL for a frame without a symbol or with an offset of
 * STACKMAP_NAMED_SPAN or more, -ENOSPC when the range is full, -ENOMEM.
 */
int stackmap_names_intern(struct stackmap_names *n, const struct stackmap_frame *f, uint64_t *ret);

/**
 * stackmap_names_lookup() - the symbol a synthetic address stands for
 * @n: table
 * @addr: an address from stackmap_names_intern()
 * @name: receives the symbol name (owned by @n, NUL-terminated)
 * @module: receives the module name or NULL
 * @start: receives the symbol's synthetic start (@addr less the offset)
 * @size: receives the size the text gave (0 when none)
 *
 * Return: 0, -ENOENT for an address not from this table.
 */
int stackmap_names_lookup(const struct stackmap_names *n, uint64_t addr, const char **name,
			  const char **module, uint64_t *start, uint64_t *size);

/**
 * stackmap_names_count() - symbols interned
 * @n: table
 */
size_t stackmap_names_count(const struct stackmap_names *n);

#endif /* STACKTOP_STACKMAP_H */
