// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * evfmt.c - see evfmt.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "kernel/evfmt.h"
#include "core/format.h"
#include "core/log.h"
#include "kernel/tfs.h"
#include <unistd.h>

static bool name_ok(const char *s)
{
	if (!*s || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || *s == '-' || *s == '.'))
			return false;
	return true;
}

static int parse_event(struct evfmt *f, struct tfs *t, const char *system, const char *name,
		       struct tep_event **ret)
{
	char path[512], *buf;
	size_t len;
	struct tep_event *ev;
	int r;

	if (!name_ok(system) || !name_ok(name))
		return -ENOENT;
	ev = tep_find_event_by_name(f->tep, system, name);
	if (ev) {
		*ret = ev;
		return 0;
	}
	snprintf(path, sizeof(path), "events/%s/%s/format", system, name);
	r = tfs_read(t, path, &buf, &len);
	if (r < 0)
		return r == -ENOTDIR ? -ENOENT : r;
	/*
	 * A print fmt libtraceevent cannot parse still leaves the event and its
	 * fields registered, which is all stacktop needs: look it up either way.
	 */
	(void)tep_parse_event(f->tep, buf, len, system);
	free(buf);
	ev = tep_find_event_by_name(f->tep, system, name);
	if (!ev)
		return -EBADMSG;
	*ret = ev;
	return 0;
}

static int field_off(struct tep_event *ev, const char *name)
{
	struct tep_format_field *fl = tep_find_any_field(ev, name);

	return fl ? fl->offset : -1;
}

static struct evfmt *evfmt_alloc(void)
{
	struct evfmt *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	memset(f->index, 0xff, sizeof(f->index));
	f->kstack_type = f->stackid_type = f->ustack_type = f->func_type = -1;
	f->ustack_tgid_off = f->ustack_caller_off = -1;
	f->kstack_size_off = -1;
	f->pid_off = 4;
	return f;
}

static int lookup(struct evfmt *f, struct tfs *t, const char *system, const char *name,
		  struct tep_event **ret)
{
	struct tep_event *ev;

	if (t)
		return parse_event(f, t, system, name, ret);
	ev = tep_find_event_by_name(f->tep, system, name);
	if (!ev)
		return -ENOENT;
	*ret = ev;
	return 0;
}

/*
 * A field stacktop reads must lie inside the largest record a sub-buffer
 * can hold (@fixed: a field of fixed size, whose declared size must be
 * @want bytes when @want is not 0). Formats come from tracefs (or a FUSE
 * stand-in) and from trace.dat files: an offset past the record would make
 * every read of that field an out-of-bounds read.
 */
static int field_ok(const struct evfmt *f, const struct tep_event *ev, const char *name,
		    unsigned int want)
{
	struct tep_format_field *fl = tep_find_any_field((struct tep_event *)ev, name);
	uint32_t max = f->layout.subbuf_size > f->layout.data_offset
			       ? f->layout.subbuf_size - f->layout.data_offset
			       : 0;
	unsigned int size;

	if (!fl)
		return 0;
	size = want ? (unsigned int)fl->size : 0;
	if (fl->offset < 0 || fl->size < 0 || (want && (unsigned int)fl->size != want) ||
	    (uint64_t)(unsigned int)fl->offset + size > max) {
		if (want && (unsigned int)fl->size != want)
			log_err("impossible format of %s:%s: field %s has size %d, stacktop reads a %u-byte number",
				ev->system, ev->name, name, fl->size, want);
		else
			log_err("impossible format of %s:%s: field %s at offset %d, size %d lies past the largest record (%u bytes)",
				ev->system, ev->name, name, fl->offset, fl->size, max);
		return -EBADMSG;
	}
	return 0;
}

/* the ftrace stack events, from @t (or from the tep alone when @t is NULL) */
static int stack_events(struct evfmt *f, struct tfs *t)
{
	struct tep_event *ev;

	if (!lookup(f, t, "ftrace", "kernel_stack", &ev)) {
		struct tep_format_field *caller = tep_find_field(ev, "caller");

		if (field_ok(f, ev, "common_pid", 4) < 0 || field_ok(f, ev, "size", 4) < 0 ||
		    field_ok(f, ev, "caller", 0) < 0)
			return -EBADMSG;
		if (caller) {
			f->kstack_type = ev->id;
			f->kstack_caller_off = caller->offset;
			f->kstack_size_off = field_off(ev, "size");
		}
		f->pid_off = field_off(ev, "common_pid");
	}
	if (!lookup(f, t, "ftrace", "stack_id", &ev)) {
		int off = field_off(ev, "stack_id");

		if (field_ok(f, ev, "common_pid", 4) < 0 || field_ok(f, ev, "stack_id", 4) < 0)
			return -EBADMSG;
		if (off >= 0) {
			f->stackid_type = ev->id;
			f->stackid_off = off;
		}
	}
	if (!lookup(f, t, "ftrace", "user_stack", &ev)) {
		f->ustack_type = ev->id;
		f->ustack_tgid_off = field_off(ev, "tgid");
		f->ustack_caller_off = field_off(ev, "caller");
	}
	if (!lookup(f, t, "ftrace", "function", &ev)) {
		int off = field_off(ev, "ip");

		if (off >= 0) {
			f->func_type = ev->id;
			f->func_ip_off = off;
		}
	}
	if (f->pid_off < 0)
		f->pid_off = 4;
	return 0;
}

int evfmt_new(struct tfs *t, struct evfmt **ret)
{
	struct evfmt *f = evfmt_alloc();
	char *hdr;
	int r;

	if (!f)
		return -ENOMEM;
	f->tep = tep_alloc();
	if (!f->tep) {
		r = -ENOMEM;
		goto fail;
	}
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	tep_set_file_bigendian(f->tep, TEP_BIG_ENDIAN);
	tep_set_local_bigendian(f->tep, TEP_BIG_ENDIAN);
#else
	tep_set_file_bigendian(f->tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(f->tep, TEP_LITTLE_ENDIAN);
#endif
	r = tfs_read(t, "events/header_page", &hdr, NULL);
	if (r < 0)
		goto fail;
	r = ringbuf_layout_parse(hdr, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__, &f->layout);
	free(hdr);
	if (r < 0)
		goto fail;
	tep_set_long_size(f->tep, (int)f->layout.long_size);

	r = stack_events(f, t);
	if (r < 0)
		goto fail;
	if (f->kstack_type < 0 && f->stackid_type < 0) {
		r = -ENODEV;
		goto fail;
	}
	*ret = f;
	return 0;
fail:
	evfmt_free(f);
	return r;
}

int evfmt_from_tep(void *tep, struct evfmt **ret)
{
	struct evfmt *f = evfmt_alloc();

	if (!f)
		return -ENOMEM;
	f->tep = tep;
	f->tep_borrowed = true;
	f->layout.long_size = (unsigned int)tep_get_long_size(tep);
	if (f->layout.long_size != 4)
		f->layout.long_size = 8;
	f->layout.big_endian = tep_is_file_bigendian(tep);
	f->layout.data_offset = 8 + f->layout.long_size;
	f->layout.subbuf_size =
		tep_get_page_size(tep) > 0 ? (unsigned int)tep_get_page_size(tep) : 4096;
	if (stack_events(f, NULL) < 0) {
		evfmt_free(f);
		return -EBADMSG;
	}
	if (f->kstack_type < 0 && f->stackid_type < 0) {
		evfmt_free(f);
		return -ENODEV;
	}
	*ret = f;
	return 0;
}

/* sched_switch names the task it switches out, which wrote the event */
static void comm_fields(struct tep_event *ev, int *ret_comm, int *ret_pid)
{
	struct tep_format_field *comm = ev ? tep_find_field(ev, "prev_comm") : NULL;
	struct tep_format_field *pid = ev ? tep_find_field(ev, "prev_pid") : NULL;

	*ret_comm = *ret_pid = -1;
	if (!comm || !pid || comm->size != 16 || pid->size != 4)
		return;
	*ret_comm = comm->offset;
	*ret_pid = pid->offset;
}

/*
 * One more index: every per-index array grows together, the new slot names
 * no task (comm offsets -1) until its caller says otherwise.
 */
static int grow_index(struct evfmt *f)
{
	char **names;
	int *types, *offs;

	if (f->nnames >= EVFMT_NONE - 1)
		return -ENOSPC;
	names = realloc(f->names, (f->nnames + 1) * sizeof(*names));
	if (!names)
		return -ENOMEM;
	f->names = names;
	types = realloc(f->types, (f->nnames + 1) * sizeof(*types));
	if (!types)
		return -ENOMEM;
	f->types = types;
	offs = realloc(f->comm_offs, (f->nnames + 1) * sizeof(*offs));
	if (!offs)
		return -ENOMEM;
	f->comm_offs = offs;
	offs = realloc(f->comm_pid_offs, (f->nnames + 1) * sizeof(*offs));
	if (!offs)
		return -ENOMEM;
	f->comm_pid_offs = offs;
	f->comm_offs[f->nnames] = -1;
	f->comm_pid_offs[f->nnames] = -1;
	return 0;
}

static int add_index(struct evfmt *f, int type, const char *name, struct tep_event *ev)
{
	int r;

	if (type < 0 || type > 0xffff)
		return -EINVAL;
	if (f->index[type] != EVFMT_NONE)
		return f->index[type];
	r = grow_index(f);
	if (r < 0)
		return r;
	comm_fields(ev, &f->comm_offs[f->nnames], &f->comm_pid_offs[f->nnames]);
	/* names end up on the screen: tracefs (or a FUSE stand-in) could say anything */
	f->names[f->nnames] = malloc(strlen(name) + 1);
	if (!f->names[f->nnames])
		return -ENOMEM;
	fmt_sanitize(f->names[f->nnames], strlen(name) + 1, name, strlen(name));
	f->types[f->nnames] = type;
	f->index[type] = (uint16_t)f->nnames;
	return (int)f->nnames++;
}

int evfmt_add(struct evfmt *f, struct tfs *t, const char *system, const char *name)
{
	struct tep_event *ev;
	char full[256];
	int r;

	r = parse_event(f, t, system, name, &ev);
	if (r < 0)
		return r;
	snprintf(full, sizeof(full), "%s:%s", system, name);
	return add_index(f, ev->id, full, ev);
}

static int add_type(struct evfmt *f, struct tfs *t, int type, bool known_only);

int evfmt_add_type(struct evfmt *f, struct tfs *t, int type)
{
	return add_type(f, t, type, false);
}

int evfmt_known_type(struct evfmt *f, struct tfs *t, int type)
{
	return add_type(f, t, type, true);
}

static int add_type(struct evfmt *f, struct tfs *t, int type, bool known_only)
{
	char full[256], *buf = NULL;
	struct tep_event *found = NULL;
	int r;

	if (type < 0 || type > 0xffff)
		return -EINVAL;
	if (f->index[type] == EVFMT_IGNORED)
		return -ENOENT;
	if (f->index[type] != EVFMT_NONE)
		return f->index[type];
	snprintf(full, sizeof(full), "event#%d", type);
	{
		struct tep_event *known = tep_find_event(f->tep, type);

		if (known) {
			snprintf(full, sizeof(full), "%s:%s", known->system, known->name);
			return add_index(f, type, full, known);
		}
	}
	/* set_event lists what is enabled; one of those has this ID */
	if (t && tfs_read(t, "set_event", &buf, NULL) == 0) {
		char *save = NULL, *line;

		for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char *colon = strchr(line, ':');
			struct tep_event *ev;

			if (!colon)
				continue;
			*colon = '\0';
			if (parse_event(f, t, line, colon + 1, &ev) == 0 && ev->id == type) {
				snprintf(full, sizeof(full), "%s:%s", line, colon + 1);
				found = ev;
				break;
			}
		}
		free(buf);
	}
	/* ftrace's own entries: not in set_event, one format file each */
	if (t && !strncmp(full, "event#", 6)) {
		int fd = tfs_open_file(t, "events/ftrace", O_RDONLY | O_DIRECTORY);
		struct dirent *de;
		DIR *d = fd >= 0 ? fdopendir(fd) : NULL;

		if (!d && fd >= 0)
			close(fd);
		while (d && (de = readdir(d))) {
			struct tep_event *ev;

			if (de->d_name[0] == '.')
				continue;
			if (parse_event(f, t, "ftrace", de->d_name, &ev) == 0 && ev->id == type) {
				snprintf(full, sizeof(full), "ftrace:%.200s", de->d_name);
				found = ev;
				break;
			}
		}
		if (d)
			closedir(d);
	}
	if (known_only && !found) {
		f->index[type] = EVFMT_IGNORED;
		return -ENOENT;
	}
	r = add_index(f, type, full, found);
	return r;
}

int evfmt_field(const struct evfmt *f, unsigned int idx, const char *name, struct evfmt_field *ret)
{
	struct tep_format_field *fl;
	struct tep_event *ev;

	if (idx >= f->nnames)
		return -ENOENT;
	ev = tep_find_event(f->tep, f->types[idx]);
	if (!ev)
		return -ENOENT;
	fl = tep_find_field(ev, name);
	if (!fl)
		return -ENOENT;
	if ((fl->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_STRING | TEP_FIELD_IS_DYNAMIC)) ||
	    (fl->size != 1 && fl->size != 2 && fl->size != 4 && fl->size != 8) || fl->offset < 0)
		return -EINVAL;
	ret->offset = (uint32_t)fl->offset;
	ret->size = (uint32_t)fl->size;
	ret->is_signed = fl->flags & TEP_FIELD_IS_SIGNED;
	return 0;
}

int evfmt_add_named(struct evfmt *f, const char *name)
{
	char clean[256];
	unsigned int i;
	int r;

	fmt_sanitize(clean, sizeof(clean), name, strlen(name));
	for (i = 0; i < f->nnames; i++)
		if (f->types[i] < 0 && !strcmp(f->names[i], clean))
			return (int)i;
	r = grow_index(f);
	if (r < 0)
		return r;
	f->names[f->nnames] = strdup(clean);
	if (!f->names[f->nnames])
		return -ENOMEM;
	f->types[f->nnames] = -1;
	return (int)f->nnames++;
}

void evfmt_free(struct evfmt *f)
{
	unsigned int i;

	if (!f)
		return;
	for (i = 0; i < f->nnames; i++)
		free(f->names[i]);
	free(f->names);
	free(f->types);
	free(f->comm_offs);
	free(f->comm_pid_offs);
	if (f->tep && !f->tep_borrowed)
		tep_free(f->tep);
	free(f);
}
