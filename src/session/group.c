// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * group.c - --depth, --by-func (and the grouping a snapshot was written
 * with) and --group-by: a second table of groups, rebuilt from the table at
 * every tick, that session_table() returns instead of the table.
 *
 * A --group-by row is a stack of its keys' values, innermost first: the
 * kernel leaf (ksym, or sym without a user part) in its kernel part, then
 * after a separator of no process the user ones (sym: the leaf user
 * function's start token, an inlined call's function; dso: the library,
 * comm: the command, each a label token), so every view and format shows
 * it as it shows stacks.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/stack_table.h"
#include "core/stack_group.h"
#include "session/priv.h"
#include "session/session.h"
#include "sym/brief.h"
#include "sym/frame.h"
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

/* the library of a frame (its file, "[kernel.kallsyms]", a module "[ext4]") as a label */
static uint64_t dso_of(struct session *s, uint64_t ip)
{
	struct ksym *ks = s->c.tr.ksym;
	char full[512], name[300];
	struct ksym_hit h;
	const char *o;
	size_t l;

	if (usym_is_cut(ip) || usym_is_none(ip))
		return ip; /* what the user part is instead: its own row */
	if (!usym_is_user(ip)) {
		if (ip != STACK_IP_USER_MODE && ksym_lookup_ret(ks, ip, &h) == 0 && h.module)
			snprintf(name, sizeof(name), "[%s]", h.module);
		else
			snprintf(name, sizeof(name), "%s",
				 ip == STACK_IP_USER_MODE ? "[user space]" : "[kernel.kallsyms]");
		return usym_intern_label(s->c.usym, name);
	}
	/* "func (file)", "[unknown] (file+0xoff)": the last parenthesis, no offset */
	fmt_func(full, sizeof(full), ks, ip, 1);
	l = strlen(full);
	o = strrchr(full, '(');
	if (!o || !l || full[l - 1] != ')' || o == full)
		return usym_intern_label(s->c.usym, "[unknown]");
	snprintf(name, sizeof(name), "%.*s", (int)(full + l - 1 - o - 1), o + 1);
	name[strcspn(name, "+")] = '\0';
	return usym_intern_label(s->c.usym, name);
}

/*
 * stack_group's key for --group-by: the keys' values of @st (of its record
 * @a for comm), innermost first, the kernel ones before the separator
 */
static unsigned int key_of(void *ctx, const struct stack *st, const struct stack_attr *a,
			   uint64_t *frames)
{
	struct session *s = ctx;
	struct ksym *ks = s->c.tr.ksym;
	unsigned int us = usym_user_start(st->ips, st->depth), skip = brief_skip(ks, st);
	uint64_t kf[SESSION_GROUP_KEYS], uf[SESSION_GROUP_KEYS], v;
	uint64_t uleaf = us + 1 < st->depth ? st->ips[us + 1] : 0;
	/* no kernel part (a user-mode sample): the kernel leaf is "[user space]" */
	uint64_t kleaf = skip < us ? st->ips[skip] : us ? st->ips[0] : STACK_IP_USER_MODE;
	unsigned int n = 0, nk = 0, nu = 0, i;

	while (s->group_by[n])
		n++;
	for (i = n; i-- > 0;) {
		switch (s->group_by[i]) {
		case GROUP_KEY_SYM:
			if (uleaf)
				uf[nu++] = usym_start(s->c.usym, uleaf);
			else
				kf[nk++] = func_of(ks, kleaf);
			break;
		case GROUP_KEY_DSO:
			v = dso_of(s, uleaf ? uleaf : kleaf);
			if (v)
				uf[nu++] = v;
			break;
		case GROUP_KEY_COMM:
			v = usym_intern_label(s->c.usym, a ? session_comm(s, a->pid) : "[unknown]");
			if (v)
				uf[nu++] = v;
			break;
		case GROUP_KEY_KSYM:
			kf[nk++] = func_of(ks, kleaf);
			break;
		}
	}
	memcpy(frames, kf, nk * sizeof(*frames));
	if (nu) {
		frames[nk] = usym_sep(0);
		memcpy(frames + nk + 1, uf, nu * sizeof(*frames));
		return nk + 1 + nu;
	}
	return nk;
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
	if (s->group_by[0]) {
		g.key = key_of;
		g.ctx = s;
		g.per_record = memchr(s->group_by, GROUP_KEY_COMM, SESSION_GROUP_KEYS) != NULL;
	}
	if (stack_table_group(s->view, s->c.table, &g) < 0)
		log_warn("out of memory grouping the stacks: the groups are incomplete");
}

int session_set_group(struct session *s, unsigned int depth, bool func)
{
	if (depth > STACK_MAX_DEPTH)
		depth = STACK_MAX_DEPTH;
	s->group_depth = depth;
	s->group_func = func;
	memset(s->group_by, 0, sizeof(s->group_by));
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

int session_set_group_by(struct session *s, const uint8_t *keys)
{
	unsigned int n = 0;

	while (n < SESSION_GROUP_KEYS && keys && keys[n])
		n++;
	if (!n)
		return session_set_group(s, 0, false);
	s->group_depth = 0;
	s->group_func = false;
	memset(s->group_by, 0, sizeof(s->group_by));
	memcpy(s->group_by, keys, n);
	/* the rows hold function starts: named as they are */
	ksym_set_funcs(s->c.tr.ksym, true);
	if (!s->view) {
		s->view = stack_table_new();
		if (!s->view)
			return -ENOMEM;
	}
	session_regroup(s, false);
	return 0;
}

uint64_t session_stack_dso(struct session *s, const struct stack *st)
{
	unsigned int us = usym_user_start(st->ips, st->depth);
	unsigned int skip = brief_skip(s->c.tr.ksym, st);

	if (!st->depth)
		return 0;
	if (us + 1 < st->depth)
		return dso_of(s, st->ips[us + 1]);
	return dso_of(s, skip < us ? st->ips[skip] : st->ips[0]);
}

struct sources {
	struct session *s;
	const struct stack *grp;
	void (*cb)(void *ctx, const struct stack_table *t, const struct stack *src,
		   const struct stack_attr *a);
	void *ctx;
	uint64_t frames[STACK_MAX_DEPTH];
};

/* @src's records whose key is the group's */
static int sources_visit(struct stack *src, void *ctx)
{
	struct sources *w = ctx;
	const struct stack_attr *a;
	bool per_record = memchr(w->s->group_by, GROUP_KEY_COMM, SESSION_GROUP_KEYS) != NULL;
	unsigned int n;

	if (!per_record) {
		n = key_of(w->s, src, NULL, w->frames);
		if (n != w->grp->depth || memcmp(w->frames, w->grp->ips, n * sizeof(uint64_t)))
			return 0;
	}
	for (a = src->attrs; a; a = a->next) {
		if (per_record) {
			n = key_of(w->s, src, a, w->frames);
			if (n != w->grp->depth ||
			    memcmp(w->frames, w->grp->ips, n * sizeof(uint64_t)))
				continue;
		}
		w->cb(w->ctx, w->s->c.table, src, a);
	}
	return 0;
}

int session_group_sources(struct session *s, const struct stack *grp,
			  void (*cb)(void *ctx, const struct stack_table *t,
				     const struct stack *src, const struct stack_attr *a),
			  void *ctx)
{
	struct sources *w;

	if (!s->group_by[0] || !s->view)
		return -ENOENT;
	w = malloc(sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->s = s;
	w->grp = grp;
	w->cb = cb;
	w->ctx = ctx;
	stack_table_foreach(s->c.table, sources_visit, w);
	free(w);
	return 0;
}
