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
 *
 * The files are other users': their unwind tables are read by
 * dwunwind_file.c before libunwind asks, never from an accessor: libunwind
 * runs them under a lock with every signal blocked (lock_acquire() in
 * libunwind 1.6), so an open there that blocks could not even be
 * interrupted. A walk that needs a file not read yet stops;
 * dwunwind_stack() reads it and walks again.
 *
 * A walk with a maps_id is kept (dwunwind_memo.h): a later sample that
 * would read the same registers and stack words is replayed, not walked.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <asm/perf_regs.h>
#include <libunwind.h>

#include "sym/dwunwind.h"
#include "sym/dwunwind_file.h"
#include "sym/dwunwind_memo.h"

/* libunwind exports this but has no header line for it (perf declares it
 * the same way) */
extern int UNW_OBJ(dwarf_search_unwind_table)(unw_addr_space_t as, unw_word_t ip,
					      unw_dyn_info_t *di, unw_proc_info_t *pi,
					      int need_unwind_info, void *arg);
#define dwarf_search_unwind_table UNW_OBJ(dwarf_search_unwind_table)

#define LIMIT_DEFAULT (64u << 20) /* bytes of unwind tables kept (dwunwind_set_limit()) */
#define LOADS_MAX     8		  /* files read for one sample (each a restart) */

/* an address space whose cache belongs to one maps_id */
struct uspace {
	unw_addr_space_t as;
	uint64_t id;
	uint64_t stamp;
};

#define NSPACES 8

struct dwunwind {
	unw_addr_space_t as; /* maps_id 0: no caching */
	struct uspace spaces[NSPACES];
	struct uwfiles files; /* the files' unwind tables (dwunwind_file.c) */
	uint64_t clock;	      /* the spaces' stamps */
	struct dw_memos memo; /* the walks kept for replay (dwunwind_memo.c) */
	struct dwunwind_stats st;
	int refusal; /* dwunwind_refusal() */
};

/* the state of one dwunwind_stack() call, libunwind's "arg" */
struct uctx {
	struct dwunwind *u;
	const struct dwunwind_sample *s;
	uint64_t sp;
	bool beyond_stack; /* libunwind wanted stack bytes not copied */
	bool noinfo;
	enum cfi_verdict refused; /* an FDE refused, or the read budget spent */
	uint32_t reads;		  /* access_mem calls of this walk */
	/* a mapping whose file must be read before the unwind can go on */
	const struct umap *need;
	/* the file of the last find_proc_info, for addresses in no mapping */
	struct uwfile *cur;
	uint64_t cur_bias;
	/* the last file mapping read and its file: most reads hit it again */
	const struct umap *last_map;
	struct uwfile *last_file;
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
	return m &&
	       ((m->image && m->image_size) || (m->path && m->path[0] == '/' && m->dev && m->ino));
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
static bool map_bias(const struct uwfile *f, const struct umap *m, uint64_t *bias)
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

static int read_file_word(const struct uwfile *f, uint64_t off, unw_word_t *val)
{
	const uint8_t *p = dw_win_at(f, off, sizeof(*val));

	if (!p)
		return -UNW_EINVAL; /* code or data not read: only the unwind tables are */
	memcpy(val, p, sizeof(*val));
	return 0;
}

static int acc_find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi,
			      int need_unwind_info, void *arg)
{
	struct uctx *c = arg;
	const struct umap *m = map_find(c->s, ip);
	unw_dyn_info_t di;
	struct uwfile *f;
	uint64_t bias;

	if (!map_is_file(m))
		goto noinfo;
	/* never read here: libunwind holds its lock with every signal blocked */
	f = dw_file_find(&c->u->files, m);
	if (!f) {
		if (!c->need)
			c->need = m; /* read it, then unwind again */
		goto noinfo;
	}
	if (!f->have_hdr || !map_bias(f, m, &bias))
		goto noinfo;
	c->refused = dw_file_check_fde(f, bias, ip);
	if (c->refused != CFI_OK)
		return -UNW_EINVAL; /* not -UNW_ENOINFO: x86_64's unw_step would guess on */
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
	struct uwfile *f;
	uint64_t off;

	if (write)
		return -UNW_EREADONLYREG;
	/* the bound behind the scan: whatever libunwind runs, it stops here */
	if (++c->reads > DWUNWIND_WALK_READS) {
		c->refused = CFI_BUDGET;
		*valp = 0;
		return -UNW_EINVAL;
	}
	if (addr >= c->sp && addr - c->sp < s->stack_size &&
	    s->stack_size - (addr - c->sp) >= sizeof(*valp)) {
		memcpy(valp, s->stack + (addr - c->sp), sizeof(*valp));
		dw_memo_log(&c->u->memo, (int32_t)(addr - c->sp), *valp);
		return 0;
	}
	m = c->last_map;
	if (m && addr >= m->start && addr < m->end)
		return read_file_word(c->last_file, addr - m->start + map_pgoff(m), valp);
	m = map_find(s, addr);
	if (map_is_file(m)) {
		f = dw_file_find(&c->u->files, m); /* what was read already, nothing more */
		if (f) {
			c->last_map = m;
			c->last_file = f;
		}
		return read_file_word(f, addr - m->start + map_pgoff(m), valp);
	}
	if (!m && c->cur && addr >= c->cur_bias &&
	    dw_file_vaddr_off(c->cur, addr - c->cur_bias, &off))
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
		[UNW_X86_64_RAX] = PERF_REG_X86_AX,  [UNW_X86_64_RDX] = PERF_REG_X86_DX,
		[UNW_X86_64_RCX] = PERF_REG_X86_CX,  [UNW_X86_64_RBX] = PERF_REG_X86_BX,
		[UNW_X86_64_RSI] = PERF_REG_X86_SI,  [UNW_X86_64_RDI] = PERF_REG_X86_DI,
		[UNW_X86_64_RBP] = PERF_REG_X86_BP,  [UNW_X86_64_RSP] = PERF_REG_X86_SP,
		[UNW_X86_64_R8] = PERF_REG_X86_R8,   [UNW_X86_64_R9] = PERF_REG_X86_R9,
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
	dw_memo_log(&c->u->memo, -1 - perf_of[regnum], *valp);
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
	u->files.limit = LIMIT_DEFAULT;
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

/*
 * One walk with what was read so far; a file libunwind needed and that
 * was not read yet is left in @c->need (the walk stops there).
 */
static int unwind_once(struct uctx *c, uint64_t *ips, unsigned int max, enum dwunwind_end *why)
{
	const struct dwunwind_sample *s = c->s;
	enum dwunwind_end end = DWUNWIND_END_OUTERMOST;
	unw_word_t last_sp = s->regs[PERF_REG_X86_SP];
	unw_cursor_t cur;
	unsigned int n = 0;
	int r;

	ips[n++] = s->regs[PERF_REG_X86_IP];
	r = unw_init_remote(&cur, space_for(c->u, s->maps_id), c);
	if (r < 0) {
		end = DWUNWIND_END_ERROR;
		goto out;
	}
	for (;;) {
		unw_word_t ip, sp;

		c->noinfo = false;
		c->beyond_stack = false;
		r = unw_step(&cur);
		if (c->need)
			break; /* what follows was guessed without that file */
		if (r == 0) {
			/* without a table libunwind may just stop */
			if (c->noinfo)
				end = DWUNWIND_END_NOINFO;
			break;
		}
		if (r < 0 || c->refused != CFI_OK) {
			end = c->refused != CFI_OK ? DWUNWIND_END_REFUSED
			      : c->beyond_stack	   ? DWUNWIND_END_STACK
			      : c->noinfo	   ? DWUNWIND_END_NOINFO
						   : DWUNWIND_END_ERROR;
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
	*why = end;
	return (int)n;
}

int dwunwind_stack(struct dwunwind *u, const struct dwunwind_sample *s, uint64_t *ips,
		   unsigned int max, enum dwunwind_end *why)
{
	struct uctx c = { .u = u, .s = s };
	struct dw_memo_in mi = { s->maps_id, s->regs, s->stack, s->stack_size };
	enum dwunwind_end end = DWUNWIND_END_ERROR;
	const struct umap *m;
	int n = 0, loads;

	if (!s->regs || !s->stack || !s->stack_size || !max)
		return -EINVAL;
	m = map_find(s, s->regs[PERF_REG_X86_IP]);
	if (!map_is_file(m))
		return -ENOENT;
	/* the maps_id promises the same tables: a walk that read the same, replayed */
	if (s->maps_id) {
		int e = DWUNWIND_END_ERROR;

		n = dw_memo_replay(&u->memo, &mi, ips, max, &e);
		end = (enum dwunwind_end)e;
		if (n > 0) {
			u->st.replayed++;
			if (why)
				*why = end;
			return n;
		}
	}
	u->st.walked++;
	/*
	 * The files are read here, between walks, never from the accessors:
	 * the sampled IP's first, then each one a walk stopped at (and the
	 * walk made again), a few per sample at most.
	 */
	dw_file_get(&u->files, m, s->pid);
	for (loads = 0; loads <= LOADS_MAX; loads++) {
		c.sp = s->regs[PERF_REG_X86_SP];
		c.need = NULL;
		c.cur = NULL;
		c.last_map = NULL;
		c.last_file = NULL;
		c.refused = CFI_OK;
		c.reads = 0;
		dw_memo_start(&u->memo);
		n = unwind_once(&c, ips, max, &end);
		if (end == DWUNWIND_END_REFUSED)
			u->refusal = (int)c.refused;
		if (!c.need || end == DWUNWIND_END_REFUSED) {
			int b = dw_memo_used(&u->memo);

			if (end == DWUNWIND_END_OUTERMOST && b >= 0)
				u->st.used[b]++;
			if (s->maps_id && end != DWUNWIND_END_REFUSED) /* refusal() must hold */
				dw_memo_keep(&u->memo, &mi, ips, n, max, (int)end);
			break;
		}
		dw_file_get(&u->files, c.need, s->pid);
		if (loads == LOADS_MAX)
			end = DWUNWIND_END_NOINFO;
	}
	if (why)
		*why = end;
	return n;
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
		/* (the last note's padding may pass the end: then no more) */
		while (pos <= end && end - pos >= sizeof(Elf64_Nhdr)) {
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

void dwunwind_set_limit(struct dwunwind *u, size_t bytes)
{
	u->files.limit = bytes ? bytes : LIMIT_DEFAULT;
}

size_t dwunwind_memory(const struct dwunwind *u)
{
	return u->files.bytes + u->memo.bytes;
}

void dwunwind_stats(const struct dwunwind *u, struct dwunwind_stats *st)
{
	*st = u->st;
}

int dwunwind_refusal(const struct dwunwind *u)
{
	return u->refusal;
}

const char *dwunwind_end_name(enum dwunwind_end why)
{
	switch (why) {
	case DWUNWIND_END_OUTERMOST:
		return "outermost frame";
	case DWUNWIND_END_STACK:
		return "end of the copied stack";
	case DWUNWIND_END_DEPTH:
		return "depth limit";
	case DWUNWIND_END_NOINFO:
		return "no unwind table";
	case DWUNWIND_END_ERROR:
		return "unwind error";
	case DWUNWIND_END_REFUSED:
		return "unwind info refused";
	}
	return "?";
}

void dwunwind_forget(struct dwunwind *u)
{
	int i;

	dw_files_drop(&u->files);
	dw_memo_drop(&u->memo);
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
