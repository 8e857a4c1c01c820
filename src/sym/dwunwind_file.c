// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * dwunwind_file.c - the unwind tables of the files a process mapped, for
 * dwunwind.c: each file opened as a hostile file (ufile_open_mapped(): the
 * very file mapped, by /proc/PID/map_files, else by name with its device
 * and inode checked; no FIFO, device, symlink or FUSE mount) and the part
 * libunwind reads (.eh_frame_hdr to the end of .eh_frame) read into memory
 * with pread, before libunwind asks: never mapped (a file truncated by its
 * owner would be SIGBUS) and never from an accessor (libunwind runs them
 * under a lock that blocks every signal). Kept in a small cache, least
 * recently used out past dwunwind_set_limit().
 */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sym/dwunwind_file.h"
#include "sym/ufile.h"

#define PHNUM_MAX 1024
#define SHNUM_MAX 65536
#define SHSTR_MAX (1u << 20)

static size_t file_cost(const struct uwfile *f)
{
	return (f->image ? 0 : f->win_len) + f->phnum * sizeof(*f->phdr);
}

static void file_close(struct uwfiles *fs, struct uwfile *f)
{
	fs->bytes -= file_cost(f);
	if (!f->image)
		free(f->win);
	free(f->phdr);
	memset(f, 0, sizeof(*f));
}

static uint64_t enc_size(uint8_t enc)
{
	switch (enc & 0x0f) {
	case 0x00:
		return 8; /* absptr */
	case 0x02:
	case 0x0a:
		return 2;
	case 0x03:
	case 0x0b:
		return 4;
	case 0x04:
	case 0x0c:
		return 8;
	default:
		return 0;
	}
}

bool dw_file_vaddr_off(const struct uwfile *f, uint64_t vaddr, uint64_t *off)
{
	unsigned int i;

	for (i = 0; i < f->phnum; i++) {
		const Elf64_Phdr *p = &f->phdr[i];

		if (p->p_type == PT_LOAD && vaddr >= p->p_vaddr &&
		    vaddr < p->p_vaddr + p->p_filesz) {
			*off = p->p_offset + (vaddr - p->p_vaddr);
			return true;
		}
	}
	return false;
}

const uint8_t *dw_win_at(const struct uwfile *f, uint64_t off, uint64_t len)
{
	if (!f || off < f->win_off || off - f->win_off > f->win_len ||
	    f->win_len - (off - f->win_off) < len)
		return NULL;
	return f->win + (off - f->win_off);
}

/* .eh_frame_hdr of @gnu (PT_GNU_EH_FRAME), from the bytes read */
static void file_parse_hdr(struct uwfile *f, const Elf64_Phdr *gnu)
{
	const uint8_t *h = dw_win_at(f, gnu->p_offset, 4 + 16);
	uint64_t off, n, pos;
	uint32_t cnt;

	/* version 1; the table must be datarel|sdata4 pairs for a binary search */
	if (!h || gnu->p_filesz < 4 + 16 || h[0] != 1 || h[3] != 0x3b)
		return;
	n = enc_size(h[1]);
	pos = 4 + n;
	if (!n || enc_size(h[2]) != 4 || pos + 4 > gnu->p_filesz ||
	    !dw_win_at(f, gnu->p_offset, pos + 4))
		return;
	memcpy(&cnt, h + pos, 4);
	n = cnt;
	pos += 4;
	if (n == 0 || n > (gnu->p_filesz - pos) / 8 || !dw_win_at(f, gnu->p_offset + pos, n * 8))
		return;
	f->hdr_vaddr = gnu->p_vaddr;
	f->table_vaddr = gnu->p_vaddr + pos;
	f->table_off = gnu->p_offset + pos;
	f->fde_count = n;
	f->have_hdr = dw_file_vaddr_off(f, gnu->p_vaddr, &off);
}

static bool ehdr_ok(const Elf64_Ehdr *eh, uint64_t size)
{
	return !memcmp(eh->e_ident, ELFMAG, SELFMAG) && eh->e_ident[EI_CLASS] == ELFCLASS64 &&
	       eh->e_ident[EI_DATA] == ELFDATA2LSB && eh->e_machine == EM_X86_64 &&
	       eh->e_phentsize == sizeof(Elf64_Phdr) && eh->e_phnum <= PHNUM_MAX &&
	       eh->e_phoff <= size &&
	       (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) <= size - eh->e_phoff;
}

/*
 * Where .eh_frame lies, from the section headers: [*lo, *hi) grows to hold
 * it. No section headers (stripped of them): the rest of the segment
 * holding .eh_frame_hdr, as linkers place .eh_frame right after it.
 */
static void eh_frame_range(int fd, const Elf64_Ehdr *eh, uint64_t size, uint64_t *lo, uint64_t *hi)
{
	Elf64_Shdr *sh = NULL, *str;
	unsigned int n = eh->e_shnum, i;
	char *names = NULL;

	if (eh->e_shentsize != sizeof(Elf64_Shdr) || !n || n > SHNUM_MAX || eh->e_shoff > size ||
	    (uint64_t)n * sizeof(*sh) > size - eh->e_shoff || eh->e_shstrndx >= n)
		return;
	sh = ufile_read(fd, eh->e_shoff, n * sizeof(*sh));
	if (!sh)
		return;
	str = &sh[eh->e_shstrndx];
	if (str->sh_size <= SHSTR_MAX && str->sh_offset <= size &&
	    str->sh_size <= size - str->sh_offset) {
		names = malloc((size_t)str->sh_size + 1);
		if (names && ufile_pread(fd, names, (size_t)str->sh_size, str->sh_offset) < 0) {
			free(names);
			names = NULL;
		}
		if (names)
			names[str->sh_size] = '\0';
	}
	for (i = 0; names && i < n; i++) {
		if (sh[i].sh_type != SHT_PROGBITS || sh[i].sh_name >= str->sh_size ||
		    strcmp(names + sh[i].sh_name, ".eh_frame") || sh[i].sh_offset > size ||
		    sh[i].sh_size > size - sh[i].sh_offset)
			continue;
		if (sh[i].sh_offset < *lo)
			*lo = sh[i].sh_offset;
		if (sh[i].sh_offset + sh[i].sh_size > *hi)
			*hi = sh[i].sh_offset + sh[i].sh_size;
	}
	free(names);
	free(sh);
}

/* the unwind tables of the file @m maps, read now (not under libunwind's lock) */
static void file_read(struct uwfiles *fs, struct uwfile *f, const struct umap *m, uint32_t pid)
{
	struct ufile_want w = { .dev = m->dev, .ino = m->ino };
	const Elf64_Phdr *gnu = NULL;
	struct ufile_stat st;
	uint64_t lo, hi;
	Elf64_Ehdr eh;
	unsigned int i;
	int fd;

	f->failed = true; /* until read: a missing file costs once */
	fd = ufile_open_mapped("/proc", pid, m->start, m->end, m->path, &w, &st);
	if (fd < 0)
		return;
	if (ufile_pread(fd, &eh, sizeof(eh), 0) < 0 || !ehdr_ok(&eh, st.size))
		goto out;
	f->phdr = ufile_read(fd, eh.e_phoff, eh.e_phnum * sizeof(Elf64_Phdr));
	if (!f->phdr)
		goto out;
	f->phnum = eh.e_phnum;
	f->elf_ok = true;
	fs->bytes += file_cost(f);
	for (i = 0; i < f->phnum; i++)
		if (f->phdr[i].p_type == PT_GNU_EH_FRAME)
			gnu = &f->phdr[i];
	if (!gnu || gnu->p_offset > st.size || gnu->p_filesz > st.size - gnu->p_offset) {
		f->failed = false; /* an ELF file without a table: known, no info */
		goto out;
	}
	lo = gnu->p_offset;
	hi = gnu->p_offset + gnu->p_filesz;
	eh_frame_range(fd, &eh, st.size, &lo, &hi);
	if (hi == gnu->p_offset + gnu->p_filesz) {
		/* no section headers: to the end of the segment holding the header */
		for (i = 0; i < f->phnum; i++) {
			const Elf64_Phdr *p = &f->phdr[i];

			if (p->p_type == PT_LOAD && lo >= p->p_offset &&
			    lo - p->p_offset < p->p_filesz && p->p_offset + p->p_filesz <= st.size)
				hi = p->p_offset + p->p_filesz;
		}
	}
	/* larger than the bound: the least recently used go; too large alone: none */
	if (hi - lo > fs->limit)
		goto out;
	while (fs->bytes + (hi - lo) > fs->limit) {
		struct uwfile *old = NULL;
		int k;

		for (k = 0; k < DW_NFILES; k++)
			if (&fs->f[k] != f && (fs->f[k].win || fs->f[k].phdr) && !fs->f[k].image &&
			    (!old || fs->f[k].stamp < old->stamp))
				old = &fs->f[k];
		if (!old)
			goto out;
		file_close(fs, old);
	}
	f->win = ufile_read(fd, lo, (size_t)(hi - lo));
	if (!f->win)
		goto out;
	f->win_off = lo;
	f->win_len = (size_t)(hi - lo);
	fs->bytes += f->win_len;
	file_parse_hdr(f, gnu);
	f->failed = false;
out:
	ufile_close(fd);
}

/* an image (the [vdso]): a copy of memory, offsets in it are offsets in the mapping */
static void image_read(struct uwfiles *fs, struct uwfile *f, const struct umap *m)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)m->image;
	unsigned int i;

	f->image = m->image;
	f->win = (uint8_t *)m->image;
	f->win_len = m->image_size;
	if (m->image_size < sizeof(*eh) || !ehdr_ok(eh, m->image_size))
		return;
	f->phdr = malloc(eh->e_phnum * sizeof(Elf64_Phdr));
	if (!f->phdr)
		return;
	memcpy(f->phdr, m->image + eh->e_phoff, eh->e_phnum * sizeof(Elf64_Phdr));
	f->phnum = eh->e_phnum;
	f->elf_ok = true;
	fs->bytes += file_cost(f);
	for (i = 0; i < f->phnum; i++)
		if (f->phdr[i].p_type == PT_GNU_EH_FRAME)
			file_parse_hdr(f, &f->phdr[i]);
}

struct uwfile *dw_file_find(struct uwfiles *fs, const struct umap *m)
{
	int i;

	for (i = 0; i < DW_NFILES; i++) {
		struct uwfile *f = &fs->f[i];

		if (m->image ? f->image == m->image
			     : !f->image && f->dev == m->dev && f->ino == m->ino &&
				       (f->win || f->phdr || f->failed)) {
			f->stamp = ++fs->clock;
			return f;
		}
	}
	return NULL;
}

struct uwfile *dw_file_get(struct uwfiles *fs, const struct umap *m, uint32_t pid)
{
	struct uwfile *f = dw_file_find(fs, m), *victim = &fs->f[0];
	int i;

	if (f)
		return f;
	for (i = 0; i < DW_NFILES; i++) {
		f = &fs->f[i];
		if (!f->win && !f->phdr && !f->failed) {
			victim = f;
			break;
		}
		if (f->stamp < victim->stamp)
			victim = f;
	}
	f = victim;
	file_close(fs, f);
	f->stamp = ++fs->clock;
	if (m->image) {
		image_read(fs, f, m);
	} else {
		f->dev = m->dev;
		f->ino = m->ino;
		file_read(fs, f, m, pid);
	}
	return f;
}

void dw_files_drop(struct uwfiles *fs)
{
	int i;

	for (i = 0; i < DW_NFILES; i++)
		file_close(fs, &fs->f[i]);
}

/*
 * The FDE libunwind would take for @ip, found by the same binary search of
 * the .eh_frame_hdr table as dwarf_search_unwind_table() (the last entry
 * at or below @ip), checked by cfi_scan_fde() before libunwind parses and
 * runs it. CFI_OK when there is none: libunwind finds none either.
 */
enum cfi_verdict dw_file_check_fde(const struct uwfile *f, uint64_t bias, uint64_t ip)
{
	const uint8_t *t = dw_win_at(f, f->table_off, f->fde_count * 8);
	int64_t rel = (int64_t)(ip - bias - f->hdr_vaddr);
	uint64_t lo = 0, hi = f->fde_count, off;
	int32_t loc, fde;

	if (!t || !f->fde_count)
		return CFI_OK;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		memcpy(&loc, t + mid * 8, 4);
		if (rel < loc)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (!hi)
		return CFI_OK;
	memcpy(&fde, t + (hi - 1) * 8 + 4, 4);
	/* an FDE outside the bytes read could not be read by libunwind either */
	if (!dw_file_vaddr_off(f, f->hdr_vaddr + (uint64_t)(int64_t)fde, &off) ||
	    off < f->win_off || off - f->win_off >= f->win_len)
		return CFI_MALFORMED;
	return cfi_scan_fde(f->win, f->win_len, (size_t)(off - f->win_off));
}
