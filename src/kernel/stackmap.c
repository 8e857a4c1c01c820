/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stackmap.c - parsers for stack_map_bin, stack_map and stack_map_stat.
 *
 * All three take bytes that were read elsewhere, never read past the length
 * given, and never trust a count from the input beyond the bytes present.
 * See doc/stackmap-abi.md for what each RFC version writes.
 */
#include <errno.h>
#include <stddef.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/stack.h"
#include "kernel/stackmap.h"

/* the frame a trampoline leaves is kept as the table's own marker */
_Static_assert(STACKMAP_TRAMPOLINE == STACK_IP_TRAMPOLINE, "trampoline marker");

/* nr above this is corruption, not a deep stack: the kernel clamps to 64. */
#define STACKMAP_BIN_MAX_NR (STACKMAP_MAX_DEPTH * 16)

static uint32_t load_u32(const uint8_t *p, bool swapped)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return swapped ? __builtin_bswap32(v) : v;
}

static int bin_detect(uint32_t raw, uint32_t *ret_magic, bool *ret_swapped)
{
	uint32_t sw = __builtin_bswap32(raw);

	if (raw == STACKMAP_BIN_MAGIC || raw == STACKMAP_BIN_MAGIC_OLD) {
		*ret_magic = raw;
		*ret_swapped = false;
		return 0;
	}
	if (sw == STACKMAP_BIN_MAGIC || sw == STACKMAP_BIN_MAGIC_OLD) {
		*ret_magic = sw;
		*ret_swapped = true;
		return 0;
	}
	return -EPROTO;
}

/*
 * v4 writes its new magic with version 1. v1-v3 wrote the old magic with
 * version 2; the v1-era dump tool also accepted version 1 with the old magic.
 */
static bool bin_version_ok(uint32_t magic, uint32_t version)
{
	if (magic == STACKMAP_BIN_MAGIC)
		return version == 1;
	return version == 1 || version == 2;
}

int stackmap_bin_parse(const void *buf, size_t len,
		       int (*visit)(void *ctx, uint32_t id, uint32_t ref, const uint64_t *ips,
				    uint32_t nr),
		       void *ctx, struct stackmap_bin_info *ret_info)
{
	uint64_t ips[STACKMAP_BIN_MAX_NR];
	const uint8_t *p = buf;
	struct stackmap_bin_info info = { 0 };
	size_t pos = STACKMAP_BIN_HDR_SIZE;
	int err = 0;
	int r;

	if (!p || len < STACKMAP_BIN_HDR_SIZE)
		return -EBADMSG;

	r = bin_detect(load_u32(p, false), &info.magic, &info.swapped);
	if (r < 0)
		return r;
	info.version = load_u32(p + 4, info.swapped);
	if (!bin_version_ok(info.magic, info.version))
		return -EPROTO;
	info.nr_stacks = load_u32(p + 8, info.swapped);

	while (info.parsed < info.nr_stacks) {
		uint32_t id, nr, ref;
		const uint64_t *rec_ips;
		size_t need;

		if (len - pos < STACKMAP_BIN_REC_SIZE) {
			info.truncated = true;
			break;
		}
		id = load_u32(p + pos, info.swapped);
		nr = load_u32(p + pos + 4, info.swapped);
		ref = load_u32(p + pos + 8, info.swapped);
		if (nr > STACKMAP_BIN_MAX_NR) {
			err = -EBADMSG;
			break;
		}
		need = STACKMAP_BIN_REC_SIZE + (size_t)nr * sizeof(uint64_t);
		if (len - pos < need) {
			info.truncated = true;
			break;
		}

		/* Zero copy when the ips are host-order and aligned. */
		rec_ips = (const uint64_t *)(const void *)(p + pos + STACKMAP_BIN_REC_SIZE);
		if (info.swapped || ((uintptr_t)rec_ips & (sizeof(uint64_t) - 1))) {
			memcpy(ips, p + pos + STACKMAP_BIN_REC_SIZE, (size_t)nr * sizeof(uint64_t));
			if (info.swapped) {
				for (uint32_t i = 0; i < nr; i++)
					ips[i] = __builtin_bswap64(ips[i]);
			}
			rec_ips = ips;
		}
		pos += need;
		info.parsed++;

		if (visit) {
			r = visit(ctx, id, ref, rec_ips, nr);
			if (r) {
				err = r;
				break;
			}
		}
	}

	if (ret_info)
		*ret_info = info;
	return err;
}

/* --- stack_map text ---------------------------------------------------- */

struct cursor {
	const char *p;
	const char *end;
};

static bool cur_lit(struct cursor *c, const char *lit)
{
	size_t n = strlen(lit);

	if ((size_t)(c->end - c->p) < n || memcmp(c->p, lit, n))
		return false;
	c->p += n;
	return true;
}

static bool cur_u32(struct cursor *c, uint32_t *ret)
{
	uint64_t v = 0;
	const char *s = c->p;

	while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
		v = v * 10 + (uint64_t)(*c->p - '0');
		if (v > UINT32_MAX)
			return false;
		c->p++;
	}
	if (c->p == s)
		return false;
	*ret = (uint32_t)v;
	return true;
}

static int hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* Parse all of [s, e) as "0x" followed by 1..16 hex digits. */
static bool parse_hex(const char *s, const char *e, uint64_t *ret)
{
	uint64_t v = 0;

	if (e - s < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return false;
	s += 2;
	if (e - s > 16)
		return false;
	for (; s < e; s++) {
		int d = hexval(*s);

		if (d < 0)
			return false;
		v = (v << 4) | (uint64_t)d;
	}
	*ret = v;
	return true;
}

/* "stack_id %u [ref %u, depth %u]" */
static bool parse_header(const char *s, const char *e, uint32_t *id, uint32_t *ref, uint32_t *depth)
{
	struct cursor c = { s, e };

	return cur_lit(&c, "stack_id ") && cur_u32(&c, id) && cur_lit(&c, " [ref ") &&
	       cur_u32(&c, ref) && cur_lit(&c, ", depth ") && cur_u32(&c, depth) &&
	       cur_lit(&c, "]") && c.p == c.end;
}

static bool sym_char_ok(char ch)
{
	return ch != ' ' && ch != '\t' && ch != '[' && ch != ']';
}

/*
 * The part after "  [i] ": "[FTRACE TRAMPOLINE]", a bare "0x..." address,
 * or "sym+0xoff/0xsize" with an optional " [module]".
 */
static bool parse_frame_body(const char *s, const char *e, struct stackmap_frame *f)
{
	const char *plus = NULL;

	/* %pS never prints a '+' inside a name: the last one starts the offset. */
	memset(f, 0, sizeof(*f));
	if ((size_t)(e - s) == strlen("[FTRACE TRAMPOLINE]") &&
	    !memcmp(s, "[FTRACE TRAMPOLINE]", (size_t)(e - s))) {
		f->trampoline = true;
		f->addr = STACKMAP_TRAMPOLINE;
		return true;
	}

	/* optional " [module]" */
	if (e - s >= 4 && e[-1] == ']') {
		const char *open = e - 2;

		while (open > s && *open != '[')
			open--;
		if (open > s + 1 && *open == '[' && open[-1] == ' ' && open + 1 < e - 1) {
			f->mod = open + 1;
			f->mod_len = (size_t)(e - 1 - f->mod);
			for (size_t i = 0; i < f->mod_len; i++) {
				if (!sym_char_ok(f->mod[i]))
					return false;
			}
			e = open - 1;
		}
	}
	if (s == e)
		return false;

	if (!f->mod && parse_hex(s, e, &f->addr))
		return true;

	for (const char *q = s; q < e; q++) {
		if (!sym_char_ok(*q))
			return false;
		if (*q == '+')
			plus = q;
	}
	if (plus) {
		const char *slash = memchr(plus, '/', (size_t)(e - plus));
		uint64_t size;

		if (plus == s)
			return false;
		if (slash && parse_hex(plus + 1, slash, &f->off) &&
		    parse_hex(slash + 1, e, &size)) {
			f->size = size;
			f->sym = s;
			f->sym_len = (size_t)(plus - s);
			return true;
		}
		if (!slash && parse_hex(plus + 1, e, &f->off)) {
			f->sym = s;
			f->sym_len = (size_t)(plus - s);
			return true;
		}
		return false;
	}
	/* A name without an offset (not printed by %pS): tolerated, offset 0. */
	f->off = 0;
	f->sym = s;
	f->sym_len = (size_t)(e - s);
	return true;
}

/* "  [%u] body" */
static bool parse_frame(const char *s, const char *e, struct stackmap_frame *f)
{
	struct cursor c = { s, e };
	uint32_t idx;

	if (!cur_lit(&c, "  [") || !cur_u32(&c, &idx) || !cur_lit(&c, "] "))
		return false;
	return parse_frame_body(c.p, c.end, f);
}

/* hand one finished record of the text to @visit and count it */
static int text_emit(int (*visit)(void *ctx, uint32_t id, uint32_t ref, uint32_t depth,
				  const struct stackmap_frame *frames, uint32_t nframes),
		     void *ctx, uint32_t id, uint32_t ref, uint32_t depth,
		     const struct stackmap_frame *frames, uint32_t nframes, int *count)
{
	int r = visit ? visit(ctx, id, ref, depth, frames, nframes) : 0;

	if (!r && *count < INT_MAX)
		(*count)++;
	return r;
}

int stackmap_text_parse(const char *text, size_t len,
			int (*visit)(void *ctx, uint32_t id, uint32_t ref, uint32_t depth,
				     const struct stackmap_frame *frames, uint32_t nframes),
			void *ctx)
{
	struct stackmap_frame frames[STACKMAP_MAX_DEPTH];
	const char *p = text;
	const char *end = text + len;
	uint32_t id = 0, ref = 0, depth = 0, nframes = 0;
	bool open = false;
	int count = 0;
	int r;

	if (!text)
		return len ? -EBADMSG : 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		const char *next = nl ? nl + 1 : end;
		struct stackmap_frame f;
		uint32_t nid, nref, ndepth;
		bool blank = true;

		if (le > p && le[-1] == '\r')
			le--;
		for (const char *q = p; q < le; q++) {
			if (*q != ' ' && *q != '\t') {
				blank = false;
				break;
			}
		}

		if (blank || parse_header(p, le, &nid, &nref, &ndepth)) {
			if (open) {
				r = text_emit(visit, ctx, id, ref, depth, frames, nframes, &count);
				if (r)
					return r;
				open = false;
			}
			if (!blank) {
				id = nid;
				ref = nref;
				depth = ndepth;
				nframes = 0;
				open = true;
			}
		} else if (open && parse_frame(p, le, &f)) {
			if (nframes < STACKMAP_MAX_DEPTH)
				frames[nframes++] = f;
		} else if (nl) {
			return -EBADMSG;
		}
		/* else: an unterminated last line that does not parse was cut; drop it */
		p = next;
	}

	if (open) {
		r = text_emit(visit, ctx, id, ref, depth, frames, nframes, &count);
		if (r)
			return r;
	}
	return count;
}

/* --- stack_map_stat ---------------------------------------------------- */

static const char *skip_ws(const char *s, const char *e)
{
	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	return s;
}

static const char *trim_end(const char *s, const char *e)
{
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		e--;
	return e;
}

/* A decimal u64 at *sp; advances past it. */
static bool parse_u64(const char **sp, const char *e, uint64_t *ret)
{
	const char *s = *sp;
	uint64_t v = 0;

	if (s >= e || *s < '0' || *s > '9')
		return false;
	for (; s < e && *s >= '0' && *s <= '9'; s++) {
		uint64_t d = (uint64_t)(*s - '0');

		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*sp = s;
	*ret = v;
	return true;
}

static bool key_is(const char *k, size_t klen, const char *name)
{
	return klen == strlen(name) && !memcmp(k, name, klen);
}

/* "N / M" (v2+, v1 code) or "N" (v1 doc). */
static bool parse_entries(const char *s, const char *e, uint64_t *n, uint64_t *m)
{
	if (!parse_u64(&s, e, n))
		return false;
	s = skip_ws(s, e);
	if (s == e) {
		*m = 0;
		return true;
	}
	if (*s != '/')
		return false;
	s = skip_ws(s + 1, e);
	return parse_u64(&s, e, m) && s == e;
}

static bool parse_plain(const char *s, const char *e, uint64_t *v)
{
	return parse_u64(&s, e, v) && s == e;
}

static bool parse_rate(const char *s, const char *e, int *rate)
{
	uint64_t v;

	if (!parse_u64(&s, e, &v) || v > INT_MAX)
		return false;
	s = skip_ws(s, e);
	if (s < e && *s == '%')
		s++;
	if (s != e)
		return false;
	*rate = (int)v;
	return true;
}

int stackmap_stat_parse(const char *text, struct stackmap_stat *ret)
{
	struct stackmap_stat st = { .success_rate = -1 };
	const char *p = text;
	bool known = false;

	if (!text)
		return -EBADMSG;

	while (*p) {
		const char *nl = strchr(p, '\n');
		const char *le = nl ? nl : p + strlen(p);
		const char *colon = memchr(p, ':', (size_t)(le - p));
		const char *ks = skip_ws(p, le), *ke, *vs, *ve;
		bool ok = true;
		size_t klen;

		if (!colon) {
			const char *te = trim_end(ks, le);

			if ((size_t)(te - ks) == strlen("stackmap not initialized") &&
			    !memcmp(ks, "stackmap not initialized", (size_t)(te - ks)))
				return -ENODATA;
			p = nl ? nl + 1 : le;
			continue;
		}
		ke = trim_end(ks, colon);
		vs = skip_ws(colon + 1, le);
		ve = trim_end(vs, le);
		klen = (size_t)(ke - ks);

		if (key_is(ks, klen, "entries")) {
			ok = parse_entries(vs, ve, &st.entries, &st.capacity);
			known = true;
		} else if (key_is(ks, klen, "success_rate") || key_is(ks, klen, "hit_rate")) {
			ok = parse_rate(vs, ve, &st.success_rate);
			st.v1_names |= ks[0] == 'h';
			known = true;
		} else {
			/* the plain counters; v1 said hits where v2+ say successes */
			static const struct {
				const char *key;
				size_t off;
			} plain[] = {
				{ "table_size", offsetof(struct stackmap_stat, table_size) },
				{ "successes", offsetof(struct stackmap_stat, successes) },
				{ "hits", offsetof(struct stackmap_stat, successes) },
				{ "drops", offsetof(struct stackmap_stat, drops) },
			};
			size_t i;

			for (i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
				if (!key_is(ks, klen, plain[i].key))
					continue;
				ok = parse_plain(vs, ve, (uint64_t *)((char *)&st + plain[i].off));
				st.v1_names |= ks[0] == 'h';
				known = true;
				break;
			}
		}
		if (!ok)
			return -EBADMSG;
		p = nl ? nl + 1 : le;
	}

	if (!known)
		return -EBADMSG;
	*ret = st;
	return 0;
}

/* --- frames named by text only -------------------------------------------- */

struct named {
	char *name;
	char *module;
	uint64_t size;
};

struct stackmap_names {
	struct named *ents;
	size_t nr, cap;
	uint32_t *slots; /* open addressing: ents index + 1, 0 empty */
	size_t nslots;
};

struct stackmap_names *stackmap_names_new(void)
{
	return calloc(1, sizeof(struct stackmap_names));
}

void stackmap_names_free(struct stackmap_names *n)
{
	size_t i;

	if (!n)
		return;
	for (i = 0; i < n->nr; i++) {
		free(n->ents[i].name);
		free(n->ents[i].module);
	}
	free(n->ents);
	free(n->slots);
	free(n);
}

static uint64_t names_hash(const char *s, size_t len, const char *m, size_t mlen, uint64_t size)
{
	uint64_t h = 1469598103934665603ULL ^ size;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (uint8_t)s[i]) * 1099511628211ULL;
	h = (h ^ '[') * 1099511628211ULL;
	for (i = 0; i < mlen; i++)
		h = (h ^ (uint8_t)m[i]) * 1099511628211ULL;
	return h ^ (h >> 29);
}

static bool names_eq(const struct named *e, const struct stackmap_frame *f)
{
	if (e->size != f->size || strlen(e->name) != f->sym_len ||
	    memcmp(e->name, f->sym, f->sym_len))
		return false;
	if (!f->mod)
		return !e->module;
	return e->module && strlen(e->module) == f->mod_len &&
	       !memcmp(e->module, f->mod, f->mod_len);
}

static int names_grow(struct stackmap_names *n)
{
	size_t ns = n->nslots ? n->nslots * 2 : 1024, i;
	uint32_t *slots = calloc(ns, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (i = 0; i < n->nr; i++) {
		const struct named *e = &n->ents[i];
		size_t h = (size_t)names_hash(e->name, strlen(e->name), e->module,
					      e->module ? strlen(e->module) : 0, e->size);

		while (slots[h & (ns - 1)])
			h++;
		slots[h & (ns - 1)] = (uint32_t)(i + 1);
	}
	free(n->slots);
	n->slots = slots;
	n->nslots = ns;
	return 0;
}

static char *dup_n(const char *s, size_t len)
{
	char *d = malloc(len + 1);

	if (d) {
		memcpy(d, s, len);
		d[len] = '\0';
	}
	return d;
}

int stackmap_names_intern(struct stackmap_names *n, const struct stackmap_frame *f, uint64_t *ret)
{
	struct named *e;
	size_t h;

	if (!f->sym || f->off >= STACKMAP_NAMED_SPAN)
		return -EINVAL;
	if ((n->nr + 1) * 2 > n->nslots && names_grow(n) < 0)
		return -ENOMEM;
	h = (size_t)names_hash(f->sym, f->sym_len, f->mod, f->mod ? f->mod_len : 0, f->size);
	for (;; h++) {
		uint32_t v = n->slots[h & (n->nslots - 1)];

		if (!v)
			break;
		if (names_eq(&n->ents[v - 1], f)) {
			*ret = STACKMAP_NAMED_BASE + (uint64_t)(v - 1) * STACKMAP_NAMED_SPAN +
			       f->off;
			return 0;
		}
	}
	/* 2^31 slots fit below the top of the non-canonical range */
	if (n->nr >= (1u << 30))
		return -ENOSPC;
	if (n->nr == n->cap) {
		size_t cap = n->cap ? n->cap * 2 : 256;
		struct named *ne = realloc(n->ents, cap * sizeof(*ne));

		if (!ne)
			return -ENOMEM;
		n->ents = ne;
		n->cap = cap;
	}
	e = &n->ents[n->nr];
	e->name = dup_n(f->sym, f->sym_len);
	e->module = f->mod ? dup_n(f->mod, f->mod_len) : NULL;
	e->size = f->size;
	if (!e->name || (f->mod && !e->module)) {
		free(e->name);
		free(e->module);
		return -ENOMEM;
	}
	n->slots[h & (n->nslots - 1)] = (uint32_t)(n->nr + 1);
	*ret = STACKMAP_NAMED_BASE + (uint64_t)n->nr * STACKMAP_NAMED_SPAN + f->off;
	n->nr++;
	return 0;
}

int stackmap_names_lookup(const struct stackmap_names *n, uint64_t addr, const char **name,
			  const char **module, uint64_t *start, uint64_t *size)
{
	uint64_t idx;

	if (!n || addr < STACKMAP_NAMED_BASE)
		return -ENOENT;
	idx = (addr - STACKMAP_NAMED_BASE) / STACKMAP_NAMED_SPAN;
	if (idx >= n->nr)
		return -ENOENT;
	*name = n->ents[idx].name;
	*module = n->ents[idx].module;
	*start = STACKMAP_NAMED_BASE + idx * STACKMAP_NAMED_SPAN;
	*size = n->ents[idx].size;
	return 0;
}

size_t stackmap_names_count(const struct stackmap_names *n)
{
	return n ? n->nr : 0;
}
