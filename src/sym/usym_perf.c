// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * usym_perf.c - /tmp/perf-<pid>.map, the names JIT runtimes write for their
 * code: "START SIZE name" per line, in hex.
 *
 * The file is the process's, in the process's /tmp (/proc/<pid>/root/tmp,
 * its mount namespace): only while the process lives (never the host's
 * /tmp for one that is gone: another user's file could be there), only a
 * regular file, not a symlink, owned by one of the process's uids
 * (ufile_open_at() with UFILE_OWNER), looked at once a refresh at most. It
 * is read in chunks with pread from where the last read stopped (JIT
 * runtimes append), and what it holds counts against the symbolizer's
 * share: past it, no more entries are kept (struct uperf @full).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sym/ufile.h"
#include "sym/usym_priv.h"

#define PERF_CHUNK    (64u << 10) /* read at once */
#define PERF_NAME_MAX 1024	  /* a longer name is cut there */

static size_t perf_cost(const struct uperf *p)
{
	return p->cap * sizeof(*p->e) + p->ncap;
}

void perf_free(struct usym *u, struct uproc *pr)
{
	struct uperf *p = &pr->perf;

	u->perf_bytes -= perf_cost(p);
	free(p->e);
	free(p->names);
	p->e = NULL;
	p->names = NULL;
	p->n = p->cap = p->nlen = p->ncap = 0;
	p->off = 0;
	p->full = false;
	p->sorted = true;
}

/* room for one more entry of @namelen within the share, or false (full) */
static bool perf_room(struct usym *u, struct uperf *p, size_t namelen)
{
	size_t ecap = p->n == p->cap ? (p->cap ? p->cap * 2 : 256) : p->cap;
	size_t ncap = p->ncap, grow;

	while (p->nlen + namelen + 1 > ncap)
		ncap = ncap ? ncap * 2 : 16384;
	grow = (ecap - p->cap) * sizeof(*p->e) + (ncap - p->ncap);
	if (u->limit && usym_memory(u) + grow > u->limit)
		return false;
	if (ecap != p->cap) {
		struct perfsym *ne = realloc(p->e, ecap * sizeof(*ne));

		if (!ne)
			return false;
		p->e = ne;
	}
	if (ncap != p->ncap) {
		char *nn = realloc(p->names, ncap);

		if (!nn)
			return false;
		p->names = nn;
	}
	u->perf_bytes += grow;
	p->cap = ecap;
	p->ncap = ncap;
	return true;
}

/* one line, NUL-terminated: "START SIZE name" */
static void perf_line(struct usym *u, struct uperf *p, char *line)
{
	unsigned long long start, size;
	char *e1, *e2, *name;
	size_t len;

	start = strtoull(line, &e1, 16);
	if (e1 == line || *e1 != ' ')
		return;
	size = strtoull(e1 + 1, &e2, 16);
	if (e2 == e1 + 1 || *e2 != ' ' || !size)
		return;
	name = e2 + 1;
	len = strlen(name);
	if (len > PERF_NAME_MAX)
		len = PERF_NAME_MAX;
	if (!perf_room(u, p, len)) {
		p->full = true;
		return;
	}
	memcpy(p->names + p->nlen, name, len);
	p->names[p->nlen + len] = '\0';
	p->e[p->n].start = start;
	p->e[p->n].size = size;
	p->e[p->n].name = (uint32_t)p->nlen;
	p->nlen += len + 1;
	p->n++;
	p->sorted = false;
}

/* the bytes of @fd from @pos, at most a chunk: how many are in @buf (0: none) */
static size_t perf_chunk(int fd, char *buf, uint64_t pos, uint64_t size)
{
	size_t want = size - pos < PERF_CHUNK ? (size_t)(size - pos) : PERF_CHUNK;

	return ufile_pread(fd, buf, want, pos) == 0 ? want : 0;
}

/* what was appended since the last read, from @fd of @size bytes */
static void perf_read(struct usym *u, struct uperf *p, int fd, uint64_t size)
{
	char *buf = malloc(PERF_CHUNK + 1);
	uint64_t pos = p->off;
	size_t got, used;
	char *nl;

	while (buf && pos < size && !p->full) {
		got = perf_chunk(fd, buf, pos, size);
		if (!got)
			break; /* cut short meanwhile: what was read stays */
		used = 0;
		while (!p->full && (nl = memchr(buf + used, '\n', got - used))) {
			*nl = '\0';
			perf_line(u, p, buf + used);
			used = (size_t)(nl + 1 - buf);
		}
		if (used) {
			pos += used;
			continue;
		}
		if (got < PERF_CHUNK)
			break; /* the last line, not finished yet: next time */
		/* a line longer than a chunk: skipped up to its newline */
		for (pos += got; pos < size && (got = perf_chunk(fd, buf, pos, size)); pos += got) {
			nl = memchr(buf, '\n', got);
			if (nl) {
				pos += (uint64_t)(nl + 1 - buf);
				break;
			}
		}
	}
	free(buf);
	p->off = pos;
}

void perf_refresh(struct usym *u, struct uproc *pr)
{
	struct uperf *p = &pr->perf;

	if (p->checked == u->epoch + 1)
		return;
	p->checked = u->epoch + 1;
	p->extra = 0;
	perf_read_more(u, pr);
}

void perf_refresh_miss(struct usym *u, struct uproc *pr)
{
	struct uperf *p = &pr->perf;

	/* a JIT writes its map as it compiles: an address not in it yet may be soon */
	if (p->checked != u->epoch + 1 || p->extra >= PERF_EXTRA_READS)
		return;
	p->extra++;
	perf_read_more(u, pr);
}

void perf_read_more(struct usym *u, struct uproc *pr)
{
	struct uperf *p = &pr->perf;
	struct ufile_want w = { 0 };
	struct ufile_stat st;
	char path[64];
	int fd;

	if (!u->proc[0] || pr->gone || !pr->nuids)
		return;
	memcpy(w.uids, pr->uids, sizeof(w.uids));
	w.nuids = pr->nuids;
	snprintf(path, sizeof(path), "/tmp/perf-%u.map", pr->nspid);
	fd = ufile_open_at(u->proc, pr->tgid, path, UFILE_OWNER, &w, &st);
	if (fd < 0)
		return; /* none, or not one to read (gone: what was read stays) */
	if (st.dev != p->dev || st.ino != p->ino || st.size < p->off) {
		perf_free(u, pr); /* another file, or rewritten: from its start */
		p->dev = st.dev;
		p->ino = st.ino;
	}
	if (!p->full && st.size > p->off)
		perf_read(u, p, fd, st.size);
	ufile_close(fd);
}

static int perf_cmp(const void *pa, const void *pb)
{
	const struct perfsym *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->name < b->name ? -1 : a->name > b->name; /* the later line last */
}

const struct perfsym *perf_find(struct uproc *pr, uint64_t addr)
{
	struct uperf *p = &pr->perf;
	const struct perfsym *best = NULL;
	size_t lo = 0, hi = p->n;

	if (!p->sorted && p->n)
		qsort(p->e, p->n, sizeof(*p->e), perf_cmp);
	p->sorted = true;
	while (lo < hi) { /* the last entry starting at or below @addr */
		size_t mid = lo + (hi - lo) / 2;

		if (p->e[mid].start <= addr) {
			best = &p->e[mid];
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return best && addr - best->start < best->size ? best : NULL;
}

const char *perf_name(const struct uproc *pr, const struct perfsym *ps)
{
	return pr->perf.names + ps->name;
}
