/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfsamp.h - perf_event_open samples of tracepoints with the user
 * registers and a copy of the user stack, for offline DWARF unwinding
 * (dwunwind.h) and the join to the ftrace records of the same hits
 * (ujoin.h).
 *
 * One PERF_TYPE_TRACEPOINT event per traced event and CPU, every hit
 * sampled (sample_period 1) or one in @period, timestamps on
 * CLOCK_MONOTONIC: the ftrace instance the records come from must use
 * trace_clock "mono" for the two timestamps of a hit to be comparable. The
 * events of a CPU share one ring (PERF_EVENT_IOC_SET_OUTPUT); the first
 * event of each CPU also reports the mappings, exec/comm changes and
 * forks/exits (PERF_RECORD_MMAP2, COMM, FORK, EXIT), so the maps of a
 * process that has exited since are known. Each CPU's ring belongs to a
 * dummy event of its own, so it can be replaced by a larger one while the
 * events run (@ring_max_pages): the events are pointed at the new ring,
 * the old one is read to its end first. Reading is non-blocking and
 * bounded; the descriptors can be polled, so the whole can become a
 * session source (source.h).
 */
#ifndef STACKTOP_PERFSAMP_H
#define STACKTOP_PERFSAMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "kernel/perfsamp_batch.h"

struct pollfd;

/* struct perfsamp_opts.task_flags */
#define PERFSAMP_TASK_INHERIT 1
#define PERFSAMP_TASK_THREADS 2

/**
 * struct perfsamp_opts - what to sample
 * @tracefs: the tracefs mount ("/sys/kernel/tracing" when NULL)
 * @events: "system:event" names, e.g. "syscalls:sys_enter_write"
 * @nevents: how many (at least 1)
 * @pid: sample only this process and its children (inherit), or -1 for
 *	every process
 * @stack_size: user stack bytes copied per sample (multiple of 8, at most
 *	65528; 0: 8192)
 * @ring_pages: data pages of each CPU's ring, a power of two (0: 128)
 * @ring_max_pages: 0, or grow a CPU's ring that lost samples (four times,
 *	up to this many pages, a power of two) while all rings together
 *	stay within @ring_max_total bytes
 * @ring_max_total: the bound of the rings together when they grow (0:
 *	256 MiB)
 * @period: sample one hit in @period of each event on each CPU (of each
 *	thread with @tasks; 0 or 1: every hit)
 * @tasks: sample only these threads (and, with @inherit, what they start),
 *	each on every CPU (the CPU's events share its ring); overrides @pid
 * @ntasks: entries in @tasks (0: use @pid)
 * @inherit: with @tasks, follow the threads and processes they create
 * @task_flags: NULL (@inherit for every task), or per task PERFSAMP_TASK_*:
 *	INHERIT follow what it creates, THREADS only its threads (not the
 *	processes it forks: perf's inherit_thread)
 * @count_tasks: with @chains and no @tasks: the events sample every CPU
 *	(the caller keeps the samples of these threads), and perfsamp_counts()
 *	says the hits of these threads only, counted by events of their own
 *	(each on every CPU, with its PERFSAMP_TASK_* of @count_flags)
 * @count_ntasks: entries in @count_tasks
 * @count_flags: PERFSAMP_TASK_* of each
 * @exclude_self: with @chains, no @tasks and no @count_tasks,
 *	perfsamp_counts() leaves out the hits of the calling process's
 *	threads (counted by events of their own), as the rows leave out its
 *	samples
 * @filters: NULL, or per event a tracepoint filter expression (the
 *	syntax of tracefs's events/SYS/EV/filter) or NULL: only the hits it
 *	passes are sampled
 * @clock_hz: 0: the tracepoints of @events, with the user registers and
 *	stack; else on-CPU sampling instead: one cpu-clock event per CPU
 *	(PERF_COUNT_SW_CPU_CLOCK, a frequency of @clock_hz per CPU), the kernel
 *	call chain of each sample (@events: one name, the samples' event 0)
 * @user_chain: with @clock_hz, the user part of the call chain too (the
 *	kernel's frame-pointer walk), else the kernel part only
 * @user_regs: with @clock_hz, the user registers and @stack_size bytes of
 *	the user stack with each sample too (for dwarf unwinding, as with
 *	tracepoints); the chain is then the kernel part only
 * @max_stack: with @clock_hz or @chains, frames per chain at most (0: 127)
 * @chains: the tracepoints of @events sampled with their call chains
 *	instead of the user registers and stack (--sample: one hit in
 *	@period gets its stack, every hit is counted: perfsamp_counts())
 */
struct perfsamp_opts {
	const char *tracefs;
	const char *const *events;
	int nevents;
	pid_t pid;
	unsigned int stack_size;
	unsigned int ring_pages;
	unsigned int ring_max_pages;
	uint64_t ring_max_total;
	unsigned int period;
	const pid_t *tasks;
	int ntasks;
	bool inherit;
	const uint8_t *task_flags;
	const pid_t *count_tasks;
	int count_ntasks;
	const uint8_t *count_flags;
	bool exclude_self;
	const char *const *filters;
	unsigned int clock_hz;
	bool user_chain;
	bool user_regs;
	unsigned int max_stack;
	bool chains;
};

/**
 * struct perfsamp_sample - one event hit
 * @event: index into perfsamp_opts.events
 * @pid: process id
 * @tid: thread id
 * @cpu: CPU
 * @time: CLOCK_MONOTONIC, ns
 * @abi: PERF_SAMPLE_REGS_ABI_* (0: no user registers, a kernel thread)
 * @regs: the user registers, indexed by enum perf_event_x86_regs
 * @stack: the copied user stack, from regs[PERF_REG_X86_SP] upwards;
 *	valid during the callback only
 * @stack_size: bytes of @stack that hold data (the sample's dyn_size)
 * @chain: the call chain (on-CPU sampling), PERF_CONTEXT_* markers
 *	included; valid during the callback only
 * @nchain: its entries
 * @weight: the hits of the event this sample stands for: 1, or with @chains
 *	(--sample) its raw weight: the hits of its counter since that
 *	counter's last draw (perfsamp_batch_weight(); source/sampest.h makes
 *	the rows add up to the exact count)
 * @census: --sample: the sample a change of period caused, weight 1: not a
 *	random draw (not counted among the samples of the intervals)
 */
struct perfsamp_sample {
	int event;
	uint32_t pid;
	uint32_t tid;
	uint32_t cpu;
	uint64_t time;
	uint64_t abi;
	uint64_t regs[24];
	const uint8_t *stack;
	uint64_t stack_size;
	const uint64_t *chain;
	uint64_t nchain;
	uint64_t weight;
	bool census;
};

/**
 * struct perfsamp_mmap - a file mapped by a process (PERF_RECORD_MMAP2)
 * @pid: process id
 * @tid: thread id
 * @start: first address
 * @len: length
 * @pgoff: file offset
 * @prot: PROT_* bits
 * @dev: the file's device (major << 32 | minor), 0 when not reported
 * @ino: its inode
 * @filename: the path (valid during the callback only, not sanitized)
 * @time: when (0 for mappings of processes that existed before the events
 *	were enabled: those are not reported; read /proc/PID/maps for them)
 */
struct perfsamp_mmap {
	uint32_t pid;
	uint32_t tid;
	uint64_t start;
	uint64_t len;
	uint64_t pgoff;
	uint32_t prot;
	uint64_t dev;
	uint64_t ino;
	const char *filename;
	uint64_t time;
};

/**
 * struct perfsamp_cb - where the records go (every member may be NULL)
 * @sample: an event hit
 * @mmap: a mapping
 * @comm: a thread's name changed; @exec is true when by an exec (the
 *	process's old mappings are gone)
 * @task: a fork (@exit false) or an exit (@exit true) of thread @tid of
 *	process @pid; @ppid is the parent process (a new process: @pid ==
 *	@tid, @ppid the one it was forked from, whose maps it starts with)
 * @lost: @count samples of @cpu were lost (its ring was full) before @time;
 *	0: some after the last sample read, how many unknown (a ring found
 *	full: its LOST record comes at the kernel's next write to it)
 * @ctx: passed to each
 */
struct perfsamp_cb {
	void (*sample)(void *ctx, const struct perfsamp_sample *s);
	void (*mmap)(void *ctx, const struct perfsamp_mmap *m);
	void (*comm)(void *ctx, uint32_t pid, uint32_t tid, const char *comm, bool exec);
	void (*task)(void *ctx, uint32_t pid, uint32_t ppid, uint32_t tid, bool exit,
		     uint64_t time);
	void (*lost)(void *ctx, uint32_t cpu, uint64_t count, uint64_t time);
	void *ctx;
};

/**
 * struct perfsamp_stats - counters since perfsamp_open()
 * @samples: samples read
 * @lost: samples the kernel reported lost
 * @records: records of every kind read
 * @bad: records that could not be parsed (skipped)
 * @filters_refused: event filters the kernel refused (those events are
 *	sampled unfiltered)
 * @ring_bytes: the data bytes of the rings now, all CPUs together
 * @ring_max: the largest ring of one CPU now, bytes
 * @rings: how many CPUs have one
 * @grown: rings replaced by a larger one
 * @grow_failed: growths the kernel refused (memory, perf_event_mlock_kb)
 * @lost_unknown: rings found full: samples lost, how many said later by a
 *	LOST record (the lost callback with @count 0)
 * @throttled: times the kernel throttled an event (PERF_RECORD_THROTTLE:
 *	samples not taken for a while, perf_event_max_sample_rate)
 * @period_samples: --sample: samples the change of period caused (the
 *	kernel samples the next hit): each a census of its one hit, weight 1
 * @batch: --sample: how alike the samples of a batch were (its design
 *	effect: perfsamp_batch_design_effect())
 */
struct perfsamp_stats {
	uint64_t samples;
	uint64_t lost;
	uint64_t records;
	uint64_t bad;
	uint64_t filters_refused;
	uint64_t ring_bytes;
	uint64_t ring_max;
	uint64_t rings;
	uint64_t grown;
	uint64_t grow_failed;
	uint64_t lost_unknown;
	uint64_t throttled;
	uint64_t period_samples;
	struct perfsamp_batch_stats batch;
};

struct perfsamp;

/**
 * perfsamp_open() - open and enable the events
 * @ret: receives the sampler
 * @opts: what to sample
 * @cb: the callbacks (copied)
 * @err: receives a user-facing reason on failure
 * @errsz: its size
 *
 * Return: 0, or -errno (-ENOENT: no such tracepoint; -EACCES/-EPERM: not
 * allowed, see kernel.perf_event_paranoid; -EOPNOTSUPP: the kernel or the
 * CPU cannot sample user registers).
 */
int perfsamp_open(struct perfsamp **ret, const struct perfsamp_opts *opts,
		  const struct perfsamp_cb *cb, char *err, size_t errsz);

/**
 * perfsamp_pollfds() - the descriptors that become readable when a ring
 * has data
 * @p: the sampler
 * @fds: filled with POLLIN entries
 * @max: room in @fds
 *
 * Return: how many were written (one per CPU).
 */
int perfsamp_pollfds(const struct perfsamp *p, struct pollfd *fds, int max);

/**
 * perfsamp_drain() - read what the rings hold, calling the callbacks
 * @p: the sampler
 * @budget: at most this many records (0: no bound)
 * @more: set to true when records were left because of the budget
 *
 * Return: the number of records read, or -errno.
 */
int perfsamp_drain(struct perfsamp *p, unsigned int budget, bool *more);

/**
 * perfsamp_restart_period() - with a period over 1, start each event's count
 * again (PERF_EVENT_IOC_PERIOD): its next hit is sampled, then one in the
 * period. Called now and then, it keeps the hits taken from following a
 * cycle of the workload whose length shares a factor with the period.
 * @p: the sampler
 */
void perfsamp_restart_period(struct perfsamp *p);

/**
 * perfsamp_counts() - every hit of each event so far, sampled or not, as
 *	the kernel counts them (a read() of each descriptor: with tasks, their
 *	threads' and what they started; with @count_tasks theirs; with
 *	@exclude_self, less the calling process's own)
 * @p: the sampler
 * @ret: one count per event of perfsamp_opts.events, summed over the CPUs
 * @n: entries in @ret
 */
void perfsamp_counts(const struct perfsamp *p, uint64_t *ret, int n);

/**
 * perfsamp_stream_counts() - every hit the sampling events saw, each event's
 *	(what the stacks are drawn from: with @count_tasks every CPU's, more
 *	than perfsamp_counts() says)
 * @p: the sampler
 * @ret: one count per event
 * @n: entries in @ret
 */
void perfsamp_stream_counts(const struct perfsamp *p, uint64_t *ret, int n);

/**
 * perfsamp_randomize_period() - each event's next sample after a period
 *	drawn uniformly from [@mean / 2, 3 * @mean / 2] (its mean @mean), so
 *	that the samples do not lock onto periodic code (three call sites in
 *	a fixed order, sampled with a fixed period, alias); from then on a new
 *	one after each drain that read samples of the event (perfsamp_batch.c).
 *	Nothing when @mean is the one in force.
 * @p: the sampler
 * @mean: the mean period (at least 2)
 */
void perfsamp_randomize_period(struct perfsamp *p, unsigned int mean);

/**
 * struct perfsamp_cal - what a kernel stack costs the task it is taken in
 * @stack_ns: a sample with its kernel call chain, less counting the hit
 * @count_ns: a rename of the thread to its own name, counted by perf (the
 *	      calibration's own call: task:task_rename)
 * @depth: kernel frames of the calibration's chain (a stack of @depth
 *         frames costs @stack_ns; deeper ones more)
 */
struct perfsamp_cal {
	double stack_ns;
	double count_ns;
	unsigned int depth;
};

/**
 * perfsamp_calibrate() - measure @ret on this machine, now (--overhead): a
 *	tracepoint (task:task_rename: prctl(PR_SET_NAME) to the thread's own
 *	name) of this thread only, counted, then sampled with its kernel call
 *	chain at every hit, CAL_CALLS calls each, the fastest of three
 *	alternating rounds of each kept; ~0.1 s
 * @tracefs: where the event's id is read (NULL: /sys/kernel/tracing)
 * @ret: filled
 *
 * Return: 0, or negative errno (no syscalls:sys_enter_getppid, perf refused).
 */
int perfsamp_calibrate(const char *tracefs, struct perfsamp_cal *ret);

/**
 * perfsamp_stats() - the counters
 * @p: the sampler
 * @st: filled
 */
void perfsamp_stats(const struct perfsamp *p, struct perfsamp_stats *st);

/**
 * perfsamp_close() - disable and close the events, unmap the rings
 * @p: the sampler, or NULL
 */
void perfsamp_close(struct perfsamp *p);

#endif /* STACKTOP_PERFSAMP_H */
