// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * uelf_load.c - uelf_load() (see uelf.h): a file's function symbols from
 * the best table it has: its .symtab, else the .symtab of the separate
 * debug file its build-id names, else .dynsym with the .symtab of
 * .gnu_debugdata (uelf_xz.c); sorted, one symbol per address. The reading
 * itself is uelf.c's.
 */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sym/uelf_priv.h"
#include "sym/ufile.h"

#define BUDGET_DEFAULT (256u << 20)

/* the separate debug file of @r's build-id: its .symtab */
static int add_debugfile(struct rd *r, struct uelf *e, size_t *cap, const struct uelf_opts *o)
{
	uint8_t bid[64], bid2[64];
	struct uelf_src ds = { .fd = -1 };
	struct rd dr;
	int n, fd, err, k;

	if (!o->debug_open)
		return -ENOENT;
	n = uelf_rd_buildid(r, bid, sizeof(bid));
	if (n <= 0)
		return -ENOENT;
	fd = o->debug_open(bid, n, o->ctx);
	if (fd < 0)
		return fd;
	ds.fd = fd;
	if (ufile_size(fd, &ds.size) < 0)
		ds.size = 0;
	err = uelf_rd_open(&dr, &ds, r->a);
	if (err == 0) {
		/* the debug file of this very build, nothing else */
		if (uelf_rd_buildid(&dr, bid2, sizeof(bid2)) != n || memcmp(bid, bid2, (size_t)n))
			err = -ESTALE;
		k = err ? -1 : uelf_find_sec(&dr, SHT_SYMTAB, NULL);
		if (k > 0 && dr.sh[k].type != SHT_NOBITS)
			err = uelf_add_symbols(&dr, e, cap, (unsigned int)k);
		else if (!err)
			err = -ENOENT;
		uelf_rd_free(&dr);
	}
	ufile_close(fd);
	return err;
}

static int sym_cmp(const void *pa, const void *pb)
{
	const struct uelf_sym *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	/* the rank is in the top bits of the size */
	return (a->size >> 62) < (b->size >> 62) ? -1 : (a->size >> 62) > (b->size >> 62);
}

/* sorted, one symbol per address (the best ranked), ranks cleared */
static void syms_finish(struct uelf *e)
{
	size_t i, w = 0;

	if (e->nsyms)
		qsort(e->syms, e->nsyms, sizeof(*e->syms), sym_cmp);
	for (i = 0; i < e->nsyms; i++) {
		if (w && e->syms[w - 1].start == e->syms[i].start)
			continue;
		e->syms[w] = e->syms[i];
		e->syms[w++].size &= ~(3ULL << 62);
	}
	e->nsyms = w;
}

int uelf_load(const struct uelf_src *src, const struct uelf_opts *o, struct uelf **ret)
{
	struct acct a = { .budget = o && o->budget ? o->budget : BUDGET_DEFAULT };
	struct uelf_opts none = { 0 };
	struct uelf *e;
	struct rd r;
	size_t cap = 0;
	unsigned int i;
	int err, k;

	*ret = NULL;
	if (!o)
		o = &none;
	if (uelf_take(&a, sizeof(*e)) < 0)
		return -E2BIG;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	err = uelf_rd_open(&r, src, &a);
	if (err < 0) {
		free(e);
		return err;
	}
	k = uelf_find_sec(&r, SHT_SYMTAB, NULL);
	if (k > 0) {
		err = uelf_add_symbols(&r, e, &cap, (unsigned int)k);
		e->from |= UELF_SYMTAB;
	} else if (add_debugfile(&r, e, &cap, o) == 0) {
		e->from |= UELF_DEBUGFILE;
	} else {
		e->nsyms = 0; /* what a refused debug file left */
		k = uelf_find_sec(&r, SHT_DYNSYM, NULL);
		if (k > 0) {
			err = uelf_add_symbols(&r, e, &cap, (unsigned int)k);
			e->from |= UELF_DYNSYM;
		}
		k = uelf_find_sec(&r, SHT_PROGBITS, ".gnu_debugdata");
		if (err == 0 && k > 0) {
			size_t before = e->nsyms;

			err = uelf_add_debugdata(&r, e, &cap, (unsigned int)k);
			if (err < 0) {
				e->nsyms = before; /* .dynsym alone, as without it */
				if (err == -E2BIG || err == -ENOEXEC)
					err = 0;
			} else if (e->nsyms > before) {
				e->from |= UELF_DEBUGDATA;
			}
		}
	}
	/* stripped: where the functions no symbol names start (optional: a failure is no list) */
	if (err == 0 && !(e->from & (UELF_SYMTAB | UELF_DEBUGFILE)))
		uelf_add_fstarts(&r, e);
	if (err == 0) {
		/* the PT_LOAD segments, to place file offsets */
		for (i = 0; i < r.nloads; i++)
			if (r.loads[i].filesz)
				r.loads[e->nloads++] = r.loads[i];
		e->loads = r.loads;
		r.loads = NULL;
	}
	uelf_rd_free(&r);
	if (err < 0) {
		uelf_free(e);
		return err;
	}
	syms_finish(e);
	e->bytes = sizeof(*e) + cap * sizeof(*e->syms) + e->names_cap +
		   e->nloads * sizeof(*e->loads) + e->nfstarts * sizeof(*e->fstarts);
	*ret = e;
	return 0;
}
