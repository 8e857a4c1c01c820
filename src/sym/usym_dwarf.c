// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * usym_dwarf.c - the inlined calls and source lines of user frames (see
 * usym.h), from the DWARF of the files processes map (udwarf.h, libdw).
 *
 * A file's DWARF is looked for once, the first time one of its frames is
 * interned (the process most likely lives): in the file itself
 * (.debug_info and .debug_line), else in the debug file its build-id names
 * under /usr/lib/debug/.build-id (Debian's -dbgsym packages; root's files
 * only, as for symbols), else in the file its .gnu_debuglink names: under
 * /usr/lib/debug and the binary's directory, then the binary's .debug/ and
 * directory in the process's own root - a file its owner or root owns,
 * whose CRC-32 is the one the link gives. Every one is opened and read
 * through ufile.h like the binary, into memory under the symbolizer's
 * share (udwarf.c), and closed.
 *
 * A token's chain is made once: each inlined call at its address becomes
 * a token of its own (TOK_INL: the function's name, its source line),
 * stored right after the tokens there were, and the token keeps its own
 * line (the call's, when the code is inlined). The names and lines are
 * copies: a file's DWARF can be dropped for memory (usym_dwarf_drop())
 * and the chains made stay. A chain is never made again: a frame whose
 * file's DWARF could not be had shows as before, a physical frame alone.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/log.h"
#include "sym/udwarf.h"
#include "sym/uelf.h"
#include "sym/ufile.h"
#include "sym/usym_priv.h"

#define USYM_DEBUG_DIR "/usr/lib/debug"
#define DW_BUDGET_MAX  (512u << 20) /* one file's DWARF at most, whatever the share */
#define DW_SRC_MAX     512	    /* bytes of a source line's text kept */
/*
 * DWARF larger than this (its sections inflated) is not read while the
 * samples wait (libc6-dbg's libc: 12 MB, some 50 ms of CPU): at the next
 * refresh instead; the frames interned until then have no inlined calls
 */
#define DW_NOW_MAX    (2u << 20)
#define DW_TICK_FILES 4 /* files read at one refresh at most */

/* what the share leaves for one more file's DWARF */
static size_t dw_budget(const struct usym *u)
{
	size_t mem = usym_memory(u);

	if (!u->limit)
		return DW_BUDGET_MAX;
	/* at most half of the share for DWARF: the symbols need the rest */
	if (u->dw_bytes >= u->limit / 2 || mem >= u->limit)
		return 0;
	mem = u->limit - mem < u->limit / 2 - u->dw_bytes ? u->limit - mem
							  : u->limit / 2 - u->dw_bytes;
	return mem < DW_BUDGET_MAX ? mem : DW_BUDGET_MAX;
}

/* the DWARF of the file behind handle @fd, if it has any */
static int dw_load(struct usym *u, int fd, struct udwarf **ret)
{
	struct uelf_src src = { .fd = fd };
	size_t budget = dw_budget(u);
	int r;

	if (ufile_size(fd, &src.size) < 0)
		return -EIO;
	if (!budget)
		return -E2BIG;
	r = udwarf_open(&src, budget, ret);
	return r;
}

/* the separate debug file .gnu_debuglink names, checked by its CRC; -errno when none */
static int dw_debuglink(struct usym *u, const struct usfile *f, const struct uelf_src *src,
			uint32_t tgid, const uint32_t *uids, unsigned int nuids)
{
	char name[256], dir[512], path[1024];
	const char *slash = strrchr(f->path, '/');
	struct ufile_want w = { .nuids = 0 };
	uint32_t crc, got;
	int i, fd;

	if (udwarf_debuglink(src, name, sizeof(name), &crc) < 0 || !slash || f->path[0] != '/')
		return -ENOENT;
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - f->path), f->path);
	w.uids[w.nuids++] = 0;
	for (i = 0; i < (int)nuids && w.nuids < 4; i++)
		w.uids[w.nuids++] = uids[i];
	/* gdb's order: the global debug directory, then next to the binary */
	for (i = 0; i < 3; i++) {
		if (i == 0) {
			snprintf(path, sizeof(path), USYM_DEBUG_DIR "%s/%s", dir, name);
			fd = ufile_open_at(u->proc, 0, path, UFILE_TRUSTED, NULL, NULL);
		} else {
			snprintf(path, sizeof(path), i == 1 ? "%s/.debug/%s" : "%s/%s", dir, name);
			if (!strcmp(path, f->path))
				continue; /* the binary itself */
			fd = ufile_open_at(u->proc, tgid, path, UFILE_OWNER, &w, NULL);
		}
		if (fd < 0)
			continue;
		{
			struct uelf_src d = { .fd = fd };

			if (ufile_size(fd, &d.size) == 0 && udwarf_crc32(&d, &got) == 0 &&
			    got == crc)
				return fd;
		}
		log_info("user lines: %s does not match %s (CRC)", path, f->path);
		ufile_close(fd);
	}
	return -ENOENT;
}

/* @fd's DWARF, or -EAGAIN when it is too large to read @now (*@later set) */
static int dw_load_when(struct usym *u, int fd, bool now, struct usfile *f)
{
	struct uelf_src src = { .fd = fd };

	if (now && ufile_size(fd, &src.size) == 0 && udwarf_size(&src) > DW_NOW_MAX) {
		f->dw_later = true;
		return -EAGAIN;
	}
	return dw_load(u, fd, &f->dw);
}

/*
 * The DWARF of file @fi: its own, its build-id's debug file, its
 * debuglink's; NULL: none. @now: samples wait (a drain): a large one is put
 * off to the next refresh (f->dw_later), and asked for again then.
 */
static struct udwarf *file_dwarf(struct usym *u, uint32_t fi, const struct uproc *pr, bool now)
{
	struct usfile *f = &u->files[fi];
	struct uelf_src src = { .fd = -1 };
	uint8_t bid[64];
	int fd, dfd = -1, n, r = -ENOENT;

	if (f->dw || f->dw_tried || (now && f->dw_later))
		return f->dw;
	f->dw_tried = true;
	if (f->vdso || f->refused)
		return NULL;
	fd = usym_file_open(u, fi);
	if (fd < 0)
		return NULL;
	src.fd = fd;
	if (ufile_size(fd, &src.size) < 0)
		goto out;
	if (udwarf_has_debug(&src)) {
		r = dw_load_when(u, fd, now, f);
		goto out;
	}
	n = uelf_buildid(&src, bid, sizeof(bid));
	if (n > 0)
		dfd = usym_debug_open(bid, n, u);
	if (dfd < 0 && pr)
		dfd = dw_debuglink(u, f, &src, pr->tgid, pr->uids, pr->nuids);
	if (dfd >= 0) {
		r = dw_load_when(u, dfd, now, f);
		ufile_close(dfd);
	}
out:
	if (r == -EAGAIN) {
		f->dw_tried = false; /* at usym_tick() */
		ufile_close(fd);
		return NULL;
	}
	ufile_close(fd);
	if (f->dw) {
		u->dw_bytes += udwarf_bytes(f->dw);
		log_debug("user lines: %s: DWARF loaded (%zu bytes)", f->path, udwarf_bytes(f->dw));
	} else if (r != -ENOENT) {
		log_info("user lines: %s: DWARF not read: %s", f->path, strerror(-r));
	}
	return f->dw;
}

/* "path:line" (the path cut to its last DW_SRC_MAX bytes), NULL when neither is known */
static char *src_text(struct usym *u, const char *file, unsigned int line)
{
	char buf[DW_SRC_MAX + 16];
	size_t len;

	if (!file && !line)
		return NULL;
	if (!file)
		file = "??";
	len = strlen(file);
	if (len > DW_SRC_MAX)
		file += len - DW_SRC_MAX;
	snprintf(buf, sizeof(buf), "%s:%u", file, line);
	u->dw_bytes += strlen(buf) + 1;
	return strdup(buf);
}

bool usym_tok_inlined(const struct utok *t)
{
	const char *p, *last = NULL;

	if (t->state == TOK_INL)
		return true;
	if (t->state != TOK_TEXT || !t->name)
		return false;
	/* read back: "name (inlined)" then maybe " (file)" */
	for (p = strstr(t->name, " (inlined)"); p; p = strstr(p + 1, " (inlined)"))
		last = p;
	return last && (!last[10] || !strncmp(last + 10, " (", 2));
}

void usym_dwarf_chain(struct usym *u, uint32_t ti, bool ret)
{
	struct udwarf_frame fr[UDWARF_FRAMES_MAX];
	const struct usym_map *m;
	const struct uproc *pr;
	struct utok *t = &u->toks[ti];
	uint64_t vaddr, fileoff;
	unsigned int n, ninl, k;
	uint32_t fi;
	struct udwarf *dw;
	size_t held;

	if (t->dwarf || u->no_dwarf || t->state == TOK_TEXT || t->state == TOK_INL ||
	    t->proc == UINT32_MAX)
		return;
	t->dwarf = true;
	pr = &u->procs[t->proc];
	m = usym_find_map(pr->maps, pr->nmaps, t->addr);
	if (!m || !m->ino)
		return; /* no file: JIT, anonymous memory */
	fi = pr->mfile[m - pr->maps];
	if (fi == UINT32_MAX || !usym_file_load(u, fi))
		return;
	fileoff = t->addr - m->start + m->pgoff;
	if (uelf_vaddr(u->files[fi].elf, fileoff, &vaddr) < 0)
		return;
	dw = file_dwarf(u, fi, pr, true);
	if (!dw) {
		if (u->files[fi].dw_later)
			t->dwarf = false; /* asked again once its file's DWARF is read */
		return;
	}
	/* a return address: the call is the byte before it */
	held = udwarf_bytes(dw);
	n = udwarf_frames(dw, ret && vaddr ? vaddr - 1 : vaddr, fr, UDWARF_FRAMES_MAX);
	u->dw_bytes += udwarf_bytes(dw) - held; /* the line tables libdw built for it */
	if (!n)
		return;
	ninl = fr[n - 1].inlined ? n : n - 1;
	if (ninl > 255)
		ninl = 255;
	/* the inlined calls' tokens, within the share */
	if (ninl && (!u->limit || usym_memory(u) + (ninl + 1) * 2 * sizeof(*u->toks) < u->limit) &&
	    ARRAY_GROW(u->toks, u->ctoks, u->ntoks + ninl) == 0) {
		t = &u->toks[ti]; /* the array may have moved */
		for (k = 0; k < ninl; k++) {
			struct utok *x = &u->toks[u->ntoks + k];

			memset(x, 0, sizeof(*x));
			x->addr = t->addr;
			x->tgid = t->tgid;
			x->proc = t->proc;
			x->file = fi;
			x->fileoff = fileoff;
			x->state = TOK_INL;
			x->dwarf = true;
			x->name = fr[k].name ? usym_demangle(fr[k].name) : strdup("[unknown]");
			if (x->name)
				u->dw_bytes += strlen(x->name) + 1;
			x->src = src_text(u, fr[k].file, fr[k].line);
		}
		t->inl = (uint32_t)u->ntoks;
		t->ninl = (uint8_t)ninl;
		u->ntoks += ninl;
	}
	t = &u->toks[ti];
	t->src = src_text(u, fr[ninl < n ? ninl : n - 1].file, fr[ninl < n ? ninl : n - 1].line);
}

void usym_dwarf_drop(struct usym *u)
{
	size_t i;

	for (i = 0; i < u->nfiles; i++) {
		if (!u->files[i].dw)
			continue;
		u->dw_bytes -= udwarf_bytes(u->files[i].dw);
		udwarf_free(u->files[i].dw);
		u->files[i].dw = NULL;
	}
}

void usym_set_dwarf(struct usym *u, bool on)
{
	u->no_dwarf = !on;
}

void usym_dwarf_tick(struct usym *u)
{
	unsigned int done = 0;
	size_t i;

	for (i = 0; i < u->nfiles && done < DW_TICK_FILES; i++) {
		struct usfile *f = &u->files[i];

		if (!f->dw_later || f->dw_tried)
			continue;
		uint32_t pi = usym_idx(&u->procmap, f->tgid);

		f->dw_later = false;
		/* the process that mapped it last (its root and users, for a debuglink) */
		file_dwarf(u, (uint32_t)i, pi != UINT32_MAX ? &u->procs[pi] : NULL, false);
		done++;
	}
}
