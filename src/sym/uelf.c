// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * uelf.c - see uelf.h. Nothing is mapped and nothing is trusted: every
 * count, offset and size from the file is checked against the file's size
 * and the budget before it is used, every read is a pread (ufile_pread(),
 * -EIO when the file was cut short meanwhile).
 *
 * This file reads one ELF file (headers, sections, notes, a symbol table)
 * and looks up a loaded table; which tables make a file's symbols
 * (.symtab, the debug file, .dynsym and .gnu_debugdata) is uelf_load.c's.
 */
#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sym/uelf_priv.h"
#include "sym/ufile.h"

#define SHNUM_MAX    65536 /* sections: real files have a few dozen */
#define PHNUM_MAX    4096
#define SHSTR_MAX    (1u << 20)	 /* the section names */
#define NOTE_MAX     (64u << 10) /* one note segment or section */
#define NAME_LEN_MAX 16384	 /* a longer symbol name is cut there */
#define SYM_CHUNK    1024	 /* symbols read at once */

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "uelf reads little-endian ELF files in host order"
#endif

int uelf_take(struct acct *a, size_t n)
{
	if (n > a->budget || a->held > a->budget - n)
		return -E2BIG;
	a->held += n;
	return 0;
}

void uelf_give(struct acct *a, size_t n)
{
	a->held -= n < a->held ? n : a->held;
}

static bool in_file(const struct uelf_src *s, uint64_t off, uint64_t len)
{
	return off <= s->size && len <= s->size - off;
}

static int src_read(const struct uelf_src *s, void *buf, size_t len, uint64_t off)
{
	if (!in_file(s, off, len))
		return -ENOEXEC; /* the file says something lies past its end */
	if (s->mem) {
		memcpy(buf, s->mem + off, len);
		return 0;
	}
	return ufile_pread(s->fd, buf, len, off);
}

/* @len bytes at @off in a buffer taken from the budget (one NUL more) */
void *uelf_src_get(struct rd *r, uint64_t off, size_t len, int *err)
{
	void *b;

	*err = uelf_take(r->a, len + 1);
	if (*err < 0)
		return NULL;
	b = malloc(len + 1);
	if (!b) {
		uelf_give(r->a, len + 1);
		*err = -ENOMEM;
		return NULL;
	}
	*err = src_read(r->src, b, len, off);
	if (*err < 0) {
		free(b);
		uelf_give(r->a, len + 1);
		return NULL;
	}
	((char *)b)[len] = '\0';
	return b;
}

void uelf_src_put(struct rd *r, void *b, size_t len)
{
	if (b) {
		free(b);
		uelf_give(r->a, len + 1);
	}
}

void uelf_rd_free(struct rd *r)
{
	if (r->sh)
		uelf_give(r->a, r->shnum * sizeof(*r->sh));
	free(r->sh);
	uelf_src_put(r, r->shstr, r->shstr_len);
	if (r->loads)
		uelf_give(r->a, r->nloads * sizeof(*r->loads));
	free(r->loads);
	memset(r, 0, sizeof(*r));
}

static int read_phdrs(struct rd *r, uint64_t phoff, unsigned int phnum, unsigned int phentsize)
{
	size_t esz = r->is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr), i;
	uint8_t *raw;
	int err;

	if (!phoff || !phnum)
		return 0;
	if (phentsize != esz || phnum > PHNUM_MAX)
		return -ENOEXEC;
	raw = uelf_src_get(r, phoff, phnum * esz, &err);
	if (!raw)
		return err;
	err = uelf_take(r->a, phnum * sizeof(*r->loads));
	r->loads = err ? NULL : calloc(phnum, sizeof(*r->loads));
	if (!r->loads) {
		if (!err)
			uelf_give(r->a, phnum * sizeof(*r->loads));
		uelf_src_put(r, raw, phnum * esz);
		return err ? err : -ENOMEM;
	}
	r->nloads = phnum; /* what was taken; the used part is counted below */
	for (i = 0; i < phnum; i++) {
		uint64_t type, off, filesz, vaddr, align;

		if (r->is64) {
			Elf64_Phdr p;

			memcpy(&p, raw + i * esz, sizeof(p));
			type = p.p_type;
			off = p.p_offset;
			filesz = p.p_filesz;
			vaddr = p.p_vaddr;
			align = p.p_align;
		} else {
			Elf32_Phdr p;

			memcpy(&p, raw + i * esz, sizeof(p));
			type = p.p_type;
			off = p.p_offset;
			filesz = p.p_filesz;
			vaddr = p.p_vaddr;
			align = p.p_align;
		}
		if (type == PT_NOTE && r->nnotes < NOTES_MAX) {
			r->notes[r->nnotes].off = off;
			r->notes[r->nnotes].size = filesz;
			r->notes[r->nnotes++].align = align;
		}
		if (type == PT_GNU_EH_FRAME) {
			r->ehhdr.off = off;
			r->ehhdr.filesz = filesz;
			r->ehhdr.vaddr = vaddr;
		}
		if (type != PT_LOAD)
			continue;
		r->loads[i].off = off;
		r->loads[i].filesz = filesz;
		r->loads[i].vaddr = vaddr;
	}
	uelf_src_put(r, raw, phnum * esz);
	return 0;
}

static int read_shdrs(struct rd *r, uint64_t shoff, unsigned int shnum, unsigned int shentsize,
		      unsigned int shstrndx)
{
	size_t esz = r->is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr), i;
	uint8_t *raw;
	int err;

	if (!shoff)
		return 0;
	if (shentsize != esz)
		return -ENOEXEC;
	if (!shnum || shstrndx == SHN_XINDEX) {
		/* extended numbering: the real values are in section 0 */
		uint64_t size, link;

		if (r->is64) {
			Elf64_Shdr s;

			err = src_read(r->src, &s, sizeof(s), shoff);
			size = s.sh_size;
			link = s.sh_link;
		} else {
			Elf32_Shdr s;

			err = src_read(r->src, &s, sizeof(s), shoff);
			size = s.sh_size;
			link = s.sh_link;
		}
		if (err < 0)
			return err;
		if (!shnum)
			shnum = size > SHNUM_MAX ? SHNUM_MAX + 1 : (unsigned int)size;
		if (shstrndx == SHN_XINDEX)
			shstrndx = link > SHNUM_MAX ? SHNUM_MAX + 1 : (unsigned int)link;
	}
	if (shnum > SHNUM_MAX)
		return -ENOEXEC;
	raw = uelf_src_get(r, shoff, shnum * esz, &err);
	if (!raw)
		return err;
	err = uelf_take(r->a, shnum * sizeof(*r->sh));
	r->sh = err ? NULL : calloc(shnum, sizeof(*r->sh));
	if (!r->sh) {
		if (!err)
			uelf_give(r->a, shnum * sizeof(*r->sh));
		uelf_src_put(r, raw, shnum * esz);
		return err ? err : -ENOMEM;
	}
	r->shnum = shnum;
	for (i = 0; i < shnum; i++) {
		struct shdr *d = &r->sh[i];

		if (r->is64) {
			Elf64_Shdr s;

			memcpy(&s, raw + i * esz, sizeof(s));
			d->name = s.sh_name;
			d->type = s.sh_type;
			d->link = s.sh_link;
			d->flags = s.sh_flags;
			d->offset = s.sh_offset;
			d->size = s.sh_size;
			d->addralign = s.sh_addralign;
			d->entsize = s.sh_entsize;
		} else {
			Elf32_Shdr s;

			memcpy(&s, raw + i * esz, sizeof(s));
			d->name = s.sh_name;
			d->type = s.sh_type;
			d->link = s.sh_link;
			d->flags = s.sh_flags;
			d->offset = s.sh_offset;
			d->size = s.sh_size;
			d->addralign = s.sh_addralign;
			d->entsize = s.sh_entsize;
		}
		if (d->type == SHT_NOTE && r->nnotes < NOTES_MAX) {
			r->notes[r->nnotes].off = d->offset;
			r->notes[r->nnotes].size = d->size;
			r->notes[r->nnotes++].align = 4;
		}
	}
	uelf_src_put(r, raw, shnum * esz);
	if (shstrndx < shnum && r->sh[shstrndx].type == SHT_STRTAB &&
	    r->sh[shstrndx].size <= SHSTR_MAX) {
		r->shstr_len = (size_t)r->sh[shstrndx].size;
		r->shstr = uelf_src_get(r, r->sh[shstrndx].offset, r->shstr_len, &err);
		if (!r->shstr)
			r->shstr_len = 0;
	}
	return 0;
}

int uelf_rd_open(struct rd *r, const struct uelf_src *src, struct acct *a)
{
	unsigned char id[EI_NIDENT];
	uint64_t phoff, shoff;
	unsigned int phnum, phentsize, shnum, shentsize, shstrndx;
	int err;

	memset(r, 0, sizeof(*r));
	r->src = src;
	r->a = a;
	if (src_read(src, id, sizeof(id), 0) < 0 || memcmp(id, ELFMAG, SELFMAG) ||
	    (id[EI_CLASS] != ELFCLASS32 && id[EI_CLASS] != ELFCLASS64) ||
	    id[EI_DATA] != ELFDATA2LSB || id[EI_VERSION] != EV_CURRENT)
		return -ENOEXEC;
	r->is64 = id[EI_CLASS] == ELFCLASS64;
	if (r->is64) {
		Elf64_Ehdr eh;

		err = src_read(src, &eh, sizeof(eh), 0);
		r->type = eh.e_type;
		r->machine = eh.e_machine;
		phoff = eh.e_phoff;
		phnum = eh.e_phnum;
		phentsize = eh.e_phentsize;
		shoff = eh.e_shoff;
		shnum = eh.e_shnum;
		shentsize = eh.e_shentsize;
		shstrndx = eh.e_shstrndx;
	} else {
		Elf32_Ehdr eh;

		err = src_read(src, &eh, sizeof(eh), 0);
		r->type = eh.e_type;
		r->machine = eh.e_machine;
		phoff = eh.e_phoff;
		phnum = eh.e_phnum;
		phentsize = eh.e_phentsize;
		shoff = eh.e_shoff;
		shnum = eh.e_shnum;
		shentsize = eh.e_shentsize;
		shstrndx = eh.e_shstrndx;
	}
	if (err < 0)
		return err;
	err = read_phdrs(r, phoff, phnum, phentsize);
	if (err == 0)
		err = read_shdrs(r, shoff, shnum, shentsize, shstrndx);
	if (err < 0)
		uelf_rd_free(r);
	return err;
}

static const char *sec_name(const struct rd *r, const struct shdr *s)
{
	return r->shstr && s->name < r->shstr_len ? r->shstr + s->name : "";
}

int uelf_find_sec(const struct rd *r, uint32_t type, const char *name)
{
	unsigned int i;

	for (i = 1; i < r->shnum; i++)
		if (r->sh[i].type == type && (!name || !strcmp(sec_name(r, &r->sh[i]), name)))
			return (int)i;
	return -1;
}

int uelf_rd_buildid(struct rd *r, uint8_t *bid, size_t max)
{
	unsigned int k;

	for (k = 0; k < r->nnotes; k++) {
		uint64_t size = r->notes[k].size, al = r->notes[k].align == 8 ? 8 : 4, pos = 0;
		uint8_t *n;
		int err;

		if (size > NOTE_MAX || !size)
			continue;
		n = uelf_src_get(r, r->notes[k].off, (size_t)size, &err);
		if (!n)
			continue;
		while (pos <= size && size - pos >= 12) {
			uint32_t h[3];
			uint64_t name = pos + 12, desc;

			memcpy(h, n + pos, 12);
			desc = name + ((h[0] + al - 1) & ~(al - 1));
			if (desc > size || size - desc < h[1])
				break;
			if (h[2] == NT_GNU_BUILD_ID && h[0] == 4 && !memcmp(n + name, "GNU", 4) &&
			    h[1] && h[1] <= max) {
				memcpy(bid, n + desc, h[1]);
				uelf_src_put(r, n, (size_t)size);
				return (int)h[1];
			}
			pos = desc + ((h[1] + al - 1) & ~(al - 1));
		}
		uelf_src_put(r, n, (size_t)size);
	}
	return -ENOENT;
}

int uelf_buildid(const struct uelf_src *src, uint8_t *bid, size_t max)
{
	struct acct a = { .budget = 8u << 20 };
	struct rd r;
	int err = uelf_rd_open(&r, src, &a);

	if (err < 0)
		return err;
	err = uelf_rd_buildid(&r, bid, max);
	uelf_rd_free(&r);
	return err;
}

int uelf_sections(const struct uelf_src *src, bool (*want)(const char *name), struct uelf_sec *ret,
		  unsigned int max, struct uelf_info *info)
{
	struct acct a = { .budget = 8u << 20 };
	unsigned int i, n = 0;
	struct rd r;
	int err = uelf_rd_open(&r, src, &a);

	if (err < 0)
		return err;
	info->is64 = r.is64;
	info->type = r.type;
	info->machine = r.machine;
	for (i = 1; i < r.shnum && n < max; i++) {
		const struct shdr *sh = &r.sh[i];
		const char *name = sec_name(&r, sh);

		if (!name[0] || !want(name) || sh->type == SHT_NOBITS)
			continue;
		if (!in_file(src, sh->offset, sh->size)) {
			err = -ENOEXEC; /* a section past the file's end */
			break;
		}
		snprintf(ret[n].name, sizeof(ret[n].name), "%s", name);
		ret[n].type = sh->type;
		ret[n].flags = sh->flags;
		ret[n].offset = sh->offset;
		ret[n].size = sh->size;
		ret[n].addralign = sh->addralign;
		ret[n].entsize = sh->entsize;
		n++;
	}
	uelf_rd_free(&r);
	return err < 0 ? err : (int)n;
}

/* grow @e's arrays within the budget */
static int grow_syms(struct uelf *e, struct acct *a, size_t *cap)
{
	size_t c = *cap ? *cap * 2 : 256;
	struct uelf_sym *ns;

	if (uelf_take(a, (c - *cap) * sizeof(*ns)) < 0)
		return -E2BIG;
	ns = realloc(e->syms, c * sizeof(*ns));
	if (!ns) {
		uelf_give(a, (c - *cap) * sizeof(*ns));
		return -ENOMEM;
	}
	e->syms = ns;
	*cap = c;
	return 0;
}

static int add_name(struct uelf *e, struct acct *a, const char *s, size_t len, uint32_t *ret)
{
	if (e->names_len + len + 1 > UINT32_MAX)
		return -E2BIG;
	while (e->names_len + len + 1 > e->names_cap) {
		size_t c = e->names_cap ? e->names_cap * 2 : 4096;
		char *nn;

		if (uelf_take(a, c - e->names_cap) < 0)
			return -E2BIG;
		nn = realloc(e->names, c);
		if (!nn) {
			uelf_give(a, c - e->names_cap);
			return -ENOMEM;
		}
		e->names = nn;
		e->names_cap = c;
	}
	memcpy(e->names + e->names_len, s, len);
	e->names[e->names_len + len] = '\0';
	*ret = (uint32_t)e->names_len;
	e->names_len += len + 1;
	return 0;
}

/* GLOBAL before WEAK before LOCAL at one address */
static uint8_t bind_rank(unsigned int bind)
{
	return bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
}

/* the function symbols of section @idx (SHT_SYMTAB or SHT_DYNSYM) into @e */
int uelf_add_symbols(struct rd *r, struct uelf *e, size_t *cap, unsigned int idx)
{
	const struct shdr *s = &r->sh[idx], *st;
	size_t esz = r->is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym), n, i, k, strl;
	uint8_t *chunk = NULL;
	char *str;
	int err = 0;

	if (s->entsize != esz || s->link >= r->shnum || !in_file(r->src, s->offset, s->size))
		return -ENOEXEC;
	st = &r->sh[s->link];
	if (st->type != SHT_STRTAB || !in_file(r->src, st->offset, st->size) ||
	    st->size > SIZE_MAX / 2)
		return -ENOEXEC;
	strl = (size_t)st->size;
	str = uelf_src_get(r, st->offset, strl, &err);
	if (!str)
		return err;
	n = (size_t)(s->size / esz);
	for (i = 0; i < n && err == 0; i += k) {
		size_t cnt = n - i < SYM_CHUNK ? n - i : SYM_CHUNK;

		uelf_src_put(r, chunk, SYM_CHUNK * esz);
		chunk = uelf_src_get(r, s->offset + i * esz, cnt * esz, &err);
		if (!chunk)
			break;
		for (k = 0; k < cnt && err == 0; k++) {
			uint64_t value, size;
			uint32_t name, off;
			unsigned int info, shndx, type;
			size_t len;

			if (r->is64) {
				Elf64_Sym y;

				memcpy(&y, chunk + k * esz, sizeof(y));
				name = y.st_name;
				info = y.st_info;
				shndx = y.st_shndx;
				value = y.st_value;
				size = y.st_size;
			} else {
				Elf32_Sym y;

				memcpy(&y, chunk + k * esz, sizeof(y));
				name = y.st_name;
				info = y.st_info;
				shndx = y.st_shndx;
				value = y.st_value;
				size = y.st_size;
			}
			type = ELF64_ST_TYPE(info);
			if ((type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_NOTYPE) ||
			    shndx == SHN_UNDEF || shndx >= SHN_LORESERVE || !size ||
			    size >= 1ULL << 62 || name >= strl || !str[name])
				continue;
			len = strnlen(str + name, strl - name);
			if (len > NAME_LEN_MAX)
				len = NAME_LEN_MAX;
			if (e->nsyms == *cap) {
				err = grow_syms(e, r->a, cap);
				if (err < 0)
					break;
			}
			err = add_name(e, r->a, str + name, len, &off);
			if (err < 0)
				break;
			e->syms[e->nsyms].start = value;
			e->syms[e->nsyms].size = size;
			e->syms[e->nsyms].name = off;
			/* the rank rides in the top bits of the size until the sort */
			e->syms[e->nsyms].size |= (uint64_t)bind_rank(ELF64_ST_BIND(info)) << 62;
			e->nsyms++;
		}
	}
	if (chunk)
		uelf_src_put(r, chunk, SYM_CHUNK * esz);
	uelf_src_put(r, str, strl);
	return err;
}

int uelf_vaddr(const struct uelf *e, uint64_t off, uint64_t *ret)
{
	unsigned int i;

	for (i = 0; i < e->nloads; i++) {
		const struct uelf_load *l = &e->loads[i];

		if (off >= l->off && off - l->off < l->filesz) {
			*ret = off - l->off + l->vaddr;
			return 0;
		}
	}
	return -ENOENT;
}

const struct uelf_sym *uelf_find(const struct uelf *e, uint64_t vaddr)
{
	size_t lo = 0, hi = e->nsyms, i, n;

	while (lo < hi) { /* the first symbol starting above @vaddr */
		size_t mid = lo + (hi - lo) / 2;

		if (e->syms[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* the closest start that covers it (symbols may nest) */
	for (i = lo, n = 0; i-- > 0 && n < 16; n++)
		if (vaddr - e->syms[i].start < e->syms[i].size)
			return &e->syms[i];
	return NULL;
}

int uelf_func_start(const struct uelf *e, uint64_t vaddr, uint64_t *ret)
{
	size_t lo = 0, hi = e->nfstarts;
	unsigned int i;

	while (lo < hi) { /* the first start above @vaddr */
		size_t mid = lo + (hi - lo) / 2;

		if (e->fstarts[mid] <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -ENOENT;
	/* the last function ends with its segment at the latest */
	for (i = 0; i < e->nloads; i++) {
		const struct uelf_load *l = &e->loads[i];

		if (e->fstarts[lo - 1] >= l->vaddr && vaddr - l->vaddr < l->filesz) {
			*ret = e->fstarts[lo - 1];
			return 0;
		}
	}
	return -ENOENT;
}

void uelf_free(struct uelf *e)
{
	if (!e)
		return;
	free(e->fstarts);
	free(e->syms);
	free(e->names);
	free(e->loads);
	free(e);
}
