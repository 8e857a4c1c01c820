// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * usym_file.c - the files of the symbolizer (usym.h): each executable file
 * a process maps, opened as a hostile file (ufile.h) and its function
 * symbols read with pread (uelf.h), and the [vdso] images copied from the
 * processes' memory.
 *
 * A file is known by its device and inode as /proc/<tgid>/maps gave them.
 * It is opened at first sight, while the process most likely lives,
 * through /proc/<tgid>/map_files (the very file mapped), and the
 * descriptor kept (at most u->maxfds); one that had to be closed is opened
 * again through the mapping of the last process seen mapping it, else by
 * its name, checked by device and inode. A file that is not a regular
 * file, or lies on a FUSE mount, is never opened: its frames stay
 * `[unknown]` with the file offset (u->files_refused counts them).
 *
 * Symbol tables are loaded when a frame of the file is first shown, within
 * what the symbolizer's share leaves (least recently used tables are
 * dropped to make room; a table larger than the whole share is not
 * loaded: u->files_big), at most USYM_LOADED_MAX at once. Each symbol is
 * demangled once, when first shown, and the result (or the refusal) kept
 * with its table.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/array.h"
#include "core/log.h"
#include "core/mix64.h"
#include "sym/udwarf.h"
#include "sym/uelf.h"
#include "sym/ufile.h"
#include "sym/usym_priv.h"

#define USYM_LOADED_MAX 64	   /* files with symbols loaded at once */
#define USYM_VDSO_MAX	(1u << 20) /* a [vdso] larger than this is not read */
#define USYM_DEBUG_ROOT "/usr/lib/debug/.build-id"

static const char *refusal(int err)
{
	switch (err) {
	case -ELOOP:
		return "a symlink";
	case -EINVAL:
		return "not a regular file";
	case -EXDEV:
		return "on a FUSE or unknown mount";
	case -EACCES:
		return "owner or mode refused";
	case -ETIMEDOUT:
		return "its reads stalled (abandoned)";
	default:
		return strerror(-err);
	}
}

static bool is_refusal(int err)
{
	return err == -ELOOP || err == -EINVAL || err == -EXDEV || err == -EACCES ||
	       err == -ETIMEDOUT;
}

static int file_open(struct usym *u, struct usfile *f)
{
	struct ufile_want w = { .dev = f->dev, .ino = f->ino };
	int fd = ufile_open_mapped(u->proc, f->tgid, f->start, f->end, f->path, &w, NULL);

	if (fd < 0 && is_refusal(fd) && !f->refused) {
		f->refused = true;
		u->files_refused++;
		log_info("user symbols: %s of pid %u not read: %s", f->path, f->tgid, refusal(fd));
	}
	return fd;
}

uint32_t usym_file_get(struct usym *u, uint32_t tgid, const struct usym_map *m)
{
	uint64_t key = mix64(m->dev) ^ m->ino;
	uint32_t i = usym_idx(&u->filemap, key);
	struct usfile *f;
	int fd;

	/* a hash collision of two files: the later one is kept apart, unhashed */
	if (i != UINT32_MAX && u->files[i].dev == m->dev && u->files[i].ino == m->ino &&
	    !strcmp(u->files[i].path, m->path)) {
		f = &u->files[i];
		f->tgid = tgid; /* the newest process: the likeliest to live on */
		f->start = m->start;
		f->end = m->end;
		return i;
	}
	if (ARRAY_GROW(u->files, u->cfiles, u->nfiles + 1) < 0)
		return UINT32_MAX;
	f = &u->files[u->nfiles];
	memset(f, 0, sizeof(*f));
	f->dev = m->dev;
	f->ino = m->ino;
	f->tgid = tgid;
	f->start = m->start;
	f->end = m->end;
	f->fd = -1;
	f->path = strdup(m->path);
	if (!f->path)
		return UINT32_MAX;
	if (i == UINT32_MAX && hmap_put(&u->filemap, key, u->nfiles) < 0) {
		free(f->path);
		return UINT32_MAX;
	}
	/* now, while the process most likely lives */
	if (u->nfds < u->maxfds) {
		fd = file_open(u, f);
		if (fd >= 0) {
			f->fd = fd;
			u->nfds++;
		}
	}
	return (uint32_t)u->nfiles++;
}

/*
 * The [vdso] of @tgid: its code is in no file, so the image is copied from
 * the process's memory (at first sight: the process lives). Processes
 * share the kernel's few images (64-bit, x32, 32-bit): one kept per
 * content (compared byte for byte, a few KiB).
 */
uint32_t usym_vdso_get(struct usym *u, uint32_t tgid, const struct usym_map *m)
{
	size_t len = (size_t)(m->end - m->start), i;
	struct usfile *f;
	uint8_t *img;
	int64_t n;

	if (len > USYM_VDSO_MAX)
		return UINT32_MAX;
	/* by the reader: a process can hold the lock a read of its memory takes */
	img = malloc(len);
	n = img ? ufile_proc_read(u->proc, tgid, "mem", img, len, m->start) : -1;
	if (n != (int64_t)len) {
		free(img);
		return UINT32_MAX;
	}
	for (i = 0; i < u->nfiles; i++) {
		f = &u->files[i];
		if (f->vdso && f->len == len && !memcmp(f->image, img, len)) {
			free(img); /* the image seen already */
			return (uint32_t)i;
		}
	}
	if (ARRAY_GROW(u->files, u->cfiles, u->nfiles + 1) < 0) {
		free(img);
		return UINT32_MAX;
	}
	f = &u->files[u->nfiles];
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	f->path = strdup(m->path);
	f->tgid = tgid;
	f->vdso = true;
	f->len = len;
	f->image = img;
	if (!f->path) {
		free(img);
		return UINT32_MAX;
	}
	u->image_bytes += len;
	return (uint32_t)u->nfiles++;
}

static size_t dm_cost(const struct usfile *f)
{
	return hmap_bytes(&f->dm) + f->dmcap;
}

static void file_unload(struct usym *u, struct usfile *f)
{
	if (!f->elf)
		return;
	u->sym_bytes -= f->elf->bytes + dm_cost(f);
	uelf_free(f->elf);
	hmap_done(&f->dm);
	free(f->dmp);
	memset(&f->dm, 0, sizeof(f->dm));
	f->elf = NULL;
	f->dmp = NULL;
	f->dmlen = f->dmcap = 0;
	u->nloaded--;
}

/* the least recently used loaded table but @keep; false when none */
static bool evict_one(struct usym *u, const struct usfile *keep)
{
	struct usfile *old = NULL;
	size_t i;

	for (i = 0; i < u->nfiles; i++)
		if (u->files[i].elf && &u->files[i] != keep &&
		    (!old || u->files[i].used < old->used))
			old = &u->files[i];
	if (old)
		file_unload(u, old);
	return old != NULL;
}

/* the debug file of a build-id: under /usr/lib/debug/.build-id, root's alone */
int usym_debug_open(const uint8_t *bid, int len, void *ctx)
{
	struct usym *u = ctx;
	char path[sizeof(USYM_DEBUG_ROOT) + 160];
	int i, n;

	if (len < 2 || len > 64)
		return -ENOENT;
	n = snprintf(path, sizeof(path), USYM_DEBUG_ROOT "/%02x/", bid[0]);
	for (i = 1; i < len; i++)
		n += snprintf(path + n, sizeof(path) - (size_t)n, "%02x", bid[i]);
	snprintf(path + n, sizeof(path) - (size_t)n, ".debug");
	return ufile_open_at(u->proc, 0, path, UFILE_TRUSTED, NULL, NULL);
}

/* what the share leaves for one more table (0: no bound, the default cap) */
static size_t sym_budget(struct usym *u, const struct usfile *f)
{
	size_t mem;

	if (!u->limit)
		return 0;
	/* tables least recently used make room, down to half the share */
	while (usym_memory(u) > u->limit / 2 && evict_one(u, f))
		;
	mem = usym_memory(u);
	return u->limit > mem + 1 ? u->limit - mem : 1;
}

static bool file_load(struct usym *u, struct usfile *f)
{
	struct uelf_opts o = { .debug_open = usym_debug_open, .ctx = u };
	struct uelf_src src = { .fd = -1 };
	bool opened = false;
	int r;

	if (f->elf)
		return true;
	if (f->failed || f->refused)
		return false;
	if (u->nloaded >= USYM_LOADED_MAX)
		evict_one(u, f);
	if (f->vdso) {
		src.mem = f->image;
		src.size = f->len;
	} else {
		if (f->fd < 0) {
			f->fd = file_open(u, f);
			if (f->fd < 0) {
				f->failed = true;
				return false;
			}
			opened = true;
			u->nfds++;
		}
		src.fd = f->fd;
		if (ufile_size(f->fd, &src.size) < 0)
			src.size = 0;
	}
	o.budget = sym_budget(u, f);
	r = uelf_load(&src, &o, &f->elf);
	if (r == -E2BIG && u->limit && evict_one(u, f)) {
		while (evict_one(u, f))
			; /* every other table out: the whole share for this one */
		o.budget = sym_budget(u, f);
		r = uelf_load(&src, &o, &f->elf);
	}
	if (opened && u->nfds > u->maxfds / 2) {
		ufile_close(f->fd); /* opened again if ever needed */
		f->fd = -1;
		u->nfds--;
	}
	if (r < 0) {
		f->failed = true;
		if (r == -E2BIG) {
			u->files_big++;
			log_info(
				"user symbols: %s: larger than the symbolizer's share of --max-memory",
				f->path);
		} else if (r != -ENOEXEC) {
			log_info("user symbols: %s: %s", f->path, strerror(-r));
		}
		return false;
	}
	u->sym_bytes += f->elf->bytes;
	u->nloaded++;
	return true;
}

/* @s demangled (once; kept with the table within the share), not allocated */
static const char *sym_name(struct usym *u, struct usfile *f, const struct uelf_sym *s)
{
	const char *raw = f->elf->names + s->name;
	uint32_t idx = (uint32_t)(s - f->elf->syms), v = usym_idx(&f->dm, idx);
	size_t before, len;
	bool refused;
	char *d;

	if (v != UINT32_MAX)
		return v ? f->dmp + v - 1 : raw;
	d = usym_demangle_bounded(raw, &refused);
	if (!d)
		return raw;
	before = dm_cost(f);
	len = strlen(d);
	v = 0;
	if (strcmp(d, raw)) {
		size_t c = f->dmcap;

		while (f->dmlen + len + 1 > c)
			c = c ? c * 2 : 4096;
		if (c != f->dmcap && (!u->limit || usym_memory(u) + (c - f->dmcap) <= u->limit)) {
			char *np = realloc(f->dmp, c);

			if (np) {
				f->dmp = np;
				f->dmcap = c;
			}
		}
		if (f->dmlen + len + 1 > f->dmcap) {
			/* no room to keep it: shown this once, demangled again next time */
			static char once[USYM_DEMANGLE_MAX + 1];

			snprintf(once, sizeof(once), "%s", d);
			free(d);
			return once;
		}
		memcpy(f->dmp + f->dmlen, d, len + 1);
		v = (uint32_t)f->dmlen + 1;
		f->dmlen += len + 1;
	}
	free(d);
	if (refused)
		log_debug("user symbols: %.64s...: not demangled (over the bound)", raw);
	if (!u->limit || usym_memory(u) + 4096 <= u->limit)
		hmap_put(&f->dm, idx, v);
	u->sym_bytes += dm_cost(f) - before;
	return v ? f->dmp + v - 1 : raw;
}

char *usym_file_symbol(struct usym *u, uint32_t fi, uint64_t off, uint64_t *ret_symoff)
{
	struct usfile *f = &u->files[fi];
	const struct uelf_sym *s;
	uint64_t vaddr, start;

	*ret_symoff = 0;
	if (!file_load(u, f))
		return NULL;
	f->used = ++u->clock;
	if (uelf_vaddr(f->elf, off, &vaddr) < 0)
		return NULL;
	s = uelf_find(f->elf, vaddr);
	if (!s) {
		/* no symbol: its function's start from the unwind tables, if known */
		if (uelf_func_start(f->elf, vaddr, &start) == 0)
			*ret_symoff = vaddr - start;
		return NULL;
	}
	*ret_symoff = vaddr - s->start;
	return strdup(sym_name(u, f, s));
}

bool usym_file_load(struct usym *u, uint32_t fi)
{
	return file_load(u, &u->files[fi]);
}

int usym_file_open(struct usym *u, uint32_t fi)
{
	return file_open(u, &u->files[fi]);
}

const char *usym_file_path(const struct usym *u, uint32_t fi)
{
	return u->files[fi].path;
}

void usym_files_free(struct usym *u)
{
	size_t i;

	for (i = 0; i < u->nfiles; i++) {
		file_unload(u, &u->files[i]);
		udwarf_free(u->files[i].dw);
		if (u->files[i].fd >= 0)
			ufile_close(u->files[i].fd);
		free(u->files[i].path);
		free(u->files[i].image);
	}
	free(u->files);
	hmap_done(&u->filemap);
}
