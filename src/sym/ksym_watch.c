// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ksym_watch.c - see ksym_watch.h. When a lookup that missed is worth reading
 * kallsyms again
 * (0.1 s of CPU and more). A miss may be a module loaded since the last
 * load, or a BPF program: a reload names them. It may also be code kallsyms
 * never names (a BPF program with bpf_jit_kallsyms off, a trampoline), hit
 * at a new address by every sample of an on-CPU profile: a reload per
 * refresh, for nothing. So an address that still misses after a reload
 * remembers its range, between the symbols on either side, and later
 * misses there cost no reload (KSYM_GAPS ranges, the oldest replaced)
 * until the kernel's code changed: for /proc/kallsyms a module loaded or
 * unloaded (/proc/modules reads differently) or a BPF program loaded (an id
 * newer than the newest at the last load, BPF_PROG_GET_NEXT_ID); where
 * the ids cannot be listed, a minute since the last load; for a file,
 * another inode, size or time.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sym/ksym_watch.h"

#define KSYM_MODULES_PATH "/proc/modules"
#define KSYM_RETRY_NS	  (60ULL * 1000000000ULL) /* without BPF ids: a reload a minute */
#define KSYM_MODULES_MAX  (4u << 20)

bool ksym_gaps_has(const struct ksym_gaps *g, uint64_t addr)
{
	unsigned int i;

	for (i = 0; i < g->n; i++)
		if (addr >= g->g[i].lo && addr < g->g[i].hi)
			return true;
	return false;
}

void ksym_gaps_add(struct ksym_gaps *g, uint64_t addr, uint64_t lo, uint64_t hi)
{
	struct ksym_gap gap = { .lo = lo, .hi = hi, .addr = addr };

	if (ksym_gaps_has(g, addr))
		return;
	if (g->n < KSYM_GAPS) {
		g->g[g->n++] = gap;
		return;
	}
	g->g[g->next] = gap;
	g->next = (g->next + 1) % KSYM_GAPS;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* FNV-1a of /proc/modules (a few KiB), 0 when unreadable */
static uint64_t modules_hash(void)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	unsigned char buf[4096];
	size_t total = 0;
	ssize_t n;
	int fd = open(KSYM_MODULES_PATH, O_RDONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return 0;
	while (total < KSYM_MODULES_MAX && (n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (ssize_t i = 0; i < n; i++)
			h = (h ^ buf[i]) * 0x100000001b3ULL;
		total += (size_t)n;
	}
	close(fd);
	return h;
}

/* the id of the first BPF program after @id into @ret: 0, or -errno (-ENOENT: none) */
static int bpf_next_id(uint32_t id, uint32_t *ret)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.start_id = id;
	if (syscall(__NR_bpf, BPF_PROG_GET_NEXT_ID, &attr, sizeof(attr)) < 0)
		return -errno;
	*ret = attr.next_id;
	return 0;
}

/* the newest BPF program's id (0: none) into @ret; false when they cannot be listed */
static bool bpf_newest(uint32_t *ret)
{
	uint32_t id = 0, next;
	unsigned int guard = 0;
	int r;

	while ((r = bpf_next_id(id, &next)) == 0 && next > id && guard++ < 1000000)
		id = next;
	*ret = id;
	return r == -ENOENT || r == 0;
}

void ksym_watch_mark(struct ksym_watch *w, const char *path)
{
	struct stat st;

	w->proc = !strcmp(path, KSYM_WATCH_PROC);
	w->loaded = mono_ns();
	if (w->proc) {
		w->modules = modules_hash();
		w->bpf_ok = bpf_newest(&w->bpf_id);
		w->ok = true;
		return;
	}
	w->ok = stat(path, &st) == 0;
	if (w->ok) {
		w->dev = st.st_dev;
		w->ino = st.st_ino;
		w->size = st.st_size;
		w->mtime = st.st_mtim;
	}
}

bool ksym_watch_changed(const struct ksym_watch *w, const char *path)
{
	struct stat st;
	uint32_t next;
	bool ok;

	if (w->proc) {
		if (modules_hash() != w->modules)
			return true;
		if (w->bpf_ok)
			return bpf_next_id(w->bpf_id, &next) == 0;
		return mono_ns() - w->loaded >= KSYM_RETRY_NS;
	}
	ok = stat(path, &st) == 0;
	if (ok != w->ok)
		return true;
	return ok &&
	       (st.st_dev != w->dev || st.st_ino != w->ino || st.st_size != w->size ||
		st.st_mtim.tv_sec != w->mtime.tv_sec || st.st_mtim.tv_nsec != w->mtime.tv_nsec);
}
