// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * colblob.c - a document as a JSON header and binary columns (colblob.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "output/colblob.h"

static const char *const colblob_names[] = { "u8", "u16", "u32", "f64" };
static const unsigned int colblob_size[] = { 1, 2, 4, 8 };

int colblob_init(struct colblob *c)
{
	memset(c, 0, sizeof(*c));
	c->bin = open_memstream(&c->data, &c->len);
	return c->bin ? 0 : -errno;
}

enum colblob_type colblob_type_for(uint64_t max)
{
	if (max <= UINT8_MAX)
		return COLBLOB_U8;
	if (max <= UINT16_MAX)
		return COLBLOB_U16;
	return max <= UINT32_MAX ? COLBLOB_U32 : COLBLOB_F64;
}

/* zeros to a multiple of 8 bytes: each column starts aligned for its type */
static void colblob_pad(FILE *f, long at)
{
	for (; at % 8; at++)
		fputc(0, f);
}

void colblob_column(struct colblob *c, const char *name, enum colblob_type type, size_t n)
{
	int len;

	if (c->left && !c->err)
		c->err = -EINVAL;
	colblob_pad(c->bin, ftell(c->bin));
	len = snprintf(c->spec + c->speclen, sizeof(c->spec) - c->speclen, "%s[\"%s\",\"%s\",%zu]",
		       c->speclen ? "," : "", name, colblob_names[type], n);
	if (len < 0 || (size_t)len >= sizeof(c->spec) - c->speclen) {
		c->err = c->err ? c->err : -E2BIG;
		return;
	}
	c->speclen += (size_t)len;
	c->type = type;
	c->left = n;
}

void colblob_put(struct colblob *c, uint64_t v)
{
	unsigned char b[8];
	unsigned int i, size = colblob_size[c->type];

	if (!c->left) {
		c->err = c->err ? c->err : -EINVAL;
		return;
	}
	c->left--;
	if (c->type == COLBLOB_F64) {
		double d = (double)v;

		memcpy(&v, &d, sizeof(v));
	}
	for (i = 0; i < size; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	fwrite(b, 1, size, c->bin);
}

void colblob_spec(const struct colblob *c, FILE *f)
{
	fprintf(f, "\"columns\":[%.*s]", (int)c->speclen, c->spec);
}

int colblob_finish(struct colblob *c, const char *header, size_t hlen, char **out, size_t *outlen)
{
	size_t head = 4 + hlen, at, i;
	char *doc;

	*out = NULL;
	*outlen = 0;
	if (!c->err && c->left)
		c->err = -EINVAL;
	if (fflush(c->bin) != 0 || ferror(c->bin))
		c->err = c->err ? c->err : -ENOMEM;
	if (c->err)
		return c->err;
	if (hlen > UINT32_MAX)
		return -E2BIG;
	at = (head + 7) / 8 * 8;
	doc = malloc(at + c->len);
	if (!doc)
		return -ENOMEM;
	for (i = 0; i < 4; i++)
		doc[i] = (char)(hlen >> (8 * i));
	memcpy(doc + 4, header, hlen);
	memset(doc + head, 0, at - head);
	if (c->len)
		memcpy(doc + at, c->data, c->len);
	*out = doc;
	*outlen = at + c->len;
	return 0;
}

void colblob_free(struct colblob *c)
{
	if (c->bin)
		fclose(c->bin);
	free(c->data);
	memset(c, 0, sizeof(*c));
}
