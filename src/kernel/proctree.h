/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * proctree.h - the processes descended from one (stacktop -- CMD: the
 * command's process tree), followed as they start.
 *
 * The kernel's pid filter (set_event_pid with options/event-fork) keeps a
 * private instance to the tree, but lets through the records of tasks
 * outside it that switch to a task of the tree (sched_switch is recorded
 * when either side is filtered in) or wake one; and the stackmap mode's top
 * level has no filter of ours at all. So ingest asks, record by record,
 * whether a thread is of the tree.
 *
 * The tree is learned from the kernel's proc connector (a netlink socket,
 * root only): every fork on the machine is reported with the parent's and
 * the child's tgid, read before each drain (proctree_update()), so a
 * process that lived a millisecond is known for what it was even after it
 * is gone. A thread not (yet) known is placed by walking /proc from it up
 * through its parents; one not there anymore counts as outside. A pid
 * reused by a process outside the tree is taken out at that fork.
 *
 * Without the connector (no CONFIG_PROC_EVENTS, a container's namespaces)
 * the /proc walk alone decides: processes of the tree that end before
 * their records are read, or whose parent ended before them, are missed;
 * proctree_error() says why it is missing.
 */
#ifndef STACKTOP_PROCTREE_H
#define STACKTOP_PROCTREE_H

#include <stdbool.h>
#include <stdint.h>

struct proctree;

/**
 * proctree_new() - follow the processes descended from @root (and @root)
 * @root: the tree's first process
 *
 * Return: the tree, or NULL when out of memory. Open it before @root can
 * start anything (stacktop -- CMD: before the command is released).
 */
struct proctree *proctree_new(int root);

/**
 * proctree_error() - why forks are not followed as they happen
 * @t: tree
 *
 * Return: 0 when the proc connector reports them, else the -errno of its
 * socket.
 */
int proctree_error(const struct proctree *t);

/**
 * proctree_update() - take in the forks reported since the last call
 *	(never blocks)
 * @t: tree
 */
void proctree_update(struct proctree *t);

/**
 * proctree_has() - whether a thread belongs to the tree
 * @t: tree
 * @tid: thread id (common_pid)
 */
bool proctree_has(struct proctree *t, int tid);

/**
 * proctree_lost() - fork reports the socket dropped (its buffer was full)
 * @t: tree
 */
uint64_t proctree_lost(const struct proctree *t);

/**
 * proctree_signal_descendants() - send @sig to every live process below
 *	@ancestor (its children, theirs, ...; not @ancestor itself)
 * @ancestor: the process whose descendants are signalled (stacktop -- CMD:
 *	stacktop itself, a child subreaper (PR_SET_CHILD_SUBREAPER), so a
 *	grandchild that setsid()s and double-forks is still below it)
 * @sig: the signal; 0 only counts
 *
 * The tree is read from /proc (each process's parent); every pid is
 * checked again after it is opened as a pidfd (same start time, its
 * parent still in the tree) and signalled through that pidfd, so a pid
 * reused meanwhile is never signalled. Zombies are not counted.
 *
 * Return: how many live descendants there were, or -errno (/proc
 * unreadable, out of memory).
 */
int proctree_signal_descendants(int ancestor, int sig);

/**
 * proctree_free() - stop following; NULL is a no-op
 * @t: tree
 */
void proctree_free(struct proctree *t);

#endif /* STACKTOP_PROCTREE_H */
