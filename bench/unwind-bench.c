// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * unwind-bench.c - the dwarf user-stack path at full speed: perfsamp on
 * syscalls:sys_enter_write of one process, every sample unwound with
 * dwunwind as it is read (maps from perf's MMAP2 records), until the
 * process exits. bench/unwind.py runs it against `perf record
 * --call-graph dwarf` (doc/performance.md, "User stacks (dwarf)").
 *
 *   unwind-bench PID [STACK_BYTES [nocache]]
 * Prints: samples, unwound, failed, lost, mean frames, CPU seconds.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "sym/dwunwind.h"
#include "kernel/perfsamp.h"

#define MAXMAPS 512

static pid_t target;
static struct umap maps[MAXMAPS];
static size_t nmaps;
static struct dwunwind *uw;
static unsigned long long nsamp, nok, nfail, frames;
static int cache = 1;

static int cmp_map(const void *a, const void *b)
{
	const struct umap *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static void on_mmap(void *ctx, const struct perfsamp_mmap *m)
{
	char *path;

	if ((pid_t)m->pid != target || m->filename[0] != '/' || nmaps == MAXMAPS)
		return;
	path = strdup(m->filename);
	if (!path)
		return;
	maps[nmaps].start = m->start;
	maps[nmaps].end = m->start + m->len;
	maps[nmaps].pgoff = m->pgoff;
	maps[nmaps].path = path;
	maps[nmaps].dev = m->dev;
	maps[nmaps].ino = m->ino;
	nmaps++;
	qsort(maps, nmaps, sizeof(maps[0]), cmp_map);
}

static void on_sample(void *ctx, const struct perfsamp_sample *s)
{
	struct dwunwind_sample in = {
		.regs = s->regs,
		.stack = s->stack,
		.stack_size = s->stack_size,
		.maps = maps,
		.nmaps = nmaps,
		.maps_id = cache ? (uint64_t)target << 32 | nmaps : 0,
		.pid = s->pid,
	};
	uint64_t ips[128];
	int n;

	nsamp++;
	n = dwunwind_stack(uw, &in, ips, 128, NULL);
	if (n > 0) {
		nok++;
		frames += n;
	} else {
		nfail++;
	}
}

int main(int argc, char **argv)
{
	const char *ev[] = { "syscalls:sys_enter_write" };
	struct perfsamp_opts o = { .events = ev, .nevents = 1 };
	struct perfsamp_cb cb = { .sample = on_sample, .mmap = on_mmap };
	struct perfsamp_stats st;
	struct dwunwind_stats ds;
	struct perfsamp *p;
	struct rusage ru;
	char err[256];

	if (argc < 2)
		return 2;
	target = atoi(argv[1]);
	o.pid = target;
	o.stack_size = argc > 2 ? atoi(argv[2]) : 8192;
	cache = !(argc > 3 && !strcmp(argv[3], "nocache"));
	o.ring_pages = 512;
	uw = dwunwind_new();
	if (!uw || perfsamp_open(&p, &o, &cb, err, sizeof(err)) < 0) {
		fprintf(stderr, "unwind-bench: %s\n", err);
		return 1;
	}
	/* write a line when ready: the caller starts the workload then */
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		struct pollfd pfd[256];
		int n = perfsamp_pollfds(p, pfd, 256);
		bool more;

		poll(pfd, n, 50);
		do
			perfsamp_drain(p, 4096, &more);
		while (more);
		if (kill(target, 0) < 0 && errno == ESRCH)
			break;
	}
	perfsamp_drain(p, 0, NULL);
	perfsamp_stats(p, &st);
	getrusage(RUSAGE_SELF, &ru);
	dwunwind_stats(uw, &ds);
	printf("samples %llu unwound %llu failed %llu lost %llu frames %.1f walked %llu replayed %llu "
	       "cpu %.3f\n",
	       nsamp, nok, nfail, (unsigned long long)st.lost, nok ? (double)frames / nok : 0.0,
	       (unsigned long long)ds.walked, (unsigned long long)ds.replayed,
	       ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
		       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
	perfsamp_close(p);
	dwunwind_free(uw);
	return 0;
}
