// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * user.c - user stacks (-u): the dwarf source added at open, the
 * frame-pointer way as its fallback, and the `u` key's switch.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/format.h"
#include "core/log.h"
#include "ingest/ingest.h"
#include "kernel/evfmt.h"
#include "kernel/state.h"
#include "kernel/tfs.h"
#include "kernel/trace.h"
#include "session/priv.h"
#include "session/session.h"
#include "source/source.h"

#if STACKTOP_USER_UNWIND
/* fp after all: the kernel's walk in the instance (already tracing) */
static int user_fp_fallback(struct session *s)
{
	char rel[160];
	int r;

	trace_path(&s->c.tr, rel, sizeof(rel), "options/userstacktrace");
	if (!tfs_exists(s->c.tr.tfs, rel) || s->c.tr.fmt->ustack_type < 0)
		return -EOPNOTSUPP;
	r = tfs_write(s->c.tr.tfs, rel, "1");
	if (r < 0)
		return r;
	s->c.user_mode = SESSION_USER_FP;
	ingest_set_user(s->c.ing, s->c.usym);
	return 0;
}

/*
 * --user=dwarf (or -u where it works): perf samples of the same events,
 * joined to the instance's records (src/source/perf_user.c). With plain -u
 * a perf_event_open that fails (perf_event_paranoid, no user registers)
 * falls back to fp, and the header says why.
 */
/* the instance waited for perf's events (source/instance.c): it records now */
static int user_start_instance(struct session *s)
{
	char rel[160];

	trace_path(&s->c.tr, rel, sizeof(rel), "tracing_on");
	return tfs_write(s->c.tr.tfs, rel, "1");
}
#endif

int session_setup_user_dwarf(struct session *s, char *err, size_t errsz)
{
#if STACKTOP_USER_UNWIND
	char why[256] = "";
	int r;

	/* --oncpu unwinds its own samples (source/oncpu.c) */
	if (s->c.user_mode != SESSION_USER_DWARF || s->c.tr.mode != SESSION_STACKS)
		return 0;
	r = session_add_source(s, &source_perf_user_ops, NULL, why, sizeof(why));
	if (r >= 0) {
		r = user_start_instance(s);
		return r < 0 ? fmt_error(err, errsz, r, "cannot start tracing: %s", strerror(-r))
			     : 0;
	}
	s->nsources--;
	source_perf_user_ops.close(&s->sources[s->nsources]);
	if (s->opts.user != SESSION_USER_AUTO)
		return fmt_error(err, errsz, r, "--user=dwarf: %s", why[0] ? why : strerror(-r));
	snprintf(s->user_note, sizeof(s->user_note), "fp: dwarf unavailable (%.120s)",
		 why[0] ? why : strerror(-r));
	log_warn("user stacks: %s", s->user_note);
	if (s->opts.user_sample > 1 || s->opts.user_buffer || s->opts.user_stack)
		log_warn("user stacks: fp takes every event's stack: --user-sample, --user-buffer "
			 "and dwarf,SIZE do not apply");
	r = user_fp_fallback(s);
	if (r < 0)
		return fmt_error(err, errsz, r, "user stacks: neither dwarf (%s) nor fp works here",
				 why[0] ? why : "perf_event_open failed");
	r = user_start_instance(s);
	return r < 0 ? fmt_error(err, errsz, r, "cannot start tracing: %s", strerror(-r)) : 0;
#else
	(void)s;
	(void)err;
	(void)errsz;
	return 0;
#endif
}

int session_set_user(struct session *s, bool on)
{
	char rel[160];
	int r;

	if (on == s->c.user_on)
		return 0;
	if (s->recording || !s->c.tr.tfs || (s->c.tr.mode == SESSION_STACKS && !s->c.tr.instance) ||
	    (s->c.tr.mode != SESSION_STACKS && s->c.tr.mode != SESSION_STACKMAP))
		return -EOPNOTSUPP;
#if STACKTOP_USER_UNWIND
	if (s->c.user_mode == SESSION_USER_DWARF) {
		int i;

		for (i = 0; i < s->nsources; i++)
			if (s->sources[i].ops == &source_perf_user_ops)
				perf_user_set_on(&s->sources[i], on);
		s->c.user_on = on;
		return 0;
	}
#endif
	trace_path(&s->c.tr, rel, sizeof(rel), "options/userstacktrace");
	if (!tfs_exists(s->c.tr.tfs, rel) || s->c.tr.fmt->ustack_type < 0)
		return -EOPNOTSUPP;
	/* the top level (stackmap mode) is journaled: put back as it was */
	r = s->c.tr.mode == SESSION_STACKMAP ? state_write(s->c.tr.state, rel, on ? "1" : "0")
					     : tfs_write(s->c.tr.tfs, rel, on ? "1" : "0");
	if (r < 0)
		return r;
	s->c.user_on = on;
	s->c.user_mode = on ? SESSION_USER_FP : SESSION_USER_OFF;
	ingest_set_user(s->c.ing, on ? s->c.usym : NULL);
	return 0;
}
