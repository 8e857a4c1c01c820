// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * usym_text.c - user frames read back from a snapshot (usym_intern_text()):
 * no process is looked at, the frame is the text usym_format() wrote.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/format.h"
#include "core/mix64.h"
#include "sym/usym_priv.h"

/*
 * A frame read back from a snapshot is the text usym_format() wrote with
 * the offset and the file: "func+0xoff (file)", "[unknown] 0xaddr
 * (file+0xoff)" or "[unknown] 0xaddr". The other forms are cut from it as
 * usym_format() would print them.
 */
int usym_text_format(const char *text, char *buf, size_t size, bool offset, bool with_file)
{
	size_t len = strlen(text), head = len, n;
	const char *paren = NULL, *p;
	char raw[512];

	if (len && text[len - 1] == ')' && (p = strstr(text, " (")) != NULL) {
		/* the file part is the last " (...)" */
		for (;;) {
			const char *next = strstr(p + 2, " (");

			if (!next)
				break;
			p = next;
		}
		n = (size_t)(p - text);
		paren = text + n;
		head = n;
	}
	if (!strncmp(text, "[unknown] 0x", 12)) {
		/* no symbol: the address goes with the offset; the file part always shows */
		if (!offset && paren)
			snprintf(raw, sizeof(raw), "[unknown]%s", paren);
		else
			snprintf(raw, sizeof(raw), "%s", text);
		return (int)fmt_sanitize(buf, size, raw, strlen(raw));
	}
	if (!offset) {
		/* "+0x<hex>" at the end of the name */
		for (n = head; n > 0 && isxdigit((unsigned char)text[n - 1]); n--)
			;
		if (n >= 3 && n < head && text[n - 1] == 'x' && text[n - 2] == '0' &&
		    text[n - 3] == '+')
			head = n - 3;
	}
	snprintf(raw, sizeof(raw), "%.*s%s", (int)head, text, with_file && paren ? paren : "");
	return (int)fmt_sanitize(buf, size, raw, strlen(raw));
}

/* the token of a read-back frame's function start: "func+0x0 (file)" */
uint64_t usym_text_start(struct usym *u, const struct utok *t, uint64_t ip)
{
	char fn[512], full[600];
	const char *paren = NULL, *plus, *p;
	unsigned long long off;
	uint64_t tok;
	size_t n;

	if (!strncmp(t->name, "[unknown]", 9))
		return ip;
	for (p = strstr(t->name, " ("); p; p = strstr(p + 2, " ("))
		paren = p;
	n = paren ? (size_t)(paren - t->name) : strlen(t->name);
	snprintf(fn, sizeof(fn), "%.*s", (int)n, t->name);
	plus = strrchr(fn, '+');
	if (!plus || sscanf(plus, "+0x%llx", &off) != 1 || !off || off > t->addr)
		return ip;
	snprintf(full, sizeof(full), "%.*s+0x0%s", (int)(plus - fn), fn, paren ? paren : "");
	tok = usym_intern_text(u, t->tgid, t->addr - off, full);
	return tok ? tok : ip;
}

struct tok_text {
	uint64_t addr;
	uint32_t tgid;
	const char *text;
};

static bool tok_is_text(const struct utok *t, const void *ctx)
{
	const struct tok_text *w = ctx;

	return t->state == TOK_TEXT && t->addr == w->addr && t->tgid == w->tgid &&
	       !strcmp(t->name, w->text);
}

uint64_t usym_intern_text(struct usym *u, uint32_t tgid, uint64_t addr, const char *text)
{
	return usym_intern_text_line(u, tgid, addr, text, NULL);
}

uint64_t usym_intern_text_line(struct usym *u, uint32_t tgid, uint64_t addr, const char *text,
			       const char *line)
{
	struct tok_text want = { addr, tgid, text };
	uint64_t key = mix64(addr) ^ ((uint64_t)tgid << 32) ^ 0x7465787400000000ULL;
	uint32_t i = usym_tok_find(u, key, tok_is_text, &want, &key);

	if (i != UINT32_MAX)
		return USYM_TAG_FRAME | i;
	if (u->ntoks >= 0xffffffffu - 1)
		return 0;
	if (ARRAY_GROW(u->toks, u->ctoks, u->ntoks + 1) < 0)
		return 0;
	memset(&u->toks[u->ntoks], 0, sizeof(u->toks[0]));
	u->toks[u->ntoks].name = strdup(text);
	if (!u->toks[u->ntoks].name)
		return 0;
	if (hmap_put(&u->tokmap, key, u->ntoks) < 0) {
		free(u->toks[u->ntoks].name);
		u->toks[u->ntoks].name = NULL;
		return 0;
	}
	u->toks[u->ntoks].addr = addr;
	u->toks[u->ntoks].tgid = tgid;
	u->toks[u->ntoks].proc = UINT32_MAX;
	u->toks[u->ntoks].file = UINT32_MAX;
	u->toks[u->ntoks].state = TOK_TEXT;
	if (line && line[0]) {
		u->toks[u->ntoks].src = strdup(line);
		if (u->toks[u->ntoks].src)
			u->dw_bytes += strlen(line) + 1;
	}
	return USYM_TAG_FRAME | u->ntoks++;
}

struct tok_label {
	const char *text;
};

static bool tok_is_label(const struct utok *t, const void *ctx)
{
	const struct tok_label *w = ctx;

	return t->state == TOK_LABEL && !strcmp(t->name, w->text);
}

uint64_t usym_intern_label(struct usym *u, const char *text)
{
	struct tok_label want = { text };
	uint64_t key = 0xcbf29ce484222325ULL, nk;
	const char *p;
	uint32_t i;

	for (p = text; *p; p++)
		key = (key ^ (uint8_t)*p) * 0x100000001b3ULL; /* FNV-1a */
	key = mix64(key) ^ 0x6c6162656c000000ULL;
	i = usym_tok_find(u, key, tok_is_label, &want, &nk);
	if (i != UINT32_MAX)
		return USYM_TAG_FRAME | i;
	if (u->ntoks >= 0xffffffffu - 1 || ARRAY_GROW(u->toks, u->ctoks, u->ntoks + 1) < 0)
		return 0;
	memset(&u->toks[u->ntoks], 0, sizeof(u->toks[0]));
	u->toks[u->ntoks].name = strdup(text);
	if (!u->toks[u->ntoks].name)
		return 0;
	if (hmap_put(&u->tokmap, nk, u->ntoks) < 0) {
		free(u->toks[u->ntoks].name);
		u->toks[u->ntoks].name = NULL;
		return 0;
	}
	u->toks[u->ntoks].proc = UINT32_MAX;
	u->toks[u->ntoks].file = UINT32_MAX;
	u->toks[u->ntoks].state = TOK_LABEL;
	u->label_bytes += strlen(text) + 1;
	return USYM_TAG_FRAME | u->ntoks++;
}
