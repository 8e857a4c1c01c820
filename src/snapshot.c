// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snapshot.c - see snapshot.h. JSON through json-c; every value is checked
 * here, so the rest of stacktop sees only sane numbers and clean strings.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "format.h"
#include "snapshot.h"
#include "stack_table.h"

#define MAX_NESTING 16

struct ctx {
	char *err;
	size_t errsz;
};

static int fail(struct ctx *c, int r, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(struct ctx *c, int r, const char *fmt, ...)
{
	char raw[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	if (c->err && c->errsz)
		fmt_sanitize(c->err, c->errsz, raw, strlen(raw));
	return r;
}

static json_object *field(json_object *o, const char *name)
{
	json_object *v = NULL;

	if (!json_object_object_get_ex(o, name, &v))
		return NULL;
	return v;
}

/* a required field of @type; NULL (error set) when missing or of another type */
static json_object *need(struct ctx *c, json_object *o, const char *name, json_type type,
			 const char *where)
{
	json_object *v = field(o, name);

	if (!v || !json_object_is_type(v, type)) {
		fail(c, -EBADMSG, "%s\"%s\" %s", where, name,
		     v ? "has the wrong type" : "is missing");
		return NULL;
	}
	return v;
}

static int get_count(struct ctx *c, json_object *o, const char *name, uint64_t *ret,
		     const char *where)
{
	json_object *v = need(c, o, name, json_type_int, where);

	if (!v)
		return -EBADMSG;
	if (json_object_get_int64(v) < 0)
		return fail(c, -EBADMSG, "%s\"%s\" is negative", where, name);
	*ret = json_object_get_uint64(v);
	return 0;
}

/* an integer in [lo, hi], or null (-1) when @nullable */
static int get_int(struct ctx *c, json_object *o, const char *name, long lo, long hi,
		   bool nullable, int *ret, const char *where)
{
	json_object *v = field(o, name);
	int64_t x;

	if (nullable && (!v || json_object_is_type(v, json_type_null))) {
		*ret = -1;
		return 0;
	}
	if (!v || !json_object_is_type(v, json_type_int))
		return fail(c, -EBADMSG, "%s\"%s\" %s", where, name,
			    v ? "is not an integer" : "is missing");
	x = json_object_get_int64(v);
	if (x < lo || x > hi)
		return fail(c, -EBADMSG, "%s\"%s\" %" PRId64 " is out of range", where, name, x);
	*ret = (int)x;
	return 0;
}

static bool get_bool(json_object *o, const char *name)
{
	json_object *v = field(o, name);

	return v && json_object_is_type(v, json_type_boolean) && json_object_get_boolean(v);
}

/* a sanitized copy of a string value; @size 0: allocate */
static char *dup_clean(json_object *v)
{
	const char *s = json_object_get_string(v);
	size_t len = (size_t)json_object_get_string_len(v);
	size_t cap = len * 4 + 1; /* every byte may become \xNN */
	char *d = malloc(cap);

	if (d)
		fmt_sanitize(d, cap, s, len);
	return d;
}

static void copy_clean(char *dst, size_t size, json_object *v)
{
	if (v && json_object_is_type(v, json_type_string))
		fmt_sanitize(dst, size, json_object_get_string(v),
			     (size_t)json_object_get_string_len(v));
	else
		dst[0] = '\0';
}

static int str_array(struct ctx *c, json_object *o, const char *name, unsigned int max,
		     char ***ret, unsigned int *ret_n, bool required)
{
	json_object *a = field(o, name);
	size_t n, i;

	*ret = NULL;
	*ret_n = 0;
	if (!a && !required)
		return 0;
	if (!a || !json_object_is_type(a, json_type_array))
		return fail(c, -EBADMSG, "\"%s\" %s", name, a ? "is not an array" : "is missing");
	n = json_object_array_length(a);
	if (n > max)
		return fail(c, -EBADMSG, "\"%s\" has %zu entries (at most %u)", name, n, max);
	*ret = calloc(n ? n : 1, sizeof(char *));
	if (!*ret)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		json_object *v = json_object_array_get_idx(a, i);

		if (!json_object_is_type(v, json_type_string))
			return fail(c, -EBADMSG, "\"%s\"[%zu] is not a string", name, i);
		(*ret)[i] = dup_clean(v);
		if (!(*ret)[i])
			return -ENOMEM;
		*ret_n = (unsigned int)i + 1;
	}
	return 0;
}

static int find_name(char **names, unsigned int n, json_object *v)
{
	char buf[512];
	unsigned int i;

	copy_clean(buf, sizeof(buf), v);
	for (i = 0; i < n; i++)
		if (!strcmp(names[i], buf))
			return (int)i;
	return -1;
}

static int parse_view(struct ctx *c, json_object *root, struct snapshot *sn)
{
	static const char *const sorts[] = { [RANK_DELTA] = "hits", [RANK_TOTAL] = "total",
					     [RANK_DEPTH] = "depth", [RANK_ID] = "id",
					     [RANK_EVENT] = "event", [RANK_COMM] = "comm" };
	struct snap_view *w = &sn->view;
	json_object *v = need(c, root, "view", json_type_object, ""), *x;
	const char *where = "view: ";
	int i, r;

	if (!v)
		return -EBADMSG;
	x = need(c, v, "sort", json_type_string, where);
	if (!x)
		return -EBADMSG;
	w->sort = -1;
	for (i = 0; i < RANK_KEY_MAX; i++)
		if (!strcmp(json_object_get_string(x), sorts[i]))
			w->sort = i;
	if (w->sort < 0)
		return fail(c, -EBADMSG, "view: unknown sort");
	x = need(c, v, "counts", json_type_string, where);
	if (!x)
		return -EBADMSG;
	if (!strcmp(json_object_get_string(x), "delta"))
		w->delta = true;
	else if (strcmp(json_object_get_string(x), "total"))
		return fail(c, -EBADMSG, "view: \"counts\" is neither delta nor total");
	w->ascending = get_bool(v, "ascending");
	w->hide_idle = get_bool(v, "hide_idle");
	w->event = -1;
	x = field(v, "event");
	if (x && json_object_is_type(x, json_type_string)) {
		w->event = find_name(sn->events, sn->nevents, x);
		if (w->event < 0)
			return fail(c, -EBADMSG, "view: event not in \"events\"");
	}
	r = get_int(c, v, "pid", -1, INT32_MAX, true, &w->pid, where);
	if (!r)
		r = get_int(c, v, "cpu", -1, 65535, true, &w->cpu, where);
	if (!r)
		r = get_int(c, v, "top", 0, 100000, false, &w->top, where);
	if (r)
		return r;
	x = field(v, "filter");
	if (x && json_object_is_type(x, json_type_string)) {
		w->filter = dup_clean(x);
		if (!w->filter)
			return -ENOMEM;
	}
	return 0;
}

static int parse_hex(const char *s, uint64_t *ret)
{
	uint64_t v = 0;
	int n = 0;

	if (s[0] != '0' || s[1] != 'x' || !s[2])
		return -1;
	for (s += 2; *s; s++, n++) {
		int d = *s >= '0' && *s <= '9' ? *s - '0' : *s >= 'a' && *s <= 'f' ? *s - 'a' + 10 : -1;

		if (d < 0 || n >= 16)
			return -1;
		v = v << 4 | (uint64_t)d;
	}
	*ret = v;
	return 0;
}

static int parse_by(struct ctx *c, json_object *o, struct snapshot *sn, struct snap_by *b,
		    const char *where)
{
	json_object *x;
	uint64_t v;
	int r, i;

	x = need(c, o, "event", json_type_string, where);
	if (!x)
		return -EBADMSG;
	r = find_name(sn->events, sn->nevents, x);
	if (r < 0)
		return fail(c, -EBADMSG, "%sevent not in \"events\"", where);
	b->event = (unsigned int)r;
	r = get_int(c, o, "cpu", 0, 65535, false, &i, where);
	if (r)
		return r;
	b->cpu = (unsigned int)i;
	r = get_int(c, o, "pid", -1, INT32_MAX, false, &b->pid, where);
	if (r)
		return r;
	r = get_int(c, o, "origin", 0, sn->norigins ? (long)sn->norigins - 1 : 0, true, &i, where);
	if (r)
		return r;
	b->origin = i < 0 ? 0 : (unsigned int)i;
	x = need(c, o, "comm", json_type_string, where);
	if (!x)
		return -EBADMSG;
	b->comm = dup_clean(x);
	if (!b->comm)
		return -ENOMEM;
	r = get_count(c, o, "total", &b->total, where);
	if (!r)
		r = get_count(c, o, "delta", &v, where);
	if (r)
		return r;
	if (v > b->total || v > UINT32_MAX)
		return fail(c, -EBADMSG, "%s\"delta\" is larger than \"total\"", where);
	b->delta = (uint32_t)v;
	return 0;
}

static int parse_stack(struct ctx *c, json_object *o, struct snapshot *sn, struct snap_stack *st,
		       size_t idx)
{
	static const struct {
		const char *name;
		unsigned int flag;
	} flags[] = {
		{ "more_ids", STACK_F_MOREIDS }, { "fallback", STACK_F_FALLBACK },
		{ "mapped", STACK_F_MAPPED },	 { "merged64", STACK_F_MERGED64 },
		{ "cut", STACK_F_CUT },
	};
	json_object *frames, *syms, *ids, *by, *x;
	char where[48];
	uint64_t v;
	size_t i, n;
	int r;

	snprintf(where, sizeof(where), "stack %zu: ", idx + 1);
	if (!json_object_is_type(o, json_type_object))
		return fail(c, -EBADMSG, "%snot an object", where);
	x = need(c, o, "key", json_type_string, where);
	if (!x)
		return -EBADMSG;
	if (json_object_get_string_len(x) != 16 ||
	    strspn(json_object_get_string(x), "0123456789abcdef") != 16)
		return fail(c, -EBADMSG, "%s\"key\" is not 16 hex digits", where);
	memcpy(st->key, json_object_get_string(x), 17);
	/* a weighted run's stacks rank weights: their hits are apart (read back as hits) */
	if (json_object_object_get_ex(o, "hits", NULL)) {
		r = get_count(c, o, "hits", &st->total, where);
		if (!r)
			r = get_count(c, o, "hits_delta", &v, where);
	} else {
		r = get_count(c, o, "total", &st->total, where);
		if (!r)
			r = get_count(c, o, "delta", &v, where);
	}
	if (r)
		return r;
	if (v > st->total || v > UINT32_MAX)
		return fail(c, -EBADMSG, "%s\"delta\" is larger than \"total\"", where);
	st->delta = (uint32_t)v;
	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (get_bool(o, flags[i].name))
			st->flags |= flags[i].flag;

	ids = need(c, o, "ids", json_type_array, where);
	frames = need(c, o, "frames", json_type_array, where);
	syms = need(c, o, "symbols", json_type_array, where);
	by = need(c, o, "by", json_type_array, where);
	if (!ids || !frames || !syms || !by)
		return -EBADMSG;
	n = json_object_array_length(ids);
	for (i = 0; i < n; i++) {
		x = json_object_array_get_idx(ids, i);
		if (!json_object_is_type(x, json_type_int) || json_object_get_int64(x) < 0 ||
		    json_object_get_int64(x) > UINT32_MAX)
			return fail(c, -EBADMSG, "%s\"ids\"[%zu] is not a stack id", where, i);
		if (st->nids < 2)
			st->ids[st->nids++] = (uint32_t)json_object_get_int64(x);
		else
			st->flags |= STACK_F_MOREIDS;
	}
	n = json_object_array_length(frames);
	if (n > STACK_MAX_DEPTH)
		return fail(c, -EBADMSG, "%s%zu frames (at most %d)", where, n, STACK_MAX_DEPTH);
	if (json_object_array_length(syms) != n)
		return fail(c, -EBADMSG, "%s\"symbols\" and \"frames\" differ in length", where);
	st->depth = (uint32_t)n;
	st->ips = calloc(n ? n : 1, sizeof(*st->ips));
	st->syms = calloc(n ? n : 1, sizeof(*st->syms));
	if (!st->ips || !st->syms)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		x = json_object_array_get_idx(frames, i);
		if (!json_object_is_type(x, json_type_string) ||
		    parse_hex(json_object_get_string(x), &st->ips[i]) < 0)
			return fail(c, -EBADMSG, "%s\"frames\"[%zu] is not a hex address", where, i);
		x = json_object_array_get_idx(syms, i);
		if (!json_object_is_type(x, json_type_string))
			return fail(c, -EBADMSG, "%s\"symbols\"[%zu] is not a string", where, i);
		st->syms[i] = dup_clean(x);
		if (!st->syms[i])
			return -ENOMEM;
	}
	n = json_object_array_length(by);
	st->by = calloc(n ? n : 1, sizeof(*st->by));
	if (!st->by)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		x = json_object_array_get_idx(by, i);
		if (!json_object_is_type(x, json_type_object))
			return fail(c, -EBADMSG, "%s\"by\"[%zu] is not an object", where, i);
		st->nby = i + 1;
		r = parse_by(c, x, sn, &st->by[i], where);
		if (r)
			return r;
	}
	return 0;
}

static int parse_root(struct ctx *c, json_object *root, struct snapshot *sn)
{
	static const struct {
		const char *name;
		size_t off;
	} counts[] = {
#define C(f) { #f, offsetof(struct snapshot, f) }
		C(hits), C(hits_delta), C(lost), C(overrun), C(dropped), C(orphans), C(bad_pages),
		C(fallbacks), C(unresolved),
#undef C
	};
	json_object *x, *stacks;
	size_t i, n;
	int r;

	if (!json_object_is_type(root, json_type_object))
		return fail(c, -EBADMSG, "not a stacktop snapshot (not a JSON object)");
	x = field(root, "schema");
	if (!x || !json_object_is_type(x, json_type_string) ||
	    strcmp(json_object_get_string(x), "stacktop-snapshot"))
		return fail(c, -EBADMSG, "not a stacktop snapshot (no \"schema\": \"stacktop-snapshot\")");
	x = need(c, root, "version", json_type_int, "");
	if (!x)
		return -EBADMSG;
	if (json_object_get_int64(x) != 2)
		return fail(c, -EPROTONOSUPPORT,
			    "snapshot version %" PRId64 ": this stacktop reads version 2",
			    json_object_get_int64(x));
	copy_clean(sn->host, sizeof(sn->host), field(root, "host"));
	copy_clean(sn->kernel, sizeof(sn->kernel), field(root, "kernel"));
	copy_clean(sn->source, sizeof(sn->source), field(root, "source"));
	copy_clean(sn->time, sizeof(sn->time), field(root, "time"));
	x = need(c, root, "mode", json_type_string, "");
	if (!x)
		return -EBADMSG;
	copy_clean(sn->mode, sizeof(sn->mode), x);
	x = field(root, "interval");
	if (x && (json_object_is_type(x, json_type_double) || json_object_is_type(x, json_type_int))) {
		sn->interval = json_object_get_double(x);
		if (!(sn->interval >= 0 && sn->interval < 1e9))
			return fail(c, -EBADMSG, "\"interval\" is out of range");
	}
	for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		r = get_count(c, root, counts[i].name, (uint64_t *)((char *)sn + counts[i].off), "");
		if (r)
			return r;
	}
	r = str_array(c, root, "events", SNAPSHOT_MAX_EVENTS, &sn->events, &sn->nevents, true);
	if (!r)
		r = str_array(c, root, "origins", SNAPSHOT_MAX_ORIGINS, &sn->origins, &sn->norigins,
			      false);
	if (!r)
		r = parse_view(c, root, sn);
	if (r)
		return r;
	stacks = need(c, root, "stacks", json_type_array, "");
	if (!stacks)
		return -EBADMSG;
	n = json_object_array_length(stacks);
	sn->stacks = calloc(n ? n : 1, sizeof(*sn->stacks));
	if (!sn->stacks)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		sn->nstacks = i + 1;
		r = parse_stack(c, json_object_array_get_idx(stacks, i), sn, &sn->stacks[i], i);
		if (r)
			return r;
	}
	return 0;
}

int snapshot_parse(const char *buf, size_t len, struct snapshot **ret, char *err, size_t errsz)
{
	struct ctx c = { .err = err, .errsz = errsz };
	json_tokener *tok;
	json_object *last = NULL;
	struct snapshot *sn;
	size_t off = 0;
	int r;

	*ret = NULL;
	if (err && errsz)
		err[0] = '\0';
	if (len > SNAPSHOT_MAX_BYTES)
		return fail(&c, -EFBIG, "larger than %u MiB", SNAPSHOT_MAX_BYTES >> 20);
	tok = json_tokener_new_ex(MAX_NESTING);
	if (!tok)
		return -ENOMEM;
	/* JSON Lines: one object per refresh; the last one counts */
	for (;;) {
		json_object *o;
		enum json_tokener_error e;

		while (off < len && strchr(" \t\r\n", buf[off]) && buf[off])
			off++;
		if (off >= len)
			break;
		json_tokener_reset(tok);
		o = json_tokener_parse_ex(tok, buf + off, (int)(len - off));
		e = json_tokener_get_error(tok);
		if (!o || e != json_tokener_success) {
			json_object_put(o);
			json_object_put(last);
			json_tokener_free(tok);
			return fail(&c, -EBADMSG, "not valid JSON at byte %zu: %s",
				    off + json_tokener_get_parse_end(tok),
				    e == json_tokener_continue ? "unexpected end"
							       : json_tokener_error_desc(e));
		}
		json_object_put(last);
		last = o;
		off += json_tokener_get_parse_end(tok);
	}
	json_tokener_free(tok);
	if (!last)
		return fail(&c, -EBADMSG, "empty: no snapshot in it");
	sn = calloc(1, sizeof(*sn));
	if (!sn) {
		json_object_put(last);
		return -ENOMEM;
	}
	r = parse_root(&c, last, sn);
	json_object_put(last);
	if (r < 0) {
		if (r == -ENOMEM)
			fail(&c, r, "out of memory");
		snapshot_free(sn);
		return r;
	}
	*ret = sn;
	return 0;
}

int snapshot_load(const char *path, struct snapshot **ret, char *err, size_t errsz)
{
	struct stat sb;
	size_t len = 0;
	char *buf;
	ssize_t n;
	int fd, r;

	*ret = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		r = fstat(fd, &sb) < 0 ? -errno : -EINVAL;
		close(fd);
		if (err && errsz)
			snprintf(err, errsz, "not a regular file");
		return r;
	}
	if ((uint64_t)sb.st_size > SNAPSHOT_MAX_BYTES) {
		close(fd);
		if (err && errsz)
			snprintf(err, errsz, "larger than %u MiB", SNAPSHOT_MAX_BYTES >> 20);
		return -EFBIG;
	}
	buf = malloc((size_t)sb.st_size + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while (len < (size_t)sb.st_size && (n = read(fd, buf + len, (size_t)sb.st_size - len)) > 0)
		len += (size_t)n;
	close(fd);
	buf[len] = '\0';
	r = snapshot_parse(buf, len, ret, err, errsz);
	free(buf);
	return r;
}

void snapshot_free(struct snapshot *sn)
{
	size_t i, j;

	if (!sn)
		return;
	for (i = 0; i < sn->nstacks; i++) {
		struct snap_stack *st = &sn->stacks[i];

		for (j = 0; st->syms && j < st->depth; j++)
			free(st->syms[j]);
		for (j = 0; j < st->nby; j++)
			free(st->by[j].comm);
		free(st->syms);
		free(st->ips);
		free(st->by);
	}
	free(sn->stacks);
	for (i = 0; i < sn->nevents; i++)
		free(sn->events[i]);
	free(sn->events);
	for (i = 0; i < sn->norigins; i++)
		free(sn->origins[i]);
	free(sn->origins);
	free(sn->view.filter);
	free(sn);
}

int snapshot_is_json(const char *path)
{
	char buf[64];
	ssize_t n;
	int fd, i;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	for (i = 0; i < n; i++) {
		if (strchr(" \t\r\n", buf[i]) && buf[i])
			continue;
		return buf[i] == '{';
	}
	return 0;
}
