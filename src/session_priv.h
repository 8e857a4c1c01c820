/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * session_priv.h - what the parts of the session (session.c and
 * session_{pids,replay,user,weight}.c) share and nothing else sees; the
 * sources' side of struct session is include/source.h.
 */
#ifndef STACKTOP_SESSION_PRIV_H
#define STACKTOP_SESSION_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include "session.h"
#include "source.h"

/**
 * session_set_filters() - hand -p and --tid to ingest
 * @s: session (its ingest made)
 * @use_proc: this system's /proc tells processes from threads (false for a
 *	recording or a simulator: -p then matches the event's pid, as --tid)
 *
 * Return: 0, or -ENOMEM.
 */
int session_set_filters(struct session *s, bool use_proc);

/**
 * session_check_pids() - every -p names a running process, every --tid a
 *	running thread
 * @o: options
 * @err: receives the reason
 * @errsz: its size
 *
 * Return: 0, or a negative errno with @err set.
 */
int session_check_pids(const struct session_opts *o, char *err, size_t errsz);

/**
 * session_setup_weight() - the events and fields --weight or --offcpu needs
 * @s: session being opened
 * @err: receives the reason
 * @errsz: its size
 *
 * Return: 0, or a negative errno with @err set.
 */
int session_setup_weight(struct session *s, char *err, size_t errsz);

/**
 * session_open_replay() - open recordings or snapshots (-r)
 * @opts: options (files in opts->files)
 * @ret: receives the session
 * @err: receives the reason
 * @errsz: its size
 *
 * Return: 0, or a negative errno with @err set.
 */
int session_open_replay(const struct session_opts *opts, struct session **ret, char *err,
			size_t errsz);

/**
 * session_setup_user_dwarf() - add the dwarf user-stack source (or fall
 *	back to fp when plain -u asked and perf cannot)
 * @s: session being opened, its instance tracing
 * @err: receives the reason
 * @errsz: its size
 *
 * Return: 0, or a negative errno with @err set.
 */
int session_setup_user_dwarf(struct session *s, char *err, size_t errsz);

/**
 * session_unwind_memory() - what the dwarf user-stack source holds (its
 * unwind tables and vdso copies), 0 without it
 * @s: session
 */
size_t session_unwind_memory(const struct session *s);

/**
 * session_add_source() - add and open one source
 * @s: session
 * @ops: the source's operations
 * @err: receives the reason
 * @errsz: its size
 *
 * Return: what ops->open returns.
 */
int session_add_source(struct session *s, const struct source_ops *ops, char *err, size_t errsz);

/**
 * session_count_cpus() - CPUs ingest keeps state for
 * @s: session
 */
unsigned int session_count_cpus(struct session *s);

#endif /* STACKTOP_SESSION_PRIV_H */
