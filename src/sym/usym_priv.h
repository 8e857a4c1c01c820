/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * usym_priv.h - what the symbolizer's files share. Not for other modules:
 * usym.h is the interface.
 *
 * The files, each using only the ones listed before it (usym.c, named
 * after usym.h, calls none of the others):
 *	usym.c          the state: lookup tables, growth, memory and bound,
 *	                the name cache
 *	usym_text.c     frames read back from a snapshot
 *	usym_demangle.c C++ and Rust names, bounded
 *	usym_file.c     the files processes map and their symbol tables
 *	usym_perf.c     perf-<pid>.map files
 *	usym_proc.c     processes: their images, maps and uids
 *	usym_dwarf.c    inlined calls and source lines (libdw, udwarf.h)
 *	usym_kernel.c   the kernel's source lines (--vmlinux)
 *	usym_tok.c      tokens: interned, named, formatted
 */
#ifndef STACKTOP_USYM_PRIV_H
#define STACKTOP_USYM_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/hmap.h"

#include "sym/usym.h"

struct uelf;
struct udwarf;

enum tok_state {
	TOK_NEW,   /* not resolved yet */
	TOK_SYM,   /* @name + @symoff in @file */
	TOK_FILE,  /* no symbol: @fileoff in @file */
	TOK_PERF,  /* @name + @symoff from perf-<pid>.map */
	TOK_NOMAP, /* no mapping holds the address */
	TOK_TEXT,  /* named by a snapshot read back: @name is the frame as written */
	TOK_INL,   /* an inlined call at @addr (usym_dwarf.c): @name is the function's */
	TOK_LABEL, /* a row's key (--group-by: a library, a command): @name, shown as it is */
};

struct utok {
	uint64_t addr;
	uint32_t tgid;
	uint32_t proc;
	uint8_t state;
	uint32_t file;	 /* index in u->files, UINT32_MAX: the map's pseudo name */
	uint64_t symoff; /* from the symbol's start (TOK_FILE: the function's, 0: unknown) */
	uint64_t fileoff;
	char *name;
	char *src;    /* its source line, "path:line" (usym_dwarf.c), NULL: unknown */
	uint32_t inl; /* the first of its @ninl inlined calls (TOK_INL tokens), innermost first */
	uint8_t ninl;
	bool dwarf; /* its DWARF was looked at (usym_dwarf_chain()) */
};

/* a perf-<pid>.map entry: @name is an offset in struct uperf @names */
struct perfsym {
	uint64_t start;
	uint64_t size;
	uint32_t name;
};

/*
 * A process's perf-<pid>.map as read so far: entries are appended as the
 * file grows (JIT runtimes append), sorted when looked up after a change.
 */
struct uperf {
	struct perfsym *e;
	size_t n, cap;
	char *names;
	size_t nlen, ncap;
	uint64_t dev, ino; /* the file read */
	uint64_t off;	   /* bytes parsed (up to a newline) */
	uint32_t checked;  /* usym epoch of the last look at the file (+1) */
	uint32_t extra;	   /* looks since, for addresses it did not have (perf_refresh_miss()) */
	bool sorted;
	bool full; /* stopped at the symbolizer's share */
};

/*
 * One image of a process: an exec (seen as /proc/<tgid>/exe changing, at
 * most once per refresh) starts a new one, and tokens key on the image, so
 * frames from before and after an exec are never named from the other's
 * maps.
 */
struct uproc {
	uint32_t tgid;
	uint32_t nspid;
	uint32_t uids[4]; /* real, effective, saved, filesystem (status "Uid:") */
	unsigned int nuids;
	uint32_t checked; /* usym epoch of the last exec check */
	uint64_t exe_dev;
	uint64_t exe_ino;
	struct usym_map *maps;
	size_t nmaps;
	uint32_t *mfile; /* file index per map, UINT32_MAX: none */
	bool retried;
	bool gone;	  /* its /proc entry went away: nothing more to read */
	uint32_t snapped; /* usym epoch + 1 of the last maps read for a new address */
	struct uperf perf;
};

/*
 * A file processes map (usym_file.c), known by device and inode; usym.c
 * counts the table's memory.
 */
struct usfile {
	uint64_t dev;
	uint64_t ino;
	char *path;	/* as the process named it */
	uint32_t tgid;	/* the last process seen mapping it, */
	uint64_t start; /* ... and where: to open it again */
	uint64_t end;
	int fd;
	bool failed;	   /* its symbols could not be loaded: not tried again */
	bool refused;	   /* not opened: not a regular file, FUSE, ... */
	bool vdso;	   /* an image copied from a process's memory: */
	size_t len;	   /* ... its size */
	uint8_t *image;	   /* ... its bytes (the next process's is compared to them) */
	struct uelf *elf;  /* its symbols, when loaded */
	struct udwarf *dw; /* its DWARF (or its debug file's), when loaded */
	bool dw_tried;	   /* looked for: not again */
	bool dw_later;	   /* too large to read while samples wait: at usym_tick() */
	uint64_t used;
	/* demangled names: symbol index -> offset in @dmp + 1, 0: as in the table */
	struct hmap dm;
	char *dmp;
	size_t dmlen, dmcap;
};

struct usym {
	char proc[128];
	struct hmap tokmap; /* hash(tgid, addr) chains resolved by compare */
	struct utok *toks;
	size_t ntoks, ctoks;
	struct hmap procmap;
	struct uproc *procs;
	size_t nprocs, cprocs;
	struct hmap filemap;
	struct usfile *files;
	size_t nfiles, cfiles;
	size_t name_bytes;
	size_t maps_bytes;	/* the processes' maps */
	size_t image_bytes;	/* the vdso copies */
	size_t sym_bytes;	/* loaded symbol tables and their demangled names */
	size_t perf_bytes;	/* perf maps */
	size_t dw_bytes;	/* the files' DWARF, inlined calls' names, source lines */
	size_t label_bytes;	/* the rows' keys (usym_intern_label()) */
	size_t limit;		/* usym_set_limit(), 0: none */
	uint64_t refused;	/* new frames not interned: at the limit */
	uint64_t files_refused; /* files not read: not regular, FUSE, ... */
	uint64_t files_big;	/* files whose symbols did not fit the share */
	unsigned int nfds;
	unsigned int maxfds; /* the per-CPU readers need descriptors too */
	unsigned int nloaded;
	uint64_t clock;
	uint32_t epoch; /* usym_tick() */
	bool no_dwarf;	/* usym_set_dwarf(): no DWARF read */
	/* --vmlinux (usym_kernel.c): its DWARF, its symbols, KASLR's offset, lines kept */
	struct udwarf *kdw;
	struct uelf *kelf;
	uint64_t koffset;
	struct hmap klines; /* mix64(ip) ^ ret -> a strdup()ed "path:line", 0: none */
};

/* usym.c */
/* the index @key maps to in @m, UINT32_MAX when absent */
uint32_t usym_idx(const struct hmap *m, uint64_t key);
/*
 * The token of the chain of @key (core/hmap.h) that @match accepts, or
 * UINT32_MAX with the free key where a new one goes in *@ret_free
 */
uint32_t usym_tok_find(const struct usym *u, uint64_t key,
		       bool (*match)(const struct utok *t, const void *ctx), const void *ctx,
		       uint64_t *ret_free);
/* the name cache's bound: USYM_NAMES_MAX, or a quarter of the limit */
size_t usym_names_max(const struct usym *u);
/* every cached name dropped (those read back stay): resolved again when shown */
void usym_names_drop(struct usym *u);

/* usym_text.c */
int usym_text_format(const char *text, char *buf, size_t size, bool offset, bool with_file);
uint64_t usym_text_start(struct usym *u, const struct utok *t, uint64_t ip);

/* usym_file.c */
/* the index of @m's file in @u (opened once, as @tgid sees it), UINT32_MAX when refused */
uint32_t usym_file_get(struct usym *u, uint32_t tgid, const struct usym_map *m);
uint32_t usym_vdso_get(struct usym *u, uint32_t tgid, const struct usym_map *m);
/*
 * the symbol at offset @off of file @fi: a strdup()ed name, its offset in
 * *@ret_symoff; NULL when none (*@ret_symoff then the offset from the start
 * of its function the unwind tables list, 0 when unknown)
 */
char *usym_file_symbol(struct usym *u, uint32_t fi, uint64_t off, uint64_t *ret_symoff);
/* file @fi's symbols (and program headers) loaded within the share; false when they cannot be */
bool usym_file_load(struct usym *u, uint32_t fi);
/* file @fi opened again (a handle, ufile_close() it), or -errno */
int usym_file_open(struct usym *u, uint32_t fi);
/* the debug file of build-id @bid under /usr/lib/debug/.build-id, root's alone (uelf_opts) */
int usym_debug_open(const uint8_t *bid, int len, void *ctx);
/* the path of file @fi (owned by @u) */
const char *usym_file_path(const struct usym *u, uint32_t fi);
/* every file of @u closed and freed */
void usym_files_free(struct usym *u);

/* usym_perf.c */
/* @pr's /tmp/perf-PID.map read on from where it was, once an interval (its owner's only) */
void perf_refresh(struct usym *u, struct uproc *pr);
#define PERF_EXTRA_READS 64
/*
 * and again for an address it did not have, PERF_EXTRA_READS times an
 * interval at most: the JIT may have written it since (while it lives)
 */
void perf_refresh_miss(struct usym *u, struct uproc *pr);
/* the read itself, whenever it is due */
void perf_read_more(struct usym *u, struct uproc *pr);
/* the perf map entry (/tmp/perf-PID.map) holding @addr in @pr, NULL when none */
const struct perfsym *perf_find(struct uproc *pr, uint64_t addr);
/* the name of @ps (owned by @pr's perf map) */
const char *perf_name(const struct uproc *pr, const struct perfsym *ps);
/* @pr's perf map freed, its bytes taken off @u's count */
void perf_free(struct usym *u, struct uproc *pr);

/* usym_proc.c */
/* the current image of @tgid, its index in u->procs; a new one at first
 * sight or after an exec; UINT32_MAX when it cannot be kept */
uint32_t usym_proc_get(struct usym *u, uint32_t tgid);
/* read @pr's maps again (and open the files they map) */
void usym_proc_snapshot(struct usym *u, struct uproc *pr);
/* every process freed, with its maps and perf map */
void usym_procs_free(struct usym *u);

/* usym_dwarf.c */
/*
 * token @ti's inlined calls (TOK_INL tokens after it in u->toks, t->inl and
 * t->ninl) and source line (t->src), from its file's DWARF, once; @ret: its
 * address is a return address (the call is the byte before)
 */
void usym_dwarf_chain(struct usym *u, uint32_t ti, bool ret);
/* whether @t names an inlined call (TOK_INL, or read back as "name (inlined)") */
bool usym_tok_inlined(const struct utok *t);
/* every file's DWARF freed (the tokens keep what they took from it) */
void usym_dwarf_drop(struct usym *u);
/* usym_tick(): the large DWARF put off by usym_dwarf_chain(), read now */
void usym_dwarf_tick(struct usym *u);

/* usym_kernel.c: the vmlinux's DWARF, symbols and lines freed */
void usym_kernel_free(struct usym *u);

#endif /* STACKTOP_USYM_PRIV_H */
