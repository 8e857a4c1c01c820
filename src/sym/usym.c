// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * usym.c - see usym.h. Tokens and processes are looked up through small
 * open-addressing tables; names are resolved on first display and kept
 * (bounded: past USYM_NAMES_MAX bytes every cached name is dropped and
 * resolved again when shown), libdwfl sessions are kept for at most
 * USYM_DWFL_MAX files at once.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/mix64.h"
#include "core/format.h"
#include "core/log.h"
#include "sym/usym.h"

#ifdef HAVE_LIBDW
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#endif

#define USYM_NAMES_MAX (16u << 20) /* bytes of cached names */
#define USYM_DWFL_MAX  64          /* files with symbols loaded at once */
#define USYM_FDS_MAX   256         /* mapped files kept open (and a quarter of RLIMIT_NOFILE) */
#define USYM_MAPS_MAX  (16u << 20) /* a maps file larger than this is cut */

#ifdef HAVE_LIBIBERTY
#include <libiberty/demangle.h>
#endif

/* without libiberty: C++ and Rust legacy names, when libstdc++ is linked in */
extern char *__cxa_demangle(const char *name, char *buf, size_t *len, int *status)
	__attribute__((weak));

enum tok_state {
	TOK_NEW,     /* not resolved yet */
	TOK_SYM,     /* @name + @symoff in @file */
	TOK_FILE,    /* no symbol: @fileoff in @file */
	TOK_PERF,    /* @name + @symoff from perf-<pid>.map */
	TOK_NOMAP,   /* no mapping holds the address */
	TOK_TEXT,    /* named by a snapshot read back: @name is the frame as written */
};

struct utok {
	uint64_t addr;
	uint32_t tgid;
	uint32_t proc;
	uint8_t state;
	uint32_t file; /* index in u->files, UINT32_MAX: the map's pseudo name */
	uint32_t map;  /* index in the proc's maps (TOK_FILE with no file) */
	uint64_t symoff;
	uint64_t fileoff;
	char *name;
};

struct perfsym {
	uint64_t start;
	uint64_t size;
	char *name;
};

/*
 * One image of a process: an exec (seen as /proc/<tgid>/exe changing, at
 * most once per refresh) starts a new one, and tokens key on the image, so
 * frames from before and after an exec are never named from the other's
 * maps.
 */
struct uproc {
	uint32_t tgid;
	uint32_t nspid;
	uint32_t checked; /* usym epoch of the last exec check */
	uint64_t exe_dev;
	uint64_t exe_ino;
	struct usym_map *maps;
	size_t nmaps;
	uint32_t *mfile; /* file index per map, UINT32_MAX: none */
	bool retried;
	bool perf_loaded;
	long long perf_size;
	struct perfsym *perf;
	size_t nperf;
};

struct ufile {
	uint64_t dev;
	uint64_t ino;
	char *path;
	uint32_t tgid; /* the process it was first seen in (for /proc/<tgid>/root) */
	int fd;
	uint8_t bid[64];
	int bidlen;
	bool failed;
	bool vdso; /* an image copied from a process's memory: @fd is a memfd */
	size_t len; /* ... its size */
	uint8_t *image; /* ... its bytes (the next process's is compared to them) */
	uint64_t used;
#ifdef HAVE_LIBDW
	Dwfl *dwfl;
	Dwfl_Module *mod;
#endif
};

/* u64 -> u32 map, open addressing; UINT32_MAX marks an empty slot */
struct u64map {
	uint64_t *keys;
	uint32_t *vals;
	size_t cap;
	size_t n;
};

struct usym {
	char proc[128];
	struct u64map tokmap; /* hash(tgid, addr) chains resolved by compare */
	struct utok *toks;
	size_t ntoks, ctoks;
	struct u64map procmap;
	struct uproc *procs;
	size_t nprocs, cprocs;
	struct u64map filemap;
	struct ufile *files;
	size_t nfiles, cfiles;
	size_t name_bytes;
	size_t maps_bytes; /* the processes' maps (usym_memory()) */
	size_t vdso_bytes; /* the vdso copies */
	size_t limit;      /* usym_set_limit(), 0: none */
	uint64_t refused;  /* new frames not interned: at the limit */
	unsigned int nfds;
	unsigned int maxfds; /* the per-CPU readers need descriptors too */
	unsigned int ndwfl;
	uint64_t clock;
	uint32_t epoch; /* usym_tick() */
};


static int u64map_grow(struct u64map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 256, i;
	uint64_t *k = malloc(cap * sizeof(*k));
	uint32_t *v = malloc(cap * sizeof(*v));

	if (!k || !v) {
		free(k);
		free(v);
		return -ENOMEM;
	}
	memset(v, 0xff, cap * sizeof(*v));
	for (i = 0; i < m->cap; i++) {
		size_t j;

		if (m->vals[i] == UINT32_MAX)
			continue;
		for (j = mix64(m->keys[i]) & (cap - 1); v[j] != UINT32_MAX; j = (j + 1) & (cap - 1))
			;
		k[j] = m->keys[i];
		v[j] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = k;
	m->vals = v;
	m->cap = cap;
	return 0;
}

static void u64map_free(struct u64map *m)
{
	free(m->keys);
	free(m->vals);
}

/* the slot of @key (exact key match), or of the empty slot where it goes */
static size_t u64map_slot(const struct u64map *m, uint64_t key)
{
	size_t j;

	for (j = mix64(key) & (m->cap - 1); m->vals[j] != UINT32_MAX; j = (j + 1) & (m->cap - 1))
		if (m->keys[j] == key)
			break;
	return j;
}

static uint32_t u64map_get(const struct u64map *m, uint64_t key)
{
	if (!m->cap)
		return UINT32_MAX;
	return m->vals[u64map_slot(m, key)];
}

static int u64map_put(struct u64map *m, uint64_t key, uint32_t val)
{
	size_t j;

	if ((m->n + 1) * 4 > m->cap * 3 && u64map_grow(m) < 0)
		return -ENOMEM;
	j = u64map_slot(m, key);
	if (m->vals[j] == UINT32_MAX)
		m->n++;
	m->keys[j] = key;
	m->vals[j] = val;
	return 0;
}

static int grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t c = *cap ? *cap : 64;
	void *p;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	p = realloc(*arr, c * elem);
	if (!p)
		return -ENOMEM;
	memset((char *)p + *cap * elem, 0, (c - *cap) * elem);
	*arr = p;
	*cap = c;
	return 0;
}

/* ---- maps ------------------------------------------------------------- */

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
			if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu%n", &start, &end, perms, &off,
				   &maj, &min, &ino, &used) == 7 &&
			    strlen(perms) >= 3 && perms[2] == 'x' && end > start) {
				const char *path = line + used;

				while (*path == ' ' || *path == '\t')
					path++;
				if (grow((void **)&m, &cap, n + 1, sizeof(*m)) < 0)
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

/* ---- files ------------------------------------------------------------ */

#ifdef HAVE_LIBDW
static void file_read_buildid(struct ufile *f)
{
	const void *bid = NULL;
	ssize_t n;
	Elf *e;

	if (f->fd < 0)
		return;
	elf_version(EV_CURRENT);
	e = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	if (!e)
		return;
	n = dwelf_elf_gnu_build_id(e, &bid);
	if (n > 0 && (size_t)n <= sizeof(f->bid)) {
		memcpy(f->bid, bid, (size_t)n);
		f->bidlen = (int)n;
	}
	elf_end(e);
}
#else
static void file_read_buildid(struct ufile *f)
{
	(void)f;
}
#endif

static uint32_t file_get(struct usym *u, uint32_t tgid, const struct usym_map *m)
{
	uint64_t key = mix64(m->dev) ^ m->ino;
	uint32_t i = u64map_get(&u->filemap, key);
	struct ufile *f;
	char p[256];

	/* a hash collision of two files: the later one is kept apart, unhashed */
	if (i != UINT32_MAX && u->files[i].dev == m->dev && u->files[i].ino == m->ino &&
	    !strcmp(u->files[i].path, m->path))
		return i;
	if (grow((void **)&u->files, &u->cfiles, u->nfiles + 1, sizeof(*u->files)) < 0)
		return UINT32_MAX;
	f = &u->files[u->nfiles];
	memset(f, 0, sizeof(*f));
	f->dev = m->dev;
	f->ino = m->ino;
	f->tgid = tgid;
	f->path = strdup(m->path);
	f->fd = -1;
	if (!f->path)
		return UINT32_MAX;
	/* the file the process mapped, even if replaced or in another mount ns */
	snprintf(p, sizeof(p), "%s/%u/map_files/%" PRIx64 "-%" PRIx64, u->proc, tgid, m->start,
		 m->end);
	f->fd = open(p, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0) {
		snprintf(p, sizeof(p), "%s/%u/root", u->proc, tgid);
		if (strlen(p) + strlen(m->path) < sizeof(p)) {
			strcat(p, m->path);
			f->fd = open(p, O_RDONLY | O_CLOEXEC);
		}
	}
	file_read_buildid(f);
	if (f->fd >= 0 && u->nfds >= u->maxfds) {
		close(f->fd); /* opened again when needed, checked by build-id */
		f->fd = -1;
	} else if (f->fd >= 0) {
		u->nfds++;
	}
	if (i == UINT32_MAX && u64map_put(&u->filemap, key, (uint32_t)u->nfiles) < 0) {
		if (f->fd >= 0) {
			close(f->fd);
			u->nfds--;
		}
		free(f->path);
		return UINT32_MAX;
	}
	return (uint32_t)u->nfiles++;
}

#ifdef HAVE_LIBDW
#define USYM_VDSO_MAX (1u << 20) /* a [vdso] larger than this is not read */

/*
 * The [vdso] of @tgid: its code is in no file, so the image is copied from
 * the process's memory (at first sight: the process lives) into a memfd,
 * which libdwfl then reads like any ELF file. Processes share the kernel's
 * few images (64-bit, x32, 32-bit): one kept per content (compared byte
 * for byte, a few KiB, before anything is created).
 */
static uint32_t vdso_get(struct usym *u, uint32_t tgid, const struct usym_map *m)
{
	size_t len = (size_t)(m->end - m->start), i;
	struct ufile tmp = { .fd = -1 };
	struct ufile *f;
	char p[160];
	uint8_t *img;
	ssize_t n;
	int fd;

	if (len > USYM_VDSO_MAX || u->nfds >= u->maxfds)
		return UINT32_MAX;
	snprintf(p, sizeof(p), "%s/%u/mem", u->proc, tgid);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return UINT32_MAX;
	img = malloc(len);
	n = img ? pread(fd, img, len, (off_t)m->start) : -1;
	close(fd);
	if (n != (ssize_t)len) {
		free(img);
		return UINT32_MAX;
	}
	for (i = 0; i < u->nfiles; i++) {
		f = &u->files[i];
		if (f->vdso && f->len == len && !memcmp(f->image, img, len)) {
			free(img); /* the image seen already */
			return (uint32_t)i;
		}
	}
	tmp.fd = memfd_create("stacktop-vdso", MFD_CLOEXEC);
	if (tmp.fd < 0 || write(tmp.fd, img, len) != (ssize_t)len ||
	    grow((void **)&u->files, &u->cfiles, u->nfiles + 1, sizeof(*u->files)) < 0) {
		if (tmp.fd >= 0)
			close(tmp.fd);
		free(img);
		return UINT32_MAX;
	}
	file_read_buildid(&tmp);
	f = &u->files[u->nfiles];
	*f = tmp;
	f->path = strdup(m->path);
	f->tgid = tgid;
	f->vdso = true;
	f->len = len;
	f->image = img;
	if (!f->path) {
		close(f->fd);
		free(img);
		return UINT32_MAX;
	}
	u->nfds++;
	u->vdso_bytes += 2 * len; /* the memfd and the copy compared */
	return (uint32_t)u->nfiles++;
}
#else
static uint32_t vdso_get(struct usym *u, uint32_t tgid, const struct usym_map *m)
{
	(void)u;
	(void)tgid;
	(void)m;
	return UINT32_MAX;
}
#endif

/* ---- processes -------------------------------------------------------- */

static void proc_read_nspid(struct usym *u, struct uproc *pr)
{
	char path[160], *txt, *l;

	pr->nspid = pr->tgid;
	if (!u->proc[0])
		return;
	snprintf(path, sizeof(path), "%s/%u/status", u->proc, pr->tgid);
	txt = read_text(path, 65536, NULL);
	if (!txt)
		return;
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

static void proc_snapshot(struct usym *u, struct uproc *pr)
{
	struct usym_map *m = NULL;
	char path[160], *txt;
	uint32_t *mf;
	size_t n = 0, i;

	if (!u->proc[0])
		return; /* not this machine's processes */

	snprintf(path, sizeof(path), "%s/%u/maps", u->proc, pr->tgid);
	txt = read_text(path, USYM_MAPS_MAX, NULL);
	if (!txt)
		return; /* gone already: its frames stay [unknown] */
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
		mf[i] = m[i].ino && m[i].path[0] == '/' ? file_get(u, pr->tgid, &m[i]) :
			!m[i].ino && !strcmp(m[i].path, "[vdso]") ? vdso_get(u, pr->tgid, &m[i]) :
								      UINT32_MAX;
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

/* the current image of @tgid; a new one at first sight or after an exec */
static uint32_t proc_get(struct usym *u, uint32_t tgid)
{
	uint32_t i = u64map_get(&u->procmap, tgid);
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
	if (grow((void **)&u->procs, &u->cprocs, u->nprocs + 1, sizeof(*u->procs)) < 0 ||
	    u64map_put(&u->procmap, tgid, (uint32_t)u->nprocs) < 0)
		return i; /* UINT32_MAX at first sight */
	pr = &u->procs[u->nprocs];
	memset(pr, 0, sizeof(*pr));
	pr->tgid = tgid;
	pr->checked = u->epoch;
	if (known) {
		pr->exe_dev = dev;
		pr->exe_ino = ino;
	}
	proc_read_nspid(u, pr);
	proc_snapshot(u, pr);
	return (uint32_t)u->nprocs++;
}

void usym_tick(struct usym *u)
{
	u->epoch++;
}

static int perf_cmp(const void *pa, const void *pb)
{
	const struct perfsym *a = pa, *b = pb;

	return a->start < b->start ? -1 : a->start > b->start;
}

static void perf_free(struct uproc *pr)
{
	size_t i;

	for (i = 0; i < pr->nperf; i++)
		free(pr->perf[i].name);
	free(pr->perf);
	pr->perf = NULL;
	pr->nperf = 0;
}

/* /tmp/perf-<pid>.map in the process's root: "START SIZE name" in hex */
static void perf_load(struct usym *u, struct uproc *pr)
{
	char path[200], *txt, *p;
	size_t len, cap = 0;
	struct stat sb;

	if (!u->proc[0])
		return;
	snprintf(path, sizeof(path), "%s/%u/root/tmp/perf-%u.map", u->proc, pr->tgid, pr->nspid);
	if (stat(path, &sb) < 0) {
		/* after exit the root is gone: the host's /tmp is what is left */
		snprintf(path, sizeof(path), "/tmp/perf-%u.map", pr->tgid);
		if (stat(path, &sb) < 0)
			return;
	}
	if (pr->perf_loaded && (long long)sb.st_size == pr->perf_size)
		return;
	txt = read_text(path, 64u << 20, &len);
	if (!txt)
		return;
	perf_free(pr);
	pr->perf_loaded = true;
	pr->perf_size = (long long)sb.st_size;
	for (p = txt; p && *p;) {
		char *eol = strchr(p, '\n'), *e1, *e2;
		unsigned long long start, size;

		if (eol)
			*eol = '\0';
		start = strtoull(p, &e1, 16);
		size = e1 != p ? strtoull(e1, &e2, 16) : 0;
		if (e1 != p && e2 != e1 && size && *e2 == ' ' &&
		    !grow((void **)&pr->perf, &cap, pr->nperf + 1, sizeof(*pr->perf))) {
			pr->perf[pr->nperf].start = start;
			pr->perf[pr->nperf].size = size;
			pr->perf[pr->nperf].name = strdup(e2 + 1);
			if (pr->perf[pr->nperf].name)
				pr->nperf++;
		}
		p = eol ? eol + 1 : NULL;
	}
	free(txt);
	if (pr->nperf)
		qsort(pr->perf, pr->nperf, sizeof(*pr->perf), perf_cmp);
}

static const struct perfsym *perf_find(const struct uproc *pr, uint64_t addr)
{
	size_t lo = 0, hi = pr->nperf;
	const struct perfsym *best = NULL;

	while (lo < hi) { /* the last entry starting at or below @addr */
		size_t mid = lo + (hi - lo) / 2;

		if (pr->perf[mid].start <= addr) {
			best = &pr->perf[mid];
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return best && addr - best->start < best->size ? best : NULL;
}

/* ---- the symbolizer --------------------------------------------------- */

struct usym *usym_new(const char *proc)
{
	struct usym *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	snprintf(u->proc, sizeof(u->proc), "%s", proc ? proc : "/proc");
	u->maxfds = USYM_FDS_MAX;
	{
		struct rlimit rl;

		if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY &&
		    rl.rlim_cur / 4 < u->maxfds)
			u->maxfds = (unsigned int)(rl.rlim_cur / 4);
	}
	return u;
}

#ifdef HAVE_LIBDW
static void file_unload(struct usym *u, struct ufile *f)
{
	if (f->dwfl) {
		dwfl_end(f->dwfl);
		f->dwfl = NULL;
		f->mod = NULL;
		u->ndwfl--;
	}
}
#endif

void usym_free(struct usym *u)
{
	size_t i;

	if (!u)
		return;
	for (i = 0; i < u->ntoks; i++)
		free(u->toks[i].name);
	for (i = 0; i < u->nprocs; i++) {
		usym_maps_free(u->procs[i].maps, u->procs[i].nmaps);
		free(u->procs[i].mfile);
		perf_free(&u->procs[i]);
	}
	for (i = 0; i < u->nfiles; i++) {
#ifdef HAVE_LIBDW
		file_unload(u, &u->files[i]);
#endif
		if (u->files[i].fd >= 0)
			close(u->files[i].fd);
		free(u->files[i].path);
		free(u->files[i].image);
	}
	u64map_free(&u->tokmap);
	u64map_free(&u->procmap);
	u64map_free(&u->filemap);
	free(u->toks);
	free(u->procs);
	free(u->files);
	free(u);
}

/* bytes the next new token allocates (the arrays double), 0 mostly */
static size_t tok_growth(const struct usym *u)
{
	size_t b = 0;

	if (u->ntoks + 1 > u->ctoks)
		b += (u->ctoks ? u->ctoks : 64) * sizeof(*u->toks);
	if ((u->tokmap.n + 1) * 4 > u->tokmap.cap * 3)
		b += (u->tokmap.cap ? u->tokmap.cap : 256) * 12;
	return b;
}

uint64_t usym_intern(struct usym *u, uint32_t tgid, uint64_t addr)
{
	uint32_t pi = proc_get(u, tgid);
	uint64_t key;
	size_t j;

	if (pi == UINT32_MAX)
		return 0;
	key = mix64(addr) ^ pi;
	if (u->tokmap.cap) {
		for (j = mix64(key) & (u->tokmap.cap - 1); u->tokmap.vals[j] != UINT32_MAX;
		     j = (j + 1) & (u->tokmap.cap - 1)) {
			const struct utok *t = &u->toks[u->tokmap.vals[j]];

			if (t->addr == addr && t->proc == pi)
				return USYM_TAG_FRAME | u->tokmap.vals[j];
		}
	}
	if (u->ntoks >= 0xffffffffu - 1)
		return 0;
	if (u->limit && usym_memory(u) + tok_growth(u) >= u->limit) {
		u->refused++; /* the frames interned so far stay; no new one */
		return 0;
	}
	if (grow((void **)&u->toks, &u->ctoks, u->ntoks + 1, sizeof(*u->toks)) < 0)
		return 0;
	if ((u->tokmap.n + 1) * 4 > u->tokmap.cap * 3 && u64map_grow(&u->tokmap) < 0)
		return 0;
	/* equal keys chain in the probe sequence: find the next empty slot */
	for (j = mix64(key) & (u->tokmap.cap - 1); u->tokmap.vals[j] != UINT32_MAX;
	     j = (j + 1) & (u->tokmap.cap - 1))
		;
	u->tokmap.keys[j] = key;
	u->tokmap.vals[j] = (uint32_t)u->ntoks;
	u->tokmap.n++;
	memset(&u->toks[u->ntoks], 0, sizeof(u->toks[0]));
	u->toks[u->ntoks].addr = addr;
	u->toks[u->ntoks].tgid = tgid;
	u->toks[u->ntoks].proc = pi;
	u->toks[u->ntoks].file = UINT32_MAX;
	return USYM_TAG_FRAME | u->ntoks++;
}

int usym_lookup(const struct usym *u, uint64_t tok, uint32_t *ret_tgid, uint64_t *ret_addr)
{
	uint64_t i = tok & ~USYM_TAG_MASK;

	if ((tok & USYM_TAG_MASK) != USYM_TAG_FRAME || i >= u->ntoks)
		return -ENOENT;
	*ret_tgid = u->toks[i].tgid;
	*ret_addr = u->toks[i].addr;
	return 0;
}

static void names_drop(struct usym *u)
{
	size_t i;

	for (i = 0; i < u->ntoks; i++) {
		if (u->toks[i].state == TOK_TEXT)
			continue; /* nothing to look it up from again */
		free(u->toks[i].name);
		u->toks[i].name = NULL;
		u->toks[i].state = TOK_NEW;
	}
	u->name_bytes = 0;
}

/*
 * A Rust legacy name as a C++ demangler leaves it ("a::b::h0123456789abcdef",
 * "S$LT$T$GT$"): the hash dropped, the escapes decoded, in place. Names
 * without the hash are C++'s and stay as they are.
 */
static void rust_legacy_fixup(char *d)
{
	static const struct {
		const char *esc;
		char c;
	} escs[] = {
		{ "$SP$", '@' }, { "$BP$", '*' }, { "$RF$", '&' }, { "$LT$", '<' }, { "$GT$", '>' },
		{ "$LP$", '(' }, { "$RP$", ')' }, { "$C$", ',' },   { "$u20$", ' ' }, { "$u22$", '"' },
		{ "$u27$", '\'' }, { "$u2b$", '+' }, { "$u3b$", ';' }, { "$u5b$", '[' }, { "$u5d$", ']' },
		{ "$u7b$", '{' }, { "$u7d$", '}' }, { "$u7e$", '~' },
	};
	size_t len = strlen(d), i;
	char *r, *w;

	if (len < 19 || strncmp(d + len - 19, "::h", 3) ||
	    strspn(d + len - 16, "0123456789abcdef") != 16)
		return;
	d[len - 19] = '\0';
	for (r = w = d; *r;) {
		if (*r == '$') {
			for (i = 0; i < sizeof(escs) / sizeof(escs[0]); i++)
				if (!strncmp(r, escs[i].esc, strlen(escs[i].esc)))
					break;
			if (i < sizeof(escs) / sizeof(escs[0])) {
				*w++ = escs[i].c;
				r += strlen(escs[i].esc);
				continue;
			}
		} else if (r[0] == '.' && r[1] == '.') {
			*w++ = ':';
			*w++ = ':';
			r += 2;
			continue;
		}
		*w++ = *r++;
	}
	*w = '\0';
}

char *usym_demangle(const char *name)
{
	const char *at = name[0] ? strchr(name + 1, '@') : NULL;
	char *d = NULL;
	int st = -1;

	/*
	 * A versioned symbol (__libc_start_main@@GLIBC_2.34, clock_gettime@
	 * GLIBC_2.17) is named without its version, as perf names it: one
	 * function, one name in flame graphs merged with perf's.
	 */
	if (at) {
		char *bare = strndup(name, (size_t)(at - name)), *r;

		if (!bare)
			return NULL;
		r = usym_demangle(bare);
		free(bare);
		return r;
	}
	if (name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return strdup(name);
#ifdef HAVE_LIBIBERTY
	/* C++, Rust legacy (hash dropped) and Rust v0 */
	d = cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO);
	if (d)
		return d;
#endif
	if (__cxa_demangle && name[1] == 'Z') {
		d = __cxa_demangle(name, NULL, NULL, &st);
		if (d && !st) {
			rust_legacy_fixup(d);
			return d;
		}
		free(d);
	}
	return strdup(name);
}

#ifdef HAVE_LIBDW
static char *debuginfo_path;

static const Dwfl_Callbacks dwfl_cbs = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

/* a file descriptor on @f's contents: kept open, or reopened and checked */
static int file_fd(struct usym *u, struct ufile *f)
{
	char p[300];
	int fd;

	if (f->fd >= 0)
		return dup(f->fd);
	snprintf(p, sizeof(p), "%s/%u/root%s", u->proc, f->tgid, f->path);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fd = open(f->path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && f->bidlen) {
		struct ufile tmp = { .fd = fd };

		file_read_buildid(&tmp);
		if (tmp.bidlen != f->bidlen || memcmp(tmp.bid, f->bid, (size_t)f->bidlen)) {
			close(fd); /* changed on disk since: not the code that ran */
			fd = -1;
		}
	}
	return fd;
}

static void dwfl_evict(struct usym *u)
{
	struct ufile *old = NULL;
	size_t i;

	for (i = 0; i < u->nfiles; i++)
		if (u->files[i].dwfl && (!old || u->files[i].used < old->used))
			old = &u->files[i];
	if (old)
		file_unload(u, old);
}

static bool file_load(struct usym *u, struct ufile *f)
{
	int fd;

	if (f->dwfl)
		return true;
	if (f->failed)
		return false;
	if (u->ndwfl >= USYM_DWFL_MAX)
		dwfl_evict(u);
	fd = file_fd(u, f);
	f->dwfl = dwfl_begin(&dwfl_cbs);
	if (!f->dwfl) {
		if (fd >= 0)
			close(fd);
		f->failed = true;
		return false;
	}
	u->ndwfl++;
	dwfl_report_begin(f->dwfl);
	if (fd >= 0) {
		f->mod = dwfl_report_elf(f->dwfl, f->path, f->path, fd, 0, false);
		if (!f->mod)
			close(fd);
	}
	dwfl_report_end(f->dwfl, NULL, NULL);
	if (!f->mod) {
		file_unload(u, f);
		f->failed = true;
		return false;
	}
	return true;
}

/* the symbol of file offset @off in @f: name (allocated) and offset in it */
static char *file_symbol(struct usym *u, struct ufile *f, uint64_t off, uint64_t *ret_symoff)
{
	GElf_Addr bias = 0, vaddr = 0, symoff = 0;
	const char *name;
	bool found = false;
	size_t i, nph;
	GElf_Sym sym;
	Elf *e;

	if (!file_load(u, f))
		return NULL;
	f->used = ++u->clock;
	e = dwfl_module_getelf(f->mod, &bias);
	if (!e || elf_getphdrnum(e, &nph) < 0)
		return NULL;
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (off >= ph.p_offset && off < ph.p_offset + ph.p_filesz) {
			vaddr = off - ph.p_offset + ph.p_vaddr;
			found = true;
			break;
		}
	}
	if (!found)
		return NULL;
	name = dwfl_module_addrinfo(f->mod, vaddr + bias, &symoff, &sym, NULL, NULL, NULL);
	/* a symbol with no size says nothing about where it ends: no guess */
	if (!name || !*name || !sym.st_size || symoff >= sym.st_size)
		return NULL;
	*ret_symoff = symoff;
	return usym_demangle(name);
}
#endif

/* the name cache's bound: USYM_NAMES_MAX, or a quarter of the limit */
static size_t names_max(const struct usym *u)
{
	return u->limit && u->limit / 4 < USYM_NAMES_MAX ? u->limit / 4 : USYM_NAMES_MAX;
}

static void tok_resolve(struct usym *u, struct utok *t)
{
	struct uproc *pr = &u->procs[t->proc];
	const struct usym_map *m;
	const struct perfsym *ps;

	if (u->name_bytes > names_max(u))
		names_drop(u);
	m = usym_find_map(pr->maps, pr->nmaps, t->addr);
	if (!m && !pr->retried) {
		pr->retried = true; /* mapped after the first look (dlopen, exec) */
		proc_snapshot(u, pr);
		m = usym_find_map(pr->maps, pr->nmaps, t->addr);
	}
	if (!m || !m->ino) {
		perf_load(u, pr);
		ps = perf_find(pr, t->addr);
		if (ps) {
			t->state = TOK_PERF;
			t->symoff = t->addr - ps->start;
			t->name = strdup(ps->name);
			if (t->name)
				u->name_bytes += strlen(t->name) + 1;
			else
				t->state = TOK_NOMAP;
			return;
		}
	}
	if (!m) {
		t->state = TOK_NOMAP;
		return;
	}
	t->map = (uint32_t)(m - pr->maps);
	t->file = pr->mfile[t->map];
	t->fileoff = t->addr - m->start + m->pgoff;
	t->state = TOK_FILE;
#ifdef HAVE_LIBDW
	if (t->file != UINT32_MAX) {
		t->name = file_symbol(u, &u->files[t->file], t->fileoff, &t->symoff);
		if (t->name) {
			t->state = TOK_SYM;
			u->name_bytes += strlen(t->name) + 1;
		}
	}
#endif
}

/*
 * A frame read back from a snapshot is the text usym_format() wrote with
 * the offset and the file: "func+0xoff (file)", "[unknown] 0xaddr
 * (file+0xoff)" or "[unknown] 0xaddr". The other forms are cut from it as
 * usym_format() would print them.
 */
static int text_format(const char *text, char *buf, size_t size, bool offset, bool with_file)
{
	size_t len = strlen(text), head = len, n;
	const char *paren = NULL, *p;
	char raw[512];

	if (len && text[len - 1] == ')' && (p = strstr(text, " (")) != NULL) {
		/* the file part is the last " (...)" */
		while ((n = (size_t)(p - text), p = strstr(p + 2, " (")) != NULL)
			;
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
static uint64_t text_start(struct usym *u, const struct utok *t, uint64_t ip)
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

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

int usym_format(struct usym *u, uint64_t ip, char *buf, size_t size, bool offset, bool with_file)
{
	char raw[512], file[256];
	uint64_t i = ip & ~USYM_TAG_MASK;
	const struct uproc *pr;
	struct utok *t;
	int n;

	if ((ip & USYM_TAG_MASK) == USYM_TAG_SEP)
		return snprintf(buf, size, "--");
	/* the cut mark says why the walk ended there */
	if (ip == USYM_CUT_STACK)
		return snprintf(buf, size, "[cut: end of the copied user stack]");
	if (ip == USYM_CUT_FAILED)
		return snprintf(buf, size, "[cut: unwind failed: no unwind table]");
	if (ip == USYM_CUT_MEMORY)
		return snprintf(buf, size, "[cut: --max-memory: user frames not kept]");
	if (usym_is_cut(ip))
		return snprintf(buf, size, "[cut: more user frames]");
	if (!u || (ip & USYM_TAG_MASK) != USYM_TAG_FRAME || i >= u->ntoks)
		return snprintf(buf, size, "[unknown] 0x%" PRIx64, ip);
	t = &u->toks[i];
	if (t->state == TOK_TEXT)
		return text_format(t->name, buf, size, offset, with_file);
	if (t->state == TOK_NEW)
		tok_resolve(u, t);
	pr = &u->procs[t->proc];
	file[0] = '\0';
	if (t->state == TOK_PERF)
		snprintf(file, sizeof(file), "perf-%u.map", pr->nspid);
	else if (t->state == TOK_SYM || t->state == TOK_FILE)
		snprintf(file, sizeof(file), "%s",
			 t->file != UINT32_MAX ? base_name(u->files[t->file].path) :
			 pr->maps[t->map].path[0] ? pr->maps[t->map].path : "[anon]");
	switch (t->state) {
	case TOK_SYM:
	case TOK_PERF:
		n = snprintf(raw, sizeof(raw), "%s", t->name);
		if (offset && n >= 0 && (size_t)n < sizeof(raw))
			snprintf(raw + n, sizeof(raw) - (size_t)n, "+0x%" PRIx64, t->symoff);
		if (with_file) {
			n = (int)strlen(raw);
			snprintf(raw + n, sizeof(raw) - (size_t)n, " (%s)", file);
		}
		break;
	case TOK_FILE:
		if (offset)
			snprintf(raw, sizeof(raw), "[unknown] 0x%" PRIx64 " (%s+0x%" PRIx64 ")", t->addr,
				 file, t->fileoff);
		else
			snprintf(raw, sizeof(raw), "[unknown] (%s+0x%" PRIx64 ")", file, t->fileoff);
		break;
	default:
		snprintf(raw, sizeof(raw), "[unknown] 0x%" PRIx64, t->addr);
		break;
	}
	/* names come from files and processes: never raw to a terminal */
	return (int)fmt_sanitize(buf, size, raw, strlen(raw));
}

uint64_t usym_start(struct usym *u, uint64_t ip)
{
	uint64_t i = ip & ~USYM_TAG_MASK, tok;
	struct utok *t;

	if (!u || (ip & USYM_TAG_MASK) != USYM_TAG_FRAME || i >= u->ntoks)
		return ip;
	t = &u->toks[i];
	if (t->state == TOK_TEXT)
		return text_start(u, t, ip);
	if (t->state == TOK_NEW)
		tok_resolve(u, t);
	if ((t->state != TOK_SYM && t->state != TOK_PERF) || !t->symoff)
		return ip;
	tok = usym_intern(u, t->tgid, t->addr - t->symoff);
	return tok ? tok : ip;
}

size_t usym_memory(const struct usym *u)
{
	return sizeof(*u) + u->ctoks * sizeof(*u->toks) + u->cprocs * sizeof(*u->procs) +
	       u->cfiles * sizeof(*u->files) + u->name_bytes + u->maps_bytes + u->vdso_bytes +
	       (u->tokmap.cap + u->procmap.cap + u->filemap.cap) * 12;
}

void usym_set_limit(struct usym *u, size_t bytes)
{
	u->limit = bytes;
	if (u->name_bytes > names_max(u))
		names_drop(u);
}

uint64_t usym_refused(const struct usym *u)
{
	return u->refused;
}

int usym_add_maps(struct usym *u, uint32_t tgid, const struct usym_map *m, size_t n)
{
	struct uproc *pr;
	struct usym_map *c;
	uint32_t *mf, pi;
	size_t i;

	if (u64map_get(&u->procmap, tgid) != UINT32_MAX)
		return -EEXIST;
	pi = proc_get(u, tgid); /* reads /proc/<tgid>/maps while it is there */
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
		mf[i] = c[i].ino && c[i].path[0] == '/' ? file_get(u, tgid, &c[i]) : UINT32_MAX;
	}
	usym_maps_free(pr->maps, pr->nmaps); /* a zombie's maps are empty */
	free(pr->mfile);
	pr->maps = c;
	pr->nmaps = n;
	pr->mfile = mf;
	pr->retried = true; /* /proc has nothing more to give */
	return 0;
}

uint64_t usym_intern_text(struct usym *u, uint32_t tgid, uint64_t addr, const char *text)
{
	uint64_t key = mix64(addr) ^ ((uint64_t)tgid << 32) ^ 0x7465787400000000ULL;
	size_t j;

	if (u->tokmap.cap) {
		for (j = mix64(key) & (u->tokmap.cap - 1); u->tokmap.vals[j] != UINT32_MAX;
		     j = (j + 1) & (u->tokmap.cap - 1)) {
			const struct utok *t = &u->toks[u->tokmap.vals[j]];

			if (t->state == TOK_TEXT && t->addr == addr && t->tgid == tgid &&
			    !strcmp(t->name, text))
				return USYM_TAG_FRAME | u->tokmap.vals[j];
		}
	}
	if (u->ntoks >= 0xffffffffu - 1)
		return 0;
	if (grow((void **)&u->toks, &u->ctoks, u->ntoks + 1, sizeof(*u->toks)) < 0)
		return 0;
	if ((u->tokmap.n + 1) * 4 > u->tokmap.cap * 3 && u64map_grow(&u->tokmap) < 0)
		return 0;
	for (j = mix64(key) & (u->tokmap.cap - 1); u->tokmap.vals[j] != UINT32_MAX;
	     j = (j + 1) & (u->tokmap.cap - 1))
		;
	memset(&u->toks[u->ntoks], 0, sizeof(u->toks[0]));
	u->toks[u->ntoks].name = strdup(text);
	if (!u->toks[u->ntoks].name)
		return 0;
	u->tokmap.keys[j] = key;
	u->tokmap.vals[j] = (uint32_t)u->ntoks;
	u->tokmap.n++;
	u->toks[u->ntoks].addr = addr;
	u->toks[u->ntoks].tgid = tgid;
	u->toks[u->ntoks].proc = UINT32_MAX;
	u->toks[u->ntoks].file = UINT32_MAX;
	u->toks[u->ntoks].state = TOK_TEXT;
	return USYM_TAG_FRAME | u->ntoks++;
}
