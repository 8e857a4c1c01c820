// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * losses.c - see losses.h.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "core/format.h"
#include "core/ujoin.h"
#include "output/losses.h"
#include "output/rows.h"
#include "session/session.h"
#include "source/stats.h"
#include "sym/usym.h"

void export_losses_get(struct session *s, bool delta, struct export_losses *l)
{
	const struct session_stats *st = session_stats(s);

	l->delta = delta;
	l->lost = delta ? st->lost_delta : st->lost;
	l->overrun = delta ? st->overrun_delta : st->overrun;
	l->dropped = delta ? st->dropped_delta : st->dropped;
	/* records read but no event read whole: a snapshot from before events_read */
	l->records_unit = !st->events_read && st->records;
	if (l->records_unit)
		l->read = delta ? st->records_delta : st->records;
	else if (st->events_read)
		l->read = delta ? st->events_read_delta : st->events_read;
	else
		l->read = delta ? st->events_delta : st->events; /* perf's samples */
}

bool export_losses_any(const struct export_losses *l)
{
	return l->lost || l->overrun || l->dropped;
}

uint64_t export_losses_gone(const struct export_losses *l)
{
	if (l->records_unit)
		return (l->lost > l->overrun ? l->lost : l->overrun) + l->dropped;
	return l->lost;
}

double export_losses_share(const struct export_losses *l)
{
	double gone = (double)export_losses_gone(l);

	if (!gone)
		return 0;
	if (!l->read && l->records_unit)
		return -1;
	return gone / ((double)l->read + gone);
}

uint64_t export_losses_scale(const struct export_losses *l, uint64_t shown)
{
	long double v;

	if (!l->read || !export_losses_gone(l))
		return 0;
	v = (long double)shown * (long double)export_losses_gone(l) / (long double)l->read;
	return v >= 18446744073709551615.0L ? UINT64_MAX : (uint64_t)llroundl(v);
}

int export_losses_text(char *buf, size_t size, const struct export_losses *l)
{
	const char *when = l->delta ? "in the last interval" : "since start";
	double share = export_losses_share(l);
	int n;

	if (!export_losses_any(l))
		return snprintf(buf, size, "no events lost %s", when);
	if (l->records_unit)
		n = snprintf(buf, size,
			     "lost %" PRIu64 ", overrun %" PRIu64 ", dropped %" PRIu64
			     " ring-buffer records %s (%" PRIu64 " read)",
			     l->lost, l->overrun, l->dropped, when, l->read);
	else
		n = snprintf(buf, size,
			     "lost %" PRIu64 " events %s (overrun %" PRIu64 ", dropped %" PRIu64
			     "; %" PRIu64 " read)",
			     l->lost, when, l->overrun, l->dropped, l->read);
	if (n < 0 || (size_t)n >= size)
		return n;
	if (share > 0)
		n += snprintf(buf + n, size - (size_t)n,
			      ": %s%.1f%% of the events are missing from the counts",
			      l->records_unit ? "about " : "", 100.0 * share);
	else if (share < 0)
		n += snprintf(
			buf + n, size - (size_t)n,
			": events are missing from the counts (how many records were read is not known)");
	return n;
}

int export_user_text(char *buf, size_t size, const struct session_stats *st)
{
	const struct ujoin_stats *j = &st->ujoin;
	uint64_t without = 0, all;
	const char *sep = ": ";
	int n, w;

	if (size)
		buf[0] = '\0';
	if (st->user == SESSION_USER_OFF)
		return 0;
	if (st->user == SESSION_USER_FP &&
	    (st->mode == SESSION_ONCPU || st->mode == SESSION_SAMPLED))
		return snprintf(buf, size, "user stacks: fp (perf's call chains)");
	if (st->user == SESSION_USER_FP)
		return snprintf(buf, size,
				"user stacks: fp (the kernel's frame-pointer walk, %d frames)",
				USYM_FP_FRAMES);
	for (w = UJOIN_OK + 1; w < UJOIN_WHY_MAX; w++)
		without += j->why[w];
	all = j->why[UJOIN_OK] + without;
	if (st->mode == SESSION_ONCPU) {
		/* --oncpu: every sample of a process has its stack copied and unwound */
		n = snprintf(buf, size,
			     "user stacks: dwarf, %" PRIu64 " of %" PRIu64
			     " samples of processes (%.1f%%) with one",
			     j->why[UJOIN_OK], all,
			     all ? 100.0 * (double)j->why[UJOIN_OK] / (double)all : 100.0);
		goto why;
	}
	/* --user-sample N: the share is a sampling's, and says so */
	n = snprintf(buf, size, "user stacks: dwarf, ");
	if (st->user_period > 1)
		n += snprintf(n < (int)size ? buf + n : NULL, n < (int)size ? size - (size_t)n : 0,
			      "1 event in %u sampled, ", st->user_period);
	n += snprintf(n < (int)size ? buf + n : NULL, n < (int)size ? size - (size_t)n : 0,
		      "%" PRIu64 " of %" PRIu64 " events (%.1f%%) with one", j->why[UJOIN_OK], all,
		      all ? 100.0 * (double)j->why[UJOIN_OK] / (double)all : 100.0);
why:
	if (!without)
		return n;
	n += snprintf(n < (int)size ? buf + n : NULL, n < (int)size ? size - (size_t)n : 0,
		      "; %" PRIu64 " without", without);
	for (w = UJOIN_OK + 1; w < UJOIN_WHY_MAX; w++) {
		if (!j->why[w])
			continue;
		n += snprintf(n < (int)size ? buf + n : NULL, n < (int)size ? size - (size_t)n : 0,
			      "%s%" PRIu64 " %s", sep, j->why[w],
			      ujoin_why_name((enum ujoin_why)w));
		sep = ", ";
	}
	return n;
}

void export_losses_note(struct fmt_out *out, struct session *s, bool delta, const char *hint)
{
	struct export_losses l;
	char text[320];

	export_losses_get(s, delta, &l);
	if (export_losses_any(&l)) {
		export_losses_text(text, sizeof(text), &l);
		fmt_out_str(out, text);
		fmt_out_str(out, hint);
	}
	if (export_sample_text(text, sizeof(text), session_stats(s)) > 0) {
		fmt_out_str(out, out->len ? "\n" : "");
		fmt_out_str(out, text);
	}
}
