// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * perf_user.c - the dwarf user-stack source (see perf_user.h): perfsamp
 * on the session's events, every sample unwound while its stack copy is in
 * the ring, the frames handed to the integrator's callback. Registered
 * nowhere yet.
 */
#include <errno.h>
#include <stdlib.h>

#include "log.h"
#include "perf_user.h"
#include "source.h"

struct perf_user {
	struct perf_user_cfg cfg;
	struct perfsamp *ps;
	struct dwunwind *uw;
	const char **events;
	uint64_t unwound, failed, nomaps;
	uint64_t ips[PERF_USER_MAX_FRAMES];
};

void *perf_user_priv(const struct perf_user_cfg *cfg)
{
	struct perf_user *pu = calloc(1, sizeof(*pu));

	if (pu)
		pu->cfg = *cfg;
	return pu;
}

static void pu_sample(void *ctx, const struct perfsamp_sample *s)
{
	struct perf_user *pu = ctx;
	struct perf_user_stack st = {
		.key = { .cpu = s->cpu, .tid = s->tid, .event = (uint32_t)s->event },
		.pid = s->pid, .time = s->time, .ips = pu->ips,
	};
	struct dwunwind_sample in = {
		.regs = s->regs, .stack = s->stack, .stack_size = s->stack_size,
	};
	int n = -EINVAL;

	if (s->abi && s->stack_size && pu->cfg.maps_for)
		in.nmaps = pu->cfg.maps_for(pu->cfg.ctx, s->pid, &in.maps, &in.maps_id);
	if (in.nmaps)
		n = dwunwind_stack(pu->uw, &in, pu->ips, PERF_USER_MAX_FRAMES, &st.end);
	if (n > 0) {
		st.n = n;
		st.why = UJOIN_OK;
		pu->unwound++;
	} else if (!in.nmaps || n == -ENOENT) {
		st.why = UJOIN_NO_MAPS;
		pu->nomaps++;
	} else {
		st.why = UJOIN_UNWIND_FAILED;
		pu->failed++;
	}
	if (pu->cfg.on_stack)
		pu->cfg.on_stack(pu->cfg.ctx, &st);
}

static int pu_open(struct source *src, char *err, size_t errsz)
{
	struct perf_user *pu = src->priv;
	struct session *s = src->s;
	struct perfsamp_opts o = { 0 };
	struct perfsamp_cb cb;
	unsigned int i, n = session_nevents(s);
	int r;

	if (!pu)
		return session_errf(err, errsz, -EINVAL, "user stacks: no configuration");
	if (!n)
		return session_errf(err, errsz, -EINVAL, "user stacks: no event");
	pu->events = calloc(n, sizeof(*pu->events));
	pu->uw = dwunwind_new();
	if (!pu->events || !pu->uw)
		return session_errf(err, errsz, -ENOMEM, "user stacks: out of memory");
	for (i = 0; i < n; i++)
		pu->events[i] = session_event(s, i);
	o.tracefs = s->stats.tracefs[0] ? s->stats.tracefs : NULL;
	o.events = pu->events;
	o.nevents = (int)n;
	o.pid = pu->cfg.pid > 0 ? pu->cfg.pid : -1;
	o.stack_size = pu->cfg.stack_size;
	cb = pu->cfg.perf;
	cb.sample = pu_sample;
	cb.ctx = pu;
	r = perfsamp_open(&pu->ps, &o, &cb, err, errsz);
	if (r < 0)
		return r;
	session_traced_append(s, "user stacks (dwarf)");
	return 0;
}

static int pu_pollfds(const struct source *src, struct pollfd *fds, int max)
{
	const struct perf_user *pu = src->priv;

	return pu && pu->ps ? perfsamp_pollfds(pu->ps, fds, max) : 0;
}

/*
 * The session's budget counts pages; a sample is about 2-3 pages of stack:
 * take what is left of it as a record budget, and stop on its flag or clock.
 */
static int pu_drain(struct source *src, struct drain_budget *b)
{
	struct perf_user *pu = src->priv;
	unsigned int left;
	bool more = false;
	int r;

	if (drain_budget_spent(b))
		return 0;
	left = b->pages > b->used ? b->pages - b->used : 1;
	r = perfsamp_drain(pu->ps, left, &more);
	if (r > 0)
		b->used += (unsigned int)r;
	if (more)
		b->more = true;
	return r;
}

static int pu_tick(struct source *src)
{
	struct perf_user *pu = src->priv;
	struct perfsamp_stats st;

	perfsamp_stats(pu->ps, &st);
	log_debug("user stacks: %llu samples, %llu lost, %llu unwound, %llu failed, %llu without maps",
		  (unsigned long long)st.samples, (unsigned long long)st.lost,
		  (unsigned long long)pu->unwound, (unsigned long long)pu->failed,
		  (unsigned long long)pu->nomaps);
	return 0;
}

static void pu_close(struct source *src)
{
	struct perf_user *pu = src->priv;

	if (!pu)
		return;
	perfsamp_close(pu->ps);
	dwunwind_free(pu->uw);
	free(pu->events);
	free(pu);
	src->priv = NULL;
}

const struct source_ops source_perf_user_ops = {
	.name = "perf_user",
	.open = pu_open,
	.pollfds = pu_pollfds,
	.drain = pu_drain,
	.tick = pu_tick,
	.close = pu_close,
};
