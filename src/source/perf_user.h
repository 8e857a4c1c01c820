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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sym/dwunwind.h"
#include "kernel/perfsamp.h"
#include "core/ujoin.h"

#define PERF_USER_MAX_FRAMES 128
#define PERF_USER_MAX_TOKENS 512 /* a sample's user tokens: frames and their inlined calls */

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
 * @sample: the sample unwound (its kernel chain, its weight), valid during
 *	the call: perf's, or the copy of a sample that waited for its maps
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
	const struct perfsamp_sample *sample;
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

struct perf_user;
struct source_ctx;

/**
 * perf_user_unwinder_new() - the dwarf source's sample path for a source
 *	that reads perf's samples itself (--oncpu: cpu-clock samples with the
 *	user registers and stack): the processes' maps kept from perf's records
 *	and /proc, the unwinder and its budgets, the samples that wait for
 *	their maps; no join (each sample has its kernel chain)
 * @s: the session's context (its --max-memory share: an eighth for the
 *	unwind tables, an eighth for the maps, as the dwarf source's)
 * @on_stack: receives each sample once unwound (at once, or at
 *	perf_user_drained() when its maps were not in yet)
 * @ctx: passed to @on_stack
 *
 * The caller's perfsamp callbacks hand every record on: perf_user_sample(),
 * perf_user_mmap(), perf_user_comm(), perf_user_task(); after the events
 * are open, perf_user_started(); after each drain, perf_user_drained(); each
 * refresh, perf_user_tick().
 *
 * Return: the unwinder (perf_user_unwinder_free()), or NULL (ENOMEM).
 */
struct perf_user *
perf_user_unwinder_new(struct source_ctx *s,
		       void (*on_stack)(void *ctx, const struct perf_user_stack *st), void *ctx);

/**
 * perf_user_started() - the events are open: the processes running already
 *	get their maps now (perf reports only what is mapped from here on)
 * @pu: the unwinder
 */
void perf_user_started(struct perf_user *pu);

/**
 * perf_user_sample() - a sample with the user registers and stack, to unwind
 * @pu: the unwinder
 * @smp: the sample (copied if it must wait)
 */
void perf_user_sample(struct perf_user *pu, const struct perfsamp_sample *smp);

/**
 * perf_user_mmap() - perf's MMAP2 record, for the process's maps
 * @pu: the unwinder
 * @m: the mapping
 */
void perf_user_mmap(struct perf_user *pu, const struct perfsamp_mmap *m);

/**
 * perf_user_comm() - perf's COMM record (an exec starts the maps again)
 * @pu: the unwinder
 * @pid: process
 * @tid: thread
 * @comm: its name
 * @exec: by an exec
 */
void perf_user_comm(struct perf_user *pu, uint32_t pid, uint32_t tid, const char *comm, bool exec);

/**
 * perf_user_task() - perf's FORK or EXIT record
 * @pu: the unwinder
 * @pid: process
 * @ppid: its parent
 * @tid: thread
 * @exit: an exit (else a fork)
 * @time: when
 */
void perf_user_task(struct perf_user *pu, uint32_t pid, uint32_t ppid, uint32_t tid, bool exit,
		    uint64_t time);

/**
 * perf_user_drained() - every ring was read: the samples that waited for
 *	their maps are unwound now (or given up: UJOIN_NO_MAPS)
 * @pu: the unwinder
 */
void perf_user_drained(struct perf_user *pu);

/**
 * perf_user_tick() - a refresh: the maps of processes gone a while dropped
 * @pu: the unwinder
 */
void perf_user_tick(struct perf_user *pu);

/**
 * perf_user_tokens() - an unwound sample's frames as user tokens (usym.h):
 *	the frames interned, each after the calls inlined there, and a cut
 *	mark when the walk stopped short
 * @pu: the unwinder
 * @st: the sample, @why UJOIN_OK
 * @toks: receives the tokens, leaf first
 * @max: room in @toks (PERF_USER_MAX_TOKENS takes every one with its inlined calls)
 *
 * Return: how many (0: none could be interned).
 */
unsigned int perf_user_tokens(struct perf_user *pu, const struct perf_user_stack *st,
			      uint64_t *toks, unsigned int max);

/**
 * perf_user_unwinder_memory() - bytes of unwind tables, maps and vdso copies
 * @pu: the unwinder, or NULL
 */
size_t perf_user_unwinder_memory(const struct perf_user *pu);

/**
 * perf_user_unwinder_free() - everything perf_user_unwinder_new() made
 * @pu: the unwinder, or NULL
 */
void perf_user_unwinder_free(struct perf_user *pu);

#endif /* STACKTOP_PERF_USER_H */
