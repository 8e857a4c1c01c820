// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * usym_kernel.c - the source lines of kernel frames from a vmlinux with
 * DWARF (--vmlinux FILE; usym.h): the file read as every other file is
 * (ufile.h: a regular file, no symlink, through the reader), its DWARF
 * into memory within the symbolizer's share (udwarf.c), its function
 * symbols to place it (the running kernel is relocated by KASLR: the
 * offset is a function's address in kallsyms less its address in the
 * file). A kernel address's line is looked up once and kept.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/format.h"
#include "core/log.h"
#include "core/mix64.h"
#include "sym/udwarf.h"
#include "sym/uelf.h"
#include "sym/ufile.h"
#include "sym/usym_priv.h"

#define KLINES_MAX (1u << 20) /* kernel addresses whose line is kept */

int usym_set_vmlinux(struct usym *u, const char *path, char *err, size_t errsz)
{
	struct uelf_opts o = { .budget = 256u << 20 };
	struct ufile_stat st;
	struct uelf_src src = { .fd = -1 };
	size_t budget = u->limit ? u->limit / 2 : 512u << 20;
	int fd, r;

	fd = ufile_open_at(u->proc[0] ? u->proc : "/proc", 0, path, 0, NULL, &st);
	if (fd < 0)
		return fmt_error(err, errsz, fd, "--vmlinux %s: %s", path, strerror(-fd));
	src.fd = fd;
	src.size = st.size;
	r = uelf_load(&src, &o, &u->kelf);
	if (r == 0)
		r = udwarf_open(&src, budget, &u->kdw);
	ufile_close(fd);
	if (r < 0) {
		uelf_free(u->kelf);
		u->kelf = NULL;
		return fmt_error(err, errsz, r, "--vmlinux %s: %s", path,
				 r == -ENOENT ? "no DWARF (.debug_info, .debug_line) in it"
				 : r == -E2BIG
					 ? "its DWARF is larger than the share of --max-memory "
					   "it may take (half of the symbolizer's quarter)"
				 : r == -ENOEXEC ? "not a 64-bit ELF file with DWARF stacktop reads"
						 : strerror(-r));
	}
	u->dw_bytes += udwarf_bytes(u->kdw) + u->kelf->bytes;
	log_info("--vmlinux %s: %zu bytes of DWARF", path, udwarf_bytes(u->kdw));
	return 0;
}

int usym_vmlinux_addr(const struct usym *u, const char *name, uint64_t *ret)
{
	size_t i;

	for (i = 0; u->kelf && i < u->kelf->nsyms; i++)
		if (!strcmp(u->kelf->names + u->kelf->syms[i].name, name)) {
			*ret = u->kelf->syms[i].start;
			return 0;
		}
	return -ENOENT;
}

void usym_set_kernel_offset(struct usym *u, uint64_t offset)
{
	u->koffset = offset;
}

bool usym_has_vmlinux(const struct usym *u)
{
	return u && u->kdw;
}

int usym_kernel_srcline(struct usym *u, uint64_t ip, bool ret, char *buf, size_t size, bool full)
{
	struct udwarf_frame fr[UDWARF_FRAMES_MAX];
	uint64_t key = mix64(ip) ^ ret, v;
	const char *src, *slash;
	char text[600];
	unsigned int n;

	if (size)
		buf[0] = '\0';
	if (!u || !u->kdw)
		return 0;
	if (!hmap_get(&u->klines, key, &v)) {
		size_t held = udwarf_bytes(u->kdw);
		uint64_t at = ip - u->koffset - (ret ? 1 : 0);

		n = udwarf_frames(u->kdw, at, fr, UDWARF_FRAMES_MAX);
		u->dw_bytes += udwarf_bytes(u->kdw) - held;
		/* the line in the function the code was compiled in (the last frame's) */
		v = 0;
		if (n && (fr[n - 1].file || fr[n - 1].line) && hmap_len(&u->klines) < KLINES_MAX) {
			char *dup;

			snprintf(text, sizeof(text), "%s:%u",
				 fr[n - 1].file ? fr[n - 1].file : "??", fr[n - 1].line);
			dup = strdup(text);
			if (dup) {
				u->dw_bytes += strlen(dup) + 1;
				v = (uint64_t)(uintptr_t)dup;
			}
		}
		if (hmap_put(&u->klines, key, v) < 0 && v) {
			free((char *)(uintptr_t)v);
			v = 0;
		}
	}
	if (!v)
		return 0;
	src = (const char *)(uintptr_t)v;
	slash = full ? NULL : strrchr(src, '/');
	return (int)fmt_sanitize(buf, size, slash ? slash + 1 : src,
				 strlen(slash ? slash + 1 : src));
}

void usym_kernel_free(struct usym *u)
{
	size_t i;

	for (i = 0; i < u->klines.cap; i++)
		if (u->klines.keys && u->klines.keys[i] && u->klines.vals[i])
			free((char *)(uintptr_t)u->klines.vals[i]);
	hmap_done(&u->klines);
	udwarf_free(u->kdw);
	uelf_free(u->kelf);
	u->kdw = NULL;
	u->kelf = NULL;
}
