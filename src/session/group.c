// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * group.c - --depth and --by-func (and the grouping a snapshot was written
 * with): a second table of groups, rebuilt from the table at every tick,
 * that session_table() returns instead of the table.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/log.h"
#include "core/stack_table.h"
#include "core/stack_group.h"
#include "session/priv.h"
#include "session/session.h"
#include "sym/brief.h"
#include "sym/ksym.h"
#include "sym/usym.h"

/*
 * a frame's function: the start of its symbol (the address when unknown);
 * the frames grouped are return addresses, whatever the naming's setting.
 * A user frame: the token of its function's start (usym_start()).
 */
static uint64_t func_of(void *ctx, uint64_t ip)
{
	struct ksym_hit h;

	if (usym_is_user(ip))
		return usym_start(ksym_usym(ctx), ip);
	if (ksym_lookup_ret(ctx, ip, &h) == 0)
		return h.start;
	return ip;
}

static unsigned int skip_of(void *ctx, const struct stack *st)
{
	return brief_skip(ctx, st);
}

void session_regroup(struct session *s, bool keep)
{
	struct stack_group g = {
		.depth = s->group_depth,
		.skip = skip_of,
		.map = s->group_func ? func_of : NULL,
		.ctx = s->c.tr.ksym,
		.keep = keep,
	};

	if (!s->view)
		return;
	if (stack_table_group(s->view, s->c.table, &g) < 0)
		log_warn("out of memory grouping the stacks: the groups are incomplete");
}

int session_set_group(struct session *s, unsigned int depth, bool func)
{
	if (depth > STACK_MAX_DEPTH)
		depth = STACK_MAX_DEPTH;
	s->group_depth = depth;
	s->group_func = func;
	/* the table shown holds function starts: named as they are, no byte back */
	ksym_set_funcs(s->c.tr.ksym, func);
	if (!depth && !func) {
		stack_table_free(s->view);
		s->view = NULL;
		return 0;
	}
	if (!s->view) {
		s->view = stack_table_new();
		if (!s->view)
			return -ENOMEM;
	}
	session_regroup(s, false);
	return 0;
}
