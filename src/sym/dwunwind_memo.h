/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dwunwind_memo.h - the walks dwunwind.c keeps for replay (dwunwind_memo.c).
 * Not for other modules: dwunwind.h is the interface.
 *
 * A walk is a function of what the accessors answered: the unwind tables
 * (the same for one maps_id), the registers and the stack words libunwind
 * read. Each walk of a sample with a maps_id logs the registers and stack
 * words it read (by their offset from the stack pointer, dw_memo_log());
 * the next sample with the same maps_id, IP, stack pointer and copy size
 * whose registers and words at those offsets hold the same values gets the
 * same frames without a walk (dw_memo_replay()).
 */
#ifndef STACKTOP_DWUNWIND_MEMO_H
#define STACKTOP_DWUNWIND_MEMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DW_MEMO_SLOTS 512 /* walks kept for replay, by maps_id, IP, SP */
#define DW_MEMO_READS 256 /* a walk that reads more is not kept */

/* what a sample gives the memo: struct dwunwind_sample's members (dwunwind.h) */
struct dw_memo_in {
	uint64_t maps_id;
	const uint64_t *regs; /* indexed by enum perf_event_x86_regs */
	const uint8_t *stack;
	size_t stack_size;
};

/* one value a walk read: a stack word (@off >= 0 from the SP) or register -1 - @off */
struct dw_mread {
	uint64_t val;
	int32_t off;
};

/* a walk kept: its key, what it read, the frames it gave */
struct dw_memo {
	uint64_t maps_id, ip, sp;
	uint64_t stack_size;
	uint32_t max; /* the room it had: the depth limit is part of the result */
	uint32_t nreads;
	uint32_t n;
	uint8_t end;
	struct dw_mread *reads; /* nreads, then n frames as uint64_t */
};

/*
 * struct dw_memos - the walks kept, and the log of the current one
 * @slot: the walks, one per hash of (maps_id, IP, SP)
 * @bytes: what they hold
 * @log: the registers and stack words the current walk read
 * @nlog: how many
 * @log_full: it read more than DW_MEMO_READS: not kept
 */
struct dw_memos {
	struct dw_memo slot[DW_MEMO_SLOTS];
	size_t bytes;
	struct dw_mread log[DW_MEMO_READS];
	uint32_t nlog;
	bool log_full;
};

/* a new walk starts: its log empty */
static inline void dw_memo_start(struct dw_memos *ms)
{
	ms->nlog = 0;
	ms->log_full = false;
}

/* a register or stack word the walk read (the stack sizes are below 64 KiB) */
static inline void dw_memo_log(struct dw_memos *ms, int32_t off, uint64_t val)
{
	if (ms->nlog == DW_MEMO_READS) {
		ms->log_full = true;
		return;
	}
	ms->log[ms->nlog].off = off;
	ms->log[ms->nlog].val = val;
	ms->nlog++;
}

/* the frames of a kept walk that read the same as @s would (*@end: its
 * enum dwunwind_end), or -1 */
int dw_memo_replay(struct dw_memos *ms, const struct dw_memo_in *s, uint64_t *ips, unsigned int max,
		   int *end);
/* keep the walk just made (what it read is in the log) */
void dw_memo_keep(struct dw_memos *ms, const struct dw_memo_in *s, const uint64_t *ips, int n,
		  unsigned int max, int end);
/* how far up the stack the walk just made read: a used[] bucket of dwunwind_stats, -1: unknown */
int dw_memo_used(const struct dw_memos *ms);
/* every walk kept dropped */
void dw_memo_drop(struct dw_memos *ms);

#endif /* STACKTOP_DWUNWIND_MEMO_H */
