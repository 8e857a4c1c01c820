/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stack_mem.h - the stack table's memory: its limit, its counters, and the
 * folding of exited processes' records (--max-memory).
 */
#ifndef STACKTOP_STACK_MEM_H
#define STACKTOP_STACK_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct stack_table;

/**
 * stack_table_memory() - bytes held by the table (stacks, records, hashes)
 * @t: table
 */
size_t stack_table_memory(const struct stack_table *t);

/**
 * struct stack_mem - what the table holds against its memory limit
 * @bytes: bytes held (stack_table_memory())
 * @free_bytes: of which free records, reused before anything new is taken
 * @limit: the limit (0: none)
 * @folded: breakdown records of exited pids folded into their comm
 * @over_stacks: new stacks refused because of the limit (their hits go to
 *               the STACK_F_OVER stack)
 * @over_hits: hits counted on a stack but without their (event, cpu, pid)
 *             breakdown, or on the STACK_F_OVER stack
 * @trend_bytes: of @bytes, the slots of the recent interval counts
 * @trend_slots: slots in use (stacks hit in the last STACK_TREND intervals)
 * @trend_refused: stacks the limit refused a slot
 */
struct stack_mem {
	size_t bytes;
	size_t free_bytes;
	size_t limit;
	uint64_t folded;
	uint64_t over_stacks;
	uint64_t over_hits;
	size_t trend_bytes;
	size_t trend_slots;
	uint64_t trend_refused;
};

/**
 * stack_table_set_limit() - bound the memory the table holds
 * @t: table
 * @bytes: the limit; 0 for none
 *
 * Near the limit the owner folds the records of exited pids
 * (stack_table_fold()). At the limit nothing new is allocated: a new stack
 * counts on the one STACK_F_OVER stack, a new (event, cpu, pid) of a known
 * stack on its STACK_PID_OVER record (from a small reserve) or, with that
 * gone too, only on the stack. Totals are never lost.
 */
void stack_table_set_limit(struct stack_table *t, size_t bytes);

/**
 * stack_table_mem() - memory counters
 * @t: table
 * @ret: filled
 */
void stack_table_mem(const struct stack_table *t, struct stack_mem *ret);

/**
 * stack_table_fold() - fold the breakdown records of exited processes into
 * one record per (stack, event, cpu, comm)
 * @t: table
 * @exited: called once per pid > 0 seen in a record; returns true when the
 *          process is gone, with its command name (NUL-terminated, at most
 *          15 characters) in @comm
 * @ctx: passed to @exited
 *
 * The folded records keep their counts (total and interval); their pid
 * becomes STACK_PID_FOLDED or below, named by stack_table_folded_comm().
 * Records freed by the fold are reused before new memory is taken.
 *
 * Return: records of exited pids folded, or -ENOMEM (what was folded
 * before memory ran out stays folded; no count is lost).
 */
long stack_table_fold(struct stack_table *t, bool (*exited)(void *ctx, int pid, char *comm),
		      void *ctx);

/**
 * stack_table_folded_comm() - the command a folded pid stands for
 * @t: table
 * @pid: a pid for which stack_pid_folded() is true
 *
 * Return: the name (owned by @t), NULL when @pid is not a folded pid.
 */
const char *stack_table_folded_comm(const struct stack_table *t, int pid);

#endif /* STACKTOP_STACK_MEM_H */
