/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * probes.h - stacks of a traced function (--function: the function tracer
 * with func_stack_trace) and of kprobes (--kprobe: a kprobe event each,
 * made before the source opens and removed on exit through the journal).
 */
#ifndef STACKTOP_PROBES_H
#define STACKTOP_PROBES_H

#include <stddef.h>
#include <stdint.h>

struct trace;

/**
 * probes_setup_kprobes() - make the kprobes of trace->opts (before the
 *	source opens: a private instance journaled after them is removed
 *	first on restore); their "GROUP:EVENT" names go to t->probe_events
 * @t: trace
 * @err: receives a user-facing reason on failure
 * @errsz: size of @err
 *
 * Return: 0 or -errno (-EOPNOTSUPP: no kprobe events in this kernel).
 */
int probes_setup_kprobes(struct trace *t, char *err, size_t errsz);

/**
 * probes_setup_function() - the function tracer for trace->opts' globs in
 *	the instance read (after its events are set up)
 * @t: trace
 * @err: receives a user-facing reason on failure
 * @errsz: size of @err
 *
 * Return: 0 or -errno.
 */
int probes_setup_function(struct trace *t, char *err, size_t errsz);

/**
 * probes_func_cb() - ingest's callback for a function tracer entry
 *	(struct ingest_config @func_cb): the event index of the function at @ip,
 *	"ftrace:function NAME [module]", made the first time
 * @ctx: the struct trace
 * @ip: the traced function's address
 *
 * Return: the event index, or -errno.
 */
int probes_func_cb(void *ctx, uint64_t ip);

#endif /* STACKTOP_PROBES_H */
