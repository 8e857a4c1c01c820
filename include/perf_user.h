/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf_user.h - the dwarf user-stack source (src/source/perf_user.c): the
 * session's events sampled through perfsamp, each sample unwound at once
 * (its stack copy lives only in the perf ring) with dwunwind, the result
 * handed to a callback - which feeds ujoin_add_sample() in the session.
 *
 * Not registered in session_open() yet. To wire it, the integrator:
 *  - sets the instance's trace_clock to "mono" (perf's timestamps are
 *    CLOCK_MONOTONIC; ujoin compares the two);
 *  - fills a struct perf_user_cfg, sets src->priv = perf_user_priv(&cfg)
 *    and adds the source with source_perf_user_ops (close frees it);
 *  - gives maps_for (the symbolizer's per-tgid table, kept current from
 *    the mmap/comm callbacks or /proc/PID/maps) and on_stack;
 *  - adds each ftrace record of an event that wants a user stack with
 *    ujoin_add_record() and calls ujoin_advance() every tick.
 */
#ifndef STACKTOP_PERF_USER_H
#define STACKTOP_PERF_USER_H

#include <stddef.h>
#include <stdint.h>

#include "dwunwind.h"
#include "perfsamp.h"
#include "ujoin.h"

#define PERF_USER_MAX_FRAMES 128

/**
 * struct perf_user_stack - one sample after unwinding
 * @key: CPU, tid and the session's event index (the ujoin key)
 * @pid: process id (the maps' tgid)
 * @time: CLOCK_MONOTONIC, ns
 * @ips: user frames, innermost first (see dwunwind_stack())
 * @n: how many (0 when @why is not UJOIN_OK)
 * @end: why the frames end there
 * @why: UJOIN_OK, UJOIN_NO_MAPS or UJOIN_UNWIND_FAILED
 */
struct perf_user_stack {
	struct ujoin_key key;
	uint32_t pid;
	uint64_t time;
	const uint64_t *ips;
	int n;
	enum dwunwind_end end;
	enum ujoin_why why;
};

/**
 * struct perf_user_cfg - what the source needs from the integrator
 * @pid: sample only this process (and children), or -1
 * @stack_size: bytes of user stack per sample (0: 8192)
 * @maps_for: the mapping table of process @pid, sorted (struct umap), and
 *	its identity for dwunwind's cache (struct dwunwind_sample.maps_id; 0:
 *	do not cache); return 0 entries when unknown
 * @on_stack: receives each unwound sample (valid during the call)
 * @perf: perfsamp's callbacks for mmap, comm, task and lost records
 *	(its sample member is ignored)
 * @ctx: passed to @maps_for and @on_stack
 */
struct perf_user_cfg {
	int pid;
	unsigned int stack_size;
	size_t (*maps_for)(void *ctx, uint32_t pid, const struct umap **ret, uint64_t *id);
	void (*on_stack)(void *ctx, const struct perf_user_stack *st);
	struct perfsamp_cb perf;
	void *ctx;
};

/**
 * perf_user_priv() - the source's state, for src->priv before open
 * @cfg: the configuration (copied)
 *
 * Return: the state, or NULL (ENOMEM).
 */
void *perf_user_priv(const struct perf_user_cfg *cfg);

#endif /* STACKTOP_PERF_USER_H */
