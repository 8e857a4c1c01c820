/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stack.h - one unique kernel stack and its per (event, cpu, pid) records,
 * as the stack table (core/stack_table.h) interns and counts them.
 */
#ifndef STACKTOP_STACK_H
#define STACKTOP_STACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define STACK_MAX_DEPTH 1024 /* deeper stacks are cut and flagged */
#define STACK_MAX_IDS	2    /* kernel ids kept inline per stack */

/*
 * The one frame of a stack that stands for a kernel stack id no map
 * resolved (a replay without its stack map): no kernel text lives at a
 * user-space address, so it never collides with a real frame; fmt_frame()
 * prints it as "[unresolved stack_id N]".
 */
#define STACK_IP_UNRESOLVED_BASE   0x0000bad500000000ULL
#define STACK_IP_UNRESOLVED(id)	   (STACK_IP_UNRESOLVED_BASE | (uint32_t)(id))
#define STACK_IP_IS_UNRESOLVED(ip) (((ip) >> 32) == (STACK_IP_UNRESOLVED_BASE >> 32))
/*
 * The frame the kernel's map writes for an ftrace trampoline (stackmap
 * v4's FTRACE_TRAMPOLINE_MARKER, kernel/stackmap.h's STACKMAP_TRAMPOLINE);
 * fmt_frame() prints it as "[FTRACE TRAMPOLINE]".
 */
#define STACK_IP_TRAMPOLINE 0x7fffffffULL
/* an on-CPU sample taken while the CPU ran user code, without -u: a row of its own */
#define STACK_IP_USER_MODE 0x7ffffffeULL
/*
 * The one frame of the row that holds the hits of the stacks a snapshot
 * left out (one written with --top before snapshots held every stack):
 * read back, its shares stay those of the whole interval
 */
#define STACK_IP_LEFT_OUT 0x7ffffffdULL
/*
 * A frame that stands for a command (sym/pname.h): the root of a
 * [user space] row of --oncpu without -u, one per command. Like
 * STACK_IP_UNRESOLVED, a user-space address no kernel frame can be.
 */
#define STACK_IP_COMM_BASE   0x0000c03300000000ULL
#define STACK_IP_COMM(id)    (STACK_IP_COMM_BASE | (uint32_t)(id))
#define STACK_IP_IS_COMM(ip) (((ip) >> 32) == (STACK_IP_COMM_BASE >> 32))

enum stack_flags {
	STACK_F_MAPPED = 1 << 0,   /* seen through a kernel stack_id */
	STACK_F_FALLBACK = 1 << 1, /* seen as a full kernel_stack record */
	STACK_F_CUT = 1 << 2,	   /* deeper than STACK_MAX_DEPTH, cut */
	STACK_F_MERGED64 = 1 << 3, /* 64 frames from a pre-v4 map: may merge stacks */
	STACK_F_MOREIDS = 1 << 4,  /* seen under more ids than kept inline */
	STACK_F_OVER = 1 << 5,	   /* no frames: the hits of stacks refused by the memory limit */
	STACK_F_NOTREND = 1 << 6,  /* its recent interval counts were refused by the memory limit */
	STACK_F_WHOLE = 1 << 7,	   /* --oncpu=tick: no interrupt entry frame to cut at */
};

/*
 * Breakdown records with a pid below 0 are not one process:
 *   -1                    no process (a hit from a saved stack map)
 *   STACK_PID_OVER        pids not kept: over the memory limit
 *   <= STACK_PID_FOLDED   processes that exited, folded into their comm
 *                         (stack_table_fold(); stack_table_folded_comm())
 */
#define STACK_PID_OVER	 (-2)
#define STACK_PID_FOLDED (-3)

/**
 * stack_pid_folded() - whether a record's pid stands for exited processes
 * folded into their comm
 * @pid: stack_attr.pid
 */
static inline bool stack_pid_folded(int pid)
{
	return pid <= STACK_PID_FOLDED;
}

struct stack_attr;

/**
 * struct stack - one unique kernel stack
 * @attrs: breakdown records, newest first
 * @total: hits since start or the last reset
 * @cur: hits in interval @epoch
 * @last: hits in interval @epoch - 1
 * @epoch: interval @cur belongs to
 * @hash: hash of @ips
 * @depth: frames in @ips
 * @nids: kernel ids in @ids
 * @flags: enum stack_flags
 * @ids: kernel stack ids this stack was seen under (stackmap mode)
 * @trend: its slot of recent interval counts + 1, 0 for none (the table's;
 *         it sits in what was padding: the stack is no larger)
 * @ips: frames, leaf first
 */
struct stack {
	struct stack_attr *attrs;
	uint64_t total;
	uint64_t cur;
	uint64_t last;
	uint32_t epoch;
	uint32_t hash;
	uint16_t depth;
	uint8_t nids;
	uint8_t flags;
	uint32_t ids[STACK_MAX_IDS];
	uint32_t trend;
	uint64_t ips[];
};

/**
 * struct stack_attr - hits of one stack for one (event, cpu, pid)
 * @next: next record of the same stack
 * @stack: owner
 * @total: hits since start or reset
 * @cur: hits in interval @epoch
 * @last: hits in interval @epoch - 1
 * @epoch: interval @cur belongs to
 * @event: event index (see session_event())
 * @cpu: CPU the event was recorded on
 * @pid: the event's common_pid
 * @origin: where the hits came from: 0 for a live kernel or one file, else
 *          the index of the file among several read together (see
 *          session_origin())
 */
struct stack_attr {
	struct stack_attr *next;
	struct stack *stack;
	uint64_t total;
	uint64_t cur;
	uint64_t last;
	uint32_t epoch;
	uint16_t event;
	uint16_t cpu;
	int32_t pid;
	uint16_t origin;
};

#endif /* STACKTOP_STACK_H */
