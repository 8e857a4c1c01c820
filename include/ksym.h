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

/**
 * ksym_load() - (re)load symbols
 * @ks: table
 * @f: kallsyms text, or NULL to open the table's path
 *
 * Return: number of symbols, -EACCES when every address reads as zero
 * (kptr_restrict; run as root), -ENOENT/-errno when the file cannot be read.
 */
int ksym_load(struct ksym *ks, FILE *f);

/**
 * ksym_lookup() - find the symbol containing @addr
 * @ks: table
 * @addr: kernel address
 * @ret: filled on success
 *
 * Return: 0, or -ENOENT (and the table is marked stale).
 */
int ksym_lookup(struct ksym *ks, uint64_t addr, struct ksym_hit *ret);

/**
 * ksym_refresh() - reload the file if a lookup missed since the last load
 * @ks: table
 *
 * Return: 1 when reloaded, 0 when nothing to do, negative errno on error
 * (the old symbols are kept).
 */
int ksym_refresh(struct ksym *ks);

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
