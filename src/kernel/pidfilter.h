/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pidfilter.h - the kernel's side of -p and --tid in a private instance:
 * set_event_pid holds the threads there are now, options/event-fork adds
 * the ones they start, options/record-tgid keeps saved_tgids filled for
 * threads that end before stacktop looks them up. Ingest filters by pid
 * and tgid as well (ingest_set_procs()); this only saves the kernel from
 * recording what would be dropped.
 */
#ifndef STACKTOP_PIDFILTER_H
#define STACKTOP_PIDFILTER_H

#include <stddef.h>

struct trace;

/**
 * pidfilter_setup() - write the instance's pid filter for trace->opts'
 *	-p and --tid (nothing without them, or without set_event_pid)
 * @t: trace (a private instance)
 * @err: receives a user-facing reason on failure
 * @errsz: size of @err
 *
 * The list is read back and what is missing appended until a read finds
 * nothing missing (a write replaces the kernel's list: a thread started
 * in between would be lost).
 *
 * Return: 0, -ESRCH (the -p processes have ended), -ENOMEM, -errno.
 */
int pidfilter_setup(struct trace *t, char *err, size_t errsz);

/**
 * pidfilter_exclude_self() - keep stacktop's own reads of tracefs out of
 *	what the kernel records: its pid in set_event_notrace_pid and
 *	set_ftrace_notrace_pid of the instance read (nothing with --show-self)
 * @t: trace (before its events are enabled)
 *
 * In a private instance the pid is written (the instance goes on exit; its
 * set_ftrace_notrace_pid only with --function: it has no function tracer
 * otherwise). At
 * the top level the lists are the user's: the pid is appended to what they
 * hold and journaled (state_append_pid()), and exactly that pid is taken out
 * again on exit, by the signal handlers, or by the next run's recovery
 * after a SIGKILL. Without these files (kernels before 5.10) nothing
 * happens: ingest still drops the pid's records.
 *
 * Return: 0, or the first -errno (said in a warning; not fatal). EPERM,
 * EACCES or ENODEV on set_ftrace_notrace_pid (ftrace off: lockdown,
 * kernel.ftrace_enabled=0) is no error: nothing can trace functions there.
 */
int pidfilter_exclude_self(struct trace *t);

/**
 * pidfilter_release_self() - empty a private instance's own pid lists
 *	again before the end, while the run still reads
 * @t: trace of a private instance
 *
 * Taking a pid list away waits for the kernel's grace periods (60-400 ms
 * on a busy machine): done when the run's end is near (session_ending()),
 * it is not in the teardown after the last report, and the instance's
 * rmdir finds no list to take away. Ingest drops the pid's records in the
 * meantime. Safe from a thread of its own (one write to each file).
 */
void pidfilter_release_self(struct trace *t);

#endif /* STACKTOP_PIDFILTER_H */
