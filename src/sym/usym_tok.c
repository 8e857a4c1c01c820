// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * usym_tok.c - the symbolizer's tokens (usym.h): an address of a process
 * image interned as a token at ingest (usym_intern(), its process read
 * then), named when first shown (usym_format(), usym_start()): from the
 * symbols of the file mapped there (usym_file.c), else the process's perf
 * map (usym_perf.c), else the file offset; the name kept in the cache
 * (usym.c). The file at the top of the symbolizer: it calls the others,
 * none calls it (usym_free() is here for that reason).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/format.h"
#include "core/mix64.h"
#include "core/ujoin.h"
#include "sym/cfi_scan.h"
#include "sym/usym_priv.h"

/* bytes the next new token allocates (the arrays double), 0 mostly */
static size_t tok_growth(const struct usym *u)
{
	size_t b = 0;

	if (u->ntoks + 1 > u->ctoks)
		b += (u->ctoks ? u->ctoks : 64) * sizeof(*u->toks);
	return b + hmap_grow_bytes(&u->tokmap);
}

struct tok_addr {
	uint64_t addr;
	uint32_t proc;
};

static bool tok_is_addr(const struct utok *t, const void *ctx)
{
	const struct tok_addr *a = ctx;

	return t->addr == a->addr && t->proc == a->proc;
}

static void tok_resolve(struct usym *u, struct utok *t);

uint64_t usym_intern(struct usym *u, uint32_t tgid, uint64_t addr)
{
	uint32_t pi = usym_proc_get(u, tgid), i;
	struct tok_addr want = { addr, pi };
	uint64_t key;

	if (pi == UINT32_MAX)
		return 0;
	i = usym_tok_find(u, mix64(addr) ^ pi, tok_is_addr, &want, &key);
	if (i != UINT32_MAX)
		return USYM_TAG_FRAME | i;
	if (u->ntoks >= 0xffffffffu - 1)
		return 0;
	if (u->limit && usym_memory(u) + tok_growth(u) >= u->limit) {
		u->refused++; /* the frames interned so far stay; no new one */
		return 0;
	}
	if (ARRAY_GROW(u->toks, u->ctoks, u->ntoks + 1) < 0)
		return 0;
	if (hmap_put(&u->tokmap, key, u->ntoks) < 0)
		return 0;
	memset(&u->toks[u->ntoks], 0, sizeof(u->toks[0]));
	u->toks[u->ntoks].addr = addr;
	u->toks[u->ntoks].tgid = tgid;
	u->toks[u->ntoks].proc = pi;
	u->toks[u->ntoks].file = UINT32_MAX;
	/*
	 * Code in no file (JIT): its perf map is read now, while the process
	 * most likely lives (once a refresh; never after it is gone)
	 */
	{
		struct uproc *pr = &u->procs[pi];
		const struct usym_map *m = usym_find_map(pr->maps, pr->nmaps, addr);

		/*
		 * in no mapping known: mapped since its maps were read (a
		 * library the loader maps after the process's first sample,
		 * dlopen): read them again now, while it lives (once a refresh)
		 */
		if (!m && !pr->gone && pr->snapped != u->epoch + 1) {
			pr->snapped = u->epoch + 1;
			usym_proc_snapshot(u, pr);
			m = usym_find_map(pr->maps, pr->nmaps, addr);
		}
		if (!m || !m->ino) {
			perf_refresh(u, pr);
			if (!perf_find(pr, addr))
				perf_refresh_miss(u, pr);
			/*
			 * named now, while the process lives: its perf map is not
			 * read after it is gone, and a short-lived JIT's last
			 * entries come late
			 */
			tok_resolve(u, &u->toks[u->ntoks]);
		}
	}
	return USYM_TAG_FRAME | u->ntoks++;
}

int usym_lookup(const struct usym *u, uint64_t tok, uint32_t *ret_tgid, uint64_t *ret_addr)
{
	uint64_t i = tok & ~USYM_TAG_MASK;

	if ((tok & USYM_TAG_MASK) != USYM_TAG_FRAME || i >= u->ntoks)
		return -ENOENT;
	*ret_tgid = u->toks[i].tgid;
	*ret_addr = u->toks[i].addr;
	return 0;
}

static void tok_resolve(struct usym *u, struct utok *t)
{
	struct uproc *pr = &u->procs[t->proc];
	const struct usym_map *m;
	const struct perfsym *ps;

	if (u->name_bytes > usym_names_max(u))
		usym_names_drop(u);
	m = usym_find_map(pr->maps, pr->nmaps, t->addr);
	if (!m && !pr->retried) {
		pr->retried = true; /* mapped after the first look (dlopen, exec) */
		usym_proc_snapshot(u, pr);
		m = usym_find_map(pr->maps, pr->nmaps, t->addr);
	}
	if (!m || !m->ino) {
		perf_refresh(u, pr);
		ps = perf_find(pr, t->addr);
		if (ps) {
			t->state = TOK_PERF;
			t->symoff = t->addr - ps->start;
			t->name = strdup(perf_name(pr, ps));
			if (t->name)
				u->name_bytes += strlen(t->name) + 1;
			else
				t->state = TOK_NOMAP;
			return;
		}
	}
	if (!m) {
		t->state = TOK_NOMAP;
		return;
	}
	t->file = pr->mfile[m - pr->maps];
	t->fileoff = t->addr - m->start + m->pgoff;
	t->state = TOK_FILE;
	if (t->file != UINT32_MAX) {
		t->name = usym_file_symbol(u, t->file, t->fileoff, &t->symoff);
		if (t->name) {
			t->state = TOK_SYM;
			u->name_bytes += strlen(t->name) + 1;
		}
	}
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

const char *usym_none_label(uint64_t ip)
{
	switch (usym_none_why(ip)) {
	case UJOIN_NO_SAMPLE:
		return "[user stack lost: no perf sample]";
	case UJOIN_SAMPLE_LOST:
		return "[user stack lost: perf ring full]";
	case UJOIN_UNWIND_FAILED:
		return "[user stack lost: unwind failed]";
	case UJOIN_NO_MAPS:
		return "[user stack lost: process maps unknown]";
	case UJOIN_NOT_SAMPLED:
		return "[user stack not sampled]";
	default:
		return "[user stack lost]";
	}
}

int usym_format(struct usym *u, uint64_t ip, char *buf, size_t size, bool offset, bool with_file)
{
	char raw[512], file[256];
	uint64_t i = ip & ~USYM_TAG_MASK;
	const struct uproc *pr;
	struct utok *t;
	int n;

	if ((ip & USYM_TAG_MASK) == USYM_TAG_SEP)
		return snprintf(buf, size, "--");
	/* the cut mark says why the walk ended there */
	if (ip == USYM_CUT_STACK)
		return snprintf(buf, size, "[cut: end of the copied user stack]");
	if (ip == USYM_CUT_FAILED)
		return snprintf(buf, size, "[cut: unwind failed: no unwind table]");
	if (ip == USYM_CUT_MEMORY)
		return snprintf(buf, size, "[cut: --max-memory: user frames not kept]");
	if (ip == USYM_CUT_REFUSED)
		return snprintf(buf, size, "[cut: unwind info refused]");
	if (ip > USYM_CUT_REFUSED && ip < (USYM_CUT | (0x10 + CFI_VERDICT_MAX)))
		return snprintf(buf, size, "[cut: unwind info refused: %s]",
				cfi_verdict_name((enum cfi_verdict)(ip - (USYM_CUT | 0x10))));
	if (usym_is_cut(ip))
		return snprintf(buf, size, "[cut: more user frames]");
	if (usym_is_none(ip))
		return snprintf(buf, size, "%s", usym_none_label(ip));
	if (!u || (ip & USYM_TAG_MASK) != USYM_TAG_FRAME || i >= u->ntoks)
		return snprintf(buf, size, "[unknown] 0x%" PRIx64, ip);
	t = &u->toks[i];
	if (t->state == TOK_TEXT)
		return usym_text_format(t->name, buf, size, offset, with_file);
	if (t->state == TOK_LABEL)
		return (int)fmt_sanitize(buf, size, t->name, strlen(t->name));
	if (t->state == TOK_INL) {
		/* an inlined call: its function, no offset of its own */
		snprintf(raw, sizeof(raw), "%s (inlined)%s%s%s", t->name ? t->name : "[unknown]",
			 with_file ? " (" : "",
			 with_file ? base_name(usym_file_path(u, t->file)) : "",
			 with_file ? ")" : "");
		return (int)fmt_sanitize(buf, size, raw, strlen(raw));
	}
	if (t->state == TOK_NEW)
		tok_resolve(u, t);
	pr = &u->procs[t->proc];
	file[0] = '\0';
	if (t->state == TOK_PERF)
		snprintf(file, sizeof(file), "perf-%u.map", pr->nspid);
	else if ((t->state == TOK_SYM || t->state == TOK_FILE) && t->file != UINT32_MAX)
		snprintf(file, sizeof(file), "%s", base_name(usym_file_path(u, t->file)));
	else if (t->state == TOK_SYM || t->state == TOK_FILE) {
		/* the mapping's pseudo name: looked up again (the maps may have been read since) */
		const struct usym_map *m = usym_find_map(pr->maps, pr->nmaps, t->addr);

		snprintf(file, sizeof(file), "%s", m && m->path[0] ? m->path : "[anon]");
	}
	switch (t->state) {
	case TOK_SYM:
	case TOK_PERF:
		n = snprintf(raw, sizeof(raw), "%s", t->name);
		if (offset && n >= 0 && (size_t)n < sizeof(raw))
			snprintf(raw + n, sizeof(raw) - (size_t)n, "+0x%" PRIx64, t->symoff);
		if (with_file) {
			n = (int)strlen(raw);
			snprintf(raw + n, sizeof(raw) - (size_t)n, " (%s)", file);
		}
		break;
	case TOK_FILE:
		if (offset)
			snprintf(raw, sizeof(raw), "[unknown] 0x%" PRIx64 " (%s+0x%" PRIx64 ")",
				 t->addr, file, t->fileoff);
		else
			snprintf(raw, sizeof(raw), "[unknown] (%s+0x%" PRIx64 ")", file,
				 t->fileoff);
		break;
	default:
		snprintf(raw, sizeof(raw), "[unknown] 0x%" PRIx64, t->addr);
		break;
	}
	/* names come from files and processes: never raw to a terminal */
	return (int)fmt_sanitize(buf, size, raw, strlen(raw));
}

uint64_t usym_start(struct usym *u, uint64_t ip)
{
	uint64_t i = ip & ~USYM_TAG_MASK, tok;
	struct utok *t;

	if (!u || (ip & USYM_TAG_MASK) != USYM_TAG_FRAME || i >= u->ntoks)
		return ip;
	t = &u->toks[i];
	if (t->state == TOK_TEXT)
		return usym_text_start(u, t, ip);
	if (t->state == TOK_INL) {
		/* an inlined function's frames, wherever inlined: one key per process */
		char text[600];

		snprintf(text, sizeof(text), "%s (inlined) (%s)", t->name ? t->name : "[unknown]",
			 base_name(usym_file_path(u, t->file)));
		tok = usym_intern_text(u, t->tgid, 0, text);
		return tok ? tok : ip;
	}
	if (t->state == TOK_NEW)
		tok_resolve(u, t);
	/* TOK_FILE: a function no symbol names, its start from the unwind tables */
	if ((t->state != TOK_SYM && t->state != TOK_PERF && t->state != TOK_FILE) || !t->symoff)
		return ip;
	tok = usym_intern(u, t->tgid, t->addr - t->symoff);
	return tok ? tok : ip;
}

unsigned int usym_intern_chain(struct usym *u, uint32_t tgid, uint64_t addr, bool ret,
			       uint64_t *toks, unsigned int max)
{
	uint64_t tok = max ? usym_intern(u, tgid, addr) : 0;
	uint32_t i = (uint32_t)(tok & ~USYM_TAG_MASK);
	const struct utok *t;
	unsigned int n, k;

	if (!tok)
		return 0;
	usym_dwarf_chain(u, i, ret);
	t = &u->toks[i];
	n = t->ninl < max - 1 ? t->ninl : max - 1;
	for (k = 0; k < n; k++)
		toks[k] = USYM_TAG_FRAME | (t->inl + k);
	toks[n] = tok;
	return n + 1;
}

bool usym_is_inline(const struct usym *u, uint64_t tok)
{
	uint64_t i = tok & ~USYM_TAG_MASK;

	return u && (tok & USYM_TAG_MASK) == USYM_TAG_FRAME && i < u->ntoks &&
	       usym_tok_inlined(&u->toks[i]);
}

int usym_srcline(const struct usym *u, uint64_t tok, char *buf, size_t size, bool full)
{
	uint64_t i = tok & ~USYM_TAG_MASK;
	const char *src, *slash;

	if (size)
		buf[0] = '\0';
	if (!u || (tok & USYM_TAG_MASK) != USYM_TAG_FRAME || i >= u->ntoks || !u->toks[i].src)
		return 0;
	src = u->toks[i].src;
	/* "path:line": the file's name alone unless @full */
	slash = full ? NULL : strrchr(src, '/');
	return (int)fmt_sanitize(buf, size, slash ? slash + 1 : src,
				 strlen(slash ? slash + 1 : src));
}

void usym_tick(struct usym *u)
{
	u->epoch++;
	usym_dwarf_tick(u); /* the large DWARF the samples did not wait for */
}

void usym_free(struct usym *u)
{
	size_t i;

	if (!u)
		return;
	for (i = 0; i < u->ntoks; i++) {
		free(u->toks[i].name);
		free(u->toks[i].src);
	}
	usym_procs_free(u);
	usym_files_free(u);
	usym_kernel_free(u);
	hmap_done(&u->tokmap);
	free(u->toks);
	free(u);
}
