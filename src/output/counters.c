// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * counters.c - see counters.h: SESSION_COUNTERS as a table, and the few
 * ways the writers put a counter into words.
 */
#include <stdio.h>
#include <string.h>

#include "core/format.h"
#include "output/counters.h"
#include "source/stats.h"

#define HC_ROW(field_, type_, delta_, from_, json_, read_, text_, screen_, extra_, help_)          \
	[HC_##field_] = {                                                                          \
		.field = #field_,                                                                  \
		.off = HC_OFF(field_),                                                             \
		.doff = HC_DOFF_##delta_(field_),                                                  \
		.type = HCY_##type_,                                                               \
		.delta = HCD_##delta_,                                                             \
		.jplace = HCJP_##json_,                                                            \
		.jkey = HCJK_##json_,                                                              \
		.jdelta = HCJD_##json_ && HCD_##delta_ != HCD_ND,                                  \
		.read = HCR_##read_,                                                               \
		.tline = HCTL_##text_,                                                             \
		.tpos = HCTP_##text_,                                                              \
		.text = HCTW_##text_,                                                              \
		.splace = HCSL_##screen_,                                                          \
		.spos = HCSP_##screen_,                                                            \
		.show = HCSH_##screen_,                                                            \
		.slabel = HCSW_##screen_,                                                          \
		.extra = HCX_##extra_,                                                             \
		.help = help_,                                                                     \
	},

const struct head_counter head_counters[HC_N] = { SESSION_COUNTERS(HC_ROW) };

/* a count is 64 bits wide, its delta too; the others are what their type says */
#define HC_CHECK(field_, type_, ...)                                                               \
	_Static_assert(sizeof(((struct session_stats *)0)->field_) == sizeof(HC_CTYPE_##type_),    \
		       "the member of " #field_ " is not of its row's type");
SESSION_COUNTERS(HC_CHECK)
#undef HC_CHECK

uint64_t head_counter_value(const struct session_stats *st, const struct head_counter *c)
{
	const char *p = (const char *)st + c->off;
	uint32_t v32;
	bool b;

	switch (c->type) {
	case HCY_U32:
		memcpy(&v32, p, sizeof(v32));
		return v32;
	case HCY_BOOL:
		memcpy(&b, p, sizeof(b));
		return b;
	default: {
		uint64_t v;

		memcpy(&v, p, sizeof(v));
		return v;
	}
	}
}

uint64_t head_counter_delta(const struct session_stats *st, const struct head_counter *c)
{
	uint64_t v;

	if (c->doff == SIZE_MAX)
		return 0;
	memcpy(&v, (const char *)st + c->doff, sizeof(v));
	return v;
}

unsigned int head_counters_at(bool text, unsigned int where, const struct head_counter **ret)
{
	unsigned int n = 0, i, j;

	for (i = 0; i < HC_N; i++) {
		const struct head_counter *c = &head_counters[i];
		unsigned int pos = text ? c->tpos : c->spos;

		if ((text ? c->tline : c->splace) != where)
			continue;
		/* a handful each: insertion by position, the list's order among equals */
		for (j = n; j > 0 && (text ? ret[j - 1]->tpos : ret[j - 1]->spos) > pos; j--)
			ret[j] = ret[j - 1];
		ret[j] = c;
		n++;
	}
	return n;
}

/* @v as the header writes it: bytes, a flag, a count in full or made short */
static void hc_format(char *buf, size_t size, const struct head_counter *c, uint64_t v, bool human)
{
	if (c->type == HCY_BOOL)
		snprintf(buf, size, "%s", v ? "on" : "off");
	else if (c->type == HCY_BYTES && human)
		fmt_bytes(buf, size, v);
	else if (human && c->type != HCY_U32)
		fmt_count(buf, size, v);
	else
		snprintf(buf, size, "%llu", (unsigned long long)v);
}

/* @n bytes of @s at @len, as far as they fit; @len counts them all */
static void hc_put(char *buf, size_t size, size_t *len, const char *s, size_t n)
{
	if (*len + 1 < size) {
		size_t m = n < size - *len - 1 ? n : size - *len - 1;

		memcpy(buf + *len, s, m);
		buf[*len + m] = '\0';
	}
	*len += n;
}

int head_counter_words(char *buf, size_t size, const struct session_stats *st,
		       const struct head_counter *c, bool human)
{
	char v[2][32];
	const char *w = c->text, *s;
	size_t len = 0;
	int k = 0;

	hc_format(v[0], sizeof(v[0]), c, head_counter_value(st, c), human);
	hc_format(v[1], sizeof(v[1]), c, head_counter_delta(st, c), human);
	if (!w)
		return snprintf(buf, size, "%s %s", c->jkey ? c->jkey : c->field, v[0]);
	if (size)
		buf[0] = '\0';
	/* the words are data, not a format: "%s" is the one thing replaced */
	while (k < 2 && (s = strstr(w, "%s"))) {
		hc_put(buf, size, &len, w, (size_t)(s - w));
		hc_put(buf, size, &len, v[k], strlen(v[k]));
		w = s + 2;
		k++;
	}
	hc_put(buf, size, &len, w, strlen(w));
	return (int)len;
}

int head_counters_brief(char *buf, size_t size, const struct session_stats *st, unsigned int extra)
{
	const char *sep = "";
	size_t len = 0;
	unsigned int i;

	if (size)
		buf[0] = '\0';
	for (i = 0; i < HC_N; i++) {
		const struct head_counter *c = &head_counters[i];
		uint64_t v = head_counter_value(st, c);
		int n;

		if (!(c->extra & extra) || !v)
			continue;
		n = snprintf(len < size ? buf + len : NULL, len < size ? size - len : 0,
			     "%s%s %llu", sep, c->jkey ? c->jkey : c->field, (unsigned long long)v);
		if (n > 0)
			len += (size_t)n;
		sep = ", ";
	}
	return (int)len;
}
