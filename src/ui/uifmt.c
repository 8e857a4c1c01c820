// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * uifmt.c - pure helpers of the interactive screen (see uifmt.h).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/format.h"
#include "output/counters.h"
#include "session/session.h"
#include "ui/uifmt.h"

int uifmt_layout(const struct col_spec *specs, int n, int width, struct col_pos *out)
{
	bool shown[64];
	int i, need, nshown, extra, last_flex = -1, x;

	if (n > 64)
		n = 64;
	if (width < 0)
		width = 0;
	for (i = 0; i < n; i++) {
		shown[i] = !specs[i].hidden;
		out[i].x = 0;
		out[i].w = 0;
	}
	for (;;) {
		int drop = -1;

		need = 0;
		nshown = 0;
		for (i = 0; i < n; i++) {
			if (!shown[i])
				continue;
			need += specs[i].min + (nshown ? 1 : 0);
			nshown++;
			if (specs[i].prio > 0 && (drop < 0 || specs[i].prio >= specs[drop].prio))
				drop = i;
		}
		if (need <= width || drop < 0)
			break;
		shown[drop] = false;
	}
	for (i = 0; i < n; i++)
		if (shown[i])
			out[i].w = specs[i].min;
	extra = width - need;
	/* fixed columns first, up to what they want */
	for (i = 0; i < n && extra > 0; i++) {
		int grow;

		if (!shown[i] || specs[i].flex || specs[i].want <= specs[i].min)
			continue;
		grow = specs[i].want - specs[i].min;
		if (grow > extra)
			grow = extra;
		out[i].w += grow;
		extra -= grow;
	}
	for (i = 0; i < n; i++) {
		int grow;

		if (!shown[i] || !specs[i].flex)
			continue;
		last_flex = i;
		if (extra <= 0 || specs[i].want <= out[i].w)
			continue;
		grow = specs[i].want - out[i].w;
		if (grow > extra)
			grow = extra;
		out[i].w += grow;
		extra -= grow;
	}
	if (extra > 0 && last_flex >= 0)
		out[last_flex].w += extra;
	/* place; a row of prio-0 columns wider than the screen is clipped */
	x = 0;
	nshown = 0;
	for (i = 0; i < n; i++) {
		if (!shown[i]) {
			out[i].w = 0;
			continue;
		}
		if (nshown)
			x++;
		out[i].x = x;
		if (x >= width) {
			out[i].w = 0;
			continue;
		}
		if (x + out[i].w > width)
			out[i].w = width - x;
		x += out[i].w;
		nshown++;
	}
	return nshown;
}

int uifmt_terms_parse(const char *text, struct uifmt_terms *ret)
{
	const char *p = text ? text : "";

	memset(ret, 0, sizeof(*ret));
	while (*p && ret->n < UIFMT_MAX_TERMS) {
		const char *end = strchr(p, '|');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		while (len && isblank((unsigned char)*p)) {
			p++;
			len--;
		}
		while (len && isblank((unsigned char)p[len - 1]))
			len--;
		if (len) {
			if (len >= UIFMT_TERM_LEN)
				len = UIFMT_TERM_LEN - 1;
			memcpy(ret->term[ret->n], p, len);
			ret->term[ret->n][len] = '\0';
			ret->n++;
		}
		if (!end)
			break;
		p = end + 1;
	}
	return ret->n;
}

bool uifmt_terms_match(const struct uifmt_terms *t, const char *text)
{
	int i;

	for (i = 0; i < t->n; i++)
		if (strcasestr(text, t->term[i]))
			return true;
	return false;
}

int uifmt_parse_delay(const char *text, double *ret)
{
	char *end;
	double v;

	while (isblank((unsigned char)*text))
		text++;
	if (!*text)
		return -EINVAL;
	errno = 0;
	v = strtod(text, &end);
	if (end == text || errno)
		return -EINVAL;
	if (*end == 's')
		end++;
	while (isblank((unsigned char)*end))
		end++;
	if (*end || isnan(v))
		return -EINVAL;
	if (v < 0.1 || v > 3600)
		return -ERANGE;
	*ret = v;
	return 0;
}

int uifmt_parse_pid(const char *text, int *ret)
{
	char *end;
	long v;

	while (isblank((unsigned char)*text))
		text++;
	if (!isdigit((unsigned char)*text))
		return 0;
	errno = 0;
	v = strtol(text, &end, 10);
	while (isblank((unsigned char)*end))
		end++;
	if (*end || errno || v < 0 || v > 0x3fffffff)
		return 0;
	*ret = (int)v;
	return 1;
}

int uifmt_save_name(char *buf, size_t size, time_t when, int seq, const char *suffix)
{
	struct tm tm;
	char stamp[32];

	if (!localtime_r(&when, &tm) || !strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm))
		snprintf(stamp, sizeof(stamp), "%lld", (long long)when);
	if (seq > 0)
		return snprintf(buf, size, "stacktop-%s-%d%s", stamp, seq, suffix);
	return snprintf(buf, size, "stacktop-%s%s", stamp, suffix);
}

int uifmt_folded_name(char *buf, size_t size, time_t when, int seq)
{
	return uifmt_save_name(buf, size, when, seq, ".folded");
}

static const char *uifmt_errname(int err)
{
	const char *name = strerrorname_np(err);

	return name ? name : "error";
}

int uifmt_reset_result(char *buf, size_t size, int err, bool stackmap)
{
	switch (err) {
	case 0:
		return snprintf(buf, size,
				stackmap ? "reset: kernel map and counts start from zero"
					 : "reset: counts start from zero");
	case -EBUSY:
		return snprintf(
			buf, size,
			"reset refused: EBUSY (the kernel map is busy: tracing could not be stopped or another reset runs)");
	case -EINVAL:
		return snprintf(
			buf, size,
			"reset refused: EINVAL (the kernel rejected the write to stack_map)");
	case -EPERM:
	case -EACCES:
		return snprintf(buf, size, "reset failed: %s (run as root)", uifmt_errname(-err));
	default:
		return snprintf(buf, size, "reset failed: %s (%s)", uifmt_errname(-err),
				strerror(-err));
	}
}

int uifmt_stackmap_result(char *buf, size_t size, int err, bool on)
{
	switch (err) {
	case 0:
		return snprintf(buf, size, "kernel stackmap option turned %s", on ? "on" : "off");
	case -EOPNOTSUPP:
		return snprintf(
			buf, size,
			"cannot turn stackmap %s: kernel has no stackmap option (EOPNOTSUPP)",
			on ? "on" : "off");
	case -EINVAL:
		return snprintf(
			buf, size,
			"cannot turn stackmap %s: EINVAL (the kernel refused: the option is global-only or the map failed to initialise)",
			on ? "on" : "off");
	case -EBUSY:
		return snprintf(buf, size,
				"cannot turn stackmap %s: EBUSY (the kernel map is busy)",
				on ? "on" : "off");
	default:
		return snprintf(buf, size, "cannot turn stackmap %s: %s (%s)", on ? "on" : "off",
				uifmt_errname(-err), strerror(-err));
	}
}

int uifmt_delay(char *buf, size_t size, double sec)
{
	int n = snprintf(buf, size, "%.2f", sec);
	size_t len;

	if (n < 0 || (size_t)n >= size)
		return snprintf(buf, size, "%gs", sec);
	len = (size_t)n;
	while (len > 1 && buf[len - 1] == '0')
		len--;
	if (len > 1 && buf[len - 1] == '.')
		len--;
	buf[len] = '\0';
	return snprintf(buf + len, size - len, "s") + (int)len;
}

static struct uifmt_seg *seg_add(struct uifmt_seg *segs, int *n, int max, const char *label)
{
	struct uifmt_seg *sg;

	if (*n >= max)
		return NULL;
	sg = &segs[(*n)++];
	snprintf(sg->label, sizeof(sg->label), "%s", label);
	sg->value[0] = '\0';
	sg->alert = false;
	return sg;
}

/* "1.23M (+45)": a total and the last interval's share */
static void seg_total_delta(struct uifmt_seg *sg, uint64_t total, uint64_t delta)
{
	char t[16], d[16];

	fmt_count(t, sizeof(t), total);
	fmt_count(d, sizeof(d), delta);
	snprintf(sg->value, sizeof(sg->value), "%s (+%s)", t, d);
	sg->alert = delta > 0;
}

/*
 * The counters of place @place of the header (output/counters.c, CP_SCREEN_*): a
 * segment each, "total" or "total (+n)"; those shown only when not 0 are
 * left out at 0
 */
static void seg_counters(const struct session_stats *st, unsigned int place, struct uifmt_seg *segs,
			 int *n, int max)
{
	const struct counter_word *w[HC_N];
	unsigned int k = counter_words_at(place, w), i;

	for (i = 0; i < k; i++) {
		const struct head_counter *c = &head_counters[w[i]->counter];
		uint64_t v = head_counter_value(st, c);
		struct uifmt_seg *sg;

		if (((w[i]->show & CW_NZ) && !v) || !(sg = seg_add(segs, n, max, w[i]->words)))
			continue;
		if (w[i]->show & CW_DELTA) {
			seg_total_delta(sg, v, head_counter_delta(st, c));
			sg->alert = sg->alert && (w[i]->show & CW_ALERT);
			continue;
		}
		if (c->type == HCY_U32)
			snprintf(sg->value, sizeof(sg->value), "%u", (unsigned int)v);
		else if (c->type == HCY_BYTES)
			fmt_bytes(sg->value, sizeof(sg->value), v);
		else
			fmt_count(sg->value, sizeof(sg->value), v);
		sg->alert = (w[i]->show & CW_ALERT) && v;
	}
}

int uifmt_header_rates(const struct session_stats *st, size_t nstacks, struct uifmt_seg *segs,
		       int max)
{
	struct session_ringbuf rb;
	struct uifmt_seg *sg;
	int n = 0;

	if ((sg = seg_add(segs, &n, max, "events/s")))
		fmt_rate(sg->value, sizeof(sg->value),
			 st->interval_sec > 0 ? (double)st->events_delta / st->interval_sec : 0);
	seg_counters(st, CP_SCREEN_LOSS, segs, &n, max);
	if ((sg = seg_add(segs, &n, max, "stacks")))
		fmt_count(sg->value, sizeof(sg->value), nstacks);
	seg_counters(st, CP_SCREEN_EVENTS, segs, &n, max);
	if ((sg = seg_add(segs, &n, max, "cpu")))
		snprintf(sg->value, sizeof(sg->value), "%.1f%%", st->self_cpu);
	if (st->user != SESSION_USER_OFF && (sg = seg_add(segs, &n, max, "user"))) {
		uint64_t all = 0;
		int w, n0;

		for (w = 0; w < UJOIN_WHY_MAX; w++)
			all += st->ujoin.why[w];
		if (st->user == SESSION_USER_FP)
			snprintf(sg->value, sizeof(sg->value), "%s",
				 st->user_note[0] ? "fp (no dwarf)" : "fp");
		else if (!all)
			snprintf(sg->value, sizeof(sg->value), "dwarf");
		else {
			double pct = 100.0 * (double)st->ujoin.why[UJOIN_OK] / (double)all;
			int top = UJOIN_OK;

			/*
			 * the share with a user stack, and the first reason for the
			 * rest; sampled: "dwarf 1/10 10%", the events not sampled
			 * are no reason to look
			 */
			for (w = UJOIN_OK + 1; w < UJOIN_WHY_MAX; w++)
				if (w != UJOIN_NOT_SAMPLED &&
				    st->ujoin.why[w] > (top == UJOIN_OK ? 0 : st->ujoin.why[top]))
					top = w;
			if (st->user_period > 1)
				n0 = snprintf(sg->value, sizeof(sg->value), "dwarf 1/%u %.0f%%",
					      st->user_period, pct);
			else
				n0 = snprintf(sg->value, sizeof(sg->value), "dwarf %.0f%%", pct);
			if (top != UJOIN_OK && n0 > 0 && (size_t)n0 < sizeof(sg->value))
				snprintf(sg->value + n0, sizeof(sg->value) - (size_t)n0,
					 " (%.0f%% %s)",
					 100.0 * (double)st->ujoin.why[top] / (double)all,
					 ujoin_why_name((enum ujoin_why)top));
		}
		/*
		 * a tenth of the events without their user stack is worth a look
		 * (of those that were to have one: --user-sample leaves the rest)
		 */
		all -= st->ujoin.why[UJOIN_NOT_SAMPLED];
		sg->alert = (st->user == SESSION_USER_FP && st->user_note[0]) ||
			    (all && st->ujoin.why[UJOIN_OK] * 10 < all * 9);
	}
	if (!st->tracing_on && st->mode != SESSION_REPLAY && st->mode != SESSION_ONCPU &&
	    st->mode != SESSION_SAMPLED && (sg = seg_add(segs, &n, max, "tracing"))) {
		snprintf(sg->value, sizeof(sg->value), "OFF");
		sg->alert = true;
	}
	/*
	 * --offcpu: the sleeps that ended at the wakeup (no switch-in recorded)
	 * leave out their run-queue wait: how many, as the batch header says
	 */
	if (st->offcpu_woken && (sg = seg_add(segs, &n, max, "ended at wakeup")))
		snprintf(sg->value, sizeof(sg->value), "%.0f%%",
			 100.0 * (double)st->offcpu_woken /
				 (double)(st->offcpu_sleeps ? st->offcpu_sleeps : 1));
	/* --overhead: the N in force and what the stacks cost at it */
	if (st->overhead_target && (sg = seg_add(segs, &n, max, "overhead"))) {
		snprintf(sg->value, sizeof(sg->value), "1/%u ~%.1f%%", st->sample_period,
			 st->overhead_est / 1000.0);
		sg->alert = st->overhead_est > 2 * st->overhead_target;
	}
	/* stacks mode: what the stack map would save on this workload */
	if (st->mode == SESSION_STACKS && session_ringbuf_saving(st, &rb) &&
	    (sg = seg_add(segs, &n, max, "stackmap")))
		snprintf(sg->value, sizeof(sg->value), "would cut ring-buffer use by %.0f%%",
			 rb.saving_pct);
	seg_counters(st, CP_SCREEN_RATES, segs, &n, max);
	return n;
}

int uifmt_header_map(const struct session_stats *st, struct uifmt_seg *segs, int max)
{
	struct session_ringbuf rb;
	struct uifmt_seg *sg;
	char a[16], b[16];
	int n = 0;

	if (st->mode != SESSION_STACKMAP && st->mode != SESSION_PASSIVE)
		return 0;
	if ((sg = seg_add(segs, &n, max, "stackmap")))
		snprintf(sg->value, sizeof(sg->value), "%s%s", st->stackmap_on ? "on" : "off",
			 st->map_abi ? (st->map_abi == 4   ? " v4"
					: st->map_abi == 3 ? " v3"
					: st->map_abi == 2 ? " v2"
							   : " v1")
				     : "");
	if (!st->have_map_stat) {
		if ((sg = seg_add(segs, &n, max, "map")))
			snprintf(sg->value, sizeof(sg->value), "no stats");
	} else {
		if ((sg = seg_add(segs, &n, max, "entries"))) {
			fmt_count(a, sizeof(a), st->map.entries);
			if (st->map.capacity) {
				fmt_count(b, sizeof(b), st->map.capacity);
				snprintf(sg->value, sizeof(sg->value), "%s/%s", a, b);
				sg->alert = st->map.entries >= st->map.capacity;
			} else {
				snprintf(sg->value, sizeof(sg->value), "%s", a);
			}
		}
		if ((sg = seg_add(segs, &n, max, st->map.v1_names ? "hits" : "successes")))
			fmt_count(sg->value, sizeof(sg->value), st->map.successes);
		if ((sg = seg_add(segs, &n, max, "drops"))) {
			fmt_count(sg->value, sizeof(sg->value), st->map.drops);
			sg->alert = st->map.drops > 0;
		}
		if ((sg = seg_add(segs, &n, max, st->map.v1_names ? "hit rate" : "success"))) {
			if (st->map.success_rate < 0)
				snprintf(sg->value, sizeof(sg->value), "-");
			else
				snprintf(sg->value, sizeof(sg->value), "%d%%",
					 st->map.success_rate);
			sg->alert = st->map.success_rate >= 0 && st->map.success_rate < 100;
		}
	}
	seg_counters(st, CP_SCREEN_MAP, segs, &n, max);
	if (session_ringbuf_saving(st, &rb) && (sg = seg_add(segs, &n, max, "map saves")))
		snprintf(sg->value, sizeof(sg->value), "%.0f%% (%.0f of %.0f B/ev)", rb.saving_pct,
			 rb.read_per_event, rb.alt_per_event);
	return n;
}

/* ---- sparklines ---------------------------------------------------------- */

int uifmt_spark_level(uint64_t v, uint64_t max)
{
	if (!v || !max)
		return 0;
	if (v >= max)
		return UIFMT_SPARK_LEVELS;
	/* ceil(v * 8 / max): the smallest count still shows as the lowest bar */
	return (int)(((unsigned __int128)v * UIFMT_SPARK_LEVELS + max - 1) / max);
}

int uifmt_spark(char *buf, size_t size, const uint64_t *v, int n, int width, bool utf8)
{
	static const char *const bars[UIFMT_SPARK_LEVELS + 1] = {
		" ", "\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586", "\u2587", "\u2588",
	};
	static const char ascii[] = " ._-=+*#@";
	uint64_t max = 0;
	size_t len = 0;
	int i, cols = 0;

	if (size)
		buf[0] = '\0';
	if (n > width) {
		v += n - width;
		n = width;
	}
	for (i = 0; i < n; i++)
		max = v[i] > max ? v[i] : max;
	for (i = 0; i < n; i++) {
		int l = uifmt_spark_level(v[i], max);
		const char *g = utf8 ? bars[l] : (const char[]){ ascii[l], '\0' };
		size_t gl = strlen(g);

		if (len + gl + 1 > size)
			break;
		memcpy(buf + len, g, gl + 1);
		len += gl;
		cols++;
	}
	return cols;
}

/* "52%" of @drops among the events, "-" with none */
static void pool_share(char *buf, size_t size, uint64_t successes, uint64_t drops)
{
	double p = stackmap_fallback_pct(successes, drops);

	if (p < 0)
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%.0f%%", p);
}

int uifmt_header_pool(const struct session_stats *st, struct uifmt_seg *segs, int max)
{
	const struct stackmap_health *h = &st->health;
	struct uifmt_seg *sg;
	char a[16], b[16], c[16];
	double before = 0, after = 0;
	int n = 0, i, split;

	if (st->mode != SESSION_STACKMAP && st->mode != SESSION_PASSIVE)
		return 0;
	if (!h->known || !st->have_map_stat) {
		if ((sg = seg_add(segs, &n, max, "pool")))
			snprintf(sg->value, sizeof(sg->value), "no stats");
		return n;
	}
	if (h->full) {
		time_t t = (time_t)h->full_since;
		struct tm tm;

		if (!localtime_r(&t, &tm) || !strftime(a, sizeof(a), "%H:%M:%S", &tm))
			snprintf(a, sizeof(a), "?");
		fmt_duration(b, sizeof(b), h->full_for);
		if ((sg = seg_add(segs, &n, max, "pool")))
			snprintf(sg->value, sizeof(sg->value), "FULL since %s%s (%s)",
				 h->full_at_start ? "start " : "", a, b);
	} else {
		fmt_count(a, sizeof(a), h->entries);
		fmt_count(b, sizeof(b), h->capacity);
		if ((sg = seg_add(segs, &n, max, "pool"))) {
			if (h->capacity)
				snprintf(sg->value, sizeof(sg->value), "%.0f%% %s/%s",
					 100.0 * (double)h->entries / (double)h->capacity, a, b);
			else
				snprintf(sg->value, sizeof(sg->value), "%s", a);
		}
		if ((sg = seg_add(segs, &n, max, "growth"))) {
			if (h->growth < 0) {
				snprintf(sg->value, sizeof(sg->value), "-");
			} else {
				fmt_rate(c, sizeof(c), h->growth);
				snprintf(sg->value, sizeof(sg->value), "+%s/s", c);
			}
		}
		if (h->capacity && (sg = seg_add(segs, &n, max, "full in"))) {
			if (h->eta < 0)
				snprintf(sg->value, sizeof(sg->value), "-");
			else
				fmt_duration(sg->value, sizeof(sg->value), h->eta);
		}
	}
	if ((h->full || h->drops_run) && (sg = seg_add(segs, &n, max, "fallback"))) {
		pool_share(a, sizeof(a), h->successes_delta, h->drops_delta);
		pool_share(b, sizeof(b), h->successes_run, h->drops_run);
		snprintf(sg->value, sizeof(sg->value), "%s now, %s since start", a, b);
	}
	if (h->warn && (sg = seg_add(segs, &n, max, "fix"))) {
		int k = snprintf(sg->value, sizeof(sg->value), "%s",
				 st->mode == SESSION_PASSIVE ? "the map is another tool's"
				 : h->full		     ? "r empties it"
							     : "r resets it");

		if (h->bits_advice && k > 0 && (size_t)k < sizeof(sg->value)) {
			fmt_count(c, sizeof(c), 1ULL << h->bits_advice);
			snprintf(sg->value + k, sizeof(sg->value) - (size_t)k,
				 "; boot ftrace_stackmap.bits=%u (%s%s)", h->bits_advice, c,
				 h->advice_short ? ", too few" : "");
		}
	}
	split = session_map_saves_split(st, &before, &after);
	if (split && (sg = seg_add(segs, &n, max, "saves"))) {
		if (split == 3)
			snprintf(sg->value, sizeof(sg->value), "%.0f%% before full, %.0f%% since",
				 before, after);
		else if (split & 1)
			snprintf(sg->value, sizeof(sg->value), "%.0f%% before full", before);
		else
			snprintf(sg->value, sizeof(sg->value), "%.0f%% since full", after);
	}
	if (h->full && h->fell_back && (sg = seg_add(segs, &n, max, "no room"))) {
		fmt_count(a, sizeof(a), h->fell_back);
		if (h->growth > 0) {
			fmt_rate(b, sizeof(b), h->growth);
			snprintf(sg->value, sizeof(sg->value), "%s stacks +%s/s", a, b);
		} else {
			snprintf(sg->value, sizeof(sg->value), "%s stacks", a);
		}
	}
	/* the whole line is a warning: full, or full within minutes */
	for (i = 0; i < n; i++)
		segs[i].alert = h->warn;
	return n;
}
