// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * unwind-bench.c - the dwarf user-stack path at full speed: perfsamp on
 * syscalls:sys_enter_write of one process, every sample unwound with
 * dwunwind as it is read (maps from perf's MMAP2 records), until the
 * process exits. bench/unwind.py runs it against `perf record
 * --call-graph dwarf` (doc/performance.md, "User stacks (dwarf)").
 *
 *   unwind-bench PID [STACK_BYTES [nocache|oncpu]]
 * Prints: samples, unwound, failed, lost, mean frames, CPU seconds.
 *
 * oncpu (issue 38): --oncpu -u's path instead: cpu-clock at 999 Hz on the
 * process with the user registers and stack, every sample unwound and its
 * frames interned with their inlined calls (usym_intern_chain(): DWARF
 * read as stacktop reads it), every token named at the end (usym_format()):
 * what a sample costs stacktop beside what `perf report` spends on one of
 * `perf record --call-graph dwarf` (doc/performance.md, run under
 * callgrind by bench/oncpu-dwarf-cost.sh).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define CG_TOGGLE() CALLGRIND_TOGGLE_COLLECT
#endif
#endif
#ifndef CG_TOGGLE
#define CG_TOGGLE() ((void)0)
#endif

#include "core/hmap.h"
#include "sym/dwunwind.h"
#include "sym/usym.h"
#include "kernel/perfsamp.h"

#define MAXMAPS 512

static pid_t target;
static struct umap maps[MAXMAPS];
static size_t nmaps;
static struct dwunwind *uw;
static unsigned long long nsamp, nok, nfail, frames;
static int cache = 1;
static struct usym *usym; /* oncpu: the frames interned and named */
static uint64_t toks[1024];
static unsigned long long ntoks;
static struct hmap seen; /* oncpu: the tokens interned */
/*
 * oncpu under callgrind --collect-atstart=no: the samples after the first
 * CG_WARM are counted (what a sample costs once the files' symbols and
 * DWARF were read)
 */
#define CG_WARM 100
static unsigned long long nmeasured;

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

	bool measure = usym && nsamp >= CG_WARM;

	nsamp++;
	if (measure) {
		CG_TOGGLE();
		nmeasured++;
	}
	n = dwunwind_stack(uw, &in, ips, 128, NULL);
	if (n > 0) {
		nok++;
		frames += n;
	} else {
		nfail++;
	}
	/* oncpu: interned, inlined calls included, as perf_user_join.c does */
	for (int i = 0; usym && i < n; i++) {
		unsigned int k =
			usym_intern_chain(usym, s->pid, i ? ips[i] - 1 : ips[i], false, toks, 1024);

		ntoks += k;
		while (k--)
			hmap_put(&seen, toks[k], 1);
	}
	if (measure)
		CG_TOGGLE();
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
	if (argc > 3 && !strcmp(argv[3], "oncpu")) {
		o.clock_hz = 999;
		o.user_regs = true;
		o.ring_max_pages = 8192;
		usym = usym_new(NULL);
	}
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
	if (usym) {
		/* every frame named once, as a report names them */
		char name[512];
		unsigned long long named = 0;
		size_t i;

		for (i = 0; i < seen.cap; i++)
			if (seen.keys[i] &&
			    usym_format(usym, seen.keys[i], name, sizeof(name), true, true) > 0 &&
			    strncmp(name, "[unknown]", 9))
				named++;
		printf("tokens %llu distinct %zu named %llu measured %llu\n", ntoks,
		       hmap_len(&seen), named, nmeasured);
		usym_free(usym);
	}
	perfsamp_close(p);
	dwunwind_free(uw);
	return 0;
}
