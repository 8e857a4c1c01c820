// SPDX-License-Identifier: GPL-2.0-or-later

/*
 * cpubufs.c - the per-CPU trace_pipe_raw readers of one tracing instance,
 * shared by the ring-buffer sources (instance, stackmap). See cpubufs.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/format.h"
#include "core/log.h"
#include "core/ringbuf.h"
#include "ingest/ingest.h"
#include "kernel/evfmt.h"
#include "kernel/state.h"
#include "kernel/tfs.h"
#include "kernel/trace.h"
#include "source/cpubufs.h"
#include "source/source.h"

static int int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/*
 * The reader's watermark: a poll() of trace_pipe_raw reports a CPU's
 * buffer readable once this share of its pages is written (buffer_percent,
 * rb_watermark_hit()), never for the page still written alone, and the
 * loops wait at most 50 ms (cli/batch.c, ui/screen.c) for the pages of a
 * slower CPU. A quarter: at 40 MB/s into 4 MiB a CPU, a drain every 25 ms
 * of some 250 pages, three quarters of the buffer left for a reader kept
 * from its CPU. The kernel's default is 50; 0 wakes the reader at every
 * record. An instance's setting is its own (removed with it); the top
 * level's is journaled and restored.
 */
#define CPUBUFS_WATERMARK "25"

static void cpubufs_watermark(struct source_ctx *s)
{
	char rel[128];
	int r;

	trace_path(&s->tr, rel, sizeof(rel), "buffer_percent");
	/* before 5.1 there is none: a poll wakes at every record */
	if (!tfs_exists(s->tr.tfs, rel))
		return;
	r = s->tr.instance ? tfs_write(s->tr.tfs, rel, CPUBUFS_WATERMARK)
			   : state_write(s->tr.state, rel, CPUBUFS_WATERMARK);
	if (r < 0)
		log_debug("cannot set %s: %s", rel, strerror(-r));
}

int cpubufs_open(struct cpubufs *b, struct source_ctx *s, char *err, size_t errsz)
{
	char **cpus = NULL;
	char rel[128];
	int n = 0, i, r;

	trace_path(&s->tr, rel, sizeof(rel), "per_cpu");
	r = trace_list_dir(&s->tr, rel, &cpus, &n);
	if (r < 0)
		return fmt_error(err, errsz, r, "cannot list %s/%s: %s", s->tr.tfs->root, rel,
				 strerror(-r));
	b->cpus = calloc((size_t)n + 1, sizeof(*b->cpus));
	b->page = malloc(s->tr.fmt->layout.subbuf_size);
	if (!b->cpus || !b->page) {
		trace_free_list(cpus, n);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		struct cpu_reader *c;
		char *end;
		long cpu;
		int j;
		bool want = !s->tr.opts->ncpus;

		if (strncmp(cpus[i], "cpu", 3))
			continue;
		cpu = strtol(cpus[i] + 3, &end, 10);
		if (*end || cpu < 0 || cpu > 0xffff)
			continue;
		for (j = 0; j < s->tr.opts->ncpus; j++)
			if (s->tr.opts->cpus[j] == cpu)
				want = true;
		if (!want)
			continue;
		c = &b->cpus[b->ncpus];
		c->cpu = (int)cpu;
		snprintf(rel, sizeof(rel), "%sper_cpu/cpu%ld/trace_pipe_raw", s->tr.prefix, cpu);
		c->fd = tfs_open_file(s->tr.tfs, rel, O_RDONLY | O_NONBLOCK);
		if (c->fd < 0) {
			r = c->fd;
			trace_free_list(cpus, n);
			return fmt_error(err, errsz, r, "cannot open %s: %s", rel, strerror(-r));
		}
		b->ncpus++;
	}
	if (!b->ncpus) {
		char have[256] = "";
		int nums[64], k = 0, j;
		size_t len = 0;

		/* name the CPUs there are: "-C 99" on a 2-CPU machine */
		for (i = 0; i < n && k < 64; i++)
			if (!strncmp(cpus[i], "cpu", 3))
				nums[k++] = atoi(cpus[i] + 3);
		qsort(nums, (size_t)k, sizeof(*nums), int_cmp);
		for (j = 0; j < k && len + 8 < sizeof(have); j++)
			len += (size_t)snprintf(have + len, sizeof(have) - len, "%s%d",
						j ? "," : "", nums[j]);
		if (k == 64)
			snprintf(have + len, sizeof(have) - len, ",...");
		trace_free_list(cpus, n);
		return fmt_error(err, errsz, -EINVAL,
				 "no CPU to read: -C names none of the CPUs %s has (%s)",
				 s->tr.prefix[0] ? "this instance" : "this tracefs", have);
	}
	trace_free_list(cpus, n);
	cpubufs_watermark(s);
	/* the counters' history is not ours: count from here on */
	cpubufs_read_stats(b, s);
	cpubufs_zero_stats(b);
	ingest_set_kernel_losses(s->ing, 0, 0);
	return 0;
}

/*
 * The largest record a page can end before: the kernel moves to the next
 * page when a record does not fit, so a page it left holds all but the
 * last few hundred bytes (a kernel_stack of 128 frames is 1,048). A page
 * with less was copied while the kernel still wrote to it: the reader has
 * caught up with the writer on that CPU.
 */
#define CPUBUFS_RECORD_MAX 1088

/* @page (as read) was copied while the writer was on it */
static bool page_partial(const struct ringbuf_layout *l, const uint8_t *page, size_t n)
{
	size_t data = l->subbuf_size - l->data_offset;

	if (n < l->data_offset)
		return true;
	return ringbuf_page_commit(l, page) + CPUBUFS_RECORD_MAX < data;
}

int cpubufs_drain(struct cpubufs *b, struct source_ctx *s, struct drain_budget *budget,
		  cpubufs_full_fn full, void *ctx)
{
	const struct ringbuf_layout *l = &s->tr.fmt->layout;
	unsigned int pages = 0;
	bool more = true;
	int i;

	for (i = 0; i < b->ncpus; i++)
		b->cpus[i].reads = 0;
	/*
	 * Round-robin one page per CPU so no CPU starves under the budget. A
	 * CPU is done at EAGAIN or at the page its writer is on: once that
	 * page is copied, a read returns only what the kernel wrote since (a
	 * few records a call while a busy CPU writes on: 1.5 events a read at
	 * 320k events/s, a core's fifth spent in read()). The first read of a
	 * drain may be partial and not the writer's (the rest of the page
	 * copied last time, finished since): it ends nothing. A buffer that
	 * never empties (a reader traced by the function tracer, slowed by
	 * strace) ends the drain on the budget, never in here.
	 */
	while (more) {
		more = false;
		for (i = 0; i < b->ncpus; i++) {
			struct cpu_reader *c = &b->cpus[i];
			bool partial;
			ssize_t n;

			if (c->fd < 0 || c->reads < 0)
				continue;
			if (drain_budget_spent(budget))
				return (int)pages;
			n = read(c->fd, b->page, l->subbuf_size);
			if (n < 0) {
				if (errno != EAGAIN && errno != EINTR) {
					log_warn("cpu%d: trace_pipe_raw: %s", c->cpu,
						 strerror(errno));
					close(c->fd);
					c->fd = -1;
				}
				c->reads = -1;
				continue;
			}
			if (n == 0) {
				c->reads = -1;
				continue;
			}
			pages++;
			budget->used++;
			s->stats.rb_reads++;
			partial = page_partial(l, b->page, (size_t)n);
			s->stats.rb_partial += partial;
			c->reads = partial && c->reads ? -1 : c->reads + 1;
			more = true;
			ingest_page(s->ing, (unsigned int)i, (unsigned int)c->cpu, b->page,
				    (size_t)n);
			/* room for a whole page of ids (16 bytes each) before the next one */
			if (full &&
			    ingest_pending(s->ing) > INGEST_QUEUE_MAX - l->subbuf_size / 16 - 1)
				full(ctx);
		}
	}
	return (int)pages;
}

/* @count grows by what the kernel's counter @now added since @seen (0 from a reset) */
static void stat_advance(uint64_t *count, uint64_t *seen, uint64_t now)
{
	*count += now >= *seen ? now - *seen : now;
	*seen = now;
}

/* the number after @key at a line's start in @buf, or -1 when there is none */
static long long stat_field(const char *buf, const char *key)
{
	size_t n = strlen(key);
	const char *p = buf;

	while (p && strncmp(p, key, n))
		p = (p = strchr(p, '\n')) ? p + 1 : NULL;
	return p ? strtoll(p + n, NULL, 10) : -1;
}

/*
 * The kernel counts records (an event, its stack) in per_cpu/cpuN/stats:
 * "overrun" those its writer overwrote, "dropped events" those a full
 * buffer refused with overwrite off, "commit overrun" those refused when
 * the writer came round to an unfinished commit (an interrupt writing a
 * buffer's worth); ingest turns them into events (ingest_stats()).
 */
void cpubufs_read_stats(struct cpubufs *b, struct source_ctx *s)
{
	uint64_t overrun = 0, refused = 0;
	int i;

	for (i = 0; i < b->ncpus; i++) {
		struct cpu_reader *c = &b->cpus[i];
		long long v;
		char rel[160], *buf;

		snprintf(rel, sizeof(rel), "%sper_cpu/cpu%d/stats", s->tr.prefix, c->cpu);
		if (tfs_read(s->tr.tfs, rel, &buf, NULL) < 0)
			continue;
		if ((v = stat_field(buf, "overrun:")) >= 0)
			stat_advance(&c->overrun, &c->seen_overrun, (uint64_t)v);
		if ((v = stat_field(buf, "dropped events:")) >= 0)
			stat_advance(&c->dropped, &c->seen_dropped, (uint64_t)v);
		if ((v = stat_field(buf, "commit overrun:")) >= 0)
			stat_advance(&c->commit, &c->seen_commit, (uint64_t)v);
		free(buf);
	}
	for (i = 0; i < b->ncpus; i++) {
		overrun += b->cpus[i].overrun;
		refused += b->cpus[i].dropped + b->cpus[i].commit;
	}
	ingest_set_kernel_losses(s->ing, overrun, refused);
}

void cpubufs_zero_stats(struct cpubufs *b)
{
	int i;

	for (i = 0; i < b->ncpus; i++)
		b->cpus[i].overrun = b->cpus[i].dropped = b->cpus[i].commit = 0;
}

int cpubufs_pollfds(const struct cpubufs *b, struct pollfd *fds, int max)
{
	int i, n = 0;

	for (i = 0; i < b->ncpus && n < max; i++) {
		if (b->cpus[i].fd < 0)
			continue;
		fds[n].fd = b->cpus[i].fd;
		fds[n].events = POLLIN;
		fds[n].revents = 0;
		n++;
	}
	return n;
}

void cpubufs_close(struct cpubufs *b)
{
	int i;

	for (i = 0; i < b->ncpus; i++)
		if (b->cpus[i].fd >= 0)
			close(b->cpus[i].fd);
	free(b->cpus);
	free(b->page);
	b->cpus = NULL;
	b->page = NULL;
	b->ncpus = 0;
}
