// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * perfsamp.c - tracepoint samples with user registers and stack through
 * perf_event_open (see perfsamp.h): the rings and the records read from
 * them (the events are opened in perfsamp_open.c).
 *
 * Ring protocol (perf_event_open(2)): the kernel writes records after the
 * metadata page and advances data_head; we read up to it (after a read
 * barrier), then publish data_tail (after a full barrier) so the kernel may
 * reuse the space: after each record, so a long read (every sample is
 * unwound in its callback) gives the space back as it goes. A record that
 * wraps around the end of the ring is copied into a bounce buffer first.
 *
 * A CPU's ring is mapped from a dummy software event of that CPU, and the
 * traced events write to it (PERF_EVENT_IOC_SET_OUTPUT). A ring that lost
 * samples is replaced by a larger one (@ring_max_pages): a new dummy event
 * and its ring, every event of the CPU pointed at it; the old one holds
 * what was written before, is read to its end first and closed once it
 * stayed empty a while (a write begun before the switch ends in it). Where
 * a dummy event is refused, the CPU's first event owns the ring, which then
 * keeps its size.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sym/dwunwind.h"
#include "kernel/perfsamp_priv.h"

int perfsamp_sys_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group,
		      unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group, flags);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void perfsamp_ring_close(struct ring *r)
{
	if (r->meta)
		munmap(r->meta, r->mmap_len);
	if (r->own && r->fd >= 0)
		close(r->fd);
	memset(r, 0, sizeof(*r));
	r->fd = -1;
}

/* map @pages data pages of event @fd (the kernel wakes a poll at a quarter) */
int perfsamp_ring_map(struct ring *r, int fd, unsigned int pages, long page)
{
	void *m;

	r->mmap_len = (size_t)(pages + 1) * page;
	m = mmap(NULL, r->mmap_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return -errno;
	r->fd = fd;
	r->meta = m;
	r->data = (uint8_t *)m + page;
	r->size = (uint64_t)pages * page;
	return 0;
}

/* a ring of its own for CPU @cpu: a dummy event's, which writes nothing itself */
int perfsamp_ring_open(struct ring *r, int cpu, unsigned int pages, long page)
{
	struct perf_event_attr a;
	int fd, e;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.use_clockid = 1; /* the events it takes must share its clock */
	a.clockid = CLOCK_MONOTONIC;
	a.watermark = 1;
	/*
	 * a poll wakes at a quarter, at most 1 MiB: a large ring is read as
	 * often as a small one, its room left for when the reader is late
	 */
	a.wakeup_watermark =
		(uint32_t)(pages * page / 4 < (1u << 20) ? pages * page / 4 : 1u << 20);
	fd = perfsamp_sys_open(&a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	e = perfsamp_ring_map(r, fd, pages, page);
	if (e < 0) {
		close(fd);
		return e;
	}
	r->own = true;
	return 0;
}

int perfsamp_pollfds(const struct perfsamp *p, struct pollfd *fds, int max)
{
	int i, n = 0;

	for (i = 0; i < p->ncpus && n < max; i++) {
		if (p->cpus[i].hup)
			continue;
		fds[n].fd = p->cpus[i].r.fd;
		fds[n].events = POLLIN;
		fds[n].revents = 0;
		n++;
	}
	return n;
}

static struct pevent *pevent_of(struct perfsamp *p, uint64_t id)
{
	size_t lo = 0, hi = p->nevs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->evs[mid].id == id)
			return &p->evs[mid];
		if (p->evs[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
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
	struct pevent *ev;
	struct perfsamp_sample s;
	bool census = false;
	uint64_t v, size;
	int i;

	memset(&s, 0, sizeof(s));
	ev = pevent_of(p, rd_u64(r)); /* IDENTIFIER */
	s.event = ev ? ev->event : -1;
	s.weight = 1;
	v = rd_u64(r); /* TID */
	s.pid = (uint32_t)v;
	s.tid = (uint32_t)(v >> 32);
	s.time = rd_u64(r);	     /* TIME */
	s.cpu = (uint32_t)rd_u64(r); /* CPU */
	if (p->sample_type & PERF_SAMPLE_READ) {
		uint64_t count = rd_u64(r); /* READ: the count of the sample's counter now */

		/*
		 * the hits it stands for, from the count of the event's counter
		 * (with tasks followed into what they start, a child's sample
		 * carries the child's own count, which no change of period
		 * reaches: --sample samples every CPU then, counting the threads
		 * apart, @count_tasks)
		 */
		if (ev) {
			census = !perfsamp_batch_keep(&p->batch, &ev->b, s.time);
			s.weight = perfsamp_batch_weight(&p->batch, &ev->b, count, census);
		}
		if (census)
			p->st.period_samples++;
		s.census = census;
	}
	if (p->sample_type & PERF_SAMPLE_CALLCHAIN) {
		s.nchain = rd_u64(r);
		if (s.nchain > (r->len - r->pos) / 8) {
			r->bad = true;
		} else {
			s.chain = (const uint64_t *)(const void *)(r->b + r->pos);
			r->pos += s.nchain * 8;
			if (ev && !census)
				perfsamp_batch_note(&p->batch, &ev->b, s.chain, s.nchain);
		}
	}
	if (!(p->sample_type & PERF_SAMPLE_REGS_USER))
		goto done;
	s.abi = rd_u64(r); /* REGS_USER */
	if (s.abi) {
		for (i = 0; i < DWUNWIND_NREGS; i++)
			if (DWUNWIND_REGS_MASK & (1ULL << i))
				s.regs[i] = rd_u64(r);
	}
	size = rd_u64(r); /* STACK_USER */
	if (size) {
		if (r->len - r->pos < size) {
			r->bad = true;
		} else {
			s.stack = r->b + r->pos;
			r->pos += size;
			s.stack_size = rd_u64(r); /* dyn_size */
			if (s.stack_size > size)
				s.stack_size = size;
		}
	}
done:
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

/* @pci: the index in cpus[] of the ring the record was read from */
static void parse_record(struct perfsamp *p, const struct perf_event_header *h, int pci)
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

		if (h->size < sizeof(*h) + 8 + 32 + 1 ||
		    !memchr(comm, 0, h->size - sizeof(*h) - 8 - 32)) {
			p->st.bad++;
			break;
		}
		memcpy(pt, b + sizeof(*h), 8);
		if (p->cb.comm)
			p->cb.comm(p->cb.ctx, pt[0], pt[1], comm,
				   h->misc & PERF_RECORD_MISC_COMM_EXEC);
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
	case PERF_RECORD_THROTTLE:
		p->st.throttled++;
		break;
	case PERF_RECORD_LOST: {
		uint64_t n;

		if (h->size < sizeof(*h) + 16) {
			p->st.bad++;
			break;
		}
		memcpy(&n, b + sizeof(*h) + 8, 8);
		p->st.lost += n;
		p->cpus[pci].lost = true;
		if (p->cb.lost)
			p->cb.lost(p->cb.ctx, (uint32_t)p->cpus[pci].cpu, n,
				   trailer_time(b, h->size));
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
		fds[k].fd = p->cpus[i].r.fd;
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

/*
 * Read @r up to its head, at most @budget records in all (@n counts them);
 * the tail is given back after each record. False when the budget ended it.
 */
static bool ring_read(struct perfsamp *p, struct ring *r, int pci, unsigned int budget,
		      unsigned int *n)
{
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->meta->data_tail;
	struct pcpu *pc = &p->cpus[pci];
	bool done = true;

	if (head - tail + p->full_room > r->size)
		pc->full = true;
	while (tail < head) {
		struct perf_event_header h;
		uint64_t off = tail & (r->size - 1);
		const struct perf_event_header *rec;

		if (budget && *n >= budget) {
			done = false;
			break;
		}
		if (r->size - off >= sizeof(h)) {
			memcpy(&h, r->data + off, sizeof(h));
		} else {
			memcpy(&h, r->data + off, r->size - off);
			memcpy((uint8_t *)&h + (r->size - off), r->data,
			       sizeof(h) - (r->size - off));
		}
		if (h.size < sizeof(h) || h.size > head - tail) {
			/* a broken ring: skip what is there */
			p->st.bad++;
			tail = head;
			break;
		}
		if (r->size - off >= h.size) {
			rec = (const void *)(r->data + off);
		} else {
			uint64_t first = r->size - off;

			memcpy(p->bounce, r->data + off, first);
			memcpy(p->bounce + first, r->data, h.size - first);
			rec = (const void *)p->bounce;
		}
		parse_record(p, rec, pci);
		tail += h.size;
		(*n)++;
		/* the space is the kernel's again while the next records are read */
		__atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELEASE);
	/*
	 * A ring found full lost what came after its last sample, until this
	 * read made room. The kernel says how many with a LOST record at its
	 * next write to the ring, which may be long after (the thread went to
	 * another CPU; a replaced ring is written to no more): until then, a
	 * loss of a number not known, from the last sample read to now.
	 */
	if (done && pc->full) {
		pc->full = false;
		p->st.lost_unknown++;
		if (p->cb.lost)
			p->cb.lost(p->cb.ctx, (uint32_t)pc->cpu, 0, mono_ns());
	}
	return done;
}

static uint64_t rings_bytes(const struct perfsamp *p)
{
	uint64_t b = 0;
	int i;

	for (i = 0; i < p->ncpus; i++)
		b += p->cpus[i].r.size + (p->cpus[i].old.meta ? p->cpus[i].old.size : 0);
	return b;
}

/*
 * The ring of @pc lost samples: a four times larger one (within the
 * bounds), every event of the CPU pointed at it. The old ring keeps what
 * was written before the switch and is read first until it goes. The
 * switch of an event's ring waits for an RCU grace period (the kernel's
 * ring_buffer_attach()), milliseconds during which the events still write
 * to the old ring: when that fills, what it lost then is said by no LOST
 * record (none is written to it again), only by its being full
 * (ring_read()).
 */
static void ring_grow(struct perfsamp *p, struct pcpu *pc)
{
	unsigned int pages = (unsigned int)(pc->r.size / (uint64_t)p->page), want = pages * 4;
	struct ring nr;
	int i, k, pci = (int)(pc - p->cpus);

	if (!p->max_pages || !pc->r.own || pc->old.meta || pages >= p->max_pages)
		return;
	if (want > p->max_pages)
		want = p->max_pages;
	while (want > pages && rings_bytes(p) + (uint64_t)(want - pages) * p->page > p->max_total)
		want /= 2;
	if (want <= pages)
		return;
	memset(&nr, 0, sizeof(nr));
	if (perfsamp_ring_open(&nr, pc->cpu, want, p->page) < 0) {
		p->st.grow_failed++;
		p->max_pages = 0; /* the kernel said no (memory, perf_event_mlock_kb) */
		return;
	}
	for (i = 0; i < p->nevs; i++) {
		if (p->evs[i].pc != pci)
			continue;
		if (ioctl(p->evs[i].fd, PERF_EVENT_IOC_SET_OUTPUT, nr.fd) < 0) {
			/* back to the old ring, as they all were */
			for (k = 0; k < i; k++)
				if (p->evs[k].pc == pci)
					ioctl(p->evs[k].fd, PERF_EVENT_IOC_SET_OUTPUT, pc->r.fd);
			perfsamp_ring_close(&nr);
			p->st.grow_failed++;
			p->max_pages = 0;
			return;
		}
	}
	pc->old = pc->r;
	pc->r = nr;
	pc->switched = mono_ns();
	p->st.grown++;
}

/* --sample: each event sampled since its period was set gets a new one */
static void batches_next(struct perfsamp *p)
{
	int i;

	for (i = 0; i < p->nevs; i++)
		if (p->evs[i].b.redraw)
			perfsamp_batch_next(&p->batch, &p->evs[i].b, p->evs[i].fd);
}

int perfsamp_drain(struct perfsamp *p, unsigned int budget, bool *more)
{
	unsigned int n = 0;
	bool done = true;
	int i = 0, k;

	if (more)
		*more = false;
	for (k = 0; k < p->ncpus && done; k++) {
		struct pcpu *pc;

		i = (p->rot + k) % p->ncpus;
		pc = &p->cpus[i];
		pc->lost = false;
		/* what was written before the switch, first */
		if (pc->old.meta) {
			unsigned int before = n;

			done = ring_read(p, &pc->old, i, budget, &n);
			if (!done)
				break;
			if (n == before && mono_ns() - pc->switched > RING_RETIRE_NS)
				perfsamp_ring_close(&pc->old);
		}
		done = ring_read(p, &pc->r, i, budget, &n);
		if (pc->lost)
			ring_grow(p, pc);
	}
	if (!done) {
		p->rot = i; /* no CPU waits behind the others for ever */
		if (more)
			*more = true;
	}
	if (!n)
		mark_hung_up(p);
	else if (done)
		batches_next(p); /* a batch ends where a drain read every ring */
	return (int)n;
}

void perfsamp_restart_period(struct perfsamp *p)
{
	uint64_t period = p->period;
	int i;

	if (p->period <= 1)
		return;
	for (i = 0; i < p->nevs; i++)
		ioctl(p->evs[i].fd, PERF_EVENT_IOC_PERIOD, &period);
}

void perfsamp_counts(const struct perfsamp *p, uint64_t *ret, int n)
{
	bool own = false;
	int i;

	memset(ret, 0, (size_t)n * sizeof(*ret));
	/* @count_tasks: the threads' own counters; else the sampling events' */
	for (i = 0; i < p->ncounters; i++)
		own |= !p->counters[i].minus;
	for (i = 0; i < p->nevs && !own; i++) {
		uint64_t v;

		if (p->evs[i].event >= 0 && p->evs[i].event < n &&
		    read(p->evs[i].fd, &v, sizeof(v)) == (ssize_t)sizeof(v))
			ret[p->evs[i].event] += v;
	}
	for (i = 0; i < p->ncounters; i++) {
		const struct counter *c = &p->counters[i];
		uint64_t v;

		if (c->event >= n || read(c->fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
			continue;
		if (!c->minus)
			ret[c->event] += v;
		else /* @exclude_self: our own hits out (the rows leave out our samples) */
			ret[c->event] -= v < ret[c->event] ? v : ret[c->event];
	}
}

void perfsamp_stream_counts(const struct perfsamp *p, uint64_t *ret, int n)
{
	int i;

	memset(ret, 0, (size_t)n * sizeof(*ret));
	for (i = 0; i < p->nevs; i++) {
		uint64_t v;

		if (p->evs[i].event >= 0 && p->evs[i].event < n &&
		    read(p->evs[i].fd, &v, sizeof(v)) == (ssize_t)sizeof(v))
			ret[p->evs[i].event] += v;
	}
}

void perfsamp_randomize_period(struct perfsamp *p, unsigned int mean)
{
	int i;

	if (mean < 2 || mean == p->batch.mean)
		return;
	p->batch.mean = mean;
	for (i = 0; i < p->nevs; i++)
		perfsamp_batch_next(&p->batch, &p->evs[i].b, p->evs[i].fd);
}

void perfsamp_stats(const struct perfsamp *p, struct perfsamp_stats *st)
{
	int i;

	*st = p->st;
	st->batch = p->batch.st;
	st->ring_bytes = rings_bytes(p);
	st->rings = (uint64_t)p->ncpus;
	for (i = 0; i < p->ncpus; i++)
		if (p->cpus[i].r.size > st->ring_max)
			st->ring_max = p->cpus[i].r.size;
}
