// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * usym.c - see usym.h. Tokens and processes are looked up through small
 * open-addressing tables; names are resolved on first display and kept
 * (bounded: past a quarter of the share every cached name is dropped and
 * resolved again when shown). The files and their symbol tables are
 * usym_file.c's, perf maps usym_perf.c's, demangling usym_demangle.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/format.h"
#include "core/log.h"
#include "core/mix64.h"
#include "sym/usym_priv.h"

#define USYM_NAMES_MAX (16u << 20) /* bytes of cached names */
#define USYM_FDS_MAX   256         /* mapped files kept open (and a quarter of RLIMIT_NOFILE) */
#define USYM_MAPS_MAX  (16u << 20) /* a maps file larger than this is cut */

int u64map_grow(struct u64map *m)
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

void u64map_free(struct u64map *m)
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

uint32_t u64map_get(const struct u64map *m, uint64_t key)
{
	if (!m->cap)
		return UINT32_MAX;
	return m->vals[u64map_slot(m, key)];
}

int u64map_put(struct u64map *m, uint64_t key, uint32_t val)
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

int usym_grow(void **arr, size_t *cap, size_t need, size_t elem)
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
				if (usym_grow((void **)&m, &cap, n + 1, sizeof(*m)) < 0)
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

/* ---- processes -------------------------------------------------------- */

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
		mf[i] = m[i].ino && m[i].path[0] == '/' ? usym_file_get(u, pr->tgid, &m[i]) :
			!m[i].ino && !strcmp(m[i].path, "[vdso]") ? usym_vdso_get(u, pr->tgid, &m[i]) :
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
	if (usym_grow((void **)&u->procs, &u->cprocs, u->nprocs + 1, sizeof(*u->procs)) < 0 ||
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
	proc_read_status(u, pr);
	proc_snapshot(u, pr);
	return (uint32_t)u->nprocs++;
}

void usym_tick(struct usym *u)
{
	u->epoch++;
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
		perf_free(u, &u->procs[i]);
	}
	usym_files_free(u);
	u64map_free(&u->tokmap);
	u64map_free(&u->procmap);
	free(u->toks);
	free(u->procs);
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
	if (usym_grow((void **)&u->toks, &u->ctoks, u->ntoks + 1, sizeof(*u->toks)) < 0)
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
	/*
	 * Code in no file (JIT): its perf map is read now, while the process
	 * most likely lives (once a refresh; never after it is gone)
	 */
	{
		struct uproc *pr = &u->procs[pi];
		const struct usym_map *m = usym_find_map(pr->maps, pr->nmaps, addr);

		if (!m || !m->ino)
			perf_refresh(u, pr);
	}
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
		perf_refresh(u, pr);
		ps = perf_find(pr, t->addr);
		if (ps) {
			t->state = TOK_PERF;
			t->symoff = t->addr - ps->start;
			t->name = strdup(perf_name(pr, ps));
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
	if (t->file != UINT32_MAX) {
		t->name = usym_file_symbol(u, t->file, t->fileoff, &t->symoff);
		if (t->name) {
			t->state = TOK_SYM;
			u->name_bytes += strlen(t->name) + 1;
		}
	}
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
	if (ip == USYM_CUT)
		return snprintf(buf, size, "[cut: more user frames]");
	if (!u || (ip & USYM_TAG_MASK) != USYM_TAG_FRAME || i >= u->ntoks)
		return snprintf(buf, size, "[unknown] 0x%" PRIx64, ip);
	t = &u->toks[i];
	if (t->state == TOK_TEXT)
		return usym_text_format(t->name, buf, size, offset, with_file);
	if (t->state == TOK_NEW)
		tok_resolve(u, t);
	pr = &u->procs[t->proc];
	file[0] = '\0';
	if (t->state == TOK_PERF)
		snprintf(file, sizeof(file), "perf-%u.map", pr->nspid);
	else if (t->state == TOK_SYM || t->state == TOK_FILE)
		snprintf(file, sizeof(file), "%s",
			 t->file != UINT32_MAX ? base_name(usym_file_path(u, t->file)) :
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
		return usym_text_start(u, t, ip);
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
	       usym_files_memory(u) + u->name_bytes + u->maps_bytes + u->image_bytes +
	       u->sym_bytes + u->perf_bytes + (u->tokmap.cap + u->procmap.cap) * 12;
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

uint64_t usym_files_refused(const struct usym *u)
{
	return u->files_refused;
}

uint64_t usym_files_big(const struct usym *u)
{
	return u->files_big;
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
		mf[i] = c[i].ino && c[i].path[0] == '/' ? usym_file_get(u, tgid, &c[i]) : UINT32_MAX;
	}
	usym_maps_free(pr->maps, pr->nmaps); /* a zombie's maps are empty */
	free(pr->mfile);
	pr->maps = c;
	pr->nmaps = n;
	pr->mfile = mf;
	pr->retried = true; /* /proc has nothing more to give */
	return 0;
}
