// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * usym_proc.c - the processes of the symbolizer (usym.h): each process
 * image's executable mappings, read from /proc/<tgid>/maps at first sight
 * (while it most likely lives) or given by usym_add_maps(), with the file
 * of each mapping (usym_file.c); its uids and its pid in its own namespace
 * (the perf map's owner and name, usym_perf.c); an exec (its
 * /proc/<tgid>/exe changed, looked at once a refresh) starts a new image.
 * And the parsing of a maps text, which usym.h offers on its own.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/array.h"
#include "sym/ufile.h"
#include "sym/usym_priv.h"

#define USYM_MAPS_MAX (16u << 20) /* a maps file larger than this is cut */

static int map_cmp(const void *pa, const void *pb)
{
	const struct usym_map *a = pa, *b = pb;

	return a->start < b->start ? -1 : a->start > b->start;
}

void usym_maps_free(struct usym_map *m, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(m[i].path);
	free(m);
}

int usym_parse_maps(const char *text, struct usym_map **ret, size_t *ret_n)
{
	struct usym_map *m = NULL;
	size_t n = 0, cap = 0;
	const char *p = text;

	while (p && *p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		unsigned long long start, end, off, ino;
		unsigned int maj, min;
		char perms[8], line[4096];
		int used = 0;

		if (len < sizeof(line)) {
			memcpy(line, p, len);
			line[len] = '\0';
			if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu%n", &start, &end, perms,
				   &off, &maj, &min, &ino, &used) == 7 &&
			    strlen(perms) >= 3 && perms[2] == 'x' && end > start) {
				const char *path = line + used;

				while (*path == ' ' || *path == '\t')
					path++;
				if (ARRAY_GROW(m, cap, n + 1) < 0)
					goto oom;
				m[n].start = start;
				m[n].end = end;
				m[n].pgoff = off;
				m[n].dev = (uint64_t)maj << 32 | min;
				m[n].ino = ino;
				m[n].path = strdup(path);
				if (!m[n].path)
					goto oom;
				n++;
			}
		}
		p = eol ? eol + 1 : NULL;
	}
	if (n)
		qsort(m, n, sizeof(*m), map_cmp);
	*ret = m;
	*ret_n = n;
	return 0;
oom:
	usym_maps_free(m, n);
	return -ENOMEM;
}

const struct usym_map *usym_find_map(const struct usym_map *m, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < m[mid].start)
			hi = mid;
		else if (addr >= m[mid].end)
			lo = mid + 1;
		else
			return &m[mid];
	}
	return NULL;
}

static char *read_text(const char *path, size_t max, size_t *ret_len)
{
	size_t len = 0, cap = 65536;
	char *buf = malloc(cap + 1);
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || !buf) {
		if (fd >= 0)
			close(fd);
		free(buf);
		return NULL;
	}
	for (;;) {
		ssize_t r;

		if (len == cap) {
			char *nb;

			if (cap >= max)
				break;
			nb = realloc(buf, cap * 2 + 1);
			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + len, cap - len);
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	buf[len] = '\0';
	if (ret_len)
		*ret_len = len;
	return buf;
}

/* its pid in its own namespace (the perf map's name) and its uids (the map's owner) */
static void proc_read_status(struct usym *u, struct uproc *pr)
{
	char path[160], *txt, *l;

	pr->nspid = pr->tgid;
	if (!u->proc[0])
		return;
	snprintf(path, sizeof(path), "%s/%u/status", u->proc, pr->tgid);
	txt = read_text(path, 65536, NULL);
	if (!txt) {
		pr->gone = true;
		return;
	}
	l = strstr(txt, "\nUid:");
	if (l) {
		unsigned int a[4];
		int n = sscanf(l + 5, "%u %u %u %u", &a[0], &a[1], &a[2], &a[3]);

		for (pr->nuids = 0; n > 0 && pr->nuids < (unsigned int)n; pr->nuids++)
			pr->uids[pr->nuids] = a[pr->nuids];
	}
	l = strstr(txt, "\nNSpid:");
	if (l) {
		char *e = strchr(l + 1, '\n');
		char *last = NULL, *tok, *save = NULL;

		if (e)
			*e = '\0';
		for (tok = strtok_r(l + 7, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save))
			last = tok;
		if (last)
			pr->nspid = (uint32_t)strtoul(last, NULL, 10);
	}
	free(txt);
}

/* what a process's maps hold: entries, paths, file indexes */
static size_t maps_cost(const struct usym_map *m, size_t n)
{
	size_t b = n * (sizeof(*m) + sizeof(uint32_t)), i;

	for (i = 0; i < n; i++)
		b += strlen(m[i].path) + 1;
	return b;
}

struct text {
	char *buf;
	size_t len, cap;
};

static bool text_add(void *ctx, const char *data, size_t len)
{
	struct text *t = ctx;

	if (t->len + len + 1 > t->cap) {
		size_t cap = (t->len + len + 1) * 2;
		char *nb = realloc(t->buf, cap);

		if (!nb)
			return false;
		t->buf = nb;
		t->cap = cap;
	}
	memcpy(t->buf + t->len, data, len);
	t->len += len;
	t->buf[t->len] = '\0';
	return true;
}

/*
 * /proc/PID/maps of @tgid, USYM_MAPS_MAX bytes at most, NUL-terminated; NULL
 * when it cannot be read. By the reader (ufile_proc_stream()): the process
 * can hold the locks a read of its maps may wait for.
 */
static char *maps_text(const char *proc, uint32_t tgid)
{
	struct text t = { 0 };
	int64_t r = ufile_proc_stream(proc, tgid, "maps", 0, USYM_MAPS_MAX, text_add, &t);

	if (r < 0 || (r > 0 && !t.buf)) {
		free(t.buf);
		return NULL;
	}
	return t.buf ? t.buf : strdup("");
}

void usym_proc_snapshot(struct usym *u, struct uproc *pr)
{
	struct usym_map *m = NULL;
	char *txt;
	uint32_t *mf;
	size_t n = 0, i;

	if (!u->proc[0])
		return; /* not this machine's processes */

	txt = maps_text(u->proc, pr->tgid);
	if (!txt) {
		pr->gone = true;
		return; /* gone already: its frames stay [unknown] */
	}
	if (usym_parse_maps(txt, &m, &n) < 0) {
		free(txt);
		return;
	}
	free(txt);
	mf = calloc(n ? n : 1, sizeof(*mf));
	if (!mf) {
		usym_maps_free(m, n);
		return;
	}
	for (i = 0; i < n; i++)
		mf[i] = m[i].ino && m[i].path[0] == '/' ? usym_file_get(u, pr->tgid, &m[i])
			: !m[i].ino && !strcmp(m[i].path, "[vdso]")
				? usym_vdso_get(u, pr->tgid, &m[i])
				: UINT32_MAX;
	u->maps_bytes -= maps_cost(pr->maps, pr->nmaps);
	usym_maps_free(pr->maps, pr->nmaps);
	free(pr->mfile);
	pr->maps = m;
	pr->nmaps = n;
	pr->mfile = mf;
	u->maps_bytes += maps_cost(m, n);
}

/* the executable of @tgid now: false when it cannot be known (gone) */
static bool proc_exe(struct usym *u, uint32_t tgid, uint64_t *ret_dev, uint64_t *ret_ino)
{
	char path[160];
	struct stat sb;

	if (!u->proc[0])
		return false;
	snprintf(path, sizeof(path), "%s/%u/exe", u->proc, tgid);
	if (stat(path, &sb) < 0)
		return false;
	*ret_dev = (uint64_t)sb.st_dev;
	*ret_ino = (uint64_t)sb.st_ino;
	return true;
}

uint32_t usym_proc_get(struct usym *u, uint32_t tgid)
{
	uint32_t i = usym_idx(&u->procmap, tgid);
	uint64_t dev = 0, ino = 0;
	struct uproc *pr;
	bool known;

	if (i != UINT32_MAX) {
		pr = &u->procs[i];
		if (pr->checked == u->epoch)
			return i;
		pr->checked = u->epoch;
		if (!proc_exe(u, tgid, &dev, &ino) || (dev == pr->exe_dev && ino == pr->exe_ino))
			return i;
		/* exec'd since: a new image (the old one still names old tokens) */
		known = true;
	} else {
		if (u->limit && usym_memory(u) >= u->limit) {
			u->refused++;
			return UINT32_MAX;
		}
		known = proc_exe(u, tgid, &dev, &ino);
	}
	if (ARRAY_GROW(u->procs, u->cprocs, u->nprocs + 1) < 0 ||
	    hmap_put(&u->procmap, tgid, u->nprocs) < 0)
		return i; /* UINT32_MAX at first sight */
	pr = &u->procs[u->nprocs];
	memset(pr, 0, sizeof(*pr));
	pr->tgid = tgid;
	pr->checked = u->epoch;
	if (known) {
		pr->exe_dev = dev;
		pr->exe_ino = ino;
	}
	proc_read_status(u, pr);
	usym_proc_snapshot(u, pr);
	return (uint32_t)u->nprocs++;
}

int usym_add_maps(struct usym *u, uint32_t tgid, const struct usym_map *m, size_t n)
{
	struct uproc *pr;
	struct usym_map *c;
	uint32_t *mf, pi;
	size_t i;

	if (usym_idx(&u->procmap, tgid) != UINT32_MAX)
		return -EEXIST;
	pi = usym_proc_get(u, tgid); /* reads /proc/<tgid>/maps while it is there */
	if (pi == UINT32_MAX)
		return -ENOMEM;
	pr = &u->procs[pi];
	if (pr->nmaps || !n)
		return -EEXIST;
	c = calloc(n, sizeof(*c));
	mf = calloc(n, sizeof(*mf));
	if (!c || !mf) {
		free(c);
		free(mf);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		c[i] = m[i];
		c[i].path = strdup(m[i].path ? m[i].path : "");
		if (!c[i].path) {
			usym_maps_free(c, i);
			free(mf);
			return -ENOMEM;
		}
		mf[i] = c[i].ino && c[i].path[0] == '/' ? usym_file_get(u, tgid, &c[i])
							: UINT32_MAX;
	}
	usym_maps_free(pr->maps, pr->nmaps); /* a zombie's maps are empty */
	free(pr->mfile);
	pr->maps = c;
	pr->nmaps = n;
	pr->mfile = mf;
	pr->retried = true; /* /proc has nothing more to give */
	return 0;
}

void usym_procs_free(struct usym *u)
{
	size_t i;

	for (i = 0; i < u->nprocs; i++) {
		usym_maps_free(u->procs[i].maps, u->procs[i].nmaps);
		free(u->procs[i].mfile);
		perf_free(u, &u->procs[i]);
	}
	free(u->procs);
	hmap_done(&u->procmap);
}
