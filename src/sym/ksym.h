/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ksym.h - kernel symbols from a kallsyms file.
 *
 * ksym_load() reads /proc/kallsyms (or any file in its format: "addr type
 * name [module]") once, keeps the text symbols sorted by address in one
 * string arena, and answers lookups by binary search. Module names are kept.
 * A lookup that falls in no known symbol marks the table stale; the owner
 * calls ksym_refresh() once per refresh to re-read the file (a module may
 * have been loaded).
 */
#ifndef STACKTOP_KSYM_H
#define STACKTOP_KSYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct ksym;

/**
 * struct ksym_hit - the symbol an address falls in
 * @name: symbol name, owned by the table (valid until the next ksym_load()
 *        or ksym_refresh() that reloads, or ksym_free())
 * @module: module name, or NULL for the core kernel
 * @start: symbol address
 * @size: distance to the next symbol (the kernel's %pS size)
 */
struct ksym_hit {
	const char *name;
	const char *module;
	uint64_t start;
	uint64_t size;
};

/**
 * ksym_new() - an empty table
 * @path: file to load from and reload on ksym_refresh(); NULL means
 *        /proc/kallsyms. Copied.
 *
 * Return: the table (free with ksym_free()), NULL on OOM.
 */
struct ksym *ksym_new(const char *path);

struct usym;

/**
 * ksym_set_usym() - the symbolizer of user-space frames formatted with @ks
 * @ks: table
 * @u: user symbols (not owned; NULL: user frames stay bare tokens)
 *
 * The frame formatters (format.h) take a ksym; user frames (usym.h) in the
 * same frame arrays are named through the symbolizer attached here.
 */
void ksym_set_usym(struct ksym *ks, struct usym *u);

/**
 * ksym_usym() - the symbolizer attached with ksym_set_usym(), or NULL
 * @ks: table (may be NULL)
 */
struct usym *ksym_usym(const struct ksym *ks);

/**
 * ksym_load() - (re)load symbols
 * @ks: table
 * @f: kallsyms text, or NULL to open the table's path
 *
 * Keeps text symbols (types t, T, w, W, module text included); other lines
 * are skipped. A symbol's size is the distance to the next symbol of the
 * same object (core kernel or module), at most 4096 bytes for the last one.
 * On error the previously loaded symbols are kept.
 *
 * The read is bounded: the path must be a regular file (a FIFO or a device
 * such as /dev/zero is refused without blocking), at most 256 MiB and 4M
 * lines, no line over 1024 bytes; memory stays proportional to that.
 *
 * Return: number of symbols, -EACCES when every address reads as zero
 * (kptr_restrict; run as root), -EINVAL (not a regular file), -EFBIG (over
 * the caps), -EBADMSG (a line too long), -ENOENT/-errno when the file
 * cannot be read. ksym_strerror() says which in words.
 */
int ksym_load(struct ksym *ks, FILE *f);

/**
 * ksym_strerror() - a ksym_load() error in words
 * @err: negative errno from ksym_load()
 *
 * Return: a static string.
 */
const char *ksym_strerror(int err);

/**
 * ksym_lookup() - find the symbol containing @addr
 * @ks: table
 * @addr: kernel address
 * @ret: filled on success
 *
 * Aliases (several names at one address) answer the first in file order,
 * which is the kernel's own preference order.
 *
 * Return: 0, or -ENOENT (and the table is marked stale, unless @addr is 0
 * or in a range that missed right after a reload: see ksym_refresh()).
 */
int ksym_lookup(struct ksym *ks, uint64_t addr, struct ksym_hit *ret);

/**
 * ksym_lookup_ret() - the symbol of a return address: the one holding the
 *	byte before it (the call), as the kernel's %pB (sprint_backtrace())
 *	names the frames of a backtrace
 * @ks: table
 * @addr: a return address of a stack
 * @ret: filled on success; @ret->start may be @addr - @ret->size (the
 *	address is the end of the function: a call to a noreturn function
 *	was its last instruction), so "name+0xSIZE/0xSIZE" is its frame
 *
 * Every entry of an ftrace stack is a return address: stack_trace_save()
 * records the callers' (its first entry too, a return into the tracing
 * machinery), and stack_trace_save_regs() (kprobes) first the probe's
 * address plus one on x86 (int3 and its emulations: one byte back is the
 * probe's own instruction). An exact resolver (a snapshot's symbols) is
 * asked for @addr itself: its writer named that very frame.
 *
 * Return: as ksym_lookup().
 */
int ksym_lookup_ret(struct ksym *ks, uint64_t addr, struct ksym_hit *ret);

/**
 * ksym_set_funcs() - what the frames of the stacks being named are:
 *	function starts (true: stacks grouped by function, --by-func) or
 *	return addresses (false, the default)
 * @ks: table
 * @funcs: frames are function starts
 */
void ksym_set_funcs(struct ksym *ks, bool funcs);

/* ksym_set_funcs()'s setting */
bool ksym_funcs(const struct ksym *ks);

/**
 * ksym_lookup_frame() - the symbol of a frame of a stack: ksym_lookup_ret(),
 *	or ksym_lookup() of a function start while ksym_set_funcs() says so
 * @ks: table
 * @ip: the frame's address
 * @ret: filled on success
 *
 * Return: as ksym_lookup().
 */
int ksym_lookup_frame(struct ksym *ks, uint64_t ip, struct ksym_hit *ret);

/**
 * ksym_addr_of() - the address of a symbol given by name
 * @ks: table
 * @name: symbol name (need not be NUL-terminated)
 * @name_len: bytes of @name
 * @module: module name without brackets (need not be NUL-terminated), or
 *          NULL for the core kernel
 * @module_len: bytes of @module
 * @ret: receives the symbol's start address on success
 *
 * Turns a "sym+0xoff [mod]" frame of the stack_map text back into an address
 * (start + off). A sorted-by-name index is built on the first call and
 * dropped by the next reload. A static function name may exist more than
 * once in one object; the lowest address is returned then.
 *
 * Return: 0, -ENOENT when no such symbol is loaded (the table is not marked
 * stale), -ENOMEM.
 */
int ksym_addr_of(struct ksym *ks, const char *name, size_t name_len, const char *module,
		 size_t module_len, uint64_t *ret);

/**
 * ksym_set_resolver() - where to look when an address is in no loaded symbol
 * @ks: table
 * @resolver: fills @ret and returns 0, or returns negative; its strings must
 *            stay valid as long as the table (a trace.dat's own symbols)
 * @ctx: passed to @resolver
 *
 * With a resolver, misses do not mark the table stale.
 */
void ksym_set_resolver(struct ksym *ks,
		       int (*resolver)(void *ctx, uint64_t addr, struct ksym_hit *ret), void *ctx);

/**
 * ksym_refresh() - reload the file if a lookup missed since the last load
 * @ks: table
 *
 * An address that still misses after the reload (or every one, when it
 * failed) remembers its range, between the symbols on either side: a
 * later miss anywhere in it (another sample of a BPF program kallsyms does
 * not list, of a trampoline) reloads only once the kernel's code changed
 * (a module or a BPF program loaded: ksym_watch.c), so that such code
 * costs one reload, not one a refresh.
 *
 * Return: 1 when reloaded, 0 when nothing to do, negative errno on error
 * (the old symbols are kept).
 */
int ksym_refresh(struct ksym *ks);

/**
 * ksym_reloads() - the reloads ksym_refresh() made (a debug counter: each
 * costs a read of kallsyms)
 * @ks: table
 */
unsigned long ksym_reloads(const struct ksym *ks);

/**
 * ksym_count() - number of symbols loaded
 * @ks: table
 */
size_t ksym_count(const struct ksym *ks);

/**
 * ksym_free() - free the table and its strings; NULL is a no-op
 * @ks: table
 */
void ksym_free(struct ksym *ks);

#endif /* STACKTOP_KSYM_H */
