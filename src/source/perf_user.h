/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf_user.h - the dwarf user-stack source (src/source/perf_user*.c): the
 * session's events sampled through perfsamp, each sample unwound at once
 * (its stack copy lives only in the perf ring) with dwunwind, the result
 * handed to a callback - which feeds ujoin_add_sample() in the session.
 *
 * session_open() adds it for --user=dwarf with src->priv NULL: the source
 * then wires itself (perf_user_join.c; its files in perf_user_priv.h):
 * the per-process maps from perf's MMAP2/COMM/FORK/EXIT records and
 * /proc/PID/maps, the held kernel stacks from ingest
 * (ingest_set_user_hold()), the join (ujoin.h) and the counting
 * (ingest_count_held()); the session sets the instance's trace_clock to
 * "mono". Another user (a bench, a test) may instead set
 * src->priv = perf_user_priv(&cfg) before open and get the unwound samples
 * through its own callbacks.
 */
#ifndef STACKTOP_PERF_USER_H
#define STACKTOP_PERF_USER_H

#include <stddef.h>
#include <stdint.h>

#include "sym/dwunwind.h"
#include "kernel/perfsamp.h"
#include "core/ujoin.h"

#define PERF_USER_MAX_FRAMES 128

/**
 * struct perf_user_stack - one sample after unwinding
 * @key: CPU, tid and the session's event index (the ujoin key)
 * @pid: process id (the maps' tgid)
 * @time: CLOCK_MONOTONIC, ns
 * @ips: user frames, innermost first (see dwunwind_stack())
 * @n: how many (0 when @why is not UJOIN_OK)
 * @end: why the frames end there
 * @refusal: with @end DWUNWIND_END_REFUSED, why (enum cfi_verdict)
 * @why: UJOIN_OK, UJOIN_NO_MAPS or UJOIN_UNWIND_FAILED
 */
struct perf_user_stack {
	struct ujoin_key key;
	uint32_t pid;
	uint64_t time;
	const uint64_t *ips;
	int n;
	enum dwunwind_end end;
	int refusal;
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
