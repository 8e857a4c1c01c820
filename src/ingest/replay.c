// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * replay.c - see replay.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <trace-cmd.h>

#include "core/array.h"
#include "core/regfile.h"
#include "ingest/ingest.h"
#include "ingest/replay.h"

struct replay {
	int fd; /* the file, opened once (core/regfile.h): every reader reads it */
	struct tracecmd_input *top;
	int nbuf; /* instance buffers, besides the top one */
	int ncpus;
	char *names;
};

struct run_ctx {
	struct ingest *ing;
	unsigned int base;	/* first slot of the buffer being read */
	unsigned long long *ts; /* every record's timestamp, for the duration */
	size_t nts, cap;
	unsigned long long *prev; /* last timestamp per slot */
	unsigned int nslots;
	uint64_t backwards;
	long long n;
};

/* ---- checking the file before libtracecmd reads it ------------------------------ */

/*
 * libtracecmd trusts the sizes and offsets it reads (a trace.dat cut after
 * 30 bytes makes it free a string twice): walk the file's structure here
 * first and say what is wrong with it.
 */
struct tdat {
	int fd;
	uint64_t size; /* of the file */
	uint64_t pos;
	bool big;
	char *why;
	size_t whysz;
};

static int bad(struct tdat *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int bad(struct tdat *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(d->why, d->whysz, fmt, ap);
	va_end(ap);
	return -EBADMSG;
}

static int get(struct tdat *d, uint64_t off, void *buf, size_t len, const char *what)
{
	ssize_t n;

	if (off > d->size || len > d->size - off)
		return bad(
			d,
			"cut short: %s (%zu bytes at byte %llu) ends past the end of the file (%llu bytes)",
			what, len, (unsigned long long)off, (unsigned long long)d->size);
	n = pread(d->fd, buf, len, (off_t)off);
	if (n < 0)
		return -errno;
	if ((size_t)n != len)
		return bad(d, "cut short while reading %s", what);
	return 0;
}

static uint64_t num(const struct tdat *d, const uint8_t *p, unsigned int len)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < len; i++)
		v |= (uint64_t)p[d->big ? len - 1 - i : i] << (8 * i);
	return v;
}

/* an unsigned number of @len bytes at the cursor */
static int next_num(struct tdat *d, unsigned int len, uint64_t *ret, const char *what)
{
	uint8_t b[8];
	int r = get(d, d->pos, b, len, what);

	if (r < 0)
		return r;
	d->pos += len;
	*ret = num(d, b, len);
	return 0;
}

/* a NUL-terminated string of at most @max bytes at the cursor */
static int next_str(struct tdat *d, char *buf, size_t max, const char *what)
{
	size_t i;

	for (i = 0; i < max; i++) {
		int r = get(d, d->pos + i, buf + i, 1, what);

		if (r < 0)
			return r;
		if (!buf[i]) {
			d->pos += i + 1;
			return 0;
		}
	}
	return bad(d, "%s at byte %llu is not a short string", what, (unsigned long long)d->pos);
}

/* @len bytes at the cursor that must lie inside the file */
static int skip(struct tdat *d, uint64_t len, const char *what)
{
	if (d->pos > d->size || len > d->size - d->pos)
		return bad(
			d,
			"cut short: %s (%llu bytes at byte %llu) ends past the end of the file (%llu bytes)",
			what, (unsigned long long)len, (unsigned long long)d->pos,
			(unsigned long long)d->size);
	d->pos += len;
	return 0;
}

/* a v7 section: 2-byte id, 2-byte flags, 4-byte string id, 8-byte size */
static int v7_section(struct tdat *d, uint64_t off, const char *what, uint64_t *ret_size, bool meta)
{
	uint8_t h[16];
	uint64_t size;
	int r;

	if (off < 16)
		return bad(d, "%s points into the file header (byte %llu)", what,
			   (unsigned long long)off);
	r = get(d, off, h, sizeof(h), what);
	if (r < 0)
		return r;
	size = num(d, h + 8, 8);
	if (size > d->size - off - 16)
		return bad(
			d,
			"cut short: %s at byte %llu claims %llu bytes, the file has %llu after it",
			what, (unsigned long long)off, (unsigned long long)size,
			(unsigned long long)(d->size - off - 16));
	if (meta &&
	    (num(d, h + 2, 2) & 1)) { /* compressed: 4-byte packed size, 4-byte size, data */
		uint8_t c[8];

		if (size < 8)
			return bad(d, "damaged: a compressed %s at byte %llu is too short", what,
				   (unsigned long long)off);
		r = get(d, off + 16, c, sizeof(c), what);
		if (r < 0)
			return r;
		if (num(d, c, 4) > size - 8 || num(d, c + 4, 4) > (1u << 30))
			return bad(
				d,
				"damaged: a compressed %s at byte %llu claims %llu bytes packed into %llu, its section has %llu",
				what, (unsigned long long)off, (unsigned long long)num(d, c + 4, 4),
				(unsigned long long)num(d, c, 4), (unsigned long long)(size - 8));
	}
	if (ret_size)
		*ret_size = size;
	return 0;
}

/* BUFFER option: section offset, name, clock, page size, cpus, per cpu (id, offset, size) */
static int v7_buffer(struct tdat *d, const uint8_t *p, uint64_t len)
{
	uint64_t i = 8, ncpu, c;
	int k;

	if (len < 8)
		return bad(d, "a buffer option is too short");
	if (v7_section(d, num(d, p, 8), "a buffer's section", NULL, false) < 0)
		return -EBADMSG;
	for (k = 0; k < 2; k++) { /* name, clock */
		while (i < len && p[i])
			i++;
		if (i++ >= len)
			return bad(d, "a buffer option is cut short");
	}
	if (len - i < 8)
		return bad(d, "a buffer option is cut short");
	ncpu = num(d, p + i + 4, 4);
	i += 8;
	if (ncpu > (len - i) / 20)
		return bad(d, "a buffer option lists %llu CPUs it has no room for",
			   (unsigned long long)ncpu);
	for (c = 0; c < ncpu; c++, i += 20) {
		uint64_t off = num(d, p + i + 4, 8), sz = num(d, p + i + 12, 8);

		if (off > d->size || sz > d->size - off)
			return bad(
				d,
				"cut short: the data of CPU %llu (%llu bytes at byte %llu) ends past the end of the file (%llu bytes)",
				(unsigned long long)num(d, p + i, 4), (unsigned long long)sz,
				(unsigned long long)off, (unsigned long long)d->size);
	}
	return 0;
}

static int check_v7(struct tdat *d)
{
	char name[64];
	uint64_t next;
	unsigned int sections = 0;
	int r;

	if ((r = next_str(d, name, sizeof(name), "the compression name")) < 0 ||
	    (r = next_str(d, name, sizeof(name), "the compression version")) < 0 ||
	    (r = next_num(d, 8, &next, "the offset of the options")) < 0)
		return r;
	if (!next)
		return bad(d, "the file has no options section");
	while (next) {
		uint64_t size, off = next, end;
		uint8_t *opts;

		if (++sections > 4096)
			return bad(d, "the options sections loop");
		r = v7_section(d, off, "an options section", &size, false);
		if (r < 0)
			return r;
		if (size > (64u << 20))
			return bad(d, "an options section claims %llu bytes",
				   (unsigned long long)size);
		opts = malloc(size ? size : 1);
		if (!opts)
			return -ENOMEM;
		r = get(d, off + 16, opts, size, "an options section");
		next = 0;
		for (end = 0; r == 0 && end < size;) {
			uint64_t id, len;

			if (size - end < 6) {
				r = bad(d, "an option is cut short");
				break;
			}
			id = num(d, opts + end, 2);
			len = num(d, opts + end + 2, 4);
			end += 6;
			if (len > size - end) {
				r = bad(d,
					"cut short: option %llu claims %llu bytes, its section has %llu",
					(unsigned long long)id, (unsigned long long)len,
					(unsigned long long)(size - end));
				break;
			}
			if (id == 0) { /* DONE: the next options section, or 0 */
				if (len >= 8)
					next = num(d, opts + end, 8); /* a loop ends at 4096 */
				break;
			}
			if (id >= 16 && id <= 21 && len >= 8) /* header, formats, kallsyms... */
				r = v7_section(d, num(d, opts + end, 8), "section", NULL, true);
			else if (id == 3) /* BUFFER */
				r = v7_buffer(d, opts + end, len);
			end += len;
		}
		free(opts);
		if (r < 0)
			return r;
	}
	return 0;
}

static int check_v6(struct tdat *d)
{
	char name[512];
	uint64_t n, i, j, len, nsys, ncpu;
	int r;

	if ((r = next_str(d, name, 13, "the header_page section")) < 0)
		return r;
	if (strcmp(name, "header_page"))
		return bad(d, "no header_page section");
	if ((r = next_num(d, 8, &len, "the header_page size")) < 0 ||
	    (r = skip(d, len, "header_page")) < 0 ||
	    (r = next_str(d, name, 14, "the header_event section")) < 0)
		return r;
	if (strcmp(name, "header_event"))
		return bad(d, "no header_event section");
	if ((r = next_num(d, 8, &len, "the header_event size")) < 0 ||
	    (r = skip(d, len, "header_event")) < 0 ||
	    (r = next_num(d, 4, &n, "the count of ftrace formats")) < 0)
		return r;
	for (i = 0; i < n; i++)
		if ((r = next_num(d, 8, &len, "an ftrace format size")) < 0 ||
		    (r = skip(d, len, "an ftrace format")) < 0)
			return r;
	if ((r = next_num(d, 4, &nsys, "the count of event systems")) < 0)
		return r;
	for (i = 0; i < nsys; i++) {
		if ((r = next_str(d, name, sizeof(name), "an event system name")) < 0 ||
		    (r = next_num(d, 4, &n, "a count of event formats")) < 0)
			return r;
		for (j = 0; j < n; j++)
			if ((r = next_num(d, 8, &len, "an event format size")) < 0 ||
			    (r = skip(d, len, "an event format")) < 0)
				return r;
	}
	if ((r = next_num(d, 4, &len, "the kallsyms size")) < 0 ||
	    (r = skip(d, len, "kallsyms")) < 0 ||
	    (r = next_num(d, 4, &len, "the printk formats size")) < 0 ||
	    (r = skip(d, len, "the printk formats")) < 0 ||
	    (r = next_num(d, 8, &len, "the cmdlines size")) < 0 ||
	    (r = skip(d, len, "the cmdlines")) < 0 ||
	    (r = next_num(d, 4, &ncpu, "the CPU count")) < 0)
		return r;
	if (ncpu > 8192)
		return bad(d, "the file claims %llu CPUs", (unsigned long long)ncpu);
	/* options and the per-CPU data follow; libtracecmd checks those itself */
	return 0;
}

static int check_file(int fd, char *why, size_t whysz)
{
	static const uint8_t magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	struct tdat d = { .fd = fd, .why = why, .whysz = whysz };
	uint8_t m[10], b[6];
	char ver[8];
	uint64_t page;
	struct stat sb;
	int r;

	if (fstat(fd, &sb) < 0)
		return -errno;
	d.size = (uint64_t)sb.st_size;
	if (d.size < sizeof(m) || get(&d, 0, m, sizeof(m), "the magic") < 0 ||
	    memcmp(m, magic, sizeof(m)))
		return bad(
			&d,
			"neither a trace-cmd trace.dat nor a stacktop JSON snapshot (-r reads those two; a folded, pprof or speedscope file is not read back)");
	d.pos = sizeof(m);
	r = next_str(&d, ver, sizeof(ver), "the version");
	if (r < 0)
		return r;
	if (strcmp(ver, "6") && strcmp(ver, "7"))
		return bad(&d, "trace.dat version %.7s is not one stacktop reads (6 or 7)", ver);
	r = get(&d, d.pos, b, sizeof(b), "the header");
	if (r < 0)
		return r;
	d.pos += sizeof(b);
	d.big = b[0];
	if (b[0] > 1 || (b[1] != 4 && b[1] != 8))
		return bad(&d, "damaged header (endianness %u, long size %u)", b[0], b[1]);
	page = num(&d, b + 2, 4);
	if (page < 1024 || page > (64u << 20) || (page & (page - 1)))
		return bad(&d, "damaged header (page size %llu)", (unsigned long long)page);
	return ver[0] == '7' ? check_v7(&d) : check_v6(&d);
}

/*
 * libtracecmd crashes on some damage no structural check sees (a bit flipped
 * in the first compressed block of a CPU: its error path frees what it
 * never set up). Let a child open every buffer first; if the library dies
 * there, the file is refused instead.
 */
static int probe(int file, char *why, size_t whysz)
{
	int status, i, n, fd;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return 0; /* no child: read it without the probe */
	if (pid == 0) {
		struct tracecmd_input *h;

		fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
		if (fd >= 0)
			dup2(fd, STDERR_FILENO);
		/* the same file as the run will read, a description of its own */
		fd = regfile_reopen(file);
		h = fd < 0 ? NULL : tracecmd_open_fd(fd, TRACECMD_FL_LOAD_NO_PLUGINS);
		if (!h)
			_exit(1);
		n = tracecmd_buffer_instances(h);
		for (i = 0; i < n; i++) {
			struct tracecmd_input *b = tracecmd_buffer_instance_handle(h, i);

			if (b)
				tracecmd_close(b);
		}
		tracecmd_close(h);
		_exit(0);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 0;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFSIGNALED(status))
		snprintf(why, whysz,
			 "damaged: the trace-cmd library crashed opening it (signal %d)",
			 WTERMSIG(status));
	else
		snprintf(why, whysz, "not a trace-cmd trace.dat, or a damaged one");
	return -EBADMSG;
}

int replay_open(const char *path, struct replay **ret, char *why, size_t whysz)
{
	int fd = regfile_open(path, 0, 0, NULL);

	if (fd == -EINVAL) {
		snprintf(why, whysz, "not a regular file");
		return -EBADMSG;
	}
	return fd < 0 ? fd : replay_open_fd(fd, ret, why, whysz);
}

int replay_open_fd(int fd, struct replay **ret, char *why, size_t whysz)
{
	struct replay *r;
	size_t len;
	int i, e;

	if (whysz)
		why[0] = '\0';
	/*
	 * every reader reads this descriptor's file, never a path again: a
	 * user who renames another file over it (a FIFO, a damaged copy past
	 * the probe) changes nothing here
	 */
	e = check_file(fd, why, whysz);
	if (e == 0)
		e = probe(fd, why, whysz);
	if (e < 0) {
		close(fd);
		return e;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		close(fd);
		return -ENOMEM;
	}
	r->fd = fd;
	e = regfile_reopen(fd); /* libtracecmd's own (it seeks, and closes it) */
	r->top = e < 0 ? NULL : tracecmd_open_fd(e, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!r->top) {
		/* (libtracecmd closed its descriptor, or kept it: not closed twice here) */
		close(fd);
		free(r);
		snprintf(why, whysz, "not a trace-cmd trace.dat, or a damaged one");
		return -EBADMSG;
	}
	r->ncpus = tep_get_cpus(tracecmd_get_tep(r->top));
	if (r->ncpus <= 0)
		r->ncpus = 1;
	r->nbuf = tracecmd_buffer_instances(r->top);
	if (r->nbuf < 0)
		r->nbuf = 0;
	len = 4;
	for (i = 0; i < r->nbuf; i++)
		len += strlen(tracecmd_buffer_instance_name(r->top, i)) + 1;
	r->names = calloc(1, len + 1);
	if (!r->names) {
		replay_close(r);
		return -ENOMEM;
	}
	strcpy(r->names, "top");
	for (i = 0; i < r->nbuf; i++) {
		strcat(r->names, ",");
		strcat(r->names, tracecmd_buffer_instance_name(r->top, i));
	}
	*ret = r;
	return 0;
}

int replay_fd(const struct replay *r)
{
	return r->fd;
}

void *replay_tep(struct replay *r)
{
	return tracecmd_get_tep(r->top);
}

unsigned int replay_slots(struct replay *r)
{
	return (unsigned int)(r->ncpus * (r->nbuf + 1));
}

const char *replay_buffers(struct replay *r)
{
	return r->names;
}

/* the comm in field @cname of @rec, for the pid in field @pname */
static void learn_comm(struct tep_handle *tep, struct tep_event *ev, struct tep_record *rec,
		       const char *cname, const char *pname)
{
	struct tep_format_field *cf = tep_find_field(ev, cname), *pf = tep_find_field(ev, pname);
	unsigned long long pid;
	char comm[17];
	int len;

	if (!cf || !pf || rec->size < 0 || (long)cf->offset + cf->size > (long)rec->size ||
	    tep_read_number_field(pf, rec->data, &pid) || !pid || pid > INT32_MAX)
		return;
	len = cf->size < 16 ? cf->size : 16;
	memcpy(comm, (char *)rec->data + cf->offset, (size_t)len);
	comm[len] = '\0';
	if (comm[0] && strcmp(tep_data_comm_from_pid(tep, (int)pid), comm))
		tep_register_comm(tep, comm, (int)pid);
}

/*
 * The saved cmdlines of a recording hold the last 128 (by default) comms
 * only: the scheduler events name the rest (what trace-cmd's sched_switch
 * plugin does for its report)
 */
static void learn_comms(struct tracecmd_input *h, struct tep_record *rec)
{
	struct tep_handle *tep = tracecmd_get_tep(h);
	struct tep_event *ev = tep ? tep_find_event_by_record(tep, rec) : NULL;

	if (!ev || !ev->system || strcmp(ev->system, "sched"))
		return;
	learn_comm(tep, ev, rec, "prev_comm", "prev_pid");
	learn_comm(tep, ev, rec, "next_comm", "next_pid");
	learn_comm(tep, ev, rec, "comm", "pid");
}

static int one(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
	struct run_ctx *c = data;
	unsigned int slot = c->base + (unsigned int)cpu;

	learn_comms(h, rec);
	/* a CPU's records are in time order: one that goes back is damaged */
	if (slot < c->nslots) {
		if (rec->ts < c->prev[slot])
			c->backwards++; /* counted once: the CPU goes on from here */
		c->prev[slot] = rec->ts;
	}
	/* out of memory: the record still counts, its time is left out of span() */
	if (c->nts < c->cap || ARRAY_GROW(c->ts, c->cap, c->nts + 1) == 0)
		c->ts[c->nts++] = rec->ts;
	ingest_record_at(c->ing, slot, (unsigned int)cpu, rec->data,
			 rec->size > 0 ? (uint32_t)rec->size : 0, rec->missed_events, rec->ts);
	c->n++;
	return 0;
}

static int cmp_ts(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

/*
 * The recording's length: the span of the largest run of timestamps with no
 * gap over REPLAY_MAX_GAP_NS between neighbours. A damaged timestamp lands
 * far from the rest (163251 s into a one-second recording); such records
 * are counted as damaged and left out of the span.
 */
static double span(struct run_ctx *c, uint64_t *ret_far)
{
	size_t i, best = 0, best_len = 0, start = 0;

	*ret_far = 0;
	if (!c->nts)
		return 0;
	qsort(c->ts, c->nts, sizeof(*c->ts), cmp_ts);
	for (i = 1; i <= c->nts; i++) {
		if (i < c->nts && c->ts[i] - c->ts[i - 1] <= REPLAY_MAX_GAP_NS)
			continue;
		if (i - start > best_len) {
			best = start;
			best_len = i - start;
		}
		start = i;
	}
	*ret_far = c->nts - best_len;
	return (double)(c->ts[best + best_len - 1] - c->ts[best]) / 1e9;
}

long long replay_run(struct replay *r, struct ingest *ing, double *ret_seconds)
{
	struct run_ctx c = { .ing = ing };
	uint64_t far;
	int i;

	c.nslots = replay_slots(r);
	c.prev = calloc(c.nslots, sizeof(*c.prev));
	if (!c.prev)
		return -ENOMEM;
	if (tracecmd_iterate_events(r->top, NULL, 0, one, &c) < 0) {
		free(c.prev);
		free(c.ts);
		return -EBADMSG;
	}
	for (i = 0; i < r->nbuf; i++) {
		struct tracecmd_input *h = tracecmd_buffer_instance_handle(r->top, i);

		if (!h)
			continue;
		c.base = (unsigned int)((i + 1) * r->ncpus);
		tracecmd_iterate_events(h, NULL, 0, one, &c);
		tracecmd_close(h);
	}
	*ret_seconds = span(&c, &far);
	ingest_stats(ing)->damaged += c.backwards + far;
	free(c.prev);
	free(c.ts);
	return c.n;
}

void replay_close(struct replay *r)
{
	if (!r)
		return;
	if (r->top)
		tracecmd_close(r->top);
	close(r->fd);
	free(r->names);
	free(r);
}
