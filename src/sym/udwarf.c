// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * udwarf.c - inlined calls and source lines from a file's DWARF through
 * libdw, the file read by ufile's calls into an image of its debug
 * sections (see udwarf.h).
 *
 * The image is an ELF64 file of those sections alone: the ELF header, the
 * sections' bytes as the file has them (compressed ones too: libdw inflates
 * them, after their declared size was checked here), their names and the
 * section headers. The addresses in the DWARF are the file's own (a
 * separate debug file keeps the binary's), so a lookup is by ELF virtual
 * address.
 *
 * A lookup: the compile unit holding the address (.debug_aranges, else a
 * table of every unit's ranges made at the first lookup that needs it),
 * dwarf_getscopes() for the scopes from the innermost out; each inlined
 * subroutine is a frame, the subprogram the last one. The innermost
 * frame's line is the address's (the line table); each outer frame's is
 * the call site of the frame inside it (DW_AT_call_file, DW_AT_call_line).
 * A unit's line table, once libdw built it, is counted against the budget
 * (its rows, at what libdw keeps per row); past the budget a lookup gives
 * nothing more.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <elf.h>

#include "core/array.h"
#include "core/hmap.h"
#include "sym/udwarf.h"
#include "sym/uelf.h"
#include "sym/ufile.h"

#define UDW_SECS_MAX   24	  /* debug sections taken into the image */
#define UDW_RANGES_MAX (1u << 20) /* units' ranges, without .debug_aranges */
#define UDW_LINE_COST  64	  /* bytes libdw keeps for a row of a line table, about */
#define UDW_CHUNK      (1u << 20) /* bytes read at a time for the CRC */
#define UDW_LINK_MAX   256	  /* a debuglink section's bytes at most */

/* the sections libdw needs for lines and scopes (".debug_" or ".zdebug_" then this) */
static const char *const wanted[] = { "info",	"abbrev",   "line",    "str",  "line_str",
				      "ranges", "rnglists", "aranges", "addr", "str_offsets" };

static bool want_debug(const char *name)
{
	const char *rest;
	size_t i;

	if (!strncmp(name, ".debug_", 7))
		rest = name + 7;
	else if (!strncmp(name, ".zdebug_", 8))
		rest = name + 8;
	else
		return false;
	for (i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++)
		if (!strcmp(rest, wanted[i]))
			return true;
	return false;
}

static bool want_link(const char *name)
{
	return !strcmp(name, ".gnu_debuglink");
}

/* @len bytes of @src at @off into @buf */
static int src_pread(const struct uelf_src *src, void *buf, size_t len, uint64_t off)
{
	if (off > src->size || len > src->size - off)
		return -ENOEXEC;
	if (src->mem) {
		memcpy(buf, src->mem + off, len);
		return 0;
	}
	return ufile_pread(src->fd, buf, len, off);
}

static bool sec_is(const struct uelf_sec *s, const char *what)
{
	const char *rest = !strncmp(s->name, ".zdebug_", 8) ? s->name + 8 : s->name + 7;

	return !strcmp(rest, what);
}

bool udwarf_has_debug(const struct uelf_src *src)
{
	struct uelf_sec secs[UDW_SECS_MAX];
	struct uelf_info info;
	bool info_sec = false, line = false;
	int n = uelf_sections(src, want_debug, secs, UDW_SECS_MAX, &info), i;

	for (i = 0; i < n; i++) {
		info_sec |= sec_is(&secs[i], "info") && secs[i].size;
		line |= sec_is(&secs[i], "line") && secs[i].size;
	}
	return info_sec && line;
}

int udwarf_debuglink(const struct uelf_src *src, char *name, size_t size, uint32_t *crc)
{
	struct uelf_sec sec;
	struct uelf_info info;
	char buf[UDW_LINK_MAX];
	size_t len, at;

	if (uelf_sections(src, want_link, &sec, 1, &info) != 1 || sec.size < 6 ||
	    sec.size > sizeof(buf))
		return -ENOENT;
	if (src_pread(src, buf, (size_t)sec.size, sec.offset) < 0)
		return -ENOENT;
	len = strnlen(buf, (size_t)sec.size);
	/* the name, NUL, padding to 4, the CRC */
	at = (len + 4) & ~(size_t)3;
	if (!len || len >= size || at + 4 > sec.size || memchr(buf, '/', len) ||
	    !strcmp(buf, ".") || !strcmp(buf, ".."))
		return -ENOENT;
	memcpy(name, buf, len + 1);
	memcpy(crc, buf + at, 4);
	return 0;
}

/* the CRC-32 of GNU debuglink (zlib's polynomial) over @len bytes, from @crc */
static uint32_t crc32_add(uint32_t crc, const uint8_t *p, size_t len)
{
	static uint32_t table[256];
	size_t i;

	if (!table[1]) {
		for (i = 0; i < 256; i++) {
			uint32_t c = (uint32_t)i;
			int k;

			for (k = 0; k < 8; k++)
				c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
			table[i] = c;
		}
	}
	crc = ~crc;
	for (i = 0; i < len; i++)
		crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
	return ~crc;
}

int udwarf_crc32(const struct uelf_src *src, uint32_t *crc)
{
	uint8_t *buf = malloc(UDW_CHUNK);
	uint64_t off = 0;
	uint32_t c = 0;
	int r = 0;

	if (!buf)
		return -ENOMEM;
	while (off < src->size) {
		size_t n = src->size - off < UDW_CHUNK ? (size_t)(src->size - off) : UDW_CHUNK;

		r = src_pread(src, buf, n, off);
		if (r < 0)
			break;
		c = crc32_add(c, buf, n);
		off += n;
	}
	free(buf);
	*crc = c;
	return r;
}

#if STACKTOP_HAVE_LIBDW
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>

/* a unit's address range, for files without .debug_aranges */
struct urange {
	uint64_t lo, hi;
	uint64_t cu; /* the unit's DIE offset */
};

struct udwarf {
	uint8_t *img;
	size_t len;
	Elf *elf;
	Dwarf *dw;
	size_t bytes, budget;
	struct hmap units; /* units whose line table is counted: DIE offset + 1 -> 1 */
	struct urange *ranges;
	size_t nranges, cranges;
	bool ranges_made;
	bool full; /* the budget is spent: no lookup any more */
};

/*
 * The size a section takes once libdw inflated it, from its header: an
 * ELF compression header (SHF_COMPRESSED, zlib only) or a .zdebug's "ZLIB"
 * and a big-endian size; the size as it is otherwise. 0: not readable.
 */
static uint64_t sec_inflated(const struct uelf_src *src, const struct uelf_sec *s)
{
	uint8_t h[sizeof(Elf64_Chdr)];
	uint64_t sz = 0;
	int i;

	if (!(s->flags & SHF_COMPRESSED) && strncmp(s->name, ".zdebug_", 8))
		return s->size;
	if (s->size < sizeof(h) || src_pread(src, h, sizeof(h), s->offset) < 0)
		return 0;
	if (s->flags & SHF_COMPRESSED) {
		Elf64_Chdr ch;

		memcpy(&ch, h, sizeof(ch));
		return ch.ch_type == ELFCOMPRESS_ZLIB ? ch.ch_size : 0;
	}
	if (memcmp(h, "ZLIB", 4))
		return 0;
	for (i = 4; i < 12; i++)
		sz = sz << 8 | h[i];
	return sz;
}

static size_t align_up(size_t v, size_t a)
{
	return (v + a - 1) & ~(a - 1);
}

/* the image: the ELF header, each section's bytes, their names, the section headers */
static int image_make(struct udwarf *d, const struct uelf_src *src, const struct uelf_sec *secs,
		      int n, const struct uelf_info *info)
{
	size_t names = 1 + sizeof(".shstrtab"), off = sizeof(Elf64_Ehdr), shoff, i;
	uint64_t offs[UDW_SECS_MAX];
	Elf64_Ehdr *eh;
	Elf64_Shdr *sh;
	char *strs;
	int r;

	for (i = 0; i < (size_t)n; i++) {
		off = align_up(off, 8);
		offs[i] = off;
		off += (size_t)secs[i].size;
		names += strlen(secs[i].name) + 1;
	}
	shoff = align_up(off + names, 8);
	d->len = shoff + ((size_t)n + 2) * sizeof(Elf64_Shdr);
	if (d->len > d->budget)
		return -E2BIG;
	d->img = calloc(1, d->len);
	if (!d->img)
		return -ENOMEM;
	for (i = 0; i < (size_t)n; i++) {
		r = src_pread(src, d->img + offs[i], (size_t)secs[i].size, secs[i].offset);
		if (r < 0)
			return r;
	}
	eh = (Elf64_Ehdr *)(void *)d->img;
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = info->type == ET_REL ? ET_DYN : info->type; /* no relocations */
	eh->e_machine = info->machine;
	eh->e_version = EV_CURRENT;
	eh->e_ehsize = sizeof(Elf64_Ehdr);
	eh->e_shentsize = sizeof(Elf64_Shdr);
	eh->e_shoff = shoff;
	eh->e_shnum = (uint16_t)(n + 2);
	eh->e_shstrndx = (uint16_t)(n + 1);
	strs = (char *)d->img + off;
	sh = (Elf64_Shdr *)(void *)(d->img + shoff);
	names = 1;
	for (i = 0; i < (size_t)n; i++) {
		Elf64_Shdr *s = &sh[i + 1];

		s->sh_name = (uint32_t)names;
		names += (size_t)sprintf(strs + names, "%s", secs[i].name) + 1;
		s->sh_type = SHT_PROGBITS;
		s->sh_flags = secs[i].flags & (SHF_COMPRESSED | SHF_MERGE | SHF_STRINGS);
		s->sh_offset = offs[i];
		s->sh_size = secs[i].size;
		s->sh_addralign = 1;
		s->sh_entsize = secs[i].entsize;
	}
	sh[n + 1].sh_name = (uint32_t)names;
	sprintf(strs + names, ".shstrtab");
	sh[n + 1].sh_type = SHT_STRTAB;
	sh[n + 1].sh_offset = off;
	sh[n + 1].sh_size = names + sizeof(".shstrtab");
	sh[n + 1].sh_addralign = 1;
	return 0;
}

uint64_t udwarf_size(const struct uelf_src *src)
{
	struct uelf_sec secs[UDW_SECS_MAX];
	struct uelf_info info;
	uint64_t sum = 0;
	int n = uelf_sections(src, want_debug, secs, UDW_SECS_MAX, &info), i;

	for (i = 0; i < n; i++)
		sum += sec_inflated(src, &secs[i]);
	return n > 0 ? sum : 0;
}

int udwarf_open(const struct uelf_src *src, size_t budget, struct udwarf **ret)
{
	struct uelf_sec secs[UDW_SECS_MAX];
	struct uelf_info info;
	struct udwarf *d;
	uint64_t inflated = 0, sz;
	bool info_sec = false, line = false;
	int n, i, r;

	*ret = NULL;
	n = uelf_sections(src, want_debug, secs, UDW_SECS_MAX, &info);
	if (n < 0)
		return n;
	for (i = 0; i < n; i++) {
		info_sec |= sec_is(&secs[i], "info") && secs[i].size;
		line |= sec_is(&secs[i], "line") && secs[i].size;
	}
	if (!info_sec || !line)
		return -ENOENT;
	if (!info.is64)
		return -ENOEXEC; /* the image is an ELF64 file; x86_64 only here */
	for (i = 0; i < n; i++) {
		sz = sec_inflated(src, &secs[i]);
		if (!sz && secs[i].size)
			return -ENOEXEC; /* compressed otherwise than with zlib, or damaged */
		inflated += sz;
		if (inflated > budget)
			return -E2BIG; /* before anything is read or inflated */
	}
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->budget = budget;
	hmap_init(&d->units);
	r = image_make(d, src, secs, n, &info);
	if (r < 0)
		goto fail;
	d->bytes = d->len + (size_t)inflated;
	if (d->bytes > budget) {
		r = -E2BIG;
		goto fail;
	}
	elf_version(EV_CURRENT);
	d->elf = elf_memory((char *)d->img, d->len);
	d->dw = d->elf ? dwarf_begin_elf(d->elf, DWARF_C_READ, NULL) : NULL;
	if (!d->dw) {
		r = -ENOEXEC;
		goto fail;
	}
	*ret = d;
	return 0;
fail:
	udwarf_free(d);
	return r;
}

static int range_cmp(const void *pa, const void *pb)
{
	const struct urange *a = pa, *b = pb;

	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* without .debug_aranges: every unit's ranges, sorted (once) */
static void ranges_make(struct udwarf *d)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	d->ranges_made = true;
	while (dwarf_nextcu(d->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Addr base, lo, hi;
		Dwarf_Die cu;
		ptrdiff_t o = 0;

		if (dwarf_offdie(d->dw, off + hsize, &cu)) {
			while ((o = dwarf_ranges(&cu, o, &base, &lo, &hi)) > 0) {
				if (d->nranges >= UDW_RANGES_MAX ||
				    ARRAY_GROW(d->ranges, d->cranges, d->nranges + 1) < 0)
					goto done;
				d->ranges[d->nranges++] = (struct urange){ lo, hi, off + hsize };
			}
		}
		off = next;
	}
done:
	if (d->nranges)
		qsort(d->ranges, d->nranges, sizeof(*d->ranges), range_cmp);
	d->bytes += d->cranges * sizeof(*d->ranges);
}

/* the unit holding @vaddr into @cu */
static bool unit_of(struct udwarf *d, uint64_t vaddr, Dwarf_Die *cu)
{
	size_t lo = 0, hi, i;

	if (dwarf_addrdie(d->dw, vaddr, cu))
		return true;
	if (!d->ranges_made)
		ranges_make(d);
	hi = d->nranges;
	while (lo < hi) { /* the first range starting above @vaddr */
		size_t mid = lo + (hi - lo) / 2;

		if (d->ranges[mid].lo <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* ranges may nest or overlap: a few before it */
	for (i = lo; i-- > 0 && lo - i <= 16;)
		if (vaddr < d->ranges[i].hi)
			return dwarf_offdie(d->dw, d->ranges[i].cu, cu) != NULL;
	return false;
}

/*
 * a unit's line table counted once (*@ok: it could be read); false when it
 * does not fit the budget. A table libdw could not read is not asked for
 * again: libdw 0.188 does not keep the failure, reads it again at each
 * lookup, and leaks what it allocated on the way each time.
 */
static bool unit_lines(struct udwarf *d, Dwarf_Die *cu, bool *ok)
{
	uint64_t key = dwarf_dieoffset(cu) + 1, v;
	Dwarf_Lines *lines;
	size_t n = 0;

	if (hmap_get(&d->units, key, &v)) {
		*ok = v == 1;
		return true;
	}
	*ok = dwarf_getsrclines(cu, &lines, &n) == 0;
	if (!*ok)
		n = 0;
	d->bytes += n * UDW_LINE_COST + 64;
	if (hmap_put(&d->units, key, *ok ? 1 : 2) < 0)
		return false;
	return d->bytes <= d->budget;
}

/* a DIE's name: the linkage name (its qualified form, demangled later) or the plain one */
static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *s;

	if ((dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
	     dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a)) &&
	    (s = dwarf_formstring(&a)) != NULL)
		return s;
	if (dwarf_attr_integrate(die, DW_AT_name, &a) && (s = dwarf_formstring(&a)) != NULL)
		return s;
	return NULL;
}

/* where the inlined call @die was made: its file and line */
static void call_site(Dwarf_Die *die, Dwarf_Files *files, size_t nfiles, const char **file,
		      unsigned int *line)
{
	Dwarf_Attribute a;
	Dwarf_Word w;

	*file = NULL;
	*line = 0;
	if (dwarf_attr(die, DW_AT_call_line, &a) && dwarf_formudata(&a, &w) == 0)
		*line = w > UINT32_MAX ? 0 : (unsigned int)w;
	if (files && dwarf_attr(die, DW_AT_call_file, &a) && dwarf_formudata(&a, &w) == 0 &&
	    w < nfiles)
		*file = dwarf_filesrc(files, (size_t)w, NULL, NULL);
}

/* the file and line of the code at @vaddr, from the unit's line table */
static void addr_line(Dwarf_Die *cu, uint64_t vaddr, struct udwarf_frame *f)
{
	Dwarf_Line *l = dwarf_getsrc_die(cu, vaddr);
	int ln = 0;

	f->file = l ? dwarf_linesrc(l, NULL, NULL) : NULL;
	f->line = l && dwarf_lineno(l, &ln) == 0 && ln > 0 ? (unsigned int)ln : 0;
}

unsigned int udwarf_frames(struct udwarf *d, uint64_t vaddr, struct udwarf_frame *ret,
			   unsigned int max)
{
	Dwarf_Die cu, *scopes = NULL;
	Dwarf_Files *files = NULL;
	size_t nfiles = 0;
	unsigned int k = 0;
	bool lines;
	int n, i;

	if (!d || d->full || !max)
		return 0;
	if (!unit_of(d, vaddr, &cu))
		return 0;
	if (!unit_lines(d, &cu, &lines)) {
		d->full = true; /* what libdw holds passed the budget: no more lookups */
		return 0;
	}
	if (!lines || dwarf_getsrcfiles(&cu, &files, &nfiles) < 0)
		files = NULL;
	/*
	 * The innermost scope at the address, then the scopes that contain it
	 * in the tree (dwarf_getscopes() would go on through the inlined
	 * function's abstract definition instead): as elfutils' addr2line -i
	 */
	n = dwarf_getscopes(&cu, vaddr, &scopes);
	if (n > 0) {
		Dwarf_Die inner;
		Dwarf_Off off = dwarf_dieoffset(&scopes[0]);

		free(scopes);
		scopes = NULL;
		n = dwarf_offdie(d->dw, off, &inner) ? dwarf_getscopes_die(&inner, &scopes) : 0;
	}
	/* innermost first: each inlined call, then the function it was inlined into */
	for (i = 0; i < n && k < max; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram &&
		    tag != DW_TAG_entry_point)
			continue;
		/* the innermost frame's line is the address's; an outer one's, set below */
		if (k == 0) {
			ret[0].file = NULL;
			ret[0].line = 0;
			if (lines)
				addr_line(&cu, vaddr, &ret[0]);
		}
		ret[k].name = die_name(&scopes[i]);
		ret[k].inlined = tag == DW_TAG_inlined_subroutine;
		k++;
		if (tag != DW_TAG_inlined_subroutine)
			break;
		/* the frame outside it: its line is this call's */
		if (k < max)
			call_site(&scopes[i], files, nfiles, &ret[k].file, &ret[k].line);
	}
	free(scopes);
	if (!k && lines) {
		/* no function at the address, a line still */
		addr_line(&cu, vaddr, &ret[0]);
		if (!ret[0].file && !ret[0].line)
			return 0;
		ret[0].name = NULL;
		ret[0].inlined = false;
		k = 1;
	}
	return k;
}

size_t udwarf_bytes(const struct udwarf *d)
{
	return d ? d->bytes + sizeof(*d) : 0;
}

void udwarf_free(struct udwarf *d)
{
	if (!d)
		return;
	if (d->dw)
		dwarf_end(d->dw);
	if (d->elf)
		elf_end(d->elf);
	free(d->img);
	free(d->ranges);
	hmap_done(&d->units);
	free(d);
}

#else /* !STACKTOP_HAVE_LIBDW */

uint64_t udwarf_size(const struct uelf_src *src)
{
	(void)src;
	return 0;
}

int udwarf_open(const struct uelf_src *src, size_t budget, struct udwarf **ret)
{
	(void)src;
	(void)budget;
	*ret = NULL;
	return -ENOTSUP;
}

unsigned int udwarf_frames(struct udwarf *d, uint64_t vaddr, struct udwarf_frame *ret,
			   unsigned int max)
{
	(void)d;
	(void)vaddr;
	(void)ret;
	(void)max;
	return 0;
}

size_t udwarf_bytes(const struct udwarf *d)
{
	(void)d;
	return 0;
}

void udwarf_free(struct udwarf *d)
{
	(void)d;
}
#endif
