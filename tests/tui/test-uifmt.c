// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-uifmt.c - the curses-free helpers of the UI: column layout, filter
 * terms, input parsing, status messages, header segments, the hash map and
 * the symbol / filter caches.
 */
#include <errno.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "core/hmap.h"
#include "sym/ksym.h"
#include "session/session.h"
#include "core/stack_table.h"
#include "core/rank.h"
#include "ui/symcache.h"
#include "core/calltree.h"
#include "ui/flame_layout.h"
#include "ui/uifmt.h"

/* ---- layout -------------------------------------------------------------- */

static const struct col_spec specs[] = {
	{ .min = 4, .want = 5, .prio = 5 },		    /* 0 rank */
	{ .min = 6, .want = 6, .prio = 0 },		    /* 1 delta */
	{ .min = 6, .want = 6, .prio = 8 },		    /* 2 rate */
	{ .min = 10, .want = 18, .prio = 6, .flex = true }, /* 3 event */
	{ .min = 20, .want = 40, .prio = 0, .flex = true }, /* 4 function */
};
#define NSPECS (int)(sizeof(specs) / sizeof(specs[0]))

static int layout_right_edge(const struct col_pos *p, int n)
{
	int i, edge = 0;

	for (i = 0; i < n; i++)
		if (p[i].w && p[i].x + p[i].w > edge)
			edge = p[i].x + p[i].w;
	return edge;
}

static void test_uifmt_layout_wide(void **state)
{
	struct col_pos p[NSPECS];

	(void)state;
	assert_int_equal(uifmt_layout(specs, NSPECS, 200, p), NSPECS);
	assert_int_equal(p[0].x, 0);
	assert_int_equal(p[0].w, 5);
	assert_int_equal(p[1].x, 6);
	assert_int_equal(p[3].w, 18);
	/* the last flexible column takes the rest, exactly to the edge */
	assert_int_equal(layout_right_edge(p, NSPECS), 200);
	assert_int_equal(p[4].x + p[4].w, 200);
}

static void test_uifmt_layout_narrow_drops_by_prio(void **state)
{
	struct col_pos p[NSPECS];

	(void)state;
	/* mins: 4+6+6+10+20 + 4 blanks = 50; at 45 the rate (prio 8) goes */
	assert_int_equal(uifmt_layout(specs, NSPECS, 45, p), NSPECS - 1);
	assert_int_equal(p[2].w, 0);
	assert_true(p[3].w >= 10);
	assert_true(layout_right_edge(p, NSPECS) <= 45);
	/* at 40 the event goes too */
	assert_int_equal(uifmt_layout(specs, NSPECS, 40, p), NSPECS - 2);
	assert_int_equal(p[3].w, 0);
	assert_true(layout_right_edge(p, NSPECS) <= 40);
}

/* a hidden column (one event traced) is never shown; its room goes to the others */
static void test_uifmt_layout_hidden(void **state)
{
	struct col_spec hs[NSPECS];
	struct col_pos p[NSPECS], q[NSPECS];

	(void)state;
	memcpy(hs, specs, sizeof(hs));
	hs[3].hidden = true;
	assert_int_equal(uifmt_layout(hs, NSPECS, 200, p), NSPECS - 1);
	assert_int_equal(p[3].w, 0);
	assert_int_equal(layout_right_edge(p, NSPECS), 200);
	uifmt_layout(specs, NSPECS, 200, q);
	assert_true(p[4].w > q[4].w);
}

static void test_uifmt_layout_never_past_width(void **state)
{
	struct col_pos p[NSPECS];
	int w;

	(void)state;
	for (w = 0; w < 120; w++) {
		uifmt_layout(specs, NSPECS, w, p);
		assert_true(layout_right_edge(p, NSPECS) <= w);
	}
}

/* ---- terms ------------------------------------------------------------- */

static void test_uifmt_terms(void **state)
{
	struct uifmt_terms t;

	(void)state;
	assert_int_equal(uifmt_terms_parse(" do_Nanosleep | ext4 ||", &t), 2);
	assert_string_equal(t.term[0], "do_Nanosleep");
	assert_string_equal(t.term[1], "ext4");
	assert_true(uifmt_terms_match(&t, "hrtimer < do_nanosleep"));
	assert_true(uifmt_terms_match(&t, "ext4_file_write_iter [ext4]"));
	assert_false(uifmt_terms_match(&t, "__schedule"));
	assert_int_equal(uifmt_terms_parse("", &t), 0);
	assert_false(uifmt_terms_match(&t, "anything"));
	assert_int_equal(uifmt_terms_parse(NULL, &t), 0);
}

/* ---- parsing ----------------------------------------------------------- */

static void test_uifmt_parse_delay(void **state)
{
	double d = 0;

	(void)state;
	assert_int_equal(uifmt_parse_delay("2", &d), 0);
	assert_true(d == 2.0);
	assert_int_equal(uifmt_parse_delay(" 0.5s ", &d), 0);
	assert_true(d == 0.5);
	assert_int_equal(uifmt_parse_delay("abc", &d), -EINVAL);
	assert_int_equal(uifmt_parse_delay("", &d), -EINVAL);
	assert_int_equal(uifmt_parse_delay("1x", &d), -EINVAL);
	assert_int_equal(uifmt_parse_delay("nan", &d), -EINVAL);
	assert_int_equal(uifmt_parse_delay("0.01", &d), -ERANGE);
	assert_int_equal(uifmt_parse_delay("1e9", &d), -ERANGE);
	assert_int_equal(uifmt_parse_delay("-1", &d), -ERANGE);
	assert_true(d == 0.5);
}

static void test_uifmt_parse_pid(void **state)
{
	int pid = -1;

	(void)state;
	assert_int_equal(uifmt_parse_pid("1234", &pid), 1);
	assert_int_equal(pid, 1234);
	assert_int_equal(uifmt_parse_pid(" 7 ", &pid), 1);
	assert_int_equal(pid, 7);
	assert_int_equal(uifmt_parse_pid("12a", &pid), 0);
	assert_int_equal(uifmt_parse_pid("sleep", &pid), 0);
	assert_int_equal(uifmt_parse_pid("", &pid), 0);
	assert_int_equal(uifmt_parse_pid("99999999999", &pid), 0);
	assert_int_equal(pid, 7);
}

/* ---- messages ---------------------------------------------------------- */

static void test_uifmt_folded_name(void **state)
{
	char buf[64];

	(void)state;
	setenv("TZ", "UTC", 1);
	tzset();
	uifmt_folded_name(buf, sizeof(buf), 86400 + 3661, 0);
	assert_string_equal(buf, "stacktop-19700102-010101.folded");
	uifmt_folded_name(buf, sizeof(buf), 0, 2);
	assert_string_equal(buf, "stacktop-19700101-000000-2.folded");
	/* snprintf semantics */
	assert_int_equal(uifmt_folded_name(buf, 8, 0, 0), 31);
	assert_string_equal(buf, "stackto");
	uifmt_save_name(buf, sizeof(buf), 0, 3, ".pb.gz");
	assert_string_equal(buf, "stacktop-19700101-000000-3.pb.gz");
}

static void test_uifmt_results(void **state)
{
	char buf[256];

	(void)state;
	uifmt_reset_result(buf, sizeof(buf), 0, true);
	assert_non_null(strstr(buf, "kernel map"));
	uifmt_reset_result(buf, sizeof(buf), 0, false);
	assert_string_equal(buf, "reset: counts start from zero");
	uifmt_reset_result(buf, sizeof(buf), -EBUSY, true);
	assert_non_null(strstr(buf, "EBUSY"));
	assert_non_null(strstr(buf, "refused"));
	uifmt_reset_result(buf, sizeof(buf), -EINVAL, true);
	assert_non_null(strstr(buf, "EINVAL"));
	uifmt_reset_result(buf, sizeof(buf), -EIO, true);
	assert_non_null(strstr(buf, "EIO"));

	uifmt_stackmap_result(buf, sizeof(buf), -EOPNOTSUPP, true);
	assert_non_null(strstr(buf, "kernel has no stackmap option"));
	uifmt_stackmap_result(buf, sizeof(buf), -EINVAL, false);
	assert_non_null(strstr(buf, "turn stackmap off"));
	assert_non_null(strstr(buf, "EINVAL"));
	uifmt_stackmap_result(buf, sizeof(buf), 0, true);
	assert_string_equal(buf, "kernel stackmap option turned on");
}

static void test_uifmt_delay(void **state)
{
	char buf[32];

	(void)state;
	uifmt_delay(buf, sizeof(buf), 1.0);
	assert_string_equal(buf, "1s");
	uifmt_delay(buf, sizeof(buf), 0.5);
	assert_string_equal(buf, "0.5s");
	uifmt_delay(buf, sizeof(buf), 0.3);
	assert_string_equal(buf, "0.3s");
	uifmt_delay(buf, sizeof(buf), 2.25);
	assert_string_equal(buf, "2.25s");
	uifmt_delay(buf, sizeof(buf), 10);
	assert_string_equal(buf, "10s");
}

/* ---- header ------------------------------------------------------------ */

static const struct uifmt_seg seg_none = { .label = "(none)" };

/* the segment labelled @label, or seg_none (never NULL) */
static const struct uifmt_seg *seg_find(const struct uifmt_seg *s, int n, const char *label)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(s[i].label, label))
			return &s[i];
	return &seg_none;
}

static bool seg_has(const struct uifmt_seg *s, int n, const char *label)
{
	return seg_find(s, n, label) != &seg_none;
}

static void test_uifmt_header_rates(void **state)
{
	struct session_stats st;
	struct uifmt_seg segs[16];
	const struct uifmt_seg *sg;
	int n;

	(void)state;
	memset(&st, 0, sizeof(st));
	st.mode = SESSION_STACKS;
	st.interval_sec = 2.0;
	st.events_delta = 100;
	st.events = 1000;
	st.lost = 7;
	st.lost_delta = 3;
	st.tracing_on = true;
	n = uifmt_header_rates(&st, 42, segs, 16);
	sg = seg_find(segs, n, "events/s");
	assert_string_equal(sg->label, "events/s");
	assert_string_equal(sg->value, "50");
	sg = seg_find(segs, n, "lost");
	assert_string_equal(sg->label, "lost");
	assert_string_equal(sg->value, "7 (+3)");
	assert_true(sg->alert);
	sg = seg_find(segs, n, "dropped");
	assert_string_equal(sg->label, "dropped");
	assert_string_equal(sg->value, "0 (+0)");
	assert_false(sg->alert);
	sg = seg_find(segs, n, "stacks");
	assert_string_equal(sg->label, "stacks");
	assert_string_equal(sg->value, "42");
	assert_false(seg_has(segs, n, "tracing"));
	st.tracing_on = false;
	n = uifmt_header_rates(&st, 42, segs, 16);
	sg = seg_find(segs, n, "tracing");
	assert_string_equal(sg->label, "tracing");
	assert_string_equal(sg->value, "OFF");
	assert_true(sg->alert);
	/* the array bound holds */
	assert_int_equal(uifmt_header_rates(&st, 1, segs, 2), 2);
	/* stacks mode: 10 stacks of 216 B in 4000 B read would be 10 of 16 B */
	assert_false(seg_has(segs, n, "stackmap"));
	st.rb_bytes = 4000;
	st.sized_records = 10;
	st.sized_bytes = 2160;
	st.alt_bytes = 160;
	n = uifmt_header_rates(&st, 42, segs, 16);
	sg = seg_find(segs, n, "stackmap");
	assert_string_equal(sg->label, "stackmap");
	assert_string_equal(sg->value, "would cut ring-buffer use by 50%");

	/* -u: the way, and for dwarf the share with a user stack and why not */
	assert_false(seg_has(segs, n, "user"));
	st.user = SESSION_USER_FP;
	n = uifmt_header_rates(&st, 42, segs, 16);
	sg = seg_find(segs, n, "user");
	assert_string_equal(sg->value, "fp");
	assert_false(sg->alert);
	snprintf(st.user_note, sizeof(st.user_note), "fp: dwarf unavailable (EACCES)");
	n = uifmt_header_rates(&st, 42, segs, 16);
	sg = seg_find(segs, n, "user");
	assert_string_equal(sg->value, "fp (no dwarf)");
	assert_true(sg->alert);
	st.user_note[0] = '\0';
	st.user = SESSION_USER_DWARF;
	n = uifmt_header_rates(&st, 42, segs, 16);
	assert_string_equal(seg_find(segs, n, "user")->value, "dwarf");
	st.ujoin.why[UJOIN_OK] = 95;
	st.ujoin.why[UJOIN_NO_SAMPLE] = 1;
	st.ujoin.why[UJOIN_SAMPLE_LOST] = 4;
	n = uifmt_header_rates(&st, 42, segs, 16);
	sg = seg_find(segs, n, "user");
	assert_string_equal(sg->value, "dwarf 95% (4% sample lost)");
	assert_false(sg->alert);
	st.ujoin.why[UJOIN_NO_MAPS] = 20;
	n = uifmt_header_rates(&st, 42, segs, 16);
	sg = seg_find(segs, n, "user");
	assert_string_equal(sg->value, "dwarf 79% (17% no maps)");
	assert_true(sg->alert);
	/*
	 * --user-sample 10: the share stated with the period; the events not
	 * sampled are no reason to look, the lost ones among the rest are
	 */
	memset(&st.ujoin, 0, sizeof(st.ujoin));
	st.user_period = 10;
	st.ujoin.why[UJOIN_OK] = 1000;
	st.ujoin.why[UJOIN_NOT_SAMPLED] = 9000;
	n = uifmt_header_rates(&st, 42, segs, 16);
	sg = seg_find(segs, n, "user");
	assert_string_equal(sg->value, "dwarf 1/10 10%");
	assert_false(sg->alert);
	st.ujoin.why[UJOIN_SAMPLE_LOST] = 200;
	n = uifmt_header_rates(&st, 42, segs, 16);
	sg = seg_find(segs, n, "user");
	assert_string_equal(sg->value, "dwarf 1/10 10% (2% sample lost)");
	assert_true(sg->alert);

	/* comm_unnamed (one row of core/counters.h): a segment once not 0, no alert */
	assert_false(seg_has(segs, n, "unnamed"));
	st.comm_unnamed = 7;
	st.comm_unnamed_delta = 3;
	n = uifmt_header_rates(&st, 42, segs, 16);
	sg = seg_find(segs, n, "unnamed");
	assert_string_equal(sg->value, "7 (+3)");
	assert_false(sg->alert);

	/* --offcpu: the share of sleeps that ended at the wakeup, once any did */
	assert_false(seg_has(segs, n, "ended at wakeup"));
	st.offcpu_sleeps = 966;
	st.offcpu_woken = 543;
	n = uifmt_header_rates(&st, 42, segs, 16);
	sg = seg_find(segs, n, "ended at wakeup");
	assert_string_equal(sg->value, "56%");
	assert_false(sg->alert);

	/* -u fp: user stacks of one frame (no frame-pointer chain), an alert */
	assert_false(seg_has(segs, n, "1-frame user stacks"));
	st.ustack_one = 5;
	n = uifmt_header_rates(&st, 42, segs, 16);
	sg = seg_find(segs, n, "1-frame user stacks");
	assert_string_equal(sg->value, "5");
	assert_true(sg->alert);
}

/* the pool line: filling, warning, full; every segment an alert on a warning */
static void test_uifmt_header_pool(void **state)
{
	struct session_stats st;
	struct uifmt_seg segs[16];
	const struct uifmt_seg *sg;
	int n, i;

	(void)state;
	memset(&st, 0, sizeof(st));
	st.mode = SESSION_STACKS;
	assert_int_equal(uifmt_header_pool(&st, segs, 16), 0);
	st.mode = SESSION_STACKMAP;
	n = uifmt_header_pool(&st, segs, 16);
	assert_int_equal(n, 1);
	assert_string_equal(segs[0].value, "no stats");
	/* filling slowly: fill, growth, full in; no warning, no fix */
	st.have_map_stat = true;
	st.health.known = true;
	st.health.entries = 6012;
	st.health.capacity = 16384;
	st.health.growth = 12.3;
	st.health.settled = true;
	st.health.eta = 889.0;
	n = uifmt_header_pool(&st, segs, 16);
	sg = seg_find(segs, n, "pool");
	assert_string_equal(sg->value, "37% 6012/16384");
	assert_false(sg->alert);
	assert_string_equal(seg_find(segs, n, "growth")->value, "+12/s");
	assert_string_equal(seg_find(segs, n, "full in")->value, "14m49s");
	assert_false(seg_has(segs, n, "fix"));
	assert_false(seg_has(segs, n, "fallback"));
	/* full within minutes: the whole line warns, with the advice */
	st.health.eta = 120;
	st.health.warn = true;
	st.health.bits = 14;
	st.health.bits_advice = 15;
	n = uifmt_header_pool(&st, segs, 16);
	assert_string_equal(seg_find(segs, n, "fix")->value,
			    "r resets it; boot ftrace_stackmap.bits=15 (32768)");
	for (i = 0; i < n; i++)
		assert_true(segs[i].alert);
	/* full: since when, the fallback share, what was saved, no room */
	st.health.full = true;
	st.health.full_since = 0; /* the epoch: a time of day in any zone */
	st.health.full_for = 80;
	st.health.eta = 0;
	st.health.successes_delta = 48;
	st.health.drops_delta = 52;
	st.health.successes_run = 500;
	st.health.drops_run = 500;
	st.health.fell_back = 493;
	st.health.growth = 4.1;
	st.health.rb_at_full = (struct stackmap_rb){ 100, 1600, 10000 };
	st.sized_records = 200;
	st.sized_bytes = 1600 + 8400;
	st.alt_bytes = 20000;
	n = uifmt_header_pool(&st, segs, 16);
	sg = seg_find(segs, n, "pool");
	assert_true(!strncmp(sg->value, "FULL since ", 11) && strstr(sg->value, " (1m20s)"));
	assert_true(sg->alert);
	assert_string_equal(seg_find(segs, n, "fallback")->value, "52% now, 50% since start");
	assert_string_equal(seg_find(segs, n, "fix")->value,
			    "r empties it; boot ftrace_stackmap.bits=15 (32768)");
	/* 84% saved of the first 100 records, 16% of the next 100 */
	assert_string_equal(seg_find(segs, n, "saves")->value, "84% before full, 16% since");
	assert_string_equal(seg_find(segs, n, "no room")->value, "493 stacks +4.1/s");
	assert_false(seg_has(segs, n, "growth"));
	for (i = 0; i < n; i++)
		assert_true(segs[i].alert);
	/* full at start: nothing known of before; passive: the map is not ours */
	st.health.full_at_start = true;
	st.mode = SESSION_PASSIVE;
	n = uifmt_header_pool(&st, segs, 16);
	assert_true(strstr(seg_find(segs, n, "pool")->value, "since start ") != NULL);
	assert_true(!strncmp(seg_find(segs, n, "fix")->value, "the map is another tool's", 25));
	assert_false(seg_has(segs, n, "saves"));
}

static void test_uifmt_header_map(void **state)
{
	struct session_stats st;
	struct uifmt_seg segs[16];
	const struct uifmt_seg *sg;
	int n;

	(void)state;
	memset(&st, 0, sizeof(st));
	st.mode = SESSION_STACKS;
	assert_int_equal(uifmt_header_map(&st, segs, 16), 0);
	st.mode = SESSION_STACKMAP;
	st.stackmap_on = true;
	st.map_abi = 4;
	st.have_map_stat = true;
	st.map.entries = 10;
	st.map.capacity = 4096;
	st.map.successes = 500;
	st.map.drops = 2;
	st.map.success_rate = 99;
	st.fallbacks = 5;
	st.fallbacks_delta = 1;
	st.generation = 3;
	n = uifmt_header_map(&st, segs, 16);
	sg = seg_find(segs, n, "stackmap");
	assert_string_equal(sg->label, "stackmap");
	assert_string_equal(sg->value, "on v4");
	sg = seg_find(segs, n, "entries");
	assert_string_equal(sg->label, "entries");
	assert_string_equal(sg->value, "10/4096");
	assert_false(sg->alert);
	sg = seg_find(segs, n, "successes");
	assert_string_equal(sg->label, "successes");
	assert_string_equal(sg->value, "500");
	sg = seg_find(segs, n, "drops");
	assert_string_equal(sg->label, "drops");
	assert_true(sg->alert);
	sg = seg_find(segs, n, "success");
	assert_string_equal(sg->label, "success");
	assert_string_equal(sg->value, "99%");
	sg = seg_find(segs, n, "fallbacks");
	assert_string_equal(sg->label, "fallbacks");
	assert_string_equal(sg->value, "5 (+1)");
	sg = seg_find(segs, n, "gen");
	assert_string_equal(sg->label, "gen");
	assert_string_equal(sg->value, "3");
	assert_false(seg_has(segs, n, "map saves"));
	assert_false(seg_has(segs, n, "bad ids"));
	/* 10 ids of 16 B where full stacks would have taken 216 B each */
	st.rb_bytes = 4000;
	st.sized_records = 10;
	st.sized_bytes = 160;
	st.alt_bytes = 2160;
	st.bad_ids = 2;
	n = uifmt_header_map(&st, segs, 16);
	sg = seg_find(segs, n, "map saves");
	assert_string_equal(sg->label, "map saves");
	assert_string_equal(sg->value, "93% (16 of 216 B/ev)");
	sg = seg_find(segs, n, "bad ids");
	assert_string_equal(sg->label, "bad ids");
	assert_string_equal(sg->value, "2");
	assert_true(sg->alert);
	/* passive mode reads no ring buffer of its own */
	st.mode = SESSION_PASSIVE;
	n = uifmt_header_map(&st, segs, 16);
	assert_false(seg_has(segs, n, "map saves"));
	st.mode = SESSION_STACKMAP;
	/* v1 names, no events yet, full map */
	st.map.v1_names = true;
	st.map.success_rate = -1;
	st.map.entries = 4096;
	n = uifmt_header_map(&st, segs, 16);
	assert_true(seg_has(segs, n, "hits"));
	sg = seg_find(segs, n, "hit rate");
	assert_string_equal(sg->label, "hit rate");
	assert_string_equal(sg->value, "-");
	assert_true(seg_find(segs, n, "entries")->alert);
}

/* ---- hmap -------------------------------------------------------------- */

/* hmap_copy(): the copy holds exactly the source's entries (the zero key too) */
static void test_hmap_copy(void **state)
{
	struct hmap a, b;
	uint64_t v, i;

	(void)state;
	hmap_init(&a);
	hmap_init(&b);
	for (i = 0; i < 500; i++)
		assert_int_equal(hmap_put(&a, i * 31, i + 1), 0);
	assert_int_equal(hmap_put(&b, 7, 7), 0);
	assert_int_equal(hmap_copy(&b, &a), 0);
	assert_int_equal(hmap_len(&b), 500);
	assert_false(hmap_get(&b, 7, NULL));
	for (i = 0; i < 500; i++) {
		assert_true(hmap_get(&b, i * 31, &v));
		assert_int_equal(v, i + 1);
	}
	/* independent: changing one leaves the other */
	assert_true(hmap_del(&a, 31));
	assert_true(hmap_get(&b, 31, NULL));
	hmap_clear(&a);
	assert_int_equal(hmap_copy(&b, &a), 0);
	assert_int_equal(hmap_len(&b), 0);
	hmap_done(&a);
	hmap_done(&b);
}

static void test_hmap_basic(void **state)
{
	struct hmap m;
	uint64_t v, i;

	(void)state;
	hmap_init(&m);
	assert_false(hmap_get(&m, 5, &v));
	assert_false(hmap_del(&m, 5));
	assert_int_equal(hmap_put(&m, 0, 11), 0);
	assert_true(hmap_get(&m, 0, &v));
	assert_int_equal(v, 11);
	for (i = 1; i <= 20000; i++)
		assert_int_equal(hmap_put(&m, i * 7919, i), 0);
	assert_int_equal(hmap_len(&m), 20001);
	for (i = 1; i <= 20000; i += 2)
		assert_true(hmap_del(&m, i * 7919));
	for (i = 1; i <= 20000; i++) {
		bool found = hmap_get(&m, i * 7919, &v);

		assert_int_equal(found, i % 2 == 0);
		if (found)
			assert_int_equal(v, i);
	}
	assert_int_equal(hmap_len(&m), 10001);
	assert_int_equal(hmap_put(&m, 2 * 7919, 99), 0);
	assert_true(hmap_get(&m, 2 * 7919, &v));
	assert_int_equal(v, 99);
	hmap_clear(&m);
	assert_int_equal(hmap_len(&m), 0);
	assert_false(hmap_get(&m, 4 * 7919, NULL));
	hmap_done(&m);
	assert_true(hmap_mix(0, 0) != 0);
	assert_true(hmap_mix(1, 2) != hmap_mix(2, 1));
}

/* ---- symcache and textmatch --------------------------------------------- */

static const char kallsyms[] = "ffffffff81000000 T _stext\n"
			       "ffffffff81001000 T __schedule\n"
			       "ffffffff81002000 T do_nanosleep\n"
			       "ffffffff81003000 T ext4_file_write_iter\t[ext4]\n"
			       "ffffffff81004000 T zzz_end\n";

static struct stack *stack_make(const uint64_t *ips, unsigned int depth)
{
	struct stack *st = calloc(1, sizeof(*st) + depth * sizeof(uint64_t));

	assert_non_null(st);
	st->depth = (uint16_t)depth;
	memcpy(st->ips, ips, depth * sizeof(uint64_t));
	return st;
}

static void test_symcache_textmatch(void **state)
{
	uint64_t ips1[] = { 0xffffffff81001010, 0xffffffff81002020 };
	uint64_t ips2[] = { 0xffffffff81001020, 0xffffffff81003030 };
	struct symcache sc;
	struct textmatch tm;
	struct stack *a, *b;
	struct ksym *ks;
	uint32_t id1, id2;
	FILE *f;

	(void)state;
	ks = ksym_new(NULL);
	assert_non_null(ks);
	f = fmemopen((void *)kallsyms, sizeof(kallsyms) - 1, "r");
	assert_non_null(f);
	assert_true(ksym_load(ks, f) > 0);
	fclose(f);

	symcache_init(&sc, ks);
	id1 = symcache_id(&sc, ips1[0]);
	id2 = symcache_id(&sc, ips2[0]);
	assert_true(id1 != id2);
	assert_int_equal(symcache_id(&sc, ips1[0]), id1);
	/* two call sites in one function: one merge key */
	assert_true(symcache_start(&sc, id1) == 0xffffffff81001000ULL);
	assert_true(symcache_start(&sc, id2) == 0xffffffff81001000ULL);
	assert_string_equal(symcache_name(&sc, id1), "__schedule");
	assert_non_null(strstr(symcache_name(&sc, symcache_id(&sc, ips2[1])), "[ext4]"));
	assert_false(symcache_sync(&sc));

	a = stack_make(ips1, 2);
	b = stack_make(ips2, 2);
	textmatch_init(&tm);
	assert_false(textmatch_active(&tm));
	assert_true(textmatch_set(&tm, "NANOSLEEP"));
	assert_true(textmatch_frames(&tm, &sc, a));
	assert_false(textmatch_frames(&tm, &sc, b));
	/* cached answers stay right, and follow a new text */
	assert_true(textmatch_frames(&tm, &sc, a));
	assert_true(textmatch_set(&tm, "ext4|nothing"));
	assert_false(textmatch_frames(&tm, &sc, a));
	assert_true(textmatch_frames(&tm, &sc, b));
	textmatch_forget_stacks(&tm);
	assert_true(textmatch_frames(&tm, &sc, b));
	assert_false(textmatch_set(&tm, ""));
	textmatch_done(&tm);
	symcache_done(&sc);
	free(a);
	free(b);
	ksym_free(ks);
}

/* sparklines: zero is a blank, the smallest count the lowest bar, the largest the full one */
static void test_uifmt_spark(void **state)
{
	uint64_t v[] = { 0, 1, 50, 100, 100, 25 }, big[20];
	char buf[128];
	int i;

	(void)state;
	assert_int_equal(uifmt_spark_level(0, 100), 0);
	assert_int_equal(uifmt_spark_level(1, 100), 1);
	assert_int_equal(uifmt_spark_level(12, 100), 1);
	assert_int_equal(uifmt_spark_level(13, 100), 2);
	assert_int_equal(uifmt_spark_level(50, 100), 4);
	assert_int_equal(uifmt_spark_level(100, 100), 8);
	assert_int_equal(uifmt_spark_level(UINT64_MAX - 1, UINT64_MAX), 8);
	assert_int_equal(uifmt_spark_level(1, UINT64_MAX), 1);
	assert_int_equal(uifmt_spark(buf, sizeof(buf), v, 6, 12, false), 6);
	assert_string_equal(buf, " .=@@_");
	assert_int_equal(uifmt_spark(buf, sizeof(buf), v, 6, 12, true), 6);
	assert_string_equal(buf, " \u2581\u2584\u2588\u2588\u2582");
	/* narrower than the values: the newest, scaled among themselves */
	assert_int_equal(uifmt_spark(buf, sizeof(buf), v, 6, 2, false), 2);
	assert_string_equal(buf, "@_");
	/* all zero: blanks; a rising line rises */
	for (i = 0; i < 20; i++)
		big[i] = 0;
	uifmt_spark(buf, sizeof(buf), big, 8, 8, false);
	assert_string_equal(buf, "        ");
	for (i = 0; i < 8; i++)
		big[i] = (uint64_t)i + 1;
	uifmt_spark(buf, sizeof(buf), big, 8, 8, false);
	assert_string_equal(buf, "._-=+*#@");
	/* a small buffer: whole glyphs only */
	assert_int_equal(uifmt_spark(buf, 7, v, 6, 12, true), 2);
}

static uint64_t test_sym_id(void *ctx, uint64_t ip)
{
	(void)ctx;
	return ip;
}

static int by_sym(void *ctx, uint32_t a, uint32_t b)
{
	const struct calltree *ct = ctx;

	return (ct->nodes[a].sym > ct->nodes[b].sym) - (ct->nodes[a].sym < ct->nodes[b].sym);
}

/* the node of the path root..leaf (frames root first) */
static uint32_t node_of(const struct calltree *ct, const uint64_t *path, int n)
{
	uint64_t key = 0;
	int i;

	for (i = 0; i < n; i++)
		key = calltree_mix(key, path[i]);
	return calltree_find(ct, key);
}

static const struct flame_box *box_of(const struct flame_box *b, size_t n, uint32_t node)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i].node == node)
			return &b[i];
	return NULL;
}

/*
 * The flame graph's layout from counts: every box within a column of its
 * share, children inside their parent in the given order, one level never
 * overlapping, narrow boxes left out, the zoomed node full width.
 */
static void test_flame_layout(void **state)
{
	struct stack_table *t = stack_table_new();
	struct rank_opts ro = { .key = RANK_TOTAL, .event = -1, .pid = -1, .cpu = -1 };
	struct calltree_ops ops = { .sym = test_sym_id };
	/* leaf first: root R=0x100; R>A>X (600), R>A>Y (300), R>B (99), R>C (1) */
	uint64_t s1[] = { 0x30, 0x10, 0x100 }, s2[] = { 0x31, 0x10, 0x100 };
	uint64_t s3[] = { 0x20, 0x100 }, s4[] = { 0x21, 0x100 };
	uint64_t pr[] = { 0x100 }, pa[] = { 0x100, 0x10 }, pb[] = { 0x100, 0x20 };
	uint64_t pc[] = { 0x100, 0x21 }, px[] = { 0x100, 0x10, 0x30 }, py[] = { 0x100, 0x10, 0x31 };
	struct rank_row rows[8];
	struct flame_link links[16];
	struct flame_box boxes[32];
	struct calltree ct;
	const struct flame_box *b, *a, *x, *y, *bb;
	size_t n, i, j, nr;
	int w;

	(void)state;
	assert_non_null(t);
	stack_table_hit(t, stack_table_intern(t, s1, 3), 0, 0, 1, 600);
	stack_table_hit(t, stack_table_intern(t, s2, 3), 0, 0, 1, 300);
	stack_table_hit(t, stack_table_intern(t, s3, 2), 0, 0, 1, 99);
	stack_table_hit(t, stack_table_intern(t, s4, 2), 0, 0, 1, 1);
	nr = stack_table_rank(t, &ro, rows, 8, NULL);
	assert_int_equal(nr, 4);
	calltree_init(&ct);
	assert_int_equal(calltree_build(&ct, rows, nr, false, false, &ops), 0);
	assert_true(ct.nnodes <= 16);
	assert_int_equal(flame_order(&ct, links, by_sym, &ct), 0);

	/* the edges: round(off * width / total) */
	assert_int_equal(flame_edge(0, 1000, 80), 0);
	assert_int_equal(flame_edge(600, 1000, 80), 48);
	assert_int_equal(flame_edge(999, 1000, 80), 80);
	assert_int_equal(flame_edge(1000, 1000, 80), 80);
	assert_int_equal(flame_edge(UINT64_MAX / 2, UINT64_MAX, 80), 40);

	for (w = 20; w <= 200; w += 60) {
		n = flame_layout(&ct, links, 0, w, boxes, 32);
		/* the root, all, on level 0; R on level 1: full width */
		assert_int_equal(boxes[0].node, 0);
		assert_int_equal(boxes[0].level, 0);
		assert_int_equal(boxes[0].w, w);
		b = box_of(boxes, n, node_of(&ct, pr, 1));
		assert_non_null(b);
		assert_int_equal(b->x, 0);
		assert_int_equal(b->w, w);
		/* A (900 of 1000) then B (99) then C (1): by symbol, A < B < C */
		a = box_of(boxes, n, node_of(&ct, pa, 2));
		bb = box_of(boxes, n, node_of(&ct, pb, 2));
		assert_non_null(a);
		assert_non_null(bb);
		assert_int_equal(a->x, 0);
		assert_true(abs(a->w * 1000 - 900 * w) <= 1000);
		assert_int_equal(bb->x, a->x + a->w);
		assert_true(abs(bb->w * 1000 - 99 * w) <= 1000);
		/* C has 1 of 1000: under half a column at these widths */
		assert_null(box_of(boxes, n, node_of(&ct, pc, 2)));
		/* X (600) and Y (300) inside A, X first */
		x = box_of(boxes, n, node_of(&ct, px, 3));
		y = box_of(boxes, n, node_of(&ct, py, 3));
		assert_non_null(x);
		assert_non_null(y);
		assert_int_equal(x->x, a->x);
		assert_int_equal(y->x, x->x + x->w);
		assert_true(y->x + y->w <= a->x + a->w);
		assert_true(abs(x->w * 1000 - 600 * w) <= 1000);
		assert_true(abs(y->w * 1000 - 300 * w) <= 1000);
		/* level by level, left to right; a level never overlaps */
		for (i = 1; i < n; i++) {
			assert_true(boxes[i].level >= boxes[i - 1].level);
			if (boxes[i].level == boxes[i - 1].level)
				assert_true(boxes[i].x >= boxes[i - 1].x + boxes[i - 1].w);
			assert_true(boxes[i].w >= 1);
			assert_true(boxes[i].x + boxes[i].w <= w);
		}
		/* every box inside its parent's */
		for (i = 0; i < n; i++) {
			uint32_t p = boxes[i].node ? ct.nodes[boxes[i].node].parent : CALLTREE_NONE;

			for (j = 0; p != CALLTREE_NONE && j < n; j++)
				if (boxes[j].node == p)
					assert_true(boxes[i].x >= boxes[j].x &&
						    boxes[i].x + boxes[i].w <=
							    boxes[j].x + boxes[j].w);
		}
	}
	/* at 2000 columns C has its one column */
	n = flame_layout(&ct, links, 0, 2000, boxes, 32);
	assert_non_null(box_of(boxes, n, node_of(&ct, pc, 2)));

	/* zoomed into A: all and R above it as ancestors, A full width, X and Y share it */
	n = flame_layout(&ct, links, node_of(&ct, pa, 2), 90, boxes, 32);
	assert_int_equal(boxes[0].node, 0);
	assert_true(boxes[0].ancestor);
	assert_true(boxes[1].ancestor);
	assert_int_equal(boxes[1].node, node_of(&ct, pr, 1));
	assert_false(boxes[2].ancestor);
	assert_int_equal(boxes[2].node, node_of(&ct, pa, 2));
	assert_int_equal(boxes[2].w, 90);
	x = box_of(boxes, n, node_of(&ct, px, 3));
	y = box_of(boxes, n, node_of(&ct, py, 3));
	assert_int_equal(x->w, 60);
	assert_int_equal(y->x, 60);
	assert_int_equal(y->w, 30);
	/* B is not in A: not drawn */
	assert_null(box_of(boxes, n, node_of(&ct, pb, 2)));
	assert_int_equal(n, 5);
	/* no room: as many as fit */
	assert_int_equal(flame_layout(&ct, links, 0, 80, boxes, 2), 2);
	calltree_free(&ct);
	stack_table_free(t);
}

/*
 * Narrow siblings side by side (each under half a column) are one "+N"
 * marker from the first one's edge to the last one's, nothing below it; a
 * wide sibling between two runs parts them
 */
static void test_flame_layout_markers(void **state)
{
	struct stack_table *t = stack_table_new();
	struct rank_opts ro = { .key = RANK_TOTAL, .event = -1, .pid = -1, .cpu = -1 };
	struct calltree_ops ops = { .sym = test_sym_id };
	struct rank_row rows[64];
	struct flame_link links[128];
	struct flame_box boxes[128];
	const struct flame_box *m1 = NULL, *m2 = NULL, *big = NULL;
	struct calltree ct;
	size_t n, nr, i;
	uint64_t s[3];

	(void)state;
	assert_non_null(t);
	/* R=0x100 > 0x200 (a caller of each) > leaf: 20 of 1 (0x300..), B 960 (0x400), 20 of 1
	 * (0x500..) */
	s[1] = 0x200;
	s[2] = 0x100;
	for (i = 0; i < 20; i++) {
		s[0] = 0x300 + i;
		stack_table_hit(t, stack_table_intern(t, s, 3), 0, 0, 1, 1);
		s[0] = 0x500 + i;
		stack_table_hit(t, stack_table_intern(t, s, 3), 0, 0, 1, 1);
	}
	s[0] = 0x400;
	stack_table_hit(t, stack_table_intern(t, s, 3), 0, 0, 1, 960);
	nr = stack_table_rank(t, &ro, rows, 64, NULL);
	assert_int_equal(nr, 41);
	calltree_init(&ct);
	assert_int_equal(calltree_build(&ct, rows, nr, false, false, &ops), 0);
	assert_int_equal(flame_order(&ct, links, by_sym, &ct), 0);
	/* 80 columns of 1000: each small one 0.08 of a column, 20 of them 1.6 */
	n = flame_layout(&ct, links, 0, 80, boxes, 128);
	for (i = 0; i < n; i++) {
		if (boxes[i].level != 3)
			continue;
		if (boxes[i].more && !m1)
			m1 = &boxes[i];
		else if (boxes[i].more)
			m2 = &boxes[i];
		else
			big = &boxes[i];
	}
	assert_non_null(m1);
	assert_non_null(m2);
	assert_non_null(big);
	assert_int_equal(m1->more, 20);
	assert_int_equal(m1->x, 0);
	assert_int_equal(m1->w, 2);
	assert_int_equal(big->x, 2);
	assert_int_equal(big->w, 76);
	assert_int_equal(m2->more, 20);
	assert_int_equal(m2->x, 78);
	assert_int_equal(m2->w, 2);
	/* no level below: the markers have nothing under them, B is a leaf */
	assert_int_equal(boxes[n - 1].level, 3);
	/* at 800 columns each has its 0.8 of a column: boxes of their own, no marker */
	n = flame_layout(&ct, links, 0, 800, boxes, 128);
	for (i = 0; i < n; i++)
		assert_int_equal(boxes[i].more, 0);
	calltree_free(&ct);
	stack_table_free(t);
}

static unsigned int skip_leaf(void *ctx, const struct stack *st)
{
	(void)ctx;
	return st->depth > 1 ? 1 : 0;
}

/*
 * mark_skip: the frames @skip leaves out stay as flagged leaves of the
 * caller tree (the flame graph's machinery boxes); the other nodes, their
 * counts and keys are the tree's without them, and a path through a
 * flagged node is found
 */
static void test_calltree_mark_skip(void **state)
{
	struct stack_table *t = stack_table_new();
	struct rank_opts ro = { .key = RANK_TOTAL, .event = -1, .pid = -1, .cpu = -1 };
	struct calltree_ops plain = { .skip = skip_leaf, .sym = test_sym_id };
	struct calltree_ops mark = { .skip = skip_leaf, .sym = test_sym_id, .mark_skip = true };
	uint64_t s1[] = { 0x1, 0x30, 0x10 }, s2[] = { 0x1, 0x31, 0x10 };
	uint64_t p1[] = { 0x10, 0x30 }, p1m[] = { 0x10, 0x30, 0x1 };
	struct rank_row rows[4];
	struct calltree a, b;
	struct stack *st1;
	uint32_t n;
	size_t nr;

	(void)state;
	st1 = stack_table_intern(t, s1, 3);
	stack_table_hit(t, st1, 0, 0, 1, 7);
	stack_table_hit(t, stack_table_intern(t, s2, 3), 0, 0, 1, 3);
	nr = stack_table_rank(t, &ro, rows, 4, NULL);
	calltree_init(&a);
	calltree_init(&b);
	assert_int_equal(calltree_build(&a, rows, nr, false, false, &plain), 0);
	assert_int_equal(calltree_build(&b, rows, nr, false, false, &mark), 0);
	assert_int_equal(b.nnodes, a.nnodes + 2);
	n = node_of(&a, p1, 2);
	assert_int_not_equal(n, CALLTREE_NONE);
	assert_int_equal(a.nodes[n].count, 7);
	assert_int_equal(a.nodes[n].self, 7);
	n = node_of(&b, p1, 2);
	assert_int_equal(b.nodes[n].count, 7);
	assert_int_equal(b.nodes[n].flags, 0);
	assert_int_equal(b.nodes[n].self, 0); /* its callee, the machinery, has the hits */
	n = node_of(&b, p1m, 3);
	assert_int_not_equal(n, CALLTREE_NONE);
	assert_int_equal(b.nodes[n].flags, CALLTREE_F_SKIPPED);
	assert_int_equal(b.nodes[n].count, 7);
	assert_true(calltree_path_has(&b, n, st1, &mark));
	assert_false(
		calltree_path_has(&b, node_of(&b, (uint64_t[]){ 0x10, 0x31, 0x1 }, 3), st1, &mark));
	calltree_free(&a);
	calltree_free(&b);
	stack_table_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uifmt_layout_wide),
		cmocka_unit_test(test_uifmt_layout_narrow_drops_by_prio),
		cmocka_unit_test(test_uifmt_layout_never_past_width),
		cmocka_unit_test(test_uifmt_terms),
		cmocka_unit_test(test_uifmt_parse_delay),
		cmocka_unit_test(test_uifmt_parse_pid),
		cmocka_unit_test(test_uifmt_folded_name),
		cmocka_unit_test(test_uifmt_results),
		cmocka_unit_test(test_uifmt_delay),
		cmocka_unit_test(test_uifmt_header_rates),
		cmocka_unit_test(test_uifmt_header_map),
		cmocka_unit_test(test_uifmt_header_pool),
		cmocka_unit_test(test_uifmt_layout_hidden),
		cmocka_unit_test(test_hmap_basic),
		cmocka_unit_test(test_hmap_copy),
		cmocka_unit_test(test_symcache_textmatch),
		cmocka_unit_test(test_uifmt_spark),
		cmocka_unit_test(test_flame_layout),
		cmocka_unit_test(test_flame_layout_markers),
		cmocka_unit_test(test_calltree_mark_skip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
