/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cpubufs.h - the per-CPU trace_pipe_raw readers of one tracing instance
 * (the instance read: trace_path()), shared by the ring-buffer sources
 * (instance.c, stackmap.c). Each page read goes to ingest_page().
 */
#ifndef STACKTOP_CPUBUFS_H
#define STACKTOP_CPUBUFS_H

#include <stddef.h>
#include <stdint.h>

struct drain_budget;
struct pollfd;
struct session_stats;
struct source_ctx;

struct cpu_reader {
	int cpu;
	int fd;
	int reads; /* pages read in this drain; -1: done (empty, or its writer's page read) */
	uint64_t overrun; /* records, since the reader opened (the counters' history left out) */
	uint64_t dropped;
	uint64_t commit;
	uint64_t seen_overrun; /* the counters as last read */
	uint64_t seen_dropped;
	uint64_t seen_commit;
};

/**
 * struct cpubufs - the readers of one instance
 * @cpus: one per CPU read (--cpu: those asked for)
 * @ncpus: entries in @cpus
 * @page: one sub-buffer, read into
 */
struct cpubufs {
	struct cpu_reader *cpus;
	int ncpus;
	uint8_t *page;
};

/* called when ingest's id queue is nearly full, in the middle of a drain */
typedef void (*cpubufs_full_fn)(void *ctx);

/* open a reader per CPU of the instance (0, or -errno with @err set) */
int cpubufs_open(struct cpubufs *b, struct source_ctx *s, char *err, size_t errsz);
/* read pages round-robin within @budget into ingest; @full when its queue fills */
int cpubufs_drain(struct cpubufs *b, struct source_ctx *s, struct drain_budget *budget,
		  cpubufs_full_fn full, void *ctx);
/* read per_cpu/cpuN/stats (overrun, dropped events, commit overrun) into ingest */
void cpubufs_read_stats(struct cpubufs *b, struct source_ctx *s);
/*
 * (cpubufs_open() reads them once: the top level's counters run since its
 * buffer was last reset, and what was overwritten before stacktop read
 * anything is not a loss of stacktop's; a counter that falls was reset,
 * and counts again from 0)
 */
/* a reset: the counts since start restart from 0 */
void cpubufs_zero_stats(struct cpubufs *b);
/* the readers' descriptors, for poll() */
int cpubufs_pollfds(const struct cpubufs *b, struct pollfd *fds, int max);
/* close every reader */
void cpubufs_close(struct cpubufs *b);

#endif /* STACKTOP_CPUBUFS_H */
