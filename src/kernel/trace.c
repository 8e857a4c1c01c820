// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * trace.c - see trace.h: paths of the instance read, journaled writes,
 * the kernel's error_log, directory listings, what is traced.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/array.h"
#include "core/format.h"
#include "kernel/evfmt.h"
#include "kernel/state.h"
#include "kernel/tfs.h"
#include "kernel/trace.h"

void trace_path(const struct trace *t, char *buf, size_t size, const char *rel)
{
	snprintf(buf, size, "%s%s", t->prefix, rel);
}

/* names come from the command line and the kernel: sanitized once, here */
void trace_traced_append(struct trace *t, const char *name)
{
	size_t old = t->traced ? strlen(t->traced) : 0, len = strlen(name);
	char *n = realloc(t->traced, old + len + 2);

	if (!n)
		return;
	if (old)
		n[old++] = ',';
	fmt_sanitize(n + old, len + 1, name, len);
	t->traced = n;
}

int trace_type_cb(void *ctx, int type)
{
	struct trace *t = ctx;

	return evfmt_known_type(t->fmt, t->tfs, type);
}

void trace_kernel_error(struct trace *t, const char *log_rel, size_t seen, char *buf, size_t size)
{
	char *log = NULL, *entry, *p, *msg, *eol;
	size_t len = 0;

	buf[0] = '\0';
	if (tfs_read(t->tfs, log_rel, &log, &len) < 0)
		return;
	entry = len >= seen ? log + seen : log;
	/* the newest entry starts at the last line opening with '[' */
	for (p = entry; (p = strstr(p, "\n["));)
		entry = ++p;
	if (*entry == '[') {
		eol = entry + strcspn(entry, "\n");
		*eol = '\0';
		msg = entry;
		for (p = strstr(entry, "error: "); p; p = strstr(p + 1, "error: "))
			msg = p + 7;
		fmt_sanitize(buf, size, msg, strlen(msg));
	}
	free(log);
}

unsigned int trace_buffer_kb(struct trace *t)
{
	char rel[160], *buf = NULL, *p;
	unsigned long kb = 0;

	trace_path(t, rel, sizeof(rel), "buffer_size_kb");
	if (tfs_read(t->tfs, rel, &buf, NULL) < 0)
		return 0;
	p = strstr(buf, "expanded:");
	kb = strtoul(p ? p + 9 : buf, NULL, 10);
	free(buf);
	return kb > UINT32_MAX ? 0 : (unsigned int)kb;
}

size_t trace_error_log_len(struct trace *t, const char *log_rel)
{
	char *log = NULL;
	size_t len = 0;

	if (tfs_read(t->tfs, log_rel, &log, &len) < 0)
		return 0;
	free(log);
	return len;
}

int trace_write(struct trace *t, const char *rel, const char *value)
{
	/* private instance: removed whole on exit, no journal needed */
	return t->instance ? tfs_write(t->tfs, rel, value) : state_write(t->state, rel, value);
}

int trace_write_filter(struct trace *t, const char *sys, const char *ev, const char *expr,
		       char *err, size_t errsz)
{
	char rel[512], log[160], why[256], *orig = NULL;
	size_t seen;
	int r;

	snprintf(rel, sizeof(rel), "%sevents/%s/%s/filter", t->prefix, sys, ev);
	if (!tfs_exists(t->tfs, rel))
		return fmt_error(err, errsz, -EOPNOTSUPP, "%s:%s has no filter file", sys, ev);
	trace_path(t, log, sizeof(log), "error_log");
	seen = trace_error_log_len(t, log);
	/* the instance's too: F must not lose the filter it had */
	if (tfs_read(t->tfs, rel, &orig, NULL) < 0)
		orig = NULL;
	r = trace_write(t, rel, *expr ? expr : "0");
	if (r == 0) {
		free(orig);
		return 0;
	}
	/* a refused filter leaves the event unfiltered: put the old one back */
	if (orig) {
		orig[strcspn(orig, "\n")] = '\0';
		tfs_write(t->tfs, rel, strcmp(orig, "none") ? orig : "0");
		free(orig);
	}
	trace_kernel_error(t, log, seen, why, sizeof(why));
	return fmt_error(err, errsz, r, "the kernel refused the filter '%s' on %s:%s: %s", expr,
			 sys, ev, why[0] ? why : strerror(-r));
}

int trace_list_dir(struct trace *t, const char *rel, char ***ret, int *ret_n)
{
	char **names = NULL;
	struct dirent *de;
	size_t cap = 0;
	int fd, n = 0;
	DIR *d;

	fd = tfs_open_file(t->tfs, rel, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return fd;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -ENOMEM;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
			continue;
		if (ARRAY_GROW(names, cap, (size_t)n + 1) < 0)
			break;
		names[n] = strdup(de->d_name);
		if (names[n])
			n++;
	}
	closedir(d);
	*ret = names;
	*ret_n = n;
	return 0;
}

void trace_free_list(char **l, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(l[i]);
	free(l);
}

unsigned int trace_count_cpus(struct trace *t)
{
	char **names = NULL;
	int n = 0;

	if (trace_list_dir(t, "per_cpu", &names, &n) < 0)
		return 1;
	trace_free_list(names, n);
	return n > 0 ? (unsigned int)n : 1;
}

void trace_done(struct trace *t)
{
	int i;

	free(t->traced);
	t->traced = NULL;
	for (i = 0; i < t->nprobe_events; i++)
		free(t->probe_events[i]);
	free(t->probe_events);
	t->probe_events = NULL;
	t->nprobe_events = 0;
}
