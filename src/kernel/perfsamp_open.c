// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * perfsamp_open.c - the sampler's events opened (one per traced event and
 * CPU, or per thread and CPU for @tasks, their filters, each CPU's ring)
 * and closed; perfsamp.c reads them.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "kernel/tgid.h"
#include "sym/dwunwind.h"
#include "kernel/perfsamp_priv.h"

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

static int cmp_ev(const void *a, const void *b)
{
	const struct pevent *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * the attributes of one (task, event, CPU) sampler; @first: the task's first
 * event; @inherit: PERFSAMP_TASK_* (0: none)
 */
static void sample_attr(struct perf_event_attr *a, const struct perfsamp *p, uint64_t tp,
			bool first, unsigned int inherit, unsigned int stack, unsigned int pages)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_TRACEPOINT;
	a->config = tp;
	a->sample_period = p->period;
	a->sample_type = p->sample_type;
	if (p->sample_type & PERF_SAMPLE_REGS_USER) {
		a->sample_regs_user = DWUNWIND_REGS_MASK;
		a->sample_stack_user = stack;
	}
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->sample_id_all = 1;
	a->disabled = 1;
	a->inherit = !!(inherit & PERFSAMP_TASK_INHERIT);
	a->inherit_thread = a->inherit && (inherit & PERFSAMP_TASK_THREADS);
	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)(pages * p->page / 4);
	if (p->chains) {
		a->exclude_callchain_user = !p->user_chain;
		a->sample_max_stack = (uint16_t)p->max_stack;
		/*
		 * the reader wakes for a batch of samples, then draws the next
		 * period (perfsamp_batch.c): a wakeup and a new period per
		 * sample cost the traced CPUs a third of what they kept
		 */
		a->watermark = 0;
		a->wakeup_events = PERFSAMP_BATCH;
	}
	if (p->clock_hz) {
		/* on-CPU: the CPU's clock at a frequency, its call chains */
		a->type = PERF_TYPE_SOFTWARE;
		a->config = PERF_COUNT_SW_CPU_CLOCK;
		a->freq = 1;
		a->sample_freq = p->clock_hz;
		a->exclude_callchain_user = !p->user_chain;
		a->sample_max_stack = (uint16_t)p->max_stack;
	}
	if (first) {
		/* a task's first event reports its maps too */
		a->mmap = 1;
		a->mmap2 = 1;
		a->comm = 1;
		a->comm_exec = 1;
		a->task = 1;
	}
}

/* the message for a perf_event_open() of event @e on CPU @c refused with @r */
static int open_refused(int r, const struct perfsamp_opts *opts, int e, int c, char *err,
			size_t errsz)
{
	if (r == -EACCES || r == -EPERM)
		return errf(err, errsz, r,
			    "perf_event_open %s: %s (needs root or "
			    "CAP_PERFMON, and kernel.perf_event_paranoid)",
			    opts->events[e], strerror(-r));
	if ((r == -EOPNOTSUPP || r == -EINVAL) && opts->clock_hz)
		return errf(err, errsz, r,
			    "perf_event_open cpu-clock at %u Hz: %s (over "
			    "kernel.perf_event_max_sample_rate?)",
			    opts->clock_hz, strerror(-r));
	if (r == -EOPNOTSUPP || r == -EINVAL)
		return errf(err, errsz, r,
			    "perf_event_open %s: %s (the kernel "
			    "cannot sample user registers and stack here)",
			    opts->events[e], strerror(-r));
	return errf(err, errsz, r, "perf_event_open %s on CPU %d: %s", opts->events[e], c,
		    strerror(-r));
}

/*
 * The event @fd of CPU @c known by its id, filtered, writing to the CPU's
 * ring (opened with its first event: *@first is then the ring's fd)
 */
static int event_attach(struct perfsamp *p, const struct perfsamp_opts *opts, int fd, int e, int c,
			int *first, unsigned int pages, char *err, size_t errsz)
{
	struct pcpu *pc = &p->cpus[p->ncpus];
	int r;

	p->evs[p->nevs].fd = fd;
	p->evs[p->nevs].event = e;
	p->evs[p->nevs].pc = p->ncpus;
	p->nevs++;
	if (ioctl(fd, PERF_EVENT_IOC_ID, &p->evs[p->nevs - 1].id) < 0)
		return errf(err, errsz, -errno, "PERF_EVENT_IOC_ID: %s", strerror(errno));
	/* refused: every hit is sampled, the caller drops the extra ones */
	if (opts->filters && opts->filters[e] &&
	    ioctl(fd, PERF_EVENT_IOC_SET_FILTER, opts->filters[e]) < 0)
		p->st.filters_refused++;
	if (*first < 0) {
		/* the CPU's ring: a dummy event's, else this event's own */
		r = perfsamp_ring_open(&pc->r, c, pages, p->page);
		if (r < 0 && r != -ENOMEM)
			r = perfsamp_ring_map(&pc->r, fd, pages, p->page);
		if (r < 0)
			return errf(err, errsz, r, "mmap of the perf ring of CPU %d: %s%s", c,
				    strerror(-r),
				    r == -EPERM ? " (kernel.perf_event_mlock_kb)" : "");
		*first = pc->r.fd;
		p->ncpus++;
	}
	if (fd != *first && ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, *first) < 0)
		return errf(err, errsz, -errno, "PERF_EVENT_IOC_SET_OUTPUT: %s", strerror(errno));
	return 0;
}

/* a counting-only event of @e on thread @tid (every CPU), enabled with the others */
static int counter_open(struct perfsamp *p, const struct perfsamp_opts *opts, const uint64_t *tp,
			int e, pid_t tid, unsigned int flags, bool minus)
{
	struct perf_event_attr a;
	struct counter *c;
	int fd;

	c = realloc(p->counters, (size_t)(p->ncounters + 1) * sizeof(*c));
	if (!c)
		return -ENOMEM;
	p->counters = c;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_TRACEPOINT;
	a.config = tp[e];
	a.disabled = 1;
	a.inherit = !!(flags & PERFSAMP_TASK_INHERIT);
	a.inherit_thread = a.inherit && (flags & PERFSAMP_TASK_THREADS);
	fd = perfsamp_sys_open(&a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (opts->filters && opts->filters[e])
		ioctl(fd, PERF_EVENT_IOC_SET_FILTER, opts->filters[e]);
	c[p->ncounters].fd = fd;
	c[p->ncounters].event = e;
	c[p->ncounters++].minus = minus;
	return 0;
}

/*
 * The counting-only events: @count_tasks, whose hits are the count (the
 * sampling events see every CPU's); or @exclude_self, a counter on each of
 * our threads (and the threads they start) whose hits come out of it, as
 * the rows leave out our samples
 */
static int counters_open(struct perfsamp *p, const struct perfsamp_opts *opts, const uint64_t *tp,
			 char *err, size_t errsz)
{
	int *tids = NULL, ntids = 0, t, e, r = 0;
	bool self = opts->count_ntasks <= 0;

	if (self) {
		r = tgid_threads((int)getpid(), &tids, &ntids);
		if (r < 0)
			return errf(err, errsz, r, "/proc/self/task: %s", strerror(-r));
	}
	for (t = 0; t < (self ? ntids : opts->count_ntasks) && r >= 0; t++) {
		for (e = 0; e < opts->nevents && r >= 0; e++) {
			r = self ? counter_open(p, opts, tp, e, tids[t],
						PERFSAMP_TASK_INHERIT | PERFSAMP_TASK_THREADS, true)
				 : counter_open(p, opts, tp, e, opts->count_tasks[t],
						opts->count_flags ? opts->count_flags[t] : 0,
						false);
			if (r == -ESRCH) {
				r = 0;
				break; /* a thread gone: nothing of it to count */
			}
		}
	}
	free(tids);
	if (r < 0)
		return errf(err, errsz, r, "perf_event_open %s (counting): %s", opts->events[0],
			    strerror(-r));
	return 0;
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
	if (opts->ring_max_pages && (opts->ring_max_pages & (opts->ring_max_pages - 1)))
		return errf(err, errsz, -EINVAL, "ring pages %u: not a power of two",
			    opts->ring_max_pages);
	p = calloc(1, sizeof(*p));
	tp = calloc(opts->nevents, sizeof(*tp));
	if (!p || !tp) {
		free(p);
		free(tp);
		return errf(err, errsz, -ENOMEM, "out of memory");
	}
	if (cb)
		p->cb = *cb;
	p->page = page;
	p->max_pages = opts->ring_max_pages > pages ? opts->ring_max_pages : 0;
	p->max_total = opts->ring_max_total ? opts->ring_max_total : RING_MAX_TOTAL;
	p->period = opts->period > 1 ? opts->period : 1;
	p->full_room = (uint64_t)stack + 1024; /* a sample: its stack, registers, header */
	p->sample_type = SAMPLE_TYPE;
	if (opts->chains && !opts->clock_hz) {
		p->chains = true;
		p->user_chain = opts->user_chain;
		p->max_stack = opts->max_stack ? opts->max_stack : 127;
		p->sample_type = CLOCK_SAMPLE_TYPE | PERF_SAMPLE_READ;
		p->full_room = 16 * 1024;
		p->batch.rnd = 0x9e3779b97f4a7c15ULL ^ (uint64_t)getpid();
	}
	if (opts->clock_hz) {
		p->clock_hz = opts->clock_hz;
		p->user_chain = opts->user_chain && !opts->user_regs;
		p->max_stack = opts->max_stack ? opts->max_stack : 127;
		p->sample_type = CLOCK_SAMPLE_TYPE;
		p->full_room = 16 * 1024; /* a sample: its chains, header */
		if (opts->user_regs) {
			/* and what dwarf unwinds the user part from */
			p->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
			p->full_room += stack;
		}
	}
	p->cpus = calloc(ncpu, sizeof(*p->cpus));
	p->evs = calloc((size_t)ncpu * opts->nevents * ntasks, sizeof(*p->evs));
	if (!p->cpus || !p->evs) {
		r = errf(err, errsz, -ENOMEM, "out of memory");
		goto fail;
	}
	for (e = 0; e < opts->nevents && !opts->clock_hz; e++) {
		r = tracepoint_id(tracefs, opts->events[e], &tp[e]);
		if (r < 0) {
			r = errf(err, errsz, r, "%s: %s", opts->events[e],
				 r == -ENOENT	? "no such tracepoint"
				 : r == -EINVAL ? "not a system:event name"
						: strerror(-r));
			goto fail;
		}
	}
	for (c = 0; c < ncpu; c++) {
		struct pcpu *pc = &p->cpus[p->ncpus];
		int first = -1, k;

		pc->cpu = c;
		pc->r.fd = -1;
		pc->old.fd = -1;
		/* every (task, event) */
		for (k = 0; k < ntasks * opts->nevents; k++) {
			struct perf_event_attr a;
			int fd;

			t = k / opts->nevents;
			e = k % opts->nevents;
			sample_attr(&a, p, tp[e], e == 0,
				    opts->ntasks > 0 && opts->task_flags ? opts->task_flags[t]
				    : inherit				 ? PERFSAMP_TASK_INHERIT
									 : 0,
				    stack, pages);
			fd = perfsamp_sys_open(&a, tasks[t], c, -1, PERF_FLAG_FD_CLOEXEC);
			if (fd < 0) {
				r = -errno;
				if (r == -ENODEV && k == 0)
					break; /* CPU offline */
				if (r == -ESRCH && opts->ntasks > 0) {
					k += opts->nevents - 1 - e; /* a thread gone: the next */
					continue;
				}
				r = open_refused(r, opts, e, c, err, errsz);
				goto fail;
			}
			r = event_attach(p, opts, fd, e, c, &first, pages, err, errsz);
			if (r < 0)
				goto fail;
			p->evs[p->nevs - 1].task = tasks[t];
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
	if (p->chains && opts->ntasks <= 0 && (opts->count_ntasks > 0 || opts->exclude_self)) {
		r = counters_open(p, opts, tp, err, errsz);
		if (r < 0)
			goto fail;
	}
	for (e = 0; e < p->nevs; e++)
		if (ioctl(p->evs[e].fd, PERF_EVENT_IOC_ENABLE, 0) < 0) {
			r = errf(err, errsz, -errno, "PERF_EVENT_IOC_ENABLE: %s", strerror(errno));
			goto fail;
		}
	for (e = 0; e < p->ncounters; e++)
		ioctl(p->counters[e].fd, PERF_EVENT_IOC_ENABLE, 0);
	free(tp);
	*ret = p;
	return 0;
fail:
	free(tp);
	perfsamp_close(p);
	return r;
}

void perfsamp_close(struct perfsamp *p)
{
	int i;

	if (!p)
		return;
	for (i = 0; i < p->nevs; i++)
		ioctl(p->evs[i].fd, PERF_EVENT_IOC_DISABLE, 0);
	for (i = 0; i < p->nevs; i++)
		close(p->evs[i].fd);
	for (i = 0; i < p->ncounters; i++)
		close(p->counters[i].fd);
	free(p->counters);
	/* the events first: a ring's dummy event goes with its mapping */
	for (i = 0; i < p->ncpus; i++) {
		perfsamp_ring_close(&p->cpus[i].old);
		perfsamp_ring_close(&p->cpus[i].r);
	}
	for (i = 0; i < p->nevs; i++)
		perfsamp_batch_free(&p->evs[i].b);
	free(p->evs);
	free(p->cpus);
	free(p);
}

/* ---- --overhead: what a stack costs the task it is taken in ------------------- */

#define CAL_CALLS  20000 /* getppid() calls a run: ~10-50 ms */
#define CAL_ROUNDS 3	 /* each kind, alternating; the fastest of each kept */
#define CAL_PAGES  16	 /* the ring the samples go to (full soon: cost paid all the same) */

/*
 * CAL_CALLS renames of this thread to its own name with @fd enabled, in ns:
 * task:task_rename fires in the kernel's own context (a syscall tracepoint
 * carries the user registers: perf takes no kernel chain there, and the
 * measure would miss the unwinder)
 */
static uint64_t cal_run(int fd, const char *name)
{
	struct timespec a, b;
	int i;

	ioctl(fd, PERF_EVENT_IOC_RESET, 0);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < CAL_CALLS; i++)
		prctl(PR_SET_NAME, name, 0, 0, 0);
	clock_gettime(CLOCK_MONOTONIC, &b);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	return (uint64_t)(b.tv_sec - a.tv_sec) * 1000000000ULL + (uint64_t)b.tv_nsec -
	       (uint64_t)a.tv_nsec;
}

static int cal_open(uint64_t id, bool chain)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_TRACEPOINT;
	a.config = id;
	a.disabled = 1;
	if (chain) {
		a.sample_period = 1;
		a.sample_type = PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_TID;
		a.exclude_callchain_user = 1;
		a.wakeup_events = CAL_CALLS * 2; /* nobody reads: no wakeups */
	}
	return perfsamp_sys_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/* the kernel frames of the first sample in @ring (its data after the control page) */
static unsigned int cal_depth(const void *ring, size_t page)
{
	const struct perf_event_mmap_page *pg = ring;
	const unsigned char *data = (const unsigned char *)ring + page;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE), pos = 0, nr, i;
	size_t size = CAL_PAGES * page;
	unsigned int n = 0;

	while (pos + sizeof(struct perf_event_header) <= head && pos + 32 <= size) {
		const struct perf_event_header *h = (const void *)(data + pos);

		if (h->size < sizeof(*h) || pos + h->size > size)
			break;
		if (h->type == PERF_RECORD_SAMPLE && h->size >= sizeof(*h) + 16) {
			memcpy(&nr, data + pos + sizeof(*h) + 8, 8);
			for (i = 0; i < nr && sizeof(*h) + 16 + (i + 1) * 8 <= h->size; i++) {
				uint64_t ip;

				memcpy(&ip, data + pos + sizeof(*h) + 16 + i * 8, 8);
				if (ip < (uint64_t)PERF_CONTEXT_MAX)
					n++;
			}
			return n;
		}
		pos += h->size;
	}
	return 0;
}

int perfsamp_calibrate(const char *tracefs, struct perfsamp_cal *ret)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uint64_t id, best[2] = { UINT64_MAX, UINT64_MAX };
	int fd[2] = { -1, -1 }, r, k, i;
	void *ring = MAP_FAILED;

	char name[17] = "";

	memset(ret, 0, sizeof(*ret));
	if (prctl(PR_GET_NAME, name, 0, 0, 0) < 0)
		return -errno;
	r = tracepoint_id(tracefs ? tracefs : "/sys/kernel/tracing", "task:task_rename", &id);
	if (r < 0)
		return r;
	for (k = 0; k < 2; k++) {
		fd[k] = cal_open(id, k == 1);
		if (fd[k] < 0) {
			r = -errno;
			goto out;
		}
	}
	ring = mmap(NULL, (CAL_PAGES + 1) * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd[1], 0);
	if (ring == MAP_FAILED) {
		r = -errno;
		goto out;
	}
	for (i = 0; i < CAL_ROUNDS; i++)
		for (k = 0; k < 2; k++) {
			uint64_t t = cal_run(fd[k], name);

			if (t < best[k])
				best[k] = t;
		}
	ret->count_ns = (double)best[0] / CAL_CALLS;
	ret->stack_ns = best[1] > best[0] ? (double)(best[1] - best[0]) / CAL_CALLS : 0;
	ret->depth = cal_depth(ring, page);
	r = 0;
out:
	if (ring != MAP_FAILED)
		munmap(ring, (CAL_PAGES + 1) * page);
	for (k = 0; k < 2; k++)
		if (fd[k] >= 0)
			close(fd[k]);
	return r;
}
