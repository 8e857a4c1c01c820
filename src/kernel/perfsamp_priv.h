/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfsamp_priv.h - what the files of the sampler share (perfsamp.h is its
 * interface): the sampler's state, its rings. perfsamp.c (the rings, the
 * records read, the drain) is the bottom; perfsamp_open.c (the events
 * opened and closed) uses it.
 */
#ifndef STACKTOP_PERFSAMP_PRIV_H
#define STACKTOP_PERFSAMP_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/perf_event.h>

#include "kernel/perfsamp.h"

#define SAMPLE_TYPE                                                                                \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |           \
	 PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)

/* on-CPU sampling: the kernel (and user) call chain, no registers or stack */
#define CLOCK_SAMPLE_TYPE                                                                          \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |           \
	 PERF_SAMPLE_CALLCHAIN)

#define RING_MAX_TOTAL (256ULL << 20)	      /* the rings together when they grow */
#define RING_RETIRE_NS (200ULL * 1000 * 1000) /* an old ring kept empty this long goes */

struct ring {
	int fd;	  /* the event whose mapping it is */
	bool own; /* @fd is a dummy event: the ring can be replaced */
	struct perf_event_mmap_page *meta;
	uint8_t *data;
	uint64_t size; /* data bytes, a power of two */
	size_t mmap_len;
};

struct pcpu {
	int cpu;
	struct ring r;
	struct ring old;   /* replaced, read to its end (fd -1: none) */
	uint64_t switched; /* when @old was replaced (CLOCK_MONOTONIC ns) */
	bool full;	   /* found full, not read to its end since */
	bool lost;	   /* a LOST record in this read */
	bool hup;	   /* hung up (its tasks exited): read, never polled */
};

struct pevent {
	uint64_t id;
	int event;
	int fd;
	int pc;	  /* its CPU's index in cpus[] */
	int task; /* the thread it was opened on, -1: every task of its CPU */

	struct perfsamp_batch_ev b; /* --sample: its period's batch */
};

struct perfsamp {
	struct perfsamp_cb cb;
	struct pcpu *cpus;
	int ncpus;
	struct pevent *evs; /* every fd, for the id -> event lookup */
	/*
	 * @count_tasks and @exclude_self: counting-only events of threads
	 * (every CPU): their hits are the count (@count_tasks), or come out of
	 * it (@exclude_self, @minus)
	 */
	struct counter {
		int fd;
		int event;
		bool minus;
	} * counters;
	int ncounters;
	int nevs;
	long page;
	unsigned int max_pages; /* grow up to this (0: never) */
	uint64_t max_total;
	unsigned int period;
	uint64_t sample_type;	     /* SAMPLE_TYPE, or CLOCK_SAMPLE_TYPE (on-CPU) */
	unsigned int clock_hz;	     /* on-CPU: the cpu-clock's frequency (0: tracepoints) */
	bool user_chain;	     /* on-CPU: the user part of the chains too */
	unsigned int max_stack;	     /* on-CPU: frames per chain */
	bool chains;		     /* tracepoints sampled with their call chains (--sample) */
	struct perfsamp_batch batch; /* --sample: the random periods (mean 0: fixed) */
	int rot;		     /* the CPU a drain starts at: where the last one was cut */
	uint64_t full_room;	     /* a ring with less room than this was full: samples lost */
	uint8_t bounce[65536];
	struct perfsamp_stats st;
};

/* perfsamp.c: perf_event_open(2) */
int perfsamp_sys_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group,
		      unsigned long flags);
/* perfsamp.c: map @pages data pages of event @fd's ring; 0 or -errno */
int perfsamp_ring_map(struct ring *r, int fd, unsigned int pages, long page);
/* perfsamp.c: a ring of its own for CPU @cpu (a dummy event's); 0 or -errno */
int perfsamp_ring_open(struct ring *r, int cpu, unsigned int pages, long page);
/* perfsamp.c: unmap @r (and close its dummy event) */
void perfsamp_ring_close(struct ring *r);

#endif /* STACKTOP_PERFSAMP_PRIV_H */
