/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ksym.c - kernel text symbols from kallsyms, by address and by name.
 *
 * One load keeps the text symbols (t/T/w/W, module text included) in an
 * array sorted by address; names and module names live in one string
 * arena and entries refer to them by offset. Aliases (several names at one
 * address) are all kept; a lookup answers the first one in file order, as
 * the kernel's %pS does. A symbol's size is the distance to the next higher
 * symbol address of the same object (core kernel or one module), capped at
 * KSYM_LAST_SIZE when the next symbol belongs to another object or there is
 * none: kallsyms does not say where the last function of an object ends.
 *
 * Misses mark the table stale so that the owner reloads once per refresh
 * (a module may have been loaded). The range of an address that still
 * misses right after a reload (code kallsyms does not name: a BPF program,
 * a trampoline) no longer marks it stale until the kernel's code changes
 * (ksym_watch.c), so that samples there do not cost a full kallsyms read
 * on every refresh.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* qsort_r */
#endif
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "sym/ksym.h"
#include "sym/ksym_priv.h"
#include "sym/ksym_watch.h"

#define KSYM_LAST_SIZE 4096
/* far above a real kallsyms (~20 MiB, ~300k lines with modules), far below harm */
#define KSYM_MAX_BYTES (256ull << 20)
#define KSYM_MAX_LINES (4u << 20)
#define KSYM_MAX_LINE  1024 /* KSYM_NAME_LEN 512 + address, type, [module] */

struct ksym *ksym_new(const char *path)
{
	struct ksym *ks = calloc(1, sizeof(*ks));

	if (!ks)
		return NULL;
	ks->path = strdup(path ? path : KSYM_DEFAULT_PATH);
	if (!ks->path) {
		free(ks);
		return NULL;
	}
	return ks;
}

void ksym_free(struct ksym *ks)
{
	if (!ks)
		return;
	free(ks->ents);
	free(ks->arena);
	free(ks->by_name);
	free(ks->path);
	free(ks);
}

void ksym_set_usym(struct ksym *ks, struct usym *u)
{
	ks->usym = u;
}

struct usym *ksym_usym(const struct ksym *ks)
{
	return ks ? ks->usym : NULL;
}

size_t ksym_count(const struct ksym *ks)
{
	return ks ? ks->nr : 0;
}

static int build_str(struct ksym_build *b, const char *s, size_t n, uint32_t *ret)
{
	if (b->len + n + 1 > b->acap) {
		size_t cap = b->acap ? b->acap : 1 << 16;
		char *p;

		while (cap < b->len + n + 1)
			cap *= 2;
		if (cap > UINT32_MAX)
			return -E2BIG;
		p = realloc(b->arena, cap);
		if (!p)
			return -ENOMEM;
		b->arena = p;
		b->acap = cap;
	}
	memcpy(b->arena + b->len, s, n);
	b->arena[b->len + n] = '\0';
	*ret = (uint32_t)b->len;
	b->len += n + 1;
	return 0;
}

static int build_add(struct ksym_build *b, uint64_t addr, const char *name, size_t name_len,
		     const char *mod, size_t mod_len)
{
	struct ksym_ent *e;
	int r;

	if (b->nr == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 4096;
		struct ksym_ent *p = realloc(b->ents, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		b->ents = p;
		b->cap = cap;
	}
	e = &b->ents[b->nr];
	e->addr = addr;
	e->size = 0;
	r = build_str(b, name, name_len, &e->name);
	if (r < 0)
		return r;
	if (!mod) {
		e->mod = KSYM_NO_MODULE;
	} else if (b->last_mod != KSYM_NO_MODULE && b->last_mod_len == mod_len &&
		   !memcmp(b->arena + b->last_mod, mod, mod_len)) {
		/* kallsyms lists a module's symbols together: share the string */
		e->mod = b->last_mod;
	} else {
		r = build_str(b, mod, mod_len, &e->mod);
		if (r < 0)
			return r;
		b->last_mod = e->mod;
		b->last_mod_len = mod_len;
	}
	b->nr++;
	return 0;
}

static int hexdigit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static bool is_text_type(char t)
{
	return t == 't' || t == 'T' || t == 'w' || t == 'W';
}

/* A NUL ends a field too: names are stored NUL-terminated. */
static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\0';
}

/*
 * "ffffffff81000000 T name" optionally followed by "\t[module]".
 * Return: 1 for a kept text symbol, 0 for another well-formed line, -1 for
 * a malformed line. *ret_addr is set for every well-formed line.
 */
static int parse_line(const char *s, size_t n, uint64_t *ret_addr, const char **name,
		      size_t *name_len, const char **mod, size_t *mod_len)
{
	const char *e = s + n;
	uint64_t addr = 0;
	int digits = 0;
	char type;

	for (; s < e && hexdigit(*s) >= 0; s++, digits++)
		addr = (addr << 4) | (uint64_t)hexdigit(*s);
	if (digits == 0 || digits > 16 || s >= e || *s != ' ')
		return -1;
	s++;
	if (s >= e || is_space(*s))
		return -1;
	type = *s++;
	if (s >= e || *s != ' ')
		return -1;
	s++;
	*name = s;
	while (s < e && !is_space(*s))
		s++;
	*name_len = (size_t)(s - *name);
	if (*name_len == 0)
		return -1;
	*ret_addr = addr;

	*mod = NULL;
	*mod_len = 0;
	while (s < e && is_space(*s))
		s++;
	if (s < e && *s == '[') {
		const char *m = ++s;

		while (s < e && *s != ']' && !is_space(*s))
			s++;
		if (s < e && *s == ']' && s > m) {
			*mod = m;
			*mod_len = (size_t)(s - m);
		}
	}
	return is_text_type(type) ? 1 : 0;
}

static int ent_cmp_addr(const void *a, const void *b)
{
	const struct ksym_ent *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* arena offsets grow in file order: keep aliases in file order */
	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	return 0;
}

static bool same_object(const char *arena, uint32_t a, uint32_t b)
{
	if (a == b)
		return true;
	if (a == KSYM_NO_MODULE || b == KSYM_NO_MODULE)
		return false;
	return !strcmp(arena + a, arena + b);
}

static void compute_sizes(struct ksym_ent *ents, size_t nr, const char *arena)
{
	size_t i = 0;

	while (i < nr) {
		size_t j = i;
		uint64_t size = KSYM_LAST_SIZE;

		while (j < nr && ents[j].addr == ents[i].addr)
			j++;
		if (j < nr) {
			size = ents[j].addr - ents[i].addr;
			if (!same_object(arena, ents[i].mod, ents[j].mod) && size > KSYM_LAST_SIZE)
				size = KSYM_LAST_SIZE;
		}
		for (size_t k = i; k < j; k++)
			ents[k].size = size;
		i = j;
	}
}

/* one line into @buf (NULs kept), its length; 0 at the end, -EBADMSG when too long */
static long read_line(FILE *f, char *buf, size_t size)
{
	size_t n = 0;
	int c;

	while ((c = getc_unlocked(f)) != EOF) {
		if (n == size)
			return -EBADMSG;
		buf[n++] = (char)c;
		if (c == '\n')
			break;
	}
	return (long)n;
}

static int load_stream(struct ksym_build *b, FILE *f)
{
	char line[KSYM_MAX_LINE + 1];
	unsigned long long total = 0;
	size_t lines = 0, nonzero = 0;
	long n;
	int r = 0;

	/* bounded: a fixed line buffer, a cap on bytes and lines */
	while ((n = read_line(f, line, sizeof(line) - 1)) != 0) {
		const char *name, *mod;
		size_t name_len, mod_len;
		uint64_t addr;
		int kind;

		if (n < 0) {
			r = (int)n;
			break;
		}
		line[n] = '\0';
		total += (unsigned long long)n;
		if (total > KSYM_MAX_BYTES || lines >= KSYM_MAX_LINES) {
			r = -EFBIG;
			break;
		}
		kind = parse_line(line, (size_t)n, &addr, &name, &name_len, &mod, &mod_len);
		if (kind < 0)
			continue;
		lines++;
		if (addr)
			nonzero++;
		if (kind == 1) {
			r = build_add(b, addr, name, name_len, mod, mod_len);
			if (r < 0)
				break;
		}
	}
	if (!r && ferror(f))
		r = -EIO;
	if (r < 0)
		return r;
	if (lines && !nonzero)
		return -EACCES;
	return 0;
}

/*
 * A regular file only (/proc/kallsyms is one): a FIFO with no writer would
 * block the open, /dev/zero would never end. O_NONBLOCK so that the open of
 * a FIFO returns at once and fstat() can refuse it.
 */
static int ksym_open_file(const char *path, FILE **ret)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC), fl;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	*ret = fdopen(fd, "r");
	if (!*ret) {
		close(fd);
		return -ENOMEM;
	}
	return 0;
}

const char *ksym_strerror(int err)
{
	switch (err) {
	case -EINVAL:
		return "not a regular file";
	case -EFBIG:
		return "too large for a kallsyms (over 256 MiB or 4M lines)";
	case -EBADMSG:
		return "not a kallsyms (a line longer than 1024 bytes)";
	case -EACCES:
		return "kernel addresses are hidden (kptr_restrict)";
	default:
		return strerror(-err);
	}
}

/* the range around @addr no symbol covers into @ret_lo, @ret_hi (false: a symbol does) */
/* the first entry with ents[].addr > @addr */
static size_t upper(const struct ksym *ks, uint64_t addr)
{
	size_t lo = 0, hi = ks->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks->ents[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool gap_of(const struct ksym *ks, uint64_t addr, uint64_t *ret_lo, uint64_t *ret_hi)
{
	size_t lo = upper(ks, addr);

	*ret_hi = lo < ks->nr ? ks->ents[lo].addr : UINT64_MAX;
	*ret_lo = 0;
	if (lo > 0) {
		const struct ksym_ent *e = &ks->ents[lo - 1];

		if (addr - e->addr < e->size)
			return false;
		*ret_lo = e->addr + e->size;
	}
	return true;
}

/* remember the range around @addr, which still missed after a load */
static void gap_add(struct ksym *ks, uint64_t addr)
{
	uint64_t lo, hi;

	if (addr && gap_of(ks, addr, &lo, &hi))
		ksym_gaps_add(&ks->gaps, addr, lo, hi);
}

/* after a load: each range again around its address, dropped where a symbol came */
static void gaps_after_load(struct ksym *ks)
{
	struct ksym_gaps old = ks->gaps;
	unsigned int i;

	ks->gaps.n = ks->gaps.next = 0;
	for (i = 0; i < old.n; i++)
		gap_add(ks, old.g[i].addr);
}

int ksym_load(struct ksym *ks, FILE *f)
{
	struct ksym_build b = { .last_mod = KSYM_NO_MODULE };
	FILE *own = NULL;
	int r;

	if (!ks)
		return -EINVAL;
	if (!f) {
		r = ksym_open_file(ks->path, &own);
		if (r < 0)
			return r;
		f = own;
	}
	r = load_stream(&b, f);
	if (own)
		fclose(own);
	if (!r && b.nr > (size_t)INT32_MAX)
		r = -E2BIG;
	if (r < 0) {
		free(b.ents);
		free(b.arena);
		return r;
	}

	if (b.nr)
		qsort(b.ents, b.nr, sizeof(*b.ents), ent_cmp_addr);
	compute_sizes(b.ents, b.nr, b.arena);

	free(ks->ents);
	free(ks->arena);
	free(ks->by_name);
	ks->ents = b.ents;
	ks->nr = b.nr;
	ks->arena = b.arena;
	ks->arena_len = b.len;
	ks->by_name = NULL;
	ks->stale = false;
	/* a range nothing named may hold a symbol now: kept only where none came */
	gaps_after_load(ks);
	ksym_watch_mark(&ks->watch, ks->path);
	return (int)b.nr;
}

/* Index of the symbol containing @addr, or -1. */
static ssize_t find_addr(const struct ksym *ks, uint64_t addr)
{
	size_t lo = upper(ks, addr);

	if (lo == 0)
		return -1;
	lo--;
	while (lo > 0 && ks->ents[lo - 1].addr == ks->ents[lo].addr)
		lo--;
	if (addr - ks->ents[lo].addr >= ks->ents[lo].size)
		return -1;
	return (ssize_t)lo;
}

/* entry @i as a hit */
static void ksym_hit_of(const struct ksym *ks, ssize_t i, struct ksym_hit *ret)
{
	const struct ksym_ent *e = &ks->ents[i];

	ret->name = ks->arena + e->name;
	ret->module = e->mod == KSYM_NO_MODULE ? NULL : ks->arena + e->mod;
	ret->start = e->addr;
	ret->size = e->size;
}

int ksym_lookup(struct ksym *ks, uint64_t addr, struct ksym_hit *ret)
{
	ssize_t i;

	if (!ks)
		return -ENOENT;
	i = find_addr(ks, addr);
	if (i < 0 && ks->resolver && ks->resolver(ks->resolver_ctx, addr, ret) == 0)
		return 0;
	if (i < 0) {
		if (!addr || ks->resolver)
			return -ENOENT;
		if (ksym_gaps_has(&ks->gaps, addr)) {
			ks->gap_misses++; /* nothing was there at the last load */
		} else {
			ks->stale = true;
			if (ks->npending < KSYM_PENDING_MAX)
				ks->pending[ks->npending++] = addr;
		}
		return -ENOENT;
	}
	ksym_hit_of(ks, i, ret);
	return 0;
}

int ksym_lookup_ret(struct ksym *ks, uint64_t addr, struct ksym_hit *ret)
{
	ssize_t i;

	if (!ks)
		return -ENOENT;
	/*
	 * the byte before: the call instruction's. The name stays the
	 * address's own unless it starts a symbol (a noreturn call ends its
	 * function, and the next one's __pfx_ padding or first byte follows).
	 * A byte before in __pfx_ padding holds no call: the address is no
	 * return address but an interrupted IP (or a sampled leaf) at its
	 * function's first byte, named as it is: x64_sys_call+0x0, never
	 * __pfx_x64_sys_call+0x10/0x10 (issue 27; the kernel's %pB names it so)
	 */
	i = addr ? find_addr(ks, addr - 1) : -1;
	if (i < 0 || !strncmp(ks->arena + ks->ents[i].name, "__pfx_", 6))
		return ksym_lookup(ks, addr, ret); /* an exact resolver, or none before it */
	ksym_hit_of(ks, i, ret);
	return 0;
}

void ksym_set_funcs(struct ksym *ks, bool funcs)
{
	if (ks)
		ks->funcs = funcs;
}

bool ksym_funcs(const struct ksym *ks)
{
	return ks && ks->funcs;
}

int ksym_lookup_frame(struct ksym *ks, uint64_t ip, struct ksym_hit *ret)
{
	if (ks && ks->funcs)
		return ksym_lookup(ks, ip, ret);
	return ksym_lookup_ret(ks, ip, ret);
}

void ksym_set_resolver(struct ksym *ks,
		       int (*resolver)(void *ctx, uint64_t addr, struct ksym_hit *ret), void *ctx)
{
	ks->resolver = resolver;
	ks->resolver_ctx = ctx;
}

int ksym_refresh(struct ksym *ks)
{
	int r;

	if (!ks)
		return 0;
	/*
	 * Misses in ranges the last load named nothing in (a BPF program
	 * kallsyms does not list, a trampoline): a reload only when the
	 * kernel's code changed since (a module, a BPF program: ksym_watch.c)
	 */
	if (!ks->stale && ks->gap_misses && ksym_watch_changed(&ks->watch, ks->path))
		ks->stale = true;
	ks->gap_misses = 0;
	if (!ks->stale)
		return 0;
	r = ksym_load(ks, NULL);
	ks->reloads++;
	/*
	 * Whatever the outcome, do not retry for the same misses: remember
	 * the ranges of the ones that still miss (all of them when the
	 * reload failed).
	 */
	for (unsigned int i = 0; i < ks->npending; i++) {
		if (r < 0 || find_addr(ks, ks->pending[i]) < 0)
			gap_add(ks, ks->pending[i]);
	}
	ks->npending = 0;
	ks->stale = false;
	return r < 0 ? r : 1;
}

unsigned long ksym_reloads(const struct ksym *ks)
{
	return ks ? ks->reloads : 0;
}

/* --- by name ------------------------------------------------------------ */

static int mod_cmp(const char *arena, uint32_t a, uint32_t b)
{
	if (a == b)
		return 0;
	if (a == KSYM_NO_MODULE)
		return -1;
	if (b == KSYM_NO_MODULE)
		return 1;
	return strcmp(arena + a, arena + b);
}

static int name_cmp(const void *pa, const void *pb, void *arg)
{
	const struct ksym *ks = arg;
	const struct ksym_ent *x = &ks->ents[*(const uint32_t *)pa];
	const struct ksym_ent *y = &ks->ents[*(const uint32_t *)pb];
	int c = strcmp(ks->arena + x->name, ks->arena + y->name);

	if (c)
		return c;
	c = mod_cmp(ks->arena, x->mod, y->mod);
	if (c)
		return c;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return 0;
}

static int build_by_name(struct ksym *ks)
{
	uint32_t *idx;

	if (ks->by_name)
		return 0;
	idx = malloc((ks->nr ? ks->nr : 1) * sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	for (size_t i = 0; i < ks->nr; i++)
		idx[i] = (uint32_t)i;
	qsort_r(idx, ks->nr, sizeof(*idx), name_cmp, ks);
	ks->by_name = idx;
	return 0;
}

/* strcmp() of a NUL-terminated @s against @n of @len bytes without a NUL. */
static int cmp_counted(const char *s, const char *n, size_t len)
{
	int c = strncmp(s, n, len);

	if (c)
		return c;
	return s[len] ? 1 : 0;
}

int ksym_addr_of(struct ksym *ks, const char *name, size_t name_len, const char *module,
		 size_t module_len, uint64_t *ret)
{
	size_t lo = 0, hi;
	int r;

	if (!ks || !name || !name_len || memchr(name, '\0', name_len))
		return -ENOENT;
	if (module && memchr(module, '\0', module_len))
		return -ENOENT;
	r = build_by_name(ks);
	if (r < 0)
		return r;

	/* first entry whose name is >= name */
	hi = ks->nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct ksym_ent *e = &ks->ents[ks->by_name[mid]];

		if (cmp_counted(ks->arena + e->name, name, name_len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < ks->nr; lo++) {
		const struct ksym_ent *e = &ks->ents[ks->by_name[lo]];

		if (cmp_counted(ks->arena + e->name, name, name_len))
			break;
		if (!module && e->mod != KSYM_NO_MODULE)
			continue;
		if (module && (e->mod == KSYM_NO_MODULE ||
			       cmp_counted(ks->arena + e->mod, module, module_len)))
			continue;
		*ret = e->addr;
		return 0;
	}
	return -ENOENT;
}
