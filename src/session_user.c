// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * session_user.c - user stacks (-u): the dwarf source added at open, the
 * frame-pointer way as its fallback, and the `u` key's switch.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "brief.h"
#include "comm.h"
#include "evfmt.h"
#include "ingest.h"
#include "format.h"
#include "ksym.h"
#include "log.h"
#include "session.h"
#include "signals.h"
#include "source.h"
#include "stack_table.h"
#include "snapshot.h"
#include "stackmap.h"
#include "state.h"
#include "tfs.h"
#include "usym.h"
#include "tgid.h"
#include "session_priv.h"

/* fp after all: the kernel's walk in the instance (already tracing) */
static int user_fp_fallback(struct session *s)
{
	char rel[160];
	int r;

	session_path(s, rel, sizeof(rel), "options/userstacktrace");
	if (!tfs_exists(s->tfs, rel) || s->fmt->ustack_type < 0)
		return -EOPNOTSUPP;
	r = tfs_write(s->tfs, rel, "1");
	if (r < 0)
		return r;
	s->user_mode = SESSION_USER_FP;
	ingest_set_user(s->ing, s->usym);
	return 0;
}

/*
 * --user=dwarf (or -u where it works): perf samples of the same events,
 * joined to the instance's records (src/source/perf_user.c). With plain -u
 * a perf_event_open that fails (perf_event_paranoid, no user registers)
 * falls back to fp, and the header says why.
 */
int session_setup_user_dwarf(struct session *s, char *err, size_t errsz)
{
#if STACKTOP_USER_UNWIND
	char why[256] = "";
	int r;

	if (s->user_mode != SESSION_USER_DWARF)
		return 0;
	r = session_add_source(s, &source_perf_user_ops, why, sizeof(why));
	if (r >= 0)
		return 0;
	s->nsources--;
	source_perf_user_ops.close(&s->sources[s->nsources]);
	if (s->opts.user != SESSION_USER_AUTO)
		return session_errf(err, errsz, r, "--user=dwarf: %s",
				    why[0] ? why : strerror(-r));
	snprintf(s->user_note, sizeof(s->user_note), "fp: dwarf unavailable (%.120s)",
		 why[0] ? why : strerror(-r));
	log_warn("user stacks: %s", s->user_note);
	r = user_fp_fallback(s);
	if (r < 0)
		return session_errf(err, errsz, r, "user stacks: neither dwarf (%s) nor fp works here",
				    why[0] ? why : "perf_event_open failed");
	return 0;
#else
	(void)s;
	(void)err;
	(void)errsz;
	return 0;
#endif
}



size_t session_unwind_memory(const struct session *s)
{
	size_t b = 0;
#if STACKTOP_USER_UNWIND
	int i;

	for (i = 0; i < s->nsources; i++)
		if (s->sources[i].ops == &source_perf_user_ops)
			b += perf_user_memory(&s->sources[i]);
#else
	(void)s;
#endif
	return b;
}

int session_set_user(struct session *s, bool on)
{
	char rel[160];
	int r;

	if (on == s->user_on)
		return 0;
	if (s->recording || !s->tfs || (s->mode == SESSION_STACKS && !s->instance) ||
	    (s->mode != SESSION_STACKS && s->mode != SESSION_STACKMAP))
		return -EOPNOTSUPP;
#if STACKTOP_USER_UNWIND
	if (s->user_mode == SESSION_USER_DWARF) {
		int i;

		for (i = 0; i < s->nsources; i++)
			if (s->sources[i].ops == &source_perf_user_ops)
				perf_user_set_on(&s->sources[i], on);
		s->user_on = on;
		return 0;
	}
#endif
	session_path(s, rel, sizeof(rel), "options/userstacktrace");
	if (!tfs_exists(s->tfs, rel) || s->fmt->ustack_type < 0)
		return -EOPNOTSUPP;
	/* the top level (stackmap mode) is journaled: put back as it was */
	r = s->mode == SESSION_STACKMAP ? state_write(s->state, rel, on ? "1" : "0")
					: tfs_write(s->tfs, rel, on ? "1" : "0");
	if (r < 0)
		return r;
	s->user_on = on;
	s->user_mode = on ? SESSION_USER_FP : SESSION_USER_OFF;
	ingest_set_user(s->ing, on ? s->usym : NULL);
	return 0;
}

bool session_user(const struct session *s)
{
	return s->user_on;
}

