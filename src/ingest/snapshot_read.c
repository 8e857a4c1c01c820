// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snapshot_read.c - reading a snapshot (snapshot.h): pass 1 (every value
 * checked, the last one's "stacks" found), the header through snapshot.c,
 * pass 3 (the stacks one at a time, each checked by snapshot_stack.c and
 * handed over).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/array.h"
#include "core/regfile.h"
#include "ingest/jsonrd.h"
#include "ingest/snapshot.h"
#include "ingest/snapshot_priv.h"
#include "ingest/snapshot_stack.h"

/* ---- pass 1: the values of the input -------------------------------------------------- */

struct extent {
	uint64_t start;	    /* the last top-level value */
	uint64_t stacks_at; /* its "stacks" value, UINT64_MAX: none */
	uint64_t stacks_end;
};

/* every top-level value checked; where the last one and its "stacks" are */
static int scan(struct json_rd *r, struct extent *x)
{
	int n = 0, c, e;

	for (;;) {
		bool first = true;

		c = jr_ws(r);
		if (c < 0)
			break;
		x->start = jr_off(r);
		x->stacks_at = UINT64_MAX;
		n++;
		if (c != '{') {
			e = jr_skip(r, 0);
			if (e)
				return e;
			continue;
		}
		r->i++;
		/* the root object's members: note where "stacks" is */
		while ((e = jr_next_key(r, &first)) == 1) {
			bool st = !strcmp(r->s, "stacks");
			uint64_t at;

			jr_ws(r);
			at = jr_off(r);
			e = jr_skip(r, 1);
			if (e)
				return e;
			if (st) {
				x->stacks_at = at;
				x->stacks_end = jr_off(r);
			}
		}
		if (e)
			return e;
	}
	if (r->err && r->err[0])
		return -EIO;
	return n ? 0 : jr_fail(r, -EBADMSG, "empty: no snapshot in it");
}

/* ---- the reader --------------------------------------------------------------------- */

struct collect {
	struct snapshot *sn;
	size_t cap;
};

static int collect(void *ctx, const struct snapshot *sn, struct snap_stack *st)
{
	struct collect *c = ctx;

	(void)sn;
	if (ARRAY_GROW(c->sn->stacks, c->cap, c->sn->nstacks + 1) < 0)
		return -ENOMEM;
	c->sn->stacks[c->sn->nstacks++] = *st;
	memset(st, 0, sizeof(*st)); /* moved */
	return 0;
}

static int run(struct json_rd *r, snapshot_stack_fn fn, void *ctx, struct snapshot **ret)
{
	struct extent x = { .stacks_at = UINT64_MAX };
	struct collect col = { 0 };
	struct snap_stack st;
	struct snapshot *sn;
	bool first = true;
	size_t idx = 0;
	int e;

	*ret = NULL;
	memset(&st, 0, sizeof(st));
	if (r->err && r->errsz)
		r->err[0] = '\0';
	e = scan(r, &x);
	if (e)
		goto fail;
	e = jr_seek(r, x.start);
	if (e)
		goto fail;
	sn = calloc(1, sizeof(*sn));
	if (!sn) {
		e = -ENOMEM;
		goto fail;
	}
	e = snapshot_parse_header(r, sn, x.stacks_at, x.stacks_end);
	if (!e && x.stacks_at == UINT64_MAX)
		e = jr_fail(r, -EBADMSG, "\"stacks\" is missing");
	if (!e)
		e = jr_seek(r, x.stacks_at);
	if (!e)
		e = jr_expect(r, '[');
	if (e)
		goto fail_sn;
	col.sn = sn;
	if (!fn) {
		fn = collect;
		ctx = &col;
	}
	while ((e = jr_next_elem(r, &first)) == 1) {
		e = snapshot_parse_stack(r, sn, &st, idx);
		if (!e)
			e = fn(ctx, sn, &st);
		snapshot_stack_clear(&st);
		if (e)
			goto fail_sn;
		idx++;
	}
	if (e)
		goto fail_sn;
	if (fn != collect)
		sn->nstacks = idx;
	*ret = sn;
	return 0;
fail_sn:
	snapshot_stack_clear(&st);
	snapshot_free(sn);
fail:
	if (e == -ENOMEM)
		jr_fail(r, e, "out of memory");
	else if (!r->err || !r->err[0])
		jr_fail(r, e, "%s", strerror(-e));
	/* a syntax error is always "bad message", whatever came first */
	return r->syntax ? -EBADMSG : e;
}

int snapshot_parse(const char *buf, size_t len, struct snapshot **ret, char *err, size_t errsz)
{
	struct json_rd r = { .p = buf, .n = len, .len = len, .fd = -1, .err = err, .errsz = errsz };
	int e;

	*ret = NULL;
	if (err && errsz)
		err[0] = '\0';
	if (len > SNAPSHOT_MAX_BYTES)
		return jr_fail(&r, -EFBIG, "larger than %u MiB", SNAPSHOT_MAX_BYTES >> 20);
	e = run(&r, NULL, NULL, ret);
	free(r.s);
	return e;
}

int snapshot_load_each(const char *path, snapshot_stack_fn fn, void *ctx, struct snapshot **ret,
		       char *err, size_t errsz)
{
	struct json_rd r = { .fd = -1, .err = err, .errsz = errsz };
	struct stat sb;
	int fd, e;

	*ret = NULL;
	if (err && errsz)
		err[0] = '\0';
	/* a regular file, reached without opening anything else (a FIFO, a device) */
	fd = regfile_open(path, 0, SNAPSHOT_MAX_BYTES, &sb);
	if (fd == -EINVAL && err && errsz)
		snprintf(err, errsz, "not a regular file");
	if (fd == -EFBIG && err && errsz)
		snprintf(err, errsz, "larger than %u MiB", SNAPSHOT_MAX_BYTES >> 20);
	if (fd < 0)
		return fd;
	r.buf = malloc(JSON_RD_WINDOW);
	if (!r.buf) {
		close(fd);
		return -ENOMEM;
	}
	r.p = r.buf;
	r.fd = fd;
	r.len = (uint64_t)sb.st_size;
	e = run(&r, fn, ctx, ret);
	close(fd);
	free(r.buf);
	free(r.s);
	return e;
}

int snapshot_load(const char *path, struct snapshot **ret, char *err, size_t errsz)
{
	return snapshot_load_each(path, NULL, NULL, ret, err, errsz);
}
