// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * perf_user.c - the dwarf user-stack source (see perf_user.h): perfsamp
 * on the session's events, every sample unwound while its stack copy is in
 * the ring, the frames handed to a callback. This file is the sample
 * path; perf_user_priv.h lists the others: the processes' maps, the
 * wiring to the session (when the session opens it with src->priv NULL)
 * and the source's operations.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <asm/perf_regs.h>

#include "core/log.h"
#include "ingest/ingest.h"
#include "source/perf_user_priv.h"

void *perf_user_priv(const struct perf_user_cfg *cfg)
{
	struct perf_user *pu = calloc(1, sizeof(*pu));

	if (pu)
		pu->cfg = *cfg;
	return pu;
}

size_t perf_user_unwinder_memory(const struct perf_user *pu)
{
	size_t b = 0;
	unsigned int i;

	if (!pu)
		return 0;
	for (i = 0; i < pu->nvdsos; i++)
		b += pu->vdsos[i].len;
	if (pu->g)
		b += pu->g->maps_bytes; /* the processes' maps (perf_user_maps.c) */
	return b + (pu->uw ? dwunwind_memory(pu->uw) : 0);
}

size_t perf_user_memory(const struct source *src)
{
	return perf_user_unwinder_memory(src->priv);
}

void pu_sample(void *ctx, const struct perfsamp_sample *s)
{
	struct perf_user *pu = ctx;
	struct perf_user_stack st = {
		.key = { .cpu = s->cpu, .tid = s->tid, .event = (uint32_t)s->event },
		.pid = s->pid,
		.time = s->time,
		.ips = pu->ips,
		.sample = s,
	};
	struct dwunwind_sample in = {
		.regs = s->regs,
		.stack = s->stack,
		.stack_size = s->stack_size,
		.pid = s->pid,
	};
	int n = -EINVAL;

	/* not unwound for nothing: `u` off, -p/--tid, stacktop's own writes */
	if (pu->g && (!pu->g->on || !ingest_wants(pu->g->s->ing, (int)s->pid, (int)s->tid))) {
		pu->skipped++;
		return;
	}
	if (!s->abi) {
		/* a kernel thread: no user part, its stack is the kernel one */
		st.why = UJOIN_OK;
		pu->unwound++;
		if (pu->cfg.on_stack)
			pu->cfg.on_stack(pu->cfg.ctx, &st);
		return;
	}
	if (s->stack_size && pu->cfg.maps_for)
		in.nmaps = pu->cfg.maps_for(pu->cfg.ctx, s->pid, &in.maps, &in.maps_id);
	if (in.nmaps)
		n = dwunwind_stack(pu->uw, &in, pu->ips, PERF_USER_MAX_FRAMES, &st.end);
	/*
	 * Each CPU's ring holds the MMAP2, COMM and FORK records of what
	 * happened there: the maps of a process that moved may be in a ring not
	 * read yet. The sample waits for the end of the drain (a copy: the
	 * ring's bytes are given back).
	 */
	if ((!in.nmaps || n == -ENOENT) && s->stack_size && pu->g && !pu->retrying &&
	    pu->ndefer < PU_DEFER_MAX) {
		struct pu_defer *d = &pu->defer[pu->ndefer];
		/* --oncpu: the kernel chain comes with the sample, after the stack */
		size_t at = (s->stack_size + 7) & ~(size_t)7;

		d->stack = malloc(at + s->nchain * sizeof(uint64_t));
		if (d->stack) {
			memcpy(d->stack, s->stack, s->stack_size);
			d->s = *s;
			d->s.stack = d->stack;
			if (s->nchain) {
				memcpy(d->stack + at, s->chain, s->nchain * sizeof(uint64_t));
				d->s.chain = (const uint64_t *)(const void *)(d->stack + at);
			}
			pu->ndefer++;
			/* its record waits for it: newer samples of its key come first */
			if (pu->g->join)
				ujoin_hold(pu->g->join, s->time);
			return;
		}
	}
	/*
	 * --oncpu: the sampled instruction in no file the process maps (JIT
	 * code: node, a JVM) of a process whose maps are known: that frame
	 * alone, named by its perf map, as perf shows it; the walk cannot go
	 * on from code with no unwind table
	 */
	if (n == -ENOENT && in.nmaps && pu->to) {
		pu->ips[0] = s->regs[PERF_REG_X86_IP];
		st.end = DWUNWIND_END_NOINFO;
		n = 1;
	}
	if (n > 0 && st.end == DWUNWIND_END_REFUSED)
		st.refusal = dwunwind_refusal(pu->uw);
	if (n > 0) {
		st.n = n;
		st.why = UJOIN_OK;
		pu->unwound++;
	} else if (!in.nmaps || n == -ENOENT) {
		st.why = UJOIN_NO_MAPS;
		pu->nomaps++;
		log_debug("user stacks: no maps for pid %u tid %u ip %#llx (%zu maps)", s->pid,
			  s->tid, (unsigned long long)s->regs[PERF_REG_X86_IP], in.nmaps);
	} else {
		st.why = UJOIN_UNWIND_FAILED;
		pu->failed++;
	}
	if (pu->cfg.on_stack)
		pu->cfg.on_stack(pu->cfg.ctx, &st);
}

void pu_retry(struct perf_user *pu)
{
	unsigned int i;

	pu->retrying = true;
	for (i = 0; i < pu->ndefer; i++) {
		pu_sample(pu, &pu->defer[i].s);
		free(pu->defer[i].stack);
	}
	pu->ndefer = 0;
	pu->retrying = false;
	if (pu->g && pu->g->join)
		ujoin_release(pu->g->join);
}
