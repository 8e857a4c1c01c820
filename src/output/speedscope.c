// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * speedscope.c - a speedscope file (https://www.speedscope.app/
 * file-format-schema.json): frames shared by function, one "sampled"
 * profile per event, samples root first, weights the hit counts.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sym/brief.h"
#include "output/counters.h"
#include "output/formats.h"
#include "output/losses.h"
#include "output/rows.h"
#include "core/format.h"
#include "sym/frame.h"
#include "sym/ksym.h"
#include "session/session.h"
#include "sym/usym.h"

struct ss {
	uint64_t *addrs; /* every frame address, sorted, unique */
	size_t naddrs;
	char **keys;   /* "name\tfile" of each address */
	char **frames; /* sorted unique keys: the shared frames */
	size_t nframes;
	uint32_t *frame_of; /* frame index of each address */
};

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int ss_build(struct ss *c, struct ksym *ks, const struct rank_row *rows, size_t n)
{
	size_t total = 0, i, j, m;

	for (i = 0; i < n; i++)
		total += rows[i].stack->depth;
	c->addrs = calloc(total ? total : 1, sizeof(*c->addrs));
	if (!c->addrs)
		return -ENOMEM;
	for (i = 0, m = 0; i < n; i++)
		for (j = 0; j < rows[i].stack->depth; j++)
			if (!usym_is_sep(rows[i].stack->ips[j])) /* no frame: no sample has it */
				c->addrs[m++] = rows[i].stack->ips[j];
	qsort(c->addrs, m, sizeof(*c->addrs), u64_cmp);
	for (i = 0, j = 0; i < m; i++)
		if (!j || c->addrs[i] != c->addrs[j - 1])
			c->addrs[j++] = c->addrs[i];
	c->naddrs = j;
	c->keys = calloc(j ? j : 1, sizeof(*c->keys));
	c->frames = calloc(j ? j : 1, sizeof(*c->frames));
	c->frame_of = calloc(j ? j : 1, sizeof(*c->frame_of));
	if (!c->keys || !c->frames || !c->frame_of)
		return -ENOMEM;
	for (i = 0; i < c->naddrs; i++) {
		char name[256], file[128], key[400];
		struct ksym_hit h;

		fmt_func(name, sizeof(name), ks, c->addrs[i], 0);
		if (usym_is_user(c->addrs[i])) {
			char full[400];
			size_t l, nl = strlen(name);

			/* -u: the file of "func (file)"; a cut mark has none */
			fmt_func(full, sizeof(full), ks, c->addrs[i], 1);
			l = strlen(full);
			if (l > nl + 3 && !strncmp(full, name, nl) &&
			    !strncmp(full + nl, " (", 2) && full[l - 1] == ')')
				snprintf(file, sizeof(file), "%.*s", (int)(l - nl - 3),
					 full + nl + 2);
			else
				snprintf(file, sizeof(file), "[user]");
		} else if (ks && ksym_lookup_frame(ks, c->addrs[i], &h) == 0 && h.module) {
			char mod[96];

			fmt_sanitize(mod, sizeof(mod), h.module, strlen(h.module));
			snprintf(file, sizeof(file), "[%s]", mod);
		} else {
			snprintf(file, sizeof(file), "[kernel.kallsyms]");
		}
		snprintf(key, sizeof(key), "%s\t%s", name, file);
		c->keys[i] = strdup(key);
		if (!c->keys[i])
			return -ENOMEM;
		c->frames[i] = c->keys[i];
	}
	qsort(c->frames, c->naddrs, sizeof(*c->frames), str_cmp);
	for (i = 0, j = 0; i < c->naddrs; i++)
		if (!j || strcmp(c->frames[i], c->frames[j - 1]))
			c->frames[j++] = c->frames[i];
	c->nframes = j;
	for (i = 0; i < c->naddrs; i++) {
		char **hit =
			bsearch(&c->keys[i], c->frames, c->nframes, sizeof(*c->frames), str_cmp);

		c->frame_of[i] = hit ? (uint32_t)(hit - c->frames) : 0;
	}
	return 0;
}

static uint32_t ss_frame(const struct ss *c, uint64_t ip)
{
	const uint64_t *hit = bsearch(&ip, c->addrs, c->naddrs, sizeof(ip), u64_cmp);

	return hit ? c->frame_of[hit - c->addrs] : 0;
}

static void ss_free(struct ss *c)
{
	size_t i;

	if (c->keys)
		for (i = 0; i < c->naddrs; i++)
			free(c->keys[i]);
	free(c->keys);
	free(c->frames);
	free(c->frame_of);
	free(c->addrs);
}

/* the hits of @sk for event @ev under the view */
static uint64_t ss_weight(struct stack_table *t, const struct stack *sk, int ev,
			  const struct report_opts *o)
{
	const struct stack_attr *a;
	uint64_t w = 0;

	for (a = sk->attrs; a; a = a->next) {
		uint64_t d, tot;

		if (a->event != ev || !export_attr_passes(&o->rank, a))
			continue;
		tot = export_attr_total(t, &o->rank, a, &d);
		w += o->delta ? d : tot;
	}
	return w;
}

int export_speedscope(FILE *f, struct session *s, const struct report_opts *o)
{
	struct stack_table *t = session_table(s);
	struct ss c = { 0 };
	struct rank_summary sum;
	struct rank_row *rows;
	struct export_losses l;
	const struct export_losses *lost_est;
	char name[768], user[320];
	double share;
	size_t n, i;
	int r, ev, maxev = -1, profiles = 0, len;

	r = export_rows(s, &o->rank, SIZE_MAX, &rows, &n, &sum);
	if (r < 0)
		return r;
	r = ss_build(&c, session_ksym(s), rows, n);
	if (r < 0)
		goto out;
	for (i = 0; i < n; i++) {
		const struct stack_attr *a;

		for (a = rows[i].stack->attrs; a; a = a->next)
			if (a->event > maxev)
				maxev = a->event;
	}

	/* what the samples miss, in the names speedscope shows (losses.h) */
	export_losses_get(s, o->delta, &l);
	share = export_losses_share(&l);
	len = snprintf(name, sizeof(name), "stacktop kernel stacks");
	if (export_losses_any(&l)) {
		len += snprintf(name + len, sizeof(name) - (size_t)len, "; ");
		export_losses_text(name + len, sizeof(name) - (size_t)len, &l);
		len = (int)strlen(name);
	}
	if (export_user_text(user, sizeof(user), session_stats(s)) > 0 && strstr(user, " without"))
		len += snprintf(name + len, sizeof(name) - (size_t)len, "; %s", user);
	/* the counters that say what the samples leave out (output/counters.c) */
	if (len < (int)sizeof(name) - 2 &&
	    counters_named(user, sizeof(user), session_stats(s), CP_PROFILE) > 0)
		snprintf(name + len, sizeof(name) - (size_t)len, "; %s", user);
	lost_est = o->lost_stack ? &l : NULL;
	fprintf(f,
		"{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
		"\"exporter\":\"stacktop %s\",\"name\":",
		STACKTOP_VERSION);
	export_json_str(f, name);
	fprintf(f, ",\"activeProfileIndex\":0,\"shared\":{\"frames\":[");
	for (i = 0; i < c.nframes; i++) {
		char *tab = strchr(c.frames[i], '\t');

		*tab = '\0';
		fprintf(f, "%s{\"name\":", i ? "," : "");
		export_json_str(f, c.frames[i]);
		fprintf(f, ",\"file\":");
		export_json_str(f, tab + 1);
		fputc('}', f);
		*tab = '\t';
	}
	if (lost_est) /* the last frame: the lost events' stack */
		fprintf(f, "%s{\"name\":\"" EXPORT_LOST_FRAME "\"}", c.nframes ? "," : "");
	fprintf(f, "]},\"profiles\":[");
	for (ev = 0; ev <= maxev; ev++) {
		uint64_t end = 0, lost;
		bool first = true;
		char pname[320];

		for (i = 0; i < n; i++)
			end += ss_weight(t, rows[i].stack, ev, o);
		if (!end)
			continue;
		lost = lost_est ? export_losses_scale(lost_est, end) : 0;
		if (share > 0)
			snprintf(pname, sizeof(pname), "%s (about %.1f%% of the events lost)",
				 session_event(s, (unsigned int)ev), 100.0 * share);
		else
			snprintf(pname, sizeof(pname), "%s", session_event(s, (unsigned int)ev));
		fprintf(f, "%s{\"type\":\"sampled\",\"name\":", profiles ? "," : "");
		export_json_str(f, pname);
		fprintf(f,
			",\"unit\":\"%s\",\"startValue\":0,\"endValue\":%" PRIu64 ",\"samples\":[",
			o->rank.weight && session_unit(s) == UNIT_BYTES ? "bytes"
			: o->rank.weight && session_unit(s) == UNIT_NS	? "nanoseconds"
									: "none",
			end + lost);
		for (i = 0; i < n; i++) {
			const struct stack *sk = rows[i].stack;
			int j, skip = (int)brief_skip(session_ksym(s), sk);
			bool lead = true;

			if (!ss_weight(t, sk, ev, o))
				continue;
			fprintf(f, "%s[", first ? "" : ",");
			/* down to the first frame after the tracing machinery */
			for (j = sk->depth - 1; j >= skip; j--) {
				if (usym_is_sep(sk->ips[j]))
					continue; /* -u: user frames run straight into kernel ones
						   */
				fprintf(f, "%s%u", lead ? "" : ",", ss_frame(&c, sk->ips[j]));
				lead = false;
			}
			fputc(']', f);
			first = false;
		}
		if (lost)
			fprintf(f, "%s[%zu]", first ? "" : ",", c.nframes);
		fprintf(f, "],\"weights\":[");
		first = true;
		for (i = 0; i < n; i++) {
			uint64_t w = ss_weight(t, rows[i].stack, ev, o);

			if (!w)
				continue;
			fprintf(f, "%s%" PRIu64, first ? "" : ",", w);
			first = false;
		}
		if (lost)
			fprintf(f, "%s%" PRIu64, first ? "" : ",", lost);
		fprintf(f, "]}");
		profiles++;
	}
	fprintf(f, "]}\n");
	r = export_flush(f);
out:
	ss_free(&c);
	free(rows);
	return r < 0 ? r : profiles;
}
