// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * dwunwind_memo.c - the walks kept for replay (see dwunwind_memo.h).
 * Samples of a tracepoint are taken at a few system-call sites, and a
 * thread in a loop makes its calls from the same stack depth, with the
 * same return addresses: most samples are replays, and a replay is a few
 * dozen compares instead of libunwind's walk (with two sigprocmask calls a
 * frame, libunwind's lock_acquire()).
 */
#include <stdlib.h>
#include <string.h>

#include <asm/perf_regs.h>

#include "sym/dwunwind_memo.h"

static struct dw_memo *memo_slot(struct dw_memos *ms, const struct dw_memo_in *s)
{
	uint64_t h = s->maps_id * 0x9e3779b97f4a7c15ULL;

	h ^= s->regs[PERF_REG_X86_IP] * 0xff51afd7ed558ccdULL;
	h ^= s->regs[PERF_REG_X86_SP] * 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 29;
	return &ms->slot[h % DW_MEMO_SLOTS];
}

int dw_memo_replay(struct dw_memos *ms, const struct dw_memo_in *s, uint64_t *ips, unsigned int max,
		   int *end)
{
	const struct dw_memo *m = memo_slot(ms, s);
	uint32_t i;

	if (!m->reads || m->maps_id != s->maps_id || m->ip != s->regs[PERF_REG_X86_IP] ||
	    m->sp != s->regs[PERF_REG_X86_SP] || m->stack_size != s->stack_size || m->max != max)
		return -1;
	for (i = 0; i < m->nreads; i++) {
		const struct dw_mread *r = &m->reads[i];
		uint64_t v;

		if (r->off < 0)
			v = s->regs[-1 - r->off];
		else
			memcpy(&v, s->stack + r->off, sizeof(v)); /* it was read: in the copy */
		if (v != r->val)
			return -1;
	}
	memcpy(ips, m->reads + m->nreads, m->n * sizeof(*ips));
	*end = m->end;
	return (int)m->n;
}

void dw_memo_keep(struct dw_memos *ms, const struct dw_memo_in *s, const uint64_t *ips, int n,
		  unsigned int max, int end)
{
	struct dw_memo *m = memo_slot(ms, s);
	size_t sz = ms->nlog * sizeof(struct dw_mread) + (size_t)n * sizeof(uint64_t);
	struct dw_mread *r;

	if (ms->log_full || n < 1)
		return;
	r = malloc(sz);
	if (!r)
		return;
	if (m->reads)
		ms->bytes -= m->nreads * sizeof(struct dw_mread) + m->n * sizeof(uint64_t);
	free(m->reads);
	memcpy(r, ms->log, ms->nlog * sizeof(*r));
	memcpy(r + ms->nlog, ips, (size_t)n * sizeof(*ips));
	m->reads = r;
	m->maps_id = s->maps_id;
	m->ip = s->regs[PERF_REG_X86_IP];
	m->sp = s->regs[PERF_REG_X86_SP];
	m->stack_size = s->stack_size;
	m->max = max;
	m->nreads = ms->nlog;
	m->n = (uint32_t)n;
	m->end = (uint8_t)end;
	ms->bytes += sz;
}

int dw_memo_used(const struct dw_memos *ms)
{
	int32_t top = 0;
	int b = 0;
	uint32_t i;

	if (ms->log_full)
		return -1;
	for (i = 0; i < ms->nlog; i++)
		if (ms->log[i].off + 8 > top)
			top = ms->log[i].off + 8;
	while (b < 7 && top > (512 << b))
		b++;
	return b;
}

void dw_memo_drop(struct dw_memos *ms)
{
	int i;

	for (i = 0; i < DW_MEMO_SLOTS; i++) {
		free(ms->slot[i].reads);
		ms->slot[i].reads = NULL;
	}
	ms->bytes = 0;
}
