// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * perfsamp.c - tracepoint samples with user registers and stack through
 * perf_event_open (see perfsamp.h).
 *
 * Ring protocol (perf_event_open(2)): the kernel writes records after the
 * metadata page and advances data_head; we read up to it (after a read
 * barrier), then publish data_tail (after a full barrier) so the kernel may
 * reuse the space. A record that wraps around the end of the ring is copied
 * into a bounce buffer first.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "sym/dwunwind.h"
#include "kernel/perfsamp.h"

#define SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
		     PERF_SAMPLE_CPU | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)

struct pcpu {
	int cpu;
	int fd;                 /* owns the ring */
	struct perf_event_mmap_page *meta;
	uint8_t *data;
	uint64_t size;          /* data bytes, a power of two */
	bool hup;               /* hung up (its tasks exited): read, never polled */
};

struct pevent {
	uint64_t id;
	int event;
	int fd;
};

struct perfsamp {
	struct perfsamp_cb cb;
	struct pcpu *cpus;
	int ncpus;
	struct pevent *evs;     /* every fd, for the id -> event lookup */
	int nevs;
	size_t mmap_len;
	uint8_t bounce[65536];
	struct perfsamp_stats st;
};

static int errf(char *err, size_t errsz, int r, const char *fmt, ...)
{
	va_list ap;

	if (err && errsz) {
		va_start(ap, fmt);
		vsnprintf(err, errsz, fmt, ap);
		va_end(ap);
	}
	return r;
}

static int tracepoint_id(const char *tracefs, const char *name, uint64_t *id)
{
	char path[PATH_MAX], buf[32], sys[128];
	const char *colon = strchr(name, ':');
	ssize_t n;
	int fd;

	if (!colon || colon == name || !colon[1] || (size_t)(colon - name) >= sizeof(sys) ||
	    strchr(colon + 1, '/') || memchr(name, '/', colon - name))
		return -EINVAL;
	memcpy(sys, name, colon - name);
	sys[colon - name] = 0;
	if ((size_t)snprintf(path, sizeof(path), "%s/events/%s/%s/id", tracefs, sys, colon + 1) >=
	    sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = 0;
	*id = strtoull(buf, NULL, 10);
	return 0;
}

static int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group,
			       unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group, flags);
}

static int cmp_ev(const void *a, const void *b)
{
	const struct pevent *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

int perfsamp_open(struct perfsamp **ret, const struct perfsamp_opts *opts,
		  const struct perfsamp_cb *cb, char *err, size_t errsz)
{
	const char *tracefs = opts->tracefs ? opts->tracefs : "/sys/kernel/tracing";
	unsigned int stack = opts->stack_size ? opts->stack_size : 8192;
	unsigned int pages = opts->ring_pages ? opts->ring_pages : 128;
	long page = sysconf(_SC_PAGESIZE);
	int ncpu = (int)sysconf(_SC_NPROCESSORS_CONF);
	uint64_t *tp = NULL;
	pid_t one = opts->pid > 0 ? opts->pid : -1;
	const pid_t *tasks = opts->ntasks > 0 ? opts->tasks : &one;
	int ntasks = opts->ntasks > 0 ? opts->ntasks : 1;
	bool inherit = opts->ntasks > 0 ? opts->inherit : opts->pid > 0;
	struct perfsamp *p;
	int r, c, e, t;

	*ret = NULL;
	if (opts->nevents < 1 || !opts->events)
		return errf(err, errsz, -EINVAL, "no event to sample");
	if (stack % 8 || stack > 65528)
		return errf(err, errsz, -EINVAL,
			    "user stack size %u: a multiple of 8 up to 65528 bytes", stack);
	if (pages & (pages - 1))
		return errf(err, errsz, -EINVAL, "ring pages %u: not a power of two", pages);
	if (ncpu < 1)
		ncpu = 1;
	p = calloc(1, sizeof(*p));
	tp = calloc(opts->nevents, sizeof(*tp));
	if (!p || !tp) {
		free(p);
		free(tp);
		return errf(err, errsz, -ENOMEM, "out of memory");
	}
	if (cb)
		p->cb = *cb;
	p->cpus = calloc(ncpu, sizeof(*p->cpus));
	p->evs = calloc((size_t)ncpu * opts->nevents * ntasks, sizeof(*p->evs));
	if (!p->cpus || !p->evs) {
		r = errf(err, errsz, -ENOMEM, "out of memory");
		goto fail;
	}
	for (e = 0; e < opts->nevents; e++) {
		r = tracepoint_id(tracefs, opts->events[e], &tp[e]);
		if (r < 0) {
			r = errf(err, errsz, r, "%s: %s", opts->events[e],
				 r == -ENOENT ? "no such tracepoint" : r == -EINVAL ?
				 "not a system:event name" : strerror(-r));
			goto fail;
		}
	}
	p->mmap_len = (size_t)(pages + 1) * page;
	for (c = 0; c < ncpu; c++) {
		struct pcpu *pc = &p->cpus[p->ncpus];
		int first = -1, k;

		pc->cpu = c;
		pc->fd = -1;
		/* every (task, event): a task's first event reports its maps too */
		for (k = 0; k < ntasks * opts->nevents; k++) {
			struct perf_event_attr a;
			int fd;

			t = k / opts->nevents;
			e = k % opts->nevents;

			memset(&a, 0, sizeof(a));
			a.size = sizeof(a);
			a.type = PERF_TYPE_TRACEPOINT;
			a.config = tp[e];
			a.sample_period = 1;
			a.sample_type = SAMPLE_TYPE;
			a.sample_regs_user = DWUNWIND_REGS_MASK;
			a.sample_stack_user = stack;
			a.use_clockid = 1;
			a.clockid = CLOCK_MONOTONIC;
			a.sample_id_all = 1;
			a.disabled = 1;
			a.inherit = inherit;
			a.watermark = 1;
			a.wakeup_watermark = (uint32_t)(pages * page / 4);
			if (e == 0) {
				a.mmap = 1;
				a.mmap2 = 1;
				a.comm = 1;
				a.comm_exec = 1;
				a.task = 1;
			}
			fd = sys_perf_event_open(&a, tasks[t], c, -1, PERF_FLAG_FD_CLOEXEC);
			if (fd < 0) {
				r = -errno;
				if (r == -ENODEV && k == 0)
					break; /* CPU offline */
				if (r == -ESRCH && opts->ntasks > 0) {
					k += opts->nevents - 1 - e; /* a thread gone: the next */
					continue;
				}
				if (r == -EACCES || r == -EPERM)
					r = errf(err, errsz, r, "perf_event_open %s: %s (needs root or "
						 "CAP_PERFMON, and kernel.perf_event_paranoid)",
						 opts->events[e], strerror(-r));
				else if (r == -EOPNOTSUPP || r == -EINVAL)
					r = errf(err, errsz, r, "perf_event_open %s: %s (the kernel "
						 "cannot sample user registers and stack here)",
						 opts->events[e], strerror(-r));
				else
					r = errf(err, errsz, r, "perf_event_open %s on CPU %d: %s",
						 opts->events[e], c, strerror(-r));
				goto fail;
			}
			p->evs[p->nevs].fd = fd;
			p->evs[p->nevs].event = e;
			p->nevs++;
			if (ioctl(fd, PERF_EVENT_IOC_ID, &p->evs[p->nevs - 1].id) < 0) {
				r = errf(err, errsz, -errno, "PERF_EVENT_IOC_ID: %s", strerror(errno));
				goto fail;
			}
			/* refused: every hit is sampled, the caller drops the extra ones */
			if (opts->filters && opts->filters[e] &&
			    ioctl(fd, PERF_EVENT_IOC_SET_FILTER, opts->filters[e]) < 0)
				p->st.filters_refused++;
			if (first < 0) {
				void *m;

				first = fd;
				m = mmap(NULL, p->mmap_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
				if (m == MAP_FAILED) {
					r = errf(err, errsz, -errno, "mmap of the perf ring of CPU %d: %s%s",
						 c, strerror(errno), errno == EPERM ?
						 " (kernel.perf_event_mlock_kb)" : "");
					goto fail;
				}
				pc->fd = fd;
				pc->meta = m;
				pc->data = (uint8_t *)m + page;
				pc->size = (uint64_t)pages * page;
				p->ncpus++;
			} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, first) < 0) {
				r = errf(err, errsz, -errno, "PERF_EVENT_IOC_SET_OUTPUT: %s",
					 strerror(errno));
				goto fail;
			}
		}
	}
	if (!p->ncpus && opts->ntasks > 0) {
		r = errf(err, errsz, -ESRCH, "the threads to sample are gone");
		goto fail;
	}
	if (!p->ncpus) {
		r = errf(err, errsz, -ENODEV, "no online CPU to sample on");
		goto fail;
	}
	qsort(p->evs, p->nevs, sizeof(*p->evs), cmp_ev);
	for (e = 0; e < p->nevs; e++)
		if (ioctl(p->evs[e].fd, PERF_EVENT_IOC_ENABLE, 0) < 0) {
			r = errf(err, errsz, -errno, "PERF_EVENT_IOC_ENABLE: %s", strerror(errno));
			goto fail;
		}
	free(tp);
	*ret = p;
	return 0;
fail:
	free(tp);
	perfsamp_close(p);
	return r;
}

int perfsamp_pollfds(const struct perfsamp *p, struct pollfd *fds, int max)
{
	int i, n = 0;

	for (i = 0; i < p->ncpus && n < max; i++) {
		if (p->cpus[i].hup)
			continue;
		fds[n].fd = p->cpus[i].fd;
		fds[n].events = POLLIN;
		fds[n].revents = 0;
		n++;
	}
	return n;
}

static int event_of(const struct perfsamp *p, uint64_t id)
{
	size_t lo = 0, hi = p->nevs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->evs[mid].id == id)
			return p->evs[mid].event;
		if (p->evs[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* a bounds-checked reader over one record */
struct rd {
	const uint8_t *b;
	size_t len, pos;
	bool bad;
};

static uint64_t rd_u64(struct rd *r)
{
	uint64_t v = 0;

	if (r->len - r->pos < 8) {
		r->bad = true;
		r->pos = r->len;
		return 0;
	}
	memcpy(&v, r->b + r->pos, 8);
	r->pos += 8;
	return v;
}

static void parse_sample(struct perfsamp *p, struct rd *r)
{
	struct perfsamp_sample s;
	uint64_t v, size;
	int i;

	memset(&s, 0, sizeof(s));
	s.event = event_of(p, rd_u64(r));       /* IDENTIFIER */
	v = rd_u64(r);                           /* TID */
	s.pid = (uint32_t)v;
	s.tid = (uint32_t)(v >> 32);
	s.time = rd_u64(r);                      /* TIME */
	s.cpu = (uint32_t)rd_u64(r);             /* CPU */
	s.abi = rd_u64(r);                       /* REGS_USER */
	if (s.abi) {
		for (i = 0; i < DWUNWIND_NREGS; i++)
			if (DWUNWIND_REGS_MASK & (1ULL << i))
				s.regs[i] = rd_u64(r);
	}
	size = rd_u64(r);                        /* STACK_USER */
	if (size) {
		if (r->len - r->pos < size) {
			r->bad = true;
		} else {
			s.stack = r->b + r->pos;
			r->pos += size;
			s.stack_size = rd_u64(r);        /* dyn_size */
			if (s.stack_size > size)
				s.stack_size = size;
		}
	}
	if (r->bad || s.event < 0) {
		p->st.bad++;
		return;
	}
	p->st.samples++;
	if (p->cb.sample)
		p->cb.sample(p->cb.ctx, &s);
}

/* the sample_id trailer of a non-sample record: TID, TIME, CPU, IDENTIFIER */
static uint64_t trailer_time(const uint8_t *b, size_t len)
{
	uint64_t t;

	if (len < 32)
		return 0;
	memcpy(&t, b + len - 24, 8);
	return t;
}

static void parse_record(struct perfsamp *p, const struct perf_event_header *h, int cpu)
{
	const uint8_t *b = (const uint8_t *)h;
	struct rd r = { .b = b, .len = h->size, .pos = sizeof(*h) };

	p->st.records++;
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		parse_sample(p, &r);
		break;
	case PERF_RECORD_MMAP2: {
		struct perfsamp_mmap m;
		uint32_t pt[2];
		size_t fnoff = sizeof(*h) + 8 + 8 * 3 + 24 + 8;
		const char *fn = (const char *)b + fnoff;

		if (h->size < fnoff + 32 + 1 || !memchr(fn, 0, h->size - fnoff - 32)) {
			p->st.bad++;
			break;
		}
		memcpy(pt, b + sizeof(*h), 8);
		m.pid = pt[0];
		m.tid = pt[1];
		memcpy(&m.start, b + sizeof(*h) + 8, 8);
		memcpy(&m.len, b + sizeof(*h) + 16, 8);
		memcpy(&m.pgoff, b + sizeof(*h) + 24, 8);
		memcpy(&m.prot, b + sizeof(*h) + 32 + 24, 4);
		m.dev = 0;
		m.ino = 0;
		if (!(h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID)) {
			uint32_t mm[2];

			memcpy(mm, b + sizeof(*h) + 32, 8);
			m.dev = (uint64_t)mm[0] << 32 | mm[1];
			memcpy(&m.ino, b + sizeof(*h) + 40, 8);
		}
		m.filename = fn;
		m.time = trailer_time(b, h->size);
		if (p->cb.mmap)
			p->cb.mmap(p->cb.ctx, &m);
		break;
	}
	case PERF_RECORD_COMM: {
		uint32_t pt[2];
		const char *comm = (const char *)b + sizeof(*h) + 8;

		if (h->size < sizeof(*h) + 8 + 32 + 1 || !memchr(comm, 0, h->size - sizeof(*h) - 8 - 32)) {
			p->st.bad++;
			break;
		}
		memcpy(pt, b + sizeof(*h), 8);
		if (p->cb.comm)
			p->cb.comm(p->cb.ctx, pt[0], pt[1], comm, h->misc & PERF_RECORD_MISC_COMM_EXEC);
		break;
	}
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT: {
		uint32_t v[4];
		uint64_t t;

		if (h->size < sizeof(*h) + 24) {
			p->st.bad++;
			break;
		}
		memcpy(v, b + sizeof(*h), 16);
		memcpy(&t, b + sizeof(*h) + 16, 8);
		if (p->cb.task)
			p->cb.task(p->cb.ctx, v[0], v[1], v[2], h->type == PERF_RECORD_EXIT, t);
		break;
	}
	case PERF_RECORD_LOST: {
		uint64_t n;

		if (h->size < sizeof(*h) + 16) {
			p->st.bad++;
			break;
		}
		memcpy(&n, b + sizeof(*h) + 8, 8);
		p->st.lost += n;
		if (p->cb.lost)
			p->cb.lost(p->cb.ctx, (uint32_t)cpu, n, trailer_time(b, h->size));
		break;
	}
	default:
		break;
	}
}

/*
 * A per-task event whose tasks all exited hangs up: poll() reports POLLHUP
 * at once and for ever, and a loop polling it would spin. An empty ring
 * that hung up is no longer polled (a drain still reads it: an inherited
 * child may write there yet).
 */
static void mark_hung_up(struct perfsamp *p)
{
	struct pollfd fds[64];
	int idx[64], i, k = 0;

	for (i = 0; i < p->ncpus; i++) {
		if (p->cpus[i].hup)
			continue;
		fds[k].fd = p->cpus[i].fd;
		fds[k].events = POLLIN;
		fds[k].revents = 0;
		idx[k++] = i;
		if (k == 64 || i == p->ncpus - 1) {
			int j;

			if (poll(fds, (nfds_t)k, 0) > 0)
				for (j = 0; j < k; j++)
					if (fds[j].revents & (POLLHUP | POLLERR))
						p->cpus[idx[j]].hup = true;
			k = 0;
		}
	}
	if (k && poll(fds, (nfds_t)k, 0) > 0)
		for (i = 0; i < k; i++)
			if (fds[i].revents & (POLLHUP | POLLERR))
				p->cpus[idx[i]].hup = true;
}

int perfsamp_drain(struct perfsamp *p, unsigned int budget, bool *more)
{
	unsigned int n = 0;
	int i;

	if (more)
		*more = false;
	for (i = 0; i < p->ncpus; i++) {
		struct pcpu *pc = &p->cpus[i];
		uint64_t head = __atomic_load_n(&pc->meta->data_head, __ATOMIC_ACQUIRE);
		uint64_t tail = pc->meta->data_tail;

		while (tail < head) {
			struct perf_event_header h;
			uint64_t off = tail & (pc->size - 1);
			const struct perf_event_header *rec;

			if (budget && n >= budget) {
				if (more)
					*more = true;
				break;
			}
			if (pc->size - off >= sizeof(h)) {
				memcpy(&h, pc->data + off, sizeof(h));
			} else {
				memcpy(&h, pc->data + off, pc->size - off);
				memcpy((uint8_t *)&h + (pc->size - off), pc->data,
				       sizeof(h) - (pc->size - off));
			}
			if (h.size < sizeof(h) || h.size > head - tail) {
				/* a broken ring: skip what is there */
				p->st.bad++;
				tail = head;
				break;
			}
			if (pc->size - off >= h.size) {
				rec = (const void *)(pc->data + off);
			} else {
				uint64_t first = pc->size - off;

				memcpy(p->bounce, pc->data + off, first);
				memcpy(p->bounce + first, pc->data, h.size - first);
				rec = (const void *)p->bounce;
			}
			parse_record(p, rec, pc->cpu);
			tail += h.size;
			n++;
		}
		__atomic_store_n(&pc->meta->data_tail, tail, __ATOMIC_RELEASE);
	}
	if (!n)
		mark_hung_up(p);
	return (int)n;
}

void perfsamp_stats(const struct perfsamp *p, struct perfsamp_stats *st)
{
	*st = p->st;
}

void perfsamp_close(struct perfsamp *p)
{
	int i;

	if (!p)
		return;
	for (i = 0; i < p->nevs; i++)
		ioctl(p->evs[i].fd, PERF_EVENT_IOC_DISABLE, 0);
	for (i = 0; i < p->ncpus; i++)
		if (p->cpus[i].meta)
			munmap(p->cpus[i].meta, p->mmap_len);
	for (i = 0; i < p->nevs; i++)
		close(p->evs[i].fd);
	free(p->evs);
	free(p->cpus);
	free(p);
}
