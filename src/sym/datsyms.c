// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * datsyms.c - see datsyms.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/regfile.h"
#include "sym/datsyms.h"

#define MAX_KALLSYMS (256u << 20)

struct rd {
	FILE *f;
	bool big;
	uint64_t size; /* of the file */
};

static int rd_bytes(struct rd *r, void *buf, size_t n)
{
	return fread(buf, 1, n, r->f) == n ? 0 : -EBADMSG;
}

static int rd_uint(struct rd *r, unsigned int n, uint64_t *ret)
{
	uint8_t b[8];
	uint64_t v = 0;
	unsigned int i;

	if (rd_bytes(r, b, n))
		return -EBADMSG;
	for (i = 0; i < n; i++)
		v |= (uint64_t)b[r->big ? n - 1 - i : i] << (8 * i);
	*ret = v;
	return 0;
}

/* skip @n bytes, which must lie inside the file */
static int rd_skip(struct rd *r, uint64_t n)
{
	long pos = ftell(r->f);

	if (pos < 0 || n > r->size - (uint64_t)pos)
		return -EBADMSG;
	return fseek(r->f, (long)n, SEEK_CUR) ? -EBADMSG : 0;
}

static int rd_tag(struct rd *r, const char *tag)
{
	char buf[16];
	size_t n = strlen(tag) + 1;

	if (rd_bytes(r, buf, n) || memcmp(buf, tag, n))
		return -EBADMSG;
	return 0;
}

/* a NUL-terminated name of at most 255 bytes */
static int rd_name(struct rd *r)
{
	int c, i;

	for (i = 0; i < 256; i++) {
		c = fgetc(r->f);
		if (c == EOF)
			return -EBADMSG;
		if (!c)
			return 0;
	}
	return -EBADMSG;
}

static int walk(struct rd *r, char **ret, size_t *ret_len)
{
	static const uint8_t magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	uint8_t head[10], endian, lsize;
	char version[8];
	uint64_t v, n, i, sys, len;
	int k;

	if (rd_bytes(r, head, sizeof(head)) || memcmp(head, magic, sizeof(magic)))
		return -EBADMSG;
	for (k = 0; k < (int)sizeof(version); k++) {
		int c = fgetc(r->f);

		if (c == EOF)
			return -EBADMSG;
		version[k] = (char)c;
		if (!c)
			break;
	}
	if (k == (int)sizeof(version))
		return -EBADMSG;
	if (strcmp(version, "6"))
		return strtol(version, NULL, 10) > 6 ? -EOPNOTSUPP : -EBADMSG;
	if (rd_bytes(r, &endian, 1) || rd_bytes(r, &lsize, 1) || endian > 1)
		return -EBADMSG;
	r->big = endian == 1;
	if (rd_uint(r, 4, &v)) /* page size */
		return -EBADMSG;
	if (rd_tag(r, "header_page") || rd_uint(r, 8, &n) || rd_skip(r, n))
		return -EBADMSG;
	if (rd_tag(r, "header_event") || rd_uint(r, 8, &n) || rd_skip(r, n))
		return -EBADMSG;
	if (rd_uint(r, 4, &n)) /* ftrace event formats */
		return -EBADMSG;
	for (i = 0; i < n; i++)
		if (rd_uint(r, 8, &len) || rd_skip(r, len))
			return -EBADMSG;
	if (rd_uint(r, 4, &sys)) /* event systems */
		return -EBADMSG;
	for (; sys; sys--) {
		if (rd_name(r) || rd_uint(r, 4, &n))
			return -EBADMSG;
		for (i = 0; i < n; i++)
			if (rd_uint(r, 8, &len) || rd_skip(r, len))
				return -EBADMSG;
	}
	if (rd_uint(r, 4, &len)) /* kallsyms */
		return -EBADMSG;
	if (!len)
		return -ENOENT;
	if (len > MAX_KALLSYMS)
		return -EFBIG;
	if (ftell(r->f) < 0 || len > r->size - (uint64_t)ftell(r->f))
		return -EBADMSG;
	*ret = malloc(len + 1);
	if (!*ret)
		return -ENOMEM;
	if (rd_bytes(r, *ret, len)) {
		free(*ret);
		*ret = NULL;
		return -EBADMSG;
	}
	(*ret)[len] = '\0';
	*ret_len = len;
	return 0;
}

int datsyms_read(int fd, char **ret, size_t *ret_len)
{
	struct rd r = { 0 };
	struct stat sb;
	int e, own;

	*ret = NULL;
	*ret_len = 0;
	/* the recording's file, a description of our own (this reader seeks) */
	own = regfile_reopen(fd);
	if (own < 0)
		return own;
	r.f = fdopen(own, "rb");
	if (!r.f) {
		e = -errno;
		close(own);
		return e;
	}
	if (fstat(fileno(r.f), &sb) < 0) {
		e = -errno;
		fclose(r.f);
		return e;
	}
	r.size = (uint64_t)sb.st_size;
	e = walk(&r, ret, ret_len);
	fclose(r.f);
	return e;
}
