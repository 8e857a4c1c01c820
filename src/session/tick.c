// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tick.c - --oncpu=tick: the kernel's timer tick traced as an event, in the
 * stacks mode or through the stack map, and where its stacks are cut.
 *
 * A tracepoint on the tick records the interrupt's own frames first
 * (trace_event_raw_event_*, __sysvec_apic_timer_interrupt, ...,
 * asm_sysvec_apic_timer_interrupt), then the interrupted function and its
 * callers. Every x86 interrupt entry stub lies in __irqentry_text: ingest
 * cuts each stack after its first frame there (struct ingest_config @trim),
 * so the rows start where perf's cpu-clock chains start.
 *
 * The event: where high-resolution timers run the tick (every tickless
 * kernel, hres_active in /proc/timer_list), the hrtimer expiry of the tick's
 * handler (tick_nohz_handler since 6.10, tick_sched_timer before); on a
 * periodic kernel (the VM tier's RFC kernel) the local APIC timer interrupt
 * itself, irq_vectors:local_timer_entry, which is the tick there.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/format.h"
#include "ingest/ingest.h"
#include "kernel/tfs.h"
#include "kernel/trace.h"
#include "session/priv.h"
#include "session/session.h"
#include "sym/ksym.h"

#define TIMER_LIST_READ 65536 /* the first CPU's block says whether hres is on */

/* whether the first CPU of /proc/timer_list has hres_active 1 (-1: unknown) */
static int hres_active(void)
{
	char *buf = malloc(TIMER_LIST_READ + 1), *p;
	ssize_t n = 0, r;
	int fd, on = -1;

	if (!buf)
		return -1;
	fd = open("/proc/timer_list", O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	while (fd >= 0 && n < TIMER_LIST_READ &&
	       (r = read(fd, buf + n, (size_t)(TIMER_LIST_READ - n))) > 0)
		n += r;
	if (fd >= 0)
		close(fd);
	buf[n] = '\0';
	p = strstr(buf, "hres_active");
	if (p && (p = strchr(p, ':')))
		on = atoi(p + 1) == 1;
	free(buf);
	return on;
}

static int symbol(struct ksym *ks, const char *name, uint64_t *addr)
{
	return ksym_addr_of(ks, name, strlen(name), NULL, 0, addr);
}

/* the hrtimer event on the tick's handler, when the tick runs from an hrtimer */
static bool pick_hrtimer(struct session *s)
{
	static const char *const handlers[] = { "tick_nohz_handler", "tick_sched_timer" };
	uint64_t fn;
	unsigned int i;

	if (!tfs_exists(s->c.tr.tfs, "events/timer/hrtimer_expire_entry/format"))
		return false;
	/* --tracefs (a simulator) has no timer_list of its own: the events say */
	if (!s->opts.tracefs && hres_active() == 0)
		return false;
	for (i = 0; i < sizeof(handlers) / sizeof(handlers[0]); i++)
		if (symbol(s->c.tr.ksym, handlers[i], &fn) == 0) {
			snprintf(s->tick_event, sizeof(s->tick_event),
				 "timer:hrtimer_expire_entry if function == 0x%llx",
				 (unsigned long long)fn);
			return true;
		}
	return false;
}

int session_setup_tick(struct session *s, char *err, size_t errsz)
{
	if (!s->opts.oncpu_tick)
		return 0;
	if (symbol(s->c.tr.ksym, "__irqentry_text_start", &s->tick_trim[0]) < 0 ||
	    symbol(s->c.tr.ksym, "__irqentry_text_end", &s->tick_trim[1]) < 0 ||
	    s->tick_trim[1] <= s->tick_trim[0])
		return fmt_error(err, errsz, -EOPNOTSUPP,
				 "--oncpu=tick: no __irqentry_text in the kernel's symbols (x86 "
				 "only, and kallsyms readable): the interrupted function cannot be "
				 "told from the interrupt's frames; --oncpu samples with perf");
	if (!pick_hrtimer(s)) {
		if (!tfs_exists(s->c.tr.tfs, "events/irq_vectors/local_timer_entry/format"))
			return fmt_error(
				err, errsz, -EOPNOTSUPP,
				"--oncpu=tick: this kernel has no tick event (neither "
				"timer:hrtimer_expire_entry on the tick's handler nor "
				"irq_vectors:local_timer_entry); --oncpu samples with perf");
		snprintf(s->tick_event, sizeof(s->tick_event), "irq_vectors:local_timer_entry");
	}
	s->tick_events[0] = s->tick_event;
	s->opts.events = s->tick_events;
	s->opts.nevents = 1;
	return 0;
}
