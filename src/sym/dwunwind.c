// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * dwunwind.c - offline DWARF unwinding of perf user-stack samples with
 * libunwind's remote API (see dwunwind.h).
 *
 * libunwind asks through accessors: access_reg answers from the copied
 * registers, access_mem from the copied stack or, for anything else, from
 * the mapped file at that address (unwind tables, CIEs and FDEs are in the
 * file); find_proc_info locates the file's .eh_frame_hdr (PT_GNU_EH_FRAME)
 * and lets dwarf_search_unwind_table() binary-search it, as perf's
 * util/unwind-libunwind-local.c does. Addresses in a file are placed with
 * the load bias of the mapping that holds the IP, computed from the
 * PT_LOAD headers, so linkers that give segments different vaddr-offset
 * deltas (lld) work too. The [vdso] is read from the image the caller
 * copied (struct umap @image) the same way, as perf keeps a copy of it.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <asm/perf_regs.h>
#include <libunwind.h>

#include "sym/dwunwind.h"

/* libunwind exports this but has no header line for it (perf declares it
 * the same way) */
extern int UNW_OBJ(dwarf_search_unwind_table)(unw_addr_space_t as, unw_word_t ip,
					       unw_dyn_info_t *di, unw_proc_info_t *pi,
					       int need_unwind_info, void *arg);
#define dwarf_search_unwind_table UNW_OBJ(dwarf_search_unwind_table)

#define NFILES 32
#define MAX_FILE_SIZE (1ULL << 32)

struct ufile {
	char *path;             /* a file's, or NULL: */
	const uint8_t *image;   /* the caller's image (struct umap @image) */
	const uint8_t *data;
	size_t size;
	uint64_t stamp;     /* last use, for eviction */
	bool elf_ok;        /* an x86_64 ELF64 file */
	bool have_hdr;      /* .eh_frame_hdr with a binary-search table */
	uint64_t hdr_vaddr;
	uint64_t table_vaddr;
	uint64_t fde_count;
	const Elf64_Phdr *phdr;
	unsigned int phnum;
};

/* an address space whose cache belongs to one maps_id */
struct uspace {
	unw_addr_space_t as;
	uint64_t id;
	uint64_t stamp;
};

#define NSPACES 8

struct dwunwind {
	unw_addr_space_t as;    /* maps_id 0: no caching */
	struct uspace spaces[NSPACES];
	struct ufile files[NFILES];
	uint64_t clock;
	uint64_t unwind_start;  /* files used since are in use: not evicted */
};

/* the state of one dwunwind_stack() call, libunwind's "arg" */
struct uctx {
	struct dwunwind *u;
	const struct dwunwind_sample *s;
	uint64_t sp;
	bool beyond_stack;      /* libunwind wanted stack bytes not copied */
	bool noinfo;
	/* the file of the last find_proc_info, for addresses in no mapping */
	struct ufile *cur;
	uint64_t cur_bias;
	/* the last file mapping read and its file: most reads hit it again */
	const struct umap *last_map;
	struct ufile *last_file;
};

static const struct umap *map_find(const struct dwunwind_sample *s, uint64_t addr)
{
	size_t lo = 0, hi = s->nmaps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < s->maps[mid].start)
			hi = mid;
		else if (addr >= s->maps[mid].end)
			lo = mid + 1;
		else
			return &s->maps[mid];
	}
	return NULL;
}

/* a mapping whose code can be read: a file's, or an image given (the vdso) */
static bool map_is_file(const struct umap *m)
{
	return m && ((m->image && m->image_size) || (m->path && m->path[0] == '/'));
}

static void file_close(struct ufile *f)
{
	if (f->data && !f->image)
		munmap((void *)f->data, f->size);
	free(f->path);
	memset(f, 0, sizeof(*f));
}

static uint64_t enc_size(uint8_t enc)
{
	switch (enc & 0x0f) {
	case 0x00: return 8; /* absptr */
	case 0x02: case 0x0a: return 2;
	case 0x03: case 0x0b: return 4;
	case 0x04: case 0x0c: return 8;
	default: return 0;
	}
}

/* file offset of @vaddr via the PT_LOAD headers; false when none holds it */
static bool file_vaddr_off(const struct ufile *f, uint64_t vaddr, uint64_t *off)
{
	unsigned int i;

	for (i = 0; i < f->phnum; i++) {
		const Elf64_Phdr *p = &f->phdr[i];

		if (p->p_type == PT_LOAD && vaddr >= p->p_vaddr && vaddr < p->p_vaddr + p->p_filesz) {
			*off = p->p_offset + (vaddr - p->p_vaddr);
			return true;
		}
	}
	return false;
}

static void file_parse(struct ufile *f)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)f->data;
	const Elf64_Phdr *gnu = NULL;
	const uint8_t *h;
	uint64_t off, n, pos;
	unsigned int i;

	if (f->size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh->e_machine != EM_X86_64 || eh->e_phentsize != sizeof(Elf64_Phdr) ||
	    eh->e_phoff > f->size || (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) > f->size - eh->e_phoff)
		return;
	f->elf_ok = true;
	f->phdr = (const Elf64_Phdr *)(f->data + eh->e_phoff);
	f->phnum = eh->e_phnum;
	for (i = 0; i < f->phnum; i++)
		if (f->phdr[i].p_type == PT_GNU_EH_FRAME)
			gnu = &f->phdr[i];
	if (!gnu || gnu->p_offset > f->size || f->size - gnu->p_offset < 4 + 16)
		return;
	h = f->data + gnu->p_offset;
	/* version 1; the table must be datarel|sdata4 pairs for a binary search */
	if (h[0] != 1 || h[3] != 0x3b)
		return;
	n = enc_size(h[1]);
	pos = 4 + n;
	if (!n || enc_size(h[2]) != 4 || pos + 4 > gnu->p_filesz)
		return;
	{
		uint32_t cnt;

		memcpy(&cnt, h + pos, 4);
		n = cnt;
	}
	pos += 4;
	if (n == 0 || n > (gnu->p_filesz - pos) / 8)
		return;
	f->hdr_vaddr = gnu->p_vaddr;
	f->table_vaddr = gnu->p_vaddr + pos;
	f->fde_count = n;
	f->have_hdr = file_vaddr_off(f, gnu->p_vaddr, &off);
}

/* the file (or image) of the mapping @m */
static struct ufile *file_get(struct dwunwind *u, const struct umap *m)
{
	struct ufile *f, *victim = &u->files[0];
	const char *path = m->path;
	struct stat st;
	void *p;
	int fd, i;

	for (i = 0; i < NFILES; i++) {
		f = &u->files[i];
		if (m->image ? f->image == m->image :
			       f->path && !f->image && !strcmp(f->path, path)) {
			f->stamp = ++u->clock;
			return f->data ? f : NULL;
		}
		if (!f->path || f->stamp < victim->stamp)
			victim = f;
	}
	/* the unwind in progress may hold pointers into its files */
	if (victim->path && victim->stamp > u->unwind_start)
		return NULL;
	f = victim;
	file_close(f);
	if (m->image) {
		/* a copy of memory: offsets in it are offsets in the mapping */
		f->path = strdup(path ? path : "");
		if (!f->path)
			return NULL;
		f->stamp = ++u->clock;
		f->image = m->image;
		f->data = m->image;
		f->size = m->image_size;
		file_parse(f);
		return f;
	}
	f->path = strdup(path);
	if (!f->path)
		return NULL;
	f->stamp = ++u->clock;
	/* a failure is remembered (data NULL) so a missing file costs once */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    (uint64_t)st.st_size > MAX_FILE_SIZE) {
		close(fd);
		return NULL;
	}
	p = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return NULL;
	f->data = p;
	f->size = st.st_size;
	file_parse(f);
	return f;
}

/* the offset in its file (or image) of @m's start: an image is copied from there */
static uint64_t map_pgoff(const struct umap *m)
{
	return m->image ? 0 : m->pgoff;
}

/*
 * load bias of the file mapped by @m: address = bias + ELF vaddr. An image
 * (the vdso) is linked at 0 or at its own p_vaddr; either way its first
 * PT_LOAD is at the mapping's start.
 */
static bool map_bias(const struct ufile *f, const struct umap *m, uint64_t *bias)
{
	uint64_t pgoff = map_pgoff(m);
	unsigned int i;

	for (i = 0; i < f->phnum; i++) {
		const Elf64_Phdr *p = &f->phdr[i];

		if (p->p_type == PT_LOAD && pgoff >= (p->p_offset & ~0xfffULL) &&
		    pgoff < p->p_offset + p->p_filesz) {
			*bias = m->start - (p->p_vaddr + (pgoff - p->p_offset));
			return true;
		}
	}
	return false;
}

static int read_file_word(const struct ufile *f, uint64_t off, unw_word_t *val)
{
	if (!f || off > f->size || f->size - off < sizeof(*val))
		return -UNW_EINVAL;
	memcpy(val, f->data + off, sizeof(*val));
	return 0;
}

static int acc_find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi,
			      int need_unwind_info, void *arg)
{
	struct uctx *c = arg;
	const struct umap *m = map_find(c->s, ip);
	unw_dyn_info_t di;
	struct ufile *f;
	uint64_t bias;

	if (!map_is_file(m))
		goto noinfo;
	f = file_get(c->u, m);
	if (!f || !f->have_hdr || !map_bias(f, m, &bias))
		goto noinfo;
	c->cur = f;
	c->cur_bias = bias;
	memset(&di, 0, sizeof(di));
	di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
	di.start_ip = m->start;
	di.end_ip = m->end;
	di.u.rti.segbase = bias + f->hdr_vaddr;
	di.u.rti.table_data = bias + f->table_vaddr;
	di.u.rti.table_len = f->fde_count * 8 / sizeof(unw_word_t);
	return dwarf_search_unwind_table(as, ip, &di, pi, need_unwind_info, arg);
noinfo:
	c->noinfo = true;
	return -UNW_ENOINFO;
}

static void acc_put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi, void *arg)
{
}

static int acc_get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *dil_addr, void *arg)
{
	return -UNW_ENOINFO;
}

static int acc_access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *valp, int write,
			  void *arg)
{
	struct uctx *c = arg;
	const struct dwunwind_sample *s = c->s;
	const struct umap *m;
	struct ufile *f;
	uint64_t off;

	if (write)
		return -UNW_EREADONLYREG;
	if (addr >= c->sp && addr - c->sp < s->stack_size &&
	    s->stack_size - (addr - c->sp) >= sizeof(*valp)) {
		memcpy(valp, s->stack + (addr - c->sp), sizeof(*valp));
		return 0;
	}
	m = c->last_map;
	if (m && addr >= m->start && addr < m->end)
		return read_file_word(c->last_file, addr - m->start + map_pgoff(m), valp);
	m = map_find(s, addr);
	if (map_is_file(m)) {
		f = file_get(c->u, m);
		if (f) {
			c->last_map = m;
			c->last_file = f;
		}
		return read_file_word(f, addr - m->start + map_pgoff(m), valp);
	}
	if (!m && c->cur && addr >= c->cur_bias &&
	    file_vaddr_off(c->cur, addr - c->cur_bias, &off))
		return read_file_word(c->cur, off, valp);
	/* above the stack pointer and in no file: stack we did not copy */
	if (addr >= c->sp)
		c->beyond_stack = true;
	*valp = 0;
	return -UNW_EINVAL;
}

static int acc_access_reg(unw_addr_space_t as, unw_regnum_t regnum, unw_word_t *valp, int write,
			  void *arg)
{
	static const int8_t perf_of[] = {
		[UNW_X86_64_RAX] = PERF_REG_X86_AX, [UNW_X86_64_RDX] = PERF_REG_X86_DX,
		[UNW_X86_64_RCX] = PERF_REG_X86_CX, [UNW_X86_64_RBX] = PERF_REG_X86_BX,
		[UNW_X86_64_RSI] = PERF_REG_X86_SI, [UNW_X86_64_RDI] = PERF_REG_X86_DI,
		[UNW_X86_64_RBP] = PERF_REG_X86_BP, [UNW_X86_64_RSP] = PERF_REG_X86_SP,
		[UNW_X86_64_R8] = PERF_REG_X86_R8, [UNW_X86_64_R9] = PERF_REG_X86_R9,
		[UNW_X86_64_R10] = PERF_REG_X86_R10, [UNW_X86_64_R11] = PERF_REG_X86_R11,
		[UNW_X86_64_R12] = PERF_REG_X86_R12, [UNW_X86_64_R13] = PERF_REG_X86_R13,
		[UNW_X86_64_R14] = PERF_REG_X86_R14, [UNW_X86_64_R15] = PERF_REG_X86_R15,
		[UNW_X86_64_RIP] = PERF_REG_X86_IP,
	};
	struct uctx *c = arg;

	if (write)
		return -UNW_EREADONLYREG;
	if (regnum < 0 || (size_t)regnum >= sizeof(perf_of) / sizeof(perf_of[0]))
		return -UNW_EBADREG;
	*valp = c->s->regs[perf_of[regnum]];
	return 0;
}

static int acc_access_fpreg(unw_addr_space_t as, unw_regnum_t num, unw_fpreg_t *val, int write,
			    void *arg)
{
	return -UNW_EINVAL;
}

static int acc_resume(unw_addr_space_t as, unw_cursor_t *cu, void *arg)
{
	return -UNW_EINVAL;
}

static int acc_get_proc_name(unw_addr_space_t as, unw_word_t addr, char *bufp, size_t buf_len,
			     unw_word_t *offp, void *arg)
{
	return -UNW_EINVAL;
}

static unw_accessors_t accessors = {
	.find_proc_info = acc_find_proc_info,
	.put_unwind_info = acc_put_unwind_info,
	.get_dyn_info_list_addr = acc_get_dyn_info_list_addr,
	.access_mem = acc_access_mem,
	.access_reg = acc_access_reg,
	.access_fpreg = acc_access_fpreg,
	.resume = acc_resume,
	.get_proc_name = acc_get_proc_name,
};

struct dwunwind *dwunwind_new(void)
{
	struct dwunwind *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->as = unw_create_addr_space(&accessors, 0);
	if (!u->as) {
		free(u);
		errno = ENOMEM;
		return NULL;
	}
	/*
	 * no caching here: the same address means different code in different
	 * processes, and this address space serves every sample without a
	 * maps_id
	 */
	unw_set_caching_policy(u->as, UNW_CACHE_NONE);
	return u;
}

/* the address space for @id: its cache holds what was learned for @id */
static unw_addr_space_t space_for(struct dwunwind *u, uint64_t id)
{
	struct uspace *sp, *victim = &u->spaces[0];
	int i;

	if (!id)
		return u->as;
	for (i = 0; i < NSPACES; i++) {
		sp = &u->spaces[i];
		if (sp->as && sp->id == id) {
			sp->stamp = ++u->clock;
			return sp->as;
		}
		if (!sp->as || sp->stamp < victim->stamp)
			victim = sp;
	}
	sp = victim;
	if (!sp->as) {
		sp->as = unw_create_addr_space(&accessors, 0);
		if (!sp->as)
			return u->as;
		unw_set_caching_policy(sp->as, UNW_CACHE_GLOBAL);
	} else {
		unw_flush_cache(sp->as, 0, 0);
	}
	sp->id = id;
	sp->stamp = ++u->clock;
	return sp->as;
}

int dwunwind_stack(struct dwunwind *u, const struct dwunwind_sample *s, uint64_t *ips,
		   unsigned int max, enum dwunwind_end *why)
{
	struct uctx c = { .u = u, .s = s };
	enum dwunwind_end end = DWUNWIND_END_OUTERMOST;
	unw_word_t last_sp = s->regs[PERF_REG_X86_SP];
	unw_cursor_t cur;
	unsigned int n = 0;
	int r;

	if (!s->regs || !s->stack || !s->stack_size || !max)
		return -EINVAL;
	c.sp = s->regs[PERF_REG_X86_SP];
	u->unwind_start = u->clock;
	if (!map_is_file(map_find(s, s->regs[PERF_REG_X86_IP])))
		return -ENOENT;
	ips[n++] = s->regs[PERF_REG_X86_IP];
	r = unw_init_remote(&cur, space_for(u, s->maps_id), &c);
	if (r < 0) {
		end = DWUNWIND_END_ERROR;
		goto out;
	}
	for (;;) {
		unw_word_t ip, sp;

		c.noinfo = false;
		c.beyond_stack = false;
		r = unw_step(&cur);
		if (r == 0) {
			/* without a table libunwind may just stop */
			if (c.noinfo)
				end = DWUNWIND_END_NOINFO;
			break;
		}
		if (r < 0) {
			end = c.beyond_stack ? DWUNWIND_END_STACK :
			      c.noinfo ? DWUNWIND_END_NOINFO : DWUNWIND_END_ERROR;
			break;
		}
		if (n == max) {
			end = DWUNWIND_END_DEPTH;
			break;
		}
		if (unw_get_reg(&cur, UNW_REG_IP, &ip) < 0 || !ip)
			break;
		/*
		 * No progress: the same frame again. A recursion returns to
		 * the same address frame after frame, so the address alone
		 * says nothing; the stack pointer must move up.
		 */
		if (unw_get_reg(&cur, UNW_REG_SP, &sp) < 0 || (n > 1 && sp <= last_sp)) {
			end = DWUNWIND_END_ERROR;
			break;
		}
		last_sp = sp;
		ips[n++] = ip;
		/*
		 * Code outside every file (JIT, anonymous memory) has no
		 * unwind table: its frame is kept (a perf-PID.map may name it),
		 * but what libunwind would guess past it is not a frame.
		 */
		if (!map_is_file(map_find(s, ip))) {
			end = DWUNWIND_END_NOINFO;
			break;
		}
	}
out:
	if (why)
		*why = end;
	return (int)n;
}

int dwunwind_image_buildid(const uint8_t *img, size_t len, uint8_t *bid, size_t max)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;
	const Elf64_Phdr *ph;
	unsigned int i;

	if (!img || len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh->e_machine != EM_X86_64 || eh->e_phentsize != sizeof(Elf64_Phdr) ||
	    eh->e_phoff > len || (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) > len - eh->e_phoff)
		return -ENOENT;
	ph = (const Elf64_Phdr *)(img + eh->e_phoff);
	for (i = 0; i < eh->e_phnum; i++) {
		uint64_t pos, end;

		if (ph[i].p_type != PT_NOTE || ph[i].p_offset > len ||
		    ph[i].p_filesz > len - ph[i].p_offset)
			continue;
		pos = ph[i].p_offset;
		end = pos + ph[i].p_filesz;
		while (end - pos >= sizeof(Elf64_Nhdr)) {
			Elf64_Nhdr nh;
			uint64_t name, desc;

			memcpy(&nh, img + pos, sizeof(nh));
			name = pos + sizeof(nh);
			desc = name + (((uint64_t)nh.n_namesz + 3) & ~3ULL);
			if (desc > end || end - desc < nh.n_descsz)
				break;
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp(img + name, "GNU", 4)) {
				if (!nh.n_descsz || nh.n_descsz > max)
					return -ENOENT;
				memcpy(bid, img + desc, nh.n_descsz);
				return (int)nh.n_descsz;
			}
			pos = desc + (((uint64_t)nh.n_descsz + 3) & ~3ULL);
		}
	}
	return -ENOENT;
}

const char *dwunwind_end_name(enum dwunwind_end why)
{
	switch (why) {
	case DWUNWIND_END_OUTERMOST: return "outermost frame";
	case DWUNWIND_END_STACK: return "end of the copied stack";
	case DWUNWIND_END_DEPTH: return "depth limit";
	case DWUNWIND_END_NOINFO: return "no unwind table";
	case DWUNWIND_END_ERROR: return "unwind error";
	}
	return "?";
}

void dwunwind_forget(struct dwunwind *u)
{
	int i;

	for (i = 0; i < NFILES; i++)
		file_close(&u->files[i]);
	for (i = 0; i < NSPACES; i++)
		if (u->spaces[i].as)
			unw_flush_cache(u->spaces[i].as, 0, 0);
}

void dwunwind_free(struct dwunwind *u)
{
	int i;

	if (!u)
		return;
	dwunwind_forget(u);
	for (i = 0; i < NSPACES; i++)
		if (u->spaces[i].as)
			unw_destroy_addr_space(u->spaces[i].as);
	unw_destroy_addr_space(u->as);
	free(u);
}
