// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * session.c - see session.h.
 *
 * The session does the I/O; ingest.c turns the pages into counted stacks.
 * An unknown stack id triggers at most one re-read of the map snapshot per
 * drain. A reset drains the buffers first, then bumps the generation, so an
 * id read before the reset never resolves through the map read after it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>

#include "evfmt.h"
#include "ingest.h"
#include "format.h"
#include "ksym.h"
#include "log.h"
#include "replay.h"
#include "ringbuf.h"
#include "session.h"
#include "stack_table.h"
#include "stackmap.h"
#include "state.h"
#include "tfs.h"

#define COMM_SLOTS    16384
#define COMM_PROBES   16
#define MAX_IDS	      (1u << 22) /* above any table_size (2^19) */

struct cpu_reader {
	int cpu;
	int fd;
	uint64_t overrun;
	uint64_t dropped;
};

struct comm_slot {
	int32_t pid; /* 0 = empty; pid 0 is never cached */
	bool negative;
	char comm[20];
};

struct session {
	struct session_opts opts;
	enum session_mode mode;
	struct tfs *tfs;
	struct state *state;
	struct evfmt *fmt;
	struct stack_table *table;
	struct ksym *ksym;
	struct stackmap_names *names; /* saved-map frames kallsyms does not know */
	uint64_t named_frames;
	char prefix[64]; /* "" or "instances/stacktop.<pid>/" */
	bool instance;

	struct cpu_reader *cpus;
	int ncpus;
	uint8_t *page;

	struct ingest *ing;
	struct replay *replay;
	bool replayed;

	/* stackmap */
	uint32_t *prev_ref; /* passive: ref_count seen last time, per id */
	uint32_t nprev;
	bool map_read_this_drain;
	bool discard_ids; /* old-ABI buffer holds ids of an unknown generation */
	bool old_abi; /* v1-v3: 64-frame truncation merges stacks */

	struct session_stats stats;
	uint64_t last_events, last_lost, last_overrun, last_dropped, last_fallbacks;
	struct timespec last_tick;
	struct timeval last_cpu;

	struct comm_slot *comms;
	bool cmdlines_read;

	char *traced;
};

static const char *const mode_names[SESSION_MODE_MAX] = {
	[SESSION_AUTO] = "auto",
	[SESSION_STACKMAP] = "stackmap",
	[SESSION_STACKS] = "stacks",
	[SESSION_PASSIVE] = "passive",
	[SESSION_REPLAY] = "replay",
};

const char *session_mode_name(enum session_mode mode)
{
	return mode < SESSION_MODE_MAX ? mode_names[mode] : "?";
}

int session_mode_parse(const char *name)
{
	int i;

	for (i = 0; i < SESSION_MODE_MAX; i++)
		if (!strcmp(name, mode_names[i]))
			return i;
	return -EINVAL;
}

static int errf(char *err, size_t errsz, int r, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int errf(char *err, size_t errsz, int r, const char *fmt, ...)
{
	char raw[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	if (err && errsz)
		fmt_sanitize(err, errsz, raw, sizeof(raw));
	return r;
}

static double ts_diff(const struct timespec *a, const struct timespec *b)
{
	return (double)(a->tv_sec - b->tv_sec) + (double)(a->tv_nsec - b->tv_nsec) / 1e9;
}

/* ---- paths -------------------------------------------------------------- */

static void path_of(const struct session *s, char *buf, size_t size, const char *rel)
{
	snprintf(buf, size, "%s%s", s->prefix, rel);
}

/* ---- events --------------------------------------------------------------- */

static int enable_event(struct session *s, const char *sys, const char *ev)
{
	char rel[512];
	int r;

	r = evfmt_add(s->fmt, s->tfs, sys, ev);
	if (r < 0)
		return r;
	snprintf(rel, sizeof(rel), "%sevents/%s/%s/enable", s->prefix, sys, ev);
	/* private instance: removed whole on exit, no journal needed */
	return s->instance ? tfs_write(s->tfs, rel, "1") : state_write(s->state, rel, "1");
}

static int list_dir(struct session *s, const char *rel, char ***ret, int *ret_n)
{
	char **names = NULL;
	struct dirent *de;
	int fd, n = 0;
	DIR *d;

	fd = tfs_open_file(s->tfs, rel, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return fd;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -ENOMEM;
	}
	while ((de = readdir(d))) {
		char **nn;

		if (de->d_name[0] == '.' || (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
			continue;
		nn = realloc(names, (size_t)(n + 1) * sizeof(*names));
		if (!nn)
			break;
		names = nn;
		names[n] = strdup(de->d_name);
		if (names[n])
			n++;
	}
	closedir(d);
	*ret = names;
	*ret_n = n;
	return 0;
}

static void free_list(char **l, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(l[i]);
	free(l);
}

/* enable every event matching "sys:event" (globs; "event" alone = any system) */
static int enable_pattern(struct session *s, const char *pat, char *err, size_t errsz)
{
	char sysp[256], evp[256];
	const char *colon = strchr(pat, ':');
	char **systems = NULL;
	int nsys = 0, i, matched = 0, r;

	if (!colon)
		colon = strchr(pat, '/');
	if (colon) {
		snprintf(sysp, sizeof(sysp), "%.*s", (int)(colon - pat), pat);
		snprintf(evp, sizeof(evp), "%s", colon + 1);
	} else {
		snprintf(sysp, sizeof(sysp), "*");
		snprintf(evp, sizeof(evp), "%s", pat);
	}
	if (!*sysp || !*evp)
		return errf(err, errsz, -ENOENT, "bad event '%s': use SYSTEM:EVENT", pat);
	r = list_dir(s, "events", &systems, &nsys);
	if (r < 0)
		return errf(err, errsz, r, "cannot list events: %s", strerror(-r));
	for (i = 0; i < nsys; i++) {
		char rel[300], **evs = NULL;
		int nev = 0, j;

		if (fnmatch(sysp, systems[i], 0) || !strcmp(systems[i], "ftrace"))
			continue;
		snprintf(rel, sizeof(rel), "events/%s", systems[i]);
		if (list_dir(s, rel, &evs, &nev) < 0)
			continue;
		for (j = 0; j < nev; j++) {
			if (fnmatch(evp, evs[j], 0))
				continue;
			r = enable_event(s, systems[i], evs[j]);
			if (r < 0) {
				free_list(evs, nev);
				free_list(systems, nsys);
				return errf(err, errsz, r, "cannot enable %s:%s: %s", systems[i],
					    evs[j], strerror(-r));
			}
			matched++;
		}
		free_list(evs, nev);
	}
	free_list(systems, nsys);
	if (!matched)
		return errf(err, errsz, -ENOENT,
			    "unknown event '%s' (see %s/available_events)", pat, s->tfs->root);
	return matched;
}

/* ---- comm cache ----------------------------------------------------------- */

/* a cache, not a record: after COMM_PROBES steps the home slot is recycled */
static struct comm_slot *comm_slot(struct session *s, int pid, bool insert)
{
	uint32_t h = (uint32_t)pid * 2654435761u;
	unsigned int i, n;

	for (n = 0, i = h & (COMM_SLOTS - 1); n < COMM_PROBES;
	     n++, i = (i + 1) & (COMM_SLOTS - 1)) {
		if (s->comms[i].pid == pid)
			return &s->comms[i];
		if (!s->comms[i].pid) {
			if (!insert)
				return NULL;
			s->comms[i].pid = pid;
			return &s->comms[i];
		}
	}
	if (!insert)
		return NULL;
	i = h & (COMM_SLOTS - 1);
	s->comms[i].pid = pid;
	return &s->comms[i];
}

static void comm_set(struct session *s, int pid, const char *comm, size_t len, bool negative)
{
	struct comm_slot *c = comm_slot(s, pid, true);

	c->negative = negative;
	fmt_sanitize(c->comm, sizeof(c->comm), comm, len < 16 ? len : 16);
}

static void comm_read_cmdlines(struct session *s)
{
	char *buf, *line, *save = NULL;

	s->cmdlines_read = true;
	if (tfs_read(s->tfs, "saved_cmdlines", &buf, NULL) < 0)
		return;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp;
		long pid = strtol(line, &sp, 10);

		if (sp == line || *sp != ' ' || pid <= 0 || pid > 0x7fffffff)
			continue;
		comm_set(s, (int)pid, sp + 1, strlen(sp + 1), false);
	}
	free(buf);
}

/* /proc/<pid>/comm into the cache; false when the process is gone */
static bool comm_from_proc(struct session *s, int pid)
{
	char path[64], buf[32];
	ssize_t n;
	int fd;

	/* the simulator's pids, or a recording's, are not ours to look up in /proc */
	if (s->opts.tracefs || !s->tfs)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	while (n > 0 && buf[n - 1] == '\n')
		n--;
	comm_set(s, pid, buf, (size_t)n, false);
	return true;
}

const char *session_comm(struct session *s, int pid)
{
	struct comm_slot *c;

	if (s->mode == SESSION_REPLAY && s->replay && pid > 0 && !comm_slot(s, pid, false)) {
		const char *name = tep_data_comm_from_pid(replay_tep(s->replay), pid);

		if (name && strcmp(name, "<...>"))
			comm_set(s, pid, name, strlen(name), false);
	}

	if (pid == 0)
		return "<idle>";
	if (pid < 0)
		return "?";
	c = comm_slot(s, pid, false);
	if (c)
		return c->negative ? "?" : c->comm;
	if (!s->tfs) {
		/* a recording: its own cmdlines were asked above, nothing else applies */
		comm_set(s, pid, "?", 1, true);
		return "?";
	}
	if (!s->cmdlines_read) {
		comm_read_cmdlines(s);
		c = comm_slot(s, pid, false);
		if (c)
			return c->comm;
	}
	if (comm_from_proc(s, pid))
		return comm_slot(s, pid, false)->comm;
	comm_set(s, pid, "?", 1, true);
	return "?";
}

/* learn the names of pids new in this drain while they still exist */
static void comm_learn_new(struct session *s)
{
	const int32_t *pids;
	unsigned int n, i;

	n = ingest_new_pids(s->ing, &pids);
	for (i = 0; i < n; i++) {
		struct comm_slot *c = comm_slot(s, pids[i], false);

		if (!c || c->negative)
			comm_from_proc(s, pids[i]);
	}
	ingest_clear_new_pids(s->ing);
}

/* ---- the kernel map --------------------------------------------------------- */

static int prev_grow(struct session *s, uint32_t id)
{
	uint32_t n = s->nprev ? s->nprev : 1024;
	uint32_t *np;

	if (id >= MAX_IDS)
		return -E2BIG;
	while (n <= id)
		n *= 2;
	np = realloc(s->prev_ref, n * sizeof(*np));
	if (!np)
		return -ENOMEM;
	memset(np + s->nprev, 0, (n - s->nprev) * sizeof(*np));
	s->prev_ref = np;
	s->nprev = n;
	return 0;
}

static int map_put(struct session *s, uint32_t id, uint32_t ref, const uint64_t *ips, uint32_t nr)
{
	struct stack *st = ingest_map_put(s->ing, id, ips, nr, s->old_abi);
	uint32_t d;

	if (!st || (s->mode != SESSION_PASSIVE && !(s->mode == SESSION_REPLAY && !s->replay)))
		return 0; /* an absurd id: ignore the record, keep the rest */
	if (id >= s->nprev && prev_grow(s, id) < 0)
		return 0;
	/* passive: hits are what ref_count grew by; a smaller one means a reset */
	d = ref >= s->prev_ref[id] ? ref - s->prev_ref[id] : ref;
	if (d) {
		stack_table_hit(s->table, st, 0, 0, -1, d);
		ingest_stats(s->ing)->events += d;
	}
	s->prev_ref[id] = ref;
	return 0;
}

static int map_visit_bin(void *ctx, uint32_t id, uint32_t ref, const uint64_t *ips, uint32_t nr)
{
	return map_put(ctx, id, ref, ips, nr);
}

static int map_visit_text(void *ctx, uint32_t id, uint32_t ref, uint32_t depth,
			  const struct stackmap_frame *fr, uint32_t n)
{
	struct session *s = ctx;
	uint64_t ips[STACKMAP_MAX_DEPTH];
	uint32_t i;

	(void)depth;
	for (i = 0; i < n && i < STACKMAP_MAX_DEPTH; i++) {
		uint64_t a = 0;

		if (fr[i].trampoline)
			a = STACKMAP_TRAMPOLINE;
		else if (!fr[i].sym)
			a = fr[i].addr;
		else if (ksym_addr_of(s->ksym, fr[i].sym, fr[i].sym_len, fr[i].mod, fr[i].mod_len,
				      &a) == 0)
			a += fr[i].off;
		else if (s->names && stackmap_names_intern(s->names, &fr[i], &a) == 0)
			s->named_frames++; /* shown as written, never merged as 0x0 */
		ips[i] = a;
	}
	return map_put(s, id, ref, ips, i);
}

/* read the kernel's map snapshot of the current generation */
static int map_read(struct session *s)
{
	struct stackmap_bin_info info;
	char *buf;
	size_t len;
	int r;

	s->stats.map_reads++;
	r = tfs_read(s->tfs, "stack_map_bin", &buf, &len);
	if (r == 0) {
		r = stackmap_bin_parse(buf, len, map_visit_bin, s, &info);
		free(buf);
		if (r == 0) {
			s->old_abi = info.magic == STACKMAP_BIN_MAGIC_OLD;
			if (!s->old_abi)
				s->stats.map_abi = 4;
			if (info.truncated)
				log_warn("stack_map_bin: snapshot cut short after %u of %u stacks",
					 info.parsed, info.nr_stacks);
			return 0;
		}
		log_warn("stack_map_bin: %s; reading stack_map instead",
			 r == -EPROTO ? "unknown magic or version" : "malformed");
	} else if (r != -ENOENT) {
		log_warn("stack_map_bin: %s; reading stack_map instead", strerror(-r));
	}
	r = tfs_read(s->tfs, "stack_map", &buf, &len);
	if (r < 0) {
		log_warn("cannot read the stack map: %s", strerror(-r));
		return r;
	}
	r = stackmap_text_parse(buf, len, map_visit_text, s);
	free(buf);
	if (r < 0)
		log_warn("stack_map: malformed text");
	return r < 0 ? r : 0;
}

/*
 * Read stack_map_stat: returns 1 when the map's counters went down since
 * the last read (somebody reset it), 0 when not, negative on error.
 */
static int map_stat_check(struct session *s)
{
	struct stackmap_stat st;
	char *buf;
	int r, reset = 0;

	r = tfs_read(s->tfs, "stack_map_stat", &buf, NULL);
	if (r < 0) {
		s->stats.have_map_stat = false;
		return r;
	}
	r = stackmap_stat_parse(buf, &st);
	free(buf);
	if (r < 0)
		return r;
	if (s->stats.have_map_stat &&
	    (st.successes < s->stats.map.successes || st.entries < s->stats.map.entries ||
	     st.drops < s->stats.map.drops))
		reset = 1;
	s->stats.map = st;
	s->stats.have_map_stat = true;
	if (st.v1_names)
		s->stats.map_abi = 1;
	return reset;
}

/* forward: a reset means a new generation */
static void map_new_generation(struct session *s);

/*
 * Resolve the ids read since the last checkpoint, but only if the map was
 * not reset meanwhile: the records could then belong to either generation,
 * and a guess could attribute hits to the wrong stack. Those are counted as
 * unresolved instead.
 */
/*
 * Somebody else reset the map. Ids read since the last check may belong to
 * either generation: drop them. On v1-v3 the reset kept the ring buffer,
 * so the ids still in it are as ambiguous: drop those too, up to the end of
 * the next complete drain. (v4 wiped the buffer with the map.)
 */
static void external_reset(struct session *s)
{
	unsigned int n = ingest_drop_pending(s->ing);

	log_warn("the stack map was reset by another program: new generation (%u ids dropped)", n);
	map_new_generation(s);
	if (s->old_abi || s->stats.map_abi == 1)
		s->discard_ids = true;
}

static void checkpoint(struct session *s)
{
	if (!ingest_pending(s->ing))
		return;
	if (s->discard_ids) {
		ingest_drop_pending(s->ing);
		return;
	}
	/* snapshot first, then the stat: a reset in between is caught below */
	if (ingest_needs_map(s->ing) && !s->map_read_this_drain) {
		s->map_read_this_drain = true;
		map_read(s);
	}
	if (map_stat_check(s) == 1) {
		/* since the last check, so before or while these ids were read */
		external_reset(s);
		return;
	}
	ingest_resolve(s->ing);
}

/* forget every id of the old generation */
static void map_new_generation(struct session *s)
{
	ingest_new_generation(s->ing);
	if (s->prev_ref)
		memset(s->prev_ref, 0, s->nprev * sizeof(*s->prev_ref));
	s->stats.generation++;
}

/* ---- reading the buffers ------------------------------------------------------ */

static void sync_stats(struct session *s)
{
	const struct ingest_stats *is = ingest_stats(s->ing);

	s->stats.events = is->events;
	s->stats.records = is->records;
	s->stats.lost = is->lost;
	s->stats.orphans = is->orphans;
	s->stats.bad_pages = is->bad_pages;
	s->stats.damaged = is->damaged;
	s->stats.fallbacks = is->fallbacks;
	s->stats.unresolved = is->unresolved;
}

/* a saved stack_map_bin (or stack_map text) for replay */
static int map_load_file(struct session *s, const char *path)
{
	struct stackmap_bin_info info;
	size_t len = 0, cap = 1 << 16;
	char *buf = malloc(cap);
	FILE *f;
	int r;

	if (!buf)
		return -ENOMEM;
	f = fopen(path, "re");
	if (!f) {
		r = -errno;
		free(buf);
		return r;
	}
	for (;;) {
		size_t n = fread(buf + len, 1, cap - len - 1, f);

		len += n;
		if (n == 0)
			break;
		if (cap - len < 2) {
			char *nb = cap < (1u << 30) ? realloc(buf, cap * 2) : NULL;

			if (!nb) {
				fclose(f);
				free(buf);
				return -EFBIG;
			}
			buf = nb;
			cap *= 2;
		}
	}
	fclose(f);
	buf[len] = '\0';
	r = stackmap_bin_parse(buf, len, map_visit_bin, s, &info);
	if (r == 0) {
		s->old_abi = info.magic == STACKMAP_BIN_MAGIC_OLD;
		if (info.truncated)
			log_warn("%s: cut short after %u of %u stacks", path, info.parsed,
				 info.nr_stacks);
	} else {
		r = stackmap_text_parse(buf, len, map_visit_text, s);
		if (r > 0)
			r = 0;
		else if (r == 0)
			r = -EBADMSG; /* neither format, or empty */
	}
	free(buf);
	return r;
}

/* replay: everything at once, at the first drain */
static int replay_all(struct session *s)
{
	long long n = 0;
	double secs = 0;

	if (s->replayed)
		return 0;
	s->replayed = true;
	if (s->replay) {
		n = replay_run(s->replay, s->ing, &secs);
		if (n < 0)
			log_err("cannot read the recording: %s", strerror((int)-n));
		ingest_resolve(s->ing);
		s->stats.interval_sec = secs;
	}
	sync_stats(s);
	stack_table_tick(s->table); /* the recording is one interval */
	s->stats.events_delta = s->stats.events;
	s->stats.fallbacks_delta = s->stats.fallbacks;
	s->stats.lost_delta = s->stats.lost;
	return n > 0 ? (int)(n > 0x7fffffff ? 0x7fffffff : n) : 0;
}

int session_drain(struct session *s, unsigned int max_pages)
{
	unsigned int pages = 0;
	bool more = true;
	int i;

	s->map_read_this_drain = false;
	if (s->mode == SESSION_REPLAY)
		return replay_all(s);
	if (s->mode == SESSION_PASSIVE)
		return 0;
	if (s->mode == SESSION_STACKMAP && map_stat_check(s) == 1)
		external_reset(s);
	/* round-robin one page per CPU so no CPU starves under the budget */
	while (more && (!max_pages || pages < max_pages)) {
		more = false;
		for (i = 0; i < s->ncpus; i++) {
			struct cpu_reader *c = &s->cpus[i];
			ssize_t n;

			if (c->fd < 0)
				continue;
			n = read(c->fd, s->page, s->fmt->layout.subbuf_size);
			if (n < 0) {
				if (errno != EAGAIN && errno != EINTR) {
					log_warn("cpu%d: trace_pipe_raw: %s", c->cpu, strerror(errno));
					close(c->fd);
					c->fd = -1;
				}
				continue;
			}
			if (n == 0)
				continue;
			pages++;
			more = true;
			ingest_page(s->ing, (unsigned int)i, (unsigned int)c->cpu, s->page,
				    (size_t)n);
			/* room for a whole page of ids (16 bytes each) before the next one */
			if (ingest_pending(s->ing) >
			    INGEST_QUEUE_MAX - s->fmt->layout.subbuf_size / 16 - 1)
				checkpoint(s);
			if (max_pages && pages >= max_pages)
				break;
		}
	}
	if (s->mode == SESSION_STACKMAP) {
		checkpoint(s);
		if (!more)
			s->discard_ids = false; /* the buffer was read to its end */
	}
	comm_learn_new(s);
	sync_stats(s);
	return (int)pages;
}

static void read_cpu_stats(struct session *s)
{
	uint64_t overrun = 0, dropped = 0;
	int i;

	for (i = 0; i < s->ncpus; i++) {
		struct cpu_reader *c = &s->cpus[i];
		char rel[160], *buf, *p;

		snprintf(rel, sizeof(rel), "%sper_cpu/cpu%d/stats", s->prefix, c->cpu);
		if (tfs_read(s->tfs, rel, &buf, NULL) < 0)
			continue;
		p = strstr(buf, "\noverrun:");
		if (!p && !strncmp(buf, "overrun:", 8))
			p = buf - 1;
		if (p)
			c->overrun = strtoull(p + 9, NULL, 10);
		p = strstr(buf, "dropped events:");
		if (p)
			c->dropped = strtoull(p + 15, NULL, 10);
		free(buf);
		overrun += c->overrun;
		dropped += c->dropped;
	}
	s->stats.overrun = overrun;
	s->stats.dropped = dropped;
}

static void read_map_stat(struct session *s)
{
	if (s->mode != SESSION_STACKMAP && s->mode != SESSION_PASSIVE)
		return;
	if (map_stat_check(s) == 1 && s->mode == SESSION_STACKMAP)
		external_reset(s);
}

int session_pollfds(const struct session *s, struct pollfd *fds, int max)
{
	int i, n = 0;

	if (s->mode == SESSION_PASSIVE || s->mode == SESSION_REPLAY)
		return 0;
	for (i = 0; i < s->ncpus && n < max; i++) {
		if (s->cpus[i].fd < 0)
			continue;
		fds[n].fd = s->cpus[i].fd;
		fds[n].events = POLLIN;
		fds[n].revents = 0;
		n++;
	}
	return n;
}

int session_tick(struct session *s)
{
	struct timespec now;
	struct rusage ru;
	long long v;
	double dt;

	if (s->mode == SESSION_REPLAY) {
		replay_all(s);
		return 0;
	}

	clock_gettime(CLOCK_MONOTONIC, &now);
	dt = ts_diff(&now, &s->last_tick);
	if (getrusage(RUSAGE_SELF, &ru) == 0) {
		struct timeval used;

		timeradd(&ru.ru_utime, &ru.ru_stime, &used);
		if (dt > 0)
			s->stats.self_cpu = 100.0 *
					    ((double)(used.tv_sec - s->last_cpu.tv_sec) +
					     (double)(used.tv_usec - s->last_cpu.tv_usec) / 1e6) / dt;
		s->last_cpu = used;
	}
	s->last_tick = now;
	s->stats.interval_sec = dt;

	if (s->mode == SESSION_PASSIVE) {
		/* after a reset every ref_count starts from 0 again */
		if (map_stat_check(s) == 1) {
			log_warn("the stack map was reset: counting from the new map");
			map_new_generation(s);
		}
		s->map_read_this_drain = false;
		map_read(s);
		sync_stats(s);
	} else {
		read_cpu_stats(s);
	}
	read_map_stat(s);
	{
		char rel[128];

		path_of(s, rel, sizeof(rel), "tracing_on");
		if (tfs_read_long(s->tfs, rel, &v) == 0)
			s->stats.tracing_on = v != 0;
	}
	if (tfs_exists(s->tfs, "options/stackmap") &&
	    tfs_read_long(s->tfs, "options/stackmap", &v) == 0)
		s->stats.stackmap_on = v != 0;

	s->stats.events_delta = s->stats.events - s->last_events;
	s->stats.lost_delta = s->stats.lost - s->last_lost;
	s->stats.overrun_delta = s->stats.overrun - s->last_overrun;
	s->stats.dropped_delta = s->stats.dropped - s->last_dropped;
	s->stats.fallbacks_delta = s->stats.fallbacks - s->last_fallbacks;
	s->last_events = s->stats.events;
	s->last_lost = s->stats.lost;
	s->last_overrun = s->stats.overrun;
	s->last_dropped = s->stats.dropped;
	s->last_fallbacks = s->stats.fallbacks;

	stack_table_tick(s->table);
	s->cmdlines_read = false;
	for (int i = 0; i < COMM_SLOTS; i++)
		if (s->comms[i].negative)
			s->comms[i].pid = 0, s->comms[i].negative = false;
	if (ksym_refresh(s->ksym) == 1)
		log_info("kernel symbols reloaded (%zu)", ksym_count(s->ksym));
	return 0;
}

/* ---- reset and option --------------------------------------------------------- */

static void zero_counts(struct session *s)
{
	/* the table's stacks go away: so must every id pointing at them */
	ingest_new_generation(s->ing);
	stack_table_clear(s->table);
	memset(ingest_stats(s->ing), 0, sizeof(struct ingest_stats));
	sync_stats(s);
	s->last_events = s->last_fallbacks = s->last_lost = 0;
}

int session_reset(struct session *s)
{
	long long was_on = 0;
	int r, r2;

	if (s->mode == SESSION_REPLAY)
		return -EOPNOTSUPP; /* a recording has no map to reset */

	if (s->mode == SESSION_STACKS) {
		session_drain(s, 0);
		zero_counts(s);
		s->stats.generation++;
		return 0;
	}
	if (s->mode == SESSION_PASSIVE) {
		/* not ours to wipe: another consumer owns the buffer; rebase instead */
		zero_counts(s);
		s->stats.generation++;
		return 0;
	}
	if (tfs_read_long(s->tfs, "tracing_on", &was_on) < 0)
		was_on = 1;
	if (was_on) {
		r = state_write(s->state, "tracing_on", "0");
		if (r < 0)
			return r;
	}
	/* everything recorded under the old map is read and resolved now */
	session_drain(s, 0);
	s->map_read_this_drain = false;
	checkpoint(s);
	r = tfs_write(s->tfs, "stack_map", "0");
	if (r == 0) {
		/*
		 * v1-v3 keep the buffer: a record committed after the drain above
		 * belongs to the old map; the counts restart anyway, so read it
		 * away without resolving it through the new one.
		 */
		s->stats.have_map_stat = false; /* the counters restart from 0 */
		s->discard_ids = true;
		session_drain(s, 0);
		s->discard_ids = false;
		map_new_generation(s);
		zero_counts(s);
	}
	if (was_on) {
		r2 = tfs_write(s->tfs, "tracing_on", "1");
		if (r2 < 0 && r == 0)
			r = r2;
	}
	return r;
}

int session_set_stackmap(struct session *s, bool on)
{
	int r;

	if (!s->tfs || !tfs_exists(s->tfs, "options/stackmap"))
		return -EOPNOTSUPP;
	if (s->instance)
		return -EINVAL; /* the option lives at the top level only */
	r = state_write(s->state, "options/stackmap", on ? "1" : "0");
	if (r == 0)
		s->stats.stackmap_on = on;
	return r;
}

/* ---- accessors ------------------------------------------------------------------- */

struct stack_table *session_table(struct session *s)
{
	return s->table;
}

struct ksym *session_ksym(struct session *s)
{
	return s->ksym;
}

const struct session_stats *session_stats(const struct session *s)
{
	return &s->stats;
}

unsigned int session_nevents(const struct session *s)
{
	return s->fmt ? s->fmt->nnames : 0;
}

const char *session_event(const struct session *s, unsigned int idx)
{
	if (s->mode == SESSION_PASSIVE || (s->mode == SESSION_REPLAY && !s->replay))
		return "stack_map";
	return s->fmt && idx < s->fmt->nnames ? s->fmt->names[idx] : "?";
}

const char *session_traced(const struct session *s)
{
	return s->traced ? s->traced : "";
}

/* ---- open / close ------------------------------------------------------------------ */

/* instances named stacktop.<pid> whose pid is gone are leftovers of a killed run */
static void remove_stale_instances(struct session *s)
{
	char **names = NULL;
	int n = 0, i;

	if (list_dir(s, "instances", &names, &n) < 0)
		return;
	for (i = 0; i < n; i++) {
		char rel[300], *end;
		long pid;

		if (strncmp(names[i], "stacktop.", 9))
			continue;
		pid = strtol(names[i] + 9, &end, 10);
		if (*end || pid <= 0 || pid == getpid() || state_pid_is_stacktop(s->opts.rundir, (int)pid))
			continue;
		snprintf(rel, sizeof(rel), "instances/%s", names[i]);
		if (tfs_rmdir(s->tfs, rel) == 0)
			log_info("removed stale instance %s", names[i]);
	}
	free_list(names, n);
}

static int open_readers(struct session *s, char *err, size_t errsz)
{
	char **cpus = NULL;
	char rel[128];
	int n = 0, i, r;

	path_of(s, rel, sizeof(rel), "per_cpu");
	r = list_dir(s, rel, &cpus, &n);
	if (r < 0)
		return errf(err, errsz, r, "cannot list %s/%s: %s", s->tfs->root, rel,
			    strerror(-r));
	s->cpus = calloc((size_t)n + 1, sizeof(*s->cpus));
	s->page = malloc(s->fmt->layout.subbuf_size);
	if (!s->cpus || !s->page) {
		free_list(cpus, n);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		struct cpu_reader *c;
		char *end;
		long cpu;
		int j;
		bool want = !s->opts.ncpus;

		if (strncmp(cpus[i], "cpu", 3))
			continue;
		cpu = strtol(cpus[i] + 3, &end, 10);
		if (*end || cpu < 0 || cpu > 0xffff)
			continue;
		for (j = 0; j < s->opts.ncpus; j++)
			if (s->opts.cpus[j] == cpu)
				want = true;
		if (!want)
			continue;
		c = &s->cpus[s->ncpus];
		c->cpu = (int)cpu;
		snprintf(rel, sizeof(rel), "%sper_cpu/cpu%ld/trace_pipe_raw", s->prefix, cpu);
		c->fd = tfs_open_file(s->tfs, rel, O_RDONLY | O_NONBLOCK);
		if (c->fd < 0) {
			r = c->fd;
			free_list(cpus, n);
			return errf(err, errsz, r, "cannot open %s: %s", rel, strerror(-r));
		}
		s->ncpus++;
	}
	free_list(cpus, n);
	if (!s->ncpus)
		return errf(err, errsz, -EINVAL, "no CPU to read (check -C)");
	return 0;
}

/* names come from the command line and the kernel: sanitized once, here */
static void traced_append(struct session *s, const char *name)
{
	size_t old = s->traced ? strlen(s->traced) : 0, len = strlen(name);
	char *t = realloc(s->traced, old + len + 2);

	if (!t)
		return;
	if (old)
		t[old++] = ',';
	fmt_sanitize(t + old, len + 1, name, len);
	s->traced = t;
}

static int setup_events(struct session *s, char *err, size_t errsz)
{
	int i, r;

	if (s->opts.nevents == 0 && s->mode == SESSION_STACKMAP) {
		/* keep what is already enabled at the top level, if anything */
		char *buf = NULL, *line, *save = NULL;
		int kept = 0;

		if (tfs_read(s->tfs, "set_event", &buf, NULL) == 0) {
			for (line = strtok_r(buf, "\n", &save); line;
			     line = strtok_r(NULL, "\n", &save)) {
				char *colon = strchr(line, ':');

				if (!colon)
					continue;
				*colon = '\0';
				if (evfmt_add(s->fmt, s->tfs, line, colon + 1) >= 0) {
					*colon = ':';
					traced_append(s, line);
					kept++;
				}
			}
			free(buf);
		}
		if (kept)
			return 0;
	}
	if (s->opts.nevents == 0) {
		r = enable_pattern(s, "sched:sched_switch", err, errsz);
		if (r < 0)
			return r;
		traced_append(s, "sched:sched_switch (default)");
		return 0;
	}
	for (i = 0; i < s->opts.nevents; i++) {
		r = enable_pattern(s, s->opts.events[i], err, errsz);
		if (r < 0)
			return r;
		traced_append(s, s->opts.events[i]);
	}
	return 0;
}

static int setup_stacks(struct session *s, char *err, size_t errsz)
{
	char rel[160];
	int r;

	snprintf(s->prefix, sizeof(s->prefix), "instances/stacktop.%d/", (int)getpid());
	snprintf(rel, sizeof(rel), "instances/stacktop.%d", (int)getpid());
	if (s->fmt->kstack_type < 0)
		return errf(err, errsz, -ENODEV,
			    "this kernel records no kernel_stack events (CONFIG_STACKTRACE off?)");
	r = state_mkdir(s->state, rel);
	if (r < 0)
		return errf(err, errsz, r, "cannot create instance %s: %s", rel, strerror(-r));
	s->instance = true;
	path_of(s, rel, sizeof(rel), "options/stacktrace");
	if (!tfs_exists(s->tfs, rel))
		return errf(err, errsz, -ENODEV,
			    "this kernel has no stacktrace option in instances");
	if (s->opts.buffer_kb) {
		char val[32];

		path_of(s, rel, sizeof(rel), "buffer_size_kb");
		snprintf(val, sizeof(val), "%u", s->opts.buffer_kb);
		r = tfs_write(s->tfs, rel, val);
		if (r < 0)
			log_warn("cannot set buffer_size_kb: %s", strerror(-r));
	}
	r = setup_events(s, err, errsz);
	if (r < 0)
		return r;
	if (!s->opts.show_self && !s->opts.tracefs) {
		char pid[24];

		/* our own reads are not recorded at all (kernels since 5.10) */
		path_of(s, rel, sizeof(rel), "set_event_notrace_pid");
		snprintf(pid, sizeof(pid), "%d", (int)getpid());
		if (tfs_exists(s->tfs, rel))
			tfs_write(s->tfs, rel, pid);
	}
	path_of(s, rel, sizeof(rel), "options/stacktrace");
	r = tfs_write(s->tfs, rel, "1");
	if (r < 0)
		return errf(err, errsz, r, "cannot enable stacktrace: %s", strerror(-r));
	path_of(s, rel, sizeof(rel), "tracing_on");
	return tfs_write(s->tfs, rel, "1");
}

static int setup_stackmap(struct session *s, char *err, size_t errsz)
{
	int r;

	if (s->fmt->stackid_type < 0)
		return errf(err, errsz, -ENODEV, "no ftrace/stack_id event on this kernel");
	r = setup_events(s, err, errsz);
	if (r < 0)
		return r;
	r = state_write(s->state, "options/stackmap", "1");
	if (r < 0)
		return errf(err, errsz, r, "cannot enable the stackmap option: %s%s",
			    strerror(-r),
			    r == -EINVAL ? " (the kernel's map failed to initialize?)" : "");
	r = state_write(s->state, "options/stacktrace", "1");
	if (r < 0)
		return errf(err, errsz, r, "cannot enable stacktrace: %s", strerror(-r));
	r = state_write(s->state, "tracing_on", "1");
	if (r < 0)
		return errf(err, errsz, r, "cannot turn tracing on: %s", strerror(-r));
	map_read(s);
	return 0;
}

static int type_cb(void *ctx, int type)
{
	struct session *s = ctx;

	return evfmt_add_type(s->fmt, s->tfs, type);
}

static unsigned int count_cpus(struct session *s)
{
	char **names = NULL;
	int n = 0;

	if (list_dir(s, "per_cpu", &names, &n) < 0)
		return 1;
	free_list(names, n);
	return n > 0 ? (unsigned int)n : 1;
}

static int type_cb(void *ctx, int type);

static int replay_sym(void *ctx, uint64_t addr, struct ksym_hit *ret)
{
	struct session *s = ctx;
	const char *name = NULL;
	unsigned long long start = 0;
	unsigned long size = 0;

	if (stackmap_names_lookup(s->names, addr, &ret->name, &ret->module, &ret->start,
				  &ret->size) == 0)
		return 0;
	if (!s->replay ||
	    tep_find_function_info(replay_tep(s->replay), addr, &name, &start, &size) == 0 ||
	    !name)
		return -ENOENT;
	ret->name = name;
	ret->module = NULL;
	ret->start = start;
	ret->size = size;
	return 0;
}

static int open_replay(const struct session_opts *opts, struct session **ret, char *err,
		       size_t errsz)
{
	struct session *s = calloc(1, sizeof(*s));
	int r;

	if (!s)
		return -ENOMEM;
	s->opts = *opts;
	s->mode = s->stats.mode = SESSION_REPLAY;
	s->stats.tracing_on = true;
	s->comms = calloc(COMM_SLOTS, sizeof(*s->comms));
	s->table = stack_table_new();
	s->ksym = ksym_new(opts->kallsyms);
	s->names = stackmap_names_new();
	if (!s->comms || !s->table || !s->ksym || !s->names) {
		r = -ENOMEM;
		goto fail;
	}
	if (opts->replay) {
		char why[256] = "";

		r = replay_open(opts->replay, &s->replay, why, sizeof(why));
		if (r < 0) {
			errf(err, errsz, r, "cannot read %s: %s", opts->replay,
			     r == -EBADMSG ? why : strerror(-r));
			goto fail;
		}
		r = evfmt_from_tep(replay_tep(s->replay), &s->fmt);
		if (r < 0) {
			errf(err, errsz, r, r == -EBADMSG ? "%s has impossible event formats (see above)"
					    : "%s has no stack trace events (record with -T or -O stacktrace)",
			     opts->replay);
			goto fail;
		}
		s->ing = ingest_new(s->fmt, s->table, replay_slots(s->replay));
		if (s->ing)
			ingest_set_type_cb(s->ing, type_cb, s);
		snprintf(s->stats.kernel, sizeof(s->stats.kernel), "recording");
		fmt_sanitize(s->stats.tracefs, sizeof(s->stats.tracefs), opts->replay,
			     strlen(opts->replay));
		traced_append(s, replay_buffers(s->replay));
	} else {
		/* a map alone: no events, every hit is its ref_count */
		s->ing = ingest_new(NULL, s->table, 1);
		snprintf(s->stats.kernel, sizeof(s->stats.kernel), "saved stack map");
		fmt_sanitize(s->stats.tracefs, sizeof(s->stats.tracefs), opts->map_file,
			     strlen(opts->map_file));
		traced_append(s, "stack_map file");
	}
	if (!s->ing || ingest_set_pids(s->ing, opts->pids, opts->npids) < 0) {
		r = -ENOMEM;
		goto fail;
	}
	if (opts->kallsyms) {
		r = ksym_load(s->ksym, NULL);
		if (r < 0)
			log_warn("cannot read %s: %s", opts->kallsyms, strerror(-r));
	} else if (s->replay) {
		/* the recording's own kallsyms: the live one may be another boot */
		ksym_set_resolver(s->ksym, replay_sym, s);
	} else {
		r = ksym_load(s->ksym, NULL);
		if (r < 0)
			log_warn("cannot read /proc/kallsyms (%s): frames stay numeric", strerror(-r));
	}
	if (opts->map_file) {
		r = map_load_file(s, opts->map_file);
		if (r < 0) {
			errf(err, errsz, r, "cannot read the stack map %s: %s", opts->map_file,
			     r == -EBADMSG ? "neither stack_map_bin nor stack_map text" : strerror(-r));
			goto fail;
		}
		if (s->named_frames) {
			/* a file: nothing to reload; names answer before the recording's */
			ksym_set_resolver(s->ksym, replay_sym, s);
			if (s->replay && !opts->kallsyms)
				log_warn("%s: %llu frames kept as written (names become addresses only with --kallsyms)",
					 opts->map_file, (unsigned long long)s->named_frames);
			else
				log_warn("%s: %llu frames name symbols not in %s: shown as written",
					 opts->map_file, (unsigned long long)s->named_frames,
					 opts->kallsyms ? opts->kallsyms : "/proc/kallsyms");
		}
	}
	*ret = s;
	return 0;
fail:
	session_close(s);
	return r;
}

int session_open(const struct session_opts *opts, struct session **ret, char *err, size_t errsz)
{
	struct session *s;
	struct utsname un;
	bool have_map;
	int r, n;

	if (err && errsz)
		err[0] = '\0';
	if (opts->replay || opts->map_file)
		return open_replay(opts, ret, err, errsz);
	if (!opts->tracefs && geteuid() != 0)
		return errf(err, errsz, -EPERM,
			    "stacktop needs root to trace the kernel (try: sudo stacktop)");
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->opts = *opts;
	s->comms = calloc(COMM_SLOTS, sizeof(*s->comms));
	s->table = stack_table_new();
	s->ksym = ksym_new(opts->kallsyms);
	if (!s->comms || !s->table || !s->ksym) {
		r = -ENOMEM;
		goto fail;
	}

	r = tfs_open(opts->tracefs, &s->tfs);
	if (r < 0) {
		if (r == -EPERM)
			errf(err, errsz, r, "not allowed to mount tracefs (run as root)");
		else if (opts->tracefs)
			errf(err, errsz, r, "cannot open tracefs at %s: %s", opts->tracefs,
			     strerror(-r));
		else
			errf(err, errsz, r,
			     "no tracefs: mount it with 'mount -t tracefs nodev /sys/kernel/tracing' (kernel without CONFIG_FTRACE?)");
		goto fail;
	}
	fmt_sanitize(s->stats.tracefs, sizeof(s->stats.tracefs), s->tfs->root, strlen(s->tfs->root));
	if (!tfs_exists(s->tfs, "events/header_page")) {
		r = errf(err, errsz, -ENODEV, "%s does not look like tracefs (no events/header_page)",
			 s->tfs->root);
		goto fail;
	}
	r = state_recover(s->tfs, opts->rundir, &n);
	if (r < 0)
		log_warn("could not undo everything a killed stacktop left: %s", strerror(-r));
	else if (n)
		log_info("restored tracefs state left by %d killed stacktop run(s)", n);
	remove_stale_instances(s);

	r = evfmt_new(s->tfs, &s->fmt);
	if (r < 0) {
		errf(err, errsz, r, "%s",
		     r == -ENODEV ? "this kernel cannot record stack traces (no ftrace/kernel_stack event)"
				  : "cannot use the ring-buffer page header (events/header_page) or the stack event formats");
		goto fail;
	}
	r = ksym_load(s->ksym, NULL);
	if (r == -EACCES)
		log_warn("kernel addresses are hidden (kptr_restrict): frames stay numeric");
	else if (r < 0)
		log_warn("cannot read %s: %s", opts->kallsyms ? opts->kallsyms : "/proc/kallsyms",
			 strerror(-r));

	have_map = tfs_exists(s->tfs, "options/stackmap") &&
		   (tfs_exists(s->tfs, "stack_map") || tfs_exists(s->tfs, "stack_map_bin"));
	s->mode = opts->mode;
	if (s->mode == SESSION_AUTO)
		s->mode = have_map ? SESSION_STACKMAP : SESSION_STACKS;
	if ((s->mode == SESSION_STACKMAP || s->mode == SESSION_PASSIVE) && !have_map) {
		r = errf(err, errsz, -EOPNOTSUPP,
			 "--mode %s needs a kernel with the ftrace stackmap series (no options/stackmap or stack_map in %s)",
			 session_mode_name(s->mode), s->tfs->root);
		goto fail;
	}
	s->stats.mode = s->mode;
	s->ing = ingest_new(s->fmt, s->table, count_cpus(s));
	if (!s->ing || ingest_set_pids(s->ing, opts->pids, opts->npids) < 0) {
		r = -ENOMEM;
		goto fail;
	}
	ingest_set_stackmap(s->ing, s->mode == SESSION_STACKMAP);
	ingest_set_defer(s->ing, s->mode == SESSION_STACKMAP);
	ingest_set_type_cb(s->ing, type_cb, s);
	if (!opts->show_self && !opts->tracefs)
		ingest_set_self(s->ing, (int)getpid());
	if (uname(&un) == 0)
		fmt_sanitize(s->stats.kernel, sizeof(s->stats.kernel), un.release,
			     sizeof(un.release));

	r = state_open(s->tfs, opts->rundir, &s->state);
	if (r < 0) {
		errf(err, errsz, r, "cannot keep a restore journal in %s: %s",
		     opts->rundir ? opts->rundir : "/run/stacktop", strerror(-r));
		goto fail;
	}
	if (s->mode == SESSION_STACKMAP) {
		int owner;

		r = state_lock_top(s->state, &owner);
		if (r == -EBUSY && opts->mode == SESSION_AUTO) {
			/* the top level is taken: a private instance still works */
			log_warn("another stacktop (pid %d) owns the top-level tracing; using the stacks mode",
				 owner);
			s->mode = s->stats.mode = SESSION_STACKS;
			ingest_set_stackmap(s->ing, false);
			ingest_set_defer(s->ing, false);
		} else if (r < 0) {
			errf(err, errsz, r,
			     r == -EBUSY ? "another stacktop (pid %d) owns the top-level tracing: use --mode stacks or --mode passive"
					 : "cannot claim the top-level tracing (pid %d): %s",
			     owner, strerror(-r));
			goto fail;
		}
	}

	switch (s->mode) {
	case SESSION_STACKS:
		r = setup_stacks(s, err, errsz);
		break;
	case SESSION_STACKMAP:
		r = setup_stackmap(s, err, errsz);
		break;
	case SESSION_PASSIVE:
		traced_append(s, "stack_map (passive)");
		r = evfmt_add_type(s->fmt, s->tfs, 0) < 0 ? -ENOMEM : 0;
		if (r == 0)
			r = map_read(s);
		break;
	default:
		r = -EINVAL;
	}
	if (r < 0) {
		if (err && !err[0])
			errf(err, errsz, r, "cannot set up tracing: %s", strerror(-r));
		goto fail;
	}
	if (s->mode != SESSION_PASSIVE) {
		r = open_readers(s, err, errsz);
		if (r < 0)
			goto fail;
	}
	clock_gettime(CLOCK_MONOTONIC, &s->last_tick);
	{
		struct rusage ru;

		/* the first interval's CPU is counted from here, not from exec */
		if (getrusage(RUSAGE_SELF, &ru) == 0)
			timeradd(&ru.ru_utime, &ru.ru_stime, &s->last_cpu);
	}
	if (opts->reset_first) {
		r = session_reset(s);
		if (r < 0)
			log_warn("reset failed: %s", strerror(-r));
	}
	session_tick(s);
	*ret = s;
	return 0;
fail:
	session_close(s);
	return r;
}

void session_close(struct session *s)
{
	int i, r;

	if (!s)
		return;
	for (i = 0; i < s->ncpus; i++)
		if (s->cpus[i].fd >= 0)
			close(s->cpus[i].fd);
	if (s->state) {
		r = state_restore(s->state);
		if (r < 0)
			log_err("could not restore all tracefs state (%s); the next stacktop run will retry",
				strerror(-r));
		state_free(s->state);
	}
	tfs_close(s->tfs);
	evfmt_free(s->fmt);
	stack_table_free(s->table);
	ksym_free(s->ksym);
	free(s->cpus);
	free(s->page);
	ingest_free(s->ing);
	replay_close(s->replay);
	stackmap_names_free(s->names);
	free(s->prev_ref);
	free(s->comms);
	free(s->traced);
	free(s);
}
