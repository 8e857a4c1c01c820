/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * evfmt.h - event formats: which type id is which event, where the fields
 * stacktop reads are.
 *
 * Formats are parsed with libtraceevent (tep_parse_format) from the
 * format files under events/ of the tracefs root in use. Each event
 * stacktop counts gets a small dense index (the `event` of struct
 * stack_attr); the ring-buffer walker maps a record's common_type to that
 * index through a flat table.
 */
#ifndef STACKTOP_EVFMT_H
#define STACKTOP_EVFMT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/ringbuf.h"

struct tfs;

#define EVFMT_NONE 0xffff
/* a type the session does not trace (evfmt_known_type()): skipped, its stack too */
#define EVFMT_IGNORED 0xfffe

/**
 * struct evfmt - formats of the events in use
 * @layout: ring-buffer page layout from events/header_page
 * @kstack_type: common_type of ftrace/kernel_stack, -1 if absent
 * @kstack_size_off: offset of its `size` field, -1 on kernels without it
 * @kstack_caller_off: offset of `caller`
 * @stackid_type: common_type of ftrace/stack_id, -1 if absent
 * @stackid_off: offset of its `stack_id` field
 * @ustack_type: common_type of ftrace/user_stack, -1 if absent
 * @ustack_tgid_off: offset of its `tgid`, -1 if absent
 * @ustack_caller_off: offset of its `caller` array, -1 if absent
 * @func_type: common_type of ftrace/function (the function tracer's
 *             entries), -1 if absent
 * @func_ip_off: offset of its `ip` field (the traced function)
 * @pid_off: offset of common_pid
 * @index: common_type -> event index, EVFMT_NONE when not counted
 * @names: "system:event" per index
 * @types: common_type per index
 * @comm_offs: per index, offset of a name field of the task that wrote the
 *             event (sched_switch's prev_comm), -1 when it has none
 * @comm_pid_offs: per index, offset of that task's pid field (prev_pid):
 *                 the name counts only when it equals common_pid
 * @nnames: entries in @names
 */
struct evfmt {
	struct ringbuf_layout layout;
	int kstack_type;
	int kstack_size_off;
	int kstack_caller_off;
	int stackid_type;
	int stackid_off;
	int ustack_type;
	int ustack_tgid_off;
	int ustack_caller_off;
	int func_type;
	int func_ip_off;
	int pid_off;
	uint16_t index[65536];
	char **names;
	int *types;
	int *comm_offs;
	int *comm_pid_offs;
	unsigned int nnames;
	void *tep; /* struct tep_handle */
	bool tep_borrowed;
};

/**
 * evfmt_new() - read header_page and the ftrace stack formats
 * @t: tracefs root
 * @ret: the formats (free with evfmt_free())
 *
 * Every field stacktop reads (common_pid, kernel_stack's size and caller,
 * stack_id's stack_id) must lie inside the largest record a sub-buffer
 * holds, and the numbers must be 4 bytes: an impossible format is refused
 * (logged with log_err()) rather than read past the record.
 *
 * Return: 0, -ENODEV when there is no kernel_stack event and no stack_id
 * event (no stack tracing in this kernel), -EBADMSG for an unreadable
 * header_page or an impossible format, -errno.
 */
int evfmt_new(struct tfs *t, struct evfmt **ret);

/**
 * evfmt_from_tep() - the same, from formats already parsed (a trace.dat)
 * @tep: a struct tep_handle (borrowed: must outlive the result)
 * @ret: the formats (free with evfmt_free())
 *
 * Return: 0, -ENODEV when the trace has no stack events, -EBADMSG for an
 * impossible format (see evfmt_new()), -ENOMEM.
 */
int evfmt_from_tep(void *tep, struct evfmt **ret);

/**
 * evfmt_add() - load an event's format and give it an index
 * @f: formats
 * @t: tracefs root
 * @system: event system
 * @name: event name
 *
 * Return: the index (>= 0; the same one when added twice), -ENOENT for an
 * unknown event, -EBADMSG for an unparsable format, -errno.
 */
int evfmt_add(struct evfmt *f, struct tfs *t, const char *system, const char *name);

/**
 * evfmt_add_type() - give an index to a type id seen in the buffer that was
 * not added by name (events someone else enabled at the top level)
 * @f: formats
 * @t: tracefs root (searched for the format with that ID)
 * @type: common_type
 *
 * The format is looked for among the parsed ones, the events in set_event,
 * then every events/ftrace/<name>/format (ftrace's own entries: print,
 * bputs, funcgraph_entry... have no enable file and are not in set_event).
 *
 * Return: the index; the name is "system:event" when the format was found,
 * else "event#<type>".
 */
int evfmt_add_type(struct evfmt *f, struct tfs *t, int type);

/**
 * evfmt_known_type() - evfmt_add_type() for a live session: a type enabled
 * now (set_event) or one of ftrace's own entries gets its index; any other
 * is a record the session did not ask for (left in the top-level buffer by
 * a run before it, say) and is marked EVFMT_IGNORED in @f->index
 * @f: formats
 * @t: tracefs root
 * @type: common_type
 *
 * Return: the index, or -ENOENT for a type the session does not trace.
 */
int evfmt_known_type(struct evfmt *f, struct tfs *t, int type);

/**
 * struct evfmt_field - where a numeric field of an event's records is
 * @offset: bytes from the start of the payload
 * @size: 1, 2, 4 or 8
 * @is_signed: sign-extend when read
 */
struct evfmt_field {
	uint32_t offset;
	uint32_t size;
	bool is_signed;
};

/**
 * evfmt_field() - find a numeric field of an event with an index
 * @f: formats
 * @idx: event index (from evfmt_add())
 * @name: field name
 * @ret: filled on success
 *
 * Return: 0, -ENOENT when the event has no such field, -EINVAL when it is
 * not a 1, 2, 4 or 8-byte number (an array, a string).
 */
int evfmt_field(const struct evfmt *f, unsigned int idx, const char *name, struct evfmt_field *ret);

/**
 * evfmt_add_named() - an index with a name of its own and no type of its own
 * (function-tracer entries, one per traced function: "ftrace:function NAME")
 * @f: formats
 * @name: the name (sanitized here); the same name gives the same index
 *
 * Return: the index, -ENOSPC, -ENOMEM.
 */
int evfmt_add_named(struct evfmt *f, const char *name);

/**
 * evfmt_free() - free; NULL is a no-op
 * @f: formats
 */
void evfmt_free(struct evfmt *f);

#endif /* STACKTOP_EVFMT_H */
